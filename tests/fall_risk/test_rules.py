"""The fall-risk scoring (rules.score) against CDC STEADI: the Stay Independent points, the 30-second chair stand
norms, the 4-stage balance test, the tandem walk and the four risk levels.

The published tables are written out here, independently of rules.py, so that a slip in the code's table fails a
test instead of being checked against itself. Pure functions: no emulator is touched.
"""

import dataclasses
import datetime as dt

import pytest

from wellness_api.fall_risk import rules

DAY = dt.date(2026, 6, 15)  # the scoring day: ages are counted on it
HEALTHY_WOMAN = {"birthDate": "1956-01-01", "sex": "female"}  # 70 on DAY: below average under 10 stands

# The Stay Independent brochure, in its order: item -> (points, one of STEADI's three key questions).
ITEMS = {
    "fallenPastYear": (2, True),
    "advisedCaneOrWalker": (2, False),
    "unsteadyWhenWalking": (1, True),
    "steadiesOnFurniture": (1, False),
    "worriedAboutFalling": (1, True),
    "pushesUpFromChair": (1, False),
    "troubleSteppingOntoCurb": (1, False),
    "rushesToToilet": (1, False),
    "lostFeelingInFeet": (1, False),
    "medicineLightheaded": (1, False),
    "medicineSleepOrMood": (1, False),
    "oftenSadOrDepressed": (1, False),
}
KEY_QUESTIONS = [item for item, (_, key) in ITEMS.items() if key]
NON_KEY_THREE = ("steadiesOnFurniture", "pushesUpFromChair", "troubleSteppingOntoCurb")

# STEADI "Assessment: 30-Second Chair Stand": a score below these is below average for the age and sex.
CHAIR_STAND_BELOW_AVERAGE_UNDER = [  # (ages, men, women)
    ((60, 64), 14, 12),
    ((65, 69), 12, 11),
    ((70, 74), 12, 10),
    ((75, 79), 11, 10),
    ((80, 84), 10, 9),
    ((85, 89), 8, 8),
    ((90, 94), 7, 4),
]
NORM = {(sex, ages): under for ages, men, women in CHAIR_STAND_BELOW_AVERAGE_UNDER
        for sex, under in (("male", men), ("female", women))}

LABELS = {1: "low", 2: "mild", 3: "moderate", 4: "high"}


def born(age: int) -> str:
    """A date of birth that makes someone exactly `age` on DAY."""
    return dt.date(DAY.year - age, 1, 1).isoformat()


def person(age: int, sex: str) -> dict:
    return {"birthDate": born(age), "sex": sex}


def steps(yes: tuple[str, ...] = (), *, falls: int | None = None, injured: bool | None = None, stands: int = 15,
          arms: bool = False, stances: tuple = (10, 10, 10), single: float | None = 10, walk: int = 10,
          support: bool = False) -> dict:
    """The five recorded steps as the service stores them; by default a healthy participant's."""
    side, semi, tandem = stances
    return {
        "quiz": {"answers": {item: item in yes for item in ITEMS}, "fallsPastYear": falls, "injuredInFall": injured},
        "sitToStand": {"standCount": stands, "usedArms": arms},
        "tandemStance": {"sideBySideSeconds": side, "semiTandemSeconds": semi, "tandemSeconds": tandem},
        "singleLegStance": {"singleLegSeconds": single},
        "tandemWalk": {"stepsCompleted": walk, "missteps": 0, "neededSupport": support, "durationSeconds": None},
    }


def scored(participant: dict | None = None, **step_values) -> dict:
    return rules.score(steps(**step_values), HEALTHY_WOMAN if participant is None else participant, DAY)


def codes(scoring: dict) -> list[str]:
    return [r["code"] for r in scoring["reasons"]]


def reason(scoring: dict, code: str) -> dict:
    found = [r for r in scoring["reasons"] if r["code"] == code]
    assert len(found) == 1, (code, scoring["reasons"])
    return found[0]


def level(scoring: dict) -> tuple:
    return scoring["riskLevel"], scoring["riskLabel"], scoring["urgentAttention"]


# ------------------------------------------------------------------------------------ Stay Independent


@pytest.mark.parametrize("item", ITEMS)
def test_each_item_scores_its_brochure_points(item):
    points, key = ITEMS[item]
    questionnaire = scored(yes=(item,))["questionnaire"]
    assert questionnaire["total"] == points
    assert questionnaire["answeredYes"] == [item]
    assert questionnaire["keyQuestionsYes"] == ([item] if key else [])
    # No single item reaches 4 points: only a key question screens at risk on its own.
    assert questionnaire["atRisk"] is key


def test_nothing_answered_yes_totals_0_of_14_and_every_yes_totals_14():
    none = scored()["questionnaire"]
    assert (none["total"], none["maxTotal"], none["atRisk"], none["answeredYes"]) == (0, 14, False, [])
    everything = scored(yes=tuple(ITEMS), falls=1)["questionnaire"]
    assert (everything["total"], everything["maxTotal"], everything["atRisk"]) == (14, 14, True)
    assert everything["answeredYes"] == list(ITEMS) and everything["keyQuestionsYes"] == KEY_QUESTIONS


@pytest.mark.parametrize("yes", [NON_KEY_THREE, ("advisedCaneOrWalker",), ("advisedCaneOrWalker", "rushesToToilet"),
                                 ("lostFeelingInFeet", "medicineLightheaded", "medicineSleepOrMood")],
                         ids=["three 1-point items", "a 2-point item", "2+1 points", "three more 1-point items"])
def test_a_total_under_4_without_a_key_question_is_not_at_risk(yes):
    scoring = scored(yes=yes)
    assert scoring["questionnaire"]["total"] == sum(ITEMS[item][0] for item in yes) < 4
    assert scoring["questionnaire"]["atRisk"] is False and scoring["screenedAtRisk"] is False
    assert scoring["reasons"] == []
    assert level(scoring) == (1, "low", False)


@pytest.mark.parametrize("yes", [(*NON_KEY_THREE, "rushesToToilet"), ("advisedCaneOrWalker", *NON_KEY_THREE[:2]),
                                 ("advisedCaneOrWalker", "oftenSadOrDepressed", "medicineSleepOrMood")],
                         ids=["four 1-point items", "2+1+1", "2+1+1 (last items)"])
def test_a_total_of_4_is_at_risk(yes):
    scoring = scored(yes=yes)
    assert scoring["questionnaire"]["total"] == 4
    assert scoring["questionnaire"]["atRisk"] is True and scoring["screenedAtRisk"] is True
    assert scoring["questionnaire"]["keyQuestionsYes"] == []
    found = reason(scoring, "stay-independent-total")
    assert {k: found[k] for k in ("step", "effect", "value", "threshold")} == {
        "step": "quiz", "effect": "risk", "value": 4, "threshold": 4}
    assert found["answers"] == [item for item in ITEMS if item in yes]  # the yes answers, in brochure order
    assert codes(scoring) == ["stay-independent-total"]
    assert level(scoring) == (2, "mild", False)


@pytest.mark.parametrize("item", KEY_QUESTIONS)
def test_each_key_question_alone_screens_at_risk(item):
    scoring = scored(yes=(item,))
    assert scoring["questionnaire"]["total"] < 4
    assert scoring["questionnaire"]["atRisk"] is True and scoring["screenedAtRisk"] is True
    assert scoring["questionnaire"]["keyQuestionsYes"] == [item]
    assert codes(scoring) == ["key-question"]  # not the total: it stays under 4
    found = reason(scoring, "key-question")
    assert (found["step"], found["effect"], found["answers"]) == ("quiz", "risk", [item])
    assert level(scoring) == (2, "mild", False)


def test_a_total_of_4_with_key_questions_gives_every_reason():
    scoring = scored(yes=("fallenPastYear", "advisedCaneOrWalker", "worriedAboutFalling"))
    assert scoring["questionnaire"]["total"] == 5
    assert codes(scoring) == ["stay-independent-total", "key-question", "key-question"]
    assert [r["answers"] for r in scoring["reasons"][1:]] == [["fallenPastYear"], ["worriedAboutFalling"]]


# ------------------------------------------------------------------------------------ 30-second chair stand


def band_ends() -> list:
    return [pytest.param(age, sex, f"{low}-{high}", NORM[sex, (low, high)], id=f"{sex}-{low}-{high}-aged-{age}")
            for (low, high), _, _ in CHAIR_STAND_BELOW_AVERAGE_UNDER for sex in ("male", "female")
            for age in (low, high)]


@pytest.mark.parametrize(("age", "sex", "band", "under"), band_ends())
def test_chair_stand_one_below_the_norm_is_below_average_and_the_norm_is_not(age, sex, band, under):
    below = scored(person(age, sex), stands=under - 1)
    assert below["ageYears"] == age and below["sex"] == sex
    assert below["chairStand"] == {"score": under - 1, "usedArms": False, "band": band, "belowAverageUnder": under,
                                   "belowAverage": True}
    found = reason(below, "chair-stand-below-average")
    assert (found["step"], found["effect"], found["value"], found["threshold"]) == ("sitToStand", "risk", under - 1,
                                                                                     under)
    assert below["functionalProblem"] is True and level(below) == (2, "mild", False)

    average = scored(person(age, sex), stands=under)
    assert average["chairStand"] == {"score": under, "usedArms": False, "band": band, "belowAverageUnder": under,
                                     "belowAverage": False}
    assert average["reasons"] == [] and level(average) == (1, "low", False)


@pytest.mark.parametrize("sex", ["male", "female"])
@pytest.mark.parametrize(("age", "ages"), [(25, (60, 64)), (45, (60, 64)), (59, (60, 64)), (95, (90, 94)),
                                           (101, (90, 94)), (120, (90, 94))])
def test_ages_outside_the_table_use_the_nearest_band(age, ages, sex):
    """The table covers 60-94: younger people are held to the 60-64 norm, older ones to the 90-94 norm."""
    under = NORM[sex, ages]
    below, average = scored(person(age, sex), stands=under - 1), scored(person(age, sex), stands=under)
    assert below["chairStand"]["band"] == average["chairStand"]["band"] == f"{ages[0]}-{ages[1]}"
    assert below["chairStand"]["belowAverageUnder"] == under
    assert (below["chairStand"]["belowAverage"], average["chairStand"]["belowAverage"]) == (True, False)


@pytest.mark.parametrize("participant", [person(70, "male"), {}], ids=["rated", "unrated"])
def test_using_the_arms_scores_0_whatever_the_count(participant):
    scoring = scored(participant, stands=20, arms=True)
    assert scoring["chairStand"]["score"] == 0 and scoring["chairStand"]["usedArms"] is True
    assert reason(scoring, "chair-stand-used-arms")["effect"] == "risk"
    # Needing the arms is a strength problem even when there is no norm to compare with.
    assert scoring["functionalProblem"] is True and level(scoring) == (2, "mild", False)
    if participant:
        assert scoring["chairStand"]["belowAverage"] is True
        assert reason(scoring, "chair-stand-below-average")["value"] == 0


@pytest.mark.parametrize("participant", [
    {},
    {"birthDate": None, "sex": None},
    {"birthDate": born(72)},
    {"birthDate": born(72), "sex": None},
    {"sex": "male"},
    {"birthDate": "1950-02-30", "sex": "female"},  # not a date
    {"birthDate": "2026-06-16", "sex": "female"},  # born after the scoring day
], ids=["nothing", "nulls", "no sex", "null sex", "no birth date", "bad birth date", "future birth date"])
def test_an_unknown_age_or_sex_leaves_the_chair_stand_unrated_and_the_level_alone(participant):
    scoring = scored(participant, stands=0)
    assert scoring["chairStand"] == {"score": 0, "usedArms": False, "band": None, "belowAverageUnder": None,
                                     "belowAverage": None}
    found = reason(scoring, "chair-stand-unrated")
    assert (found["step"], found["effect"]) == ("sitToStand", "note")
    # A note raises nothing: no stands at all, yet nothing else wrong is level 1 ...
    assert scoring["functionalProblem"] is False and level(scoring) == (1, "low", False)
    # ... and screened at risk stays level 2, not 3.
    assert level(scored(participant, stands=0, yes=("worriedAboutFalling",))) == (2, "mild", False)


# ------------------------------------------------------------------------------------ 4-stage balance test


def test_a_tandem_stance_held_exactly_10_s_is_held():
    scoring = scored(stances=(10, 10, 10), single=10)
    assert scoring["balance"] == {"stagesHeld": 4, "tandemHeld": True}
    assert scoring["reasons"] == [] and level(scoring) == (1, "low", False)


def test_a_tandem_stance_of_9_9_s_is_not_held():
    scoring = scored(stances=(10, 10, 9.9), single=None)
    assert scoring["balance"] == {"stagesHeld": 2, "tandemHeld": False}
    found = reason(scoring, "tandem-stance-not-held")
    assert (found["step"], found["effect"], found["value"], found["threshold"]) == ("tandemStance", "risk", 9.9, 10)
    assert codes(scoring) == ["tandem-stance-not-held"]  # stage 4 was not attempted: nothing said about it
    assert scoring["functionalProblem"] is True and level(scoring) == (2, "mild", False)


def test_feet_side_by_side_under_10_s_is_urgent():
    scoring = scored(stances=(9.5, None, None), single=None)
    found = reason(scoring, "side-by-side-not-held")
    assert (found["step"], found["effect"], found["value"], found["threshold"]) == ("tandemStance", "urgent", 9.5, 10)
    assert codes(scoring) == ["side-by-side-not-held", "tandem-stance-not-held"]
    assert scoring["balance"] == {"stagesHeld": 0, "tandemHeld": False}
    # Level 2 (a functional problem only), yet urgent.
    assert level(scoring) == (2, "mild", True)


def test_single_leg_under_10_s_with_the_tandem_held_is_only_noted():
    scoring = scored(stances=(10, 10, 10), single=9.9)
    found = reason(scoring, "single-leg-not-held")
    assert (found["step"], found["effect"], found["value"]) == ("singleLegStance", "note", 9.9)
    assert scoring["balance"] == {"stagesHeld": 3, "tandemHeld": True}
    assert scoring["functionalProblem"] is False and level(scoring) == (1, "low", False)


@pytest.mark.parametrize(("stances", "single", "held"), [
    ((10, 10, 10), 60, 4),
    ((10, 10, 10), 10, 4),
    ((10, 10, 10), 9.99, 3),
    ((10, 10, 10), None, 3),
    ((10, 10, 3), None, 2),
    ((10, 9.9, None), None, 1),
    ((9, None, None), None, 0),
    ((0, None, None), None, 0),
])
def test_stages_held_counts_the_stages_before_the_first_not_held(stances, single, held):
    assert scored(stances=stances, single=single)["balance"]["stagesHeld"] == held


# ------------------------------------------------------------------------------------ tandem walk


@pytest.mark.parametrize(("walk", "support", "impaired"), [
    (10, False, False), (9, False, True), (0, False, True), (10, True, True)],
    ids=["10 steps", "9 steps", "no step", "10 steps with support"])
def test_tandem_walk_needs_10_steps_without_support(walk, support, impaired):
    scoring = scored(walk=walk, support=support)
    assert scoring["gait"] == {"impaired": impaired}
    if impaired:
        found = reason(scoring, "tandem-walk-impaired")
        assert (found["step"], found["effect"], found["value"], found["threshold"]) == ("tandemWalk", "risk", walk,
                                                                                         10)
        assert level(scoring) == (2, "mild", False)
    else:
        assert scoring["reasons"] == [] and level(scoring) == (1, "low", False)


# ------------------------------------------------------------------------------------ levels


SCREENED = ("unsteadyWhenWalking",)
FELL = ("fallenPastYear",)
LEVELS = [
    # id, step values, (riskLevel, urgentAttention), screenedAtRisk, functionalProblem
    ("nothing", {}, (1, False), False, False),
    ("screened by a key question only", {"yes": SCREENED}, (2, False), True, False),
    ("screened by the total only", {"yes": (*NON_KEY_THREE, "rushesToToilet")}, (2, False), True, False),
    ("chair stand only", {"stands": 9}, (2, False), False, True),
    ("tandem stance only", {"stances": (10, 10, 5), "single": None}, (2, False), False, True),
    ("tandem walk only", {"walk": 9}, (2, False), False, True),
    ("two falls but no functional problem", {"yes": FELL, "falls": 2}, (2, False), True, False),
    ("both, no fall", {"yes": SCREENED, "stands": 9}, (3, False), True, True),
    ("both, one fall", {"yes": FELL, "falls": 1, "walk": 8}, (3, False), True, True),
    ("both, a fall not counted", {"yes": FELL, "walk": 8}, (3, False), True, True),  # fallenPastYear counts one
    ("both, one fall not injured", {"yes": FELL, "falls": 1, "injured": False, "walk": 8}, (3, False), True, True),
    ("both, two falls", {"yes": FELL, "falls": 2, "stands": 9}, (4, True), True, True),
    ("both, five falls", {"yes": FELL, "falls": 5, "arms": True}, (4, True), True, True),
    ("both, an injurious fall", {"yes": FELL, "falls": 1, "injured": True, "walk": 3}, (4, True), True, True),
]


@pytest.mark.parametrize(("values", "expected", "screened", "functional"),
                         [pytest.param(*case[1:], id=case[0]) for case in LEVELS])
def test_risk_levels(values, expected, screened, functional):
    scoring = scored(**values)
    risk_level, urgent = expected
    assert (scoring["screenedAtRisk"], scoring["functionalProblem"]) == (screened, functional)
    assert level(scoring) == (risk_level, LABELS[risk_level], urgent)
    assert scoring["rulesVersion"] == "steadi-v1"


@pytest.mark.parametrize("falls", [2, 3, 10])
def test_repeated_falls_are_a_high_risk_history(falls):
    scoring = scored(yes=FELL, falls=falls, stands=9)
    assert scoring["falls"] == {"count": falls, "injured": False, "highRiskHistory": True}
    found = reason(scoring, "repeated-falls")
    assert (found["effect"], found["value"], found["threshold"]) == ("risk", falls, 2)


@pytest.mark.parametrize("values", [{}, {"stands": 9}], ids=["no functional problem", "a functional problem"])
def test_an_injurious_fall_is_always_urgent(values):
    scoring = scored(yes=FELL, falls=1, injured=True, **values)
    assert scoring["falls"] == {"count": 1, "injured": True, "highRiskHistory": True}
    assert reason(scoring, "injurious-fall")["effect"] == "urgent"
    assert "repeated-falls" not in codes(scoring)  # one reason for one fall
    assert scoring["urgentAttention"] is True
    assert scoring["riskLevel"] == (4 if values else 2)


# ------------------------------------------------------------------------------------ age groups (2.14)


@pytest.mark.parametrize(("age", "group"), [
    (29, None), (30, "30-39"), (39, "30-39"), (40, "40-49"), (49, "40-49"), (50, "50-59"), (59, "50-59"),
    (60, "60-69"), (69, "60-69"), (70, "70-79"), (79, "70-79"), (80, "80-89"), (89, "80-89"), (90, "90+"),
    (104, "90+"),
])
def test_age_groups(age, group):
    scoring = scored(person(age, "male"))
    assert (scoring["ageYears"], scoring["ageGroup"]) == (age, group)


def test_age_counts_completed_years_on_the_scoring_day():
    birthday = DAY.replace(year=DAY.year - 60)
    assert scored({"birthDate": birthday.isoformat(), "sex": "female"})["ageGroup"] == "60-69"
    day_before_birthday = (birthday + dt.timedelta(days=1)).isoformat()
    scoring = scored({"birthDate": day_before_birthday, "sex": "female"})
    assert (scoring["ageYears"], scoring["ageGroup"]) == (59, "50-59")


def test_an_unknown_age_has_no_group():
    scoring = scored({"sex": "female"})
    assert (scoring["ageYears"], scoring["ageGroup"], scoring["sex"]) == (None, None, "female")


def test_a_result_scored_on_29_february_has_an_age():
    scoring = rules.score(steps(), {"birthDate": "1950-03-01", "sex": "male"}, dt.date(2028, 2, 29))
    assert (scoring["ageYears"], scoring["ageGroup"], scoring["chairStand"]["band"]) == (77, "70-79", "75-79")


# ------------------------------------------------------------------------------------ rules versions


def test_a_new_ruleset_scores_differently_under_its_own_version():
    new = dataclasses.replace(rules.STEADI_V1, version="test-v2", questionnaire_at_risk_total=2)
    cane = steps(yes=("advisedCaneOrWalker",))  # 2 points: under v1's 4, at v2's 2

    old = rules.score(cane, HEALTHY_WOMAN, DAY)
    assert (old["rulesVersion"], old["screenedAtRisk"], old["riskLevel"]) == ("steadi-v1", False, 1)

    changed = rules.score(cane, HEALTHY_WOMAN, DAY, rules=new)
    assert (changed["rulesVersion"], changed["screenedAtRisk"], changed["riskLevel"]) == ("test-v2", True, 2)
    assert reason(changed, "stay-independent-total")["threshold"] == 2

    # The current rules are untouched: v1 is still the default and scores as before.
    assert rules.CURRENT is rules.STEADI_V1 and rules.STEADI_V1.questionnaire_at_risk_total == 4
    assert rules.score(cane, HEALTHY_WOMAN, DAY) == old
