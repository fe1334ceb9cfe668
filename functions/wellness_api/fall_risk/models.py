"""What fall risk parses (4.3 and the results API designed here) and how a stored result reads in the API."""

import itertools
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ..core import clock, users
from ..core.bounds import Number, NumberRange, QueryRange
from .rules import CURRENT

# Completion states of a result and who started it.
CREATED, IN_PROGRESS, COMPLETED = "created", "in-progress", "completed"
STATES = (CREATED, IN_PROGRESS, COMPLETED)
APP, CLINICIAN, PARTNER = "app", "clinician", "partner"
ORIGINS = (APP, CLINICIAN, PARTNER)

# The steps: stored name -> the path segment of its step URL and of its PUT endpoint.
STEPS = {"quiz": "quiz", "sitToStand": "sit-to-stand", "tandemStance": "tandem-stance",
         "singleLegStance": "single-leg-stance", "tandemWalk": "tandem-walk"}
# The 2.7 URL field of each step.
STEP_URL_FIELDS = {"quiz": "quizUrl", "sitToStand": "sitToStandTestUrl", "tandemStance": "tandemStanceTestUrl",
                   "singleLegStance": "singleLegStanceTestUrl", "tandemWalk": "tandemWalkTestUrl"}

# Caps on every input (README, Fall risk: Limits). Ids are core.tenancy.valid_id's 64 characters at most.
MAX_PHOTO_URL = 2048
MAX_ID = 64
MAX_EMAIL = users.MAX_EMAIL_LENGTH
DATE_LENGTH = 10  # YYYY-MM-DD
MAX_STAND_SECONDS = 60  # the protocol stops each stage at 10 s; longer holds are accepted and count as held
MAX_WALK_SECONDS = 600
RESULTS_PAGE_DEFAULT, RESULTS_PAGE_MAX = 20, 100
RECORDS_PAGE_DEFAULT, RECORDS_PAGE_MAX = 50, 500



Id = Annotated[str, Field(max_length=MAX_ID)]
Day = Annotated[str, Field(max_length=DATE_LENGTH)]
StanceSeconds = Annotated[Number, NumberRange(ge=0, le=MAX_STAND_SECONDS)]


def _email(value: str) -> str:
    email = users.normalize_email(value)
    if email is None:
        raise PydanticCustomError("email", "not an email address")
    return email


def _photo_url(value: str) -> str:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise PydanticCustomError("url", "not a URL") from None
    if (len(value) > MAX_PHOTO_URL or not value.isascii() or any(c <= " " or c == "\x7f" for c in value)
            or parts.scheme.lower() not in ("http", "https") or not parts.hostname):
        raise PydanticCustomError("url", "not an http(s) URL")
    return value


def _birth_date(value: str) -> str:
    if users.parse_birth_date(value) is None:
        raise PydanticCustomError("birth_date", "must be a YYYY-MM-DD date, not in the future")
    return value


# The date check first: it words the error of anything that is no date, longer ones included (it matches
# exactly 10 characters, so it reads at most 11 of a long string); the length documents and backs it.
BirthDate = Annotated[str, AfterValidator(_birth_date), Field(max_length=DATE_LENGTH)]
Sex = Literal["female", "male"]


# ------------------------------------------------------------------------------------ POST /api/fall-risk


class CreateFallRiskBody(BaseModel):
    """POST /api/fall-risk (4.3): every field optional."""

    model_config = ConfigDict(extra="forbid")

    userId: Id | None = Field(default=None, description="The member the assessment is for; must exist (and be "
                                                        "active) in the client. Defaults to the caller (ID "
                                                        "token); required with a client token.")
    email: Annotated[str, Field(max_length=MAX_EMAIL), AfterValidator(_email)] | None = Field(
        default=None, description="The participant's email, shown to the client's staff; defaults to the member's.")
    photoURL: Annotated[str, Field(max_length=MAX_PHOTO_URL), AfterValidator(_photo_url)] | None = Field(
        default=None, description="An http(s) URL of the participant's photo, at most 2,048 characters.")
    skipDeviceSetup: StrictBool | None = Field(default=False, description="When true the test URLs lead straight to each "
                                                                   "test, without the device setup step.")


# ------------------------------------------------------------------------------------ the steps


class StayIndependentAnswers(BaseModel):
    """The 12 statements of CDC STEADI's Stay Independent brochure, each answered yes (true) or no (false)."""

    model_config = ConfigDict(extra="forbid")

    fallenPastYear: StrictBool = Field(description="I have fallen in the past year. (2 points)")
    advisedCaneOrWalker: StrictBool = Field(description="I use or have been advised to use a cane or walker to get "
                                                        "around safely. (2 points)")
    unsteadyWhenWalking: StrictBool = Field(description="Sometimes I feel unsteady when I am walking.")
    steadiesOnFurniture: StrictBool = Field(description="I steady myself by holding onto furniture when walking "
                                                        "at home.")
    worriedAboutFalling: StrictBool = Field(description="I am worried about falling.")
    pushesUpFromChair: StrictBool = Field(description="I need to push with my hands to stand up from a chair.")
    troubleSteppingOntoCurb: StrictBool = Field(description="I have some trouble stepping up onto a curb.")
    rushesToToilet: StrictBool = Field(description="I often have to rush to the toilet.")
    lostFeelingInFeet: StrictBool = Field(description="I have lost some feeling in my feet.")
    medicineLightheaded: StrictBool = Field(description="I take medicine that sometimes makes me feel light-headed "
                                                        "or more tired than usual.")
    medicineSleepOrMood: StrictBool = Field(description="I take medicine to help me sleep or improve my mood.")
    oftenSadOrDepressed: StrictBool = Field(description="I often feel sad or depressed.")


class QuizStepBody(BaseModel):
    """The questionnaire step: the 12 answers, the fall history, and the participant's age and sex where the
    member record lacks them (they choose the chair-stand norm)."""

    model_config = ConfigDict(extra="forbid")

    answers: StayIndependentAnswers
    fallsPastYear: Annotated[StrictInt, Field(ge=0, le=100)] | None = Field(
        default=None, description="How many times the participant fell in the past year; at least 1 when "
                                  "fallenPastYear is true, 0 when it is false.")
    injuredInFall: StrictBool | None = Field(default=None, description="Whether a fall in the past year caused an "
                                                                       "injury; only with fallenPastYear true.")
    birthDate: BirthDate | None = Field(default=None, description="YYYY-MM-DD; replaces the member record's date of "
                                                                  "birth for this result.")
    sex: Sex | None = Field(default=None, description="Replaces the member record's sex for this result.")

    @model_validator(mode="after")
    def _history_agrees(self) -> "QuizStepBody":
        fallen = self.answers.fallenPastYear
        if self.fallsPastYear is not None and (self.fallsPastYear > 0) != fallen:
            raise PydanticCustomError("falls", "fallsPastYear must be at least 1 when fallenPastYear is true, "
                                               "and 0 when it is false")
        if self.injuredInFall and not fallen:
            raise PydanticCustomError("falls", "injuredInFall needs fallenPastYear true")
        return self


class SitToStandStepBody(BaseModel):
    """The 30-second chair stand: full stands in 30 s from a chair, arms crossed over the chest."""

    model_config = ConfigDict(extra="forbid")

    standCount: Annotated[StrictInt, Field(ge=0, le=60)] = Field(
        description="Full stands in 30 seconds (more than halfway up at the end counts as a stand).")
    usedArms: StrictBool = Field(default=False, description="The participant had to use the arms to stand: the "
                                                            "protocol stops the test and the score is 0.")


class TandemStanceStepBody(BaseModel):
    """Stages 1-3 of the 4-stage balance test, seconds held (10 is the target). The test stops at the first stage
    not held for 10 s: the stages after it are null (not attempted), and given once the one before is held."""

    model_config = ConfigDict(extra="forbid")

    sideBySideSeconds: StanceSeconds = Field(description="Stage 1: feet side by side.")
    semiTandemSeconds: StanceSeconds | None = Field(default=None, description="Stage 2: the instep of one foot "
                                                                              "touching the big toe of the other.")
    tandemSeconds: StanceSeconds | None = Field(default=None, description="Stage 3: one foot in front of the other, "
                                                                          "heel touching toe.")

    @model_validator(mode="after")
    def _protocol_order(self) -> "TandemStanceStepBody":
        stages = [("sideBySideSeconds", self.sideBySideSeconds), ("semiTandemSeconds", self.semiTandemSeconds),
                  ("tandemSeconds", self.tandemSeconds)]
        hold = CURRENT.balance_hold_seconds
        for (name, seconds), (after, following) in itertools.pairwise(stages):
            held = seconds is not None and seconds >= hold
            if held and following is None:
                raise PydanticCustomError("stage", f"{after} is required once {name} reaches {hold:g} s")
            if not held and following is not None:
                raise PydanticCustomError("stage", f"{after} must be null: the test stops when {name} is under "
                                                   f"{hold:g} s")
        return self


class SingleLegStanceStepBody(BaseModel):
    """Stage 4 of the 4-stage balance test: standing on one foot."""

    model_config = ConfigDict(extra="forbid")

    singleLegSeconds: StanceSeconds | None = Field(description="Seconds held on one foot; null when not attempted "
                                                               "(the test stopped at an earlier stage).")


class TandemWalkStepBody(BaseModel):
    """The tandem walk: up to 10 heel-to-toe steps along a line."""

    model_config = ConfigDict(extra="forbid")

    stepsCompleted: Annotated[StrictInt, Field(ge=0, le=10)] = Field(
        description="Consecutive heel-to-toe steps before the first misstep (10: the walk was completed).")
    missteps: Annotated[StrictInt, Field(ge=0, le=100)] = Field(default=0, description="Steps off the line or "
                                                                                       "with a gap.")
    neededSupport: StrictBool = Field(default=False, description="Reached for a wall, furniture or a person.")
    durationSeconds: Annotated[Number, NumberRange(gt=0, le=MAX_WALK_SECONDS)] | None = Field(default=None,
                                                                              description="Time taken, in seconds.")


STEP_BODIES: dict[str, type[BaseModel]] = {
    "quiz": QuizStepBody, "sitToStand": SitToStandStepBody, "tandemStance": TandemStanceStepBody,
    "singleLegStance": SingleLegStanceStepBody, "tandemWalk": TandemWalkStepBody,
}


# ------------------------------------------------------------------------------------ queries


Cursor = Field(default=None, description="The fallRiskResultId of the last result of the previous page "
                                         "(nextStartAfter); results created meanwhile do not shift the pages.")


class FallRiskResultsQuery(BaseModel):
    userId: Id | None = Field(default=None, description="Whose results: the caller by default; admins and "
                                                        "client tokens may name any member of the client.")
    status: Literal["created", "in-progress", "completed"] | None = None
    limit: Annotated[int, QueryRange(ge=1, le=RESULTS_PAGE_MAX)] = Field(
        default=RESULTS_PAGE_DEFAULT, description=f"Page size, 1 to {RESULTS_PAGE_MAX}.")
    startAfter: Id | None = Cursor


class FallRiskRecordsQuery(BaseModel):
    clientId: Id | None = Field(default=None, description="Defaults to the caller's client; only platform "
                                                          "administrators may name another client.")
    status: Literal["created", "in-progress", "completed"] | None = Field(default=None,
                                                                          description="Completion state.")
    riskLevel: Annotated[int, QueryRange(ge=1, le=4)] | None = Field(default=None, description="Completed results of this level.")
    urgentAttention: Literal["true", "false"] | None = Field(default=None, description="Completed results that "
                                                                                      "need attention soon, or not.")
    origin: Literal["app", "clinician", "partner"] | None = None
    userId: Id | None = Field(default=None, description="One member's results.")
    startDate: Day | None = Field(default=None, description="YYYY-MM-DD (UTC): results created on or after it. "
                                                            "A range of any span costs one page of reads: it is "
                                                            "one range of result ids.")
    endDate: Day | None = Field(default=None, description="YYYY-MM-DD (UTC): results created on or before it.")
    limit: Annotated[int, QueryRange(ge=1, le=RECORDS_PAGE_MAX)] = Field(
        default=RECORDS_PAGE_DEFAULT, description=f"Page size, 1 to {RECORDS_PAGE_MAX}.")
    startAfter: Id | None = Cursor


# ------------------------------------------------------------------------------------ read forms


def step_urls(result_id: str, skip_device_setup: bool) -> dict[str, str]:
    """The 2.7 URLs, relative: the tests pass through the device setup page unless it is skipped."""
    base = f"/fall-risk/{result_id}"
    urls = {}
    for step, segment in STEPS.items():
        if step == "quiz" or skip_device_setup:
            urls[STEP_URL_FIELDS[step]] = f"{base}/{segment}"
        else:
            urls[STEP_URL_FIELDS[step]] = f"{base}/device-setup?next={segment}"
    return urls


def created_view(stored: dict[str, Any]) -> dict[str, Any]:
    """The 2.7 creation result."""
    return {"fallRiskResultId": stored["fallRiskResultId"],
            **step_urls(stored["fallRiskResultId"], stored["skipDeviceSetup"]),
            "createdAt": clock.iso(stored["createdAt"])}


RESULT_FIELDS = ("fallRiskResultId", "clientId", "userId", "origin", "status", "email", "photoURL",
                 "skipDeviceSetup", "participant", "riskLevel", "urgentAttention", "rulesVersion")


def _step_view(recorded: dict[str, Any] | None) -> dict[str, Any] | None:
    if recorded is None:
        return None
    return {**recorded, "recordedAt": clock.iso(recorded["recordedAt"])}


def result_view(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored result, in full: as scored when it was completed (never re-scored)."""
    steps = stored.get("steps") or {}
    return {
        **{name: stored.get(name) for name in RESULT_FIELDS},
        "urls": step_urls(stored["fallRiskResultId"], stored["skipDeviceSetup"]),
        "steps": {step: _step_view(steps.get(step)) for step in STEPS},
        "stepsRemaining": [step for step in STEPS if steps.get(step) is None],
        "scoring": stored.get("scoring"),
        "createdAt": clock.iso(stored["createdAt"]),
        "updatedAt": clock.iso(stored["updatedAt"]),
        "completedAt": clock.iso(stored.get("completedAt")),
    }
