"""Vital Scan benchmarks (issue 5), run by bench/run.py inside the emulators.

1. Firestore reads and writes per partner call (create, GET, DELETE, the 402 and 429 paths) and per
   hosted call, at the demo workspace's settings.
2. Creates per second on one workspace, sequential and from parallel callers, with the sharded point
   account and the sharded rate windows in the path.
3. The concurrency run: many parallel creates against a small balance, printed as sessions created
   against points spent.
"""

import collections
import concurrent.futures
import contextlib
import io
import time
import uuid

N_SEQUENTIAL = 60
PARALLEL_CALLERS = 8
N_PARALLEL = 160


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the tables


def _partner(points: int, rpm: int):
    from support.tenants import Tenant
    from support.vital_scan import make_partner

    with _quiet():
        return make_partner(Tenant(f"bench-{uuid.uuid4().hex[:8]}"), points=points, rpm=rpm)


def ops_per_call() -> None:
    from support.firestore_ops import counting
    from support.tokens import bearer
    from wellness_api.vital_scan import ratelimit
    from wellness_api.vital_scan.routes import app

    http = app.test_client()
    partner = _partner(points=500, rpm=120)  # the demo workspace's settings
    base = "/api/v1/vital-scan/sessions"
    rows = []

    def measure(label, call, repeat=1):
        results = []
        for _ in range(repeat):
            with _quiet(), counting() as ops:
                response = call()
            results.append((response.status_code, ops.reads, ops.writes))
        status, reads, writes = results[-1]
        rows.append((label, status, reads, writes))
        return response

    def create():
        return http.post(base, json={"userId": "bench-user", "returnUrl": "https://partner.example/done"},
                         headers=partner.headers)

    create()  # the first call of the key writes lastUsedAt; measure the steady state
    session = measure("POST sessions (create)", create).json["data"]
    sid, token = session["vitalScanResultId"], session["vitalScanUrl"].split("#scanToken=")[1]
    measure("GET sessions/{id}", lambda: http.get(f"{base}/{sid}", headers=partner.headers))
    measure("GET sessions/{id} within 5 s (429 poll limit)", lambda: http.get(f"{base}/{sid}", headers=partner.headers))
    scan = bearer(token)
    measure("hosted GET session", lambda: http.get("/api/hosted/vital-scan/session", headers=scan))
    measure("hosted POST start", lambda: http.post("/api/hosted/vital-scan/start", headers=scan))
    measure("hosted POST exit", lambda: http.post("/api/hosted/vital-scan/exit", headers=scan))
    frames = 16 * 30 + 1
    trace = {"fps": 30, "t": [i * 1000 / 30 for i in range(frames)], "rgb": [[140, 100, 80]] * frames}
    measure("hosted POST measurement (16 s at 30 fps)", lambda: http.post("/api/hosted/vital-scan/measurement",
                                                                          json=trace, headers=scan))
    measure("DELETE sessions/{id}", lambda: http.delete(f"{base}/{sid}", headers=partner.headers))

    broke = _partner(points=0, rpm=120)
    http.post(base, json={"userId": "u"}, headers=broke.headers)
    measure("POST sessions, no points (402)", lambda: http.post(base, json={"userId": "u"}, headers=broke.headers))
    limited = _partner(points=10, rpm=1)
    with _quiet():
        http.get(f"{base}/x", headers=limited.headers)
    measure("any call past requestsPerMinute (429, window seen full)",
            lambda: http.get(f"{base}/x", headers=limited.headers), repeat=2)

    print("\n== Vital Scan: Firestore document reads / writes per call "
          f"(requestsPerMinute 120 -> {ratelimit.shard_count(120)} rate shard(s))")
    print(f"{'call':56} {'status':>6} {'reads':>6} {'writes':>6}")
    for label, status, reads, writes in rows:
        print(f"{label:56} {status:>6} {reads:>6} {writes:>6}")
    print("(create: key, client, rate shards, one point shard; writes: rate shard, point shard, session, token.\n"
          " The 429 is answered from the process's full-window memory once a window was seen full.)")


def creates_per_second() -> None:
    from wellness_api.vital_scan import ratelimit
    from wellness_api.vital_scan.routes import app

    rpm = 6000
    partner = _partner(points=100_000, rpm=rpm)
    base = "/api/v1/vital-scan/sessions"

    def one(http, i):
        response = http.post(base, json={"userId": f"u{i}"}, headers=partner.headers)
        return response.status_code

    with _quiet():
        http = app.test_client()
        one(http, -1)
        started = time.perf_counter()
        sequential = [one(http, i) for i in range(N_SEQUENTIAL)]
        seq_elapsed = time.perf_counter() - started
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(PARALLEL_CALLERS) as pool:
            parallel = list(pool.map(lambda i: one(app.test_client(), i), range(N_PARALLEL)))
        par_elapsed = time.perf_counter() - started
    print(f"\n== Vital Scan: creates per second on one workspace (requestsPerMinute {rpm} -> "
          f"{ratelimit.shard_count(rpm)} rate shards, 16 point shards; emulator on this machine)")
    print(f"sequential: {N_SEQUENTIAL} creates, {collections.Counter(sequential)}, {N_SEQUENTIAL / seq_elapsed:6.1f} creates/s")
    print(f"parallel ({PARALLEL_CALLERS} callers): {N_PARALLEL} creates, {collections.Counter(parallel)}, "
          f"{N_PARALLEL / par_elapsed:6.1f} creates/s")


def concurrency_run(callers: int = 30, balance: int = 10) -> None:
    from support.vital_scan import spent, stored_sessions
    from wellness_api.vital_scan.routes import app

    partner = _partner(points=balance, rpm=10_000)
    with _quiet(), concurrent.futures.ThreadPoolExecutor(callers) as pool:
        statuses = list(pool.map(lambda i: app.test_client().post(
            "/api/v1/vital-scan/sessions", json={"userId": f"u{i}"}, headers=partner.headers).status_code,
            range(callers)))
    sessions = len(stored_sessions(partner.client_id))
    points_spent = spent(partner.client_id)
    print(f"\n== Vital Scan: {callers} parallel creates against a balance of {balance}")
    print(f"responses: {dict(collections.Counter(statuses))}")
    print(f"sessions created: {sessions}   points spent: {points_spent}   "
          f"{'OK' if sessions == points_spent == statuses.count(201) <= balance else 'MISMATCH'}")


def main() -> None:
    ops_per_call()
    creates_per_second()
    concurrency_run(30, 10)
    concurrency_run(60, 25)


if __name__ == "__main__":
    import pathlib
    import sys

    root = pathlib.Path(__file__).resolve().parents[1]
    sys.path[:0] = [str(root / "functions"), str(root)]
    main()
