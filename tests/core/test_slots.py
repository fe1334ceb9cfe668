"""core.slots on the Firestore emulator: a limit's slots are taken up to the limit and no further, even by many
threads at once; a lease given back frees its slot, and so does a lease that runs out (a crashed holder)."""

import concurrent.futures
import datetime as dt
import threading
import uuid

import pytest

from wellness_api.core import clock, slots


def fresh(limit: int, scope: str = "test") -> slots.Limit:
    return slots.Limit(scope, uuid.uuid4().hex, limit)


def test_slots_are_taken_up_to_the_limit_and_freed_by_release():
    limit = fresh(2)
    first = slots.acquire([limit], 60)
    second = slots.acquire([limit], 60)
    with pytest.raises(slots.Full) as caught:
        slots.acquire([limit], 60)
    assert caught.value.limit == limit
    assert slots.held(limit) == 2
    first.release()
    first.release()  # a second release changes nothing
    assert slots.held(limit) == 1
    third = slots.acquire([limit], 60)
    second.release()
    third.release()
    assert slots.held(limit) == 0


def test_a_lease_that_is_never_released_frees_its_slot_at_its_expiry():
    limit = fresh(1)
    slots.acquire([limit], 30)  # its holder "crashed": no release
    with pytest.raises(slots.Full):
        slots.acquire([limit], 30)
    clock.advance(dt.timedelta(seconds=31))
    slots.acquire([limit], 30).release()


def test_a_request_holds_every_limit_or_none():
    user, client = fresh(1, "user"), fresh(5, "client")
    held = slots.acquire([user, client], 60)
    with pytest.raises(slots.Full) as caught:
        slots.acquire([user, client], 60)
    assert caught.value.limit == user
    assert slots.held(client) == 1  # the refused request took no client slot
    held.release()
    assert (slots.held(user), slots.held(client)) == (0, 0)


def _attempt(limits: list[slots.Limit]) -> slots.Lease | None:
    try:
        return slots.acquire(limits, 60)
    except slots.Full:
        return None


def test_concurrent_requests_never_hold_more_than_the_limit():
    limit = fresh(3)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        leases = list(pool.map(lambda _: _attempt([limit]), range(12)))
    taken = [lease for lease in leases if lease is not None]
    # Racers may all refuse (each saw the others' leases); none ever holds a slot beyond the limit.
    assert len(taken) <= 3
    assert slots.held(limit) == len(taken)
    for lease in taken:
        lease.release()
    assert slots.held(limit) == 0
    assert _attempt([limit]) is not None  # the race over, a slot is there for the next request


def test_twelve_requests_of_one_client_at_once_all_get_a_slot():
    """The old design (one document per key, taken in a transaction) answered them with lock timeouts on the
    emulator; fewer racers than the limit are never refused."""
    client = fresh(20, "client")
    with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
        leases = list(pool.map(lambda _: _attempt([fresh(2, "user"), client]), range(12)))
    assert all(lease is not None for lease in leases)
    assert slots.held(client) == 12
    for lease in leases:
        lease.release()
    assert slots.held(client) == 0


def test_racers_that_all_see_too_many_all_give_back(monkeypatch):
    """Every racer creates its lease before any counts, and counts before any gives back: each sees four leases
    against a limit of three, and all four give back rather than one holding a fourth slot."""
    limit = fresh(3)
    racers = 4
    created, counted = threading.Barrier(racers, timeout=60), threading.Barrier(racers, timeout=60)
    count = slots._live

    def count_once_all_created(limit, now):
        created.wait()
        seen = count(limit, now)
        counted.wait()
        return seen

    monkeypatch.setattr(slots, "_live", count_once_all_created)
    with concurrent.futures.ThreadPoolExecutor(max_workers=racers) as pool:
        leases = list(pool.map(lambda _: _attempt([limit]), range(racers)))
    monkeypatch.setattr(slots, "_live", count)
    assert leases == [None] * racers
    assert slots.held(limit) == 0


def test_a_lease_is_a_document_of_its_own_with_nothing_but_its_expiry():
    user, client = fresh(2, "user"), fresh(20, "client")
    lease = slots.acquire([user, client], 60)
    for limit in (user, client):
        (doc,) = list(limit.leases().stream())
        assert doc.id == lease.lease_id and set(doc.to_dict()) == {"expiresAt"}
    lease.release()
    assert list(client.leases().stream()) == []
