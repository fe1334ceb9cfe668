"""Issue 25's resource probe: every operation of the OpenAPI document, sent through Hosting with the worst request
its validation admits (support/resource_probe.py says how it is built), answers 2xx or 4xx, never 5xx, and the
worker that serves it grows its peak resident memory by at most 64 MiB. `make bench` prints the same probe's table.
"""

import pytest

from support import resource_probe

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def prober() -> resource_probe.Prober:
    return resource_probe.Prober(resource_probe.demo_env())


@pytest.mark.parametrize("operation_id", resource_probe.operation_ids())
def test_the_worst_request_is_answered_within_bounds(operation_id: str, prober: resource_probe.Prober):
    result = prober.probe(operation_id)
    assert not result.failures, (
        f"{result.method} {result.path} ({result.function}): {'; '.join(result.failures)}; "
        f"{result.body_bytes} body bytes, {result.wall_ms:.0f} ms\n" + "\n".join(result.notes))


def test_the_worst_values_fill_every_bound():
    components = {"Body": {"type": "object", "properties": {
        "t": {"type": "array", "maxItems": 5, "items": {"type": "number", "minimum": 0, "maximum": 100}},
        "name": {"type": "string", "maxLength": 12, "pattern": "^[a-z]+$"},
        "day": {"type": "string", "format": "date"}, "startDate": {"type": "string", "format": "date"},
        "n": {"anyOf": [{"type": "integer", "maximum": 4}, {"type": "null"}]},
        "tags": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 2}}}}}
    value = resource_probe.worst({"$ref": "#/components/schemas/Body"}, resource_probe.Shape(components))
    assert value["t"] == [0, 25, 50, 75, 100]  # the widest span, increasing
    assert value["name"] == "a" * 12 and value["tags"] == ["aa"] * 3 and value["n"] == 4
    assert value["startDate"] == resource_probe.EARLIEST.isoformat() and value["day"] > value["startDate"]
    # A body over the area's limit: the budget stops an array where its items would pass it.
    small = resource_probe.Shape(components, budget=20)
    assert len(resource_probe.worst(components["Body"]["properties"]["tags"], small)) == 3
    assert len(resource_probe.worst({"type": "array", "items": {"type": "string", "maxLength": 9}}, small)) == 1


def test_a_body_over_the_limit_costs_its_worker_nothing():
    # The functions runtime reads every request body whole after the answer; a refused body is drained a chunk at
    # a time first (core.http), so 24 MiB sent to a 4 MiB area leave its worker's peak where it was.
    import requests

    from tests.conftest import BASE_URL

    url = BASE_URL + "/api/wellness-chat"
    with requests.Session() as session:
        resource_probe._ensure_worker(session, "assistant", url)
        body = b'{"messages": "' + b"x" * (24 << 20) + b'"}'
        with resource_probe.peak_growth("assistant") as growth:
            response = session.post(url, data=body, headers={"Content-Type": "application/json"}, timeout=120)
    assert response.status_code in (401, 413) and not growth["new"]  # refused unread either way
    assert growth["mib"] < 8, growth
