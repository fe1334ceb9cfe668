"""Concurrent key mutations never leave a client without an active key or with two primaries."""

import concurrent.futures

from wellness_api.api_keys import repository, service
from wellness_api.core import server_keys
from wellness_api.core.errors import ApiError


def invariant_holds(client_id: str) -> None:
    keys = service.list_keys(client_id)
    active = [k for k in keys.api_keys if k["status"] == "active"]
    primaries = [k for k in keys.api_keys if k["isPrimary"]]
    assert len(active) >= 1
    assert len(primaries) == 1
    assert primaries[0]["status"] == "active"
    assert keys.legacy_primary_key_id == primaries[0]["keyId"]


def test_concurrent_revokes_keep_one_active_key(tenant):
    keys = [service.create_key(tenant.client_id, f"k{i}", False, "test") for i in range(4)]

    def revoke(created):
        try:
            service.revoke_key(tenant.client_id, created.api_key["keyId"])
            return "revoked"
        except ApiError as err:
            return err.status

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(revoke, keys))
    assert outcomes.count("revoked") == 3
    assert outcomes.count(409) == 1
    invariant_holds(tenant.client_id)
    assert sum(server_keys.authenticate(k.secret) is not None for k in keys) == 1


def test_concurrent_creates_promotes_and_revokes(tenant):
    seed = [service.create_key(tenant.client_id, f"s{i}", False, "test") for i in range(3)]

    def work(i):
        try:
            if i % 3 == 0:
                service.create_key(tenant.client_id, f"n{i}", i % 2 == 0, "test")
            elif i % 3 == 1:
                service.promote_key(tenant.client_id, seed[i % 3].api_key["keyId"])
            else:
                service.revoke_key(tenant.client_id, seed[i % 3].api_key["keyId"])
        except ApiError as err:
            assert err.status == 409

    # Eight at once on one client: each loser re-reads at once instead of waiting on a lock, so none ends in a 503.
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(18)))
    invariant_holds(tenant.client_id)


def test_a_change_committed_after_the_reads_makes_the_other_decide_again(tenant, monkeypatch):
    first, second = (service.create_key(tenant.client_id, f"k{i}", False, "test") for i in range(2))
    read_active = repository.active_keys
    interleaved = []

    def active_keys_then_revoke_the_second(client_id):
        keys = read_active(client_id)
        if not interleaved:  # the first read only: revoke the second key once the first revoke has read both
            interleaved.append(True)
            service.revoke_key(client_id, second.api_key["keyId"])
        return keys

    monkeypatch.setattr(repository, "active_keys", active_keys_then_revoke_the_second)
    # What the first revoke read (two active keys) no longer holds when it commits: its commit fails, it reads
    # again and finds the last active key.
    try:
        service.revoke_key(tenant.client_id, first.api_key["keyId"])
    except ApiError as err:
        assert (err.status, err.message) == (409, service.LAST_ACTIVE_KEY)
    else:
        raise AssertionError("the stale revoke committed")
    monkeypatch.undo()
    invariant_holds(tenant.client_id)
    assert server_keys.authenticate(first.secret) is not None
    assert server_keys.authenticate(second.secret) is None
