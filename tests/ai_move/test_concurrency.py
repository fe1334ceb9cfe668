"""AI Move under concurrency: a completion counts exactly once in the statistics and the daily activity, however
often and however concurrently it is sent. Each thread uses its own Flask test client, as separate requests of
separate instances would."""

import collections
import concurrent.futures

from tests.ai_move.conftest import SESSIONS, start
from wellness_api.ai_move import service
from wellness_api.ai_move.routes import app
from wellness_api.core.rollups import day_of

STATISTICS = "/api/ai-move/statistics"
RESENDS = 20


def parallel(n: int, call) -> list:
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda i: call(app.test_client(), i), range(n)))


def until_done(send, expected: int):
    """Resend a request answered 503 (the documented "retry shortly") until it gets another answer."""
    for _ in range(RESENDS):
        response = send()
        if response.status_code != 503:
            assert response.status_code == expected, response.json
            return response
    raise AssertionError(f"still 503 after {RESENDS} resends")


def assert_busy(response) -> None:
    assert response.json == {"error": service.CONTENTION.message}


def statistics(http, member) -> dict:
    return http.get(STATISTICS, headers=member.headers).json["statistics"]


def today_activity(client_id: str) -> dict:
    today = day_of()
    return service.daily_activity(client_id, today, today).get(today, {})


def test_the_same_completion_sent_20_times_at_once_counts_once(http, mover):
    session_id = start(http, mover.player, mover.rep)["sessionId"]
    headers = mover.player.headers
    done = {"status": "completed", "repsCompleted": 12, "durationSeconds": 40.5, "caloriesBurned": 3.5,
            "formScore": 0.8, "completionOutcome": "success"}
    responses = parallel(20, lambda client, i: client.patch(f"{SESSIONS}/{session_id}", json=done, headers=headers))
    statuses = collections.Counter(r.status_code for r in responses)
    print(f"\n20 parallel identical completions: {dict(statuses)}")
    assert set(statuses) <= {200, 503} and statuses[200] >= 1
    for response in responses:
        if response.status_code == 200:
            assert response.json == {"success": True}
        else:
            assert_busy(response)
    stats = statistics(http, mover.player)
    assert (stats["sessionsCompleted"], stats["totalReps"], stats["totalDurationSeconds"],
            stats["totalCaloriesBurned"], stats["bestFormScore"]) == (1, 12, 40.5, 3.5, 0.8)
    assert [e["sessionsCompleted"] for e in stats["exercises"]] == [1]
    assert today_activity(mover.client_id) == {"sessionsStarted": 1, "sessionsCompleted": 1, "reps": 12,
                                               "durationSeconds": 40.5, "caloriesBurned": 3.5, "activeUsers": 1}
    session = http.get(f"{SESSIONS}/{session_id}", headers=headers).json["session"]
    assert session["status"] == "completed" and session["repsCompleted"] == 12


def test_different_sessions_of_one_user_completed_at_once_all_count(http, mover):
    n = 8
    headers = mover.player.headers
    session_ids = [start(http, mover.player, mover.rep)["sessionId"] for _ in range(n)]
    reps = [i + 1 for i in range(n)]

    def complete(client, i):
        return client.patch(f"{SESSIONS}/{session_ids[i]}", json={"status": "completed", "repsCompleted": reps[i]},
                            headers=headers)

    responses = parallel(n, complete)
    statuses = collections.Counter(r.status_code for r in responses)
    print(f"\n{n} parallel completions of different sessions: {dict(statuses)}")
    assert set(statuses) <= {200, 503}
    for i, response in enumerate(responses):
        if response.status_code == 503:
            assert_busy(response)
            until_done(lambda i=i: complete(http, i), 200)
    stats = statistics(http, mover.player)
    assert (stats["sessionsCompleted"], stats["totalReps"]) == (n, sum(reps))
    assert [(e["exerciseId"], e["sessionsCompleted"], e["totalReps"]) for e in stats["exercises"]] == [
        (mover.rep, n, sum(reps))]
    activity = today_activity(mover.client_id)
    assert (activity["sessionsStarted"], activity["sessionsCompleted"], activity["reps"], activity["activeUsers"]) == (
        n, n, sum(reps), 1)
    # Every resend after the fact is an identical retry: nothing more is counted.
    assert all(complete(http, i).status_code == 200 for i in range(n))
    assert statistics(http, mover.player) == stats


def test_progress_racing_a_completion_leaves_statistics_equal_to_the_session(http, mover):
    """Progress reports racing the completing request: whatever wins, the statistics hold the completed values."""
    session_id = start(http, mover.player, mover.rep)["sessionId"]
    url, headers = f"{SESSIONS}/{session_id}", mover.player.headers

    def send(client, i):
        body = ({"status": "completed", "repsCompleted": 10} if i == 5 else
                {"status": "in-progress", "repsCompleted": i})
        return client.patch(url, json=body, headers=headers)

    responses = parallel(12, send)
    statuses = collections.Counter(r.status_code for r in responses)
    print(f"\n11 progress reports racing a completion: {dict(statuses)}")
    assert set(statuses) <= {200, 409, 503}
    for response in responses:
        if response.status_code == 409:
            assert response.json == {"error": service._terminal("completed")}
    if responses[5].status_code == 503:
        until_done(lambda: send(http, 5), 200)
    session = http.get(url, headers=headers).json["session"]
    assert session["status"] == "completed" and session["repsCompleted"] == 10
    stats = statistics(http, mover.player)
    assert (stats["sessionsCompleted"], stats["totalReps"]) == (1, 10)
    assert today_activity(mover.client_id)["reps"] == 10


def test_concurrent_creates_of_one_user_count_one_active_user(http, mover):
    headers = mover.player.headers
    body = {"exerciseId": mover.rep, "exerciseType": "rep", "targetReps": 10}

    def create(client, i):
        return client.post(SESSIONS, json=body, headers=headers)

    responses = parallel(10, create)
    statuses = collections.Counter(r.status_code for r in responses)
    print(f"\n10 parallel creates of one user: {dict(statuses)}")
    assert set(statuses) <= {201, 503}
    for response in responses:
        if response.status_code == 503:
            assert_busy(response)
            until_done(lambda: create(http, 0), 201)
    listed = http.get(f"{SESSIONS}?limit=100", headers=headers).json["sessions"]
    assert len(listed) == 10 and len({s["sessionId"] for s in listed}) == 10
    assert today_activity(mover.client_id) == {"sessionsStarted": 10, "activeUsers": 1}


def test_concurrent_creates_of_several_users_count_each_once(http, mover):
    members = [mover.player, mover.admin, mover.add_member("player")]
    headers = [m.headers for m in members]  # signed in before the burst
    body = {"exerciseId": mover.timer, "exerciseType": "timer", "targetDurationSeconds": 20}

    def create(client, i):
        return client.post(SESSIONS, json=body, headers=headers[i % 3])

    responses = parallel(9, create)
    statuses = collections.Counter(r.status_code for r in responses)
    print(f"\n9 parallel creates of 3 users: {dict(statuses)}")
    assert set(statuses) <= {201, 503}
    for i, response in enumerate(responses):
        if response.status_code == 503:
            until_done(lambda i=i: create(http, i), 201)
    assert today_activity(mover.client_id) == {"sessionsStarted": 9, "activeUsers": 3}
    for member in members:
        assert len(http.get(SESSIONS, headers=member.headers).json["sessions"]) == 3
