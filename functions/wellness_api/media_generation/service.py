"""Media-generation rules of the jobs API (4.9, 3.3, 7.7): who may act, creating, listing, deleting, retrying
and attaching jobs. The worker's side of the state machine is in worker.py.

Every change of a job commits only if the job is still as read (core.transactions.optimistic), so a delete
racing the worker's claim, or two retries at once, end in one consistent state: the loser re-reads and sees
the winner's result.
"""

import datetime as dt
from typing import Any

from ..core import auth, clock, tenancy, transactions
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import policy, presets, queue
from . import repository as repo
from .models import (
    ATTACHED,
    AVAILABLE,
    DELETABLE,
    FAILED,
    QUEUED,
    RETRYABLE,
    RUNNING,
    CreateJobBody,
    JobsQuery,
)
from .providers import registry

MODULE_SETTING = "modules.mediaGeneration"
POLICY_SETTING = "mediaGeneration.policy"
MODULE_OFF = "The media generation module is not enabled for this client."
ADMIN_REQUIRED = "Only administrators of the client may generate media."
JOB_NOT_FOUND = "Job not found."
INVALID_CURSOR = "Invalid field startAfter: not a job id of this client."
NOT_QUEUED_OR_FAILED = "Only queued or failed jobs can be deleted; this job is {status}."
NOT_RETRYABLE = "Only failed or finished jobs can be retried; this job is {status}."
NOT_AVAILABLE = "Only an available job can be attached; this job is {status}."
QUEUE_FAILED = "The job was saved but could not be queued ({reason}); retry it."
CONTENTION = ApiError(503, "The job is being changed by another request; retry shortly.")
MAX_SCANNED = 2000  # jobs one text-search page examines at most
MAX_ACTIVE_SETTING = "mediaGeneration.maxActiveJobs"
TOO_MANY_ACTIVE = ("This client already has {limit} media-generation jobs queued or running, its limit "
                   "(mediaGeneration.maxActiveJobs); retry once one of them is available or failed.")
RETRY_AFTER_SECONDS = 30  # a local image takes seconds, a vendor's video minutes



# ------------------------------------------------------------------------------------ who may call


def admin_client(principal: Principal, requested: str | None) -> Client:
    """The client an administrator acts on, with the module on: 403 for other roles, clients or the module off."""
    if not principal.is_admin:
        raise ApiError(403, ADMIN_REQUIRED)
    client = auth.administered_client(principal, requested)
    if not client.setting(MODULE_SETTING):
        raise ApiError(403, MODULE_OFF)
    return client


# ------------------------------------------------------------------------------------ views


def _iso(value: Any) -> str | None:
    return clock.iso(value) if isinstance(value, dt.datetime) else None


def job_view(job: dict) -> dict:
    """The 2.13 job object of a stored job."""
    return {
        "jobId": job["jobId"], "clientId": job["clientId"], "mediaType": job["mediaType"], "module": job["module"],
        "targetType": job["targetType"], "targetEntityId": job["targetEntityId"], "status": job["status"],
        "promptPreset": job["promptPreset"], "promptInput": job["promptInput"],
        "referenceImages": job["referenceImages"], "normalizedPrompt": job["normalizedPrompt"],
        "policyProfile": job["policyProfile"], "generationMode": job["generationMode"], "model": job["model"],
        "durationSeconds": job["durationSeconds"], "aspectRatio": job["aspectRatio"],
        "resolution": job["resolution"], "seed": job.get("seed"),
        "providerGenerationId": job.get("providerGenerationId"), "providerCostUsd": job.get("providerCostUsd"),
        "billingPresetKey": job["billingPresetKey"], "warnings": job.get("warnings", []),
        "hostedVideoId": job.get("hostedVideoId"), "mediaAssetId": job.get("mediaAssetId"),
        "resultVideoUrl": job.get("resultVideoUrl"), "resultImageUrl": job.get("resultImageUrl"),
        "resultMediaType": job.get("resultMediaType"), "errorMessage": job.get("errorMessage"),
        "attemptCount": job.get("attemptCount", 0), "createdAt": _iso(job["createdAt"]),
        "updatedAt": _iso(job.get("updatedAt")) or _iso(job["createdAt"]), "attachedAt": _iso(job.get("attachedAt")),
    }


def _queued(job: dict) -> dict:
    return {"job": job_view(job), "execution": job["execution"]}


def execution(queue_event_id: str) -> dict:
    return {"mode": "background", "processor": queue.PROCESSOR, "queueEventId": queue_event_id}


RESULT_FIELDS = {"providerGenerationId": None, "providerCostUsd": None, "hostedVideoId": None, "mediaAssetId": None,
                 "resultVideoUrl": None, "resultImageUrl": None, "resultMediaType": None, "errorMessage": None,
                 "storagePath": None, "attachedAt": None}


# ------------------------------------------------------------------------------------ create


def admit(client: Client) -> transactions.Seen:
    """The admission marker as read, when the client has a place for one more queued job; 429 otherwise.

    The marker is read BEFORE the jobs are counted, and the commit that queues the job changes it only if it is
    still as read. So of two requests racing for the last place, the later commit fails and re-counts, and its
    count sees the other's job (Firestore queries are strongly consistent): no overshoot. The count leaves out
    running jobs whose lease has run out; one that a later delivery takes over counts again without admission,
    which is the only way the cap can be exceeded (by such jobs only)."""
    admission = repo.read_admission(client.client_id)
    limit = client.setting(MAX_ACTIVE_SETTING)
    if repo.count_active(client.client_id, clock.now()) >= limit:
        raise ApiError(429, TOO_MANY_ACTIVE.format(limit=limit), headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    return admission


def create_job(client: Client, principal: Principal, body: CreateJobBody) -> tuple[int, dict]:
    """(201, {job, execution}) once queued; (202, the same with the job failed) when queueing failed; 429 when the
    client already has mediaGeneration.maxActiveJobs jobs queued or running."""
    job = new_job(client, principal, body)

    def attempt() -> None:
        repo.create_job(client.client_id, job, {"created": 1, f"created_{job['mediaType']}": 1}, admit(client))

    transactions.optimistic(attempt, contention_error=CONTENTION)
    return _hand_to_queue(client.client_id, job, job["execution"]["queueEventId"], success=201)


def new_job(client: Client, principal: Principal, body: CreateJobBody, job_id: str | None = None) -> dict:
    """A queued job as stored, checked and with its settings applied (not saved)."""
    preset = presets.PRESETS[body.promptPreset]
    if body.mediaType != preset.media_type:
        raise ApiError(400, f"promptPreset {preset.key} makes {preset.media_type}s; mediaType must be {preset.media_type}.")
    context = body.promptInput.context.model_dump(exclude_none=True)
    if not body.promptInput.promptText.strip() and not (context.get("name") or "").strip():
        raise ApiError(400, "promptInput needs promptText or context.name.")
    applied = policy.apply(
        preset, body.requestedSettings, has_references=bool(body.referenceImages),
        platform_admin=principal.platform_admin, policy=client.setting(POLICY_SETTING) or policy.STANDARD,
        default_model=registry.default_model(preset.media_type, preset))
    now = clock.now()
    event = queue.new_event_id()
    job = {
        "jobId": job_id or repo.new_job_id(client.client_id), "clientId": client.client_id, "mediaType": preset.media_type,
        "module": body.module, "targetType": body.targetType, "targetEntityId": body.targetEntityId,
        "status": QUEUED, "promptPreset": preset.key,
        "promptInput": {"promptText": body.promptInput.promptText, "context": context},
        "referenceImages": [r.model_dump() for r in body.referenceImages],
        "normalizedPrompt": presets.normalize_prompt(preset, body.promptInput.promptText, context),
        "policyProfile": preset.policy_profile, "generationMode": applied.generationMode, "model": applied.model,
        "durationSeconds": applied.durationSeconds, "aspectRatio": applied.aspectRatio,
        "resolution": applied.resolution, "seed": applied.seed, "billingPresetKey": preset.billing_preset_key,
        "warnings": list(applied.warnings), **RESULT_FIELDS, "attemptCount": 0,
        "createdAt": now, "updatedAt": now, "requestedBy": principal.uid, "execution": execution(event),
        "leaseId": None, "leaseUntil": None,
    }
    return job


def _hand_to_queue(client_id: str, job: dict, event: str, success: int) -> tuple[int, dict]:
    try:
        queue.enqueue(client_id, job["jobId"], event)
    except queue.QueueError as exc:
        message = QUEUE_FAILED.format(reason=str(exc)[:200] or "the queue did not answer")
        job = _mark_unqueued(client_id, job["jobId"], event, message) or job
        return 202, _queued(job)
    return success, _queued(job)


def _mark_unqueued(client_id: str, job_id: str, event: str, message: str) -> dict | None:
    """queued -> failed for the execution that could not be queued (unless something moved it meanwhile)."""
    def attempt() -> dict | None:
        seen = repo.read_job(client_id, job_id)
        job = seen.data
        if job is None or job["status"] != QUEUED or job["execution"]["queueEventId"] != event:
            return job
        fields = {"status": FAILED, "errorMessage": message, "updatedAt": clock.now()}
        repo.update_job(client_id, job_id, seen, fields, counts={"failed": 1, "notQueued": 1})
        return {**job, **fields}

    return transactions.optimistic(attempt, contention_error=CONTENTION)


# ------------------------------------------------------------------------------------ read


def get_job(client: Client, job_id: str) -> dict:
    job = repo.read_job(client.client_id, job_id).data
    if job is None:
        raise ApiError(404, JOB_NOT_FOUND)
    return job


def _matches(job: dict, needle: str) -> bool:
    haystack = (job["jobId"], job["promptInput"].get("promptText") or "", job["targetEntityId"], job["model"])
    return any(needle in text.casefold() for text in haystack)


def list_jobs(client: Client, query: JobsQuery) -> dict:
    """Newest first. A text query examines at most MAX_SCANNED jobs per page; nextStartAfter continues after the
    last one examined, so a search over a long history is paged, never cut short silently."""
    if query.startAfter is not None and not tenancy.valid_id(query.startAfter):
        raise ApiError(400, INVALID_CURSOR)
    stream = repo.job_pages(client.client_id, query.status, query.startAfter)
    if stream is None:
        raise ApiError(400, INVALID_CURSOR)
    needle = (query.query or "").strip().casefold()
    found: list[dict] = []
    last_seen = None
    for scanned, job in enumerate(stream, start=1):
        last_seen = job["jobId"]
        if not needle or _matches(job, needle):
            found.append(job)
            if len(found) == query.limit:
                break
        if scanned >= MAX_SCANNED:
            break
    else:
        last_seen = None  # the history ended: no next page
    return {"jobs": [job_view(j) for j in found], "nextStartAfter": last_seen}


# ------------------------------------------------------------------------------------ delete, retry, attach


def _lease_expired(job: dict) -> bool:
    until = job.get("leaseUntil")
    return not isinstance(until, dt.datetime) or until <= clock.now()


def delete_job(client: Client, job_id: str) -> dict:
    """3.3: a queued job is cancelled before it runs, a failed one removed; 409 for the others."""
    def attempt() -> dict:
        seen = repo.read_job(client.client_id, job_id)
        job = seen.data
        if job is None:
            raise ApiError(404, JOB_NOT_FOUND)
        if job["status"] not in DELETABLE:
            raise ApiError(409, NOT_QUEUED_OR_FAILED.format(status=job["status"]))
        repo.delete_job(client.client_id, job_id, seen)
        return job

    # A cancelled job's task still arrives, finds no job, and does nothing (worker.py).
    job = transactions.optimistic(attempt, contention_error=CONTENTION)
    return {"success": True, "jobId": job_id, "status": "cancelled" if job["status"] == QUEUED else "removed"}


def retry_job(client: Client, job_id: str) -> tuple[int, dict]:
    """Failed, available or attached jobs (and running ones whose worker stopped) back to queued, with a new
    queueEventId; the earlier result stays in the media library."""
    event = queue.new_event_id()

    def attempt() -> dict:
        seen = repo.read_job(client.client_id, job_id)
        job = seen.data
        if job is None:
            raise ApiError(404, JOB_NOT_FOUND)
        stalled = job["status"] in RUNNING and _lease_expired(job)
        if job["status"] not in RETRYABLE and not stalled:
            raise ApiError(409, NOT_RETRYABLE.format(status=job["status"]))
        admission = admit(client)  # neither a finished job nor a stalled one holds a place until now
        fields = {**RESULT_FIELDS, "status": QUEUED, "execution": execution(event), "leaseId": None,
                  "leaseUntil": None, "updatedAt": clock.now()}
        repo.update_job(client.client_id, job_id, seen, fields, counts={"retried": 1}, admission=admission)
        return {**job, **fields}

    job = transactions.optimistic(attempt, contention_error=CONTENTION)
    return _hand_to_queue(client.client_id, job, event, success=200)


def attach_job(client: Client, principal: Principal, job_id: str) -> dict:
    """available -> attached: the result is selected for content use; attaching again changes nothing."""
    def attempt() -> dict:
        seen = repo.read_job(client.client_id, job_id)
        job = seen.data
        if job is None:
            raise ApiError(404, JOB_NOT_FOUND)
        if job["status"] == ATTACHED:
            return job
        if job["status"] != AVAILABLE:
            raise ApiError(409, NOT_AVAILABLE.format(status=job["status"]))
        now = clock.now()
        fields = {"status": ATTACHED, "attachedAt": now, "attachedBy": principal.uid, "updatedAt": now}
        asset = {"assetId": job["mediaAssetId"], "status": ATTACHED, "attachedAt": now, "attachedBy": principal.uid}
        repo.update_job(client.client_id, job_id, seen, fields, attach_asset=asset, counts={"attached": 1})
        return {**job, **fields}

    return transactions.optimistic(attempt, contention_error=CONTENTION)


def daily_activity(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, int | float]]:
    """{day: {counter: total}}: created, available, failed, attached, billed_<preset>, providerCostUsd, ..."""
    return repo.daily_activity(client_id, start_day, end_day)
