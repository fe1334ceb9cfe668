"""AI Move sessions (4.6, 2.10, 7.5, 8): create, list, read; who may call; the module gate."""

import datetime as dt
import re

import pytest

from tests.ai_move.conftest import SESSIONS, make_exercise, start
from tests.conftest import assert_error, bearer
from wellness_api.ai_move import models, service
from wellness_api.api_keys import service as api_keys
from wellness_api.core import auth, client_tokens, clock
from wellness_api.core.errors import MALFORMED_JSON

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
STATISTICS = "/api/ai-move/statistics"
EXERCISES = "/api/ai-move/exercises"


def create(http, member, **body):
    return http.post(SESSIONS, json=body, headers=member.headers)


def ids(page: dict) -> list[str]:
    return [s["sessionId"] for s in page["sessions"]]


def later() -> None:
    """Move the clock on, so the next session has a later createdAt (to the millisecond) and sorts first."""
    clock.advance(dt.timedelta(milliseconds=5))


# ------------------------------------------------------------------------------------ create


def test_create_rep_session_returns_the_full_initial_session(http, mover):
    before = clock.now()
    response = create(http, mover.player, exerciseId=mover.rep, exerciseType="rep", targetReps=12)
    assert response.status_code == 201, response.json
    session = response.json
    assert list(session) == [f for f in models.SESSION_FIELDS if f != "targetDurationSeconds"]
    assert ISO_Z.match(session.pop("createdAt"))
    session_id = session.pop("sessionId")
    assert session == {
        "clientId": mover.client_id, "userId": mover.player.uid, "exerciseId": mover.rep, "exerciseType": "rep",
        "targetReps": 12, "repsCompleted": 0, "durationSeconds": 0, "caloriesBurned": 0, "holdTimeSeconds": 0,
        "retryCountUsed": 0, "poseAccuracy": 0, "formScore": None, "retryCountRemaining": None,
        "failureReason": None, "formViolations": [], "completionOutcome": None, "status": "created",
        "completedAt": None,
    }
    created_at = dt.datetime.fromisoformat(response.json["createdAt"].replace("Z", "+00:00"))
    assert before - dt.timedelta(seconds=1) <= created_at <= clock.now()
    # The stored session reads back the same.
    got = http.get(f"{SESSIONS}/{session_id}", headers=mover.player.headers)
    assert got.status_code == 200 and got.json == {"session": response.json}


def test_create_timer_session_has_target_duration_and_no_target_reps(http, mover):
    response = create(http, mover.player, exerciseId=mover.timer, exerciseType="timer", targetDurationSeconds=45.5)
    assert response.status_code == 201, response.json
    session = response.json
    assert "targetReps" not in session
    assert session["targetDurationSeconds"] == 45.5 and session["exerciseType"] == "timer"
    assert session["status"] == "created" and session["holdTimeSeconds"] == 0 and session["completedAt"] is None
    assert ISO_Z.match(session["createdAt"])
    assert session["userId"] == mover.player.uid and session["clientId"] == mover.client_id


def test_targets_at_their_limits_are_accepted(http, mover):
    rep = create(http, mover.player, exerciseId=mover.rep, exerciseType="rep", targetReps=models.MAX_TARGET_REPS)
    assert rep.status_code == 201 and rep.json["targetReps"] == models.MAX_TARGET_REPS
    assert create(http, mover.player, exerciseId=mover.rep, exerciseType="rep", targetReps=1).status_code == 201
    for seconds in (1, models.MAX_SECONDS):
        timer = create(http, mover.player, exerciseId=mover.timer, exerciseType="timer", targetDurationSeconds=seconds)
        assert timer.status_code == 201 and timer.json["targetDurationSeconds"] == seconds


def test_exercise_type_must_be_the_exercises_type(http, mover):
    response = create(http, mover.player, exerciseId=mover.rep, exerciseType="timer", targetDurationSeconds=30)
    assert_error(response, 400, service._type_mismatch({"type": "rep"}))
    assert response.json == {"error": "exerciseType must be the exercise's type (rep)."}
    response = create(http, mover.player, exerciseId=mover.timer, exerciseType="rep", targetReps=10)
    assert_error(response, 400, service._type_mismatch({"type": "timer"}))


def test_targets_must_fit_the_exercise_type(http, mover):
    rep, timer = {"exerciseId": mover.rep, "exerciseType": "rep"}, {"exerciseId": mover.timer, "exerciseType": "timer"}
    assert_error(create(http, mover.player, **rep), 400, service.TARGET_REPS_REQUIRED)
    assert_error(create(http, mover.player, **timer), 400, service.TARGET_DURATION_REQUIRED)
    assert_error(create(http, mover.player, **rep, targetReps=10, targetDurationSeconds=30), 400,
                 service.TARGET_DURATION_NOT_ALLOWED)
    assert_error(create(http, mover.player, **rep, targetDurationSeconds=30), 400, service.TARGET_REPS_REQUIRED)
    assert_error(create(http, mover.player, **timer, targetDurationSeconds=30, targetReps=10), 400,
                 service.TARGET_REPS_NOT_ALLOWED)
    assert_error(create(http, mover.player, **timer, targetReps=10), 400, service.TARGET_DURATION_REQUIRED)


INVALID_TARGETS = [
    ("targetReps", 0, "Invalid field targetReps: Input should be greater than or equal to 1."),
    ("targetReps", -1, "Invalid field targetReps: Input should be greater than or equal to 1."),
    ("targetReps", 1.5, "Invalid field targetReps: Input should be a valid integer."),
    ("targetReps", 10.0, "Invalid field targetReps: Input should be a valid integer."),
    ("targetReps", "10", "Invalid field targetReps: Input should be a valid integer."),
    ("targetReps", True, "Invalid field targetReps: Input should be a valid integer."),
    ("targetReps", models.MAX_TARGET_REPS + 1,
     f"Invalid field targetReps: Input should be less than or equal to {models.MAX_TARGET_REPS}."),
    ("targetDurationSeconds", 0, "Invalid field targetDurationSeconds: Input should be greater than or equal to 1."),
    ("targetDurationSeconds", 0.5,
     "Invalid field targetDurationSeconds: Input should be greater than or equal to 1."),
    ("targetDurationSeconds", -30,
     "Invalid field targetDurationSeconds: Input should be greater than or equal to 1."),
    ("targetDurationSeconds", models.MAX_SECONDS + 1,
     f"Invalid field targetDurationSeconds: Input should be less than or equal to {models.MAX_SECONDS}."),
]


def test_invalid_targets_are_400(http, mover):
    for field, value, message in INVALID_TARGETS:
        kind, exercise = ("rep", mover.rep) if field == "targetReps" else ("timer", mover.timer)
        response = create(http, mover.player, exerciseId=exercise, exerciseType=kind, **{field: value})
        assert response.json == {"error": message}, (field, value)
        assert response.status_code == 400
    for value in ("30", True, None):
        response = create(http, mover.player, exerciseId=mover.timer, exerciseType="timer",
                          targetDurationSeconds=value)
        assert response.status_code == 400, value
        expected = service.TARGET_DURATION_REQUIRED if value is None else "Invalid field targetDurationSeconds"
        assert response.json["error"].startswith(expected), response.json
    assert http.get(SESSIONS, headers=mover.player.headers).json["sessions"] == []


INVALID_BODIES = [
    ({"exerciseId": "x", "exerciseType": "rep", "targetReps": 10, "note": "hi"}, "Unknown field: note."),
    ({"exerciseId": "x", "exerciseType": "rep", "targetReps": 10, "status": "completed"}, "Unknown field: status."),
    ({"exerciseType": "rep", "targetReps": 10}, "Missing required field: exerciseId."),
    ({"exerciseId": "x", "targetReps": 10}, "Missing required field: exerciseType."),
    ({"exerciseId": "x", "exerciseType": "jump", "targetReps": 10},
     "Invalid field exerciseType: Input should be 'rep' or 'timer'."),
    ({"exerciseId": "x", "exerciseType": "REP", "targetReps": 10},
     "Invalid field exerciseType: Input should be 'rep' or 'timer'."),
    ({}, "Missing required field: exerciseId."),
    ({"exerciseId": "x" * 65, "exerciseType": "rep", "targetReps": 10},
     "Invalid field exerciseId: Value should have at most 64 items after validation, not 65."),
]


def test_invalid_create_bodies_are_400(http, mover):
    for body, message in INVALID_BODIES:
        assert_error(http.post(SESSIONS, json=body, headers=mover.player.headers), 400, message)


def test_exercise_id_of_a_wrong_type_or_empty_is_400(http, mover):
    for value in (12, None, ["x"], ""):
        response = create(http, mover.player, exerciseId=value, exerciseType="rep", targetReps=10)
        assert response.status_code == 400, value
        assert response.json["error"].startswith("Invalid field exerciseId:"), response.json


def test_malformed_or_missing_bodies(http, mover):
    headers = mover.player.headers
    for data in ("", "not json", "[1, 2]", '"text"', '{"exerciseId": '):
        response = http.post(SESSIONS, data=data, content_type="application/json", headers=headers)
        assert_error(response, 400, MALFORMED_JSON)
    assert_error(http.post(SESSIONS, headers=headers), 400, MALFORMED_JSON)
    # A body that is not declared JSON is refused before it is read (core.http).
    response = http.post(SESSIONS, data='{"exerciseId": "x"}', content_type="text/plain", headers=headers)
    assert response.status_code == 415
    assert not http.get(SESSIONS, headers=headers).json["sessions"]


def test_exercise_not_in_the_catalog_is_404(http, mover, other_tenant, operator_tenant):
    disabled = make_exercise(mover.client, "rep", enabled=False)
    foreign = make_exercise(other_tenant.client, "rep")
    library = make_exercise(operator_tenant.client, "rep", library=True)
    for exercise_id in ("no-such-exercise", disabled, foreign, library, "bad id!", "a..b"):
        response = create(http, mover.player, exerciseId=exercise_id, exerciseType="rep", targetReps=10)
        assert_error(response, 404, service.EXERCISE_NOT_FOUND)
    assert http.get(SESSIONS, headers=mover.player.headers).json["sessions"] == []
    # Once selected for the client, the library exercise can be used.
    service.select_exercise(mover.client, library)
    session = start(http, mover.player, library)
    assert session["exerciseId"] == library and session["clientId"] == mover.client_id


def test_operator_tenant_uses_its_library(http, operator_tenant):
    operator_tenant.configure("modules.aiMove=true")
    library = make_exercise(operator_tenant.client, "timer", library=True)
    member = operator_tenant.add_member("player")
    session = start(http, member, library, "timer")
    assert session["clientId"] == operator_tenant.client_id and session["exerciseType"] == "timer"
    disabled = make_exercise(operator_tenant.client, "rep", library=True, enabled=False)
    response = create(http, member, exerciseId=disabled, exerciseType="rep", targetReps=10)
    assert_error(response, 404, service.EXERCISE_NOT_FOUND)


# ------------------------------------------------------------------------------------ who may call


def user_routes(session_id: str, exercise_id: str) -> list[tuple[str, str, dict | None]]:
    """The seven user routes of AI Move, each with a body that would be valid."""
    return [
        ("get", EXERCISES, None),
        ("get", f"{EXERCISES}/{exercise_id}", None),
        ("post", SESSIONS, {"exerciseId": exercise_id, "exerciseType": "rep", "targetReps": 10}),
        ("get", SESSIONS, None),
        ("get", f"{SESSIONS}/{session_id}", None),
        ("patch", f"{SESSIONS}/{session_id}", {"status": "in-progress"}),
        ("get", STATISTICS, None),
    ]


@pytest.fixture
def client_token(mover) -> dict:
    key = api_keys.create_key(mover.client_id, "app", False, created_by="test").api_key
    return bearer(client_tokens.sign(mover.client_id, key["keyId"]))


def test_every_user_route_needs_an_id_token(http, mover, client_token):
    session_id = start(http, mover.player, mover.rep)["sessionId"]
    for headers, message in (({}, auth.MISSING_AUTH), ({"Authorization": "Token abc"}, auth.MISSING_AUTH),
                             ({"Authorization": "Bearer garbage"}, auth.INVALID_TOKEN),
                             (client_token, auth.INVALID_TOKEN)):
        for method, url, body in user_routes(session_id, mover.rep):
            response = getattr(http, method)(url, json=body, headers=headers)
            assert response.status_code == 401, (method, url, headers)
            assert response.json == {"error": message}, (method, url)
    # Nothing was created or changed.
    page = http.get(SESSIONS, headers=mover.player.headers).json
    assert ids(page) == [session_id] and page["sessions"][0]["status"] == "created"


def test_every_user_route_is_403_when_the_module_is_off(http, make_tenant):
    tenant = make_tenant()
    exercise = make_exercise(tenant.client, "rep")
    for member in (tenant.player, tenant.admin):
        for method, url, body in user_routes("0000000000000abcdefgh", exercise):
            response = getattr(http, method)(url, json=body, headers=member.headers)
            assert_error(response, 403, service.MODULE_OFF)
    tenant.configure("modules.aiMove=true")
    session_id = start(http, tenant.player, exercise)["sessionId"]
    tenant.configure("modules.aiMove=false")
    for method, url, body in user_routes(session_id, exercise):
        response = getattr(http, method)(url, json=body, headers=tenant.player.headers)
        assert_error(response, 403, service.MODULE_OFF)
    # The module gate comes before the body: an invalid body is still 403.
    assert_error(http.post(SESSIONS, json={"bad": 1}, headers=tenant.player.headers), 403, service.MODULE_OFF)
    tenant.configure("modules.aiMove=true")
    got = http.get(f"{SESSIONS}/{session_id}", headers=tenant.player.headers)
    assert got.status_code == 200 and got.json["session"]["status"] == "created"


def test_admins_of_the_client_use_ai_move_as_users(http, mover):
    session = start(http, mover.admin, mover.timer, "timer")
    assert session["userId"] == mover.admin.uid
    assert ids(http.get(SESSIONS, headers=mover.admin.headers).json) == [session["sessionId"]]


# ------------------------------------------------------------------------------------ read one


def test_only_the_owner_reads_a_session(http, mover, other_tenant, platform_admin, operator_tenant):
    session = start(http, mover.player, mover.rep)
    url = f"{SESSIONS}/{session['sessionId']}"
    response = http.get(url, headers=mover.player.headers)
    assert response.status_code == 200 and response.json == {"session": session}
    # Same client, another user (player or admin): 403.
    for member in (mover.add_member("player"), mover.admin):
        assert_error(http.get(url, headers=member.headers), 403, service.NOT_OWNER)
    # Sessions are per client: another client's users (platform administrators too) do not find it.
    other_tenant.configure("modules.aiMove=true")
    operator_tenant.configure("modules.aiMove=true")
    for member in (other_tenant.player, other_tenant.admin, platform_admin):
        assert_error(http.get(url, headers=member.headers), 404, service.SESSION_NOT_FOUND)


def test_unknown_session_is_404(http, mover):
    for session_id in ("0000000000000unknown", "no-such-session", "bad id!", "x" * 65, "__"):
        assert_error(http.get(f"{SESSIONS}/{session_id}", headers=mover.player.headers), 404,
                     service.SESSION_NOT_FOUND)


def test_reserved_document_ids_are_not_found_rather_than_500(http, mover):
    headers = mover.player.headers
    for session_id in ("__x__", "__name__"):
        assert_error(http.get(f"{SESSIONS}/{session_id}", headers=headers), 404, service.SESSION_NOT_FOUND)
        assert_error(http.patch(f"{SESSIONS}/{session_id}", json={"status": "in-progress"}, headers=headers), 404,
                     service.SESSION_NOT_FOUND)
        assert_error(http.get(f"{SESSIONS}?startAfter={session_id}", headers=headers), 400, service.INVALID_CURSOR)
        assert_error(create(http, mover.player, exerciseId=session_id, exerciseType="rep", targetReps=10), 404,
                     service.EXERCISE_NOT_FOUND)


# ------------------------------------------------------------------------------------ list


def test_list_shows_only_the_callers_sessions_newest_first(http, mover, other_tenant):
    mine = []
    for exercise, kind in ((mover.rep, "rep"), (mover.timer, "timer"), (mover.rep, "rep")):
        mine.append(start(http, mover.player, exercise, kind))
        later()
    start(http, mover.admin, mover.rep)
    start(http, mover.add_member("player"), mover.rep)
    other_tenant.configure("modules.aiMove=true")
    start(http, other_tenant.player, make_exercise(other_tenant.client, "rep"))

    response = http.get(SESSIONS, headers=mover.player.headers)
    assert response.status_code == 200
    page = response.json
    assert list(page) == ["sessions", "nextStartAfter"] and page["nextStartAfter"] is None
    assert ids(page) == [s["sessionId"] for s in reversed(mine)]
    for summary, session in zip(page["sessions"], reversed(mine), strict=True):
        assert list(summary) == list(models.SUMMARY_FIELDS)
        assert summary == {name: session[name] for name in models.SUMMARY_FIELDS}
    created = [s["createdAt"] for s in page["sessions"]]
    assert created == sorted(created, reverse=True) and len(set(created)) == 3


def test_list_of_a_new_user_is_empty(http, mover):
    response = http.get(SESSIONS, headers=mover.player.headers)
    assert response.status_code == 200 and response.json == {"sessions": [], "nextStartAfter": None}


def test_list_summaries_show_progress(http, mover):
    session_id = start(http, mover.player, mover.rep)["sessionId"]
    done = {"status": "completed", "repsCompleted": 9, "durationSeconds": 31.5, "caloriesBurned": 4.2,
            "poseAccuracy": 0.75, "formScore": 0.5}
    assert http.patch(f"{SESSIONS}/{session_id}", json=done, headers=mover.player.headers).status_code == 200
    (summary,) = http.get(SESSIONS, headers=mover.player.headers).json["sessions"]
    assert ISO_Z.match(summary.pop("completedAt")) and ISO_Z.match(summary.pop("createdAt"))
    assert summary == {"sessionId": session_id, "exerciseId": mover.rep, "exerciseType": "rep", **done}


def test_limit_default_and_maximum(http, mover):
    for _ in range(models.SESSIONS_PAGE_DEFAULT + 1):
        start(http, mover.player, mover.rep)
    page = http.get(SESSIONS, headers=mover.player.headers).json
    assert len(page["sessions"]) == models.SESSIONS_PAGE_DEFAULT == 20
    assert page["nextStartAfter"] == page["sessions"][-1]["sessionId"]
    rest = http.get(f"{SESSIONS}?startAfter={page['nextStartAfter']}", headers=mover.player.headers).json
    assert len(rest["sessions"]) == 1 and rest["nextStartAfter"] is None
    everything = http.get(f"{SESSIONS}?limit={models.SESSIONS_PAGE_MAX}", headers=mover.player.headers).json
    assert len(everything["sessions"]) == 21 and everything["nextStartAfter"] is None
    assert ids(everything) == ids(page) + ids(rest)
    one = http.get(f"{SESSIONS}?limit=1", headers=mover.player.headers).json
    assert ids(one) == ids(page)[:1] and one["nextStartAfter"] == ids(page)[0]


INVALID_QUERIES = [
    ("limit=101", "Invalid field limit: Input should be less than or equal to 100."),
    ("limit=0", "Invalid field limit: Input should be greater than or equal to 1."),
    ("limit=-5", "Invalid field limit: Input should be greater than or equal to 1."),
    ("limit=abc", "Invalid field limit: Input should be a valid integer."),
    ("limit=2.5", "Invalid field limit: Input should be a valid integer."),
    ("limit=", "Invalid field limit: Input should be a valid integer."),
    ("startAfter=a%2Fb", service.INVALID_CURSOR),
    ("startAfter=bad%20id!", service.INVALID_CURSOR),
    ("startAfter=a..b", service.INVALID_CURSOR),
    ("startAfter=" + "x" * 65, "Invalid field startAfter: String should have at most 64 characters."),
    ("startAfter=", service.INVALID_CURSOR),
]


def test_invalid_list_queries_are_400(http, mover):
    for query, message in INVALID_QUERIES:
        assert_error(http.get(f"{SESSIONS}?{query}", headers=mover.player.headers), 400, message)


def test_pages_neither_repeat_nor_skip_while_sessions_are_created(http, mover):
    original = []
    for _ in range(7):
        original.append(start(http, mover.player, mover.rep)["sessionId"])
        later()
    newest_first = list(reversed(original))
    seen, cursor, pages, added = [], None, 0, []
    while True:
        url = f"{SESSIONS}?limit=3" + (f"&startAfter={cursor}" if cursor else "")
        response = http.get(url, headers=mover.player.headers)
        assert response.status_code == 200, response.json
        page = response.json
        seen += ids(page)
        pages += 1
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
        assert cursor == ids(page)[-1]
        # Sessions created between two page requests sort before the cursor: they never shift a page.
        later()
        added.append(start(http, mover.player, mover.timer, "timer")["sessionId"])
        later()
    assert seen == newest_first and pages == 3
    assert not set(added) & set(seen)
    # A fresh listing starts with the newer sessions.
    assert ids(http.get(f"{SESSIONS}?limit=100", headers=mover.player.headers).json) == [
        *reversed(added), *newest_first]


def test_a_cursor_of_an_unknown_or_foreign_session_still_pages_by_id(http, mover):
    """A cursor is a position, not a read: any well-formed id pages from there, showing only the caller's."""
    first = start(http, mover.player, mover.rep)["sessionId"]
    later()
    second = start(http, mover.player, mover.rep)["sessionId"]
    later()
    others = start(http, mover.admin, mover.rep)["sessionId"]
    page = http.get(f"{SESSIONS}?startAfter={others}", headers=mover.player.headers).json
    assert ids(page) == [second, first]
    page = http.get(f"{SESSIONS}?startAfter={second}", headers=mover.player.headers).json
    assert page == {"sessions": page["sessions"], "nextStartAfter": None} and ids(page) == [first]
    assert ids(http.get(f"{SESSIONS}?startAfter=0", headers=mover.player.headers).json) == [second, first]
    assert ids(http.get(f"{SESSIONS}?startAfter=z", headers=mover.player.headers).json) == []
