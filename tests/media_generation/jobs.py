"""What the media-generation jobs API tests share: the shape of a job (2.13) and of its execution, the calls
on one job, and bodies with requested settings."""

import re

from tests.media_generation.conftest import IMAGE_PRESET, JOBS, job_body, url
from wellness_api.media_generation import repository as repo

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
EVENT_ID = re.compile(r"^[0-9a-f]{32}$")
# 2.13, plus seed, updatedAt and attachedAt.
JOB_FIELDS = {
    "jobId", "clientId", "mediaType", "module", "targetType", "targetEntityId", "status", "promptPreset",
    "promptInput", "referenceImages", "normalizedPrompt", "policyProfile", "generationMode", "model",
    "durationSeconds", "aspectRatio", "resolution", "providerGenerationId", "providerCostUsd", "billingPresetKey",
    "warnings", "hostedVideoId", "mediaAssetId", "resultVideoUrl", "resultImageUrl", "resultMediaType",
    "errorMessage", "attemptCount", "createdAt", "seed", "updatedAt", "attachedAt",
}
RESULTS = ("providerGenerationId", "providerCostUsd", "hostedVideoId", "mediaAssetId", "resultVideoUrl",
           "resultImageUrl", "resultMediaType", "errorMessage", "attachedAt")
SETTINGS = ("model", "generationMode", "aspectRatio", "resolution", "durationSeconds", "seed", "warnings")
BACKGROUND = {"mode": "background", "processor": "cloud-tasks/mediajobworker"}


def settings_of(job: dict) -> dict:
    return {key: job[key] for key in SETTINGS}


def action(http, member, job_id: str, verb: str, *, path: str = JOBS, client_id: str | None = None):
    """DELETE the job (verb "delete"), or POST its attach or retry."""
    if verb == "delete":
        return http.delete(url(path, job_id, client_id=client_id), headers=member.headers)
    return http.post(url(path, job_id, verb, client_id=client_id), headers=member.headers)


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.json
    return response.json


def stored(tenant, job_id: str) -> dict | None:
    return repo.read_job(tenant.client_id, job_id).data


def with_settings(preset: str = IMAGE_PRESET, references: bool = False, **settings) -> dict:
    extra = {"referenceImages": [{"url": "https://example.com/ref.png"}]} if references else {}
    return job_body(preset, requestedSettings=settings, **extra)
