"""PUT /api/fall-risk/results/{id}/{step}: the five step bodies, the flow created -> in-progress -> completed, who
may record, scoring with the rules version of the moment, and a completion that counts exactly once however the
last steps race. Real emulators and ID tokens throughout; each thread of a race has its own Flask test client, as
separate requests of separate instances would."""

import collections
import concurrent.futures
import dataclasses
import datetime as dt
import functools
import types
import uuid

import pytest

from tests.conftest import Tenant, assert_error, bearer, until_done
from tests.fall_risk.conftest import HEALTHY, NO_ANSWERS, RESULTS, born_aged, complete, create, quiz, record
from wellness_api.api_keys import service as api_keys
from wellness_api.core import client_tokens, clock
from wellness_api.core.rollups import day_of
from wellness_api.fall_risk import rules, service
from wellness_api.fall_risk.routes import app

ORDER = ("quiz", "sitToStand", "tandemStance", "singleLegStance", "tandemWalk")  # stepsRemaining lists them so
SEGMENTS = {"quiz": "quiz", "sitToStand": "sit-to-stand", "tandemStance": "tandem-stance",
            "singleLegStance": "single-leg-stance", "tandemWalk": "tandem-walk"}
# Every step as stored: the body with its defaults filled in (a quiz keeps birthDate and sex on the participant).
HEALTHY_STORED = {
    "quiz": {"answers": NO_ANSWERS, "fallsPastYear": None, "injuredInFall": None},
    "sitToStand": {"standCount": 15, "usedArms": False},
    "tandemStance": {"sideBySideSeconds": 10, "semiTandemSeconds": 10, "tandemSeconds": 10},
    "singleLegStance": {"singleLegSeconds": 10},
    "tandemWalk": {"stepsCompleted": 10, "missteps": 0, "neededSupport": False, "durationSeconds": None},
}


def read(http, member, result_id: str) -> dict:
    response = http.get(f"{RESULTS}/{result_id}", headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json["result"]


def recorded(result: dict) -> dict:
    """The recorded steps without their recording times."""
    return {step: None if body is None else {k: v for k, v in body.items() if k != "recordedAt"}
            for step, body in result["steps"].items()}


def today_activity(client_id: str) -> dict:
    today = day_of()
    return service.daily_activity(client_id, today, today).get(today, {})


def partner(tenant) -> types.SimpleNamespace:
    """A client token of the tenant, shaped like a Member for the conftest helpers."""
    key = api_keys.create_key(tenant.client_id, "partner", False, created_by="test").api_key
    return types.SimpleNamespace(headers=bearer(client_tokens.sign(tenant.client_id, key["keyId"])))


# ------------------------------------------------------------------------------------ bodies


@pytest.fixture(scope="module")
def untouched(emulators):
    """One result shared by the validation cases: a refused body must leave it exactly as created."""
    tenant = Tenant(f"t-{uuid.uuid4().hex[:12]}")
    result_id = create(app.test_client(), tenant.player)["fallRiskResultId"]
    return tenant.player, result_id


def with_answer(**answers) -> dict:
    return {"answers": {**NO_ANSWERS, **answers}}


def without_answer(item: str) -> dict:
    return {"answers": {k: v for k, v in NO_ANSWERS.items() if k != item}}


def integer(field: str) -> str:
    return f"Invalid field {field}: Input should be a valid integer."


def boolean(field: str) -> str:
    return f"Invalid field {field}: Input should be a valid boolean."


def at_least(field: str, limit: int) -> str:
    return f"Invalid field {field}: Input should be greater than or equal to {limit}."


def at_most(field: str, limit: int) -> str:
    return f"Invalid field {field}: Input should be less than or equal to {limit}."


def stances(side, semi=None, tandem=None) -> dict:
    return {"sideBySideSeconds": side, "semiTandemSeconds": semi, "tandemSeconds": tandem}


FALLS_DISAGREE = "fallsPastYear must be at least 1 when fallenPastYear is true, and 0 when it is false."
BAD_BIRTH_DATE = "Invalid field birthDate: must be a YYYY-MM-DD date, not in the future."
BAD_SEX = "Invalid field sex: Input should be 'female' or 'male'."


def tomorrow() -> str:
    return (clock.now().date() + dt.timedelta(days=1)).isoformat()


# (step, body, the exact error)
INVALID = [
    # quiz: all 12 answers, booleans only, nothing else
    ("quiz", {}, "Missing required field: answers."),
    *[("quiz", without_answer(item), f"Missing required field: answers.{item}.") for item in NO_ANSWERS],
    ("quiz", with_answer(rushesToToilet=1), boolean("answers.rushesToToilet")),
    ("quiz", with_answer(fallenPastYear="yes"), boolean("answers.fallenPastYear")),
    ("quiz", with_answer(worriedAboutFalling=None), boolean("answers.worriedAboutFalling")),
    ("quiz", with_answer(fellDown=True), "Unknown field: answers.fellDown."),
    ("quiz", {**quiz(), "age": 72}, "Unknown field: age."),
    # quiz: the fall history agrees with the first answer
    ("quiz", quiz(fallsPastYear="1"), integer("fallsPastYear")),
    ("quiz", quiz(("fallenPastYear",), fallsPastYear=1.0), integer("fallsPastYear")),
    ("quiz", quiz(fallsPastYear=-1), at_least("fallsPastYear", 0)),
    ("quiz", quiz(("fallenPastYear",), fallsPastYear=101), at_most("fallsPastYear", 100)),
    ("quiz", quiz(fallsPastYear=1), FALLS_DISAGREE),
    ("quiz", quiz(("fallenPastYear",), fallsPastYear=0), FALLS_DISAGREE),
    ("quiz", quiz(injuredInFall=True), "injuredInFall needs fallenPastYear true."),
    ("quiz", quiz(injuredInFall=True, fallsPastYear=0), "injuredInFall needs fallenPastYear true."),
    ("quiz", quiz(("fallenPastYear",), injuredInFall=1), boolean("injuredInFall")),
    # quiz: the participant's date of birth and sex
    ("quiz", quiz(birthDate="2999-01-01"), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate="1950-13-01"), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate="1950-02-30"), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate="01/02/1950"), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate="1950-1-5"), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate="1950-01-05T00:00:00Z"), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate=""), BAD_BIRTH_DATE),
    ("quiz", quiz(birthDate="1850-01-01"), BAD_BIRTH_DATE),  # over 130 years ago
    ("quiz", quiz(birthDate=19500101), "Invalid field birthDate: Input should be a valid string."),
    ("quiz", quiz(sex="other"), BAD_SEX),
    ("quiz", quiz(sex="Female"), BAD_SEX),
    ("quiz", quiz(sex="f"), BAD_SEX),
    ("quiz", quiz(sex=""), BAD_SEX),
    # the 30-second chair stand: a whole number of stands, 0 to 60
    ("sitToStand", {"standCount": "15"}, integer("standCount")),
    ("sitToStand", {"standCount": 15.0}, integer("standCount")),
    ("sitToStand", {"standCount": 14.5}, integer("standCount")),
    ("sitToStand", {"standCount": True}, integer("standCount")),
    ("sitToStand", {"standCount": None}, integer("standCount")),
    ("sitToStand", {"standCount": -1}, at_least("standCount", 0)),
    ("sitToStand", {"standCount": 61}, at_most("standCount", 60)),
    ("sitToStand", {"standCount": 15, "usedArms": 1}, boolean("usedArms")),
    ("sitToStand", {"standCount": 15, "usedArms": "true"}, boolean("usedArms")),
    ("sitToStand", {}, "Missing required field: standCount."),
    ("sitToStand", {"usedArms": True}, "Missing required field: standCount."),
    ("sitToStand", {"standCount": 15, "stands": 15}, "Unknown field: stands."),
    # balance stages 1-3: seconds 0 to 60, in the protocol's order
    ("tandemStance", stances(-1), at_least("sideBySideSeconds", 0)),
    ("tandemStance", stances(61), at_most("sideBySideSeconds", 60)),
    ("tandemStance", stances(10, -0.5), at_least("semiTandemSeconds", 0)),
    ("tandemStance", stances(10, 10, 60.5), at_most("tandemSeconds", 60)),
    ("tandemStance", {"semiTandemSeconds": None, "tandemSeconds": None}, "Missing required field: sideBySideSeconds."),
    ("tandemStance", {**stances(10, 10, 10), "singleLegSeconds": 10}, "Unknown field: singleLegSeconds."),
    ("tandemStance", {"sideBySideSeconds": 10},
     "semiTandemSeconds is required once sideBySideSeconds reaches 10 s."),
    ("tandemStance", stances(12.5), "semiTandemSeconds is required once sideBySideSeconds reaches 10 s."),
    ("tandemStance", stances(9.9, 10), "semiTandemSeconds must be null: the test stops when sideBySideSeconds is "
                                       "under 10 s."),
    ("tandemStance", stances(0, 0, 0), "semiTandemSeconds must be null: the test stops when sideBySideSeconds is "
                                       "under 10 s."),
    ("tandemStance", stances(10, 10), "tandemSeconds is required once semiTandemSeconds reaches 10 s."),
    ("tandemStance", stances(10, 9.9, 0), "tandemSeconds must be null: the test stops when semiTandemSeconds is "
                                          "under 10 s."),
    # balance stage 4: seconds 0 to 60, or null (not attempted), but present
    ("singleLegStance", {}, "Missing required field: singleLegSeconds."),
    ("singleLegStance", {"singleLegSeconds": -1}, at_least("singleLegSeconds", 0)),
    ("singleLegStance", {"singleLegSeconds": 61}, at_most("singleLegSeconds", 60)),
    ("singleLegStance", {"singleLegSeconds": 10, "leg": "left"}, "Unknown field: leg."),
    # the tandem walk: whole steps 0 to 10
    ("tandemWalk", {"stepsCompleted": 11}, at_most("stepsCompleted", 10)),
    ("tandemWalk", {"stepsCompleted": -1}, at_least("stepsCompleted", 0)),
    ("tandemWalk", {"stepsCompleted": 9.0}, integer("stepsCompleted")),
    ("tandemWalk", {"stepsCompleted": "10"}, integer("stepsCompleted")),
    ("tandemWalk", {"stepsCompleted": 10, "missteps": -1}, at_least("missteps", 0)),
    ("tandemWalk", {"stepsCompleted": 10, "missteps": 101}, at_most("missteps", 100)),
    ("tandemWalk", {"stepsCompleted": 10, "missteps": 1.5}, integer("missteps")),
    ("tandemWalk", {"stepsCompleted": 10, "neededSupport": 0}, boolean("neededSupport")),
    ("tandemWalk", {"stepsCompleted": 10, "durationSeconds": 0},
     "Invalid field durationSeconds: Input should be greater than 0."),
    ("tandemWalk", {"stepsCompleted": 10, "durationSeconds": 601}, at_most("durationSeconds", 600)),
    ("tandemWalk", {"missteps": 0}, "Missing required field: stepsCompleted."),
    ("tandemWalk", {"stepsCompleted": 10, "steps": 10}, "Unknown field: steps."),
]

# Seconds are an int or a float: pydantic names the union branch in the message, so only its start is fixed.
INVALID_SECONDS = [
    ("tandemStance", stances("10", 10, 10), "sideBySideSeconds"),
    ("tandemStance", stances(10, True, 10), "semiTandemSeconds"),
    ("tandemStance", stances(10, 10, [10]), "tandemSeconds"),
    ("singleLegStance", {"singleLegSeconds": "10"}, "singleLegSeconds"),
    ("singleLegStance", {"singleLegSeconds": False}, "singleLegSeconds"),
    ("tandemWalk", {"stepsCompleted": 10, "durationSeconds": "12"}, "durationSeconds"),
]


def case_id(step: str, body: dict) -> str:
    return f"{step}-{body}"[:90]


def cases(*rows: tuple) -> list:
    """pytest params named by their step and body."""
    return [pytest.param(*row, id=case_id(*row[:2])) for row in rows]


def assert_untouched(http, member, result_id: str) -> None:
    result = read(http, member, result_id)
    assert (result["status"], result["stepsRemaining"], result["updatedAt"]) == ("created", list(ORDER),
                                                                                 result["createdAt"])


@pytest.mark.parametrize(("step", "body", "message"), cases(*INVALID))
def test_an_invalid_step_body_is_400_and_changes_nothing(http, untouched, step, body, message):
    member, result_id = untouched
    assert_error(record(http, member, result_id, step, body), 400, message)
    assert_untouched(http, member, result_id)


@pytest.mark.parametrize(("step", "body", "field"), cases(*INVALID_SECONDS))
def test_a_number_of_the_wrong_type_is_400(http, untouched, step, body, field):
    member, result_id = untouched
    response = record(http, member, result_id, step, body)
    assert response.status_code == 400 and set(response.json) == {"error"}, response.json
    assert response.json["error"].startswith(f"Invalid field {field}"), response.json
    assert_untouched(http, member, result_id)


def test_a_future_birth_date_is_400_from_tomorrow(http, untouched):
    member, result_id = untouched
    assert_error(record(http, member, result_id, "quiz", quiz(birthDate=tomorrow())), 400, BAD_BIRTH_DATE)
    assert_untouched(http, member, result_id)


@pytest.mark.parametrize(("step", "body"), cases(
    ("quiz", quiz(("fallenPastYear",))),  # the number of falls is optional (counted as one)
    ("quiz", quiz(("fallenPastYear",), fallsPastYear=100, injuredInFall=True)),
    ("quiz", quiz(fallsPastYear=0, injuredInFall=False)),
    ("quiz", quiz(birthDate=clock.now().date().isoformat(), sex="male")),  # born today
    ("quiz", quiz(birthDate="1920-02-29", sex="female")),
    ("sitToStand", {"standCount": 0}),
    ("sitToStand", {"standCount": 60, "usedArms": True}),
    ("tandemStance", {"sideBySideSeconds": 9.99}),  # later stages omitted: not attempted
    ("tandemStance", stances(0)),
    ("tandemStance", stances(10, 0)),
    ("tandemStance", stances(10, 10, 0)),
    ("tandemStance", stances(60, 60, 60)),
    ("singleLegStance", {"singleLegSeconds": None}),
    ("singleLegStance", {"singleLegSeconds": 0}),
    ("singleLegStance", {"singleLegSeconds": 59.5}),
    ("tandemWalk", {"stepsCompleted": 0, "missteps": 100, "neededSupport": True, "durationSeconds": 600}),
    ("tandemWalk", {"stepsCompleted": 10, "durationSeconds": 0.1}),
))
def test_bodies_at_their_limits_are_recorded(http, tenant, step, body):
    result_id = create(http, tenant.player)["fallRiskResultId"]
    response = record(http, tenant.player, result_id, step, body)
    assert response.status_code == 200, response.json
    stored = response.json["result"]["steps"][step]
    given = {k: v for k, v in body.items() if k not in ("birthDate", "sex")}
    assert {k: stored[k] for k in given} == given
    assert read(http, tenant.player, result_id)["steps"][step] == stored


# ------------------------------------------------------------------------------------ the flow


@pytest.mark.parametrize("order", [ORDER, tuple(reversed(ORDER)),
                                   ("tandemWalk", "quiz", "singleLegStance", "sitToStand", "tandemStance")],
                         ids=["in order", "reversed", "shuffled"])
def test_status_moves_to_in_progress_then_completed_on_the_fifth_step(http, assessed, order):
    result_id = create(http, assessed.senior)["fallRiskResultId"]
    result = read(http, assessed.senior, result_id)
    assert (result["status"], result["stepsRemaining"], result["scoring"]) == ("created", list(ORDER), None)
    for count, step in enumerate(order, start=1):
        response = record(http, assessed.senior, result_id, step, HEALTHY[step])
        assert response.status_code == 200, response.json
        result = response.json["result"]
        assert result["stepsRemaining"] == [s for s in ORDER if s not in order[:count]]
        assert result["steps"][step] == {**HEALTHY_STORED[step], "recordedAt": result["updatedAt"]}
        if count < 5:
            assert result["status"] == "in-progress"
            assert (result["scoring"], result["riskLevel"], result["rulesVersion"], result["completedAt"]) == (
                None, None, None, None)
        assert read(http, assessed.senior, result_id) == result
    assert result["status"] == "completed" and result["completedAt"] == result["updatedAt"]
    assert recorded(result) == HEALTHY_STORED
    scoring = result["scoring"]
    assert (scoring["rulesVersion"], result["rulesVersion"]) == ("steadi-v1", "steadi-v1")
    assert (result["riskLevel"], result["urgentAttention"]) == (scoring["riskLevel"], scoring["urgentAttention"]) == (
        1, False)
    # The senior's own record chose the norm: a 72-year-old woman.
    assert (scoring["ageYears"], scoring["ageGroup"], scoring["sex"]) == (72, "70-79", "female")
    assert scoring["chairStand"]["band"] == "70-74" and scoring["chairStand"]["belowAverageUnder"] == 10


def test_a_step_recorded_again_before_completion_replaces_it(http, assessed):
    result_id = create(http, assessed.senior)["fallRiskResultId"]
    first = record(http, assessed.senior, result_id, "sitToStand", {"standCount": 15}).json["result"]
    clock.advance(dt.timedelta(seconds=5))  # a visibly later recording time
    again = record(http, assessed.senior, result_id, "sitToStand", {"standCount": 9, "usedArms": False})
    assert again.status_code == 200, again.json
    result = again.json["result"]
    assert result["steps"]["sitToStand"] == {"standCount": 9, "usedArms": False, "recordedAt": result["updatedAt"]}
    assert result["updatedAt"] > first["updatedAt"]
    assert (result["status"], result["stepsRemaining"]) == ("in-progress", [s for s in ORDER if s != "sitToStand"])
    # The replacement is what gets scored: 9 stands is below average for her (under 10).
    completed = complete(http, assessed.senior, result_id, sitToStand={"standCount": 9})
    assert completed["scoring"]["chairStand"]["belowAverage"] is True and completed["riskLevel"] == 2


FALLEN_ONCE = quiz(("fallenPastYear",), fallsPastYear=1)
COMPLETED_WITH = {**HEALTHY, "quiz": FALLEN_ONCE, "sitToStand": {"standCount": 12}}  # level 2: screened only


@pytest.fixture
def completed(http, assessed) -> dict:
    return complete(http, assessed.senior, **COMPLETED_WITH)


@pytest.mark.parametrize(("step", "body"), cases(
    *COMPLETED_WITH.items(),
    # the same with every default spelled out, and whole seconds as floats
    ("quiz", {**FALLEN_ONCE, "injuredInFall": None, "birthDate": None, "sex": None}),
    ("quiz", {**FALLEN_ONCE, "birthDate": born_aged(72), "sex": "female"}),  # her record's own details
    ("sitToStand", {"standCount": 12, "usedArms": False}),
    ("tandemStance", {"sideBySideSeconds": 10.0, "semiTandemSeconds": 10, "tandemSeconds": 10.0}),
    ("singleLegStance", {"singleLegSeconds": 10.0}),
    ("tandemWalk", {"stepsCompleted": 10, "missteps": 0, "neededSupport": False, "durationSeconds": None}),
))
def test_after_completion_the_identical_step_is_answered_unchanged(http, assessed, completed, step, body):
    assert (completed["riskLevel"], completed["rulesVersion"]) == (2, "steadi-v1")
    response = record(http, assessed.senior, completed["fallRiskResultId"], step, body)
    assert response.status_code == 200, response.json
    assert response.json["result"] == completed  # updatedAt included: nothing was written
    assert read(http, assessed.senior, completed["fallRiskResultId"]) == completed


@pytest.mark.parametrize(("step", "body"), cases(
    ("quiz", quiz(("fallenPastYear", "worriedAboutFalling"), fallsPastYear=1)),
    ("quiz", quiz(("fallenPastYear",), fallsPastYear=2)),
    ("quiz", quiz(("fallenPastYear",))),  # fallsPastYear omitted is another body than 1
    # the same answers with other participant details would score another norm: a change too
    ("quiz", {**FALLEN_ONCE, "birthDate": born_aged(90)}),
    ("quiz", {**FALLEN_ONCE, "sex": "male"}),
    ("sitToStand", {"standCount": 13}),
    ("sitToStand", {"standCount": 12, "usedArms": True}),
    ("tandemStance", stances(10, 10, 9)),
    ("singleLegStance", {"singleLegSeconds": None}),
    ("singleLegStance", {"singleLegSeconds": 9.5}),
    ("tandemWalk", {"stepsCompleted": 9}),
    ("tandemWalk", {"stepsCompleted": 10, "neededSupport": True}),
    ("tandemWalk", {"stepsCompleted": 10, "durationSeconds": 14.2}),
))
def test_after_completion_a_different_step_is_409(http, assessed, completed, step, body):
    response = record(http, assessed.senior, completed["fallRiskResultId"], step, body)
    assert_error(response, 409, f"The result is completed; its {SEGMENTS[step]} step cannot change.")
    assert read(http, assessed.senior, completed["fallRiskResultId"]) == completed


def test_after_completion_an_invalid_body_is_still_400(http, assessed, completed):
    response = record(http, assessed.senior, completed["fallRiskResultId"], "sitToStand", {"standCount": 61})
    assert_error(response, 400, at_most("standCount", 60))


def test_the_quiz_gives_the_age_and_sex_a_member_record_lacks(http, tenant):
    # The tenant's player has no date of birth and no sex: the chair stand cannot be rated.
    few_stands = {"sitToStand": {"standCount": 5}}
    unrated = complete(http, tenant.player, **few_stands)
    assert unrated["participant"] == {"birthDate": None, "sex": None}
    assert unrated["scoring"]["chairStand"]["belowAverage"] is None
    assert "chair-stand-unrated" in [r["code"] for r in unrated["scoring"]["reasons"]]
    assert (unrated["riskLevel"], unrated["scoring"]["ageGroup"]) == (1, None)

    born = born_aged(81)
    rated = complete(http, tenant.player, quiz=quiz(birthDate=born, sex="male"), **few_stands)
    assert rated["participant"] == {"birthDate": born, "sex": "male"}
    assert rated["steps"]["quiz"]["answers"] == NO_ANSWERS and "birthDate" not in rated["steps"]["quiz"]
    chair = rated["scoring"]["chairStand"]
    assert (chair["band"], chair["belowAverageUnder"], chair["belowAverage"]) == ("80-84", 10, True)
    assert (rated["riskLevel"], rated["scoring"]["ageYears"], rated["scoring"]["ageGroup"]) == (2, 81, "80-89")


@pytest.mark.parametrize(("override", "stands", "band", "under", "below"), [
    ({}, 11, "70-74", 10, False),  # her own record: a woman of 72
    ({"sex": "male"}, 11, "70-74", 12, True),  # as a man of 72 the same count is below average
    ({"birthDate": born_aged(92)}, 4, "90-94", 4, False),
    ({"birthDate": born_aged(62), "sex": "male"}, 13, "60-64", 14, True),
], ids=["member record", "sex", "birth date", "both"])
def test_the_quiz_overrides_the_member_record_for_the_chair_stand_norm(http, assessed, override, stands, band, under,
                                                                       below):
    result = complete(http, assessed.senior, quiz=quiz(**override), sitToStand={"standCount": stands})
    chair = result["scoring"]["chairStand"]
    assert (chair["band"], chair["belowAverageUnder"], chair["belowAverage"]) == (band, under, below)
    assert result["participant"] == {"birthDate": born_aged(72), "sex": "female", **override}


def test_a_result_completed_on_29_february_is_scored(http, assessed):
    clock.advance(dt.datetime(2028, 2, 29, 12, tzinfo=dt.UTC) - clock.now())
    result = complete(http, assessed.senior)
    assert result["completedAt"].startswith("2028-02-29")
    assert (result["scoring"]["ageYears"], result["riskLevel"]) == (73, 1)


# ------------------------------------------------------------------------------------ who may record


def test_another_member_of_the_client_may_not_record(http, assessed):
    result_id = create(http, assessed.senior)["fallRiskResultId"]
    for step, body in HEALTHY.items():
        assert_error(record(http, assessed.player, result_id, step, body), 403, service.NOT_YOURS)
    assert read(http, assessed.senior, result_id)["status"] == "created"


def test_members_of_another_client_do_not_find_the_result(http, assessed, other_tenant):
    result_id = create(http, assessed.senior)["fallRiskResultId"]
    for member in (other_tenant.player, other_tenant.admin, partner(other_tenant)):
        for step, body in HEALTHY.items():
            assert_error(record(http, member, result_id, step, body), 404, service.RESULT_NOT_FOUND)
    assert read(http, assessed.senior, result_id)["status"] == "created"


def test_steps_need_a_token(http, assessed):
    result_id = create(http, assessed.senior)["fallRiskResultId"]
    response = http.put(f"{RESULTS}/{result_id}/sit-to-stand", json={"standCount": 10})
    assert response.status_code == 401 and set(response.json) == {"error"}


@pytest.mark.parametrize("recorder", ["the member", "an admin of the client", "a client token"])
def test_the_member_an_admin_or_a_client_token_may_record(http, assessed, recorder):
    result_id = create(http, assessed.senior)["fallRiskResultId"]
    if recorder == "a client token":
        member = partner(assessed)
    else:
        member = assessed.senior if recorder == "the member" else assessed.admin
    result = complete(http, member, result_id)
    assert (result["userId"], result["origin"], result["riskLevel"]) == (assessed.senior.uid, "app", 1)
    assert read(http, assessed.senior, result_id) == result


# ------------------------------------------------------------------------------------ rules versions


def test_a_new_rules_version_scores_only_results_completed_after_it(http, assessed, monkeypatch):
    cane = quiz(("advisedCaneOrWalker",))  # 2 points: under v1's 4, over the test rules' 1
    old = complete(http, assessed.senior, quiz=cane)
    assert (old["rulesVersion"], old["scoring"]["rulesVersion"], old["riskLevel"]) == ("steadi-v1", "steadi-v1", 1)

    new = dataclasses.replace(rules.STEADI_V1, version="test-v2", questionnaire_at_risk_total=1)
    monkeypatch.setattr(rules, "CURRENT", new)
    # score's default ruleset was bound when it was defined: the service scores by the current rules through it.
    monkeypatch.setattr(rules, "score", functools.partial(rules.score, rules=new))

    # Reads never re-score, nor does the identical step sent again.
    assert read(http, assessed.senior, old["fallRiskResultId"]) == old
    again = record(http, assessed.senior, old["fallRiskResultId"], "quiz", cane)
    assert again.status_code == 200 and again.json["result"] == old

    latest = complete(http, assessed.senior, quiz=cane)
    assert (latest["rulesVersion"], latest["scoring"]["rulesVersion"], latest["riskLevel"]) == ("test-v2", "test-v2",
                                                                                                 2)
    assert latest["scoring"]["screenedAtRisk"] is True
    listed = http.get(RESULTS, headers=assessed.senior.headers).json["results"]
    assert [(r["fallRiskResultId"], r["rulesVersion"]) for r in listed] == [
        (latest["fallRiskResultId"], "test-v2"), (old["fallRiskResultId"], "steadi-v1")]


# ------------------------------------------------------------------------------------ exactly once


def parallel(calls: list) -> list:
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(app.test_client()), calls))


def settle(http, responses: list, calls: list) -> collections.Counter:
    """Every answer is 200, or 503 and then 200 when resent."""
    statuses = collections.Counter(r.status_code for r in responses)
    assert set(statuses) <= {200, 503}, statuses
    for response, call in zip(responses, calls, strict=True):
        if response.status_code == 503:
            assert response.json == {"error": service.CONTENTION.message}
            assert until_done(lambda call=call: call(http)).status_code == 200
    return statuses


def with_steps(http, member, steps) -> str:
    """A new result of `member` with `steps` recorded (HEALTHY), the member signed in before any burst."""
    result_id = create(http, member)["fallRiskResultId"]
    for step in steps:
        assert record(http, member, result_id, step, HEALTHY[step]).status_code == 200
    return result_id


def step_call(member, result_id: str, step: str, body: dict):
    return lambda client: record(client, member, result_id, step, body)


def expected_activity(**extra) -> dict:
    """The day's rollup of one app result of the 72-year-old senior, created and completed with the HEALTHY steps
    that day (so the day also holds its cohort counters)."""
    return {"created": 1, "created_app": 1, "completed": 1, "completed_app": 1, "riskLevel1": 1, "urgent": 0,
            "cohortStarted": 1, "cohortStarted_app": 1, "cohortCompleted": 1, "cohortCompleted_app": 1,
            "age70to79_results": 1, "age70to79_chairStands": 15, "age70to79_tandemSeconds": 10,
            "age70to79_singleLegSeconds": 10, "age70to79_walkSteps": 10, **extra}


def test_the_last_two_steps_sent_at_once_complete_the_result_once(http, assessed):
    senior = assessed.senior
    result_id = with_steps(http, senior, ORDER[:3])
    # Each of the two missing steps three times, all at once.
    calls = [step_call(senior, result_id, step, HEALTHY[step]) for step in ORDER[3:] for _ in range(3)]
    statuses = settle(http, parallel(calls), calls)
    print(f"\nthe last two steps, 3 times each at once: {dict(statuses)}")
    result = read(http, senior, result_id)
    assert result["status"] == "completed" and recorded(result) == HEALTHY_STORED
    assert today_activity(assessed.client_id) == expected_activity()


def test_the_same_final_step_sent_6_times_at_once_completes_once(http, assessed):
    senior = assessed.senior
    result_id = with_steps(http, senior, ORDER[:4])
    calls = [step_call(senior, result_id, "tandemWalk", HEALTHY["tandemWalk"])] * 6
    responses = parallel(calls)
    statuses = settle(http, responses, calls)
    print(f"\nthe final step 6 times at once: {dict(statuses)}")
    result = read(http, senior, result_id)
    assert result["status"] == "completed"
    # Every success answers the one completion.
    assert all(r.json["result"] == result for r in responses if r.status_code == 200)
    assert today_activity(assessed.client_id) == expected_activity()


def test_a_step_recorded_again_while_the_result_completes_is_scored_or_refused_never_lost(http, assessed):
    senior = assessed.senior
    result_id = with_steps(http, senior, ORDER[:4])
    slower = {"standCount": 9}  # below average for her: level 2 when it is scored
    calls = [step_call(senior, result_id, "tandemWalk", HEALTHY["tandemWalk"]),
             step_call(senior, result_id, "sitToStand", slower)]
    walk, again = [until_done(lambda call=call: call(http)) if response.status_code == 503 else response
                   for response, call in zip(parallel(calls), calls, strict=True)]
    assert walk.status_code == 200, walk.json
    result = read(http, senior, result_id)
    assert result["status"] == "completed"
    if again.status_code == 200:  # recorded before the completion: scored
        assert (result["steps"]["sitToStand"]["standCount"], result["riskLevel"]) == (9, 2)
    else:  # after it: refused, and the completion stands
        assert_error(again, 409, "The result is completed; its sit-to-stand step cannot change.")
        assert (result["steps"]["sitToStand"]["standCount"], result["riskLevel"]) == (15, 1)
    assert today_activity(assessed.client_id)["completed"] == 1


def test_a_create_counts_in_the_day_rollup(http, assessed):
    create(http, assessed.senior)
    assert today_activity(assessed.client_id) == {"created": 1, "created_app": 1}
