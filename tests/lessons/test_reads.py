"""GET /api/lessons and /api/lessons/[id] (4.1, 2.2, 7.3) as an app calls them, through the Flask test client."""

import pytest

from tests.conftest import bearer
from tests.lessons.conftest import create_lesson
from wellness_api.api_keys import service as api_keys
from wellness_api.core import client_tokens


def lessons_url(client_id: str | None) -> str:
    return "/api/lessons" + (f"?clientId={client_id}" if client_id is not None else "")


@pytest.fixture
def world(http, tenant):
    """Two live lessons (one related to the other and to a hidden one) and a hidden lesson."""
    hidden = create_lesson(http, tenant, title={"en": "Draft"}, isLive=False)
    first = create_lesson(http, tenant, title={"en": "Stretch", "zh_Hant": "伸展", "zh_Hans": "伸展"}, isLive=True,
                          duration=12.5, MET=2.5, intensity="Low", algorithm="Video", membershipTiers=["Free"],
                          description={"en": "Gentle"}, videoURLs=["https://v.example/1.m3u8"],
                          sessions=[{"title": {"en": "Warm-up"}, "startSeconds": 0, "endSeconds": 90, "type": "warmup"},
                                    {"startSeconds": 90, "endSeconds": 750, "type": "reps", "repPoseId": "squat",
                                     "repCount": 12}])
    second = create_lesson(http, tenant, title={"en": "Balance"}, isLive=True, duration=10,
                           relatedLessonIds=[first, hidden])
    return {"hidden": hidden, "first": first, "second": second}


def test_player_sees_only_live_lessons_in_read_form(http, tenant, world):
    response = http.get(lessons_url(tenant.client_id), headers=tenant.player.headers)
    assert response.status_code == 200, response.json
    data = response.json["data"]
    assert [lesson["id"] for lesson in data] == [world["first"], world["second"]]
    first, second = data
    assert first["clientId"] == tenant.client_id
    assert first["title"] == {"en": "Stretch", "zh_Hant": "伸展", "zh_Hans": "伸展"}
    assert first["duration"] == 750  # 12.5 minutes written, seconds read
    assert first["MET"] == 2.5 and first["intensity"] == "Low" and first["algorithm"] == "Video"
    assert first["status"] == "ACTIVE" and first["membershipTiers"] == ["Free"]
    assert first["sessions"] == [
        {"index": 0, "category": "warmup", "title": {"en": "Warm-up"}, "start": 0, "end": 90},
        {"index": 1, "category": "reps", "start": 90, "end": 750, "repPoseId": "squat", "targetRepCount": 12},
    ]
    assert set(first["createDatetime"]) == {"_seconds", "_nanoseconds"}
    assert isinstance(first["modifyDatetime"]["_seconds"], int)
    assert first["createdBy"] == tenant.admin.uid
    assert first["relatedLessons"] == []
    # Related lessons are resolved, and a hidden related lesson is not shown.
    # In the list they are named, not copied: the list holds each of them whole.
    assert second["relatedLessons"] == [{"id": first["id"], "idHtmlEncoded": first["idHtmlEncoded"],
                                         "clientId": tenant.client_id, "uniqueID": first["uniqueID"]}]
    assert response.headers["x-request-id"]


def test_detail_of_live_lesson_and_404_for_hidden_or_unknown(http, tenant, world):
    response = http.get(f"/api/lessons/{world['second']}", headers=tenant.player.headers)
    assert response.status_code == 200
    lesson = response.json["lesson"]
    assert lesson["id"] == world["second"] and lesson["duration"] == 600
    assert [r["id"] for r in lesson["relatedLessons"]] == [world["first"]]
    assert lesson["relatedLessons"][0]["duration"] == 750  # one lesson's detail embeds its related ones whole
    for lesson_id in (world["hidden"], "no-such-lesson", "bad..id"):
        response = http.get(f"/api/lessons/{lesson_id}", headers=tenant.player.headers)
        assert response.status_code == 404
        assert response.json == {"error": "Lesson not found."}


def test_client_id_is_required(http, tenant):
    for url in (lessons_url(None), lessons_url("")):
        response = http.get(url, headers=tenant.player.headers)
        assert response.status_code == 400
        assert response.json == {"error": "clientId is required."}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Token abc"}])
def test_missing_or_invalid_jwt_is_401(http, tenant, world, headers):
    for url in (lessons_url(tenant.client_id), f"/api/lessons/{world['first']}"):
        response = http.get(url, headers=headers)
        assert response.status_code == 401
        assert set(response.json) == {"error"}


def test_client_token_reads_its_own_client(http, tenant, other_tenant, world):
    key = api_keys.create_key(tenant.client_id, "app", False, created_by="test").api_key
    token = bearer(client_tokens.sign(tenant.client_id, key["keyId"]))
    response = http.get(lessons_url(tenant.client_id), headers=token)
    assert response.status_code == 200 and len(response.json["data"]) == 2
    assert http.get(f"/api/lessons/{world['first']}", headers=token).status_code == 200
    response = http.get(lessons_url(other_tenant.client_id), headers=token)
    assert response.status_code == 401
    assert response.json == {"error": "This token is not valid for the requested client."}
    api_keys.create_key(tenant.client_id, "second", False, created_by="test")
    api_keys.revoke_key(tenant.client_id, key["keyId"])
    assert http.get(lessons_url(tenant.client_id), headers=token).status_code == 401


def test_another_clients_members_cannot_read(http, tenant, other_tenant, world):
    for member in (other_tenant.player, other_tenant.admin):
        response = http.get(lessons_url(tenant.client_id), headers=member.headers)
        assert response.status_code == 401
        assert response.json == {"error": "This token is not valid for the requested client."}
        # The lesson does not exist in the caller's own client; naming the other client is refused.
        assert http.get(f"/api/lessons/{world['first']}", headers=member.headers).status_code == 404
        assert http.get(f"/api/lessons/{world['first']}?clientId={tenant.client_id}",
                        headers=member.headers).status_code == 401


def test_platform_admin_reads_any_client(http, tenant, world, platform_admin):
    response = http.get(lessons_url(tenant.client_id), headers=platform_admin.headers)
    assert response.status_code == 200 and len(response.json["data"]) == 2
    response = http.get(f"/api/lessons/{world['first']}?clientId={tenant.client_id}", headers=platform_admin.headers)
    assert response.status_code == 200
    for client_id in ("no-such-client", "bad/id", "a..b"):
        response = http.get(lessons_url(client_id), headers=platform_admin.headers)
        assert response.status_code == 200 and response.json == {"data": []}
        response = http.get(f"/api/lessons/{world['first']}?clientId={client_id}", headers=platform_admin.headers)
        assert response.status_code == 404


def test_admins_of_the_client_read_the_app_list(http, tenant, world):
    for member in (tenant.admin, tenant.add_member("player")):
        response = http.get(lessons_url(tenant.client_id), headers=member.headers)
        assert response.status_code == 200 and len(response.json["data"]) == 2


def test_empty_catalog_is_an_empty_list(http, tenant):
    response = http.get(lessons_url(tenant.client_id), headers=tenant.player.headers)
    assert response.status_code == 200 and response.json == {"data": []}


def test_hiding_a_lesson_removes_it_from_the_app_list(http, tenant, world):
    response = http.patch(f"/api/b2b/lessons/catalog/{world['first']}", json={"isLive": False},
                          headers=tenant.admin.headers)
    assert response.status_code == 200
    data = http.get(lessons_url(tenant.client_id), headers=tenant.player.headers).json["data"]
    assert [lesson["id"] for lesson in data] == [world["second"]]
    assert data[0]["relatedLessons"] == []
    assert http.get(f"/api/lessons/{world['first']}", headers=tenant.player.headers).status_code == 404
    # Hidden, not deleted: the catalog still has it.
    ids = [lesson["id"] for lesson in http.get("/api/b2b/lessons/catalog", headers=tenant.admin.headers).json["lessons"]]
    assert world["first"] in ids


# ------------------------------------------------------------------------ account state and guests


def test_a_disabled_users_id_token_is_refused_at_once_on_every_route(http, tenant, world):
    """`platformctl user disable` takes effect before the ID token expires: reads check revocation too."""
    from wellness_api.core import users

    player, admin = tenant.player.headers, tenant.admin.headers
    assert http.get(lessons_url(tenant.client_id), headers=player).status_code == 200
    users.disable_user(tenant.client, tenant.player.uid)
    users.disable_user(tenant.client, tenant.admin.uid)
    for url, headers in ((lessons_url(tenant.client_id), player), (f"/api/lessons/{world['first']}", player),
                         (lessons_url(tenant.client_id), admin), ("/api/b2b/lessons/catalog", admin)):
        response = http.get(url, headers=headers)
        assert response.status_code == 401, url
        assert response.json == {"error": "Invalid or expired token"}
    response = http.post("/api/b2b/lessons/catalog", json={"title": {"en": "Late"}}, headers=admin)
    assert response.status_code == 401 and response.json == {"error": "Invalid or expired token"}


def test_a_guest_reads_the_app_list_and_details_of_its_own_client(http, guest_world):
    tenant, guest = guest_world["tenant"], guest_world["guest"]
    response = http.get(lessons_url(tenant.client_id), headers=guest)
    assert response.status_code == 200
    assert [lesson["id"] for lesson in response.json["data"]] == [guest_world["live"]]
    response = http.get(f"/api/lessons/{guest_world['live']}", headers=guest)
    assert response.status_code == 200 and response.json["lesson"]["title"] == {"en": "Try me"}
    assert http.get(f"/api/lessons/{guest_world['hidden']}", headers=guest).status_code == 404


def test_a_guest_reads_no_other_client_and_never_the_catalog(http, guest_world, other_tenant):
    guest, live = guest_world["guest"], guest_world["live"]
    other_lesson = create_lesson(http, other_tenant, title={"en": "Elsewhere"}, isLive=True)
    response = http.get(lessons_url(other_tenant.client_id), headers=guest)
    assert response.status_code == 401
    assert response.json == {"error": "This token is not valid for the requested client."}
    response = http.get(f"/api/lessons/{other_lesson}?clientId={other_tenant.client_id}", headers=guest)
    assert response.status_code == 401
    assert http.get(f"/api/lessons/{other_lesson}", headers=guest).status_code == 404  # not in its own client
    for method, url, body in (("get", "/api/b2b/lessons/catalog", None),
                              ("post", "/api/b2b/lessons/catalog", {"title": {"en": "Guest lesson"}}),
                              ("patch", "/api/b2b/lessons/catalog", {"liveLessonIds": []}),
                              ("patch", f"/api/b2b/lessons/catalog/{live}", {"isLive": False}),
                              ("get", f"/api/b2b/lessons/catalog?clientId={other_tenant.client_id}", None)):
        response = getattr(http, method)(url, json=body, headers=guest)
        assert response.status_code == 403, (method, url)
        assert response.json == {"error": "You do not have access to this client."}
    assert http.get(lessons_url(guest_world["tenant"].client_id), headers=guest).json["data"][0]["isLive"] is True
