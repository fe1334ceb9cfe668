"""PATCH /api/ai-move/sessions/[sessionId] (4.6, 3.1, 8): bounds, nulls, form violations, the status graph."""

import datetime as dt
import itertools
import re

import pytest

from tests.ai_move.conftest import SESSIONS, make_exercise, start
from tests.conftest import assert_error
from wellness_api.ai_move import models, service
from wellness_api.core import clock
from wellness_api.core.errors import MALFORMED_JSON

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
OK = {"success": True}
VIOLATION = {"key": "kneesOverToes", "label": "Knees over toes", "labelZh": "膝蓋過腳尖", "weight": 0.4,
             "totalChecks": 90, "violationCount": 9, "violationRate": 0.1}


def patch(http, member, session_id: str, body):
    return http.patch(f"{SESSIONS}/{session_id}", json=body, headers=member.headers)


def read(http, member, session_id: str) -> dict:
    response = http.get(f"{SESSIONS}/{session_id}", headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json["session"]


def statistics(http, member) -> dict:
    return http.get("/api/ai-move/statistics", headers=member.headers).json["statistics"]


@pytest.fixture
def session(http, mover) -> str:
    return start(http, mover.player, mover.rep)["sessionId"]


# ------------------------------------------------------------------------------------ values


def test_progress_is_stored_and_read_back(http, mover, session):
    body = {"status": "in-progress", "repsCompleted": 6, "durationSeconds": 41.5, "caloriesBurned": 2.25,
            "poseAccuracy": 0.82, "formScore": 0.7, "holdTimeSeconds": 3, "retryCountRemaining": 2,
            "retryCountUsed": 1, "failureReason": "Lost track\nof the knees", "completionOutcome": "success",
            "formViolations": [VIOLATION]}
    response = patch(http, mover.player, session, body)
    assert response.status_code == 200 and response.json == OK
    stored = read(http, mover.player, session)
    assert {name: stored[name] for name in body} == body
    assert stored["completedAt"] is None and stored["targetReps"] == 10 and stored["userId"] == mover.player.uid
    # A subset changes only what it names.
    assert patch(http, mover.player, session, {"repsCompleted": 7}).json == OK
    assert read(http, mover.player, session) == {**stored, "repsCompleted": 7}


def test_values_at_their_limits_are_accepted(http, mover, session):
    accepted = {
        "repsCompleted": (0, 1, models.MAX_REPS),
        "durationSeconds": (0, 0.5, models.MAX_SECONDS),
        "caloriesBurned": (0, 0.1, models.MAX_CALORIES),
        "poseAccuracy": (0, 0.5, 1, 1.0),
        "formScore": (0, 0.999, 1),
        "holdTimeSeconds": (0, 12.75, models.MAX_SECONDS),
        "retryCountRemaining": (0, models.MAX_RETRIES),
        "retryCountUsed": (0, models.MAX_RETRIES),
        "failureReason": ("", "x" * models.MAX_FAILURE_REASON, "line one\r\nline two\tend", "膝蓋"),
        "completionOutcome": ("success", "failed"),
    }
    for field, values in accepted.items():
        for value in values:
            response = patch(http, mover.player, session, {field: value})
            assert response.status_code == 200, (field, value, response.json)
            assert read(http, mover.player, session)[field] == value, (field, value)


def out_of_range() -> list[tuple[str, object, str]]:
    def below(field, limit=0):
        return f"Invalid field {field}: Input should be greater than or equal to {limit}."

    def above(field, limit):
        return f"Invalid field {field}: Input should be less than or equal to {limit}."

    return [
        ("repsCompleted", -1, below("repsCompleted")),
        ("repsCompleted", models.MAX_REPS + 1, above("repsCompleted", models.MAX_REPS)),
        ("durationSeconds", -0.1, below("durationSeconds")),
        ("durationSeconds", models.MAX_SECONDS + 1, above("durationSeconds", models.MAX_SECONDS)),
        ("caloriesBurned", -1, below("caloriesBurned")),
        ("caloriesBurned", models.MAX_CALORIES + 0.5, above("caloriesBurned", models.MAX_CALORIES)),
        ("poseAccuracy", -0.01, below("poseAccuracy")),
        ("poseAccuracy", 1.01, above("poseAccuracy", 1)),
        ("poseAccuracy", 2, above("poseAccuracy", 1)),
        ("formScore", -0.1, below("formScore")),
        ("formScore", 1.5, above("formScore", 1)),
        ("holdTimeSeconds", -5, below("holdTimeSeconds")),
        ("holdTimeSeconds", models.MAX_SECONDS + 0.5, above("holdTimeSeconds", models.MAX_SECONDS)),
        ("retryCountRemaining", -1, below("retryCountRemaining")),
        ("retryCountRemaining", models.MAX_RETRIES + 1, above("retryCountRemaining", models.MAX_RETRIES)),
        ("retryCountUsed", -1, below("retryCountUsed")),
        ("retryCountUsed", models.MAX_RETRIES + 1, above("retryCountUsed", models.MAX_RETRIES)),
        ("failureReason", "x" * (models.MAX_FAILURE_REASON + 1),
         f"Invalid field failureReason: Value should have at most {models.MAX_FAILURE_REASON} items after "
         f"validation, not {models.MAX_FAILURE_REASON + 1}."),
        ("status", "done",
         "Invalid field status: Input should be 'created', 'in-progress', 'completed', 'failed' or 'abandoned'."),
        ("completionOutcome", "ok", "Invalid field completionOutcome: Input should be 'success' or 'failed'."),
    ]


def test_values_out_of_range_are_400_and_change_nothing(http, mover, session):
    before = read(http, mover.player, session)
    for field, value, message in out_of_range():
        assert_error(patch(http, mover.player, session, {field: value}), 400, message)
        # One bad field spoils the whole body.
        assert_error(patch(http, mover.player, session, {"status": "in-progress", field: value}), 400, message)
    assert read(http, mover.player, session) == before


def test_integer_fields_refuse_other_types_and_numbers_refuse_strings(http, mover, session):
    before = read(http, mover.player, session)
    for field in ("repsCompleted", "retryCountRemaining", "retryCountUsed"):
        for value in (1.5, 2.0, "3", True):
            response = patch(http, mover.player, session, {field: value})
            assert_error(response, 400, f"Invalid field {field}: Input should be a valid integer.")
    for field in ("durationSeconds", "caloriesBurned", "poseAccuracy", "formScore", "holdTimeSeconds"):
        for value in ("0.5", True, [1], {"v": 1}):
            response = patch(http, mover.player, session, {field: value})
            assert response.status_code == 400, (field, value)
            assert response.json["error"].startswith(f"Invalid field {field}"), response.json
    for field in ("failureReason", "status", "completionOutcome"):
        for value in (1, ["completed"]):
            response = patch(http, mover.player, session, {field: value})
            assert response.status_code == 400, (field, value)
            assert response.json["error"].startswith(f"Invalid field {field}:"), response.json
    assert read(http, mover.player, session) == before


def test_non_finite_numbers_are_refused(http, mover, session):
    for field in ("durationSeconds", "caloriesBurned", "poseAccuracy", "formScore", "holdTimeSeconds"):
        for value in ("NaN", "Infinity", "-Infinity"):
            response = http.patch(f"{SESSIONS}/{session}", data=f'{{"{field}": {value}}}',
                                  content_type="application/json", headers=mover.player.headers)
            assert response.status_code == 400, (field, value, response.json)
    response = http.patch(f"{SESSIONS}/{session}", data='{"formViolations": [{"key": "k", "label": "L", '
                          '"weight": NaN, "totalChecks": 1, "violationCount": 0, "violationRate": 0}]}',
                          content_type="application/json", headers=mover.player.headers)
    assert response.status_code == 400
    assert read(http, mover.player, session)["durationSeconds"] == 0


def test_failure_reason_refuses_control_characters(http, mover, session):
    response = patch(http, mover.player, session, {"failureReason": "bad\x00byte"})
    assert response.status_code == 400 and response.json["error"].startswith("Invalid field failureReason:")
    assert read(http, mover.player, session)["failureReason"] is None


def test_null_is_refused_for_fields_that_are_never_null(http, mover, session):
    for field in models.NOT_NULL:
        assert_error(patch(http, mover.player, session, {field: None}), 400, f"{field} must not be null.")
        assert_error(patch(http, mover.player, session, {"repsCompleted": 3, field: None}), 400,
                     f"{field} must not be null.")
    assert read(http, mover.player, session)["repsCompleted"] == 0


def test_null_clears_the_fields_that_may_be_null(http, mover, session):
    values = {"formScore": 0.9, "retryCountRemaining": 3, "failureReason": "tired", "completionOutcome": "failed"}
    assert patch(http, mover.player, session, values).json == OK
    assert {k: read(http, mover.player, session)[k] for k in values} == values
    for field in values:
        response = patch(http, mover.player, session, {field: None})
        assert response.status_code == 200 and response.json == OK
        assert read(http, mover.player, session)[field] is None, field


def test_read_only_and_unknown_fields_are_400(http, mover, session):
    for field in ("sessionId", "clientId", "userId", "exerciseId", "exerciseType", "targetReps",
                  "targetDurationSeconds", "createdAt", "completedAt", "updatedAt", "notes"):
        assert_error(patch(http, mover.player, session, {"repsCompleted": 1, field: "x"}), 400,
                     f"Unknown field: {field}.")
    assert read(http, mover.player, session)["repsCompleted"] == 0


def test_empty_or_malformed_bodies_are_400(http, mover, session):
    assert_error(patch(http, mover.player, session, {}), 400, service.NOTHING_TO_UPDATE)
    for data in ("", "nope", "[]", "null"):
        response = http.patch(f"{SESSIONS}/{session}", data=data, content_type="application/json",
                              headers=mover.player.headers)
        assert_error(response, 400, MALFORMED_JSON)


# ------------------------------------------------------------------------------------ form violations


def test_form_violations_are_stored_as_records(http, mover, session):
    without_zh = {k: v for k, v in VIOLATION.items() if k != "labelZh"}
    records = [VIOLATION, {**without_zh, "key": "backRounded", "weight": 1, "totalChecks": 0, "violationCount": 0,
                           "violationRate": 0},
               {**without_zh, "key": "hipsLow", "labelZh": None, "violationCount": 90, "violationRate": 1}]
    assert patch(http, mover.player, session, {"formViolations": records}).json == OK
    stored = read(http, mover.player, session)["formViolations"]
    # labelZh is optional: an absent or null labelZh is not stored.
    assert stored == [records[0], records[1], {k: v for k, v in records[2].items() if k != "labelZh"}]
    fifty = [{**without_zh, "key": f"check{i}"} for i in range(models.MAX_VIOLATIONS)]
    assert patch(http, mover.player, session, {"formViolations": fifty}).json == OK
    assert len(read(http, mover.player, session)["formViolations"]) == models.MAX_VIOLATIONS
    assert patch(http, mover.player, session, {"formViolations": []}).json == OK
    assert read(http, mover.player, session)["formViolations"] == []


def test_invalid_form_violations_are_400(http, mover, session):
    cases = [
        *[({k: v for k, v in VIOLATION.items() if k != missing}, f"Missing required field: formViolations.0.{missing}.")
          for missing in ("key", "label", "weight", "totalChecks", "violationCount", "violationRate")],
        ({**VIOLATION, "violationCount": 91},
         "Invalid field formViolations.0: violationCount cannot exceed totalChecks."),
        ({**VIOLATION, "violationRate": 1.1},
         "Invalid field formViolations.0.violationRate: Input should be less than or equal to 1."),
        ({**VIOLATION, "violationRate": -0.1},
         "Invalid field formViolations.0.violationRate: Input should be greater than or equal to 0."),
        ({**VIOLATION, "totalChecks": -1},
         "Invalid field formViolations.0.totalChecks: Input should be greater than or equal to 0."),
        ({**VIOLATION, "totalChecks": 90.5}, "Invalid field formViolations.0.totalChecks: Input should be a valid "
                                             "integer."),
        ({**VIOLATION, "violationCount": -1},
         "Invalid field formViolations.0.violationCount: Input should be greater than or equal to 0."),
        ({**VIOLATION, "weight": -1}, "Invalid field formViolations.0.weight: Input should be greater than or equal "
                                      "to 0."),
        ({**VIOLATION, "key": ""},
         "Invalid field formViolations.0.key: Value should have at least 1 item after validation, not 0."),
        ({**VIOLATION, "severity": "high"}, "Unknown field: formViolations.0.severity."),
    ]
    for record, message in cases:
        assert_error(patch(http, mover.player, session, {"formViolations": [record]}), 400, message)
    assert_error(patch(http, mover.player, session, {"formViolations": [VIOLATION, {**VIOLATION, "label": "Again"}]}),
                 400, "formViolations keys must be unique.")
    too_many = [{**VIOLATION, "key": f"check{i}"} for i in range(models.MAX_VIOLATIONS + 1)]
    assert_error(patch(http, mover.player, session, {"formViolations": too_many}), 400,
                 f"Invalid field formViolations: List should have at most {models.MAX_VIOLATIONS} items after "
                 f"validation, not {models.MAX_VIOLATIONS + 1}.")
    for value in ("kneesOverToes", VIOLATION, ["kneesOverToes"]):
        response = patch(http, mover.player, session, {"formViolations": value})
        assert response.status_code == 400 and response.json["error"].startswith("Invalid field formViolations")
    # The second record is checked too.
    assert_error(patch(http, mover.player, session, {"formViolations": [VIOLATION, {**VIOLATION, "key": "b",
                                                                                    "violationRate": 2}]}),
                 400, "Invalid field formViolations.1.violationRate: Input should be less than or equal to 1.")
    assert read(http, mover.player, session)["formViolations"] == []


# ------------------------------------------------------------------------------------ who may change it


def test_only_the_owner_changes_a_session(http, mover, session, other_tenant):
    before = read(http, mover.player, session)
    for member in (mover.add_member("player"), mover.admin):
        assert_error(patch(http, member, session, {"status": "completed", "repsCompleted": 10}), 403,
                     service.NOT_OWNER)
    other_tenant.configure("modules.aiMove=true")
    assert_error(patch(http, other_tenant.player, session, {"repsCompleted": 10}), 404, service.SESSION_NOT_FOUND)
    assert read(http, mover.player, session) == before
    # Ownership is checked before the body's content, not before its shape.
    assert_error(patch(http, mover.admin, session, {}), 400, service.NOTHING_TO_UPDATE)


def test_unknown_session_is_404(http, mover):
    for session_id in ("0000000000000unknown", "no-such-session", "bad id!"):
        assert_error(patch(http, mover.player, session_id, {"repsCompleted": 1}), 404, service.SESSION_NOT_FOUND)


# ------------------------------------------------------------------------------------ the status graph


def to_state(http, member, session_id: str, state: str) -> None:
    """Bring a new session to `state` by an allowed path."""
    if state != models.CREATED:
        response = patch(http, member, session_id, {"status": state})
        assert response.status_code == 200, response.json


def test_every_status_move(http, mover):
    """From each state, every status sent: allowed moves are 200, others 409 with the documented message."""
    for current, wanted in itertools.product(models.STATES, models.STATES):
        session_id = start(http, mover.player, mover.timer, "timer")["sessionId"]
        to_state(http, mover.player, session_id, current)
        before = read(http, mover.player, session_id)
        response = patch(http, mover.player, session_id, {"status": wanted, "holdTimeSeconds": 7})
        after = read(http, mover.player, session_id)
        if current in models.TERMINAL:
            # Nothing leaves a finished session; even the same status with a new value is refused.
            assert response.json == {"error": service._terminal(current)}, (current, wanted)
            assert response.status_code == 409 and after == before
        elif wanted in models.NEXT_STATES[current]:
            assert response.status_code == 200 and response.json == OK, (current, wanted, response.json)
            assert after["status"] == wanted and after["holdTimeSeconds"] == 7
            assert (after["completedAt"] is not None) == (wanted == models.COMPLETED)
        else:
            assert response.json == {"error": service._move_refused(current, wanted)}, (current, wanted)
            assert response.status_code == 409 and after == before


def test_move_refused_messages(http, mover, session):
    to_state(http, mover.player, session, models.IN_PROGRESS)
    assert_error(patch(http, mover.player, session, {"status": "created"}), 409,
                 "A session cannot move from in-progress to created (allowed next: completed, failed, abandoned).")
    assert patch(http, mover.player, session, {"status": "completed"}).json == OK
    assert_error(patch(http, mover.player, session, {"status": "in-progress"}), 409,
                 "The session is completed; a finished session cannot change.")


def test_created_in_progress_completed_sets_completed_at_only_on_completion(http, mover, session):
    assert patch(http, mover.player, session, {"status": "created", "repsCompleted": 1}).json == OK
    assert patch(http, mover.player, session, {"status": "in-progress", "repsCompleted": 4}).json == OK
    progress = read(http, mover.player, session)
    assert progress["status"] == "in-progress" and progress["completedAt"] is None
    assert patch(http, mover.player, session, {"status": "in-progress", "repsCompleted": 8}).json == OK
    assert read(http, mover.player, session)["completedAt"] is None
    before = clock.now()
    done = {"status": "completed", "repsCompleted": 10, "completionOutcome": "success", "formScore": 0.9}
    assert patch(http, mover.player, session, done).json == OK
    completed = read(http, mover.player, session)
    assert ISO_Z.match(completed["completedAt"])
    completed_at = dt.datetime.fromisoformat(completed["completedAt"].replace("Z", "+00:00"))
    assert before - dt.timedelta(milliseconds=1) <= completed_at <= clock.now()
    assert completed["createdAt"] <= completed["completedAt"]
    assert {k: completed[k] for k in done} == done


def test_created_may_complete_directly(http, mover):
    session_id = start(http, mover.player, mover.timer, "timer")["sessionId"]
    done = {"status": "completed", "holdTimeSeconds": 30, "durationSeconds": 31.2, "completionOutcome": "success"}
    assert patch(http, mover.player, session_id, done).json == OK
    session = read(http, mover.player, session_id)
    assert session["status"] == "completed" and session["completedAt"] is not None
    assert statistics(http, mover.player)["sessionsCompleted"] == 1


@pytest.mark.parametrize("ending", [models.FAILED, models.ABANDONED])
def test_failed_and_abandoned_are_final_without_completed_at(http, mover, session, ending):
    assert patch(http, mover.player, session, {"status": "in-progress", "repsCompleted": 3}).json == OK
    end = {"status": ending, "failureReason": "Stopped", "completionOutcome": "failed"}
    assert patch(http, mover.player, session, end).json == OK
    finished = read(http, mover.player, session)
    assert finished["status"] == ending and finished["completedAt"] is None and finished["repsCompleted"] == 3
    # The same request again succeeds and changes nothing; any other change is refused.
    assert patch(http, mover.player, session, end).json == OK
    assert patch(http, mover.player, session, {"status": ending}).json == OK
    for change in ({"status": "completed"}, {"status": "in-progress"}, {"repsCompleted": 4},
                   {"failureReason": "Other"}, {"formScore": 0.5}, {**end, "repsCompleted": 9}):
        assert_error(patch(http, mover.player, session, change), 409, service._terminal(ending))
    assert read(http, mover.player, session) == finished
    assert statistics(http, mover.player)["sessionsCompleted"] == 0


def test_a_completed_session_accepts_only_an_identical_retry(http, mover, session):
    done = {"status": "completed", "completionOutcome": "success", "repsCompleted": 12, "durationSeconds": 44.5,
            "caloriesBurned": 6.2, "formScore": 0.86, "formViolations": [VIOLATION, {**VIOLATION, "key": "b",
                                                                                     "labelZh": None}]}
    assert patch(http, mover.player, session, done).json == OK
    completed = read(http, mover.player, session)
    stats = statistics(http, mover.player)
    for retry in (done, {"status": "completed"}, {"repsCompleted": 12, "formScore": 0.86}, {"poseAccuracy": 0},
                  {"failureReason": None}):
        response = patch(http, mover.player, session, retry)
        assert response.status_code == 200 and response.json == OK, retry
    assert read(http, mover.player, session) == completed
    for change in ({**done, "repsCompleted": 13}, {"repsCompleted": 11}, {"formScore": 0.9}, {"formScore": None},
                   {"status": "failed"}, {"status": "abandoned"}, {"formViolations": []},
                   {"formViolations": [VIOLATION]}, {"failureReason": "late"}):
        assert_error(patch(http, mover.player, session, change), 409, service._terminal("completed"))
    assert read(http, mover.player, session) == completed
    assert statistics(http, mover.player) == stats and stats["sessionsCompleted"] == 1 and stats["totalReps"] == 12


def test_a_refused_move_stores_none_of_its_values(http, mover, session):
    assert patch(http, mover.player, session, {"status": "in-progress", "repsCompleted": 2}).json == OK
    before = read(http, mover.player, session)
    assert_error(patch(http, mover.player, session, {"status": "created", "repsCompleted": 5}), 409,
                 service._move_refused("in-progress", "created"))
    assert read(http, mover.player, session) == before


def test_a_library_exercise_session_moves_the_same_way(http, mover, operator_tenant):
    library = make_exercise(operator_tenant.client, "rep", library=True)
    service.select_exercise(mover.client, library)
    session_id = start(http, mover.player, library)["sessionId"]
    assert patch(http, mover.player, session_id, {"status": "completed", "repsCompleted": 10}).json == OK
    stats = statistics(http, mover.player)
    assert [e["exerciseId"] for e in stats["exercises"]] == [library]
