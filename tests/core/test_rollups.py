"""core/rollups.py against the Firestore emulator: sharded per-day counters with a lifetime bucket and the day's
sketch of active users (core/reach), read per client or for every client at once.

Each test counts in a collection of its own, so the reads for every client (a collection-group query) see only its
documents; client ids need no client record (the counters are a subcollection of its path).
"""

import datetime as dt
import uuid

import pytest
from google.cloud import firestore

from tests.core.test_reach import sketch
from wellness_api.core import clock, firebase, reach
from wellness_api.core.rollups import LIFETIME, DailyCounters, Totals, day_of

GROUP = "lessons"
EVERY_DAY = ("0000-01-01", "9999-12-31")


def new_counters(lifetime: bool = True) -> DailyCounters:
    return DailyCounters(f"testActivity{uuid.uuid4().hex[:12]}", lifetime=lifetime)


@pytest.fixture
def counters(emulators) -> DailyCounters:
    return new_counters()


@pytest.fixture
def client_id() -> str:
    return f"c-{uuid.uuid4().hex[:12]}"


def shard_docs(counters: DailyCounters, client_id: str) -> dict[str, dict]:
    return {snap.id: snap.to_dict() for snap in counters.shards_collection(client_id).stream()}


def assert_sketch_of(totals: Totals, client_id: str, users: list[str]) -> None:
    """The stored sketch is exactly the one of `users`: none lost, none added. Its estimate is compared with the
    sketch's own, not with len(users): of 30 users, two share one of the 2^14 registers in about 3% of client ids."""
    expected = sketch(client_id, users)
    assert totals.reach[GROUP] == expected
    assert totals.active_users(GROUP) == reach.estimate(expected)


def days_ago(days: int) -> dt.datetime:
    return clock.now() - dt.timedelta(days=days)


# ------------------------------------------------------------------------------------ add


def test_an_add_without_a_user_increments_one_shard_of_the_day(client_id):
    counters = new_counters(lifetime=False)
    for _ in range(12):
        counters.add(client_id, GROUP, {"plays": 1, "completedPlays": 0})
    counters.add(client_id, GROUP, {"durationSeconds": 1.5})
    today = day_of()
    docs = shard_docs(counters, client_id)
    assert 1 <= len(docs) <= counters.shards
    for doc_id, doc in docs.items():
        assert doc_id == f"{today}_{doc['shard']:02d}" and 0 <= doc["shard"] < counters.shards
        assert doc["clientId"] == client_id and doc["day"] == today
        assert "reach" not in doc  # nobody named: no sketch
    assert sum(doc["counts"][GROUP].get("plays", 0) for doc in docs.values()) == 12
    totals = counters.days(client_id, today, today)[today]
    assert totals.counts == {GROUP: {"plays": 12, "completedPlays": 0, "durationSeconds": 1.5}}
    assert totals.reach == {} and totals.active_users(GROUP) == 0


def test_an_add_with_a_user_writes_the_shard_of_their_register(counters, client_id):
    index, rank = reach.register_of(client_id, "uid-1")
    for _ in range(3):
        counters.add(client_id, GROUP, {"plays": 1}, user="uid-1")
    today = day_of()
    shard = index % counters.shards
    docs = shard_docs(counters, client_id)
    # The same shard every time: the day's and the lifetime bucket's, nothing else.
    assert set(docs) == {f"{today}_{shard:02d}", f"{LIFETIME}_{shard:02d}"}
    for doc in docs.values():
        assert doc["shard"] == shard
        assert doc["counts"] == {GROUP: {"plays": 3}}
        assert doc["reach"] == {GROUP: {str(index): rank}}
    assert docs[f"{LIFETIME}_{shard:02d}"]["day"] == LIFETIME


def test_users_spread_over_the_shards_and_each_shard_holds_their_registers(counters, client_id):
    people = [f"member-{n}" for n in range(60)]
    for person in people:
        counters.add(client_id, GROUP, {"plays": 1}, user=person)
    today = day_of()
    docs = {doc_id: doc for doc_id, doc in shard_docs(counters, client_id).items() if doc_id.startswith(today)}
    assert len(docs) > counters.shards // 2
    for doc in docs.values():
        for key in doc["reach"][GROUP]:
            assert int(key) % counters.shards == doc["shard"]
    totals = counters.days(client_id, today, today)[today]
    assert totals.count(GROUP, "plays") == 60
    assert_sketch_of(totals, client_id, people)


def test_a_retried_add_sets_the_sketch_once_but_adds_the_counts_again(counters, client_id):
    """Maximum is idempotent, Increment is not: a caller that may retry must make its counts exactly-once itself
    (the areas add in the same transaction or batch as the change they count)."""
    index, rank = reach.register_of(client_id, "uid-1")
    for _ in range(2):
        counters.add(client_id, GROUP, {"plays": 1}, user="uid-1")
    today = day_of()
    (doc,) = [doc for doc in shard_docs(counters, client_id).values() if doc["day"] == today]
    assert doc["reach"][GROUP] == {str(index): rank}
    totals = counters.days(client_id, today, today)[today]
    assert totals.count(GROUP, "plays") == 2
    assert totals.active_users(GROUP) == 1


def test_a_register_keeps_the_largest_rank_whatever_the_order(counters, client_id):
    """Two users who share a register: the stored rank is the larger of theirs, in either order (Maximum)."""
    by_index: dict[int, list[tuple[int, str]]] = {}
    for n in range(5_000):
        index, rank = reach.register_of(client_id, f"u{n}")
        by_index.setdefault(index, []).append((rank, f"u{n}"))
    index, pair = next((i, sorted(p)) for i, p in by_index.items() if len(p) == 2 and p[0][0] != p[1][0])
    (_, low_user), (high, high_user) = pair
    shard = index % counters.shards
    other = new_counters()
    counters.add(client_id, GROUP, {"plays": 1}, user=low_user)
    counters.add(client_id, GROUP, {"plays": 1}, user=high_user)
    other.add(client_id, GROUP, {"plays": 1}, user=high_user)
    other.add(client_id, GROUP, {"plays": 1}, user=low_user)
    for rollup in (counters, other):
        doc = rollup.shard_ref(client_id, day_of(), shard).get().to_dict()
        assert doc["reach"][GROUP] == {str(index): high}


def test_the_lifetime_bucket_is_kept_only_when_asked(client_id):
    daily_only = new_counters(lifetime=False)
    daily_only.add(client_id, GROUP, {"plays": 1}, user="uid-1")
    assert [doc["day"] for doc in shard_docs(daily_only, client_id).values()] == [day_of()]
    assert daily_only.all_time(client_id) == Totals()


def test_days_are_separate_and_the_lifetime_bucket_sums_them(counters, client_id):
    counters.add(client_id, GROUP, {"plays": 2}, user="ann", moment=days_ago(2))
    counters.add(client_id, GROUP, {"plays": 1, "completedPlays": 1}, user="bob", moment=days_ago(2))
    counters.add(client_id, GROUP, {"plays": 1}, user="ann")
    first, today = day_of(days_ago(2)), day_of()
    days = counters.days(client_id, first, today)
    assert list(days) == [first, today]  # sorted, only the days that had activity
    assert days[first].counts == {GROUP: {"plays": 3, "completedPlays": 1}}
    assert days[first].active_users(GROUP) == 2
    assert days[today].counts == {GROUP: {"plays": 1}} and days[today].active_users(GROUP) == 1
    lifetime = counters.all_time(client_id)
    assert lifetime.counts == {GROUP: {"plays": 4, "completedPlays": 1}}
    assert lifetime.active_users(GROUP) == 2  # ann on two days is one user
    assert set(counters.days(client_id, today, today)) == {today}
    assert counters.days(client_id, "2000-01-01", "2000-12-31") == {}


def test_no_day_range_takes_in_the_lifetime_bucket(counters, client_id):
    counters.add(client_id, GROUP, {"plays": 1}, user="ann")
    assert LIFETIME > "9999-12-31"  # it sorts after every YYYY-MM-DD
    assert list(counters.days(client_id, *EVERY_DAY)) == [day_of()]
    assert {doc["day"] for doc in counters.documents(client_id, *EVERY_DAY)} == {day_of()}
    assert {doc["day"] for doc in counters.documents(client_id, LIFETIME, LIFETIME)} == {LIFETIME}
    assert list(counters.daily(client_id, *EVERY_DAY)) == [day_of()]


def test_a_moment_counts_on_its_utc_day(counters, client_id):
    late_evening_in_new_york = dt.datetime(2031, 3, 4, 21, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert day_of(late_evening_in_new_york) == "2031-03-05"
    counters.add(client_id, GROUP, {"plays": 1}, moment=late_evening_in_new_york)
    assert list(counters.days(client_id, "2031-03-01", "2031-03-31")) == ["2031-03-05"]


def test_writes_within_a_batch_land_with_its_commit(counters, client_id):
    batch = firebase.db().batch()
    counters.add(client_id, GROUP, {"plays": 1}, user="ann", within=batch)
    counters.add(client_id, GROUP, {"plays": 1}, user="bob", within=batch)
    assert shard_docs(counters, client_id) == {}
    batch.commit()
    totals = counters.all_time(client_id)
    assert totals.count(GROUP, "plays") == 2 and totals.active_users(GROUP) == 2


def test_writes_within_a_transaction_land_with_its_commit(counters, client_id):
    @firestore.transactional
    def body(transaction):
        counters.add(client_id, GROUP, {"plays": 1}, user="ann", within=transaction)

    body(firebase.db().transaction())
    assert counters.days(client_id, day_of(), day_of())[day_of()].count(GROUP, "plays") == 1


# ------------------------------------------------------------------------------------ one client, every client


def test_reads_for_one_client_or_for_every_client(counters, client_id):
    other = f"c-{uuid.uuid4().hex[:12]}"
    counters.add(client_id, GROUP, {"plays": 2}, user="uid-1")
    counters.add(client_id, GROUP, {"plays": 1}, user="uid-2", moment=days_ago(1))
    counters.add(other, GROUP, {"plays": 5}, user="uid-1")  # the same uid in another client: another user
    counters.add(other, "aiMove", {"reps": 30}, user="uid-9")
    yesterday, today = day_of(days_ago(1)), day_of()

    mine = list(counters.documents(client_id, yesterday, today))
    assert {doc["clientId"] for doc in mine} == {client_id}
    everyone = list(counters.documents(None, yesterday, today))
    assert {doc["clientId"] for doc in everyone} == {client_id, other}
    assert len(everyone) == len(mine) + len(list(counters.documents(other, yesterday, today)))

    assert counters.days(client_id, yesterday, today)[today].count(GROUP, "plays") == 2
    days = counters.days(None, yesterday, today)
    assert days[yesterday].counts == {GROUP: {"plays": 1}}
    assert days[today].counts == {GROUP: {"plays": 7}, "aiMove": {"reps": 30}}
    assert days[today].active_users(GROUP) == 2 and days[today].active_users("aiMove") == 1

    assert counters.all_time(client_id).counts == {GROUP: {"plays": 3}}
    assert counters.all_time(client_id).active_users(GROUP) == 2
    everything = counters.all_time(None)
    assert everything.counts == {GROUP: {"plays": 8}, "aiMove": {"reps": 30}}
    assert everything.active_users(GROUP) == 3  # uid-1 of each client, uid-2


def test_a_client_reads_none_of_another_clients_counters(counters, client_id):
    counters.add(f"c-{uuid.uuid4().hex[:12]}", GROUP, {"plays": 1}, user="uid-1")
    assert counters.days(client_id, *EVERY_DAY) == {}
    assert counters.all_time(client_id) == Totals()
    assert list(counters.documents(client_id, LIFETIME, LIFETIME)) == []


# ------------------------------------------------------------------------------------ Totals and daily


def test_totals_merge_adds_counts_and_unions_sketches():
    ann, bob, cy = (reach.register_of("c", user) for user in ("ann", "bob", "cy"))
    monday = Totals()
    monday.add_shard({"counts": {GROUP: {"plays": 2, "completedPlays": 1}},
                      "reach": {GROUP: {str(ann[0]): ann[1], str(bob[0]): bob[1]}}})
    tuesday = Totals()
    tuesday.add_shard({"counts": {GROUP: {"plays": 1}, "aiMove": {"reps": 12.5}},
                       "reach": {GROUP: {str(bob[0]): bob[1], str(cy[0]): cy[1]}, "aiMove": {str(ann[0]): ann[1]}}})
    tuesday_before = (dict(tuesday.counts), dict(tuesday.reach))
    week = Totals().merge(monday)
    assert week.merge(tuesday) is week
    assert week.counts == {GROUP: {"plays": 3, "completedPlays": 1}, "aiMove": {"reps": 12.5}}
    assert week.active_users(GROUP) == 3 and week.active_users("aiMove") == 1
    assert week.count(GROUP, "plays") == 3 and week.count(GROUP, "missing") == 0 and week.count("nothing", "x") == 0
    assert week.active_users("nothing") == 0
    assert (tuesday.counts, tuesday.reach) == tuesday_before  # the merged-in totals are not changed
    assert monday.active_users(GROUP) == 2


def test_totals_add_shard_takes_empty_and_partial_documents():
    totals = Totals()
    totals.add_shard({})
    totals.add_shard({"counts": None, "reach": None})
    totals.add_shard({"counts": {GROUP: None}, "reach": {GROUP: None}})
    assert totals.count(GROUP, "plays") == 0 and totals.active_users(GROUP) == 0


def test_daily_keeps_its_shape_for_the_old_callers(counters, client_id):
    counters.add(client_id, GROUP, {"plays": 1}, user="ann", moment=days_ago(1))
    counters.add(client_id, GROUP, {"plays": 2})
    counters.add(client_id, "aiMove", {"reps": 7})
    yesterday, today = day_of(days_ago(1)), day_of()
    assert counters.daily(client_id, yesterday, today) == {
        yesterday: {GROUP: {"plays": 1}},
        today: {GROUP: {"plays": 2}, "aiMove": {"reps": 7}},
    }
    assert counters.daily(client_id, "2000-01-01", "2000-01-02") == {}


# ------------------------------------------------------------------------------------ names


@pytest.mark.parametrize(("group", "name"), [
    ("", "plays"), ("lessons", ""), ("a.b", "plays"), ("lessons", "x y"), ("lessons", "a.b"), ("1lessons", "plays"),
    ("lessons", "_plays"), ("lessons", "p" * 41), ("g" * 41, "plays"), ("lessons", "plays`"), ("lessons", "é"),
])
def test_invalid_counter_names_are_refused_and_nothing_is_written(counters, client_id, group, name):
    with pytest.raises(ValueError, match="invalid counter name"):
        counters.add(client_id, group, {"plays": 1, name: 1}, user="ann")
    assert shard_docs(counters, client_id) == {}


def test_names_at_their_limits_are_taken(counters, client_id):
    counters.add(client_id, "g" * 40, {"p" * 40: 1, "a": 1, "age70to79_results": 1, "riskLevel1": 1})
    assert counters.all_time(client_id).counts == {"g" * 40: {"p" * 40: 1, "a": 1, "age70to79_results": 1,
                                                              "riskLevel1": 1}}
