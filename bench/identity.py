"""Identity benchmarks (issue 3), run by bench/run.py inside the emulators.

1. Firestore reads/writes and Auth calls per sign-in request, per grant and endpoint.
2. Password grant: latency of a wrong password against an unknown email (medians; the refusal floor
   makes them equal) and of a successful sign-in.
3. Rate-limit counters: many concurrent hits on one client's limit, one shard against several.
"""

import contextlib
import io
import statistics
import threading
import time
import uuid

RUNS = 15


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the tables


def round_trips() -> None:
    from support.firestore_ops import counting
    from support.tenants import Tenant
    from wellness_api.api_keys import service as api_keys
    from wellness_api.identity.routes import app, custom_token_app

    host = f"bench-{uuid.uuid4().hex[:8]}.localhost"
    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}", hostnames=[host])
    tenant.configure("auth.externalUser=jit", "auth.guestSignIn=true")
    key = api_keys.create_key(tenant.client_id, "bench", False, "bench").secret
    ct, idp = custom_token_app.test_client(), app.test_client()
    rows = []

    def measure(label, call):
        with counting() as ops, _quiet():
            response = call()
        rows.append((label, response.status_code, ops.reads, ops.writes))
        return response

    key_auth = {"Authorization": f"Bearer {key}"}
    ext = {"grantType": "external_user", "externalUserId": "bench-user"}
    measure("custom-token external_user (JIT, new user)", lambda: ct.post("/api/auth/custom-token", json=ext,
                                                                          headers=key_auth))
    measure("custom-token external_user (existing user)", lambda: ct.post("/api/auth/custom-token", json=ext,
                                                                          headers=key_auth))
    pw = {"clientId": tenant.client_id, "email": tenant.player.email, "password": tenant.player.password}
    measure("custom-token password (success)", lambda: ct.post("/api/auth/custom-token", json=pw))
    measure("custom-token password (wrong password)",
            lambda: ct.post("/api/auth/custom-token", json={**pw, "password": "wrong"}))
    measure("custom-token password (unknown email)",
            lambda: ct.post("/api/auth/custom-token", json={**pw, "email": "nobody@bench.test"}))
    token = tenant.player.token
    measure("exchange-token", lambda: idp.post("/api/auth/exchange-token",
                                               headers={"X-Forwarded-Host": host, "Authorization": f"Bearer {token}"}))
    measure("guest-custom-token", lambda: idp.post("/api/auth/guest-custom-token", headers={"X-Forwarded-Host": host}))
    measure("set-claims", lambda: idp.post("/api/auth/set-claims", json={"clientId": tenant.client_id, "idToken": token}))
    print("\n== identity: Firestore document reads / writes per request")
    print(f"{'request':45} {'status':>6} {'reads':>6} {'writes':>6}")
    for label, status, reads, writes in rows:
        print(f"{label:45} {status:>6} {reads:>6} {writes:>6}")
    print("(writes include one rate-limit counter increment per counted request; the password grant also calls\n"
          " the Identity Toolkit once, and issuing a token reads the Auth user once.)")
    timing(ct, pw)


def timing(ct, pw: dict) -> None:
    from wellness_api.identity.custom_token import FAILED_SIGN_IN_FLOOR_SECONDS

    def median_ms(body) -> float:
        samples = []
        for _ in range(RUNS):
            with _quiet():
                started = time.perf_counter()
                ct.post("/api/auth/custom-token", json=body)
                samples.append((time.perf_counter() - started) * 1000)
        return statistics.median(samples)

    wrong = median_ms({**pw, "password": "wrong-password"})
    unknown = median_ms({**pw, "email": f"nobody-{uuid.uuid4().hex[:6]}@bench.test"})
    success = median_ms(pw)
    print(f"\n== identity: password grant latency (median of {RUNS}, in process)")
    print(f"wrong password: {wrong:7.1f} ms   unknown email: {unknown:7.1f} ms   difference: {abs(wrong - unknown):5.1f} ms")
    print(f"success:        {success:7.1f} ms   (refusals end at a {FAILED_SIGN_IN_FLOOR_SECONDS * 1000:.0f} ms floor)")


def counters() -> None:
    from wellness_api.core import ratelimit

    print("\n== identity: rate-limit counters under 40 concurrent hits on one client's limit")
    print(f"{'limit/min':>9} {'shards':>6} {'allowed':>7} {'refused':>7} {'wall ms':>8}")
    for limit in (20, 600):
        rule = ratelimit.Limit(f"bench{uuid.uuid4().hex[:6]}", limit)
        results, barrier = [], threading.Barrier(40)

        def hit(rule=rule, results=results, barrier=barrier):
            barrier.wait()
            results.append(ratelimit.hit(rule, "client").allowed)

        threads = [threading.Thread(target=hit) for _ in range(40)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = (time.perf_counter() - started) * 1000
        print(f"{limit:>9} {rule.shards:>6} {sum(results):>7} {len(results) - sum(results):>7} {wall:>8.0f}")
    print("(one write per hit, no transaction: nothing aborts under contention; a limit of 20 admits exactly 20)")


def main() -> None:
    round_trips()
    counters()
