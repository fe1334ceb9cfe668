"""The analytics entries of the OpenAPI document, and the endpoints fuzzed against them: whatever the range, client
and caller, every answer has a documented status and a body that fits the documented schema (never a 500)."""

import string

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.analytics.conftest import (
    AGE_GROUPS,
    ENGAGEMENT_MODULES,
    METADATA_KEYS,
    OVERVIEW_KEYS,
    new_tenant,
)
from tests.conftest import Tenant
from wellness_api.openapi import document

DOC = document.build()
PREFIX = "/api/client/{clientId}/analytics"
OPERATIONS = {
    f"{PREFIX}/overview": ("getAnalyticsOverview", {"200", "401", "403", "404", "500"}, False),
    f"{PREFIX}/engagement-insights": ("getEngagementInsights", {"200", "400", "401", "403", "404", "500"}, True),
    f"{PREFIX}/assessment-counts": ("getAssessmentCounts", {"200", "400", "401", "403", "404", "500"}, True),
    f"{PREFIX}/functional-tests": ("getFunctionalTests", {"200", "400", "401", "403", "404", "500"}, True),
    "/api/analytics/clients": ("listAnalyticsClients", {"200", "401", "403", "500"}, False),
    "/api/analytics/config": ("getAnalyticsPageConfig", {"200", "500"}, False),
}


def schema_of(path: str, status: int) -> dict:
    answer = DOC["paths"][path]["get"]["responses"][str(status)]
    return {**answer["content"]["application/json"]["schema"], "components": DOC["components"]}


def component(name: str) -> dict:
    return DOC["components"]["schemas"][name]


def resolved(schema: dict) -> dict:
    while "$ref" in schema:
        schema = component(schema["$ref"].rsplit("/", 1)[1])
    return schema


def test_every_analytics_operation_is_documented_get_only():
    documented = {path: item for path, item in DOC["paths"].items() if "analytics" in path}
    assert set(documented) == set(OPERATIONS)
    for path, (operation_id, statuses, ranged) in OPERATIONS.items():
        assert set(documented[path]) == {"get"}, path
        op = documented[path]["get"]
        assert op["operationId"] == operation_id and op["tags"] == ["Analytics"]
        assert set(op["responses"]) == statuses, path
        params = {(p["name"], p["in"]) for p in op.get("parameters", [])}
        expected = ({("clientId", "path")} if path.startswith(PREFIX) else set()) | (
            {("startDate", "query"), ("endDate", "query")} if ranged else set())
        assert params == expected, path
        public = operation_id == "getAnalyticsPageConfig"
        assert op.get("security", []) == ([] if public else [{"firebaseIdToken": []}]), path


def test_the_documented_shapes_are_2_14s_and_closed():
    overview = resolved(schema_of(f"{PREFIX}/overview", 200))
    assert set(overview["properties"]) == OVERVIEW_KEYS and overview.get("additionalProperties") is False
    assert set(overview["required"]) == OVERVIEW_KEYS
    ages = resolved(overview["properties"]["ageDistribution"])
    assert set(ages["properties"]) == set(AGE_GROUPS)
    risk = resolved(overview["properties"]["riskDistribution"])
    assert set(risk["properties"]) == {"level1", "level2", "level3", "level4"}
    meta = resolved(overview["properties"]["metadata"])
    assert set(meta["properties"]) == METADATA_KEYS and meta.get("additionalProperties") is False
    engagement = resolved(schema_of(f"{PREFIX}/engagement-insights", 200))
    assert set(engagement["properties"]) == {"success", *ENGAGEMENT_MODULES, "dailyBreakdown", "metadata"}
    assert engagement.get("additionalProperties") is False
    for module, fields in ENGAGEMENT_MODULES.items():
        assert set(resolved(engagement["properties"][module])["properties"]) == set(fields), module
    day = resolved(engagement["properties"]["dailyBreakdown"]["items"])
    assert set(day["properties"]) == {"date", "aiMove", "aiTraining", "lessons", "nutrition", "waterIntake",
                                      "wellnessChat", "vitalScan"}


# ------------------------------------------------------------------------------------ fuzzed


@pytest.fixture(scope="module")
def fuzzed(emulators) -> Tenant:
    return new_tenant()


DIGITS = st.text(alphabet=string.digits, min_size=1, max_size=5)
DATE_LIKE = st.one_of(
    st.dates().map(lambda d: d.isoformat()),
    st.builds(lambda y, m, d: f"{y}-{m}-{d}", DIGITS, DIGITS, DIGITS),
    st.text(alphabet=string.digits + "-W:T+Z ", max_size=14),
    st.text(max_size=12),
)
DATES = st.one_of(st.none(), DATE_LIKE)
RANGED = [path for path, (_, _, ranged) in OPERATIONS.items() if ranged]


def checked(response, path: str) -> None:
    status = str(response.status_code)
    assert status in DOC["paths"][path]["get"]["responses"] and status != "500", (path, status, response.json)
    assert response.headers["x-request-id"]
    errors = list(jsonschema.Draft202012Validator(schema_of(path, response.status_code)).iter_errors(response.json))
    assert not errors, (path, status, errors[0].message, list(errors[0].absolute_path))


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(RANGED), start=DATES, end=DATES)
def test_any_range_is_answered_as_documented(http, fuzzed, path, start, end):
    query = {name: value for name, value in (("startDate", start), ("endDate", end)) if value is not None}
    response = http.get(path.replace("{clientId}", fuzzed.client_id), query_string=query,
                        headers=fuzzed.admin.headers)
    checked(response, path)
    assert response.status_code in (200, 400)


@settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(list(OPERATIONS)), caller=st.sampled_from(["admin", "player", "none", "platform"]),
       client=st.one_of(st.sampled_from(["own", "unknown"]),
                        st.text(alphabet=string.ascii_letters + string.digits + "-_.~", min_size=1, max_size=20)))
def test_any_caller_and_client_is_answered_as_documented(http, fuzzed, platform_admin, path, caller, client):
    client_id = {"own": fuzzed.client_id, "unknown": "no-such-client"}.get(client, client)
    headers = {"admin": fuzzed.admin.headers, "player": fuzzed.player.headers, "none": {},
               "platform": platform_admin.headers}[caller]
    response = http.get(path.replace("{clientId}", client_id), headers=headers)
    if response.status_code == 404 and client_id in (".", ".."):
        return  # the framework's own answer to a dot segment, not the operation's
    checked(response, path)
