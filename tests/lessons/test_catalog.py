"""The B2B lesson catalog (4.1 rules 1-4, 2.4, 2.5, 7.3) through the Flask test client, against the emulators."""

import json

import pytest

from tests.conftest import bearer
from tests.lessons.conftest import CATALOG, catalog, create_lesson
from wellness_api.core import client_tokens, firebase
from wellness_api.lessons import models, service

SUMMARY_FIELDS = {"id", "name", "duration", "categories", "areas", "membershipTiers", "equipment", "intensity",
                  "algorithm", "status", "createdDate", "isLive", "subtitleUrl", "sessions"}


def lesson_doc(tenant, lesson_id) -> dict:
    return firebase.db().document(f"clients/{tenant.client_id}/lessons/{lesson_id}").get().to_dict()


def plan_doc(tenant, plan_id) -> dict:
    return firebase.db().document(f"clients/{tenant.client_id}/lessonPlans/{plan_id}").get().to_dict()


def make_plan(tenant, lesson_ids, live=True, title=None) -> str:
    return service.create_plan(tenant.client_id, title or {"en": "Plan", "zh_Hant": "計畫"}, lesson_ids, live)


# ------------------------------------------------------------------------------------ GET and POST


def test_create_returns_201_lesson_id_and_catalog(http, tenant):
    body = {
        "title": {"en": "Chair Yoga", "zh_Hant": "椅子瑜伽"}, "description": {"en": "Seated"}, "duration": 20,
        "MET": 2.8, "algorithm": "Mirroring", "intensity": "Low", "categories": ["Yoga"], "areas": ["Back"],
        "equipment": "Chair", "imageUrl": "https://img.example/p.jpg", "thumbImageUrl": "https://img.example/t.jpg",
        "thumbnailTimeInSeconds": 12, "videoURLs": ["https://v.example/a.m3u8"],
        "subtitleUrl": {"en": "https://subs.example/en.vtt"},
        "sessions": [{"title": {"en": "Warm"}, "startSeconds": 0, "endSeconds": 120, "type": "warmup"}],
        "isLive": True, "membershipTiers": ["Plus"],
    }
    response = http.post(CATALOG, json=body, headers=tenant.admin.headers)
    assert response.status_code == 201, response.json
    out = response.json
    assert out["success"] is True and isinstance(out["lessonId"], str)
    envelope = out["catalog"]
    assert envelope["clientId"] == tenant.client_id
    assert envelope["liveLessonIds"] == [out["lessonId"]]
    assert envelope["allTiers"] == ["Plus"]
    (lesson,) = envelope["lessons"]
    assert set(lesson) == SUMMARY_FIELDS
    assert lesson["name"] == {"en": "Chair Yoga", "zh_Hant": "椅子瑜伽"}
    assert lesson["duration"] == 20  # minutes in the catalog
    assert lesson["status"] == "ACTIVE" and lesson["isLive"] is True and lesson["createdDate"].endswith("Z")
    assert lesson["sessions"] == [{"title": {"en": "Warm"}, "startSeconds": 0, "endSeconds": 120, "type": "warmup"}]
    assert lesson["subtitleUrl"] == {"en": "https://subs.example/en.vtt"}
    stored = lesson_doc(tenant, out["lessonId"])
    assert stored["durationSeconds"] == 1200 and "duration" not in stored
    assert stored["createdBy"] == tenant.admin.uid


def test_new_lessons_are_hidden_by_default_and_catalog_lists_all(http, tenant):
    hidden = create_lesson(http, tenant, title={"en": "A"})
    live = create_lesson(http, tenant, title={"en": "B"}, isLive=True)
    body = catalog(http, tenant)
    assert [lesson["id"] for lesson in body["lessons"]] == [hidden, live]
    assert body["liveLessonIds"] == [live]
    assert body["lessons"][0]["isLive"] is False and body["lessons"][0]["duration"] == 0


def test_all_tiers_lists_configured_tiers_first(http, tenant):
    tenant.configure("lessons.membershipTiers=Free,Plus,Premium")
    create_lesson(http, tenant, membershipTiers=["Legacy", "Plus"])
    assert catalog(http, tenant)["allTiers"] == ["Free", "Plus", "Premium", "Legacy"]


@pytest.mark.parametrize(("body", "message"), [
    ({}, "Missing required field: title.en."),
    ({"title": {"zh_Hant": "只有中文"}}, "Missing required field: title.en."),
    ({"title": "Yoga"}, "Invalid field title"),
    ({"title": {"en": "x" * 201}}, "Invalid field title.en"),
    ({"title": {"en": "Y"}, "duration": "20"}, "Invalid field duration"),
    ({"title": {"en": "Y"}, "videoURLs": ["https://v.example/x"] * 11}, "Invalid field videoURLs"),
    ({"title": {"en": "Y"}, "nope": 1}, "Unknown field: nope."),
    ({"title": {"en": "Y"}, "relatedLessonIds": ["missing-lesson"]}, "Unknown lesson ids: missing-lesson."),
])
def test_bad_create_bodies_are_400_and_create_nothing(http, tenant, body, message):
    response = http.post(CATALOG, json=body, headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json["error"].startswith(message), response.json
    assert set(response.json) == {"error"}
    assert catalog(http, tenant)["lessons"] == []


@pytest.mark.parametrize("data", [b"{not json", b"[1]", b"", b'"x"'])
def test_malformed_json_is_400(http, tenant, data):
    lesson_id = create_lesson(http, tenant)
    for method, url in (("post", CATALOG), ("patch", CATALOG), ("patch", f"{CATALOG}/{lesson_id}")):
        response = getattr(http, method)(url, data=data, content_type="application/json", headers=tenant.admin.headers)
        assert response.status_code == 400, (method, url)
        assert response.json == {"error": "Request body must be a JSON object."}


DEEP_BODIES = [b"[" * 1000 + b"]" * 1000, b'{"title": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001,
               b'{"title": {"en": "Deep"}, "sessions": [' + b"[" * 40 + b"]" * 40 + b"]}"]


@pytest.mark.parametrize("data", DEEP_BODIES)
def test_deeply_nested_json_is_400_and_changes_nothing(http, tenant, data):
    lesson_id = create_lesson(http, tenant, title={"en": "Keep"})
    for method, url in (("post", CATALOG), ("patch", CATALOG), ("patch", f"{CATALOG}/{lesson_id}")):
        response = getattr(http, method)(url, data=data, content_type="application/json", headers=tenant.admin.headers)
        assert response.status_code == 400, (method, url, response.json)
        assert response.json == {"error": "Request body is nested too deeply."}
    assert [lesson["id"] for lesson in catalog(http, tenant)["lessons"]] == [lesson_id]
    assert lesson_doc(tenant, lesson_id)["title"] == {"en": "Keep"}


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_json_body_not_declared_json_is_415_and_changes_nothing(http, tenant, content_type):
    lesson_id = create_lesson(http, tenant, title={"en": "Keep"})
    headers = {**tenant.admin.headers, **({"Content-Type": content_type} if content_type else {})}
    for method, url, body in (("post", CATALOG, {"title": {"en": "New"}}),
                              ("patch", CATALOG, {"liveLessonIds": [lesson_id]}),
                              ("patch", f"{CATALOG}/{lesson_id}", {"title": {"en": "Changed"}})):
        response = getattr(http, method)(url, data=json.dumps(body), headers=headers)
        assert response.status_code == 415, (method, url, response.json)
        assert response.json == {"error": "Content-Type must be application/json."}
    (lesson,) = catalog(http, tenant)["lessons"]
    assert lesson["name"] == {"en": "Keep"} and lesson["isLive"] is False


@pytest.mark.parametrize("fields", [
    {"title": {"en": "Morning\x00Flow"}},
    {"title": {"en": "Two\nlines"}},
    {"title": {"en": "Carriage\rreturn"}},
    {"title": {"en": "Flow", "zh_Hant": "\u202e流動"}},
    {"title": {"en": "Flow\u2066x\u2069"}},
    {"title": {"en": "Bell\x07"}},
    {"title": {"en": "C1\x9b31m"}},
    {"description": {"en": "Nul\x00byte"}},
    {"description": {"en": "Lone\rCR"}},
    {"description": {"en": "Escape \x1b[2J"}},
    {"description": {"en": "Override \u202d"}},
    {"algorithm": "Reps\n"},
    {"intensity": "Low\t"},
    {"equipment": "Mat\u202e"},
    {"categories": ["Yoga", "Str\x00etch"]},
    {"areas": ["Core\u2028"]},
    {"imageUrl": "https://img.example/a\x00.jpg"},
    {"videoURLs": ["https://v.example/\u202e.m3u8"]},
    {"sessions": [{"type": "warm\x00up"}]},
    {"sessions": [{"repPoseId": "squat\r\n"}]},
    {"sessions": [{"title": {"en": "Warm\x1bup"}}]},
    {"membershipTiers": ["Free\x00"]},
])
def test_text_with_control_line_break_or_bidi_override_characters_is_400(http, tenant, fields):
    response = http.post(CATALOG, json={"title": {"en": "Fine"}, **fields}, headers=tenant.admin.headers)
    assert response.status_code == 400, response.json
    assert response.json["error"].startswith("Invalid field "), response.json
    assert catalog(http, tenant)["lessons"] == []
    lesson_id = create_lesson(http, tenant, title={"en": "Keep"})
    response = http.patch(f"{CATALOG}/{lesson_id}", json=fields, headers=tenant.admin.headers)
    assert response.status_code == 400 and response.json["error"].startswith("Invalid field ")
    assert lesson_doc(tenant, lesson_id)["title"] == {"en": "Keep"}


@pytest.mark.parametrize("body", [{"liveLessonIds": ["a\x00b"]},
                                  {"lessonTierUpdates": [{"lessonId": "a\u202eb", "membershipTiers": []}]}])
def test_bulk_lesson_ids_with_control_characters_are_400(http, tenant, body):
    response = http.patch(CATALOG, json=body, headers=tenant.admin.headers)
    assert response.status_code == 400 and response.json["error"].startswith("Invalid field ")


def test_descriptions_keep_line_breaks_and_tabs_and_titles_keep_direction_marks(http, tenant):
    description = "Line one\nLine two\r\n\tIndented\u2028after a line separator"
    title = "יוגה\u200f Flow\u200e"
    lesson_id = create_lesson(http, tenant, title={"en": title}, description={"en": description})
    stored = lesson_doc(tenant, lesson_id)
    assert stored["title"] == {"en": title} and stored["description"] == {"en": description}


def test_oversized_json_is_413(http, tenant):
    response = http.post(CATALOG, data=b'{"title": {"en": "' + b"x" * (2 << 20) + b'"}}',
                         content_type="application/json", headers=tenant.admin.headers)
    assert response.status_code == 413
    assert response.json == {"error": "Request body is too large."}


def test_lesson_limit(http, tenant, monkeypatch):
    monkeypatch.setattr(models, "MAX_LESSONS_PER_CLIENT", 2)
    create_lesson(http, tenant)
    create_lesson(http, tenant)
    response = http.post(CATALOG, json={"title": {"en": "third"}}, headers=tenant.admin.headers)
    assert response.status_code == 400
    assert "at most" in response.json["error"]


# ------------------------------------------------------------------------------------ PATCH one lesson


def test_patch_one_lesson_updates_any_subset(http, tenant):
    lesson_id = create_lesson(http, tenant, title={"en": "Old", "zh_Hant": "舊"}, duration=10,
                              imageUrl="https://img.example/a.jpg", categories=["A"])
    response = http.patch(f"{CATALOG}/{lesson_id}", headers=tenant.admin.headers, json={
        "title": {"zh_Hans": "新", "zh_Hant": None}, "duration": 7.5, "imageUrl": None, "areas": ["Core"],
        "sessions": [{"startSeconds": 0, "endSeconds": 450, "type": "main", "repPoseId": "plank", "repCount": 1}],
    })
    assert response.status_code == 200, response.json
    assert response.json["success"] is True
    (lesson,) = response.json["catalog"]["lessons"]
    assert lesson["name"] == {"en": "Old", "zh_Hans": "新"}
    assert lesson["duration"] == 7.5 and lesson["categories"] == ["A"] and lesson["areas"] == ["Core"]
    assert lesson["sessions"] == [{"title": {}, "startSeconds": 0, "endSeconds": 450, "type": "main",
                                   "repPoseId": "plank", "repCount": 1}]
    stored = lesson_doc(tenant, lesson_id)
    assert stored["durationSeconds"] == 450 and "imageUrl" not in stored
    assert stored["modifiedAt"] >= stored["createdAt"]


@pytest.mark.parametrize(("body", "status", "message"), [
    ({}, 400, "The body must contain at least one lesson field."),
    ({"force": True}, 400, "The body must contain at least one lesson field."),
    ({"title": {"en": None}}, 400, "title.en cannot be removed."),
    ({"isLive": "no"}, 400, "Invalid field isLive"),
    ({"MET": 99}, 400, "Invalid field MET"),
    ({"status": "INACTIVE"}, 400, "Unknown field: status."),
])
def test_bad_patch_bodies(http, tenant, body, status, message):
    lesson_id = create_lesson(http, tenant, title={"en": "Keep"})
    response = http.patch(f"{CATALOG}/{lesson_id}", json=body, headers=tenant.admin.headers)
    assert response.status_code == status
    assert response.json["error"].startswith(message)
    assert lesson_doc(tenant, lesson_id)["title"] == {"en": "Keep"}


def test_patch_relates_only_existing_other_lessons(http, tenant):
    a = create_lesson(http, tenant)
    b = create_lesson(http, tenant)
    assert http.patch(f"{CATALOG}/{a}", json={"relatedLessonIds": [a]}, headers=tenant.admin.headers).json == {
        "error": "A lesson cannot be related to itself."}
    response = http.patch(f"{CATALOG}/{a}", json={"relatedLessonIds": [b, "ghost"]}, headers=tenant.admin.headers)
    assert response.status_code == 400 and response.json == {"error": "Unknown lesson ids: ghost."}
    assert http.patch(f"{CATALOG}/{a}", json={"relatedLessonIds": [b]}, headers=tenant.admin.headers).status_code == 200
    assert lesson_doc(tenant, a)["relatedLessonIds"] == [b]


def test_patch_unknown_lesson_is_404(http, tenant, other_tenant):
    foreign = create_lesson(http, other_tenant)
    for lesson_id in ("nope", foreign, "a..b"):
        response = http.patch(f"{CATALOG}/{lesson_id}", json={"isLive": True}, headers=tenant.admin.headers)
        assert response.status_code == 404
        assert response.json == {"error": "Lesson not found."}
    assert lesson_doc(other_tenant, foreign)["isLive"] is False


# ------------------------------------------------------------------------------------ PATCH bulk


def test_bulk_live_set_is_complete_and_tiers_update(http, tenant):
    a = create_lesson(http, tenant, isLive=True)
    b = create_lesson(http, tenant, isLive=True)
    c = create_lesson(http, tenant)
    response = http.patch(CATALOG, headers=tenant.admin.headers, json={
        "liveLessonIds": [c, a, c],
        "lessonTierUpdates": [{"lessonId": b, "membershipTiers": ["Premium", "Plus", "Premium"]},
                              {"lessonId": a, "membershipTiers": []}],
    })
    assert response.status_code == 200, response.json
    envelope = response.json["catalog"]
    assert response.json["success"] is True
    assert envelope["liveLessonIds"] == [a, c]
    tiers = {lesson["id"]: lesson["membershipTiers"] for lesson in envelope["lessons"]}
    assert tiers == {a: [], b: ["Premium", "Plus"], c: []}
    assert envelope["allTiers"] == ["Plus", "Premium"]


def test_bulk_with_only_tiers_leaves_live_set_alone(http, tenant):
    a = create_lesson(http, tenant, isLive=True)
    response = http.patch(CATALOG, json={"lessonTierUpdates": [{"lessonId": a, "membershipTiers": ["Gold"]}]},
                          headers=tenant.admin.headers)
    assert response.status_code == 200
    assert response.json["catalog"]["liveLessonIds"] == [a]


def test_empty_live_set_hides_everything(http, tenant):
    create_lesson(http, tenant, isLive=True)
    response = http.patch(CATALOG, json={"liveLessonIds": []}, headers=tenant.admin.headers)
    assert response.status_code == 200 and response.json["catalog"]["liveLessonIds"] == []


@pytest.mark.parametrize(("body", "message"), [
    ({}, "At least one of liveLessonIds or lessonTierUpdates is required."),
    ({"force": True}, "At least one of liveLessonIds or lessonTierUpdates is required."),
    ({"liveLessonIds": ["ghost"]}, "Unknown lesson ids: ghost."),
    ({"lessonTierUpdates": [{"lessonId": "ghost", "membershipTiers": []}]}, "Unknown lesson ids: ghost."),
    ({"liveLessonIds": [1]}, "Invalid field liveLessonIds.0"),
    ({"liveLessonIds": ["x"] * 301}, "Invalid field liveLessonIds"),
    ({"lessonTierUpdates": [{"lessonId": "x", "membershipTiers": ["ok"], "extra": 1}]},
     "Unknown field: lessonTierUpdates.0.extra."),
    ({"liveLessonIds": [], "other": True}, "Unknown field: other."),
])
def test_bad_bulk_bodies_are_400_and_change_nothing(http, tenant, body, message):
    a = create_lesson(http, tenant, isLive=True, membershipTiers=["Free"])
    if "liveLessonIds" in body and body["liveLessonIds"] == ["ghost"]:
        body = {"liveLessonIds": [a, "ghost"]}
    response = http.patch(CATALOG, json=body, headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json["error"].startswith(message), response.json
    stored = lesson_doc(tenant, a)
    assert stored["isLive"] is True and stored["membershipTiers"] == ["Free"]


def test_duplicate_tier_update_is_400(http, tenant):
    a = create_lesson(http, tenant)
    response = http.patch(CATALOG, headers=tenant.admin.headers, json={"lessonTierUpdates": [
        {"lessonId": a, "membershipTiers": ["A"]}, {"lessonId": a, "membershipTiers": ["B"]}]})
    assert response.status_code == 400
    assert lesson_doc(tenant, a)["membershipTiers"] == []


# ------------------------------------------------------------------------------------ live plans: 409 and force


def test_turning_off_a_lesson_of_a_live_plan_is_409_then_force_turns_plan_off(http, tenant):
    a = create_lesson(http, tenant, isLive=True)
    b = create_lesson(http, tenant, isLive=True)
    c = create_lesson(http, tenant, isLive=True)
    live_plan = make_plan(tenant, [a, b], title={"en": "Week one", "zh_Hant": "第一週"})
    other_plan = make_plan(tenant, [c])
    hidden_plan = make_plan(tenant, [a], live=False)

    response = http.patch(CATALOG, json={"liveLessonIds": [b, c]}, headers=tenant.admin.headers)
    assert response.status_code == 409
    assert response.json == {"error": service.LIVE_PLAN_CONFLICT,
                             "conflicts": [{"id": live_plan, "title": {"en": "Week one", "zh_Hant": "第一週"}}]}
    # Nothing changed, tier updates of the same request included.
    assert lesson_doc(tenant, a)["isLive"] is True
    assert plan_doc(tenant, live_plan)["isLive"] is True

    response = http.patch(CATALOG, json={"liveLessonIds": [b, c], "force": True}, headers=tenant.admin.headers)
    assert response.status_code == 200
    assert response.json["catalog"]["liveLessonIds"] == [b, c]
    assert plan_doc(tenant, live_plan)["isLive"] is False
    assert plan_doc(tenant, other_plan)["isLive"] is True
    assert plan_doc(tenant, hidden_plan)["isLive"] is False
    assert plan_doc(tenant, live_plan)["modifiedBy"] == tenant.admin.uid


def test_conflict_refuses_tier_updates_of_the_same_request(http, tenant):
    a = create_lesson(http, tenant, isLive=True)
    make_plan(tenant, [a])
    response = http.patch(CATALOG, headers=tenant.admin.headers, json={
        "liveLessonIds": [], "lessonTierUpdates": [{"lessonId": a, "membershipTiers": ["Gold"]}]})
    assert response.status_code == 409
    assert lesson_doc(tenant, a)["membershipTiers"] == []


def test_per_lesson_isLive_false_has_the_same_rule(http, tenant):
    a = create_lesson(http, tenant, isLive=True)
    plan = make_plan(tenant, [a])
    url = f"{CATALOG}/{a}"
    response = http.patch(url, json={"isLive": False, "title": {"en": "Renamed"}}, headers=tenant.admin.headers)
    assert response.status_code == 409
    assert response.json["conflicts"] == [{"id": plan, "title": {"en": "Plan", "zh_Hant": "計畫"}}]
    assert lesson_doc(tenant, a)["title"] == {"en": "Lesson"} and lesson_doc(tenant, a)["isLive"] is True
    response = http.patch(url, json={"isLive": False, "force": True}, headers=tenant.admin.headers)
    assert response.status_code == 200
    assert response.json["catalog"]["liveLessonIds"] == []
    assert lesson_doc(tenant, a)["isLive"] is False and plan_doc(tenant, plan)["isLive"] is False
    # Other edits of a lesson in a live plan, and turning lessons on, never conflict.
    b = create_lesson(http, tenant, isLive=True)
    make_plan(tenant, [b])
    assert http.patch(f"{CATALOG}/{b}", json={"MET": 3}, headers=tenant.admin.headers).status_code == 200
    assert http.patch(f"{CATALOG}/{b}", json={"isLive": True}, headers=tenant.admin.headers).status_code == 200
    assert http.patch(CATALOG, json={"liveLessonIds": [a, b]}, headers=tenant.admin.headers).status_code == 200


# ------------------------------------------------------------------------------------ who may call


@pytest.mark.parametrize(("method", "suffix", "body"), [
    ("get", "", None),
    ("post", "", {"title": {"en": "x"}}),
    ("patch", "", {"liveLessonIds": []}),
    ("patch", "/{lesson}", {"isLive": True}),
    ("post", "/{lesson}/subtitle", None),
])
def test_players_and_other_clients_admins_are_403(http, tenant, other_tenant, method, suffix, body):
    lesson = create_lesson(http, tenant)
    url = CATALOG + suffix.format(lesson=lesson)
    for headers, query in [(tenant.player.headers, ""), (other_tenant.player.headers, ""),
                           (other_tenant.admin.headers, f"?clientId={tenant.client_id}"),
                           (tenant.player.headers, f"?clientId={tenant.client_id}")]:
        response = getattr(http, method)(url + query, json=body, headers=headers)
        assert response.status_code == 403, (headers, query, response.json)
        assert response.json == {"error": "You do not have access to this client."}
    assert catalog(http, tenant)["lessons"][0]["isLive"] is False
    assert len(catalog(http, tenant)["lessons"]) == 1


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer invalid"}, {"Authorization": "Basic x"}])
def test_missing_or_invalid_identity_is_401(http, tenant, headers):
    for method in ("get", "post", "patch"):
        response = getattr(http, method)(CATALOG, json={}, headers=headers)
        assert response.status_code == 401
        assert set(response.json) == {"error"}


def test_client_token_is_not_an_admin_credential(http, tenant):
    from wellness_api.api_keys import service as api_keys

    key = api_keys.create_key(tenant.client_id, "k", False, created_by="t").api_key
    token = bearer(client_tokens.sign(tenant.client_id, key["keyId"]))
    assert http.get(CATALOG, headers=token).status_code == 401


def test_another_clients_admin_manages_only_its_own_catalog(http, tenant, other_tenant):
    mine = create_lesson(http, tenant)
    theirs = create_lesson(http, other_tenant)
    body = http.get(CATALOG, headers=other_tenant.admin.headers).json
    assert [lesson["id"] for lesson in body["lessons"]] == [theirs] and body["clientId"] == other_tenant.client_id
    # Naming its own client explicitly is fine.
    assert http.get(f"{CATALOG}?clientId={other_tenant.client_id}", headers=other_tenant.admin.headers).status_code == 200
    response = http.patch(CATALOG, json={"liveLessonIds": [mine]}, headers=other_tenant.admin.headers)
    assert response.status_code == 400  # the other client's lesson is unknown in its own catalog
    assert lesson_doc(tenant, mine)["isLive"] is False


def test_platform_admin_manages_any_client_through_client_id(http, tenant, platform_admin):
    query = f"?clientId={tenant.client_id}"
    lesson = create_lesson(http, tenant, headers=platform_admin.headers, query=query, title={"en": "By operator"})
    assert lesson_doc(tenant, lesson)["createdBy"] == platform_admin.uid
    response = http.patch(CATALOG + query, json={"liveLessonIds": [lesson]}, headers=platform_admin.headers)
    assert response.status_code == 200 and response.json["catalog"]["clientId"] == tenant.client_id
    response = http.patch(f"{CATALOG}/{lesson}{query}", json={"MET": 4}, headers=platform_admin.headers)
    assert response.status_code == 200
    assert http.get(CATALOG + query, headers=platform_admin.headers).json["liveLessonIds"] == [lesson]


def test_platform_admin_gets_404_for_unknown_client(http, platform_admin):
    for method, suffix, body in [("get", "", None), ("post", "", {"title": {"en": "x"}}),
                                 ("patch", "", {"liveLessonIds": []}), ("patch", "/l1", {"MET": 1}),
                                 ("post", "/l1/subtitle", None)]:
        for client_id in ("no-such-client", "bad..id"):
            response = getattr(http, method)(f"{CATALOG}{suffix}?clientId={client_id}", json=body,
                                             headers=platform_admin.headers)
            assert response.status_code == 404, (method, suffix)
            assert response.json == {"error": "Client not found."}


def test_concurrent_hide_and_live_plan_creation_never_leave_a_live_plan_with_a_hidden_lesson(http, tenant):
    import concurrent.futures

    from wellness_api.core.errors import ApiError

    lessons = [create_lesson(http, tenant, isLive=True) for _ in range(3)]
    client = tenant.client

    def hide_all():
        try:
            service.patch_catalog(client, models.CatalogPatchBody(liveLessonIds=[], force=True), "t")
        except ApiError as exc:
            return exc.status
        return 200

    def live_plan(lesson_id):
        try:
            make_plan(tenant, [lesson_id])
        except ApiError as exc:
            return exc.status
        return 200

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(live_plan, lessons[0]), pool.submit(hide_all), pool.submit(live_plan, lessons[1]),
                   pool.submit(live_plan, lessons[2])]
        statuses = [f.result() for f in futures]
    assert set(statuses) <= {200, 400, 503}
    live_lessons = {lid for lid in lessons if lesson_doc(tenant, lid)["isLive"]}
    for snap in firebase.db().collection(f"clients/{tenant.client_id}/lessonPlans").stream():
        plan = snap.to_dict()
        if plan["isLive"]:
            assert set(plan["lessonIds"]) <= live_lessons
