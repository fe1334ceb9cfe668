"""Fall risk through Hosting: a member's whole assessment, the admin's dashboard, a partner backend acting with a
client token, tenant isolation, the 7.4 messages, and CORS as a browser on another origin meets it."""

import datetime as dt

import pytest
import requests

from tests.conftest import BASE_URL, bearer, sign_in
from tests.fall_risk.conftest import HEALTHY, STEP_PATHS, quiz
from wellness_api.core import users
from wellness_api.fall_risk import rules

CREATE = "/api/fall-risk"
RESULTS = "/api/fall-risk/results"
RECORDS = "/api/fall-risk/records"
BORN = "1950-06-01"
ORIGIN = "https://assessment.example"

# A member who worries about falling (a key question) and passes every test: screened at risk without a
# gait, strength or balance problem, level 2 (mild).
WORRIED = {**HEALTHY, "quiz": quiz(yes=("worriedAboutFalling",))}


def cors_open(response: requests.Response) -> bool:
    return response.headers.get("Access-Control-Allow-Origin") == "*"


def step(api, headers: dict, result_id: str, name: str, body: dict) -> requests.Response:
    return api("PUT", f"{RESULTS}/{result_id}/{STEP_PATHS[name]}", headers=headers, json=body)


def test_a_member_completes_an_assessment_and_the_admin_sees_it(api, tenant):
    member = tenant.add_member("player", birth_date=BORN, sex="male")
    me = bearer(sign_in(member.email, member.password))
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))

    created = api("POST", CREATE, headers={**me, "Origin": ORIGIN}, json={"skipDeviceSetup": True})
    assert created.status_code == 200, created.text
    assert cors_open(created) and created.headers["x-request-id"]
    result_id = created.json()["fallRiskResultId"]
    assert created.json()["quizUrl"] == f"/fall-risk/{result_id}/quiz"
    assert created.json()["sitToStandTestUrl"] == f"/fall-risk/{result_id}/sit-to-stand"

    fresh = api("GET", f"{RESULTS}/{result_id}", headers=me).json()["result"]
    assert (fresh["status"], fresh["origin"], fresh["userId"]) == ("created", "app", member.uid)
    assert fresh["participant"] == {"birthDate": BORN, "sex": "male"} and fresh["email"] == member.email
    assert fresh["stepsRemaining"] == list(STEP_PATHS) and fresh["scoring"] is None

    for number, (name, body) in enumerate(WORRIED.items(), start=1):
        answer = step(api, {**me, "Origin": ORIGIN}, result_id, name, body)
        assert answer.status_code == 200, (name, answer.text)
        assert cors_open(answer), name
        recorded = answer.json()["result"]
        assert recorded["status"] == ("completed" if number == len(WORRIED) else "in-progress"), name
        assert recorded["stepsRemaining"] == list(STEP_PATHS)[number:], name

    result = api("GET", f"{RESULTS}/{result_id}", headers=me).json()["result"]
    assert result["status"] == "completed" and result["completedAt"] and result["stepsRemaining"] == []
    assert (result["riskLevel"], result["urgentAttention"], result["rulesVersion"]) == (2, False, "steadi-v1")
    scoring = result["scoring"]
    today = dt.datetime.now(dt.UTC).date()
    age = users.age_on(dt.date.fromisoformat(BORN), today)
    norm = rules.chair_stand_norm(rules.CURRENT, age)
    assert (scoring["riskLevel"], scoring["riskLabel"]) == (2, "mild")
    assert scoring["screenedAtRisk"] is True and scoring["functionalProblem"] is False
    assert (scoring["ageYears"], scoring["ageGroup"], scoring["sex"]) == (age, users.age_group(age), "male")
    assert scoring["questionnaire"]["keyQuestionsYes"] == ["worriedAboutFalling"]
    assert scoring["chairStand"] == {"score": 15, "usedArms": False, "band": norm.band,
                                     "belowAverageUnder": norm.men, "belowAverage": False}
    assert [reason["code"] for reason in scoring["reasons"]] == ["key-question"]
    assert result["steps"]["sitToStand"]["standCount"] == 15 and result["steps"]["quiz"]["answers"][
        "worriedAboutFalling"] is True

    # A completed result is final: the same step again is answered unchanged, a different one is 409.
    again = step(api, me, result_id, "tandemWalk", WORRIED["tandemWalk"])
    assert again.status_code == 200 and again.json()["result"]["updatedAt"] == result["updatedAt"]
    changed = step(api, me, result_id, "sitToStand", {"standCount": 3})
    assert changed.status_code == 409 and cors_open(changed)

    listed = api("GET", RESULTS, headers=me).json()
    assert [r["fallRiskResultId"] for r in listed["results"]] == [result_id] and listed["nextStartAfter"] is None

    records = api("GET", f"{RECORDS}?riskLevel=2", headers=admin)
    assert records.status_code == 200 and cors_open(records)
    assert [r["fallRiskResultId"] for r in records.json()["results"]] == [result_id]
    assert records.json()["results"][0]["scoring"] == scoring
    assert api("GET", f"{RECORDS}?riskLevel=1", headers=admin).json() == {"results": [], "nextStartAfter": None}
    assert api("GET", f"{RECORDS}?riskLevel=4", headers=admin).json()["results"] == []
    assert [r["fallRiskResultId"] for r in api("GET", f"{RECORDS}?riskLevel=2&urgentAttention=false&origin=app",
                                               headers=admin).json()["results"]] == [result_id]
    assert api("GET", f"{RECORDS}?riskLevel=5", headers=admin).status_code == 400
    refused = api("GET", RECORDS, headers=me)
    assert refused.status_code == 403 and cors_open(refused)
    assert refused.json() == {"error": "Admin authentication or a client token required."}


def test_cors_headers_ride_on_successes_and_errors_through_hosting(api, tenant):
    me = tenant.player.headers
    answers = {
        "rules": api("GET", "/api/fall-risk/rules", headers={**me, "Origin": ORIGIN}),
        "no token": api("POST", CREATE, headers={"Origin": ORIGIN}, json={}),
        "bad token": api("GET", RESULTS, headers={"Origin": ORIGIN, "Authorization": "Bearer nope"}),
        "bad body": api("POST", CREATE, headers={**me, "Origin": ORIGIN}, json={"email": "nope"}),
        "unknown result": api("GET", f"{RESULTS}/nothing-here", headers={**me, "Origin": ORIGIN}),
    }
    assert [(name, a.status_code) for name, a in answers.items()] == [
        ("rules", 200), ("no token", 401), ("bad token", 401), ("bad body", 400), ("unknown result", 404)]
    for name, answer in answers.items():
        assert cors_open(answer), (name, dict(answer.headers))
        assert "x-request-id" in answer.headers.get("Access-Control-Expose-Headers", "").lower(), name
        assert "Access-Control-Allow-Credentials" not in answer.headers, name
    assert answers["no token"].json() == {"error": "Missing or invalid Authorization header"}


@pytest.mark.parametrize(("path", "method", "allowed"), [
    (CREATE, "POST", "POST"),
    (f"{RESULTS}/some-result/quiz", "PUT", "PUT"),
    (f"{RESULTS}/some-result/tandem-walk", "PUT", "PUT"),
    (RECORDS, "GET", "GET"),
])
def test_a_preflight_through_hosting_is_answered_204(emulators, path, method, allowed):
    # Straight through Hosting, not `api`: the document describes no OPTIONS operations (the contract would
    # take the 204 for an undocumented operation).
    response = requests.options(BASE_URL + path, timeout=60, headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert response.status_code == 204, (response.status_code, dict(response.headers), response.text)
    assert response.content == b""
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Access-Control-Allow-Methods"] == allowed
    assert {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")} == {
        "authorization", "content-type"}
    assert int(response.headers["Access-Control-Max-Age"]) > 0


def test_a_partner_backend_starts_and_lists_a_members_results(api, tenant, other_tenant):
    member = tenant.add_member("player", birth_date=BORN, sex="male")
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    secret = api("POST", f"/api/clients/{tenant.client_id}/api-keys", headers=admin, json={"label": "partner"})
    assert secret.status_code == 201
    issued = api("POST", "/api/client/token/", json={"clientId": tenant.client_id,
                                                      "clientSecret": secret.json()["secret"]})
    assert issued.status_code == 200
    partner = bearer(issued.json()["token"])

    created = api("POST", CREATE, headers=partner, json={"userId": member.uid, "email": "Me@Example.COM",
                                                         "photoURL": "https://img.example/me.png"})
    assert created.status_code == 200, created.text
    result_id = created.json()["fallRiskResultId"]
    assert created.json()["sitToStandTestUrl"] == f"/fall-risk/{result_id}/device-setup?next=sit-to-stand"

    result = api("GET", f"{RESULTS}/{result_id}", headers=partner).json()["result"]
    assert (result["origin"], result["userId"], result["clientId"]) == ("partner", member.uid, tenant.client_id)
    assert (result["email"], result["photoURL"]) == ("me@example.com", "https://img.example/me.png")
    assert result["participant"] == {"birthDate": BORN, "sex": "male"}

    # The partner records a step for the member; the member reads their own result.
    assert step(api, partner, result_id, "quiz", HEALTHY["quiz"]).json()["result"]["status"] == "in-progress"
    mine = api("GET", f"{RESULTS}/{result_id}", headers=bearer(sign_in(member.email, member.password)))
    assert mine.status_code == 200 and mine.json()["result"]["stepsRemaining"][0] == "sitToStand"

    listed = api("GET", f"{RESULTS}?userId={member.uid}", headers=partner)
    assert listed.status_code == 200
    assert [r["fallRiskResultId"] for r in listed.json()["results"]] == [result_id]
    assert api("GET", f"{RESULTS}?userId={tenant.player.uid}", headers=partner).json()["results"] == []
    partner_records = api("GET", f"{RECORDS}?origin=partner", headers=partner).json()["results"]
    assert [r["fallRiskResultId"] for r in partner_records] == [result_id]

    # A client token always names the member; and only members of its own client.
    assert api("POST", CREATE, headers=partner, json={}).json() == {"error": "userId is required with a client token."}
    assert api("GET", RESULTS, headers=partner).status_code == 400
    foreign = api("POST", CREATE, headers=partner, json={"userId": other_tenant.player.uid})
    assert foreign.status_code == 400 and foreign.json() == {"error": "User does not exist"}
    assert api("GET", f"{RECORDS}?clientId={other_tenant.client_id}", headers=partner).status_code == 403


def test_results_stay_inside_their_tenant_and_with_their_member(api, tenant, other_tenant):
    member = tenant.add_member("player", birth_date=BORN, sex="male")
    me = bearer(sign_in(member.email, member.password))
    result_id = api("POST", CREATE, headers=me, json={}).json()["fallRiskResultId"]

    # Another tenant's member: the result does not exist for them.
    stranger = bearer(sign_in(other_tenant.player.email, other_tenant.player.password))
    for method, path, body in [("GET", f"{RESULTS}/{result_id}", None),
                               ("PUT", f"{RESULTS}/{result_id}/quiz", HEALTHY["quiz"])]:
        answer = api(method, path, headers=stranger, json=body)
        assert answer.status_code == 404 and answer.json() == {"error": "Fall risk result not found."}, path
        assert cors_open(answer)
    # Another tenant's admin may act for members, but only of their own client.
    foreign_admin = bearer(sign_in(other_tenant.admin.email, other_tenant.admin.password))
    assert api("GET", f"{RESULTS}/{result_id}", headers=foreign_admin).status_code == 404
    refused = api("POST", CREATE, headers=foreign_admin, json={"userId": member.uid})
    assert refused.status_code == 400 and refused.json() == {"error": "User does not exist"}
    listed = api("GET", f"{RESULTS}?userId={member.uid}", headers=foreign_admin)
    assert listed.status_code == 400 and listed.json() == {"error": "User does not exist"}
    assert api("GET", RECORDS, headers=foreign_admin).json()["results"] == []
    # Another tenant's member naming the member is refused before the member is looked up (documented 403).
    assert api("POST", CREATE, headers=stranger, json={"userId": member.uid}).status_code == 403

    # A second member of the same tenant: 403 on the result and its steps, and cannot start one for the member.
    neighbour = bearer(sign_in(tenant.player.email, tenant.player.password))
    denied = api("GET", f"{RESULTS}/{result_id}", headers=neighbour)
    assert denied.status_code == 403 and denied.json() == {"error": "You do not have access to this fall risk result."}
    assert step(api, neighbour, result_id, "quiz", HEALTHY["quiz"]).status_code == 403
    named = api("POST", CREATE, headers=neighbour, json={"userId": member.uid})
    assert named.status_code == 403 and named.json() == {"error": "Only an admin of the client can act for another user."}
    assert api("GET", f"{RESULTS}?userId={member.uid}", headers=neighbour).status_code == 403
    assert api("GET", RESULTS, headers=neighbour).json()["results"] == []

    # The admin of the member's tenant reads it, and starting one for the member is the clinician's.
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    assert api("GET", f"{RESULTS}/{result_id}", headers=admin).json()["result"]["userId"] == member.uid
    clinician = api("POST", CREATE, headers=admin, json={"userId": member.uid}).json()["fallRiskResultId"]
    assert api("GET", f"{RESULTS}/{clinician}", headers=me).json()["result"]["origin"] == "clinician"


def test_the_7_4_messages_through_hosting(api, tenant):
    me = tenant.player.headers
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    retired = tenant.add_member("player", birth_date=BORN, sex="female")
    users.disable_user(tenant.client, retired.uid)

    cases = [
        (me, {"email": "not-an-email"}, "Invalid email"),
        (me, {"email": "two@@example.com"}, "Invalid email"),
        (me, {"email": 5}, "Invalid email"),
        (me, {"photoURL": "javascript:alert(1)"}, "Invalid photoURL"),
        (me, {"photoURL": "https://"}, "Invalid photoURL"),
        (me, {"photoURL": "https://img.example/" + "a" * 2048}, "Invalid photoURL"),
        (admin, {"userId": "no-such-member"}, "User does not exist"),
        (admin, {"userId": "bad/id"}, "User does not exist"),
        (admin, {"userId": 42}, "User does not exist"),
        (admin, {"userId": retired.uid}, "User does not exist"),
    ]
    for headers, body, message in cases:
        answer = api("POST", CREATE, headers={**headers, "Origin": ORIGIN}, json=body)
        assert answer.status_code == 400 and answer.json() == {"error": message}, (body, answer.text)
        assert cors_open(answer), body
    unknown = api("POST", CREATE, headers=me, json={"nickname": "x"})
    assert unknown.status_code == 400 and unknown.json() == {"error": "Unknown field: nickname."}

    for headers in ({}, {"Authorization": "Bearer not-a-jwt"}, {"Authorization": "Basic abc"}):
        answer = api("POST", CREATE, headers=headers, json={})
        assert answer.status_code == 401 and set(answer.json()) == {"error"}, headers
        assert cors_open(answer), headers
    assert api("GET", f"{RESULTS}/anything", headers={}).status_code == 401
    assert api("GET", "/api/fall-risk/rules").status_code == 401
    # Nothing was created by any of the refusals.
    assert api("GET", RECORDS, headers=admin).json()["results"] == []


def test_caps_through_hosting(api, tenant):
    """Issue 25: inputs over their caps are 400s in the area's envelope, refused before any work."""
    me = bearer(sign_in(tenant.player.email, tenant.player.password))
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    cases = [
        (api("POST", CREATE, headers=admin, json={"userId": "u" * 5000}), "User does not exist"),
        (api("POST", CREATE, headers=me, json={"photoURL": "https://x.example/" + "a" * 5000}), "Invalid photoURL"),
        (api("GET", f"{RECORDS}?limit=501", headers=admin),
         "Invalid field limit: Input should be less than or equal to 500."),
        (api("GET", f"{RESULTS}?startAfter={'0' * 65}", headers=me),
         "Invalid field startAfter: String should have at most 64 characters."),
    ]
    for answer, message in cases:
        assert (answer.status_code, answer.json()) == (400, {"error": message})
        assert answer.headers["x-request-id"]
