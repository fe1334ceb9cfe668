"""PUT /api/lessons/{lessonId}/plays/{playId}: the app's report of a play, through the lessons Flask app.

A play is counted once per playId in the lessons rollup (core.activity.LESSONS): as a play when it is first reported,
and as completed when it first reaches completed, in the same transaction as the play is written. Each thread of a
race has its own Flask test client, as separate requests of separate instances would.
"""

import concurrent.futures
import datetime as dt
import uuid

import pytest

from tests.conftest import assert_error, bearer, until_done
from tests.lessons.conftest import create_lesson
from wellness_api.api_keys import service as api_keys
from wellness_api.core import activity, client_tokens, clock, firebase, usage, users
from wellness_api.core.rollups import day_of
from wellness_api.lessons import repository as repo
from wellness_api.lessons import service
from wellness_api.lessons.routes import app

INVALID_PLAY_ID = "playId must be 8 to 64 letters, digits, hyphens or underscores."
ANOTHER_LESSON = "This playId belongs to another lesson."
NOT_FOUND = "Lesson not found."


def play_url(lesson_id: str, play_id: str) -> str:
    return f"/api/lessons/{lesson_id}/plays/{play_id}"


def report(http, headers: dict, lesson_id: str, play_id: str, status: str = "started"):
    return http.put(play_url(lesson_id, play_id), json={"status": status}, headers=headers)


def new_play_id() -> str:
    return f"play-{uuid.uuid4().hex[:12]}"


def parse_iso(text: str) -> dt.datetime:
    assert text.endswith("Z") and len(text) == len("2026-01-01T00:00:00.000Z"), text
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def today_counts(client_id: str) -> dict:
    today = day_of()
    return activity.LESSONS.daily(client_id, today, today).get(today, {})


def all_time(client_id: str):
    return activity.LESSONS.counters.all_time(client_id)


def stored_plays(client_id: str) -> list[dict]:
    return [snap.to_dict() for snap in firebase.db().collection(f"clients/{client_id}/{repo.PLAYS}").stream()]


@pytest.fixture
def lessons(http, tenant) -> dict:
    """Two live lessons and a hidden one of the tenant."""
    return {"live": create_lesson(http, tenant, title={"en": "Stretch"}, isLive=True),
            "other": create_lesson(http, tenant, title={"en": "Balance"}, isLive=True),
            "hidden": create_lesson(http, tenant, title={"en": "Draft"}, isLive=False)}


# ------------------------------------------------------------------------------------ the flow


def test_a_new_play_is_201_a_known_one_200_and_completed_stays_completed(http, tenant, lessons):
    player, lesson_id, play_id = tenant.player.headers, lessons["live"], new_play_id()
    before = clock.now().replace(microsecond=0)

    started = report(http, player, lesson_id, play_id)
    assert started.status_code == 201, started.json
    play = started.json["play"]
    assert started.json == {"play": {"playId": play_id, "lessonId": lesson_id, "status": "started",
                                     "startedAt": play["startedAt"], "completedAt": None}}
    assert before <= parse_iso(play["startedAt"]) <= clock.now()
    assert started.headers["x-request-id"]

    again = report(http, player, lesson_id, play_id)  # a retried report
    assert again.status_code == 200 and again.json == started.json

    completed = report(http, player, lesson_id, play_id, "completed")
    assert completed.status_code == 200
    done = completed.json["play"]
    assert done == {**play, "status": "completed", "completedAt": done["completedAt"]}
    assert parse_iso(done["completedAt"]) >= parse_iso(done["startedAt"])

    # Completed stays completed: started again, or completed again, changes nothing.
    for status in ("started", "completed"):
        response = report(http, player, lesson_id, play_id, status)
        assert response.status_code == 200 and response.json == completed.json, status

    (stored,) = stored_plays(tenant.client_id)
    assert stored["userId"] == tenant.player.uid and stored["clientId"] == tenant.client_id
    assert (stored["playId"], stored["lessonId"], stored["status"]) == (play_id, lesson_id, "completed")
    assert today_counts(tenant.client_id) == {"plays": 1, "completedPlays": 1}


def test_a_play_first_reported_completed_is_new_and_completed(http, tenant, lessons):
    response = report(http, tenant.player.headers, lessons["live"], new_play_id(), "completed")
    assert response.status_code == 201
    play = response.json["play"]
    assert play["status"] == "completed" and play["completedAt"] == play["startedAt"]
    assert today_counts(tenant.client_id) == {"plays": 1, "completedPlays": 1}


def test_the_same_play_id_for_another_lesson_is_409_and_changes_nothing(http, tenant, lessons):
    player, play_id = tenant.player.headers, new_play_id()
    first = report(http, player, lessons["live"], play_id)
    for status in ("started", "completed"):
        assert_error(report(http, player, lessons["other"], play_id, status), 409, ANOTHER_LESSON)
    (stored,) = stored_plays(tenant.client_id)
    assert stored["lessonId"] == lessons["live"] and stored["status"] == "started"
    assert report(http, player, lessons["live"], play_id).json == first.json
    assert today_counts(tenant.client_id) == {"plays": 1, "completedPlays": 0}


def test_two_users_with_the_same_play_id_never_collide(http, tenant, lessons):
    second = tenant.add_member("player")
    play_id = "same-play-id-for-both"
    assert report(http, tenant.player.headers, lessons["live"], play_id).status_code == 201
    # Another user, even for another lesson: their own play.
    response = report(http, second.headers, lessons["other"], play_id, "completed")
    assert response.status_code == 201 and response.json["play"]["lessonId"] == lessons["other"]
    plays = {play["userId"]: play for play in stored_plays(tenant.client_id)}
    assert set(plays) == {tenant.player.uid, second.uid}
    assert plays[tenant.player.uid]["status"] == "started" and plays[second.uid]["status"] == "completed"
    assert today_counts(tenant.client_id) == {"plays": 2, "completedPlays": 1}


def test_a_play_completed_the_next_day_counts_its_completion_on_that_day(http, tenant, lessons):
    play_id = new_play_id()
    report(http, tenant.player.headers, lessons["live"], play_id)
    first_day = day_of()
    clock.advance(dt.timedelta(days=1))
    assert report(http, tenant.player.headers, lessons["live"], play_id, "completed").status_code == 200
    assert activity.LESSONS.daily(tenant.client_id, first_day, day_of()) == {
        first_day: {"plays": 1, "completedPlays": 0}, day_of(): {"completedPlays": 1}}


# ------------------------------------------------------------------------------------ the playId


@pytest.mark.parametrize("play_id", ["abcdefgh", "A" * 64, "a-b_c-D9", str(uuid.uuid4()), uuid.uuid4().hex])
def test_play_ids_within_the_rule_are_taken(http, tenant, lessons, play_id):
    response = report(http, tenant.player.headers, lessons["live"], play_id)
    assert response.status_code == 201 and response.json["play"]["playId"] == play_id


@pytest.mark.parametrize("play_id", [
    "short-1",  # 7 characters
    "a" * 65,
    "has.dots.in",
    "has%20space",
    "colon:in:it",
    "plus+sign1",
    "%C3%A9t%C3%A9-long-enough",  # letters beyond ASCII
    "tab%09inside",
    "..........",
])
def test_an_invalid_play_id_is_400_and_records_nothing(http, tenant, lessons, play_id):
    assert_error(report(http, tenant.player.headers, lessons["live"], play_id), 400, INVALID_PLAY_ID)
    # Checked before the lesson: the answer does not tell whether a lesson exists.
    assert_error(report(http, tenant.player.headers, "no-such-lesson", play_id), 400, INVALID_PLAY_ID)
    assert stored_plays(tenant.client_id) == [] and today_counts(tenant.client_id) == {}


def test_a_play_id_with_a_trailing_newline_is_400(http, tenant, lessons):
    assert_error(report(http, tenant.player.headers, lessons["live"], "abcdefgh%0A"), 400, INVALID_PLAY_ID)
    assert stored_plays(tenant.client_id) == []


# ------------------------------------------------------------------------------------ the body


@pytest.mark.parametrize(("body", "message"), [
    ({"status": "started", "progress": 0.5}, "Unknown field: progress."),
    ({"status": "paused"}, "Invalid field status: Input should be 'started' or 'completed'."),
    ({"status": "STARTED"}, "Invalid field status: Input should be 'started' or 'completed'."),
    ({"status": 1}, "Invalid field status: Input should be 'started' or 'completed'."),
    ({"status": None}, "Invalid field status: Input should be 'started' or 'completed'."),
    ({}, "Missing required field: status."),
])
def test_an_invalid_body_is_400_and_records_nothing(http, tenant, lessons, body, message):
    assert_error(http.put(play_url(lessons["live"], new_play_id()), json=body, headers=tenant.player.headers),
                 400, message)
    assert stored_plays(tenant.client_id) == []


@pytest.mark.parametrize("data", [b"{not json", b"[1]", b"", b'"started"', b"null"])
def test_a_body_that_is_not_a_json_object_is_400(http, tenant, lessons, data):
    response = http.put(play_url(lessons["live"], new_play_id()), data=data, content_type="application/json",
                        headers=tenant.player.headers)
    assert_error(response, 400, "Request body must be a JSON object.")
    assert stored_plays(tenant.client_id) == []


def test_a_json_body_not_declared_json_is_415(http, tenant, lessons):
    response = http.put(play_url(lessons["live"], new_play_id()), data=b'{"status": "started"}',
                        headers={**tenant.player.headers, "Content-Type": "text/plain"})
    assert_error(response, 415, "Content-Type must be application/json.")
    assert stored_plays(tenant.client_id) == []


# ------------------------------------------------------------------------------------ the lesson and the caller


def test_a_lesson_not_live_unknown_or_of_another_client_is_404(http, tenant, other_tenant, lessons):
    elsewhere = create_lesson(http, other_tenant, title={"en": "Elsewhere"}, isLive=True)
    for lesson_id in (lessons["hidden"], "no-such-lesson", "bad..id", elsewhere):
        for status in ("started", "completed"):
            assert_error(report(http, tenant.player.headers, lesson_id, new_play_id(), status), 404, NOT_FOUND)
    # Nor may another client's member report a play of this client's lesson.
    assert_error(report(http, other_tenant.player.headers, lessons["live"], new_play_id()), 404, NOT_FOUND)
    assert stored_plays(tenant.client_id) == stored_plays(other_tenant.client_id) == []
    assert today_counts(tenant.client_id) == today_counts(other_tenant.client_id) == {}


def test_a_lesson_hidden_after_its_play_started_cannot_be_completed(http, tenant, lessons):
    play_id = new_play_id()
    report(http, tenant.player.headers, lessons["live"], play_id)
    assert http.patch(f"/api/b2b/lessons/catalog/{lessons['live']}", json={"isLive": False},
                      headers=tenant.admin.headers).status_code == 200
    assert_error(report(http, tenant.player.headers, lessons["live"], play_id, "completed"), 404, NOT_FOUND)
    assert today_counts(tenant.client_id) == {"plays": 1, "completedPlays": 0}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer"}, {"Authorization": "Token abc"}])
def test_no_token_is_401(http, tenant, lessons, headers):
    response = report(http, headers, lessons["live"], new_play_id())
    assert_error(response, 401, "Missing or invalid Authorization header")


def test_an_invalid_or_client_token_is_401(http, tenant, lessons):
    key = api_keys.create_key(tenant.client_id, "app", False, created_by="test").api_key
    client_token = bearer(client_tokens.sign(tenant.client_id, key["keyId"]))
    for headers in (client_token, bearer("not-a-jwt")):
        assert_error(report(http, headers, lessons["live"], new_play_id()), 401, "Invalid or expired token")
    assert stored_plays(tenant.client_id) == []


def test_a_disabled_user_is_401(http, tenant, lessons):
    headers = tenant.player.headers
    users.disable_user(tenant.client, tenant.player.uid)
    assert_error(report(http, headers, lessons["live"], new_play_id()), 401, "Invalid or expired token")


def test_a_guest_and_an_admin_may_report(http, guest_world):
    tenant, live = guest_world["tenant"], guest_world["live"]
    guest = report(http, guest_world["guest"], live, new_play_id(), "completed")
    assert guest.status_code == 201, guest.json
    admin = report(http, tenant.admin.headers, live, new_play_id())
    assert admin.status_code == 201, admin.json
    plays = stored_plays(tenant.client_id)
    assert len(plays) == 2 and tenant.admin.uid in {play["userId"] for play in plays}
    assert today_counts(tenant.client_id) == {"plays": 2, "completedPlays": 1}
    assert all_time(tenant.client_id).active_users(activity.LESSONS.group) == 2


def test_a_platform_administrator_reports_only_in_their_own_client(http, tenant, lessons, platform_admin):
    assert_error(report(http, platform_admin.headers, lessons["live"], new_play_id()), 404, NOT_FOUND)
    assert stored_plays(tenant.client_id) == []


# ------------------------------------------------------------------------------------ counted once


def test_plays_are_counted_once_per_play_id_however_often_reported(http, tenant, lessons):
    second = tenant.add_member("player")
    player = tenant.player.headers
    plays = [new_play_id() for _ in range(3)]
    for _ in range(3):  # every report sent three times, as a flaky network would
        report(http, player, lessons["live"], plays[0])
        report(http, player, lessons["live"], plays[1], "completed")
        report(http, player, lessons["other"], plays[2])
        report(http, second.headers, lessons["live"], plays[0], "completed")
    report(http, player, lessons["other"], plays[2], "completed")
    report(http, player, lessons["other"], plays[2], "completed")
    assert today_counts(tenant.client_id) == {"plays": 4, "completedPlays": 3}
    lifetime = all_time(tenant.client_id)
    assert lifetime.counts == {activity.LESSONS.group: {"plays": 4, "completedPlays": 3}}
    assert lifetime.active_users(activity.LESSONS.group) == 2
    today = day_of()
    days = activity.LESSONS.counters.days(tenant.client_id, today, today)
    assert days[today].active_users(activity.LESSONS.group) == 2


def test_concurrent_reports_of_one_play_count_it_once(tenant, lessons):
    headers, play_id = tenant.player.headers, new_play_id()  # signed in before the burst
    statuses = ["started", "completed"] * 3

    def send(status):
        return until_done(lambda: report(app.test_client(), headers, lessons["live"], play_id, status))

    with concurrent.futures.ThreadPoolExecutor(len(statuses)) as pool:
        responses = list(pool.map(send, statuses))
    codes = sorted(r.status_code for r in responses)
    print(f"\n{len(statuses)} reports of one play at once: {codes}")
    assert codes == [200] * (len(statuses) - 1) + [201]
    (stored,) = stored_plays(tenant.client_id)
    assert stored["status"] == "completed"
    for response, status in zip(responses, statuses, strict=True):
        if status == "completed":  # each completed report answers the one completion
            assert response.json["play"]["status"] == "completed"
    assert today_counts(tenant.client_id) == {"plays": 1, "completedPlays": 1}


def test_concurrent_plays_of_many_users_all_count(tenant, lessons):
    members = [tenant.player, *(tenant.add_member("player") for _ in range(3))]
    headers = [member.headers for member in members]

    def send(i):
        return until_done(lambda: report(app.test_client(), headers[i % 4], lessons["live"], f"play-number-{i}",
                                         "completed" if i % 2 else "started"))

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        codes = [r.status_code for r in pool.map(send, range(8))]
    assert codes == [201] * 8
    assert today_counts(tenant.client_id) == {"plays": 8, "completedPlays": 4}
    assert all_time(tenant.client_id).active_users(activity.LESSONS.group) == 4


# ------------------------------------------------------------------------------------ metering and the document


def test_a_report_is_metered_as_a_play(http, tenant, lessons):
    play_id = new_play_id()
    report(http, tenant.player.headers, lessons["live"], play_id)
    report(http, tenant.player.headers, lessons["live"], play_id, "completed")
    report(http, tenant.admin.headers, lessons["other"], new_play_id())
    report(http, {}, lessons["live"], new_play_id())  # no caller: not counted
    metered = usage.day_totals(tenant.client_id, usage.day_of())["lessons"]
    assert metered == {"total": 6, "lessonCreate": 3, "play": 3}  # the fixture created three lessons


def test_a_refused_report_of_an_authenticated_caller_is_metered_too(http, tenant, lessons):
    play_id = new_play_id()
    report(http, tenant.player.headers, lessons["live"], play_id)
    report(http, tenant.player.headers, lessons["other"], play_id)  # 409
    report(http, tenant.player.headers, lessons["hidden"], new_play_id())  # 404
    assert usage.day_totals(tenant.client_id, usage.day_of())["lessons"]["play"] == 3


def test_the_openapi_document_has_the_operation():
    from wellness_api.openapi import document

    operation = document.build()["paths"]["/api/lessons/{lessonId}/plays/{playId}"]["put"]
    assert operation["operationId"] == "reportLessonPlay"
    assert operation["security"] == [{"firebaseIdToken": []}]
    assert set(operation["responses"]) >= {"200", "201", "400", "401", "404", "409"}
    assert [param["name"] for param in operation["parameters"]] == ["lessonId", "playId"]
    schemas = document.build()["components"]["schemas"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert schemas[body]["properties"]["status"]["enum"] == ["started", "completed"]
    assert schemas[body]["required"] == ["status"] and schemas[body]["additionalProperties"] is False
    for status in ("200", "201"):
        reported = operation["responses"][status]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        assert set(schemas[reported]["properties"]) == {"play"}
    assert service.INVALID_PLAY_ID == INVALID_PLAY_ID and service.PLAY_OF_ANOTHER_LESSON == ANOTHER_LESSON


def test_the_play_id_parameter_documents_its_bounds():
    from wellness_api.openapi import document

    operation = document.build()["paths"]["/api/lessons/{lessonId}/plays/{playId}"]["put"]
    (schema,) = [param["schema"] for param in operation["parameters"] if param["name"] == "playId"]
    assert (schema["minLength"], schema["maxLength"]) == (8, 64)
