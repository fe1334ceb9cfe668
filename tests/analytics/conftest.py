"""Fixtures of the analytics tests: the area's Flask test client, dashboards (tenants with modules.analytics on),
and producers that make real activity through the other areas' own endpoints (their Flask apps, in process), so
that every figure asserted was written by the code that writes it in production.

Dates in the past are made with the clock moved back (core.clock.shifted) around in-process requests.
"""

import dataclasses
import datetime as dt
import json
import uuid

import pytest

from tests.conftest import Member, Tenant, bearer
from wellness_api.ai_move import service as ai_move_service
from wellness_api.ai_move.models import ExerciseSpec
from wellness_api.ai_move.routes import app as ai_move_app
from wellness_api.analytics.routes import app
from wellness_api.api_keys import service as api_keys
from wellness_api.assistant.routes import app as assistant_app
from wellness_api.core import clock, users
from wellness_api.fall_risk.routes import app as fall_risk_app
from wellness_api.identity.routes import app as identity_app
from wellness_api.lessons.routes import app as lessons_app
from wellness_api.vital_scan import service as vital_scan_service
from wellness_api.vital_scan.routes import app as vital_scan_app

OVERVIEW, ENGAGEMENT, ASSESSMENTS, FUNCTIONAL = "overview", "engagement-insights", "assessment-counts", "functional-tests"
ENDPOINTS = (OVERVIEW, ENGAGEMENT, ASSESSMENTS, FUNCTIONAL)
RANGED = (ENGAGEMENT, ASSESSMENTS, FUNCTIONAL)
AGE_GROUPS = ("30-39", "40-49", "50-59", "60-69", "70-79", "80-89", "90+")

# The exact keys of each answer: 2.14's, plus what responses.py adds (vitalScan) where the spec shows no shape.
METADATA_KEYS = {"generatedAt", "queryClientId", "isGofaAdmin", "linkedPlayers", "startDate", "endDate"}
OVERVIEW_KEYS = {"totalLinkedPlayers", "highRiskCount", "averageAge", "urgentAttentionCount", "riskDistribution",
                 "ageDistribution", "assessmentCompletionRate", "metadata"}
ENGAGEMENT_MODULES = {
    "lessons": ("activeUsers", "totalPlays", "completedPlays"),
    "aiMove": ("activeUsers", "totalSessions", "completedSessions", "totalReps"),
    "aiNutrition": ("activeUsers", "totalFoodLogs", "totalPlans", "totalChatSessions"),
    "waterIntake": ("activeUsers", "totalLogs", "totalAmountMl"),
    "wellnessChat": ("activeUsers", "totalChats", "totalMessages"),
    "vitalScan": ("activeUsers", "totalScans", "completedScans"),
}
ENGAGEMENT_KEYS = {"success", *ENGAGEMENT_MODULES, "dailyBreakdown", "metadata"}
DAY_KEYS = {"date", "aiMove", "aiTraining", "lessons", "nutrition", "waterIntake", "wellnessChat", "vitalScan"}
STATE_KEYS = {"total", "completed", "inProgress", "notStarted"}
ORIGINS = ("app", "clinician", "partner")
KINDS = ("fallRisk", "cognitive", "msk")
ASSESSMENT_KEYS = {"success", "totals", "assessments", "byClient", "metadata"}
FUNCTIONAL_KEYS = {"success", "ageGroups", "overall", "ungroupedResults", "metadata"}
MEASURE_KEYS = {"chairStands", "tandemStanceSeconds", "singleLegStanceSeconds", "tandemWalkSteps"}

MISSING_AUTH = "Missing or invalid Authorization header"
INVALID_TOKEN = "Invalid or expired token"
ADMIN_REQUIRED = "Admin access required."
FORBIDDEN = "You do not have access to this client."
CLIENT_NOT_FOUND = "Client not found."
MODULE_OFF = "Analytics is not enabled for this client."


def url(client_id: str, endpoint: str, query: str = "") -> str:
    return f"/api/client/{client_id}/analytics/{endpoint}{query}"


def window(start: dt.date | str | None = None, end: dt.date | str | None = None) -> str:
    """The query string of a range (either date may be left out)."""
    parts = [f"{name}={value.isoformat() if isinstance(value, dt.date) else value}"
             for name, value in (("startDate", start), ("endDate", end)) if value is not None]
    return "?" + "&".join(parts) if parts else ""


def headers_of(caller) -> dict:
    return caller if isinstance(caller, dict) else caller.headers


def read(http, caller, client_id: str, endpoint: str, start=None, end=None) -> dict:
    """A 200 answer of an analytics endpoint (the caller: a Member or headers)."""
    response = http.get(url(client_id, endpoint, window(start, end)), headers=headers_of(caller))
    assert response.status_code == 200, response.json
    assert response.headers["x-request-id"]
    return response.json


@pytest.fixture(scope="session")
def http():
    return app.test_client()


def today() -> dt.date:
    return clock.now().date()


def days_ago(n: int) -> dt.date:
    return today() - dt.timedelta(days=n)


def at(moment: dt.datetime):
    """The clock moved so that it reads `moment` now (then a little later as the request runs)."""
    return clock.shifted(moment - clock.now())


def back(days: int, hours: float = 0):
    """The clock moved back by whole days (and hours): activity dated in the past."""
    return clock.shifted(-dt.timedelta(days=days, hours=hours))


def midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), dt.UTC)


def years_before(day: dt.date, years: int) -> dt.date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def born(years: int, days_later: int = 0) -> str:
    """A date of birth: exactly `years` old today (their birthday is today), or `days_later` days younger."""
    return (years_before(today(), years) + dt.timedelta(days=days_later)).isoformat()


def new_tenant(analytics: bool = True, **kwargs) -> Tenant:
    tenant = Tenant(f"t-{uuid.uuid4().hex[:12]}", **kwargs)
    if analytics:
        tenant.configure("modules.analytics=true")
    return tenant


@pytest.fixture
def dashboard(tenant) -> Tenant:
    """A tenant whose admins may read analytics."""
    tenant.configure("modules.analytics=true")
    return tenant


# ------------------------------------------------------------------------------------ fall risk

NO_ANSWERS = {key: False for key in (
    "fallenPastYear", "advisedCaneOrWalker", "unsteadyWhenWalking", "steadiesOnFurniture", "worriedAboutFalling",
    "pushesUpFromChair", "troubleSteppingOntoCurb", "rushesToToilet", "lostFeelingInFeet", "medicineLightheaded",
    "medicineSleepOrMood", "oftenSadOrDepressed")}
STEP_PATHS = {"quiz": "quiz", "sitToStand": "sit-to-stand", "tandemStance": "tandem-stance",
              "singleLegStance": "single-leg-stance", "tandemWalk": "tandem-walk"}


def quiz(yes: tuple[str, ...] = (), **extra) -> dict:
    return {"answers": {**NO_ANSWERS, **{key: True for key in yes}}, **extra}


def steps(stands: int = 15, tandem: float = 10, single: float | None = 10, walk: int = 10, **overrides) -> dict:
    """Every step's body: a healthy participant unless told otherwise (stands, seconds held, steps walked)."""
    return {"quiz": quiz(), "sitToStand": {"standCount": stands},
            "tandemStance": {"sideBySideSeconds": 10, "semiTandemSeconds": 10, "tandemSeconds": tandem},
            "singleLegStance": {"singleLegSeconds": single}, "tandemWalk": {"stepsCompleted": walk}, **overrides}


# The four levels (and urgency), whatever the participant's age and sex: an impaired tandem walk is a functional
# problem, a key question answered yes screens at risk, two falls make it high; feet side by side not held is urgent.
IMPAIRED = {"stepsCompleted": 5}
LEVEL_STEPS = {
    1: steps(),
    2: steps(tandemWalk=IMPAIRED),
    "2u": steps(tandemStance={"sideBySideSeconds": 5}, singleLegStance={"singleLegSeconds": None}),
    3: steps(quiz=quiz(("unsteadyWhenWalking",)), tandemWalk=IMPAIRED),
    4: steps(quiz=quiz(("fallenPastYear",), fallsPastYear=2), tandemWalk=IMPAIRED),
}
LEVELS = {1: (1, False), 2: (2, False), "2u": (2, True), 3: (3, False), 4: (4, True)}  # (riskLevel, urgent)


@dataclasses.dataclass
class FallRisk:
    """POST /api/fall-risk and the step PUTs, through the area's Flask app."""

    http: object = dataclasses.field(default_factory=fall_risk_app.test_client)

    def create(self, caller, **body) -> str:
        response = self.http.post("/api/fall-risk", json=body, headers=headers_of(caller))
        assert response.status_code == 200, response.json
        return response.json["fallRiskResultId"]

    def record(self, caller, result_id: str, step: str, body: dict, http=None):
        return (http or self.http).put(f"/api/fall-risk/results/{result_id}/{STEP_PATHS[step]}", json=body,
                                       headers=headers_of(caller))

    def step(self, caller, result_id: str, step: str, body: dict) -> dict:
        response = self.record(caller, result_id, step, body)
        assert response.status_code == 200, response.json
        return response.json["result"]

    def complete(self, caller, result_id: str | None = None, for_user: str | None = None, level=1,
                 **overrides) -> dict:
        """A result walked through every step (LEVEL_STEPS[level] unless overridden); the completed result."""
        if result_id is None:
            result_id = self.create(caller, **({"userId": for_user} if for_user else {}))
        result = None
        for name, body in {**LEVEL_STEPS[level], **overrides}.items():
            result = self.step(caller, result_id, name, body)
        assert result["status"] == "completed", result
        if not overrides:
            assert (result["riskLevel"], result["urgentAttention"]) == LEVELS[level], result["scoring"]["reasons"]
        return result


@pytest.fixture(scope="session")
def fall_risk() -> FallRisk:
    return FallRisk()


def client_token(tenant: Tenant) -> dict:
    """Headers with a client token, obtained as a partner backend does (POST /api/client/token/)."""
    key = api_keys.create_key(tenant.client_id, "partner backend", False, "test")
    response = identity_app.test_client().post("/api/client/token/",
                                               json={"clientId": tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 200, response.json
    return bearer(response.json["token"])


# ------------------------------------------------------------------------------------ AI Move


def ai_move_ready(tenant: Tenant) -> str:
    """AI Move on for the tenant, with one rep exercise (catalog management is the CLI's); its id."""
    tenant.configure("modules.aiMove=true")
    spec = ExerciseSpec(name=f"Squats {uuid.uuid4().hex[:6]}", type="rep", targetValue=10)
    tenant.exercise = ai_move_service.create_exercise(ai_move_service.NewExercise(tenant.client, spec, library=False))
    return tenant.exercise


def ai_move_session(tenant: Tenant, member: Member, status: str | None = "completed", reps: int = 10) -> str:
    """POST /api/ai-move/sessions, then (unless status is None) PATCH it to `status` with `reps` done."""
    http = ai_move_app.test_client()
    started = http.post("/api/ai-move/sessions", json={"exerciseId": tenant.exercise, "exerciseType": "rep",
                                                       "targetReps": 10}, headers=member.headers)
    assert started.status_code == 201, started.json
    session_id = started.json["sessionId"]
    if status is not None:
        body = {"status": status, **({"repsCompleted": reps, "durationSeconds": 30} if status == "completed" else {})}
        moved = http.patch(f"/api/ai-move/sessions/{session_id}", json=body, headers=member.headers)
        assert moved.status_code == 200, moved.json
    return session_id


# ------------------------------------------------------------------------------------ lessons


def live_lesson(tenant: Tenant) -> str:
    """A live lesson of the tenant's catalog, created by its admin (POST /api/b2b/lessons/catalog)."""
    response = lessons_app.test_client().post("/api/b2b/lessons/catalog", json={"title": {"en": "Stretch"},
                                                                                 "isLive": True},
                                              headers=tenant.admin.headers)
    assert response.status_code == 201, response.json
    return response.json["lessonId"]


def play(caller, lesson_id: str, status: str = "started", play_id: str | None = None, http=None):
    """PUT /api/lessons/{lessonId}/plays/{playId}; the response."""
    play_id = play_id or uuid.uuid4().hex
    return (http or lessons_app.test_client()).put(f"/api/lessons/{lesson_id}/plays/{play_id}",
                                                   json={"status": status}, headers=headers_of(caller))


def played(caller, lesson_id: str, completed: bool = True) -> str:
    """A new play reported started, then (by default) completed; its playId."""
    play_id = uuid.uuid4().hex
    assert play(caller, lesson_id, "started", play_id).status_code == 201
    if completed:
        assert play(caller, lesson_id, "completed", play_id).status_code == 200
    return play_id


# ------------------------------------------------------------------------------------ wellness chat

CHAT = "/api/wellness-chat"


def chat(member: Member, conversation_id: str | None = None, message: str = "How are my workouts going?") -> str:
    """One turn of the wellness chat (the tenant has modules.wellnessChat on); the conversationId."""
    body = {"message": message, **({"conversationId": conversation_id} if conversation_id else {})}
    response = assistant_app.test_client().post(CHAT, json=body, headers=member.headers)
    assert response.status_code == 200, response.json
    last = [block for block in response.get_data(as_text=True).split("\n\n") if block.strip()][-1]
    assert last.startswith("event: done"), last
    return json.loads(last.split("data: ", 1)[1])["conversationId"]


# ------------------------------------------------------------------------------------ Vital Scan

VITAL_SCAN = "/api/v1/vital-scan/sessions"
HOSTED = "/api/hosted/vital-scan"


def vital_scan_ready(tenant: Tenant) -> dict:
    """Vital Scan on for the tenant, with points and a server API key; the partner's headers."""
    tenant.configure("modules.vitalScan=true", "vitalScan.points=50", "vitalScan.requestsPerMinute=1000")
    tenant.scan_key = bearer(api_keys.create_key(tenant.client_id, "vital scan", False, "test").secret)
    return tenant.scan_key


def trace(seconds: int = 16, fps: int = 30) -> dict:
    frames = int(seconds * fps) + 1
    return {"fps": fps, "t": [round(i * 1000 / fps, 3) for i in range(frames)],
            "rgb": [[150 + (i % 5), 100.5, 80] for i in range(frames)]}


def scan(tenant: Tenant, user_id: str, finish: bool = True) -> tuple[str, dict]:
    """A Vital Scan session created by the partner for `user_id`, started and (by default) measured on the hosted
    endpoints; (its id, the scan token's headers)."""
    http = vital_scan_app.test_client()
    created = http.post(VITAL_SCAN, json={"userId": user_id}, headers=tenant.scan_key)
    assert created.status_code == 201, created.json
    data = created.json["data"]
    token = bearer(data["vitalScanUrl"].split("#scanToken=")[1])
    assert http.post(f"{HOSTED}/start", headers=token).status_code == 200
    if finish:
        measured = measure_until_done(token, http)
        assert measured.status_code == 200 and measured.json["status"] == "completed", measured.json
    return data["vitalScanResultId"], token


def measure(token: dict, http=None):
    return (http or vital_scan_app.test_client()).post(f"{HOSTED}/measurement", json=trace(), headers=token)


def measure_until_done(token: dict, http=None):
    """measure() until the session completes: a trace that supports nothing is first answered "try again" (200
    in_progress, vital_scan/models.py MAX_RETRIES times). The last answer."""
    for _ in range(vital_scan_service.MAX_RETRIES + 1):
        response = measure(token, http)
        if response.status_code != 200 or response.json["status"] != "in_progress":
            break
    return response


# ------------------------------------------------------------------------------------ shapes


def assert_metadata(body: dict, client_id: str, platform_admin: bool, linked: int | None, start=None, end=None):
    meta = body["metadata"]
    assert set(meta) == METADATA_KEYS
    assert meta["queryClientId"] == client_id
    assert meta["isGofaAdmin"] is platform_admin
    if linked is not None:
        assert meta["linkedPlayers"] == linked
    assert (meta["startDate"], meta["endDate"]) == (start, end)
    generated = dt.datetime.fromisoformat(meta["generatedAt"].replace("Z", "+00:00"))
    assert abs((generated - clock.now()).total_seconds()) < 60
    assert meta["generatedAt"].endswith("Z")


def zero_states() -> dict:
    return dict.fromkeys(("total", "completed", "inProgress", "notStarted"), 0)


def states(total: int = 0, completed: int = 0, in_progress: int = 0) -> dict:
    return {"total": total, "completed": completed, "inProgress": in_progress,
            "notStarted": total - completed - in_progress}


def ages_today(birth_dates: list[str]) -> float:
    """Mean age in years (days / 365.2425), one decimal: the overview's averageAge of these dates of birth."""
    if not birth_dates:
        return 0.0
    now = today()
    return round(sum((now - dt.date.fromisoformat(b)).days for b in birth_dates) / len(birth_dates) / 365.2425, 1)


def age_group_of(birth_date: str | None) -> str | None:
    if birth_date is None:
        return None
    return users.age_group(users.age_on(dt.date.fromisoformat(birth_date), today()))
