"""Fixtures of the media-generation jobs API tests (4.9, 2.13, 3.3, 7.7): the area's Flask test client, a client
with the module on, valid bodies, and jobs in a chosen state.

Jobs created by POST are queued on the real Tasks emulator, whose `mediajobworker` picks them up within seconds:
a test never assumes such a job is still queued later. Tests that need a job to stay in a state store it directly
(`store_job`), or hold the tasks the API queues (`held_tasks`) and deliver them in-process (`deliver`) when they
choose, which runs the same worker code as the emulator does.
"""

import datetime as dt
import time
import urllib.parse
import urllib.request
import uuid

import pytest

from tests.conftest import Tenant
from wellness_api.core import clock, firebase, tenancy
from wellness_api.core.auth import Principal
from wellness_api.media_generation import presets, queue, service, worker
from wellness_api.media_generation import repository as repo
from wellness_api.media_generation.models import (
    AVAILABLE,
    FAILED,
    PROCESSING,
    QUEUED,
    UPLOADING,
    CreateJobBody,
)
from wellness_api.media_generation.routes import app

JOBS = "/api/b2b/ai/media-generation/jobs"
LEGACY = "/api/b2b/ai/video-generation/jobs"
IMAGE_PRESET, VIDEO_PRESET = "image-exercise-thumbnail", "exercise-cover-motion"
DONE = (AVAILABLE, FAILED)
WAIT_SECONDS = 60.0
POLL_SECONDS = 0.3
LIVE_LEASE = dt.timedelta(minutes=10)


@pytest.fixture
def http():
    return app.test_client()


def enable(tenant: Tenant, *settings: str) -> Tenant:
    tenant.configure("modules.mediaGeneration=true", *settings)
    return tenant


@pytest.fixture
def media_tenant(tenant) -> Tenant:
    """A client with the media generation module on (standard policy, the default)."""
    return enable(tenant)


@pytest.fixture
def other_media_tenant(other_tenant) -> Tenant:
    """A second client with the module on: its administrators pass the module gate, so only tenancy stops them."""
    return enable(other_tenant)


@pytest.fixture(scope="module")
def shared_media_tenant(emulators) -> Tenant:
    """One client for a module's refused requests (nothing they send is stored, so they cannot disturb each other)."""
    return enable(Tenant(f"t-{uuid.uuid4().hex[:12]}"))


# ------------------------------------------------------------------------------------ bodies


def job_body(preset: str = IMAGE_PRESET, **fields) -> dict:
    """A valid create body for `preset` (mediaType the preset's); `fields` replace top-level fields."""
    body = {
        "mediaType": presets.PRESETS[preset].media_type, "module": "aiMove", "targetType": "exercise",
        "targetEntityId": "squat", "promptPreset": preset,
        "promptInput": {"promptText": "bright studio light, side view",
                        "context": {"name": "Squat", "category": "strength",
                                    "description": "A bodyweight squat to parallel"}},
    }
    body.update(fields)
    return body


def image_body(**fields) -> dict:
    return job_body(IMAGE_PRESET, **fields)


def video_body(**fields) -> dict:
    return job_body(VIDEO_PRESET, **fields)


def prompt(text: str = "", **context) -> dict:
    return {"promptText": text, "context": context}


# ------------------------------------------------------------------------------------ URLs and calls


def url(path: str = JOBS, job_id: str | None = None, action: str | None = None, client_id: str | None = None,
        **query) -> str:
    target = path + (f"/{job_id}" if job_id else "") + (f"/{action}" if action else "")
    params = {**({"clientId": client_id} if client_id else {}), **query}
    if params:
        target += "?" + urllib.parse.urlencode(params)
    return target


def create(http, member, body: dict, *, path: str = JOBS, client_id: str | None = None, status: int = 201) -> dict:
    """POST a job; the {job, execution} answer."""
    response = http.post(url(path, client_id=client_id), json=body, headers=member.headers)
    assert response.status_code == status, response.json
    return response.json


def get(http, member, job_id: str, *, path: str = JOBS, client_id: str | None = None) -> dict:
    response = http.get(url(path, job_id, client_id=client_id), headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json


def listed(http, member, *, path: str = JOBS, client_id: str | None = None, **query) -> dict:
    response = http.get(url(path, client_id=client_id, **query), headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json


def ids(page: dict) -> list[str]:
    return [job["jobId"] for job in page["jobs"]]


def wait_until_done(http, member, job_id: str, *, path: str = JOBS, client_id: str | None = None,
                    timeout: float = WAIT_SECONDS) -> dict:
    """Poll GET (as an integration would) until the job is available or failed; the job."""
    deadline = time.monotonic() + timeout
    while True:
        job = get(http, member, job_id, path=path, client_id=client_id)
        if job["status"] in DONE:
            return job
        assert time.monotonic() < deadline, f"job {job_id} is still {job['status']} after {timeout} s"
        time.sleep(POLL_SECONDS)


def download(address: str) -> bytes:
    """A result URL opened as a browser would: no credentials."""
    with urllib.request.urlopen(address, timeout=30) as response:
        assert response.status == 200
        return response.read()


def library(client_id: str) -> list[str]:
    """The names of the client's stored results (Cloud Storage)."""
    prefix = f"clients/{client_id}/{repo.LIBRARY}/"
    return sorted(blob.name for blob in firebase.bucket().list_blobs(prefix=prefix))


# ------------------------------------------------------------------------------------ jobs in a chosen state


def admin_principal(tenant: Tenant) -> Principal:
    return Principal(kind="user", client_id=tenant.client_id, uid=tenant.admin.uid, role=tenancy.ROLE_ADMIN)


# What a job in each state carries besides its status, as the worker would have left it.
def _state_fields(status: str) -> dict:
    now = clock.now()
    if status == FAILED:
        return {"errorMessage": "The image provider refused the request (400).", "attemptCount": 1}
    if status in (PROCESSING, UPLOADING):
        return {"leaseId": "lease-of-a-live-worker", "leaseUntil": now + LIVE_LEASE, "attemptCount": 1}
    return {"attemptCount": 1} if status != QUEUED else {}


def store_job(tenant: Tenant, status: str = QUEUED, body: dict | None = None, **fields) -> dict:
    """A job saved as the API saves it but never queued, then moved to `status` (with `fields`): it stays there.

    processing and uploading jobs hold a live lease unless `leaseUntil` says otherwise. Stored available or
    attached jobs have no media asset: use `render_job` where one matters."""
    model = CreateJobBody.model_validate(body or image_body(), strict=True)
    job = service.new_job(tenant.client, admin_principal(tenant), model)
    repo.put_job(tenant.client_id, job)
    if status != QUEUED or fields:
        job = {**job, "status": status, **_state_fields(status), **fields, "updatedAt": clock.now()}
        repo.put_job(tenant.client_id, job)
    return job


def task_of(job: dict) -> dict:
    """The Cloud Tasks payload of the job's current execution."""
    return {"clientId": job["clientId"], "jobId": job["jobId"], "queueEventId": job["execution"]["queueEventId"]}


def deliver(task: dict) -> str:
    """Run one task in this process, as the `mediajobworker` function would; the worker's outcome."""
    return worker.handle(task)


def render_job(tenant: Tenant, body: dict | None = None) -> dict:
    """A stored job run by the worker in-process: available, with its media asset and file in the library."""
    job = store_job(tenant, body=body)
    assert deliver(task_of(job)) == AVAILABLE
    stored = repo.read_job(tenant.client_id, job["jobId"]).data
    assert stored["status"] == AVAILABLE and stored["mediaAssetId"]
    return stored


@pytest.fixture
def held_tasks(monkeypatch) -> list[dict]:
    """The tasks the API queues, recorded instead of handed to the Tasks emulator: its jobs stay queued until
    the test delivers them (`deliver`)."""
    tasks: list[dict] = []

    def hold(client_id: str, job_id: str, queue_event_id: str) -> None:
        tasks.append({"clientId": client_id, "jobId": job_id, "queueEventId": queue_event_id})

    monkeypatch.setattr(queue, "enqueue", hold)
    return tasks
