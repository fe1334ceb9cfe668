"""AI Move benchmarks (issue 10), run by bench/run.py inside the emulators.

1. Firestore reads and writes per request: create, a progress PATCH, a completing PATCH, a retried
   completion, a failing PATCH, the detail GET and the statistics GET.
2. Reads per GET /api/ai-move/sessions page: page size + 1 (the one extra document tells whether another
   page follows), with and without a cursor (the cursor is a session id: no read).
3. Exactly-once statistics: N different sessions completed concurrently, each completion also sent
   several times at once; the statistics must count N sessions and their reps, no more, no less.
"""

import collections
import concurrent.futures
import contextlib
import io
import uuid

CONCURRENT_SESSIONS = 12
COPIES = 3  # each completion sent this many times at once
PAGE_SIZES = (1, 5, 20, 50, 100)


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


def _setup():
    from support.ai_move import make_exercise
    from support.tenants import Tenant

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    tenant.configure("modules.aiMove=true")
    tenant.rep = make_exercise(tenant.client, "rep", name="Squats")
    return tenant


def _start(http, tenant) -> str:
    body = {"exerciseId": tenant.rep, "exerciseType": "rep", "targetReps": 10}
    response = http.post("/api/ai-move/sessions", json=body, headers=tenant.player.headers)
    assert response.status_code == 201, response.json
    return response.json["sessionId"]


def per_request() -> None:
    from support.firestore_ops import counting
    from wellness_api.ai_move.routes import app

    http = app.test_client()
    rows = []
    with _quiet():
        tenant = _setup()
        headers = tenant.player.headers
        _start(http, tenant)  # warm: token keys, connections, the user's active day

        def measure(name: str, call) -> None:
            with counting() as ops:
                response = call()
            rows.append((name, response.status_code, ops.reads, ops.writes))

        holder = {}
        measure("POST session (same day)", lambda: holder.setdefault("r", http.post(
            "/api/ai-move/sessions", json={"exerciseId": tenant.rep, "exerciseType": "rep", "targetReps": 10},
            headers=headers)))
        session = holder["r"].json["sessionId"]
        url = f"/api/ai-move/sessions/{session}"
        measure("PATCH progress", lambda: http.patch(url, json={"status": "in-progress", "repsCompleted": 4},
                                                     headers=headers))
        done = {"status": "completed", "repsCompleted": 10, "durationSeconds": 30, "formScore": 0.9}
        measure("PATCH completing", lambda: http.patch(url, json=done, headers=headers))
        measure("PATCH completion retried", lambda: http.patch(url, json=done, headers=headers))
        failing = _start(http, tenant)
        measure("PATCH failing", lambda: http.patch(f"/api/ai-move/sessions/{failing}", json={"status": "failed"},
                                                    headers=headers))
        measure("GET session", lambda: http.get(url, headers=headers))
        measure("GET statistics", lambda: http.get("/api/ai-move/statistics", headers=headers))
        measure("GET exercises (1 custom)", lambda: http.get("/api/ai-move/exercises", headers=headers))

    print("\n== AI Move: Firestore reads and writes per request (player's ID token)")
    print(f"{'request':<28} {'status':>6} {'reads':>6} {'writes':>6}")
    for name, status, reads, writes in rows:
        print(f"{name:<28} {status:>6} {reads:>6} {writes:>6}")
    print("(Every request reads the client document once (the module gate). Create: + the exercise + the user's "
          "active-day marker; writes = the session + one activity shard (+ the marker on the user's first activity "
          "of a day). Progress: the session read, the session written if unchanged since. Completing or ending: + the "
          "marker; "
          "session, statistics (increments) and one activity shard written in one batch. A retried completion "
          "writes nothing.)")


def list_reads() -> None:
    from support.firestore_ops import counting
    from wellness_api.ai_move.routes import app

    http = app.test_client()
    with _quiet():
        tenant = _setup()
        for _ in range(max(PAGE_SIZES) + 5):
            _start(http, tenant)
    headers = tenant.player.headers
    print("\n== AI Move: reads per GET /api/ai-move/sessions page (the user has "
          f"{max(PAGE_SIZES) + 5} sessions)")
    print(f"{'limit':>5} {'returned':>8} {'reads':>6} {'reads - client doc':>18} {'next page reads':>15}")
    for size in PAGE_SIZES:
        with _quiet(), counting() as first:
            page = http.get(f"/api/ai-move/sessions?limit={size}", headers=headers).json
        cursor = page["nextStartAfter"]
        with _quiet(), counting() as second:
            http.get(f"/api/ai-move/sessions?limit={size}&startAfter={cursor}", headers=headers)
        print(f"{size:>5} {len(page['sessions']):>8} {first.reads:>6} {first.reads - 1:>18} {second.reads:>15}")
    print("(reads - client doc = page size + 1 on every page: the cursor is a session id that sorts by time, "
          "so it costs no read.)")


def exactly_once() -> None:
    from wellness_api.ai_move import service
    from wellness_api.ai_move.routes import app
    from wellness_api.core.rollups import day_of

    with _quiet():
        tenant = _setup()
        http = app.test_client()
        sessions = [_start(http, tenant) for _ in range(CONCURRENT_SESSIONS)]
    headers = tenant.player.headers
    reps = {session: 5 + index for index, session in enumerate(sessions)}
    calls = [session for session in sessions for _ in range(COPIES)]

    def complete(session: str) -> int:
        client = app.test_client()
        while True:
            status = client.patch(f"/api/ai-move/sessions/{session}", headers=headers,
                                  json={"status": "completed", "repsCompleted": reps[session]}).status_code
            if status != 503:  # contention exhausted: the app retries, as the 503 says
                return status

    with _quiet(), concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        statuses = collections.Counter(pool.map(complete, calls))
    stats = service.statistics(tenant.client, tenant.player.uid)
    activity = service.daily_activity(tenant.client_id, day_of(), day_of()).get(day_of(), {})
    print(f"\n== AI Move: exactly-once statistics ({CONCURRENT_SESSIONS} sessions completed at once, each "
          f"completion sent {COPIES} times concurrently)")
    print(f"final statuses: {dict(statuses)}")
    print(f"sessionsCompleted: {stats['sessionsCompleted']} (expected {CONCURRENT_SESSIONS}); totalReps: "
          f"{stats['totalReps']} (expected {sum(reps.values())}); daily activity sessionsCompleted: "
          f"{activity.get('sessionsCompleted')}, reps: {activity.get('reps')}")
    ok = stats["sessionsCompleted"] == CONCURRENT_SESSIONS and stats["totalReps"] == sum(reps.values())
    print(f"ratio counted / distinct sessions: {stats['sessionsCompleted'] / CONCURRENT_SESSIONS:.2f} "
          f"({'exact' if ok else 'WRONG'})")


def main() -> None:
    per_request()
    list_reads()
    exactly_once()
