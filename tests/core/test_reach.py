"""core/reach.py, the HyperLogLog sketch of active users: pure logic, no emulator.

The root conftest needs the emulator variables set; with any values (nothing here connects) this module runs alone:
    FIRESTORE_EMULATOR_HOST=x FIREBASE_AUTH_EMULATOR_HOST=x functions/venv/bin/python -m pytest tests/core/test_reach.py
"""

import functools
import random

import pytest

from wellness_api.core import reach
from wellness_api.core.reach import PRECISION, REGISTERS


@pytest.fixture(scope="session")
def emulators():
    """Nothing here touches the emulators: the suite's reset of them is not needed (it runs for the tests that do)."""
    yield


def sketch(scope: str, users) -> dict[int, int]:
    """The sketch of `users` as DailyCounters builds it: one Maximum per user on its register."""
    registers: dict[int, int] = {}
    for user in users:
        index, rank = reach.register_of(scope, user)
        registers[index] = max(registers.get(index, 0), rank)
    return registers


def stored(registers: dict[int, int]) -> dict[str, int]:
    """A sketch as Firestore holds it: register indexes are map keys, so strings."""
    return {str(index): rank for index, rank in registers.items()}


def users(first: int, last: int) -> list[str]:
    return [f"user-{n}" for n in range(first, last)]


@functools.cache
def big(count: int) -> dict[int, int]:
    return sketch("client-a", users(0, count))


# ------------------------------------------------------------------------------------ registers


def test_register_of_is_deterministic_and_in_range():
    for user in users(0, 500):
        index, rank = reach.register_of("client-a", user)
        assert (index, rank) == reach.register_of("client-a", user)
        assert 0 <= index < REGISTERS
        assert 1 <= rank <= 64 - PRECISION + 1


def test_ranks_follow_a_geometric_law():
    """About half the users have rank 1, a quarter rank 2: what the estimate's harmonic mean assumes."""
    ranks = [reach.register_of("client-a", user)[1] for user in users(0, 20_000)]
    assert 0.47 < ranks.count(1) / len(ranks) < 0.53
    assert 0.22 < ranks.count(2) / len(ranks) < 0.28


def test_the_same_uid_in_two_scopes_is_two_users():
    for user in users(0, 200):
        assert reach.register_of("client-a", user) != reach.register_of("client-b", user)
    both = reach.union([sketch("client-a", users(0, 50)), sketch("client-b", users(0, 50))])
    assert reach.estimate(both) == 100


def test_scope_and_user_do_not_run_together():
    # "ab" + "c" and "a" + "bc" would be the same text without the separator between them.
    assert reach.register_of("ab", "c") != reach.register_of("a", "bc")
    assert reach.register_of("client", "") != reach.register_of("", "client")


# ------------------------------------------------------------------------------------ merge and union


def test_merge_keeps_the_larger_rank_of_each_register_and_updates_into():
    into = {1: 3, 2: 5}
    merged = reach.merge(into, {"1": 7, "2": 1, "9": 2})
    assert merged is into
    assert into == {1: 7, 2: 5, 9: 2}
    assert all(isinstance(key, int) for key in into)  # stored (string) keys become register indexes


def test_merge_is_idempotent():
    a = big(2_000)
    assert reach.merge(dict(a), stored(a)) == a
    assert reach.merge(reach.merge(dict(a), a), a) == a


def test_union_is_commutative_and_associative():
    a, b, c = (sketch("client-a", users(start, start + 700)) for start in (0, 500, 1_000))
    assert reach.union([a, b]) == reach.union([b, a])
    assert reach.union([reach.union([a, b]), c]) == reach.union([a, reach.union([b, c])]) == reach.union([c, b, a])
    assert reach.union([a, a, b, b]) == reach.union([a, b])
    assert reach.union([stored(a), b]) == reach.union([a, b])  # stored and in-memory sketches mix
    assert reach.union([]) == {}


def test_union_does_not_change_its_inputs():
    a, b = sketch("client-a", users(0, 100)), sketch("client-a", users(50, 150))
    before = (dict(a), dict(b))
    reach.union([a, b])
    assert (a, b) == before


def test_a_users_sketch_does_not_depend_on_the_order_they_are_seen():
    seen = users(0, 3_000) * 2
    shuffled = list(seen)
    random.Random(7).shuffle(shuffled)
    assert sketch("client-a", seen) == sketch("client-a", shuffled) == big(3_000)


# ------------------------------------------------------------------------------------ estimate


@pytest.mark.parametrize("count", [0, 1, 2, 10, 100])
def test_small_counts_are_exact(count):
    registers = sketch("client-a", users(0, count))
    # These users happen to set distinct registers (none shares one), where linear counting is exact.
    assert len(registers) == count
    assert reach.estimate(registers) == count


def test_a_user_seen_many_times_counts_once():
    assert reach.estimate(sketch("client-a", ["user-1"] * 1_000)) == 1
    assert reach.estimate(sketch("client-a", users(0, 10) * 50)) == 10


@pytest.mark.parametrize("count", [10_000, 100_000])
def test_large_counts_are_within_3_percent(count):
    estimate = reach.estimate(big(count))
    assert abs(estimate - count) <= 0.03 * count, estimate


def test_estimates_grow_with_the_population():
    assert reach.estimate(big(1_000)) < reach.estimate(big(10_000)) < reach.estimate(big(100_000))


def test_a_full_sketch_uses_the_harmonic_mean():
    """No empty register left: the raw HyperLogLog estimate, alpha * m^2 / sum(2^-rank)."""
    full = {index: 1 for index in range(REGISTERS)}
    assert reach.estimate(full) == round(reach._ALPHA * REGISTERS * 2)


def test_the_union_of_overlapping_days_counts_the_overlap_once():
    monday, tuesday = sketch("client-a", users(0, 6_000)), sketch("client-a", users(3_000, 9_000))
    week = reach.union([monday, tuesday])
    assert abs(reach.estimate(week) - 9_000) <= 0.03 * 9_000  # not 12,000
    # Small days: exact.
    small = reach.union([sketch("client-a", ["ann", "bob", "cy"]), sketch("client-a", ["bob", "cy", "dee"])])
    assert reach.estimate(small) == 4
    # A day inside another adds nothing.
    assert reach.union([big(10_000), sketch("client-a", users(0, 2_000))]) == big(10_000)
