"""The scoring rules as the API (GET /api/fall-risk/rules) and platformctl (`fallrisk rules`) publish them."""

from tests.ops.test_cli import expect_failures, run_json
from wellness_api.fall_risk import rules

RULES = "/api/fall-risk/rules"


def test_an_app_reads_the_statements_it_asks_and_the_thresholds(http, tenant):
    response = http.get(RULES, headers=tenant.player.headers)
    assert response.status_code == 200
    published = response.json["rules"]
    assert published["version"] == rules.CURRENT.version == "steadi-v1"
    questions = published["questions"]
    assert len(questions) == 12 and sum(q["points"] for q in questions) == 14
    assert [q["points"] for q in questions[:2]] == [2, 2] and {q["points"] for q in questions[2:]} == {1}
    assert [q["key"] for q in questions if q["keyQuestion"]] == [
        "fallenPastYear", "unsteadyWhenWalking", "worriedAboutFalling"]
    assert questions[0] == {"key": "fallenPastYear", "text": "I have fallen in the past year.", "points": 2,
                            "loinc": "52552-7", "keyQuestion": True}
    assert published["questionnaireAtRiskTotal"] == 4 and published["balanceHoldSeconds"] == 10
    assert published["chairStandNorms"][0] == {"ages": "60-64", "menBelowAverageUnder": 14,
                                               "womenBelowAverageUnder": 12}
    assert [level["label"] for level in published["riskLevels"]] == ["low", "mild", "moderate", "high"]
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_the_rules_need_a_token(http):
    response = http.get(RULES)
    assert response.status_code == 401 and response.json == {"error": "Missing or invalid Authorization header"}


def test_platformctl_prints_the_current_rules_and_refuses_an_unknown_version():
    printed = run_json("fallrisk", "rules")
    assert printed == {**rules.describe(), "current": True}
    assert run_json("fallrisk", "rules", "--version", "steadi-v1")["version"] == "steadi-v1"
    expect_failures(("fallrisk", "rules"), [(["--version", "steadi-v0"], "unknown rules version steadi-v0")])
