"""Content benchmarks (4.4), run by bench/run.py inside the emulators.

1. Firestore reads per public read: by key, by several keys (1, 5, 10), by id, and the public page /ct/{id}. A
   lookup by key reads the state (the client, the categories document, the client's overrides: one batch get)
   and runs two queries side by side (the client's items, the operator's shared ones), each `key in [...]`:
   reads = matched items + 3, and three round trips whatever the number of keys, so the wall time of 10 keys
   stays close to that of 1 key.
2. Firestore writes per administrator change: create = the key + the item + its first version; every other
   change = the item + a new version (delete: the item + the freed key).
"""

import contextlib
import io
import statistics
import time
import uuid

KEYS = 10
SHARED = 5  # the first SHARED keys also have an operator's shared item
RUNS = 15  # wall-time samples per lookup size


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


class _RoundTrips:
    """Counts Firestore calls that are one round trip each: batch gets, document gets and query streams."""

    def __init__(self):
        self.calls = 0
        self.active = False

    @contextlib.contextmanager
    def install(self):
        from google.cloud.firestore_v1 import client, document, query

        import support.firestore_ops  # noqa: F401 - its read counters first, these on top

        originals = (client.Client.get_all, document.DocumentReference.get, query.Query.stream)

        def wrap(original):
            def call(*args, **kwargs):
                if self.active:
                    self.calls += 1
                return original(*args, **kwargs)
            return call

        client.Client.get_all, document.DocumentReference.get, query.Query.stream = map(wrap, originals)
        try:
            yield self
        finally:
            client.Client.get_all, document.DocumentReference.get, query.Query.stream = originals

    @contextlib.contextmanager
    def counting(self):
        self.calls, self.active = 0, True
        try:
            yield self
        finally:
            self.active = False


def _setup():
    from google.api_core import exceptions as gexc

    from support.tenants import OPERATOR_CLIENT_ID, Tenant
    from wellness_api.content import repository as repo
    from wellness_api.content import service
    from wellness_api.content.models import CreateContentBody

    run = uuid.uuid4().hex[:8]
    operator = Tenant(OPERATOR_CLIENT_ID, operator=True, hostnames=["operator.localhost"])
    tenant = Tenant(f"bench-{run}")
    # The three state documents exist, as they do in a configured project (missing ones cost no read in the
    # counter): an empty categories document only where none was stored yet, and the bench client's overrides.
    with contextlib.suppress(gexc.AlreadyExists):
        repo.categories_ref().create({"categories": {}})
    repo.overrides_ref(tenant.client_id).set({"clientId": tenant.client_id, "categories": {}})
    keys = [f"bench-{run}-{i}" for i in range(KEYS)]
    ids = {}
    for index, key in enumerate(keys):
        spec = {"key": key, "categoryKey": "announcements", "title": {"en": f"Item {index}", "zh-Hant": "項目"},
                "body": {"en": "Body " * 40, "zh-Hant": "內容"}}
        ids[key] = service.create_item(tenant.client, CreateContentBody(**spec), "bench")["contentId"]
        if index < SHARED:
            service.create_item(operator.client, CreateContentBody(**spec, visibility="shared"), "bench")
    return tenant, keys, ids


def reads_per_request() -> None:
    from support.firestore_ops import counting
    from wellness_api.content.routes import app

    http = app.test_client()
    with _quiet():
        tenant, keys, ids = _setup()
    base = f"/api/client/{tenant.client_id}/content/public"
    rows, times = [], {}
    trips = _RoundTrips()
    with trips.install(), _quiet():
        http.get(f"{base}/{keys[0]}")  # warm: connections, the operator id, the lookup threads

        def measure(name: str, url: str, matched) -> None:
            with counting() as ops, trips.counting():
                response = http.get(url)
            found = matched(response.json) if response.status_code == 200 else 0
            rows.append((name, response.status_code, found, ops.reads, trips.calls))

        def items(body) -> int:
            data = body["data"]
            if isinstance(data, list):  # by key
                return len(data)
            if "contentId" in data:  # by id
                return 1
            return sum(len(found) for found in data.values())  # by keys

        measure("by key (own item)", f"{base}/{keys[-1]}", items)
        measure("by key (own + operator's shared)", f"{base}/{keys[0]}", items)
        measure("by key (no such key)", f"{base}/no-such-key", items)
        for size in (1, 5, 10):
            url = f"{base}?keys={','.join(keys[:size])}&lang=zh-Hant"
            measure(f"by {size} key{'s' if size > 1 else ''}", url, items)
            samples = []
            for _ in range(RUNS):
                started = time.perf_counter()
                assert http.get(url).status_code == 200
                samples.append(time.perf_counter() - started)
            times[size] = statistics.median(samples)
        measure("by id", f"/api/content/{ids[keys[0]]}/public?lang=zh-Hant", items)
        page = any(rule.rule.startswith("/ct/") for rule in app.url_map.iter_rules())
        if page:
            with counting() as ops, trips.counting():
                response = http.get(f"/ct/{ids[keys[0]]}?lang=zh-Hant")
            rows.append(("page /ct/{id}", response.status_code, 1 if response.status_code == 200 else 0,
                         ops.reads, trips.calls))

    print("\n== Content: Firestore reads per public read (no credentials)")
    print(f"{'request':<34} {'status':>6} {'matched':>7} {'reads':>6} {'reads - matched':>15} {'round trips':>11}")
    for name, status, found, reads, calls in rows:
        print(f"{name:<34} {status:>6} {found:>7} {reads:>6} {reads - found:>15} {calls:>11}")
    if not page:
        print("page /ct/{id}: skipped (no /ct/ route on the content app yet)")
    print("(By key: one batch get of the state (the client, the categories document, the client's overrides: 3 "
          "reads) and two queries at once (the client's items, the operator's shared ones), one read per item "
          "matched; a query without results counts no read here (Firestore bills it one). By id and the page: the "
          "item's document.)")
    print(f"\nwall time, median of {RUNS}: 1 key {times[1] * 1000:.1f} ms, 5 keys {times[5] * 1000:.1f} ms, "
          f"10 keys {times[10] * 1000:.1f} ms")
    print(f"ratio 10 keys / 1 key: {times[10] / times[1]:.2f}x (the round trips do not grow with the keys)")


def writes_per_change() -> None:
    from support.firestore_ops import counting
    from support.tenants import Tenant
    from wellness_api.content.routes import app

    http = app.test_client()
    rows = []
    with _quiet():
        tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
        headers = tenant.admin.headers
        warm = http.post("/api/content", json={"key": "warm", "categoryKey": "legal", "title": {"en": "W"},
                                               "body": {"en": "W"}}, headers=headers)
        assert warm.status_code == 201, warm.json

        def measure(name: str, call):
            with counting() as ops:
                response = call()
            rows.append((name, response.status_code, ops.reads, ops.writes))
            return response

        created = measure("POST /api/content", lambda: http.post("/api/content", headers=headers, json={
            "key": "news", "categoryKey": "announcements", "title": {"en": "News", "zh-Hant": "新聞"},
            "body": {"en": "Body", "zh-Hant": "內容"}})).json["content"]
        url = f"/api/content/{created['contentId']}"
        measure("PATCH /api/content/{id}", lambda: http.patch(url, json={"title": {"en": "News 2"}}, headers=headers))
        measure("POST .../unpublish", lambda: http.post(f"{url}/unpublish", headers=headers))
        measure("POST .../publish", lambda: http.post(f"{url}/publish", headers=headers))
        measure("GET /api/content/{id}", lambda: http.get(url, headers=headers))
        measure("GET .../versions", lambda: http.get(f"{url}/versions", headers=headers))
        measure("DELETE /api/content/{id}", lambda: http.delete(url, headers=headers))

    print("\n== Content: Firestore reads and writes per administrator request (admin's ID token)")
    print(f"{'request':<28} {'status':>6} {'reads':>6} {'writes':>6}")
    for name, status, reads, writes in rows:
        print(f"{name:<28} {status:>6} {reads:>6} {writes:>6}")
    print("(Every request reads the admin's client once. Create: + the categories document, the client's "
          "overrides and the key (one transaction); writes = the key + the item + version 1. PATCH and publish: + "
          "the item, the categories document and the overrides (the publish permission); unpublish: + the item; "
          "writes = the item + a new version. Versions: + the item and the page (+ 1 to tell whether more "
          "follow). Delete: + the item; writes = the item (marked deleted) + the freed key.)")


def main() -> None:
    reads_per_request()
    writes_per_change()
