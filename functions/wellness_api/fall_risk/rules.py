"""The fall-risk scoring rules: every threshold in one table per version, and the scoring that applies them.

Sources (CDC STEADI, Stopping Elderly Accidents, Deaths & Injuries; https://www.cdc.gov/steadi):
- "Stay Independent" brochure (Rubenstein et al., J Safety Res 2011; LOINC panel 97874-2): 12 yes/no items,
  2 points each for the first two, 1 for the rest; a total of 4 or more means the person may be at risk.
- STEADI algorithm "Screen, Assess, Intervene": screened at risk with a total of 4 or more, or a yes to any of
  the three key questions (fell in the past year, feels unsteady, worries about falling).
- "Assessment: 30-Second Chair Stand": the number of full stands in 30 s, arms crossed; a score below the
  average for age and sex (the table below, from Rikli & Jones' norms as STEADI prints them) indicates a risk
  for falls; a person who must use the arms to stand scores 0.
- "Assessment: The 4-Stage Balance Test": feet side by side, semi-tandem, tandem, single leg, 10 s each, the
  test stopping at the first stage not held; an older adult who cannot hold the tandem stance for at least
  10 s is at increased risk of falling.
- STEADI's gait test is the Timed Up & Go. This platform's flow records a tandem walk instead (the spec's
  tandemWalkTestUrl), scored by the conventional clinical criterion: 10 consecutive heel-to-toe steps without
  a misstep or support; fewer means an impaired gait. That rule is the platform's, not STEADI's.
- Risk levels follow STEADI's algorithm (screened at risk + a gait, strength or balance problem, and the fall
  history: 2 or more falls or an injurious fall is high risk), widened to four levels (README, Fall risk).

A result keeps the version that scored it (rulesVersion) and its computed scoring: reads never re-score, so
a new version (add a Ruleset, make it CURRENT) changes only results completed after it.
"""

import dataclasses
import datetime as dt
from typing import Any

from ..core import users


@dataclasses.dataclass(frozen=True)
class Question:
    key: str  # the answer's field name in the questionnaire step
    text: str  # the brochure's statement
    points: int
    loinc: str
    key_question: bool = False  # one of STEADI's three key questions


@dataclasses.dataclass(frozen=True)
class ChairStandNorm:
    """Ages min_age..max_age: fewer stands than `men` / `women` in 30 s is below average."""

    min_age: int
    max_age: int
    men: int
    women: int

    @property
    def band(self) -> str:
        return f"{self.min_age}-{self.max_age}"


@dataclasses.dataclass(frozen=True)
class Ruleset:
    version: str
    questions: tuple[Question, ...]
    questionnaire_at_risk_total: int
    chair_stand_norms: tuple[ChairStandNorm, ...]
    balance_hold_seconds: float
    tandem_walk_steps: int
    repeated_falls: int  # this many falls in the past year (or one with an injury) is a high-risk history


STEADI_V1 = Ruleset(
    version="steadi-v1",
    questions=(
        Question("fallenPastYear", "I have fallen in the past year.", 2, "52552-7", key_question=True),
        Question("advisedCaneOrWalker", "I use or have been advised to use a cane or walker to get around safely.",
                 2, "97875-9"),
        Question("unsteadyWhenWalking", "Sometimes I feel unsteady when I am walking.", 1, "97876-7",
                 key_question=True),
        Question("steadiesOnFurniture", "I steady myself by holding onto furniture when walking at home.", 1,
                 "97877-5"),
        Question("worriedAboutFalling", "I am worried about falling.", 1, "97878-3", key_question=True),
        Question("pushesUpFromChair", "I need to push with my hands to stand up from a chair.", 1, "97879-1"),
        Question("troubleSteppingOntoCurb", "I have some trouble stepping up onto a curb.", 1, "97880-9"),
        Question("rushesToToilet", "I often have to rush to the toilet.", 1, "97881-7"),
        Question("lostFeelingInFeet", "I have lost some feeling in my feet.", 1, "97882-5"),
        Question("medicineLightheaded", "I take medicine that sometimes makes me feel light-headed or more tired "
                                        "than usual.", 1, "97883-3"),
        Question("medicineSleepOrMood", "I take medicine to help me sleep or improve my mood.", 1, "97884-1"),
        Question("oftenSadOrDepressed", "I often feel sad or depressed.", 1, "48527-6"),
    ),
    questionnaire_at_risk_total=4,
    chair_stand_norms=(
        ChairStandNorm(60, 64, men=14, women=12),
        ChairStandNorm(65, 69, men=12, women=11),
        ChairStandNorm(70, 74, men=12, women=10),
        ChairStandNorm(75, 79, men=11, women=10),
        ChairStandNorm(80, 84, men=10, women=9),
        ChairStandNorm(85, 89, men=8, women=8),
        ChairStandNorm(90, 94, men=7, women=4),
    ),
    balance_hold_seconds=10,
    tandem_walk_steps=10,
    repeated_falls=2,
)

RULESETS = {STEADI_V1.version: STEADI_V1}
CURRENT = STEADI_V1

LEVEL_LABELS = {1: "low", 2: "mild", 3: "moderate", 4: "high"}

# What a reason does to the result: raises the risk, calls for attention soon, or is only noted.
RISK, URGENT, NOTE = "risk", "urgent", "note"


def describe(rules: Ruleset = CURRENT) -> dict[str, Any]:
    """The ruleset as data: what an assessment app shows (the statements) and what a clinician checks."""
    return {
        "version": rules.version,
        "questions": [{"key": q.key, "text": q.text, "points": q.points, "loinc": q.loinc,
                       "keyQuestion": q.key_question} for q in rules.questions],
        "questionnaireAtRiskTotal": rules.questionnaire_at_risk_total,
        "chairStandNorms": [{"ages": n.band, "menBelowAverageUnder": n.men, "womenBelowAverageUnder": n.women}
                            for n in rules.chair_stand_norms],
        "balanceHoldSeconds": rules.balance_hold_seconds,
        "tandemWalkSteps": rules.tandem_walk_steps,
        "repeatedFalls": rules.repeated_falls,
        "riskLevels": [{"level": level, "label": label} for level, label in LEVEL_LABELS.items()],
    }


def chair_stand_norm(ruleset: Ruleset, age: int) -> ChairStandNorm:
    """The norm of the age's band. The published table covers 60-94: younger people are held to the 60-64
    norm (a younger adult below it is certainly below average), older ones to the 90-94 norm."""
    norms = ruleset.chair_stand_norms
    return next((n for n in norms if n.min_age <= age <= n.max_age), norms[0] if age < norms[0].min_age else norms[-1])


def _reason(code: str, step: str, effect: str, message: str, value: float | None = None,
            threshold: float | None = None, answers: list[str] | None = None) -> dict[str, Any]:
    return {"code": code, "step": step, "effect": effect, "message": message, "value": value,
            "threshold": threshold, "answers": answers or []}


def _questionnaire(rules: Ruleset, quiz: dict[str, Any], reasons: list) -> dict[str, Any]:
    answers = quiz["answers"]
    yes = [q for q in rules.questions if answers.get(q.key)]
    total = sum(q.points for q in yes)
    at_risk_total = total >= rules.questionnaire_at_risk_total
    key_yes = [q.key for q in yes if q.key_question]
    if at_risk_total:
        reasons.append(_reason("stay-independent-total", "quiz", RISK,
                               f"Stay Independent total {total} (at risk from {rules.questionnaire_at_risk_total}).",
                               total, rules.questionnaire_at_risk_total, [q.key for q in yes]))
    for key in key_yes:
        question = next(q for q in rules.questions if q.key == key)
        reasons.append(_reason("key-question", "quiz", RISK, f"Answered yes: \"{question.text}\"", answers=[key]))
    return {"total": total, "maxTotal": sum(q.points for q in rules.questions),
            "atRisk": at_risk_total or bool(key_yes), "keyQuestionsYes": key_yes,
            "answeredYes": [q.key for q in yes]}


def _falls(rules: Ruleset, quiz: dict[str, Any], reasons: list) -> dict[str, Any]:
    fallen = bool(quiz["answers"].get("fallenPastYear"))
    count = quiz.get("fallsPastYear")
    count = (1 if fallen else 0) if count is None else count
    injured = bool(quiz.get("injuredInFall"))
    high_risk_history = count >= rules.repeated_falls or injured
    if injured:
        reasons.append(_reason("injurious-fall", "quiz", URGENT, "Was injured in a fall in the past year."))
    elif high_risk_history:
        reasons.append(_reason("repeated-falls", "quiz", RISK, f"{count} falls in the past year.", count,
                               rules.repeated_falls))
    return {"count": count, "injured": injured, "highRiskHistory": high_risk_history}


def _chair_stand(rules: Ruleset, test: dict[str, Any], age: int | None, sex: str | None,
                 reasons: list) -> dict[str, Any]:
    score = 0 if test["usedArms"] else test["standCount"]
    found: dict[str, Any] = {"score": score, "usedArms": test["usedArms"], "band": None, "belowAverageUnder": None,
                             "belowAverage": None}
    if test["usedArms"]:
        reasons.append(_reason("chair-stand-used-arms", "sitToStand", RISK,
                               "Needed the arms to stand up: the chair-stand score is 0."))
    if age is None or sex is None:
        reasons.append(_reason("chair-stand-unrated", "sitToStand", NOTE,
                               "Age or sex unknown: the chair-stand count is not compared with its norm."))
        return found
    norm = chair_stand_norm(rules, age)
    under = norm.men if sex == "male" else norm.women
    found.update(band=norm.band, belowAverageUnder=under, belowAverage=score < under)
    if score < under:
        reasons.append(_reason("chair-stand-below-average", "sitToStand", RISK,
                               f"{score} stands in 30 s; below average for {sex}s aged {norm.band} is fewer "
                               f"than {under}.", score, under))
    return found


def _balance(rules: Ruleset, stance: dict[str, Any], single: dict[str, Any], reasons: list) -> dict[str, Any]:
    hold = rules.balance_hold_seconds

    def held(seconds: float | None) -> bool:
        return seconds is not None and seconds >= hold

    side, tandem, single_leg = stance["sideBySideSeconds"], stance["tandemSeconds"], single["singleLegSeconds"]
    if not held(side):
        reasons.append(_reason("side-by-side-not-held", "tandemStance", URGENT,
                               f"Could not stand with the feet side by side for {hold:g} s.", side, hold))
    if not held(tandem):
        reasons.append(_reason("tandem-stance-not-held", "tandemStance", RISK,
                               f"Could not hold the tandem stance for {hold:g} s.", tandem, hold))
    elif not held(single_leg):
        reasons.append(_reason("single-leg-not-held", "singleLegStance", NOTE,
                               f"Could not stand on one leg for {hold:g} s.", single_leg, hold))
    stages = [side, stance["semiTandemSeconds"], tandem, single_leg]
    return {"stagesHeld": next((i for i, s in enumerate(stages) if not held(s)), 4), "tandemHeld": held(tandem)}


def _gait(rules: Ruleset, walk: dict[str, Any], reasons: list) -> dict[str, Any]:
    impaired = walk["stepsCompleted"] < rules.tandem_walk_steps or walk["neededSupport"]
    if impaired:
        reasons.append(_reason("tandem-walk-impaired", "tandemWalk", RISK,
                               f"{walk['stepsCompleted']} of {rules.tandem_walk_steps} heel-to-toe steps"
                               + (" with support." if walk["neededSupport"] else " without a misstep."),
                               walk["stepsCompleted"], rules.tandem_walk_steps))
    return {"impaired": impaired}


def score(steps: dict[str, dict[str, Any]], participant: dict[str, Any], day: dt.date,
          rules: Ruleset = CURRENT) -> dict[str, Any]:
    """The scoring of a result whose five steps are recorded, by `rules`, for a participant's age on `day`."""
    born = users.parse_birth_date(participant.get("birthDate") or "", today=day)
    age = users.age_on(born, day) if born else None
    reasons: list[dict[str, Any]] = []
    questionnaire = _questionnaire(rules, steps["quiz"], reasons)
    falls = _falls(rules, steps["quiz"], reasons)
    chair = _chair_stand(rules, steps["sitToStand"], age, participant.get("sex"), reasons)
    balance = _balance(rules, steps["tandemStance"], steps["singleLegStance"], reasons)
    gait = _gait(rules, steps["tandemWalk"], reasons)
    screened = questionnaire["atRisk"]
    functional_problem = bool(chair["belowAverage"]) or chair["usedArms"] or not balance["tandemHeld"] \
        or gait["impaired"]
    if screened and functional_problem:
        level = 4 if falls["highRiskHistory"] else 3
    else:
        level = 2 if screened or functional_problem else 1
    return {
        "rulesVersion": rules.version, "riskLevel": level, "riskLabel": LEVEL_LABELS[level],
        "urgentAttention": level == 4 or any(r["effect"] == URGENT for r in reasons),
        "screenedAtRisk": screened, "functionalProblem": functional_problem,
        "ageYears": age, "ageGroup": users.age_group(age), "sex": participant.get("sex"),
        "questionnaire": questionnaire, "falls": falls, "chairStand": chair, "balance": balance, "gait": gait,
        "reasons": reasons,
    }
