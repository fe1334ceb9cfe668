"""core.slots on the Firestore emulator: a limit's slots are taken up to the limit and no further, even by many
threads at once; a lease given back frees its slot, and so does a lease that runs out (a crashed holder)."""

import concurrent.futures
import datetime as dt
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


def test_concurrent_requests_never_hold_more_than_the_limit():
    limit = fresh(3)

    def attempt(_):
        try:
            return slots.acquire([limit], 60)
        except slots.Full:
            return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        leases = list(pool.map(attempt, range(12)))
    taken = [lease for lease in leases if lease is not None]
    assert len(taken) == 3
    assert slots.held(limit) == 3
    for lease in taken:
        lease.release()
    assert slots.held(limit) == 0
