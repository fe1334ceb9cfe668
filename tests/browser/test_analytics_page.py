"""The administrators' analytics dashboard /admin/analytics through Hosting, in a real browser (CONTRACT 6, spec 4.10).

Headless Chromium (Debian's /usr/bin/chromium, or DEVSTACK_CHROMIUM) opens the page through
web/analytics-check.mjs (playwright-core) and does what a person does: types the demo world's credentials into
the sign-in form (the Firebase JS SDK against the Auth emulator, whose URL the page reads from
/api/analytics/config), reads the cards, tables and chart pixels on screen, picks ranges and clients, and signs
out. Three sessions: the demo-fitness administrator (the default range, the last 7 days, a phone-sized screen,
a range whose start is after its end, sign out), the platform administrator (the broad view of the operator
tenant, the client picker, a reload) and the demo player (a mistyped password first, then refused). Every
figure on screen is compared with the API's answer to the same account for the same range. No request may
leave the machine, no script or style may break the Content-Security-Policy, and the console holds nothing but
Chromium's own line for an expected 4xx.

Screenshots land in .devstack/screenshots[-offsetN]/analytics-{admin,platform,player}/ (NN-step.png); the
tests print the paths.
"""

import datetime as dt
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.browser import driver
from tests.browser.driver import ROOT, SHOTS
from tests.conftest import BASE_URL, bearer, sign_in
from wellness_api.ops import demo as world_demo

# serial: the platform administrator's picker lists every client of the database, which the tests run side by
# side (devstack/test_suite.sh) keep adding to.
pytestmark = [pytest.mark.e2e, pytest.mark.serial]

PAGE = BASE_URL + "/admin/analytics"
BUILT = ROOT / "public" / "admin" / "analytics"
MODULES = {  # what the page shows per module: the API's fields, in order
    "lessons": ("activeUsers", "totalPlays", "completedPlays"),
    "aiMove": ("activeUsers", "totalSessions", "completedSessions", "totalReps"),
    "wellnessChat": ("activeUsers", "totalChats", "totalMessages"),
    "vitalScan": ("activeUsers", "totalScans", "completedScans"),
}
RISK_LEVELS = ("level1", "level2", "level3", "level4")
AGE_GROUPS = ("30-39", "40-49", "50-59", "60-69", "70-79", "80-89", "90+")


def _today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


# A range whose start is after its end (the page sends it; the API refuses it).
BAD_START, BAD_END = (_today() - dt.timedelta(days=2)).isoformat(), (_today() - dt.timedelta(days=12)).isoformat()


@pytest.fixture(scope="module")
def world(emulators) -> dict:
    """The demo world (seeded in-process, idempotent, without a reset) and its three accounts."""
    seeded = world_demo.seed()
    fitness = next(c for c in seeded["clients"] if c["clientId"] == "demo-fitness")
    accounts = {"admin": fitness["admin"], "player": fitness["player"], "platform": seeded["operator"]["admin"]}
    return {name: {"email": a["email"], "password": a["password"], "headers": bearer(sign_in(a["email"], a["password"]))}
            for name, a in accounts.items()}


def _drive(account: dict, name: str, *steps: str, extra: tuple[str, ...] = ()) -> dict:
    driver.require(BUILT / "analytics.js", BUILT / "analytics.css")
    args = ["--url", PAGE, "--email", account["email"], "--password", account["password"],
            "--shots", str(SHOTS / f"analytics-{name}"), *extra]
    for step in steps:
        args += ["--step", step]
    return driver.run("analytics-check.mjs", *args, timeout=180)


@pytest.fixture(scope="module")
def admin_run(world) -> dict:
    return _drive(world["admin"], "admin", "preset:7", "viewport:390x844", "viewport:1280x900",
                  f"range:{BAD_START}..{BAD_END}", "signout")


@pytest.fixture(scope="module")
def platform_run(world) -> dict:
    return _drive(world["platform"], "platform", "client:demo-fitness", "reload")


@pytest.fixture(scope="module")
def player_run(world) -> dict:
    return _drive(world["player"], "player", "signout", extra=("--wrong-password", "not-the-password"))


def _snap(report: dict, name: str) -> dict:
    return next(s for s in report["snapshots"] if s["name"] == name)


def _api(path: str, headers: dict, status: int = 200, **query) -> dict:
    response = requests.get(BASE_URL + path, params=query, headers=headers, timeout=60)
    assert response.status_code == status, (path, query, response.status_code, response.text)
    return response.json()


def _figures(client_id: str, headers: dict, start: str, end: str) -> dict:
    base = f"/api/client/{client_id}/analytics"
    return {"overview": _api(f"{base}/overview", headers),
            "engagement": _api(f"{base}/engagement-insights", headers, startDate=start, endDate=end),
            "assessments": _api(f"{base}/assessment-counts", headers, startDate=start, endDate=end),
            "functional": _api(f"{base}/functional-tests", headers, startDate=start, endDate=end)}


def _n(value) -> str:
    return f"{value:,}"


def _one(value) -> str:
    return "–" if value is None else f"{value:,.1f}"


def _assert_overview_shown(snap: dict, overview: dict) -> None:
    """The cards, the two tables behind the charts, and the charts drawn (bars: coloured pixels)."""
    age = overview["averageAge"]
    assert snap["overview"] == {
        "totalLinkedPlayers": _n(overview["totalLinkedPlayers"]),
        "highRiskCount": _n(overview["highRiskCount"]),
        "urgentAttentionCount": _n(overview["urgentAttentionCount"]),
        "averageAge": f"{age:.1f} years" if age > 0 else "– no dates of birth",
        "assessmentCompletionRate": f"{overview['assessmentCompletionRate']:.1f}%",
    }
    risk = [_n(overview["riskDistribution"][level]) for level in RISK_LEVELS]
    assert [row[1] for row in snap["tables"]["risk-table"][1:]] == risk
    ages = snap["tables"]["age-table"]
    assert ages[1:] == [[group, _n(overview["ageDistribution"][group])] for group in AGE_GROUPS]
    for chart in ("risk", "age"):
        drawn = snap["charts"][chart]
        assert drawn["shownWidth"] > 200 and drawn["shownHeight"] >= 200, drawn
        assert drawn["coloured"] > 2_000, f"the {chart} chart has no bars: {drawn}"
    # The chart's text alternative says the same numbers.
    assert all(f"{label}: {n}" in snap["charts"]["risk"]["label"] for label, n in
               zip(("Level 1 (low)", "Level 2 (mild)", "Level 3 (moderate)", "Level 4 (high)"), risk, strict=True))


def _assert_engagement_shown(snap: dict, engagement: dict) -> None:
    """Each module's card, and the daily table (one row per day of the range) and chart."""
    assert snap["engagement"] == {
        module: {"title": snap["engagement"][module]["title"], **{f: _n(engagement[module][f]) for f in fields}}
        for module, fields in MODULES.items()}
    days = engagement["dailyBreakdown"]
    assert snap["tables"]["daily-table"] == [
        ["Date", "Lessons", "AI Move", "Wellness chat", "Vital Scan"],
        *[[d["date"], *(_n(d[m]) for m in MODULES)] for d in days]]
    assert snap["captions"]["daily-table"] == f"Active users per day ({len(days)} days, UTC)"
    drawn = snap["charts"]["daily"]
    assert drawn["coloured"] > 500 and f"over {len(days)} days" in drawn["label"], drawn


def _assert_range_tables_shown(snap: dict, figures: dict) -> None:
    fall = figures["assessments"]["assessments"]["fallRisk"]
    states = ("total", "completed", "inProgress", "notStarted")
    assert snap["tables"]["assessments-table"][1] == ["All", *(_n(fall[s]) for s in states)]
    assert snap["tables"]["assessments-table"][2:] == [
        [label, *(_n(fall["byOrigin"][origin][s]) for s in states)]
        for origin, label in (("app", "In the app"), ("clinician", "By a clinician"), ("partner", "By a partner"))]
    functional = figures["functional"]
    measures = ("chairStands", "tandemStanceSeconds", "singleLegStanceSeconds", "tandemWalkSteps")
    assert snap["tables"]["functional-table"][1:] == [
        *[[g["ageGroup"], _n(g["results"]), *(_one(g["averages"][m]) for m in measures)] for g in functional["ageGroups"]],
        ["All groups", _n(functional["overall"]["results"]), *(_one(functional["overall"]["averages"][m]) for m in measures)]]


def _assert_clean(report: dict, *expected_statuses: int) -> None:
    """Nothing left the machine, nothing broke; the console holds only Chromium's own line for each expected 4xx
    answer the page received (and shows)."""
    assert report["offHost"] == [], report["offHost"]
    assert report["failed"] == [] and report["pageErrors"] == [], (report["failed"], report["pageErrors"])
    assert report["cspViolations"] == [], report["cspViolations"]
    refused = [int(line.split()[0]) for line in report["api"] + report["auth"] if int(line.split()[0]) >= 400]
    assert sorted(set(refused)) == sorted(expected_statuses), report["api"]
    allowed = {f"error: Failed to load resource: the server responded with a status of {status} " for status in refused}
    unexpected = [line for line in report["console"] if not any(line.startswith(a) for a in allowed)]
    assert unexpected == [], report["console"]
    # Every request went to this stack's Hosting or to the Auth emulator the page was configured with.
    config = _api("/api/analytics/config", {})
    origins = {re.match(r"^\S+ (https?://[^/]+)", line).group(1) for line in report["requests"]}
    assert origins <= {BASE_URL, config["authEmulatorUrl"]}, origins
    assert {line.split()[2].split("/identitytoolkit")[0] for line in report["auth"]} == {config["authEmulatorUrl"]}


def _print_shots(capsys, what: str, report: dict) -> None:
    for snap in report["snapshots"]:
        assert Path(snap["shot"]).stat().st_size > 10_000, snap["shot"]
    with capsys.disabled():
        print(f"\n[analytics page, {what}] {report['timings']}; screenshots {[s['shot'] for s in report['snapshots']]}")


# ------------------------------------------------------------------------------------------------------- tests


def test_the_page_is_served_with_its_headers_and_bundle():
    response = requests.get(PAGE, timeout=30)
    assert response.status_code == 200 and response.url == PAGE + "/"  # Hosting adds the folder's slash (301)
    assert response.history and response.history[0].status_code == 301
    assert '<script type="module" src="/admin/analytics/analytics.js">' in response.text
    assert '<link rel="stylesheet" href="/admin/analytics/analytics.css">' in response.text
    headers = response.headers
    csp = {d.split()[0]: d.split()[1:] for d in (part.strip() for part in headers["Content-Security-Policy"].split(";"))}
    assert csp["default-src"] == ["'none'"] and csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    # Under the emulators the page also reaches the Auth emulator on this machine (devstack adds it)...
    assert set(csp["connect-src"]) == {"'self'", "http://127.0.0.1:*", "http://localhost:*",
                                       "https://identitytoolkit.googleapis.com", "https://securetoken.googleapis.com"}
    # ...while what production serves (firebase.json) allows Firebase Auth's own origins only.
    deployed = next(rule for rule in json.loads((ROOT / "firebase.json").read_text())["hosting"]["headers"]
                    if rule["source"] == "/admin/**")
    deployed_csp = next(h["value"] for h in deployed["headers"] if h["key"] == "Content-Security-Policy")
    assert "127.0.0.1" not in deployed_csp and "localhost" not in deployed_csp
    assert "connect-src 'self' https://identitytoolkit.googleapis.com https://securetoken.googleapis.com;" in deployed_csp
    assert headers["X-Frame-Options"] == "DENY" and headers["Referrer-Policy"] == "same-origin"
    assert headers["Cache-Control"] == "no-cache"
    for name in ("analytics.js", "analytics.css"):
        served = requests.get(f"{PAGE}/{name}", timeout=30)
        assert served.status_code == 200 and served.content == (BUILT / name).read_bytes()
        assert served.headers["Cache-Control"] == "no-cache"
    # The page's settings: the Auth emulator here, on this machine.
    config = _api("/api/analytics/config", {})
    assert config["firebase"]["projectId"] and urlsplit(config["authEmulatorUrl"]).hostname in {"127.0.0.1", "localhost"}


def test_a_client_admin_signs_in_and_sees_the_overview_and_engagement_of_the_last_30_days(admin_run, world, capsys):
    form = _snap(admin_run, "signin-form")
    assert form["view"] == "signin" and form["signInShown"] and not form["signOutShown"]
    assert form["overview"] == {} and form["engagement"] == {}
    assert admin_run["finalUrl"] == PAGE + "/" and admin_run["title"] == "Analytics · Wellness Platform"

    snap = _snap(admin_run, "signed-in")
    assert snap["view"] == "dashboard" and snap["signOutShown"] and not snap["signInShown"]
    assert snap["who"] == "admin@demo-fitness.example · administrator of Demo Fitness"
    assert snap["clientTitle"] == "Demo Fitness" and "Demo Fitness" in snap["headings"]
    assert not snap["pickerShown"]  # the picker is for platform administrators
    # The default range: the last 30 days (UTC), today included.
    end = dt.date.fromisoformat(snap["end"])
    assert end in {_today(), _today() - dt.timedelta(days=1)}  # (a run across midnight UTC)
    assert dt.date.fromisoformat(snap["start"]) == end - dt.timedelta(days=29)
    assert parse_qs(urlsplit(snap["url"]).query) == {"client": ["demo-fitness"], "start": [snap["start"]],
                                                      "end": [snap["end"]]}

    figures = _figures("demo-fitness", world["admin"]["headers"], snap["start"], snap["end"])
    overview, engagement = figures["overview"], figures["engagement"]
    # The demo world has players, fall-risk results and four weeks of lesson plays: the figures are not all zero.
    assert overview["totalLinkedPlayers"] > 0 and overview["highRiskCount"] > 0
    assert engagement["lessons"]["totalPlays"] > 0 and len(engagement["dailyBreakdown"]) == 30
    _assert_overview_shown(snap, overview)
    _assert_engagement_shown(snap, engagement)
    _assert_range_tables_shown(snap, figures)
    assert snap["tables"]["by-client-table"] is None  # one client: no breakdown by client
    assert snap["engagementRange"].endswith(str(end.year)) and snap["errors"] == {} and not snap["rangeError"]
    _assert_clean(admin_run, 400)  # the 400s: the bad range of the last test below
    _print_shots(capsys, "client admin", admin_run)


def test_a_shorter_range_reloads_the_engagement_figures(admin_run, world):
    thirty, seven = _snap(admin_run, "signed-in"), _snap(admin_run, "preset-7")
    assert seven["end"] == thirty["end"]
    assert dt.date.fromisoformat(seven["start"]) == dt.date.fromisoformat(seven["end"]) - dt.timedelta(days=6)
    figures = _figures("demo-fitness", world["admin"]["headers"], seven["start"], seven["end"])
    _assert_engagement_shown(seven, figures["engagement"])
    _assert_range_tables_shown(seven, figures)
    assert len(seven["tables"]["daily-table"]) == 1 + 7
    assert [row[0] for row in seven["tables"]["daily-table"][1:]] == [
        (dt.date.fromisoformat(seven["start"]) + dt.timedelta(days=n)).isoformat() for n in range(7)]
    # Fewer plays in 7 days than in 30 (the demo players play every few days), and the overview stays.
    assert int(seven["engagement"]["lessons"]["totalPlays"].replace(",", "")) < int(
        thirty["engagement"]["lessons"]["totalPlays"].replace(",", ""))
    assert seven["overview"] == thirty["overview"]
    query = f"?startDate={seven['start']}&endDate={seven['end']}"
    asked = [line for line in admin_run["api"] if query in line]
    assert sorted(line.split("/analytics/")[1].split("?")[0] for line in asked) == [
        "assessment-counts", "engagement-insights", "functional-tests"]  # the overview does not depend on the range
    assert all(line.startswith("200 ") for line in asked)


def test_the_dashboard_fits_a_phone(admin_run):
    phone = _snap(admin_run, "viewport-390x844")
    assert phone["viewportWidth"] == 390 and phone["pageWidth"] <= 390, phone["pageWidth"]
    for chart in ("risk", "age", "daily"):
        assert phone["charts"][chart]["shownWidth"] <= 360 and phone["charts"][chart]["coloured"] > 200, phone["charts"]
    assert phone["overview"] == _snap(admin_run, "preset-7")["overview"]


def test_a_start_after_the_end_shows_the_apis_message_and_no_figures_of_that_range(admin_run, world):
    bad = _snap(admin_run, f"range-{BAD_START}..{BAD_END}")
    message = _api("/api/client/demo-fitness/analytics/engagement-insights", world["admin"]["headers"], status=400,
                   startDate=BAD_START, endDate=BAD_END)["error"]
    assert message == "startDate must not be after endDate."
    assert bad["rangeError"] == message and (bad["start"], bad["end"]) == (BAD_START, BAD_END)
    # The range's figures are gone (not the previous range's under the new dates); the overview stays.
    assert bad["engagement"] == {} and bad["tables"]["daily-table"] is None
    assert bad["tables"]["assessments-table"] is None and bad["tables"]["functional-table"] is None
    assert not any(h.startswith(("Engagement", "Assessments", "Functional")) for h in bad["headings"])
    assert bad["overview"] == _snap(admin_run, "signed-in")["overview"] and bad["errors"] == {}
    assert sum(f"startDate={BAD_START}&endDate={BAD_END}" in line for line in admin_run["api"]) == 3


def test_signing_out_leaves_no_figures(admin_run):
    out = _snap(admin_run, "signout")
    assert out["view"] == "signin" and out["signInShown"] and not out["signOutShown"]
    assert out["message"] == "You are signed out." and out["focused"] == "signin-title"
    assert out["overview"] == {} and out["engagement"] == {} and out["who"] is None
    assert urlsplit(out["url"]).query == ""  # the next administrator starts from the defaults
    assert not re.search(r"\d", out["mainText"]), out["mainText"]


def test_the_platform_admin_sees_every_client_and_switches_to_one(platform_run, admin_run, world, capsys):
    snap = _snap(platform_run, "signed-in")
    headers = world["platform"]["headers"]
    listed = _api("/api/analytics/clients", headers)["clients"]
    assert snap["view"] == "dashboard" and snap["who"] == "admin@operator.example · platform administrator"
    # The picker: every client, the operator tenant (the broad view, its own client) first and chosen.
    assert snap["pickerShown"]
    assert sorted(o["value"] for o in snap["pickerOptions"]) == sorted(c["clientId"] for c in listed)
    # (the operator's name as the API has it: other tests may have renamed the shared operator tenant)
    operator = next(c for c in listed if c["isOperator"])
    assert snap["pickerOptions"][0] == {"value": operator["clientId"], "label": f"{operator['name']} (every client)"}
    assert {"value": "demo-fitness", "label": "Demo Fitness (demo-fitness)"} in snap["pickerOptions"]
    assert snap["pickerValue"] == "operator" and snap["clientTitle"] == "All clients (platform view)"
    broad = _figures("operator", headers, snap["start"], snap["end"])
    _assert_overview_shown(snap, broad["overview"])
    _assert_engagement_shown(snap, broad["engagement"])
    fitness = _figures("demo-fitness", headers, snap["start"], snap["end"])
    # Every client's players: at least demo-fitness's.
    assert broad["overview"]["totalLinkedPlayers"] >= fitness["overview"]["totalLinkedPlayers"] > 0
    assert ["Demo Fitness (demo-fitness)", *(_n(fitness["assessments"]["assessments"]["fallRisk"][s]) for s in
            ("total", "completed", "inProgress", "notStarted"))] in snap["tables"]["by-client-table"]

    switched = _snap(platform_run, "client-demo-fitness")
    assert switched["pickerValue"] == "demo-fitness" and switched["clientTitle"] == "Demo Fitness"
    _assert_overview_shown(switched, fitness["overview"])
    _assert_engagement_shown(switched, fitness["engagement"])
    _assert_range_tables_shown(switched, fitness)
    assert switched["tables"]["by-client-table"] is None
    # The demo administrator saw the same figures for the same client and range.
    own = _snap(admin_run, "signed-in")
    if (own["start"], own["end"]) == (switched["start"], switched["end"]):
        assert (switched["overview"], switched["engagement"]) == (own["overview"], own["engagement"])

    # A reload keeps the sign-in (for the tab) and the chosen client and range (in the address).
    again = _snap(platform_run, "reload")
    assert again["view"] == "dashboard" and again["pickerValue"] == "demo-fitness"
    assert again["overview"] == switched["overview"] and (again["start"], again["end"]) == (snap["start"], snap["end"])
    _assert_clean(platform_run)
    _print_shots(capsys, "platform admin", platform_run)


def test_a_player_is_told_that_admin_access_is_required(player_run, world, capsys):
    # First a mistyped password: the form says so (the Auth emulator's 400) and nothing else happens.
    wrong = _snap(player_run, "wrong-password")
    assert wrong["view"] == "signin" and wrong["signinError"] == "The email address or the password is wrong."
    assert wrong["focused"] == "password" and not wrong["signOutShown"]
    assert player_run["auth"][0].startswith("400 POST ") and player_run["auth"][0].endswith("accounts:signInWithPassword")

    snap = _snap(player_run, "signed-in")
    refusal = _api("/api/analytics/clients", world["player"]["headers"], status=403)["error"]
    assert refusal == "Admin access required."
    assert snap["view"] == "denied" and snap["denied"] == refusal and snap["focused"] == "denied-title"
    assert "No access to analytics" in snap["headings"] and snap["signOutShown"]
    # No numbers, no picker, no charts, and no analytics request beyond the refused list.
    assert snap["overview"] == {} and snap["engagement"] == {} and not snap["pickerShown"]
    assert snap["charts"] == {"risk": None, "age": None, "daily": None}
    assert not re.search(r"\d", snap["mainText"]), snap["mainText"]
    assert [line.split("?")[0] for line in player_run["api"]] == [
        "200 GET /api/analytics/config", "403 GET /api/analytics/clients"]
    out = _snap(player_run, "signout")
    assert out["view"] == "signin" and out["denied"] is None
    _assert_clean(player_run, 400, 403)
    _print_shots(capsys, "player", player_run)
