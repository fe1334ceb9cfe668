"""Fixtures of the privacy tests: the area's Flask app, requests run by the real worker in-process (the tasks the API
queues are held), and a person made active in every area through the areas' own APIs."""

import dataclasses
import time
import uuid

import pytest
import requests

from support import fake_upstream as fake
from support import rppg_synthetic as synthetic
from support.ai_move import make_exercise
from support.fake_upstream import KEY, FakeUpstream
from support.tokens import SECRETS, auth_host, bearer, with_claims
from support.vital_scan import make_partner
from tests.conftest import Tenant
from wellness_api.core import firebase
from wellness_api.privacy import queue, worker
from wellness_api.privacy.routes import app

REQUESTS = "/api/privacy/requests"
WAIT_SECONDS = 120.0


@pytest.fixture
def http():
    return app.test_client()


@pytest.fixture
def held_tasks(monkeypatch):
    """The tasks the API queues, held here instead of the Tasks emulator: the test runs them with `deliver`."""
    held: list[tuple[str, str]] = []
    monkeypatch.setattr(queue, "enqueue", lambda client_id, request_id: held.append((client_id, request_id)))
    return held


def deliver(client_id: str, request_id: str) -> str:
    return worker.handle({"clientId": client_id, "requestId": request_id})


def create(http, headers, kind: str, uid: str, status: int = 202) -> dict:
    response = http.post(REQUESTS, json={"type": kind, "uid": uid}, headers=headers)
    assert response.status_code == status, response.json
    return response.json["request"]


def read(http, headers, request_id: str) -> dict:
    response = http.get(f"{REQUESTS}/{request_id}", headers=headers)
    assert response.status_code == 200, response.json
    return response.json["request"]


def wait_done(http, headers, request_id: str) -> dict:
    """The request once the Tasks emulator's worker has finished it."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        request = read(http, headers, request_id)
        if request["status"] in ("completed", "failed"):
            return request
        time.sleep(0.5)
    raise AssertionError(f"privacy request {request_id} not finished after {WAIT_SECONDS} s")


# ------------------------------------------------------------------------------------------------ an active person


def _sign_in_custom(custom_token: str) -> str:
    response = requests.post(
        f"http://{auth_host()}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=any",
        json={"token": custom_token, "returnSecureToken": True}, timeout=10)
    response.raise_for_status()
    return response.json()["idToken"]


@dataclasses.dataclass
class Person:
    uid: str
    email: str
    external_id: str
    token: str
    hr: float  # the heart rate of their synthetic face trace
    metrics: dict = dataclasses.field(default_factory=dict)  # what their Vital Scan measured
    ids: dict = dataclasses.field(default_factory=dict)  # the ids their activity made, per area

    @property
    def headers(self) -> dict:
        return bearer(self.token)


def world_tenant() -> Tenant:
    tenant = Tenant(f"t-{uuid.uuid4().hex[:12]}")
    tenant.configure("auth.externalUser=jit", "modules.aiMove=true", "modules.wellnessChat=true",
                     "modules.mediaGeneration=true", "modules.analytics=true")
    return tenant


class Activity:
    """Makes people of one client active in every area through the areas' HTTP APIs (Flask test clients)."""

    def __init__(self, tenant: Tenant, upstream: FakeUpstream, monkeypatch):
        from wellness_api.media_generation import queue as media_queue

        self.tenant = tenant
        self.partner = make_partner(tenant, points=50)
        self.upstream = upstream
        self.exercise = make_exercise(tenant.client, "rep")
        self.media_tasks: list[tuple] = []
        monkeypatch.setattr(media_queue, "enqueue", lambda *task: self.media_tasks.append(task))
        self.lesson = self._lesson()

    def _lesson(self) -> str:
        from wellness_api.lessons.routes import app as lessons

        response = lessons.test_client().post("/api/b2b/lessons/catalog", headers=self.tenant.admin.headers, json={
            "title": {"en": "Morning mobility"}, "description": {"en": "Ten gentle minutes."}, "duration": 10,
            "MET": 2.5, "algorithm": "Video", "intensity": "Low", "categories": ["Mobility"], "areas": ["Full body"],
            "equipment": "Mat", "videoURLs": ["https://videos.example.com/m.mp4"], "isLive": True,
            "membershipTiers": []})
        assert response.status_code in (200, 201), response.json
        return response.json.get("lessonId") or response.json["lesson"]["id"]

    def person(self, external_id: str, hr: float) -> Person:
        """A partner's user signed in with the external_user grant, who then became an admin of the client and gave
        an email (the operator's and the person's own doing, outside the API)."""
        from wellness_api.identity.routes import custom_token_app

        response = custom_token_app.test_client().post(
            "/api/auth/custom-token", headers=self.partner.headers,
            json={"grantType": "external_user", "externalUserId": external_id})
        assert response.status_code == 200, response.json
        uid = response.json["user"]["uid"]
        email = f"{external_id}@person.test"
        firebase.auth().update_user(uid, email=email, app=firebase.app())
        self.tenant.client.client_id  # noqa: B018 - the member record is the client's
        firebase.db().document(f"clients/{self.tenant.client_id}/users/{uid}").update({"email": email,
                                                                                        "role": "admin"})
        token = with_claims(_sign_in_custom(response.json["customToken"]), role="admin", email=email)
        SECRETS.add(token)
        return Person(uid, email, external_id, token, hr)

    def everything(self, person: Person) -> Person:
        for step in (self.lesson_play, self.vital_scan, self.fall_risk, self.ai_move, self.chat, self.media,
                     self.content, self.api_key):
            step(person)
        return person

    def lesson_play(self, person: Person) -> None:
        from wellness_api.lessons.routes import app as lessons

        play_id = uuid.uuid4().hex
        response = lessons.test_client().put(f"/api/lessons/{self.lesson}/plays/{play_id}", headers=person.headers,
                                             json={"status": "completed"})
        assert response.status_code in (200, 201), response.json
        person.ids["lessons"] = play_id

    def vital_scan(self, person: Person) -> None:
        from wellness_api.vital_scan.routes import app as vital

        http = vital.test_client()
        sessions = []
        for user_id in (person.uid, person.external_id):
            response = http.post("/api/v1/vital-scan/sessions", headers=self.partner.headers,
                                 json={"userId": user_id, "locale": "en"})
            assert response.status_code == 201, response.json
            sessions.append(response.json["data"])
        token = sessions[0]["vitalScanUrl"].split("#scanToken=")[1]
        # Each person's own breathing too: the two people's readings must differ to tell whose data is where.
        trace = synthetic.generate(person.hr, person.hr / 5, "clean", seconds=30, fps=30, seed=int(person.hr))
        assert http.post("/api/hosted/vital-scan/start", headers=bearer(token)).status_code == 200
        response = http.post("/api/hosted/vital-scan/measurement", headers=bearer(token), json={
            "fps": trace.fps, "t": [round(x, 3) for x in trace.t], "rgb": [[round(v, 3) for v in px] for px in trace.rgb]})
        assert response.status_code == 200 and response.json["status"] == "completed", response.json
        person.metrics = response.json["metrics"]
        person.ids["vital_scan"] = [s["vitalScanResultId"] for s in sessions]

    def fall_risk(self, person: Person) -> None:
        from support.fall_risk import HEALTHY, STEP_PATHS
        from wellness_api.fall_risk.routes import app as fall

        http = fall.test_client()
        response = http.post("/api/fall-risk", headers=person.headers, json={"skipDeviceSetup": True})
        assert response.status_code == 200, response.json
        result_id = response.json["fallRiskResultId"]
        for step, path in STEP_PATHS.items():
            response = http.put(f"/api/fall-risk/results/{result_id}/{path}", headers=person.headers,
                                json=HEALTHY[step])
            assert response.status_code == 200, response.json
        person.ids["fall_risk"] = result_id

    def ai_move(self, person: Person) -> None:
        from wellness_api.ai_move.routes import app as ai_move

        http = ai_move.test_client()
        response = http.post("/api/ai-move/sessions", headers=person.headers,
                             json={"exerciseId": self.exercise, "exerciseType": "rep", "targetReps": 10})
        assert response.status_code == 201, response.json
        session_id = response.json["sessionId"]
        response = http.patch(f"/api/ai-move/sessions/{session_id}", headers=person.headers, json={
            "status": "completed", "completionOutcome": "success", "repsCompleted": 10, "durationSeconds": 40.5,
            "caloriesBurned": 5.5, "formScore": 0.8})
        assert response.status_code == 200, response.json
        person.ids["ai_move"] = session_id

    def chat(self, person: Person) -> None:
        from wellness_api.assistant.routes import app as assistant

        self.upstream.reply(fake.text_stream(["Keep", " going"], reported=fake.usage(50, 2)))
        response = assistant.test_client().post("/api/wellness-chat", headers=person.headers,
                                                json={"message": f"My heart rate was {person.hr} today"})
        assert response.status_code == 200
        response.get_data()

    def media(self, person: Person) -> None:
        from wellness_api.media_generation import worker as media_worker
        from wellness_api.media_generation.routes import app as media

        response = media.test_client().post("/api/b2b/ai/media-generation/jobs", headers=person.headers, json={
            "mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
            "promptPreset": "image-exercise-thumbnail",
            "promptInput": {"promptText": "bright studio light", "context": {"name": "Squat"}}})
        assert response.status_code == 201, response.json
        job_id = response.json["job"]["jobId"] if "job" in response.json else response.json["jobId"]
        for client_id, queued_job, event in [t for t in self.media_tasks if t[1] == job_id]:
            assert media_worker.handle({"clientId": client_id, "jobId": queued_job, "queueEventId": event}) == "available"
        person.ids["media_generation"] = job_id

    def content(self, person: Person) -> None:
        from wellness_api.content.routes import app as content

        response = content.test_client().post("/api/content", headers=person.headers, json={
            "key": f"k-{uuid.uuid4().hex[:8]}", "categoryKey": "announcements", "title": {"en": "Hello"},
            "body": {"en": "Classes start soon."}})
        assert response.status_code == 201, response.json
        person.ids["content"] = response.json["content"]["contentId"]

    def api_key(self, person: Person) -> None:
        from wellness_api.api_keys.routes import app as api_keys

        response = api_keys.test_client().post(f"/api/clients/{self.tenant.client_id}/api-keys",
                                               headers=person.headers, json={"label": "by the person"})
        assert response.status_code == 201, response.json
        person.ids["api_keys"] = response.json["apiKey"]["keyId"]


@pytest.fixture
def upstream(monkeypatch):
    """The fake OpenAI-compatible server as the platform's LLM (the vendor boundary), as the assistant tests use it."""
    server = FakeUpstream()
    monkeypatch.setenv("LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("LLM_MODEL", "fake-model")
    monkeypatch.setenv("LLM_API_KEY", KEY)
    yield server
    server.close()


@pytest.fixture
def activity(upstream, monkeypatch, emulators) -> Activity:
    return Activity(world_tenant(), upstream, monkeypatch)
