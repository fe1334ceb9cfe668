"""Analytics benchmarks (spec 4.10, 2.14), run by bench/run.py inside the emulators.

One fresh client with analytics on, PLAYERS linked players (birth dates, and most with a latest fall-risk
outcome), and activity events over the last DAYS days from ACTIVE_USERS users across the five rollups. Each
analytics endpoint (overview; engagement insights, assessment counts and functional tests without a range and
with 7-, 30-, 90- and 366-day ranges) is called through the analytics Flask app's test client with the admin's
real ID token, after SIZES[0] events, then after more (SIZES[1]), then SIZES[-1] events in all:

1. Firestore reads (documents, and aggregation queries as Firestore bills them) and latency (median of RUNS) at
   each size; the goal is reads at SIZES[-1] within 1.2x of those at SIZES[0].
2. At SIZES[-1]: reads against the number of days in the range, which may grow linearly (one document per day
   and module once compacted).

After each seeding, the rollups are compacted (core.activity.compact_all: what the analyticscompact schedule
does every 15 minutes), so each day of a module is one document, however many events filled its 16 shards.
Each module's events visit the DAYS days in turn, so every day has some at every size: what is measured is
then the cost per event, not whether a sparse day has a document at all.

The events go through the rollup writer (core.activity.<ROLLUP>.add into Firestore batches), not through each
area's endpoints: 100,000 requests through the emulators would take hours, and the rollup writer is exactly what
those endpoints add to their own commit, so the documents analytics reads are the same.
"""

import concurrent.futures
import contextlib
import dataclasses
import datetime as dt
import io
import random
import statistics
import time
import uuid

PLAYERS = 200  # linked players (Auth users with birth dates); about 6 s to create on 2 cores
ACTIVE_USERS = 1000  # the uids events name: the linked players and others (the rollups only hash a uid)
DAYS = 90  # events fall on the last DAYS days, today included
SIZES = (1_000, 10_000, 100_000)
RANGES = (None, 7, 30, 90, 366)  # None: no range (lifetime totals)
RUNS = 5
BATCH_EVENTS = 250  # each add writes 2 documents (the day's shard and the lifetime shard): 500, a batch's maximum
SEED_WORKERS = 8
READS_GOAL = 1.2
SEED = 20240214
SHARDS_NOTE = ("16 shards x days x modules before compaction (no range: the 16 lifetime shards per module, and 30 days "
               "for dailyBreakdown)")


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


# ------------------------------------------------------------------------------------ the client


@dataclasses.dataclass
class World:
    tenant: object
    users: list[str]
    age_groups: dict[str, str | None]  # uid -> 2.14 age group (None: under 30)
    rng: random.Random
    events: int = 0
    per_rollup: dict[str, int] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0
    compaction_seconds: float = 0.0
    day_cursor: dict[str, int] = dataclasses.field(default_factory=dict)  # module -> its next day


def _birth_date(rng: random.Random, today: dt.date) -> tuple[str, str | None]:
    from wellness_api.core import users

    born = today - dt.timedelta(days=rng.randint(25 * 365, 95 * 365))
    return born.isoformat(), users.age_group(users.age_on(born, today))


def _setup() -> tuple[World, float]:
    from support.tenants import Tenant
    from wellness_api.core import firebase, tenancy

    rng = random.Random(SEED)
    today = dt.datetime.now(dt.UTC).date()
    started = time.perf_counter()
    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    tenant.configure("modules.analytics=true")
    births = [_birth_date(rng, today) for _ in range(PLAYERS)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        members = list(pool.map(lambda birth: tenant.add_member(tenancy.ROLE_PLAYER, birth_date=birth[0]), births))
    # Their latest fall-risk outcome, as fall_risk/repository.commit_step writes it (a merge of `fallRisk`).
    batch = firebase.db().batch()
    for member in members:
        if rng.random() < 0.75:
            level = rng.choice((1, 1, 2, 2, 3, 4))
            batch.set(tenancy.user_ref(tenant.client_id, member.uid), {"fallRisk": {
                "fallRiskResultId": f"bench-{member.uid}", "riskLevel": level,
                "urgentAttention": level == 4 and rng.random() < 0.5,
                "completedAt": dt.datetime.now(dt.UTC)}}, merge=True)
    batch.commit()
    users = [member.uid for member in members]
    groups = {member.uid: birth[1] for member, birth in zip(members, births, strict=True)}
    for n in range(ACTIVE_USERS - len(users)):
        uid = f"bench-user-{n:05d}"
        users.append(uid)
        groups[uid] = _birth_date(rng, today)[1]
    tenant.admin.token  # noqa: B018 - sign in now, not inside a measurement
    return World(tenant, users, groups, rng), time.perf_counter() - started


# ------------------------------------------------------------------------------------ events


def _moment(rng: random.Random, now: dt.datetime, days_ago: int) -> dt.datetime:
    midnight = dt.datetime.combine(now.date() - dt.timedelta(days=days_ago), dt.time(), dt.UTC)
    return min(now, midnight + dt.timedelta(seconds=rng.randrange(86_400)))


def _action(world: World, now: dt.datetime) -> list[tuple[object, dict, str, dt.datetime]]:
    """One user's action, as the adds its area's commits make: [(rollup, counts, uid, moment)]."""
    from wellness_api.core import activity
    from wellness_api.fall_risk.service import completion_activity

    rng = world.rng
    uid = rng.choice(world.users)
    module = rng.choice(("lessons", "aiMove", "chat", "vitalScan", "fallRisk"))  # each visits every day by 1k
    days_ago = world.day_cursor.get(module, 0) % DAYS
    world.day_cursor[module] = days_ago + 1
    moment = _moment(rng, now, days_ago)
    if module == "lessons":
        return [(activity.LESSONS, {"plays": 1, **({"completedPlays": 1} if rng.random() < 0.6 else {})}, uid, moment)]
    if module == "aiMove":
        adds = [(activity.AI_MOVE, {"sessionsStarted": 1}, uid, moment)]
        if rng.random() < 0.75:
            adds.append((activity.AI_MOVE, {"sessionsCompleted": 1, "reps": rng.randint(5, 30),
                                            "durationSeconds": rng.randint(30, 600)}, uid, moment))
        return adds
    if module == "chat":
        return [(activity.WELLNESS_CHAT, {"chats": 1, "messages": 2}, uid, moment)] + [
            (activity.WELLNESS_CHAT, {"messages": 2}, uid, moment) for _ in range(rng.randint(0, 3))]
    if module == "vitalScan":
        adds = [(activity.VITAL_SCAN, {"created": 1}, uid, moment)]
        if rng.random() < 0.8:
            adds.append((activity.VITAL_SCAN, {"started": 1}, uid, moment))
            adds.append((activity.VITAL_SCAN, {"completed" if rng.random() < 0.85 else "failed": 1}, uid, moment))
        return adds
    # fall risk: created; started (on the creation day); completed: the cohort counter on the creation day, and
    # what a completion adds (by origin, level and age group) on the day it completed
    origin = rng.choice(("app", "app", "clinician", "partner"))
    adds = [(activity.FALL_RISK, {"created": 1, f"created_{origin}": 1}, uid, moment)]
    if rng.random() < 0.8:
        adds.append((activity.FALL_RISK, {"cohortStarted": 1, f"cohortStarted_{origin}": 1}, uid, moment))
        if rng.random() < 0.85:
            adds.append((activity.FALL_RISK, {"cohortCompleted": 1, f"cohortCompleted_{origin}": 1}, uid, moment))
            level = rng.choice((1, 1, 2, 2, 3, 4))
            result = {"origin": origin, "steps": {"tandemStance": {"tandemSeconds": rng.randint(0, 10)},
                                                  "singleLegStance": {"singleLegSeconds": rng.randint(0, 10)},
                                                  "tandemWalk": {"stepsCompleted": rng.randint(0, 10)}}}
            scoring = {"riskLevel": level, "urgentAttention": level == 4 and rng.random() < 0.5,
                       "ageGroup": world.age_groups[uid], "chairStand": {"score": rng.randint(0, 4)}}
            done = _moment(rng, now, max(0, days_ago - rng.randint(0, 2)))
            adds.append((activity.FALL_RISK, completion_activity(result, scoring), uid, max(done, moment)))
    return adds


def _seed(world: World, total: int) -> float:
    """Add events until the client has `total`; seconds it took (generating them and committing the batches)."""
    from wellness_api.core import activity, firebase, reach

    client_id = world.tenant.client_id
    now = dt.datetime.now(dt.UTC)
    started = time.perf_counter()
    adds = []
    while len(adds) < total - world.events:
        adds.extend(_action(world, now))
    adds = adds[:total - world.events]  # an action cut short still writes what its commits would have
    for rollup, *_ in adds:
        world.per_rollup[rollup.group] = world.per_rollup.get(rollup.group, 0) + 1

    def commit(chunk) -> None:
        batch = firebase.db().batch()
        for rollup, counts, uid, moment in chunk:
            rollup.add(client_id, counts, user=uid, moment=moment, within=batch)
        batch.commit()

    # A user's adds all go to one shard number (core.rollups: by HyperLogLog register), for the day and lifetime
    # alike; one worker per shard number, so no two batches in flight write the same document (the emulator
    # would make one wait for the other's lock, and give up after a while).
    per_shard: dict[int, list] = {}
    for add in adds:
        per_shard.setdefault(reach.register_of(client_id, add[2])[0] % add[0].counters.shards, []).append(add)

    def commit_shard(shard_adds) -> None:
        for i in range(0, len(shard_adds), BATCH_EVENTS):
            commit(shard_adds[i:i + BATCH_EVENTS])

    with concurrent.futures.ThreadPoolExecutor(SEED_WORKERS) as pool:
        list(pool.map(commit_shard, per_shard.values()))
    world.events = total
    elapsed = time.perf_counter() - started
    world.seconds += elapsed
    compacting = time.perf_counter()
    activity.compact_all()
    world.compaction_seconds += time.perf_counter() - compacting
    return elapsed


# ------------------------------------------------------------------------------------ measurements

ENDPOINTS = ("overview", "engagement-insights", "assessment-counts", "functional-tests")


def _cases() -> list[tuple[str, str, int | None]]:
    """(endpoint, label, days of the range)."""
    cases = [("overview", "overview", None)]
    for endpoint in ENDPOINTS[1:]:
        cases += [(endpoint, f"{endpoint} {f'{days} days' if days else 'no range'}", days) for days in RANGES]
    return cases


@dataclasses.dataclass
class Measured:
    reads: int  # documents + aggregation reads (billed)
    documents: int
    aggregation_queries: int
    seconds: float


def _url(client_id: str, endpoint: str, days: int | None) -> str:
    url = f"/api/client/{client_id}/analytics/{endpoint}"
    if days:
        today = dt.datetime.now(dt.UTC).date()
        url += f"?startDate={(today - dt.timedelta(days=days - 1)).isoformat()}&endDate={today.isoformat()}"
    return url


def _measure(http, world: World, endpoint: str, days: int | None) -> Measured:
    from support.firestore_ops import counting

    url, headers = _url(world.tenant.client_id, endpoint, days), world.tenant.admin.headers
    runs = []
    with _quiet():
        http.get(url, headers=headers)  # warm: the token's keys, connections
        for _ in range(RUNS):
            with counting() as ops:
                started = time.perf_counter()
                response = http.get(url, headers=headers)
                elapsed = time.perf_counter() - started
            assert response.status_code == 200, (url, response.status_code, response.json)
            runs.append(Measured(ops.reads + ops.aggregation_reads, ops.reads, ops.aggregation_queries, elapsed))
    reads = {run.reads for run in runs}
    assert len(reads) == 1, (url, reads)  # the same request reads the same documents every time
    return dataclasses.replace(runs[0], seconds=statistics.median(run.seconds for run in runs))


def _shard_documents(client_id: str, endpoint: str, days: int | None) -> tuple[int, int]:
    """(the rollup shard documents an endpoint's range covers, their bound: shards x days x modules)."""
    from google.cloud.firestore_v1.base_query import FieldFilter

    from wellness_api.analytics import models, service
    from wellness_api.core import activity
    from wellness_api.core.rollups import LIFETIME

    if endpoint == "overview":
        return 0, 0
    rollups = ([rollup for rollup, _ in service.ENGAGED.values()] if endpoint == "engagement-insights"
               else [activity.FALL_RISK])
    today = dt.datetime.now(dt.UTC).date()
    spans = []
    if days:
        spans.append(((today - dt.timedelta(days=days - 1)).isoformat(), today.isoformat(), days))
    else:
        spans.append((LIFETIME, LIFETIME, 1))
        if endpoint == "engagement-insights":  # dailyBreakdown: the last 30 days
            breakdown = models.LIFETIME_BREAKDOWN_DAYS
            spans.append(((today - dt.timedelta(days=breakdown - 1)).isoformat(), today.isoformat(), breakdown))
    found = bound = 0
    for rollup in rollups:
        for start, end, length in spans:
            query = (rollup.counters.shards_collection(client_id).where(filter=FieldFilter("day", ">=", start))
                     .where(filter=FieldFilter("day", "<=", end)))
            found += int(query.count().get()[0][0].value)
            bound += rollup.counters.shards * length
    return found, bound


def main() -> None:
    from wellness_api.analytics.routes import app

    http = app.test_client()
    with _quiet():
        world, setup_seconds = _setup()
    results: dict[int, dict[str, Measured]] = {}
    seeding = []
    for size in SIZES:
        seeding.append((size, _seed(world, size)))
        results[size] = {label: _measure(http, world, endpoint, days) for endpoint, label, days in _cases()}
    client_id = world.tenant.client_id
    first, last = SIZES[0], SIZES[-1]

    def size_name(size: int) -> str:
        return f"{size // 1000}k"

    print(f"\n== Analytics: reads and latency per request at {', '.join(size_name(s) for s in SIZES)} activity events "
          f"(one client, {PLAYERS + 1} linked players, events of {ACTIVE_USERS} users over the last {DAYS} days; "
          f"median of {RUNS})")
    print(f"setup (client, {PLAYERS} players in Auth and Firestore, their fall-risk outcomes): {setup_seconds:.1f} s; "
          "seeding: " + ", ".join(f"to {size_name(size)} {seconds:.1f} s" for size, seconds in seeding)
          + f" ({world.seconds:.1f} s, {2 * world.events / world.seconds:,.0f} document writes/s); compaction after "
          f"each: {world.compaction_seconds:.1f} s in all")
    print("events per rollup: " + ", ".join(f"{group} {count:,}" for group, count in world.per_rollup.items()))
    print("(events written with the rollup writer, core.activity.<ROLLUP>.add, in batches of "
          f"{BATCH_EVENTS} (2 documents each: the day's shard and the lifetime shard), not through each area's "
          "endpoint: 100,000 requests through the emulators would take hours, and that writer is exactly what the "
          "endpoints add to their commits.)")
    reads_head = " ".join(f"{'reads ' + size_name(s):>10}" for s in SIZES)
    ms_head = " ".join(f"{'ms ' + size_name(s):>8}" for s in SIZES)
    print(f"{'endpoint / range':<34} {reads_head} {'agg':>4} {ms_head} {'shard docs':>10} {'reads':>6} {'ms':>6}  goal")
    print(f"{'':<34} {' ' * (11 * len(SIZES) - 1)} {'':>4} {' ' * (9 * len(SIZES) - 1)} {'/ bound':>10} "
          f"{size_name(last) + '/' + size_name(first):>6} {size_name(last) + '/' + size_name(first):>6}")
    failures = []
    for endpoint, label, days in _cases():
        rows = [results[size][label] for size in SIZES]
        found, bound = _shard_documents(client_id, endpoint, days)
        reads_ratio = rows[-1].reads / rows[0].reads
        ms_ratio = rows[-1].seconds / rows[0].seconds
        verdict = "PASS" if reads_ratio <= READS_GOAL else "FAIL"
        if verdict == "FAIL":
            failures.append(label)
        shard_column = f"{found}/{bound}" if bound else "-"
        print(f"{label:<34} " + " ".join(f"{row.reads:>10}" for row in rows) + f" {rows[-1].aggregation_queries:>4} "
              + " ".join(f"{row.seconds * 1000:>8.1f}" for row in rows)
              + f" {shard_column:>10} {reads_ratio:>5.2f}x {ms_ratio:>5.2f}x  {verdict}")
    print(f"(reads: documents + aggregation reads; agg: the aggregation queries among them (count()/avg(), billed one "
          f"read per 1,000 index entries: one each here), which support/firestore_ops.counting() does not see and this "
          f"bench counts itself. shard docs / bound: the rollup documents the range holds at {size_name(last)} events, "
          f"against {SHARDS_NOTE}. goal: reads at {size_name(last)} within {READS_GOAL}x of {size_name(first)}.)")
    if failures:
        print(f"FAIL: {', '.join(failures)}")

    print(f"\n== Analytics: reads against the days of the range ({size_name(last)} events, on the last {DAYS} days)")
    print(f"{'endpoint':<22} {'days':>5} {'reads':>6} {'shard docs':>10} {'other':>6} {'shard docs/day':>14} "
          f"{'bound/day':>9} {'ms':>8}")
    for endpoint in ENDPOINTS[1:]:
        for days in RANGES[1:]:
            measured = results[last][f"{endpoint} {days} days"]
            found, bound = _shard_documents(client_id, endpoint, days)
            print(f"{endpoint:<22} {days:>5} {measured.reads:>6} {found:>10} {measured.reads - found:>6} "
                  f"{found / days:>14.1f} {bound / days:>9.0f} {measured.seconds * 1000:>8.1f}")
    print("(shard docs: the rollup documents of the range's days, one per day and module once compacted, at most 16 "
          "before (engagement: 4 modules, the others: fall risk); other: the client document, the linked players' "
          "count (an aggregation) "
          f"and, for assessment counts, the client's name. Only the last {DAYS} days have events, so a 366-day range "
          f"reads what the {DAYS}-day one does.)")


if __name__ == "__main__":
    import os
    import pathlib
    import sys

    # What bench/run.py sets up for `make bench`, without importing it (run.py imports this module).
    root = pathlib.Path(__file__).resolve().parents[1]
    sys.path[:0] = [str(root / "functions"), str(root)]
    os.environ.setdefault("CLIENT_JWT_SECRET", uuid.uuid4().hex * 2)
    main()
