"""AI Move's caps (issue 25; README, AI Move: Limits): every request field has a documented bound in the OpenAPI
document and the bound is the enforced one; query strings over their cap are refused naming the field; an
exercise's algorithm, read with every catalog listing, is capped where the operator writes it. Session numbers
at and over their caps: test_session_updates."""

import json

import pytest

from support import caps
from tests.ai_move.conftest import SESSIONS, make_exercise, start
from tests.conftest import assert_error
from tests.ops.test_cli import platformctl
from wellness_api.ai_move import models, service
from wellness_api.openapi import document

RECORDS = "/api/ai-move/records"
TOO_LONG = "Invalid field {field}: String should have at most {cap} characters."


def test_every_request_field_of_ai_move_is_bounded_in_the_openapi_document():
    assert [row for row in caps.violations(document.build()) if row[0] == "AI Move"] == []


def test_the_documented_bounds_are_the_enforced_ones():
    doc = document.build()
    schemas = doc["components"]["schemas"]
    update = schemas["UpdateAiMoveSessionBody"]["properties"]
    assert update["durationSeconds"]["anyOf"][0]["maximum"] == models.MAX_SECONDS
    assert update["caloriesBurned"]["anyOf"][0]["maximum"] == models.MAX_CALORIES
    assert update["poseAccuracy"]["anyOf"][0] == {"type": "number", "minimum": 0, "maximum": 1}
    assert update["formViolations"]["anyOf"][0]["maxItems"] == models.MAX_VIOLATIONS
    violation = schemas["AiMoveFormViolationBody"]["properties"]
    assert violation["weight"]["maximum"] == models.MAX_WEIGHT and violation["violationRate"]["maximum"] == 1
    create = schemas["CreateAiMoveSessionBody"]["properties"]
    assert create["targetDurationSeconds"]["anyOf"][0] == {"type": "number", "minimum": 1,
                                                           "maximum": models.MAX_SECONDS}
    for path, page_max in ((SESSIONS, models.SESSIONS_PAGE_MAX), (RECORDS, models.RECORDS_PAGE_MAX)):
        params = {p["name"]: p["schema"] for p in doc["paths"][path]["get"]["parameters"]}
        assert (params["limit"]["minimum"], params["limit"]["maximum"]) == (1, page_max)
        assert params["startAfter"]["anyOf"][0]["maxLength"] == models.MAX_ID


def test_session_numbers_over_their_caps_are_refused(http, mover):
    session = start(http, mover.player, mover.timer, "timer")["sessionId"]
    for field, value, cap in (("durationSeconds", 86_400.5, models.MAX_SECONDS),
                              ("caloriesBurned", 100_001, models.MAX_CALORIES),
                              ("formScore", 1.01, 1)):
        response = http.patch(f"{SESSIONS}/{session}", json={field: value}, headers=mover.player.headers)
        assert_error(response, 400, f"Invalid field {field}: Input should be less than or equal to {cap}.")
    over = http.post(SESSIONS, json={"exerciseId": mover.timer, "exerciseType": "timer",
                                     "targetDurationSeconds": models.MAX_SECONDS + 1}, headers=mover.player.headers)
    assert_error(over, 400, f"Invalid field targetDurationSeconds: Input should be less than or equal to "
                            f"{models.MAX_SECONDS}.")
    assert start(http, mover.player, mover.timer, "timer", targetDurationSeconds=models.MAX_SECONDS)


def test_form_violations_at_and_over_their_caps(http, mover):
    session = start(http, mover.player, mover.rep)["sessionId"]

    def violation(index: int, weight=models.MAX_WEIGHT) -> dict:
        return {"key": f"k{index}", "label": "L" * 200, "weight": weight, "totalChecks": models.MAX_CHECKS,
                "violationCount": 0, "violationRate": 1}

    full = [violation(i) for i in range(models.MAX_VIOLATIONS)]
    response = http.patch(f"{SESSIONS}/{session}", json={"formViolations": full}, headers=mover.player.headers)
    assert response.status_code == 200, response.json
    over = http.patch(f"{SESSIONS}/{session}", json={"formViolations": [*full, violation(99)]},
                      headers=mover.player.headers)
    assert_error(over, 400, "Invalid field formViolations: List should have at most 50 items after validation, "
                            "not 51.")
    heavy = http.patch(f"{SESSIONS}/{session}", json={"formViolations": [violation(0, models.MAX_WEIGHT + 1)]},
                       headers=mover.player.headers)
    assert_error(heavy, 400, "Invalid field formViolations.0.weight: Input should be less than or equal to 1000.")


@pytest.mark.parametrize(("path", "name", "at_cap_status"), [
    (SESSIONS, "startAfter", 200), (RECORDS, "startAfter", 200), (RECORDS, "clientId", 403),
])
def test_query_ids_at_and_over_the_cap(http, mover, path, name, at_cap_status):
    caller = mover.admin if path == RECORDS else mover.player
    # At the cap the id is used (a cursor pages, another client's id is refused as another client's).
    assert http.get(f"{path}?{name}={'0' * models.MAX_ID}", headers=caller.headers).status_code == at_cap_status
    assert_error(http.get(f"{path}?{name}={'0' * (models.MAX_ID + 1)}", headers=caller.headers), 400,
                 TOO_LONG.format(field=name, cap=models.MAX_ID))


# ------------------------------------------------------------------------------------ the catalog's algorithm


def _algorithm_of_size(size: int) -> dict:
    algorithm = {"mode": "rep-count", "note": ""}
    algorithm["note"] = "n" * (size - len(json.dumps(algorithm, separators=(",", ":"))))
    return algorithm


def test_an_algorithm_at_the_cap_is_stored_one_byte_over_is_refused(mover):
    at_cap = _algorithm_of_size(models.MAX_ALGORITHM_BYTES)
    exercise_id = make_exercise(mover.client, "rep", algorithm=at_cap)
    assert service.find_exercise(mover.client, exercise_id)["algorithm"] == at_cap
    with pytest.raises(ValueError, match="algorithm must be at most 4096 bytes of JSON, not 4097"):
        make_exercise(mover.client, "rep", algorithm=_algorithm_of_size(models.MAX_ALGORITHM_BYTES + 1))
    keys = {"mode": "hold", **{f"k{i}": i for i in range(models.MAX_ALGORITHM_KEYS)}}
    with pytest.raises(ValueError, match="at most 50 items"):
        make_exercise(mover.client, "timer", algorithm=keys)


def test_platformctl_refuses_an_algorithm_over_the_cap_and_writes_nothing(mover):
    """Regression: a 100 KB algorithm was stored, and then read with every listing of the client's catalog."""
    before = service.catalog(mover.client)
    result = platformctl("exercise", "create", "--client-id", mover.client_id, "--name", "Huge", "--type", "rep",
                         "--target-value", "10", "--algorithm", json.dumps(_algorithm_of_size(100_000)),
                         check=False)
    assert result.returncode != 0
    assert "algorithm must be at most 4096 bytes of JSON" in result.stderr
    assert service.catalog(mover.client) == before
