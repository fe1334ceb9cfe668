"""GET /api/ai-move/statistics (4.6, 3.1) and the daily activity rollup the analytics read."""

import datetime as dt

from tests.ai_move.conftest import SESSIONS, make_exercise, start
from wellness_api.ai_move import service
from wellness_api.core import clock
from wellness_api.core.rollups import day_of

STATISTICS = "/api/ai-move/statistics"
ZERO = {"sessionsCompleted": 0, "totalReps": 0, "totalDurationSeconds": 0, "totalHoldTimeSeconds": 0,
        "totalCaloriesBurned": 0, "bestFormScore": None, "lastCompletedAt": None}


def statistics(http, member) -> dict:
    response = http.get(STATISTICS, headers=member.headers)
    assert response.status_code == 200, response.json
    assert list(response.json) == ["statistics"]
    return response.json["statistics"]


def finish(http, member, exercise_id: str, kind: str = "rep", **values) -> dict:
    """A new session of `exercise_id` moved to values["status"] (completed by default); the stored session."""
    session_id = start(http, member, exercise_id, kind)["sessionId"]
    response = http.patch(f"{SESSIONS}/{session_id}", json={"status": "completed", **values}, headers=member.headers)
    assert response.status_code == 200, response.json
    return http.get(f"{SESSIONS}/{session_id}", headers=member.headers).json["session"]


def later() -> None:
    clock.advance(dt.timedelta(milliseconds=5))


def test_a_new_user_has_zero_statistics(http, mover):
    assert statistics(http, mover.player) == {"userId": mover.player.uid, "clientId": mover.client_id, **ZERO,
                                              "exercises": []}
    # Starting sessions, reporting progress, failing and abandoning count nothing.
    session_id = start(http, mover.player, mover.rep)["sessionId"]
    http.patch(f"{SESSIONS}/{session_id}", json={"status": "in-progress", "repsCompleted": 5},
               headers=mover.player.headers)
    finish(http, mover.player, mover.rep, status="failed", repsCompleted=4, formScore=0.9)
    finish(http, mover.player, mover.timer, "timer", status="abandoned", holdTimeSeconds=20, caloriesBurned=3)
    assert statistics(http, mover.player) == {"userId": mover.player.uid, "clientId": mover.client_id, **ZERO,
                                              "exercises": []}


def test_completed_sessions_add_up_overall_and_per_exercise(http, mover):
    first = finish(http, mover.player, mover.rep, repsCompleted=10, durationSeconds=10.1, caloriesBurned=2.5,
                   formScore=0.8, holdTimeSeconds=0)
    later()
    hold = finish(http, mover.player, mover.timer, "timer", holdTimeSeconds=30.5, durationSeconds=20.2,
                  caloriesBurned=1.25)
    later()
    finish(http, mover.player, mover.rep, status="failed", repsCompleted=5, durationSeconds=9, formScore=1)
    finish(http, mover.player, mover.rep, status="abandoned", repsCompleted=7, caloriesBurned=9)
    start(http, mover.player, mover.rep)
    later()
    last = finish(http, mover.player, mover.rep, repsCompleted=12, durationSeconds=5, caloriesBurned=3,
                  formScore=0.6)

    stats = statistics(http, mover.player)
    assert stats == {
        "userId": mover.player.uid, "clientId": mover.client_id,
        "sessionsCompleted": 3, "totalReps": 22, "totalDurationSeconds": 35.3, "totalHoldTimeSeconds": 30.5,
        "totalCaloriesBurned": 6.75, "bestFormScore": 0.8, "lastCompletedAt": last["completedAt"],
        "exercises": [
            {"exerciseId": mover.rep, "exerciseType": "rep", "sessionsCompleted": 2, "totalReps": 22,
             "totalDurationSeconds": 15.1, "totalHoldTimeSeconds": 0, "totalCaloriesBurned": 5.5,
             "bestFormScore": 0.8, "lastCompletedAt": last["completedAt"]},
            {"exerciseId": mover.timer, "exerciseType": "timer", "sessionsCompleted": 1, "totalReps": 0,
             "totalDurationSeconds": 20.2, "totalHoldTimeSeconds": 30.5, "totalCaloriesBurned": 1.25,
             "bestFormScore": None, "lastCompletedAt": hold["completedAt"]},
        ],
    }
    assert first["completedAt"] < hold["completedAt"] < last["completedAt"]

    # The most recently completed exercise comes first; a better score raises the best, a null one keeps it.
    later()
    again = finish(http, mover.player, mover.timer, "timer", holdTimeSeconds=10, formScore=0.3)
    later()
    finish(http, mover.player, mover.rep, repsCompleted=1, formScore=None)
    later()
    newest = finish(http, mover.player, mover.timer, "timer", holdTimeSeconds=1, formScore=0.95)
    stats = statistics(http, mover.player)
    assert [e["exerciseId"] for e in stats["exercises"]] == [mover.timer, mover.rep]
    assert (stats["sessionsCompleted"], stats["totalReps"], stats["bestFormScore"]) == (6, 23, 0.95)
    assert stats["totalHoldTimeSeconds"] == 41.5 and stats["lastCompletedAt"] == newest["completedAt"]
    timer, rep = stats["exercises"]
    assert (timer["sessionsCompleted"], timer["bestFormScore"], timer["lastCompletedAt"]) == (
        3, 0.95, newest["completedAt"])
    assert (rep["sessionsCompleted"], rep["totalReps"], rep["bestFormScore"]) == (3, 23, 0.8)
    assert again["completedAt"] < newest["completedAt"]


def test_a_null_form_score_first_then_a_score(http, mover):
    finish(http, mover.player, mover.rep, repsCompleted=3)
    assert statistics(http, mover.player)["bestFormScore"] is None
    finish(http, mover.player, mover.rep, repsCompleted=3, formScore=0)
    stats = statistics(http, mover.player)
    assert stats["bestFormScore"] == 0 and stats["exercises"][0]["bestFormScore"] == 0
    finish(http, mover.player, mover.rep, repsCompleted=3, formScore=None)
    assert statistics(http, mover.player)["bestFormScore"] == 0


def test_values_changed_before_completion_count_as_completed(http, mover):
    session_id = start(http, mover.player, mover.rep)["sessionId"]
    url, headers = f"{SESSIONS}/{session_id}", mover.player.headers
    assert http.patch(url, json={"status": "in-progress", "repsCompleted": 4, "caloriesBurned": 1},
                      headers=headers).status_code == 200
    assert http.patch(url, json={"repsCompleted": 9, "durationSeconds": 30}, headers=headers).status_code == 200
    assert http.patch(url, json={"status": "completed", "formScore": 0.7}, headers=headers).status_code == 200
    stats = statistics(http, mover.player)
    assert (stats["sessionsCompleted"], stats["totalReps"], stats["totalDurationSeconds"],
            stats["totalCaloriesBurned"], stats["bestFormScore"]) == (1, 9, 30, 1, 0.7)
    # Retrying the completion, or trying to change the finished session, adds nothing.
    assert http.patch(url, json={"status": "completed", "formScore": 0.7}, headers=headers).status_code == 200
    assert http.patch(url, json={"repsCompleted": 50}, headers=headers).status_code == 409
    assert statistics(http, mover.player) == stats


def test_other_users_and_other_tenants_do_not_leak_in(http, mover, other_tenant):
    finish(http, mover.player, mover.rep, repsCompleted=10, formScore=0.5)
    colleague = mover.add_member("player")
    finish(http, colleague, mover.rep, repsCompleted=40, formScore=0.99)
    finish(http, mover.admin, mover.timer, "timer", holdTimeSeconds=60)
    other_tenant.configure("modules.aiMove=true")
    foreign = make_exercise(other_tenant.client, "rep")
    finish(http, other_tenant.player, foreign, repsCompleted=70)

    mine = statistics(http, mover.player)
    assert (mine["sessionsCompleted"], mine["totalReps"], mine["bestFormScore"]) == (1, 10, 0.5)
    assert [e["exerciseId"] for e in mine["exercises"]] == [mover.rep]
    theirs = statistics(http, colleague)
    assert (theirs["userId"], theirs["sessionsCompleted"], theirs["totalReps"]) == (colleague.uid, 1, 40)
    admin = statistics(http, mover.admin)
    assert (admin["sessionsCompleted"], admin["totalReps"], admin["totalHoldTimeSeconds"]) == (1, 0, 60)
    foreign_stats = statistics(http, other_tenant.player)
    assert (foreign_stats["clientId"], foreign_stats["sessionsCompleted"], foreign_stats["totalReps"]) == (
        other_tenant.client_id, 1, 70)


# ------------------------------------------------------------------------------------ daily activity


def activity(client_id: str, *days: str) -> dict:
    return service.daily_activity(client_id, min(days), max(days))


def test_daily_activity_matches_what_happened(http, mover, other_tenant):
    today = day_of()
    assert activity(mover.client_id, today) == {}
    player, colleague = mover.player, mover.add_member("player")
    finish(http, player, mover.rep, repsCompleted=10, durationSeconds=12, caloriesBurned=2)
    finish(http, player, mover.rep, status="failed", repsCompleted=3, durationSeconds=5, caloriesBurned=1)
    finish(http, player, mover.timer, "timer", status="abandoned", holdTimeSeconds=4)
    progress = start(http, colleague, mover.timer, "timer")["sessionId"]
    assert http.patch(f"{SESSIONS}/{progress}", json={"status": "in-progress", "durationSeconds": 8},
                      headers=colleague.headers).status_code == 200
    finish(http, colleague, mover.timer, "timer", holdTimeSeconds=30, durationSeconds=31, caloriesBurned=4)
    # Refused requests and retries change no counter.
    assert http.post(SESSIONS, json={"exerciseId": mover.rep, "exerciseType": "timer", "targetDurationSeconds": 3},
                     headers=player.headers).status_code == 400
    other_tenant.configure("modules.aiMove=true")
    finish(http, other_tenant.player, make_exercise(other_tenant.client, "rep"), repsCompleted=99)

    assert activity(mover.client_id, today) == {today: {
        "sessionsStarted": 5, "sessionsCompleted": 2, "sessionsFailed": 1, "sessionsAbandoned": 1,
        "reps": 10, "durationSeconds": 43, "caloriesBurned": 6, "activeUsers": 2,
    }}
    assert activity(other_tenant.client_id, today)[today]["reps"] == 99


def test_a_user_is_active_once_a_day_and_again_the_next_day(http, mover):
    day1 = day_of()
    for _ in range(3):
        start(http, mover.player, mover.rep)
    pending = start(http, mover.player, mover.rep)["sessionId"]
    assert activity(mover.client_id, day1)[day1] == {"sessionsStarted": 4, "activeUsers": 1}

    clock.advance(dt.timedelta(days=1))
    day2 = day_of()
    assert day2 > day1
    # Completing a session started the day before makes the user active on this day.
    response = http.patch(f"{SESSIONS}/{pending}", json={"status": "completed", "repsCompleted": 6},
                          headers=mover.player.headers)
    assert response.status_code == 200
    start(http, mover.player, mover.rep)
    finish(http, mover.player, mover.timer, "timer", holdTimeSeconds=10, caloriesBurned=1.5)
    start(http, mover.admin, mover.rep)
    days = activity(mover.client_id, day1, day2)
    assert days[day1] == {"sessionsStarted": 4, "activeUsers": 1}
    assert days[day2] == {"sessionsStarted": 3, "sessionsCompleted": 2, "reps": 6, "durationSeconds": 0,
                          "caloriesBurned": 1.5, "activeUsers": 2}
    stats = statistics(http, mover.player)
    assert stats["sessionsCompleted"] == 2 and stats["lastCompletedAt"][:10] == day2


def test_a_user_whose_only_activity_of_the_day_is_ending_a_session_is_active(http, mover):
    failing = start(http, mover.player, mover.rep)["sessionId"]
    abandoning = start(http, mover.admin, mover.rep)["sessionId"]
    clock.advance(dt.timedelta(days=1))
    day2 = day_of()
    assert http.patch(f"{SESSIONS}/{failing}", json={"status": "failed"},
                      headers=mover.player.headers).status_code == 200
    assert http.patch(f"{SESSIONS}/{abandoning}", json={"status": "abandoned"},
                      headers=mover.admin.headers).status_code == 200
    assert activity(mover.client_id, day2)[day2] == {"sessionsFailed": 1, "sessionsAbandoned": 1, "activeUsers": 2}
