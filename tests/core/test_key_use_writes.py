"""An instance records a key's use once a minute, however many of its requests use the key at once
(core/server_keys.touch): every request in flight read the same stale lastUsedAt, and each wrote two documents."""

import concurrent.futures
import datetime as dt
import threading
import types

from wellness_api.api_keys import service
from wellness_api.core import clock, firebase, server_keys


class CountingClient:
    def __init__(self, real):
        self.real, self.batches, self.lock = real, 0, threading.Lock()

    def batch(self):
        with self.lock:
            self.batches += 1
        return self.real.batch()

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_concurrent_requests_of_one_key_write_its_use_once(tenant, monkeypatch):
    created = service.create_key(tenant.client_id, "busy", False, "test")
    match = server_keys.authenticate(created.secret)  # as 20 requests in flight read it: never used yet
    counting = CountingClient(firebase.db())
    monkeypatch.setattr(server_keys, "firebase", types.SimpleNamespace(db=lambda: counting))
    start = threading.Barrier(20)

    def request(_):
        start.wait()
        server_keys.touch(match)

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        list(pool.map(request, range(20)))
    assert counting.batches == 1
    assert service.list_keys(tenant.client_id).api_keys[0]["lastUsedAt"] is not None
    # A minute later the next request records it again.
    clock.advance(dt.timedelta(minutes=2))
    server_keys.touch(server_keys.authenticate(created.secret))
    assert counting.batches == 2
