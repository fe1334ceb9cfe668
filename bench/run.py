"""`make bench`: performance measurements printed as ratios and counts, run inside the emulators.

1. Cold start: `import main` against a bare `import firebase_admin, firebase_functions`, median of
   fresh interpreters, and proof that serving one area imports no other area.
2. Firestore reads and writes per api-keys and client-token request.
(Then each area's own benchmarks, the Vital Scan engine's accuracy on synthetic traces, and the resource probe's
table: every operation's worst request, its body bytes, peak memory growth and wall time; `--resource-probe`
runs only that.)
Then the concurrency per instance (bench/concurrency.py): each function in one process at 1, 8 and 32 requests at
once, as ratios to 1, then the same with a network delay to Firestore and Auth (`--concurrency` runs only that).
Then the capacity and cost model (bench/capacity.py): cost per million requests per area at list prices, the
ceilings per tenant, 1x/10x/100x; it rewrites the generated part of docs/capacity.md (`--capacity` runs only it).
Last, the load run (bench/load/): mixed traffic through Hosting at 1, 4, 16 and 64 callers beside GET /api/health,
then exact checks that nothing was lost or counted twice (a mismatch fails the run); `--load` runs only it,
`--load-levels 1,4,16` at fewer callers.
"""

import argparse
import contextlib
import io
import os
import pathlib
import statistics
import subprocess
import sys
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
FUNCTIONS = ROOT / "functions"
sys.path[:0] = [str(FUNCTIONS), str(ROOT)]
os.environ.setdefault("CLIENT_JWT_SECRET", uuid.uuid4().hex * 2)

RUNS = 9


def _import_time(statement: str) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=FUNCTIONS, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def cold_start() -> None:
    base = statistics.median(_import_time("import firebase_admin, firebase_functions") for _ in range(RUNS))
    floor = statistics.median(_import_time("import firebase_admin, firebase_functions.https_fn") for _ in range(RUNS))
    main = statistics.median(_import_time("import main") for _ in range(RUNS))
    print("== cold start (median of", RUNS, "fresh interpreters)")
    print(f"import firebase_admin, firebase_functions:          {base * 1000:7.1f} ms")
    print(f"import firebase_admin, firebase_functions.https_fn: {floor * 1000:7.1f} ms  (any HTTPS function needs it)")
    print(f"import main:                                        {main * 1000:7.1f} ms")
    print(f"ratio main / bare import:  {main / base:.2f}x (goal <= 1.2x)")
    print(f"ratio main / https_fn floor: {main / floor:.2f}x (what main adds of its own)")
    probe = (
        "import sys, main\n"
        "from firebase_functions import https_fn\n"
        "from werkzeug.test import EnvironBuilder\n"
        "env = EnvironBuilder(path='/api/clients/x/api-keys', method='GET').get_environ()\n"
        "main.apikeys(https_fn.Request(env))\n"
        "areas = sorted({m.split('.')[1] for m in sys.modules if m.startswith('wellness_api.') and m.count('.') >= 1})\n"
        "print(' '.join(areas))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=FUNCTIONS, capture_output=True, text=True, check=True)
    loaded = out.stdout.strip().splitlines()[-1].split()
    others = [a for a in loaded if a not in ("core", "api_keys")]
    print(f"packages loaded after serving one api-keys request: {', '.join(loaded)}")
    print(f"other areas imported: {others or 'none'}")


def round_trips() -> None:
    from support.firestore_ops import counting
    from support.tenants import Tenant
    from wellness_api.api_keys.routes import app as keys_app
    from wellness_api.identity.routes import app as identity_app

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    keys, identity = keys_app.test_client(), identity_app.test_client()
    headers = tenant.admin.headers
    base = f"/api/clients/{tenant.client_id}/api-keys"
    rows = []

    def measure(label, call):
        with counting() as ops, contextlib.redirect_stdout(io.StringIO()):  # keep access logs out of the table
            response = call()
        rows.append((label, response.status_code, ops.reads, ops.writes))
        return response

    first = measure("POST api-keys (first key)", lambda: keys.post(base, json={}, headers=headers)).json
    second = measure("POST api-keys (second key)", lambda: keys.post(base, json={}, headers=headers)).json
    measure("GET api-keys (2 keys)", lambda: keys.get(base, headers=headers))
    measure("PATCH promote", lambda: keys.patch(f"{base}/{second['apiKey']['keyId']}", json={"action": "promote"},
                                                headers=headers))
    body = {"clientId": tenant.client_id, "clientSecret": first["secret"]}
    measure("POST client/token (first use: lastUsedAt)", lambda: identity.post("/api/client/token/", json=body))
    measure("POST client/token (within a minute)", lambda: identity.post("/api/client/token/", json=body))
    measure("PATCH revoke", lambda: keys.patch(f"{base}/{first['apiKey']['keyId']}", json={"action": "revoke"},
                                               headers=headers))
    print("\n== Firestore document reads / writes per request")
    print(f"{'request':45} {'status':>6} {'reads':>6} {'writes':>6}")
    for label, status, reads, writes in rows:
        print(f"{label:45} {status:>6} {reads:>6} {writes:>6}")
    print("(Auth: admin routes also verify the ID token and check revocation: at most one Auth lookup per user\n"
          " per revocation TTL per instance, see the credential check below.)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resource-probe", nargs="*", metavar="OPERATION_ID",
                        help="run only the resource probe (of the operations matching these globs; none: all)")
    parser.add_argument("--vital-scan-accuracy", action="store_true",
                        help="run only the Vital Scan engine's accuracy on synthetic traces (no emulators needed)")
    parser.add_argument("--capacity", action="store_true",
                        help="run only the capacity and cost model (writes docs/capacity.md); with --load, both")
    parser.add_argument("--load", action="store_true", help="run only the load run; with --capacity, both")
    parser.add_argument("--concurrency", nargs="*", metavar="FUNCTION",
                        help="run only the concurrency-per-instance bench (of these functions of main.py; none: all)")
    parser.add_argument("--concurrency-latency", type=float, default=None, metavar="MS",
                        help="the concurrency bench's one-way delay to Firestore and Auth (default 5; 0: no such run); "
                             "without --concurrency, only the run with this delay")
    parser.add_argument("--load-levels", default=None, metavar="N,N,...",
                        help="the load run's caller counts (default 1,4,16,64: about 18 GB of workers at 64)")
    args = parser.parse_args(argv)
    load_levels = tuple(int(n) for n in args.load_levels.split(",")) if args.load_levels else None
    if args.concurrency is not None or args.concurrency_latency is not None:
        from bench import concurrency
        concurrency.main(args.concurrency, args.concurrency_latency, plain=args.concurrency is not None)
        return
    if args.resource_probe is not None:
        from bench import resource_probe
        resource_probe.main(args.resource_probe)
        return
    if args.vital_scan_accuracy:
        from bench import vital_scan_accuracy
        vital_scan_accuracy.main()
        return
    if args.capacity or args.load:
        if args.capacity:
            from bench import capacity
            capacity.main()
        if args.load:
            from bench import load
            load.main(**({"levels": load_levels} if load_levels else {}))
        sys.stdout.flush()
        return
    cold_start()
    round_trips()
    from bench import lessons
    lessons.main()
    from bench import identity
    identity.main()
    from bench import auth_cost
    auth_cost.main()
    from bench import vital_scan
    vital_scan.main()
    from bench import vital_scan_accuracy
    vital_scan_accuracy.main()
    from bench import ai_move
    ai_move.main()
    from bench import fall_risk
    fall_risk.main()
    from bench import content
    content.main()
    from bench import media_generation
    media_generation.main()
    from bench import assistant
    assistant.main()
    from bench import analytics
    analytics.main()
    from bench import resource_probe
    resource_probe.main()
    from bench import concurrency
    concurrency.main(latency_ms=args.concurrency_latency)
    from bench import capacity
    capacity.main()
    from bench import load
    load.main(**({"levels": load_levels} if load_levels else {}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
