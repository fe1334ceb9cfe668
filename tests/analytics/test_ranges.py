"""The optional range of the analytics endpoints (4.10): startDate and endDate, YYYY-MM-DD UTC days, inclusive,
both or neither, at most 366 days; models.window as a unit, then the same rules as 400s through HTTP."""

import datetime as dt

import pytest

from tests.analytics.conftest import (
    ENGAGEMENT,
    OVERVIEW,
    RANGED,
    assert_metadata,
    new_tenant,
    read,
    today,
    url,
    window,
)
from tests.conftest import Tenant, assert_error
from wellness_api.analytics import models
from wellness_api.analytics.models import RangeQuery, Window
from wellness_api.core.errors import ApiError

MALFORMED = ["2025-1-01", "2025-01-1", "20250101", "2025-W01-1", "2025-02-30", "2025-02-29", "2025-13-01",
             "2025-00-10", "2025-01-00", "", " 2025-01-01", "2025-01-01 ", "2025-01-01T00:00:00", "2025/01/01",
             "01-01-2025", "yesterday", "２０２５-01-01", "+2025-01-01", "12025-01-01", "2025-001",
             "2025-01-01\n"]


def refusal(start=None, end=None) -> str:
    """The message of a refused range, as a query string gives it (a date longer than 10 characters is refused by
    the query's model, the rest by models.window)."""
    with pytest.raises(ApiError) as raised:
        models.query_window({name: value for name, value in (("startDate", start), ("endDate", end))
                             if value is not None})
    assert raised.value.status == 400
    return raised.value.message


# ------------------------------------------------------------------------------------ models.window


def test_no_range_is_lifetime():
    found = models.window(RangeQuery())
    assert found == Window() and not found.ranged and found.iso() == (None, None)


@pytest.mark.parametrize(("start", "end"), [
    ("2025-01-01", "2025-01-01"),
    ("2024-02-28", "2024-03-01"),
    ("2024-02-29", "2024-02-29"),
    ("1999-12-31", "2000-01-01"),
    ("2025-01-01", "2026-01-01"),  # 366 days, inclusive
    ("2024-01-01", "2024-12-31"),  # a leap year: 366 days
])
def test_a_valid_range(start, end):
    found = models.window(RangeQuery(startDate=start, endDate=end))
    assert found.ranged and found.iso() == (start, end)
    assert (found.start, found.end) == (dt.date.fromisoformat(start), dt.date.fromisoformat(end))


@pytest.mark.parametrize("value", MALFORMED)
def test_a_malformed_date_is_refused_naming_its_field(value):
    assert refusal(value, "2025-01-31") == models.NOT_A_DATE.format(field="startDate")
    assert refusal("2025-01-01", value) == models.NOT_A_DATE.format(field="endDate")
    assert refusal(value, value) == "startDate must be a date as YYYY-MM-DD."
    # Alone, the malformed date is reported before the missing partner.
    assert refusal(value, None) == "startDate must be a date as YYYY-MM-DD."
    assert refusal(None, value) == "endDate must be a date as YYYY-MM-DD."


def test_one_date_without_the_other_is_refused():
    assert refusal("2025-01-01", None) == models.BOTH_OR_NEITHER == "startDate and endDate must be given together."
    assert refusal(None, "2025-01-01") == models.BOTH_OR_NEITHER


def test_an_inverted_range_is_refused():
    assert refusal("2025-01-02", "2025-01-01") == models.INVERTED == "startDate must not be after endDate."
    assert refusal("2026-01-01", "2025-12-31") == models.INVERTED


def test_366_days_are_the_limit():
    start = dt.date(2025, 3, 1)
    longest = models.window(RangeQuery(startDate=start.isoformat(), endDate=(start + dt.timedelta(days=365)).isoformat()))
    assert (longest.end - longest.start).days + 1 == models.MAX_RANGE_DAYS == 366
    assert len(models.days_of(longest.start, longest.end)) == 366
    message = refusal(start.isoformat(), (start + dt.timedelta(days=366)).isoformat())
    assert message == models.TOO_LONG == "The range may span at most 366 days."
    assert refusal("2000-01-01", "2025-01-01") == models.TOO_LONG


def test_days_of_lists_every_calendar_day_inclusive():
    assert models.days_of(dt.date(2024, 2, 27), dt.date(2024, 3, 2)) == [
        "2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02"]
    assert models.days_of(dt.date(2025, 12, 31), dt.date(2026, 1, 1)) == ["2025-12-31", "2026-01-01"]
    assert models.days_of(dt.date(2025, 5, 5), dt.date(2025, 5, 5)) == ["2025-05-05"]


# ------------------------------------------------------------------------------------ through HTTP


@pytest.fixture(scope="module")
def dashboard(emulators) -> Tenant:
    return new_tenant()


def bad_range(http, dashboard, query: str, message: str) -> None:
    for endpoint in RANGED:
        assert_error(http.get(url(dashboard.client_id, endpoint, query), headers=dashboard.admin.headers), 400,
                     message)


@pytest.mark.parametrize("value", ["2025-1-01", "20250101", "2025-W01-1", "2025-02-30", "", "2025-01-01T00:00Z",
                                   "%202025-01-01"])
def test_a_malformed_date_is_400(http, dashboard, value):
    bad_range(http, dashboard, f"?startDate={value}&endDate=2025-01-31", "startDate must be a date as YYYY-MM-DD.")
    bad_range(http, dashboard, f"?startDate=2025-01-01&endDate={value}", "endDate must be a date as YYYY-MM-DD.")


def test_one_date_alone_is_400(http, dashboard):
    bad_range(http, dashboard, "?startDate=2025-01-01", models.BOTH_OR_NEITHER)
    bad_range(http, dashboard, "?endDate=2025-01-01", models.BOTH_OR_NEITHER)


def test_start_after_end_is_400(http, dashboard):
    bad_range(http, dashboard, "?startDate=2025-01-02&endDate=2025-01-01", models.INVERTED)


def test_367_days_are_400_and_366_are_served(http, dashboard):
    bad_range(http, dashboard, "?startDate=2025-01-01&endDate=2026-01-02", models.TOO_LONG)
    for endpoint in RANGED:
        body = read(http, dashboard.admin, dashboard.client_id, endpoint, "2025-01-01", "2026-01-01")
        assert_metadata(body, dashboard.client_id, False, 1, "2025-01-01", "2026-01-01")
        if endpoint == ENGAGEMENT:
            days = [day["date"] for day in body["dailyBreakdown"]]
            assert len(days) == 366 and days[0] == "2025-01-01" and days[-1] == "2026-01-01"


def test_a_range_of_one_day_and_a_range_far_in_the_past(http, dashboard):
    for start, end, length in (("2025-06-15", "2025-06-15", 1), ("1999-12-01", "2000-03-01", 92)):
        body = read(http, dashboard.admin, dashboard.client_id, ENGAGEMENT, start, end)
        assert [day["date"] for day in body["dailyBreakdown"]] == models.days_of(
            dt.date.fromisoformat(start), dt.date.fromisoformat(end))
        assert len(body["dailyBreakdown"]) == length
        assert (body["metadata"]["startDate"], body["metadata"]["endDate"]) == (start, end)


def test_a_range_into_the_future_is_served_with_its_days(http, dashboard):
    start, end = today() - dt.timedelta(days=2), today() + dt.timedelta(days=2)
    body = read(http, dashboard.admin, dashboard.client_id, ENGAGEMENT, start, end)
    assert [day["date"] for day in body["dailyBreakdown"]] == models.days_of(start, end)


def test_unknown_query_parameters_are_ignored_and_the_first_value_counts(http, dashboard):
    body = read(http, dashboard.admin, dashboard.client_id, ENGAGEMENT + "?limit=5&clientId=other")
    assert (body["metadata"]["startDate"], body["metadata"]["endDate"]) == (None, None)
    query = "?startDate=2025-03-01&endDate=2025-03-02&startDate=2024-01-01"
    response = http.get(url(dashboard.client_id, ENGAGEMENT, query), headers=dashboard.admin.headers)
    assert response.status_code == 200, response.json
    assert [day["date"] for day in response.json["dailyBreakdown"]] == ["2025-03-01", "2025-03-02"]


def test_the_overview_takes_no_range(http, dashboard):
    # The overview is "now": a range given to it is not read (and never refused).
    for query in ("", window("2025-01-01", "2025-01-31"), "?startDate=garbage"):
        response = http.get(url(dashboard.client_id, OVERVIEW, query), headers=dashboard.admin.headers)
        assert response.status_code == 200, response.json
        assert (response.json["metadata"]["startDate"], response.json["metadata"]["endDate"]) == (None, None)
