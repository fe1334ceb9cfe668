"""Lessons through Hosting: the B2B catalog, live plans, a real multipart subtitle upload, and the app list."""

import subprocess

import requests

from tests.conftest import bearer, sign_in
from tests.ops.test_cli import ROOT, run_json
from wellness_api.core import usage

CATALOG = "/api/b2b/lessons/catalog"
VTT = b"WEBVTT\n\n00:00:00.000 --> 00:00:03.000\nWelcome to the lesson.\n"


def test_admin_builds_catalog_and_player_sees_live_lessons(api, tenant, other_tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    player = bearer(sign_in(tenant.player.email, tenant.player.password))

    created = api("POST", CATALOG, headers=admin, json={
        "title": {"en": "Morning Stretch", "zh_Hant": "晨間伸展", "zh_Hans": "晨间伸展"}, "duration": 12.5,
        "sessions": [{"title": {"en": "Warm-up"}, "startSeconds": 0, "endSeconds": 90, "type": "warmup"}],
        "membershipTiers": ["Free"],
    })
    assert created.status_code == 201, created.text
    stretch = created.json()["lessonId"]
    assert created.json()["catalog"]["lessons"][0]["duration"] == 12.5 and created.headers["x-request-id"]
    hidden = api("POST", CATALOG, headers=admin, json={"title": {"en": "Draft"}}).json()["lessonId"]

    assert api("GET", f"/api/lessons?clientId={tenant.client_id}", headers=player).json() == {"data": []}
    patched = api("PATCH", CATALOG, headers=admin, json={
        "liveLessonIds": [stretch], "lessonTierUpdates": [{"lessonId": hidden, "membershipTiers": ["Premium"]}]})
    assert patched.status_code == 200 and patched.json()["catalog"]["liveLessonIds"] == [stretch]
    assert patched.json()["catalog"]["allTiers"] == ["Free", "Premium"]

    listed = api("GET", f"/api/lessons?clientId={tenant.client_id}", headers=player)
    assert listed.status_code == 200
    (lesson,) = listed.json()["data"]
    assert lesson["id"] == stretch and lesson["duration"] == 750
    assert lesson["sessions"][0] == {"index": 0, "category": "warmup", "title": {"en": "Warm-up"}, "start": 0, "end": 90}
    assert set(lesson["createDatetime"]) == {"_seconds", "_nanoseconds"}
    assert api("GET", f"/api/lessons/{stretch}", headers=player).json()["lesson"]["id"] == stretch
    assert api("GET", f"/api/lessons/{hidden}", headers=player).status_code == 404

    # Errors of 7.3 through Hosting.
    assert api("GET", "/api/lessons", headers=player).json() == {"error": "clientId is required."}
    assert api("GET", f"/api/lessons?clientId={tenant.client_id}").status_code == 401
    foreign = bearer(sign_in(other_tenant.admin.email, other_tenant.admin.password))
    assert api("GET", f"/api/lessons?clientId={tenant.client_id}", headers=foreign).status_code == 401
    assert api("GET", f"{CATALOG}?clientId={tenant.client_id}", headers=foreign).status_code == 403
    assert api("GET", CATALOG, headers=player).status_code == 403
    assert api("PATCH", f"{CATALOG}/nope", headers=admin, json={"isLive": True}).status_code == 404
    assert usage.day_totals(tenant.client_id, usage.day_of())["lessons"]["total"] >= 8


def test_live_plan_conflict_and_force_through_hosting(api, tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    lesson = api("POST", CATALOG, headers=admin, json={"title": {"en": "Balance"}, "isLive": True}).json()["lessonId"]
    plan = run_json("plan", "create", "--client-id", tenant.client_id, "--title-en", "Starter", "--lesson-id", lesson,
                    "--live")["planId"]
    conflict = api("PATCH", f"{CATALOG}/{lesson}", headers=admin, json={"isLive": False})
    assert conflict.status_code == 409
    assert conflict.json()["conflicts"] == [{"id": plan, "title": {"en": "Starter"}}]
    assert api("PATCH", CATALOG, headers=admin, json={"liveLessonIds": []}).status_code == 409
    forced = api("PATCH", CATALOG, headers=admin, json={"liveLessonIds": [], "force": True})
    assert forced.status_code == 200 and forced.json()["catalog"]["liveLessonIds"] == []
    # The plan is off now, so the lesson can go live and off again without conflict.
    assert api("PATCH", f"{CATALOG}/{lesson}", headers=admin, json={"isLive": True}).status_code == 200
    assert api("PATCH", f"{CATALOG}/{lesson}", headers=admin, json={"isLive": False}).status_code == 200


def test_real_multipart_upload_and_fetching_the_subtitle_back(api, tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    lesson = api("POST", CATALOG, headers=admin, json={"title": {"en": "Subtitled"}, "isLive": True}).json()["lessonId"]
    url = f"{CATALOG}/{lesson}/subtitle"

    uploaded = api("POST", url, headers=admin, data={"locale": "en"}, files={"file": ("lesson-en.vtt", VTT, "text/vtt")})
    assert uploaded.status_code == 200, uploaded.text
    subtitle_url = uploaded.json()["subtitleUrl"]
    assert uploaded.json()["catalog"]["lessons"][0]["subtitleUrl"] == {"en": subtitle_url}
    served = requests.get(subtitle_url, timeout=30)
    assert served.status_code == 200 and served.content == VTT
    assert served.headers["Content-Type"].startswith("text/vtt")

    player = bearer(sign_in(tenant.player.email, tenant.player.password))
    read = api("GET", f"/api/lessons/{lesson}", headers=player).json()["lesson"]
    assert read["subtitleUrl"] == {"en": subtitle_url}

    # curl-style upload (application/octet-stream) replaces the file of that locale.
    replaced = api("POST", url, headers=admin, data={"locale": "en"},
                   files={"file": ("en.vtt", VTT.replace(b"Welcome", b"Hello"), "application/octet-stream")})
    assert replaced.status_code == 200
    assert replaced.json()["subtitleUrl"] != subtitle_url
    assert b"Hello" in requests.get(replaced.json()["subtitleUrl"], timeout=30).content
    assert requests.get(subtitle_url, timeout=30).status_code == 404

    for data, files, message in [
        ({"locale": "fr"}, {"file": ("en.vtt", VTT, "text/vtt")}, "Unsupported locale"),
        ({"locale": "en"}, None, "Missing file"),
        ({"locale": "en"}, {"file": ("en.srt", VTT, "text/plain")}, "Unsupported file type"),
        ({"locale": "en"}, {"file": ("en.vtt", b"not a subtitle", "text/vtt")}, "The file is not valid WebVTT"),
        # 5,000 hour digits: int() refused them with ValueError, which was a 500.
        ({"locale": "en"}, {"file": ("en.vtt", b"WEBVTT\n\n" + b"1" * 5000 + b":00:00.000 --> 00:01.000\nx\n",
                                     "text/vtt")}, "The file is not valid WebVTT: line 3: invalid cue start time"),
    ]:
        refused = api("POST", url, headers=admin, data=data, files=files)
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"].startswith(message)


def test_bad_input_through_hosting_is_never_a_500(api, tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    for method, path, data in [
        ("POST", CATALOG, b"{"),
        ("POST", CATALOG, b'{"title": {"en": 5}}'),
        ("PATCH", CATALOG, b'{"liveLessonIds": "all"}'),
        ("PATCH", CATALOG, b"{}"),
        ("PATCH", f"{CATALOG}/x", b"[]"),
    ]:
        response = api(method, path, data=data, headers={**admin, "Content-Type": "application/json"})
        assert response.status_code == 400, (path, response.text)
        assert set(response.json()) == {"error"}


def test_seeded_demo_catalog_is_served(api, emulators):
    world = run_json("seed")
    client = world["clients"][0]
    player = bearer(sign_in(client["player"]["email"], client["player"]["password"]))
    data = api("GET", f"/api/lessons?clientId={client['clientId']}", headers=player).json()["data"]
    assert len(data) >= 3 and all({"en", "zh_Hant", "zh_Hans"} <= set(lesson["title"]) for lesson in data)
    admin = bearer(sign_in(client["admin"]["email"], client["admin"]["password"]))
    catalog = api("GET", CATALOG, headers=admin).json()
    assert len(catalog["lessons"]) > len(catalog["liveLessonIds"]) and catalog["allTiers"]
    assert subprocess.run([str(ROOT / "bin" / "platformctl"), "plan", "create", "--client-id", client["clientId"],
                           "--title-en", "E2E", "--lesson-id", catalog["liveLessonIds"][0]],
                          capture_output=True, text=True, check=False).returncode == 0


def test_app_reads_with_a_client_token_through_hosting(api, tenant, other_tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    lesson = api("POST", CATALOG, headers=admin, json={"title": {"en": "Live"}, "isLive": True}).json()["lessonId"]
    secret = api("POST", f"/api/clients/{tenant.client_id}/api-keys", headers=admin, json={}).json()["secret"]
    token = api("POST", "/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": secret}).json()["token"]
    listed = api("GET", f"/api/lessons?clientId={tenant.client_id}", headers=bearer(token))
    assert listed.status_code == 200 and [item["id"] for item in listed.json()["data"]] == [lesson]
    assert api("GET", f"/api/lessons/{lesson}", headers=bearer(token)).status_code == 200
    assert api("GET", f"/api/lessons?clientId={other_tenant.client_id}", headers=bearer(token)).status_code == 401
