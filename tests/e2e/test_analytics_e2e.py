"""Analytics through Hosting: a member's fall-risk assessment and a lesson play made through the public endpoints show up
in the admin's dashboard figures, the refusals (no token, a player, another client's admin, the module off, an
unknown client, a bad range) read as documented, and the dashboard page, its client list and its config are served.
Every answer is checked against the OpenAPI document the stack serves (the `api` fixture)."""

import datetime as dt
import uuid

import pytest
import requests

from tests.conftest import BASE_URL, bearer, sign_in

pytestmark = pytest.mark.e2e

BORN = "1951-03-10"
NO_ANSWERS = {key: False for key in (
    "fallenPastYear", "advisedCaneOrWalker", "unsteadyWhenWalking", "steadiesOnFurniture", "worriedAboutFalling",
    "pushesUpFromChair", "troubleSteppingOntoCurb", "rushesToToilet", "lostFeelingInFeet", "medicineLightheaded",
    "medicineSleepOrMood", "oftenSadOrDepressed")}
# Worried about falling (a key question) and passing every test: level 2, not urgent.
STEPS = {
    "quiz": {"answers": {**NO_ANSWERS, "worriedAboutFalling": True}},
    "sit-to-stand": {"standCount": 14},
    "tandem-stance": {"sideBySideSeconds": 10, "semiTandemSeconds": 10, "tandemSeconds": 10},
    "single-leg-stance": {"singleLegSeconds": 6},
    "tandem-walk": {"stepsCompleted": 10},
}


def analytics(client_id: str, endpoint: str, query: str = "") -> str:
    return f"/api/client/{client_id}/analytics/{endpoint}{query}"


def age_group(born: str, today: dt.date) -> str:
    b = dt.date.fromisoformat(born)
    age = today.year - b.year - ((today.month, today.day) < (b.month, b.day))
    return "90+" if age >= 90 else f"{age // 10 * 10}-{age // 10 * 10 + 9}"


def test_activity_made_through_hosting_reaches_the_admins_dashboard(api, tenant):
    tenant.configure("modules.analytics=true")
    member = tenant.add_member("player", birth_date=BORN, sex="female")
    me = bearer(sign_in(member.email, member.password))
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    today = dt.datetime.now(dt.UTC).date().isoformat()
    window = f"?startDate={today}&endDate={today}"

    # The member's assessment, as the app runs it.
    created = api("POST", "/api/fall-risk", headers=me, json={})
    assert created.status_code == 200, created.text
    result_id = created.json()["fallRiskResultId"]
    for step, body in STEPS.items():
        answer = api("PUT", f"/api/fall-risk/results/{result_id}/{step}", headers=me, json=body)
        assert answer.status_code == 200, (step, answer.text)
    assert answer.json()["result"]["riskLevel"] == 2
    # A lesson the admin sets live, played by the member (the retry counts once).
    lesson = api("POST", "/api/b2b/lessons/catalog", headers=admin, json={"title": {"en": "Balance"}, "isLive": True})
    assert lesson.status_code == 201, lesson.text
    play_id = uuid.uuid4().hex
    for status, expected in (("started", 201), ("completed", 200), ("completed", 200)):
        reported = api("PUT", f"/api/lessons/{lesson.json()['lessonId']}/plays/{play_id}", headers=me,
                       json={"status": status})
        assert reported.status_code == expected, reported.text

    overview = api("GET", analytics(tenant.client_id, "overview"), headers=admin)
    assert overview.status_code == 200, overview.text
    body = overview.json()
    assert body["totalLinkedPlayers"] == 2 and body["metadata"]["linkedPlayers"] == 2
    assert body["riskDistribution"] == {"level1": 0, "level2": 1, "level3": 0, "level4": 0}
    assert (body["highRiskCount"], body["urgentAttentionCount"], body["assessmentCompletionRate"]) == (0, 0, 50.0)
    assert body["ageDistribution"][age_group(BORN, dt.date.fromisoformat(today))] == 1
    assert sum(body["ageDistribution"].values()) == 1
    assert body["metadata"]["isGofaAdmin"] is False and body["metadata"]["queryClientId"] == tenant.client_id

    engagement = api("GET", analytics(tenant.client_id, "engagement-insights", window), headers=admin).json()
    assert engagement["lessons"] == {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1}
    assert engagement["dailyBreakdown"] == [{"date": today, "aiMove": 0, "aiTraining": 0, "lessons": 1,
                                             "nutrition": 0, "waterIntake": 0, "wellnessChat": 0, "vitalScan": 0}]
    assert (engagement["metadata"]["startDate"], engagement["metadata"]["endDate"]) == (today, today)
    lifetime = api("GET", analytics(tenant.client_id, "engagement-insights"), headers=admin).json()
    assert lifetime["lessons"] == engagement["lessons"] and len(lifetime["dailyBreakdown"]) == 30
    assert lifetime["dailyBreakdown"][-1]["date"] == today

    counts = api("GET", analytics(tenant.client_id, "assessment-counts", window), headers=admin).json()
    completed = {"total": 1, "completed": 1, "inProgress": 0, "notStarted": 0}
    assert counts["totals"] == completed and counts["assessments"]["fallRisk"]["byOrigin"]["app"] == completed
    assert counts["byClient"] == [{"clientId": tenant.client_id, "name": f"Test {tenant.client_id}",
                                   "fallRisk": completed, "cognitive": dict.fromkeys(completed, 0),
                                   "msk": dict.fromkeys(completed, 0)}]

    functional = api("GET", analytics(tenant.client_id, "functional-tests", window), headers=admin).json()
    (group,) = [g for g in functional["ageGroups"] if g["results"]]
    assert group == {"ageGroup": age_group(BORN, dt.date.fromisoformat(today)), "results": 1, "averages": {
        "chairStands": 14.0, "tandemStanceSeconds": 10.0, "singleLegStanceSeconds": 6.0, "tandemWalkSteps": 10.0}}
    assert functional["ungroupedResults"] == 0


def test_refusals_through_hosting(api, tenant, other_tenant, platform_admin):
    tenant.configure("modules.analytics=true")
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    player = bearer(sign_in(tenant.player.email, tenant.player.password))
    stranger = bearer(sign_in(other_tenant.admin.email, other_tenant.admin.password))
    cases = [
        ({}, tenant.client_id, "overview", 401, "Missing or invalid Authorization header"),
        (bearer("garbage"), tenant.client_id, "assessment-counts", 401, "Invalid or expired token"),
        (player, tenant.client_id, "engagement-insights", 403, "Admin access required."),
        (stranger, tenant.client_id, "functional-tests", 403, "You do not have access to this client."),
        (stranger, other_tenant.client_id, "overview", 403, "Analytics is not enabled for this client."),
        (platform_admin.headers, "no-such-client-e2e", "overview", 404, "Client not found."),
        (admin, tenant.client_id, "engagement-insights?startDate=2025-02-30&endDate=2025-03-01", 400,
         "startDate must be a date as YYYY-MM-DD."),
        (admin, tenant.client_id, "assessment-counts?startDate=2025-01-01", 400,
         "startDate and endDate must be given together."),
        (admin, tenant.client_id, "functional-tests?startDate=2025-01-02&endDate=2025-01-01", 400,
         "startDate must not be after endDate."),
        (admin, tenant.client_id, "engagement-insights?startDate=2025-01-01&endDate=2026-01-02", 400,
         "The range may span at most 366 days."),
        (admin, tenant.client_id, f"assessment-counts?startDate=2025-01-01{'0' * 5000}&endDate=2025-01-02", 400,
         "startDate must be a date as YYYY-MM-DD."),
    ]
    for headers, client_id, endpoint, status, message in cases:
        answer = api("GET", analytics(client_id, endpoint), headers=headers)
        assert (answer.status_code, answer.json()) == (status, {"error": message}), (endpoint, status)
        assert answer.headers["x-request-id"]


def test_a_platform_administrator_and_the_dashboard_page(api, tenant, platform_admin, operator_tenant):
    platform = bearer(sign_in(platform_admin.email, platform_admin.password))
    read = api("GET", analytics(tenant.client_id, "overview"), headers=platform)
    assert read.status_code == 200 and read.json()["metadata"]["isGofaAdmin"] is True
    broad = api("GET", analytics(operator_tenant.client_id, "engagement-insights"), headers=platform)
    assert broad.status_code == 200 and broad.json()["metadata"]["queryClientId"] == operator_tenant.client_id

    offered = api("GET", "/api/analytics/clients", headers=platform)
    assert offered.status_code == 200 and offered.json()["truncated"] is False
    rows = {row["clientId"]: row for row in offered.json()["clients"]}
    assert rows[tenant.client_id] == {"clientId": tenant.client_id, "name": f"Test {tenant.client_id}",
                                      "isOperator": False, "analytics": False}
    assert rows[operator_tenant.client_id]["isOperator"] is True
    own = api("GET", "/api/analytics/clients", headers=bearer(sign_in(tenant.admin.email, tenant.admin.password)))
    assert [row["clientId"] for row in own.json()["clients"]] == [tenant.client_id]

    config = api("GET", "/api/analytics/config")
    assert config.status_code == 200
    assert config.json()["firebase"]["projectId"] == "demo-wellness" and config.json()["authEmulatorUrl"]

    page = requests.get(BASE_URL + "/admin/analytics", timeout=60)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "frame-ancestors 'none'" in page.headers.get("Content-Security-Policy", "")
