"""Fall-risk benchmarks (issue 12), run by bench/run.py inside the emulators.

1. Firestore reads and writes per request: create, a step, the completing step, that step retried, a read,
   and a records page with a filter and a date range.
2. Exactly once: N results whose five steps are all sent at once, the last ones several times; the daily
   rollup must count N completions, no more, no less.
"""

import concurrent.futures
import contextlib
import io
import uuid

CONCURRENT_RESULTS = 8
COPIES = 3  # each step sent this many times at once


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


def _setup():
    from support.tenants import Tenant

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    tenant.senior = tenant.add_member("player", birth_date="1950-01-01", sex="female")
    return tenant


def per_request() -> None:
    from support.fall_risk import HEALTHY, STEP_PATHS
    from support.firestore_ops import counting
    from wellness_api.fall_risk.routes import app

    http = app.test_client()
    rows = []
    with _quiet():
        tenant = _setup()
        headers = tenant.senior.headers
        http.post("/api/fall-risk", json={}, headers=headers)  # warm: token keys, connections

        def measure(name: str, call):
            with counting() as ops:
                response = call()
            rows.append((name, response.status_code, ops.reads, ops.writes))
            return response

        result_id = measure("POST /api/fall-risk", lambda: http.post("/api/fall-risk", json={}, headers=headers)
                            ).json["fallRiskResultId"]
        url = f"/api/fall-risk/results/{result_id}"
        steps = list(HEALTHY.items())
        for step, body in steps[:-1]:
            http.put(f"{url}/{STEP_PATHS[step]}", json=body, headers=headers)
        last, body = steps[-1]
        measure("PUT a step (re-recorded)", lambda: http.put(f"{url}/{STEP_PATHS[steps[0][0]]}", json=steps[0][1],
                                                             headers=headers))
        measure("PUT the completing step", lambda: http.put(f"{url}/{STEP_PATHS[last]}", json=body, headers=headers))
        measure("PUT it again (a retry)", lambda: http.put(f"{url}/{STEP_PATHS[last]}", json=body, headers=headers))
        measure("GET result", lambda: http.get(url, headers=headers))
        measure("GET records (level, range)", lambda: http.get(
            "/api/fall-risk/records?riskLevel=1&startDate=2020-01-01&endDate=2099-12-31&limit=20",
            headers=tenant.admin.headers))

    print("\n== Fall risk: Firestore reads and writes per request")
    print(f"{'request':<30} {'status':>6} {'reads':>6} {'writes':>6}")
    for name, status, reads, writes in rows:
        print(f"{name:<30} {status:>6} {reads:>6} {writes:>6}")
    print("(Every request reads the client document. Create: + the member; writes = the result + one rollup shard. "
          "A step: + the result; the result written if unchanged since. Completing: the scoring in the same write, "
          "+ one rollup shard. A retry of the completing step writes nothing. Records: one document per result "
          "returned + 1 (is there another page); the date range is a range of ids.)")


def exactly_once() -> None:
    from support.fall_risk import HEALTHY, STEP_PATHS
    from wellness_api.core.rollups import day_of
    from wellness_api.fall_risk import service
    from wellness_api.fall_risk.routes import app

    with _quiet():
        tenant = _setup()
        headers = tenant.senior.headers
        ids = [app.test_client().post("/api/fall-risk", json={}, headers=headers).json["fallRiskResultId"]
               for _ in range(CONCURRENT_RESULTS)]
        calls = [(result_id, step, body) for result_id in ids for step, body in HEALTHY.items() for _ in range(COPIES)]

        def send(call):
            result_id, step, body = call
            return app.test_client().put(f"/api/fall-risk/results/{result_id}/{STEP_PATHS[step]}", json=body,
                                         headers=headers).status_code

        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            statuses = list(pool.map(send, calls))
        day = day_of()
        counted = service.daily_activity(tenant.client_id, day, day).get(day, {})
    print(f"\n== Fall risk: {CONCURRENT_RESULTS} results, their 5 steps each sent {COPIES} times at once "
          f"({len(calls)} requests)")
    print(f"answers: {sorted(set(statuses))}; completions counted {counted.get('completed', 0):g} of "
          f"{CONCURRENT_RESULTS} (ratio {counted.get('completed', 0) / CONCURRENT_RESULTS:.2f}), created "
          f"{counted.get('created', 0):g}")


def main() -> None:
    per_request()
    exactly_once()
