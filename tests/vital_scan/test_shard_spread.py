"""Concurrent requests of one instance never race each other for a point or rate shard (vital_scan/spread.py).

Each thread is a request of the same process, as an instance with concurrency above 1 serves them. A take that
loses a compare-and-set backs off (repository's time.sleep) before it tries again: the `conflicts` fixture records
those, so "none" proves that no two takes of the instance collided, and the counts prove each point was spent
exactly once."""

import collections
import concurrent.futures
import threading
import types

import pytest

from support.vital_scan import make_partner, spent, stored_sessions
from tests.vital_scan.test_routes import BASE
from wellness_api.vital_scan import points, spread
from wellness_api.vital_scan import repository as repo
from wellness_api.vital_scan.routes import app


def parallel(n: int, call):
    start = threading.Barrier(n)

    def one(i):
        http = app.test_client()
        start.wait()
        return call(http, i)

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


@pytest.fixture
def conflicts(monkeypatch) -> list[float]:
    backoffs: list[float] = []
    monkeypatch.setattr(repo, "time", types.SimpleNamespace(sleep=backoffs.append))
    return backoffs


def test_as_many_creates_as_shards_spend_one_point_each_without_a_conflict(tenant, conflicts):
    # One point per shard, and 16 shards of the request rate (1000/min).
    partner = make_partner(tenant, points=points.SHARDS, rpm=1000)
    responses = parallel(points.SHARDS, lambda http, i: http.post(BASE, json={"userId": f"u{i}"},
                                                                   headers=partner.headers))
    assert [r.status_code for r in responses] == [201] * points.SHARDS, [r.json for r in responses]
    assert conflicts == []
    sessions = stored_sessions(partner.client_id)
    assert len(sessions) == points.SHARDS == spent(partner.client_id)
    assert sorted(s["pointShard"] for s in sessions) == list(range(points.SHARDS))
    assert spread.shards.in_flight() == 0


def test_more_creates_than_shards_spend_exactly_the_balance(tenant):
    partner = make_partner(tenant, points=40, rpm=1000)
    responses = parallel(48, lambda http, i: http.post(BASE, json={"userId": f"u{i}"}, headers=partner.headers))
    statuses = collections.Counter(r.status_code for r in responses)
    assert statuses == {201: 40, 402: 8}, statuses
    sessions = stored_sessions(partner.client_id)
    assert len(sessions) == 40 == spent(partner.client_id)
    per_shard = collections.Counter(s["pointShard"] for s in sessions)
    assert per_shard == {i: points.slice_of(40, i) for i in range(points.SHARDS)}
    assert spread.shards.in_flight() == 0


def test_parallel_partner_calls_take_rate_shards_without_a_conflict(tenant, conflicts):
    partner = make_partner(tenant, rpm=1000)  # 16 rate shards
    responses = parallel(16, lambda http, i: http.get(f"{BASE}/none-{i}", headers=partner.headers))
    assert [r.status_code for r in responses] == [404] * 16
    assert conflicts == []


# ------------------------------------------------------------------------------------ the picker alone


def test_picks_are_distinct_while_held_then_shared_when_all_are_busy(monkeypatch):
    monkeypatch.setattr(spread, "WAIT_S", 0.01)
    spreader = spread.Spreader()
    paths = {i: f"docs/{i}" for i in range(4)}
    with spreader.pick(paths, [0, 1, 2, 3]) as a, spreader.pick(paths, [0, 1, 2, 3]) as b, \
            spreader.pick(paths, [0, 1, 2, 3]) as c, spreader.pick(paths, [0, 1, 2, 3]) as d:
        assert sorted((a, b, c, d)) == [0, 1, 2, 3]
        with spreader.pick(paths, [0, 1]) as shared:  # every candidate busy: after the wait, one is shared
            assert shared in (0, 1)
            assert spreader.in_flight() == 5
    assert spreader.in_flight() == 0


def test_a_waiting_pick_takes_the_shard_that_comes_free(monkeypatch):
    monkeypatch.setattr(spread, "WAIT_S", 30)
    spreader = spread.Spreader()
    paths = {0: "docs/0", 1: "docs/1"}
    got, entered = [], threading.Event()
    with spreader.pick(paths, [0, 1]) as first, spreader.pick(paths, [0, 1]):
        def waiter():
            entered.set()
            with spreader.pick(paths, [first]) as shard:
                got.append(shard)

        thread = threading.Thread(target=waiter)
        thread.start()
        entered.wait()
        assert got == []  # it waits for a shard to come free instead of sharing one
    thread.join()
    assert got == [first]
    assert spreader.in_flight() == 0
