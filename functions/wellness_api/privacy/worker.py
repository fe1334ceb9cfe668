"""The worker's side of a privacy request: queued -> running -> completed, or failed after MAX_ATTEMPTS.

Run by the `privacyworker` task-queue function for one task {clientId, requestId}. Cloud Tasks delivers a task at
least once, and a worker may stop anywhere (timeout, crash, deploy), so:

- Starting takes a lease (leaseId, leaseUntil) on the request with a conditional write. A second delivery while the
  lease holds answers 503 and Cloud Tasks tries again later; once a lease has run out, the next delivery takes over.
  A delivery for a finished request does nothing.
- An erasure goes area by area (core.personal_data.AREAS, identity last); `progress.{area}.status` turns "done" once
  an area has nothing left, and a resumed erasure skips the done areas. Inside an area every batch commits with its
  counts (engine.Counter), so what was erased before a stop is counted once and not found again.
- Before the first area the person is frozen: the Auth user disabled and their refresh tokens revoked, the member
  record disabled. Their ID tokens stop working within core.revocation.TTL, so nothing new is written for them while
  the areas are emptied.
- An export collects every area again on each attempt and overwrites its archive: repeating it is harmless.
- A failure releases the lease and raises, so Cloud Tasks retries with backoff; the MAX_ATTEMPTS-th failure marks
  the request failed with the error's type (never its message: it might quote a document).
"""

import dataclasses
import datetime as dt
import secrets
from typing import Any

from ..core import clock, firebase, personal_data, revocation, tenancy, transactions
from ..core import logging as log
from ..core.personal_data import Subject
from . import engine, keys, models
from . import repository as repo

LEASE = dt.timedelta(seconds=600)  # longer than the worker's timeout (main.py): a live worker never loses it
MAX_ATTEMPTS = 5


class LeaseHeld(Exception):
    """Another delivery of this request is running; Cloud Tasks should try again later."""


@dataclasses.dataclass(frozen=True)
class Task:
    client_id: str
    request_id: str

    @classmethod
    def parse(cls, data) -> "Task | None":
        if not isinstance(data, dict):
            return None
        client_id, request_id = data.get("clientId"), data.get("requestId")
        if not (isinstance(client_id, str) and isinstance(request_id, str)):
            return None
        if not (tenancy.valid_id(client_id) and tenancy.valid_id(request_id)):
            return None
        return cls(client_id, request_id)


def handle(data) -> str:
    """Run one task; returns what happened (logged, and answered to Cloud Tasks)."""
    task = Task.parse(data)
    if task is None:
        log.warning("privacy task ignored: malformed payload")
        return "malformed"
    lease_id = secrets.token_hex(8)
    record = _claim(task, lease_id)
    if isinstance(record, str):
        log.info(f"privacy task skipped: {record}", clientId=task.client_id, requestId=task.request_id)
        return record
    try:
        if record["type"] == models.ERASE:
            _erase(task, record)
        else:
            _export(task, record)
    except Exception as exc:
        _failed_attempt(task, record, exc)
        raise
    log.info("privacy request completed", clientId=task.client_id, requestId=task.request_id, type=record["type"])
    return "completed"


def _claim(task: Task, lease_id: str) -> dict | str:
    def attempt() -> dict | str:
        seen = repo.read(task.client_id, task.request_id)
        record = seen.data
        if record is None:
            return "missing"
        if record["status"] in (models.COMPLETED, models.FAILED):
            return "finished"
        now = clock.now()
        if record["status"] == models.RUNNING and record.get("leaseUntil") and record["leaseUntil"] > now:
            raise LeaseHeld()
        fields = {"status": models.RUNNING, "leaseId": lease_id, "leaseUntil": now + LEASE,
                  "attemptCount": record.get("attemptCount", 0) + 1, "updatedAt": now,
                  "startedAt": record.get("startedAt") or now}
        repo.update_if_unchanged(task.client_id, task.request_id, seen, fields)
        return {**record, **fields}

    return transactions.optimistic(attempt)


def _failed_attempt(task: Task, record: dict, exc: Exception) -> None:
    log.error(f"privacy request attempt failed: {type(exc).__name__}", clientId=task.client_id,
              requestId=task.request_id, attempt=record.get("attemptCount"))
    final = record.get("attemptCount", 0) >= MAX_ATTEMPTS
    fields: dict[str, Any] = {"leaseId": None, "leaseUntil": None, "updatedAt": clock.now()}
    if final:
        fields.update({"status": models.FAILED, "error": f"{type(exc).__name__} after {MAX_ATTEMPTS} attempts"})
    try:
        repo.update(task.client_id, task.request_id, fields)
    except Exception as update_exc:  # noqa: BLE001 - the lease runs out by itself
        log.error(f"privacy lease not released: {type(update_exc).__name__}", requestId=task.request_id)


def subject_of(record: dict) -> Subject:
    subject = record.get("subject") or {}
    return Subject(record["clientId"], subject["uid"], subject.get("email"), subject.get("externalUserId"))


# ------------------------------------------------------------------------------------------------ export


def _auth_profile(area: str, uid: str) -> dict:
    """The Auth user's record, with the identity area's documents."""
    if area != "identity":
        return {}
    fb_auth = firebase.auth()
    try:
        user = fb_auth.get_user(uid, app=firebase.app())
    except fb_auth.UserNotFoundError:
        return {}
    meta = user.user_metadata
    return {"authUser": {
        "uid": user.uid, "email": user.email, "displayName": user.display_name, "photoURL": user.photo_url,
        "emailVerified": bool(user.email_verified), "disabled": bool(user.disabled),
        "providers": [p.provider_id for p in user.provider_data],
        "createdAtMs": meta.creation_timestamp if meta else None,
        "lastSignInAtMs": meta.last_sign_in_timestamp if meta else None,
    }}


def _export(task: Task, record: dict) -> None:
    subject = subject_of(record)
    collected = []
    for area in personal_data.registry():
        found = engine.collect(area, subject, extra=lambda name: _auth_profile(name, subject.uid))
        collected.append(found)
        repo.update(task.client_id, task.request_id, {
            f"progress.{area.area}": {"status": "done", "count": found.count}, "updatedAt": clock.now()})
    now = clock.now()
    data, left_out = engine.build_archive(task.request_id, task.client_id, collected, now)
    path = repo.archive_path(task.client_id, task.request_id)
    repo.store_archive(path, data)
    repo.update(task.client_id, task.request_id, {
        "status": models.COMPLETED, "completedAt": now, "updatedAt": now, "leaseId": None, "leaseUntil": None,
        "manifest": {a.area: a.count for a in collected}, "archivePath": path, "archiveBytes": len(data),
        "archiveState": repo.ARCHIVE_STORED,
        "downloadKey": keys.new_download_key(),
        "truncated": left_out["truncated"],
    })


# ------------------------------------------------------------------------------------------------ erase


def _freeze(subject: Subject) -> None:
    """No new data for the person while (and after) their data goes: Auth disabled and revoked, record disabled."""
    fb_auth = firebase.auth()
    try:
        fb_auth.update_user(subject.uid, disabled=True, app=firebase.app())
        fb_auth.revoke_refresh_tokens(subject.uid, app=firebase.app())
    except fb_auth.UserNotFoundError:
        pass
    ref = tenancy.user_ref(subject.client_id, subject.uid)
    if ref.get(["status"]).exists:
        ref.update({"status": tenancy.USER_DISABLED, "updatedAt": clock.now()})
    revocation.forget(subject.uid)


def _delete_auth_user(subject: Subject, counter: engine.Counter) -> None:
    fb_auth = firebase.auth()
    try:
        fb_auth.delete_user(subject.uid, app=firebase.app())
    except fb_auth.UserNotFoundError:
        return
    batch = firebase.db().batch()
    counter.stage(batch, 1, 0)
    batch.commit()
    revocation.forget(subject.uid)


def _retire_external_id(subject: Subject, record: dict) -> None:
    """The same externalUserId signs in later as a new user: its tombstone moves it to the next generation's uid.
    Before any area, so no sign-in between the record's deletion and the tombstone can bring the old uid back."""
    from ..identity import custom_token

    if not subject.external_user_id:
        return
    tombstone = (record.get("subjectHash") or {}).get("externalUserId") or keys.subject_hash(
        subject.client_id, subject.external_user_id)  # a request queued before the hash was recorded
    if tombstone:
        custom_token.retire_external_uid(subject.client_id, subject.external_user_id, subject.uid, tombstone)


def _erase(task: Task, record: dict) -> None:
    subject = subject_of(record)
    _freeze(subject)
    _retire_external_id(subject, record)
    progress = record.get("progress") or {}
    for area in personal_data.registry():
        if (progress.get(area.area) or {}).get("status") == "done":
            continue
        repo.update(task.client_id, task.request_id, {f"progress.{area.area}.status": "running",
                                                       "updatedAt": clock.now()})
        counter = engine.Counter(task.client_id, task.request_id, area.area)
        skip = frozenset({task.request_id}) if area.area == "privacy" else frozenset()
        engine.erase_area(area, subject, counter, skip)
        if area.area == "identity":
            _delete_auth_user(subject, counter)
        repo.update(task.client_id, task.request_id, {f"progress.{area.area}.status": "done",
                                                       "updatedAt": clock.now()})
    done = repo.read(task.client_id, task.request_id).data or {}
    report = {area: {"deleted": int(p.get("deleted", 0)), "anonymised": int(p.get("anonymised", 0))}
              for area, p in (done.get("progress") or {}).items()}
    now = clock.now()
    # The request itself is the audit record: from here on it names the person only by subjectHash.
    fields = {"status": models.COMPLETED, "completedAt": now, "updatedAt": now, "leaseId": None, "leaseUntil": None,
              "report": report, "subject": None}
    if (record.get("requestedBy") or {}).get("uid") == subject.uid:
        fields["requestedBy.uid"] = None  # they asked themself: requestedBy.uidHash stays
    repo.update(task.client_id, task.request_id, fields)
