"""The cost of a credential check (issue 26 item 5): Firebase Auth calls per ID-token request, with and without
core.revocation's per-instance cache, run by bench/run.py inside the emulators.

A representative mix of users, each sending requests at its own rate (requests per user per minute, Poisson
arrivals, seeded), is replayed over SIMULATED_MINUTES of simulated time through core.auth.verify_id_token with real
ID tokens of the Auth emulator. Auth calls are counted at the SDK's client (every get_user, whoever makes it).
"Without the cache" is the SDK's own check (verify_id_token(check_revoked=True)), as the platform did before.
Requests are spread at random over 1 and over 4 instances, each with its own cache. The expected figure per user,
for rate r per minute over k instances and TTL T seconds, is 1 / (1 + r*T/(60*k)) lookups per request.
"""

import contextlib
import datetime as dt
import random
import time
import uuid

SIMULATED_MINUTES = 5
# requests per user per minute: a glance at a dashboard, a lesson session, Vital Scan polling or a chat, a script
MIX = (("light", 1), ("session", 6), ("polling", 30), ("burst", 120))
USERS_PER_CLASS = 2
INSTANCES = (1, 4)


@contextlib.contextmanager
def counting_auth_calls():
    """Counts every Auth user lookup the process makes (the SDK's client, whoever calls it)."""
    from firebase_admin import _auth_client

    calls = [0]
    original = _auth_client.Client.get_user

    def get_user(self, *args, **kwargs):
        calls[0] += 1
        return original(self, *args, **kwargs)

    _auth_client.Client.get_user = get_user
    try:
        yield calls
    finally:
        _auth_client.Client.get_user = original


def _arrivals(rng: random.Random, rate_per_minute: float) -> list[float]:
    times, t = [], rng.expovariate(rate_per_minute / 60)
    while t < SIMULATED_MINUTES * 60:
        times.append(t)
        t += rng.expovariate(rate_per_minute / 60)
    return times


def main() -> None:
    from support.tenants import Tenant
    from wellness_api.core import auth, firebase, revocation

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    users = [(label, rate, tenant.add_member("player")) for label, rate in MIX for _ in range(USERS_PER_CLASS)]
    rng = random.Random(26)
    events = sorted((t, label, member) for label, rate, member in users for t in _arrivals(rng, rate))
    tokens = {member.uid: member.token for _, _, member in users}
    start = dt.datetime.now(dt.UTC)
    ttl = revocation.TTL.total_seconds()

    def replay(instances: int) -> tuple[int, dict[str, int]]:
        """Auth calls over the whole mix through the cache, and per class."""
        clock_now = [start]
        caches = [revocation.RevocationCache(now=lambda: clock_now[0]) for _ in range(instances)]
        placement = random.Random(instances)
        per_class: dict[str, int] = {}
        saved = revocation.cache
        try:
            with counting_auth_calls() as calls:
                for t, label, member in events:
                    clock_now[0] = start + dt.timedelta(seconds=t)
                    revocation.cache = caches[placement.randrange(instances)]
                    before = calls[0]
                    assert auth.verify_id_token(tokens[member.uid]) is not None
                    per_class[label] = per_class.get(label, 0) + calls[0] - before
        finally:
            revocation.cache = saved
        return calls[0], per_class

    fb_auth = firebase.auth()
    started = time.perf_counter()
    with counting_auth_calls() as uncached:
        for _, _, member in events:
            fb_auth.verify_id_token(tokens[member.uid], app=firebase.app(), check_revoked=True)
    uncached_seconds = time.perf_counter() - started
    results = {k: replay(k) for k in INSTANCES}

    requests = {label: sum(1 for _, lab, _ in events if lab == label) for label, _ in MIX}
    print(f"\n== credential check: Firebase Auth calls per ID-token request (TTL {ttl:.0f} s, "
          f"{SIMULATED_MINUTES} simulated minutes, {USERS_PER_CLASS} users per class)")
    print(f"{'class':10} {'req/user/min':>12} {'requests':>9} {'no cache':>9} "
          + " ".join(f"{f'{k} inst.':>9} {'expected':>9}" for k in INSTANCES))
    for label, rate in MIX:
        row = f"{label:10} {rate:>12} {requests[label]:>9} {1:>9.3f} "
        row += " ".join(f"{results[k][1][label] / requests[label]:>9.3f} {1 / (1 + rate * ttl / (60 * k)):>9.3f}"
                        for k in INSTANCES)
        print(row)
    total = len(events)
    print(f"{'mix':10} {'':>12} {total:>9} {uncached[0] / total:>9.3f} "
          + " ".join(f"{results[k][0] / total:>9.3f} {'':>9}" for k in INSTANCES))
    for k in INSTANCES:
        print(f"ratio with cache / without, {k} instance(s): {results[k][0] / uncached[0]:.3f} "
              f"({uncached[0]} Auth calls -> {results[k][0]})")
    print(f"(without the cache every request makes 1 Auth call: {uncached[0]} for {total} requests; "
          f"{uncached_seconds / total * 1000:.1f} ms per check against the emulator, not production)")
    print(f"(worst case with the cache: 1 Auth call per distinct user per instance per {ttl:.0f} s, "
          f"at most {revocation.MAX_ENTRIES} users held per instance)")


if __name__ == "__main__":
    main()
