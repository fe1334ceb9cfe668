"""The worker's side of a job (3.3): queued -> processing -> uploading -> available, or failed.

Run by the `mediajobworker` task-queue function for one task {clientId, jobId, queueEventId}. Cloud Tasks
delivers a task at least once, so every step is a conditional write on the job as read:

- A task whose job is gone (deleted while queued), finished, failed, or re-queued under another
  queueEventId (retried) does nothing: a redelivered task never generates or bills twice.
- Starting takes a lease (leaseId, leaseUntil). A second delivery while the lease holds answers 503, so
  Cloud Tasks tries again later and then finds the job finished; once a lease has expired (its worker died),
  the next delivery takes the job over. Each later step commits only while the lease is still its own.
- The result is written to Storage under a name fixed by the execution before the job turns uploading, so a
  worker that takes over an uploading job finds the file and finishes without generating again.
- available, the media asset record and the billing counters are one commit: exactly once.
- A provider's refusal or an unusable reference image fails the job with errorMessage (a retry of the job is
  the administrator's call); anything else (Firestore, Storage) releases the lease and raises, so Cloud Tasks
  retries with backoff.
"""

import dataclasses
import datetime as dt
import hashlib
import secrets

from ..core import clock, tenancy, transactions
from ..core import logging as log
from . import references
from . import repository as repo
from .models import ATTACHED, AVAILABLE, FAILED, PROCESSING, QUEUED, RUNNING, UPLOADING
from .providers import registry
from .providers.base import GeneratedMedia, GenerationRequest, ProviderError

# Longer than the worker function's timeout (queue.DISPATCH_DEADLINE_SECONDS): a live worker never loses it.
LEASE = dt.timedelta(seconds=960)
MAX_ERROR_MESSAGE = 500


class LeaseHeld(Exception):
    """Another delivery of this job is running; Cloud Tasks should try again later."""


class LeaseLost(Exception):
    """The job moved on without this worker (taken over, or changed by an administrator)."""


@dataclasses.dataclass(frozen=True)
class Task:
    client_id: str
    job_id: str
    queue_event_id: str

    @classmethod
    def parse(cls, data) -> "Task | None":
        if not isinstance(data, dict):
            return None
        client_id, job_id, event_id = data.get("clientId"), data.get("jobId"), data.get("queueEventId")
        if not (isinstance(client_id, str) and isinstance(job_id, str) and isinstance(event_id, str) and event_id
                and tenancy.valid_id(client_id) and tenancy.valid_id(job_id)):
            return None
        return cls(client_id, job_id, event_id)


def asset_id_for(task: Task) -> str:
    """The media asset of one execution: the same on every delivery and takeover, new on every retry."""
    return "ma" + hashlib.sha256(f"{task.job_id}:{task.queue_event_id}".encode()).hexdigest()[:22]


def handle(data) -> str:
    """Run one task; returns what happened (logged, and answered to Cloud Tasks)."""
    task = Task.parse(data)
    if task is None:
        log.warning("media task ignored: malformed payload")
        return "malformed"
    lease_id = secrets.token_hex(8)
    job = _claim(task, lease_id)
    if isinstance(job, str):
        log.info(f"media task skipped: {job}", clientId=task.client_id, jobId=task.job_id,
                 queueEventId=task.queue_event_id)
        return job
    try:
        return _run(task, lease_id, job)
    except LeaseLost:
        log.info("media task stopped: the job moved on", clientId=task.client_id, jobId=task.job_id)
        return "lease-lost"
    except Exception:
        _release(task, lease_id)
        raise


# ------------------------------------------------------------------------------------ steps


def _own(task: Task, lease_id: str, statuses: tuple[str, ...]) -> transactions.Seen:
    seen = repo.read_job(task.client_id, task.job_id)
    job = seen.data
    if job is None or job.get("leaseId") != lease_id or job["status"] not in statuses:
        raise LeaseLost()
    return seen


def _claim(task: Task, lease_id: str) -> dict | str:
    """The job, now this worker's; or why there is nothing to do."""
    def attempt() -> dict | str:
        seen = repo.read_job(task.client_id, task.job_id)
        job = seen.data
        if job is None:
            return "cancelled"
        if job["execution"]["queueEventId"] != task.queue_event_id:
            return "superseded"
        if job["status"] in (AVAILABLE, ATTACHED, FAILED):
            return "finished"
        if job["status"] in RUNNING and job.get("leaseUntil") and job["leaseUntil"] > clock.now():
            raise LeaseHeld()
        now = clock.now()
        fields = {"status": PROCESSING if job["status"] == QUEUED else job["status"], "leaseId": lease_id,
                  "leaseUntil": now + LEASE, "attemptCount": job.get("attemptCount", 0) + 1, "updatedAt": now}
        repo.update_job(task.client_id, task.job_id, seen, fields)
        return {**job, **fields}

    return transactions.optimistic(attempt)


def _run(task: Task, lease_id: str, job: dict) -> str:
    path, token = job.get("storagePath"), None
    if job["status"] == UPLOADING and path:
        token = repo.stored_token(path)  # stored by a worker that stopped before finishing
    if token is None:
        try:
            media = _generate(job)
        except (ProviderError, references.UnsafeReference) as exc:
            _fail(task, lease_id, str(exc))
            return "failed"
        path = repo.library_path(task.client_id, asset_id_for(task), media.content_type)
        _uploading(task, lease_id, media, path)
        token = repo.store_result(path, media.data, media.content_type)
    assert path is not None  # a token already stored was found at the job's storagePath
    _finish(task, lease_id, job, path, token)
    return "available"


def _generate(job: dict) -> GeneratedMedia:
    fetched = []
    for index, reference in enumerate(job.get("referenceImages") or []):
        try:
            fetched.append(references.fetch(reference["url"]))
        except references.UnsafeReference as exc:
            raise references.UnsafeReference(f"referenceImages[{index}]: {exc}") from None
    request = GenerationRequest(
        media_type=job["mediaType"], prompt=job["normalizedPrompt"], model=job["model"],
        aspect_ratio=job["aspectRatio"], resolution=job["resolution"], duration_seconds=job["durationSeconds"],
        seed=job.get("seed"), references=tuple(fetched))
    return registry.provider_for(job["mediaType"]).generate(request)


def _result_fields(media: GeneratedMedia, path: str) -> dict:
    return {"providerGenerationId": media.provider_generation_id, "providerCostUsd": media.provider_cost_usd,
            "resultMediaType": media.content_type, "storagePath": path, "resultWidth": media.width,
            "resultHeight": media.height, "resultDurationSeconds": media.duration_seconds,
            "resultBytes": len(media.data)}


def _uploading(task: Task, lease_id: str, media: GeneratedMedia, path: str) -> None:
    def attempt() -> None:
        seen = _own(task, lease_id, RUNNING)
        repo.update_job(task.client_id, task.job_id, seen,
                        {**_result_fields(media, path), "status": UPLOADING, "updatedAt": clock.now()})

    transactions.optimistic(attempt)


def _finish(task: Task, lease_id: str, job: dict, path: str, token: str) -> None:
    """uploading -> available with the library record and the billing counters, in one commit."""
    asset_id = asset_id_for(task)
    url = repo.download_url(path, token)
    video = job["mediaType"] == "video"

    def attempt() -> None:
        seen = _own(task, lease_id, (UPLOADING,))
        stored = seen.existing()
        now = clock.now()
        asset = {
            "assetId": asset_id, "clientId": task.client_id, "mediaType": job["mediaType"],
            "contentType": stored.get("resultMediaType"), "url": url, "storagePath": path,
            "width": stored.get("resultWidth"), "height": stored.get("resultHeight"),
            "durationSeconds": stored.get("resultDurationSeconds"), "sizeBytes": stored.get("resultBytes"),
            "sourceJobId": task.job_id, "queueEventId": task.queue_event_id, "module": job["module"],
            "targetType": job["targetType"], "targetEntityId": job["targetEntityId"],
            "promptPreset": job["promptPreset"], "status": AVAILABLE, "createdAt": now, "attachedAt": None,
        }
        fields = {"status": AVAILABLE, "mediaAssetId": asset_id, "hostedVideoId": asset_id if video else None,
                  "resultVideoUrl": url if video else None, "resultImageUrl": None if video else url,
                  "errorMessage": None, "leaseId": None, "leaseUntil": None, "updatedAt": now}
        counts = {"available": 1, f"available_{job['mediaType']}": 1,
                  "billed_" + job["billingPresetKey"].replace("-", "_"): 1}
        if stored.get("providerCostUsd"):
            counts["providerCostUsd"] = stored["providerCostUsd"]
        repo.update_job(task.client_id, task.job_id, seen, fields, asset=asset, counts=counts)

    transactions.optimistic(attempt)
    log.info("media job available", clientId=task.client_id, jobId=task.job_id, queueEventId=task.queue_event_id,
             mediaAssetId=asset_id)


def _fail(task: Task, lease_id: str, message: str) -> None:
    def attempt() -> None:
        seen = _own(task, lease_id, RUNNING)
        repo.update_job(task.client_id, task.job_id, seen,
                        {"status": FAILED, "errorMessage": message[:MAX_ERROR_MESSAGE], "leaseId": None,
                         "leaseUntil": None, "updatedAt": clock.now()}, counts={"failed": 1})

    transactions.optimistic(attempt)
    log.info(f"media job failed: {message[:200]}", clientId=task.client_id, jobId=task.job_id,
             queueEventId=task.queue_event_id)


def _release(task: Task, lease_id: str) -> None:
    """Best effort after an unexpected error: end the lease now so the retried task can take the job over."""
    try:
        seen = _own(task, lease_id, RUNNING)
        repo.update_job(task.client_id, task.job_id, seen, {"leaseUntil": clock.now(), "updatedAt": clock.now()})
    except Exception as exc:  # noqa: BLE001 - the lease then simply runs out
        log.warning(f"media job lease not released: {type(exc).__name__}", jobId=task.job_id)
