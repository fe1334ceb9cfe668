"""The month's budget ledger over shards (assistant/repository.py LEDGER_SHARDS): reservations spread their writes
over several documents, the total is their sum, and concurrent reservations overshoot the budget by at most one
estimate, as with one document."""

import concurrent.futures
import threading

from wellness_api.assistant import metering
from wellness_api.assistant import repository as repo
from wellness_api.core import clock, tenancy

ESTIMATE = 100


def _client(tenant, budget: int):
    tenant.configure(f"wellnessChat.monthlyTokenBudget={budget}")
    return tenancy.get_client(tenant.client_id)


def _reserve_at_once(client, n: int) -> list[metering.Reservation | None]:
    start = threading.Barrier(n)

    def one(_):
        reservation = metering.Reservation(client)
        start.wait()
        return reservation if reservation.add(ESTIMATE) else None

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


def _shard_tokens(client_id: str) -> dict[str, int]:
    month = repo.month_of(clock.now())
    return {snap.id: snap.get("tokens") for snap in repo.firebase.db().get_all(repo.ledger_refs(client_id, month))
            if snap.exists}


def test_concurrent_reservations_overshoot_the_budget_by_at_most_one_estimate(tenant):
    client = _client(tenant, 1000)
    outcomes = _reserve_at_once(client, 40)
    admitted = [r for r in outcomes if r is not None]
    # Admitted only while the total before it was under 1000: at most 1000 - 1 + one estimate reserved.
    assert 1 <= len(admitted) <= 10
    assert len(admitted) * ESTIMATE < 1000 + ESTIMATE
    # The refused gave theirs back: the ledger holds exactly the admitted reservations, over several shards.
    month = repo.month_of(clock.now())
    assert repo.ledger_tokens(tenant.client_id, month) == len(admitted) * ESTIMATE
    for reservation in admitted:
        reservation.settle(30)
    assert repo.ledger_tokens(tenant.client_id, month) == len(admitted) * 30
    assert metering.Reservation(client).add(ESTIMATE)  # 300 of 1000 used: room again


def test_reservations_spread_their_writes_over_the_shards_and_the_total_is_their_sum(tenant):
    client = _client(tenant, 10_000_000)
    outcomes = _reserve_at_once(client, 32)
    assert all(outcomes)
    shards = _shard_tokens(tenant.client_id)
    assert len(shards) > 1, "every reservation wrote one document"
    assert sum(shards.values()) == 32 * ESTIMATE == repo.ledger_tokens(tenant.client_id, repo.month_of(clock.now()))
    assert all(name.rsplit("_", 1)[1].isdigit() for name in shards)


def test_a_reservation_and_its_settlement_stay_on_one_shard(tenant):
    client = _client(tenant, 1000)
    reservation = metering.Reservation(client)
    assert reservation.add(ESTIMATE) and reservation.add(ESTIMATE)  # a chat turn reserves each model answer
    reservation.settle(150)
    assert _shard_tokens(tenant.client_id) == {f"{repo.month_of(clock.now())}_budget_{reservation.shard:02d}": 150}


def test_the_ledger_before_it_was_sharded_still_counts(tenant):
    client = _client(tenant, 1000)
    month = repo.month_of(clock.now())
    repo.ledger_refs(tenant.client_id, month)[0].set({"month": month, "tokens": 1000})  # the old one document
    assert repo.ledger_tokens(tenant.client_id, month) == 1000
    assert not metering.Reservation(client).add(ESTIMATE)
    assert repo.ledger_tokens(tenant.client_id, month) == 1000
