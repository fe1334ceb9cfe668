"""What fall risk answers with (2.7 and the results API); the handlers' bodies are checked against these."""

from typing import Literal

from pydantic import Field

from ..core.openapi import Closed

Status = Literal["created", "in-progress", "completed"]
Origin = Literal["app", "clinician", "partner"]
Timestamp = str
StepName = Literal["quiz", "sitToStand", "tandemStance", "singleLegStance", "tandemWalk"]


class FallRiskCreated(Closed):
    """The fall-risk creation result (2.7): the new result's id and its step URLs, relative paths."""

    fallRiskResultId: str
    quizUrl: str = Field(description="The questionnaire (Stay Independent).")
    sitToStandTestUrl: str = Field(description="The 30-second chair stand; through device setup unless skipped.")
    tandemStanceTestUrl: str = Field(description="Balance stages 1-3 (side by side, semi-tandem, tandem).")
    singleLegStanceTestUrl: str = Field(description="Balance stage 4 (single leg).")
    tandemWalkTestUrl: str = Field(description="The tandem walk.")
    createdAt: Timestamp


class FallRiskStepUrls(Closed):
    quizUrl: str
    sitToStandTestUrl: str
    tandemStanceTestUrl: str
    singleLegStanceTestUrl: str
    tandemWalkTestUrl: str


class FallRiskParticipant(Closed):
    birthDate: str | None = Field(description="YYYY-MM-DD: from the member record, or the questionnaire step.")
    sex: Literal["female", "male"] | None


class FallRiskAnswers(Closed):
    fallenPastYear: bool
    advisedCaneOrWalker: bool
    unsteadyWhenWalking: bool
    steadiesOnFurniture: bool
    worriedAboutFalling: bool
    pushesUpFromChair: bool
    troubleSteppingOntoCurb: bool
    rushesToToilet: bool
    lostFeelingInFeet: bool
    medicineLightheaded: bool
    medicineSleepOrMood: bool
    oftenSadOrDepressed: bool


class FallRiskQuizStep(Closed):
    answers: FallRiskAnswers
    fallsPastYear: int | None
    injuredInFall: bool | None
    recordedAt: Timestamp


class FallRiskSitToStandStep(Closed):
    standCount: int
    usedArms: bool
    recordedAt: Timestamp


class FallRiskTandemStanceStep(Closed):
    sideBySideSeconds: float
    semiTandemSeconds: float | None
    tandemSeconds: float | None
    recordedAt: Timestamp


class FallRiskSingleLegStanceStep(Closed):
    singleLegSeconds: float | None
    recordedAt: Timestamp


class FallRiskTandemWalkStep(Closed):
    stepsCompleted: int
    missteps: int
    neededSupport: bool
    durationSeconds: float | None
    recordedAt: Timestamp


class FallRiskSteps(Closed):
    """Each step as recorded last; null until recorded."""

    quiz: FallRiskQuizStep | None
    sitToStand: FallRiskSitToStandStep | None
    tandemStance: FallRiskTandemStanceStep | None
    singleLegStance: FallRiskSingleLegStanceStep | None
    tandemWalk: FallRiskTandemWalkStep | None


class FallRiskReason(Closed):
    """One finding behind the scoring."""

    code: str = Field(description="stay-independent-total, key-question, repeated-falls, injurious-fall, "
                                  "chair-stand-below-average, chair-stand-used-arms, chair-stand-unrated, "
                                  "side-by-side-not-held, tandem-stance-not-held, single-leg-not-held or "
                                  "tandem-walk-impaired.")
    step: StepName
    effect: Literal["risk", "urgent", "note"] = Field(description="risk: raises the level; urgent: needs attention "
                                                                  "soon; note: recorded, changes nothing.")
    message: str
    value: float | None = Field(description="The measured value, where there is one.")
    threshold: float | None = Field(description="The rule's threshold, where there is one.")
    answers: list[str] = Field(description="The questionnaire answers (yes) behind it.")


class FallRiskQuestionnaireScore(Closed):
    total: int
    maxTotal: int
    atRisk: bool = Field(description="Total of 4 or more, or yes to a key question.")
    keyQuestionsYes: list[str]
    answeredYes: list[str]


class FallRiskFalls(Closed):
    count: int
    injured: bool
    highRiskHistory: bool


class FallRiskChairStand(Closed):
    score: int = Field(description="Stands in 30 s; 0 when the arms were used.")
    usedArms: bool
    band: str | None = Field(description="The age band of the norm (60-64 ... 90-94); null when age or sex is "
                                         "unknown.")
    belowAverageUnder: int | None = Field(description="A score under this is below average.")
    belowAverage: bool | None


class FallRiskBalance(Closed):
    stagesHeld: int = Field(description="Stages held for 10 s in a row, 0 to 4.")
    tandemHeld: bool


class FallRiskGait(Closed):
    impaired: bool


class FallRiskScoring(Closed):
    """The scoring of a completed result, by the rules of rulesVersion, kept as computed then."""

    rulesVersion: str
    riskLevel: int = Field(ge=1, le=4)
    riskLabel: Literal["low", "mild", "moderate", "high"]
    urgentAttention: bool
    screenedAtRisk: bool
    functionalProblem: bool = Field(description="A gait, strength or balance problem.")
    ageYears: int | None
    ageGroup: str | None
    sex: Literal["female", "male"] | None
    questionnaire: FallRiskQuestionnaireScore
    falls: FallRiskFalls
    chairStand: FallRiskChairStand
    balance: FallRiskBalance
    gait: FallRiskGait
    reasons: list[FallRiskReason]


class FallRiskResult(Closed):
    """A stored fall-risk result, in full."""

    fallRiskResultId: str
    clientId: str
    userId: str
    origin: Origin = Field(description="app: the member's own; clinician: started by an admin for a member; "
                                       "partner: started with a client token.")
    status: Status
    email: str | None
    photoURL: str | None
    skipDeviceSetup: bool
    participant: FallRiskParticipant
    riskLevel: int | None = Field(description="1 (low) to 4 (high) once completed.")
    urgentAttention: bool | None
    rulesVersion: str | None = Field(description="The version of the rules that scored it.")
    urls: FallRiskStepUrls
    steps: FallRiskSteps
    stepsRemaining: list[StepName]
    scoring: FallRiskScoring | None
    createdAt: Timestamp
    updatedAt: Timestamp
    completedAt: Timestamp | None


class OneFallRiskResult(Closed):
    result: FallRiskResult


class FallRiskResultList(Closed):
    results: list[FallRiskResult] = Field(description="Newest first.")
    nextStartAfter: str | None = Field(description="Pass as startAfter for the next page; null on the last page.")


class FallRiskQuestion(Closed):
    key: str = Field(description="The answer's field name in the questionnaire step.")
    text: str = Field(description="The Stay Independent statement, answered yes or no.")
    points: int
    loinc: str = Field(description="The LOINC code of the item (panel 97874-2).")
    keyQuestion: bool = Field(description="One of STEADI's three key questions: yes screens at risk on its own.")


class FallRiskChairStandNorm(Closed):
    ages: str
    menBelowAverageUnder: int
    womenBelowAverageUnder: int


class FallRiskLevel(Closed):
    level: int
    label: str


class FallRiskRules(Closed):
    """The scoring rules of one version (README, Fall risk: sources)."""

    version: str
    questions: list[FallRiskQuestion]
    questionnaireAtRiskTotal: int
    chairStandNorms: list[FallRiskChairStandNorm]
    balanceHoldSeconds: float
    tandemWalkSteps: int
    repeatedFalls: int
    riskLevels: list[FallRiskLevel]


class FallRiskRulesResult(Closed):
    rules: FallRiskRules
