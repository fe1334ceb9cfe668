"""Analytics' caps (issue 25; README, Analytics: Limits): the range's dates have a documented length and are refused
over it with the area's date message; the span is capped before any rollup is read (a century would be one read
per day and module); engagement's memory does not grow with the span; the client picker reads at most its cap of
clients, however many exist."""

import datetime as dt
import tracemalloc

import pytest

from support import caps
from support.firestore_ops import counting
from tests.analytics.conftest import RANGED, new_tenant, read, url, window
from tests.conftest import assert_error
from wellness_api.analytics import models
from wellness_api.core import activity
from wellness_api.openapi import document

CLIENTS = "/api/analytics/clients"


def test_every_request_field_of_analytics_is_bounded_in_the_openapi_document():
    doc = document.build()
    assert [row for row in caps.violations(doc) if row[0] == "Analytics"] == []
    for endpoint in RANGED:
        params = {p["name"]: p["schema"] for p in doc["paths"][f"/api/client/{{clientId}}/analytics/{endpoint}"]
                  ["get"]["parameters"]}
        assert params["startDate"]["anyOf"][0]["maxLength"] == params["endDate"]["anyOf"][0]["maxLength"] == 10


@pytest.mark.parametrize("endpoint", RANGED)
def test_a_date_over_its_length_is_the_date_message(http, dashboard, endpoint):
    long = "2025-01-01" + "0" * 10_000
    for query, field in ((window(long, "2025-01-31"), "startDate"), (window("2025-01-01", long), "endDate"),
                         (window("2025-01-011", "2025-01-31"), "startDate")):
        assert_error(http.get(url(dashboard.client_id, endpoint, query), headers=dashboard.admin.headers), 400,
                     models.NOT_A_DATE.format(field=field))
    at_cap = http.get(url(dashboard.client_id, endpoint, window("2025-01-01", "2025-01-31")),
                      headers=dashboard.admin.headers)
    assert at_cap.status_code == 200, at_cap.json


@pytest.mark.parametrize("endpoint", RANGED)
def test_a_century_is_refused_before_any_rollup_is_read(http, dashboard, endpoint):
    with counting() as longest:
        served = http.get(url(dashboard.client_id, endpoint, window("2024-01-01", "2024-12-31")),
                          headers=dashboard.admin.headers)
    assert served.status_code == 200, served.json
    with counting() as century:
        refused = http.get(url(dashboard.client_id, endpoint, window("1925-01-01", "2024-12-31")),
                           headers=dashboard.admin.headers)
    assert_error(refused, 400, models.TOO_LONG)
    # Only the caller's client is read (the scope check); no rollup, no count.
    assert century.reads <= 1 and century.aggregation_queries == 0
    assert century.reads <= longest.reads


def test_the_client_picker_reads_at_most_its_cap(http, platform_admin, monkeypatch):
    """Regression: the picker read every client document of the platform in one answer."""
    for _ in range(3):
        new_tenant(analytics=False)
    monkeypatch.setattr(models, "MAX_PICKER_CLIENTS", 2)
    with counting() as ops:
        response = http.get(CLIENTS, headers=platform_admin.headers)
    assert response.status_code == 200, response.json
    assert len(response.json["clients"]) == 2 and response.json["truncated"] is True
    ids = [row["clientId"] for row in response.json["clients"]]
    assert ids == sorted(ids)
    assert ops.reads <= 2 + 1 + 1  # the cap, the one that tells more exist, the caller's own client


def test_the_client_picker_at_its_cap_is_whole(http, platform_admin, monkeypatch):
    everyone = http.get(CLIENTS, headers=platform_admin.headers).json
    assert everyone["truncated"] is False
    monkeypatch.setattr(models, "MAX_PICKER_CLIENTS", len(everyone["clients"]))
    again = http.get(CLIENTS, headers=platform_admin.headers).json
    assert again == everyone


# ------------------------------------------------------------------------------------ memory by span


def _busy_days(client_id: str, first: dt.date, days: int, registers: int) -> None:
    """Compacted AI Move days as the rollup stores them, each with `registers` active-user registers."""
    counters = activity.AI_MOVE.counters
    for n in range(days):
        day = (first + dt.timedelta(days=n)).isoformat()
        counters.shards_collection(client_id).document(f"{day}_all").set({
            "clientId": client_id, "day": day, "shard": "all",
            "counts": {"aiMove": {"sessionsStarted": 1}},
            "reach": {"aiMove": {str(index): 1 + index % 7 for index in range(registers)}}})


def _peak_bytes(http, member, client_id: str, start: dt.date, end: dt.date) -> int:
    tracemalloc.start()
    try:
        response = http.get(url(client_id, "engagement-insights", window(start, end)), headers=member.headers)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert response.status_code == 200, response.json


def test_engagement_memory_does_not_grow_with_the_span(http, dashboard):
    """Regression: every day's active-user sketch of the range was held at once (366 days of a busy client:
    hundreds of MB); the days are folded one at a time now."""
    first = dt.date(2024, 1, 1)
    _busy_days(dashboard.client_id, first, 40, 8192)
    http.get(url(dashboard.client_id, "engagement-insights"), headers=dashboard.admin.headers)  # imports, caches
    short = _peak_bytes(http, dashboard.admin, dashboard.client_id, first, first + dt.timedelta(days=3))
    long = _peak_bytes(http, dashboard.admin, dashboard.client_id, first, first + dt.timedelta(days=39))
    assert long < short * 2, (short, long)
    body = read(http, dashboard.admin, dashboard.client_id, "engagement-insights", first,
                first + dt.timedelta(days=39))
    assert body["aiMove"]["totalSessions"] == 40
    assert {day["aiMove"] for day in body["dailyBreakdown"]} == {body["aiMove"]["activeUsers"]}
