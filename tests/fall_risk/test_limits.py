"""Fall risk's caps (issue 25; README, Fall risk: Limits): every request field that sizes work has a documented
bound in the OpenAPI document, and each bound is enforced: one over it is a 400 naming the field (or the 7.4
message where the spec words the field's error), the bound itself is accepted."""

import pytest

from support import caps
from tests.conftest import assert_error
from tests.fall_risk.conftest import CREATE, RECORDS, RESULTS, create, quiz, record
from wellness_api.core import clock, tenancy
from wellness_api.fall_risk import models, service
from wellness_api.openapi import document

TOO_LONG = "Invalid field {field}: String should have at most {cap} characters."


def test_every_request_field_of_fall_risk_is_bounded_in_the_openapi_document():
    assert [row for row in caps.violations(document.build()) if row[0] == "Fall risk"] == []


def test_the_documented_bounds_are_the_enforced_ones():
    doc = document.build()
    params = {p["name"]: p["schema"] for p in doc["paths"][RECORDS]["get"]["parameters"]}
    assert params["limit"]["maximum"] == models.RECORDS_PAGE_MAX == 500
    assert params["riskLevel"]["anyOf"][0]["maximum"] == 4
    assert params["startDate"]["anyOf"][0]["maxLength"] == 10
    for name in ("userId", "clientId", "startAfter"):
        assert params[name]["anyOf"][0]["maxLength"] == 64, name
    body = doc["components"]["schemas"]["CreateFallRiskBody"]["properties"]
    assert body["photoURL"]["anyOf"][0]["maxLength"] == 2048 and body["email"]["anyOf"][0]["maxLength"] == 254
    stance = doc["components"]["schemas"]["TandemStanceStepBody"]["properties"]["sideBySideSeconds"]
    assert (stance["minimum"], stance["maximum"]) == (0, 60)


# ------------------------------------------------------------------------------------ create


def _member_with_uid(tenant, uid: str) -> None:
    """An active member whose uid is `uid` (the Auth users of the tests have 28-character uids)."""
    tenancy.user_ref(tenant.client_id, uid).set({"clientId": tenant.client_id, "uid": uid, "role": "player",
                                                 "status": tenancy.USER_ACTIVE, "email": f"{uid[:8]}@x.test",
                                                 "createdAt": clock.now()})


def test_create_user_id_at_the_cap_is_accepted_one_over_is_user_does_not_exist(http, tenant):
    uid = "u" * models.MAX_ID
    _member_with_uid(tenant, uid)
    response = http.post(CREATE, json={"userId": uid}, headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    assert_error(http.post(CREATE, json={"userId": uid + "u"}, headers=tenant.admin.headers), 400,
                 service.USER_DOES_NOT_EXIST)


def test_create_email_and_photo_url_caps(http, tenant):
    local = "e" * (models.MAX_EMAIL - len("@x.test"))
    assert create(http, tenant.player, email=f"{local}@x.test")
    assert_error(http.post(CREATE, json={"email": f"{local}e@x.test"}, headers=tenant.player.headers), 400,
                 service.INVALID_EMAIL)
    url = "https://example.com/" + "a" * (models.MAX_PHOTO_URL - len("https://example.com/"))
    assert create(http, tenant.player, photoURL=url)
    assert_error(http.post(CREATE, json={"photoURL": url + "a"}, headers=tenant.player.headers), 400,
                 service.INVALID_PHOTO_URL)


# ------------------------------------------------------------------------------------ steps


@pytest.mark.parametrize(("step", "field", "body", "cap"), [
    ("tandemStance", "sideBySideSeconds", {"sideBySideSeconds": 60.5}, 60),
    ("singleLegStance", "singleLegSeconds", {"singleLegSeconds": 61}, 60),
    ("tandemWalk", "durationSeconds", {"stepsCompleted": 10, "durationSeconds": 600.01}, 600),
    ("tandemWalk", "missteps", {"stepsCompleted": 3, "missteps": 101}, 100),
    ("sitToStand", "standCount", {"standCount": 61}, 60),
    ("quiz", "fallsPastYear", quiz(("fallenPastYear",), fallsPastYear=101), 100),
])
def test_a_number_over_its_cap_is_refused_naming_the_field(http, tenant, step, field, body, cap):
    result_id = create(http, tenant.player)["fallRiskResultId"]
    assert_error(record(http, tenant.player, result_id, step, body), 400,
                 f"Invalid field {field}: Input should be less than or equal to {cap}.")


def test_numbers_at_their_caps_are_accepted(http, tenant):
    result_id = create(http, tenant.player)["fallRiskResultId"]
    for step, body in (("tandemStance", {"sideBySideSeconds": 60, "semiTandemSeconds": 60, "tandemSeconds": 60}),
                       ("singleLegStance", {"singleLegSeconds": 60}),
                       ("tandemWalk", {"stepsCompleted": 10, "missteps": 100, "durationSeconds": 600}),
                       ("sitToStand", {"standCount": 60}),
                       ("quiz", quiz(("fallenPastYear",), fallsPastYear=100))):
        response = record(http, tenant.player, result_id, step, body)
        assert response.status_code == 200, (step, response.json)


def test_birth_date_over_its_length_is_refused(http, tenant):
    result_id = create(http, tenant.player)["fallRiskResultId"]
    response = record(http, tenant.player, result_id, "quiz", quiz(birthDate="1950-01-01" + "0" * 1000))
    assert_error(response, 400, "Invalid field birthDate: must be a YYYY-MM-DD date, not in the future.")
    assert record(http, tenant.player, result_id, "quiz", quiz(birthDate="1950-01-01")).status_code == 200


# ------------------------------------------------------------------------------------ lists


def test_results_query_caps(http, tenant):
    assert_error(http.get(f"{RESULTS}?userId={'u' * 65}", headers=tenant.admin.headers), 400,
                 service.USER_DOES_NOT_EXIST)
    assert_error(http.get(f"{RESULTS}?userId={'u' * 64}", headers=tenant.admin.headers), 400,
                 service.USER_DOES_NOT_EXIST)  # at the cap: looked up, and nobody has that id
    assert_error(http.get(f"{RESULTS}?startAfter={'x' * 65}", headers=tenant.player.headers), 400,
                 TOO_LONG.format(field="startAfter", cap=64))
    response = http.get(f"{RESULTS}?startAfter={'0' * 64}&limit={models.RESULTS_PAGE_MAX}",
                        headers=tenant.player.headers)
    assert response.status_code == 200, response.json
    assert_error(http.get(f"{RESULTS}?limit={models.RESULTS_PAGE_MAX + 1}", headers=tenant.player.headers), 400,
                 f"Invalid field limit: Input should be less than or equal to {models.RESULTS_PAGE_MAX}.")


@pytest.mark.parametrize(("name", "at_cap", "over"), [
    ("userId", "u" * 64, "u" * 65),
    ("startAfter", "0" * 64, "0" * 65),
    ("startDate", "2024-01-01", "2024-01-01T"),
    ("endDate", "2024-01-01", "2024-01-010"),
])
def test_records_query_string_caps(http, tenant, name, at_cap, over):
    response = http.get(f"{RECORDS}?{name}={at_cap}", headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    message = service.INVALID_DATE.format(field=name) if name.endswith("Date") else TOO_LONG.format(field=name, cap=64)
    assert_error(http.get(f"{RECORDS}?{name}={over}", headers=tenant.admin.headers), 400, message)


def test_records_client_id_cap(http, tenant):
    # At the cap the client is looked up (an admin of another client is refused); over it, refused unread.
    assert http.get(f"{RECORDS}?clientId={'c' * 64}", headers=tenant.admin.headers).status_code == 403
    assert_error(http.get(f"{RECORDS}?clientId={'c' * 65}", headers=tenant.admin.headers), 400,
                 TOO_LONG.format(field="clientId", cap=64))


def test_records_limit_and_risk_level_caps(http, tenant):
    assert http.get(f"{RECORDS}?limit=500&riskLevel=4", headers=tenant.admin.headers).status_code == 200
    assert_error(http.get(f"{RECORDS}?limit=501", headers=tenant.admin.headers), 400,
                 "Invalid field limit: Input should be less than or equal to 500.")
    assert_error(http.get(f"{RECORDS}?riskLevel=5", headers=tenant.admin.headers), 400,
                 "Invalid field riskLevel: Input should be less than or equal to 4.")


def test_a_long_date_range_costs_one_page_of_reads(http, tenant):
    """A date range is one range of result ids: a span of 9,999 years reads no more than a day's."""
    from support.firestore_ops import counting

    create(http, tenant.player)
    reads = {}
    for start, end in (("2024-01-01", "2024-01-01"), ("0001-01-01", "9999-12-31")):
        with counting() as ops:
            response = http.get(f"{RECORDS}?startDate={start}&endDate={end}&limit=1", headers=tenant.admin.headers)
        assert response.status_code == 200, response.json
        reads[start] = ops.reads
    assert reads["0001-01-01"] <= reads["2024-01-01"] + 2  # the page (limit + 1), not one read per day
