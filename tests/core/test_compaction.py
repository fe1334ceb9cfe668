"""core/rollups.py compaction: a day's shards folded into one document, nothing lost or counted twice.

Each test counts in a collection of its own (as tests/core/test_rollups.py does), so `pending()`, a
collection-group query, sees only its documents.
"""

import concurrent.futures
import datetime as dt
import uuid

import pytest

from tests.core.test_rollups import EVERY_DAY, GROUP, assert_sketch_of, days_ago, shard_docs
from wellness_api.core import activity, clock, reach
from wellness_api.core.rollups import ALL, LIFETIME, DailyCounters, day_of
from wellness_api.ops import cli


@pytest.fixture
def client_id() -> str:
    return f"c-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def counters(emulators) -> DailyCounters:
    return DailyCounters(f"testCompacted{uuid.uuid4().hex[:12]}", lifetime=True, compacted=True)


def compact(counters: DailyCounters) -> int:
    pending = counters.pending(500)
    for (client, day), refs in pending.items():
        counters.compact(client, day, refs)
    return sum(len(refs) for refs in pending.values())


def snapshot(counters: DailyCounters, client_id: str) -> tuple[dict, dict, int]:
    days = counters.days(client_id, *EVERY_DAY)
    everything = counters.all_time(client_id)
    return ({day: totals.counts for day, totals in days.items()},
            {day: totals.active_users(GROUP) for day, totals in days.items()},
            everything.active_users(GROUP))


def fill(counters: DailyCounters, client_id: str, users: int = 40) -> None:
    for n in range(users):
        for days in (0, 1, 5):
            counters.add(client_id, GROUP, {"plays": 1, "completedPlays": n % 2}, user=f"user-{n}",
                         moment=days_ago(days))


def test_compaction_keeps_every_total_and_sketch_and_leaves_one_document_a_day(counters, client_id):
    fill(counters, client_id)
    before = snapshot(counters, client_id)
    for d in (0, 1, 5):
        day = day_of(days_ago(d))
        assert_sketch_of(counters.days(client_id, day, day)[day], client_id, [f"user-{n}" for n in range(40)])
    folded = compact(counters)
    assert folded > 3  # 40 users spread over the shards of each day
    assert snapshot(counters, client_id) == before
    docs = shard_docs(counters, client_id)
    day_docs = sorted(doc_id for doc_id in docs if not doc_id.startswith(LIFETIME))
    assert day_docs == sorted(f"{day_of(days_ago(d))}_{ALL}" for d in (0, 1, 5))
    assert all("pending" not in docs[doc_id] for doc_id in day_docs)
    # the lifetime shards are never pending: every write goes there, and they are read whole anyway
    assert all(not doc.get("pending") for doc_id, doc in docs.items() if doc_id.startswith(LIFETIME))
    assert compact(counters) == 0  # nothing left to fold


def test_writes_after_a_compaction_are_read_and_folded_in_later(counters, client_id):
    fill(counters, client_id, users=10)
    compact(counters)
    yesterday = day_of(days_ago(1))
    counters.add(client_id, GROUP, {"plays": 5}, user="late-user", moment=days_ago(1))  # a late event
    counters.add(client_id, GROUP, {"plays": 1}, user="user-0", moment=days_ago(1))  # someone already counted
    totals = counters.days(client_id, yesterday, yesterday)[yesterday]
    assert (totals.count(GROUP, "plays"), totals.active_users(GROUP)) == (16, 11)
    # A user's shard follows their sketch register: the two writes share one in 1 client id of 16.
    written = {reach.register_of(client_id, user)[0] % counters.shards for user in ("late-user", "user-0")}
    assert compact(counters) == len(written)
    again = counters.days(client_id, yesterday, yesterday)[yesterday]
    assert (again.count(GROUP, "plays"), again.active_users(GROUP)) == (16, 11)
    assert [doc_id for doc_id in shard_docs(counters, client_id) if doc_id.startswith(yesterday)] == [
        f"{yesterday}_{ALL}"]


def test_writes_racing_a_compaction_are_neither_lost_nor_counted_twice(counters, client_id):
    day = day_of()
    adds = 120

    def write(n: int) -> None:
        counters.add(client_id, GROUP, {"plays": 1}, user=f"racer-{n % 30}")

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(write, n) for n in range(adds)]
        for _ in range(4):
            compact(counters)
        for future in futures:
            future.result()
    compact(counters)
    totals = counters.days(client_id, day, day)[day]
    assert totals.count(GROUP, "plays") == adds
    assert_sketch_of(totals, client_id, [f"racer-{n}" for n in range(30)])
    assert counters.all_time(client_id).count(GROUP, "plays") == adds


def test_a_compaction_of_shards_already_folded_changes_nothing(counters, client_id):
    fill(counters, client_id, users=6)
    pending = counters.pending(500)
    before = snapshot(counters, client_id)
    for (client, day), refs in pending.items():
        counters.compact(client, day, refs)
        counters.compact(client, day, refs)  # a retried run: the shards are gone, the totals stay
    assert snapshot(counters, client_id) == before


def test_the_activity_rollups_compact_and_the_cli_runs_it(emulators, client_id, capsys):
    with clock.shifted(dt.timedelta(days=-2)):
        activity.LESSONS.add(client_id, {"plays": 2, "completedPlays": 1}, user="cli-user")
    assert cli.main(["analytics", "compact"]) == 0
    out = capsys.readouterr().out
    assert '"folded"' in out
    day = day_of(days_ago(2))
    docs = {snap.id for snap in activity.LESSONS.counters.shards_collection(client_id).stream()}
    assert f"{day}_{ALL}" in docs and not any(d.startswith(day) and not d.endswith(ALL) for d in docs)
    assert activity.LESSONS.daily(client_id, day, day) == {day: {"plays": 2, "completedPlays": 1}}
    assert reach.estimate(activity.LESSONS.counters.days(client_id, day, day)[day].reach["lessons"]) == 1
