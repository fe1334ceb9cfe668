"""Fixtures of the fall-risk tests: the area's Flask test client, a tenant whose player has a date of birth and
sex, and helpers that walk a result through its steps."""

import datetime as dt

import pytest

from support.fall_risk import HEALTHY, NO_ANSWERS, STEP_PATHS, quiz  # noqa: F401 - the tests import them from here
from wellness_api.core import clock
from wellness_api.fall_risk.routes import app

CREATE = "/api/fall-risk"
RESULTS = "/api/fall-risk/results"
RECORDS = "/api/fall-risk/records"


@pytest.fixture
def http():
    return app.test_client()


def born_aged(years: int) -> str:
    """A date of birth that makes someone exactly `years` old today (born on the 1st of this month)."""
    today = clock.now().date()
    return dt.date(today.year - years, today.month, 1).isoformat()


@pytest.fixture
def assessed(tenant):
    """A tenant with a senior: a 72-year-old woman (the 70-74 chair-stand norm: below average under 10)."""
    tenant.senior = tenant.add_member("player", birth_date=born_aged(72), sex="female")
    return tenant


def create(http, member, **body) -> dict:
    response = http.post(CREATE, json=body, headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json


def record(http, member, result_id: str, step: str, body: dict):
    return http.put(f"{RESULTS}/{result_id}/{STEP_PATHS[step]}", json=body, headers=member.headers)


def complete(http, member, result_id: str | None = None, **steps) -> dict:
    """Record every step (HEALTHY unless given) and return the completed result."""
    result_id = result_id or create(http, member)["fallRiskResultId"]
    answer = None
    for step, body in {**HEALTHY, **steps}.items():
        answer = record(http, member, result_id, step, body)
        assert answer.status_code == 200, answer.json
    result = answer.json["result"]
    assert result["status"] == "completed"
    return result
