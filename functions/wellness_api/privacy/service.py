"""The rules of privacy requests: who may ask about whom, one open request per person and type, the views."""

import dataclasses
import datetime as dt
import time
from typing import Any

from ..core import clock, config, tenancy
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import keys, models, queue
from . import repository as repo

NOT_FOUND = "Privacy request not found."
USER_NOT_FOUND = "User not found."
NOT_YOURS = "You may only request your own data."
ADMINS_ONLY = "Only the client's administrators may list privacy requests."
TOO_MANY = "This client already has {n} privacy requests queued or running; retry later."
NOT_QUEUED = "The request could not be queued; retry."
BAD_LINK = "This download link is invalid or has expired."
OPEN_CHECK = 20  # the subject's recent requests looked at for an open one


@dataclasses.dataclass(frozen=True)
class Requester:
    kind: str  # "user" or "operator"
    uid: str | None = None
    role: str | None = None

    @classmethod
    def of(cls, principal: Principal) -> "Requester":
        return cls("user", principal.uid, principal.role)


OPERATOR = Requester("operator")


# ------------------------------------------------------------------------------------------------ create


def subject_of(client: Client, uid: str) -> dict[str, Any]:
    """The member's ids as the request records them; 404 for anyone who is not a member of this client."""
    from ..identity import repository as identity

    member = identity.get_member(client.client_id, uid) if tenancy.valid_id(uid) else None
    if member is None or uid.startswith("invite_"):
        raise ApiError(404, USER_NOT_FOUND)
    email = member.get("email")
    if not email:
        auth_user = identity.get_auth_user(uid)
        email = auth_user.email if auth_user is not None else None
    return {"uid": uid, "email": email, "externalUserId": member.get("externalUserId")}


def check_may_ask(principal: Principal, uid: str) -> None:
    """The person themself, or an admin of their client (whose client the member lookup then decides)."""
    if principal.uid != uid and not principal.is_admin:
        raise ApiError(403, NOT_YOURS)


def new_record(client: Client, requester: Requester, kind: str, subject: dict, request_id: str | None = None) -> dict:
    now = clock.now()
    return {
        "requestId": request_id or repo.new_request_id(now), "clientId": client.client_id, "type": kind,
        "status": models.QUEUED, "subject": subject,
        "subjectHash": {"uid": keys.subject_hash(client.client_id, subject["uid"]),
                        "email": keys.subject_hash(client.client_id, subject["email"]),
                        # an erasure's tombstone id (identity): the worker has no secret to make it
                        "externalUserId": keys.subject_hash(client.client_id, subject.get("externalUserId"))},
        "requestedBy": {"kind": requester.kind, "uid": requester.uid, "role": requester.role,
                        "uidHash": keys.subject_hash(client.client_id, requester.uid)},
        "createdAt": now, "updatedAt": now, "startedAt": None, "completedAt": None,
        "progress": {}, "manifest": None, "report": None, "truncated": [], "archivePath": None,
        "archiveBytes": None, "downloadKey": None, "error": None, "attemptCount": 0, "leaseId": None,
        "leaseUntil": None,
    }


def create(client: Client, requester: Requester, kind: str, uid: str) -> tuple[dict, bool]:
    """(the request, created): an open request of the same type about the same person is answered instead."""
    subject = subject_of(client, uid)
    for existing in repo.requests_about(client.client_id, uid, OPEN_CHECK):
        if existing["type"] == kind and existing["status"] in models.OPEN:
            return existing, False
    if repo.count_open(client.client_id, models.OPEN) >= models.MAX_OPEN_PER_CLIENT:
        raise ApiError(429, TOO_MANY.format(n=models.MAX_OPEN_PER_CLIENT), headers={"Retry-After": "60"})
    record = new_record(client, requester, kind, subject)
    repo.create(record)
    try:
        queue.enqueue(client.client_id, record["requestId"])
    except queue.QueueError:
        repo.update(client.client_id, record["requestId"],
                    {"status": models.FAILED, "error": "not queued", "updatedAt": clock.now()})
        raise ApiError(503, NOT_QUEUED) from None
    return record, True


# ------------------------------------------------------------------------------------------------ read


def _visible_to(principal: Principal, record: dict) -> bool:
    if principal.is_admin:
        return True
    subject = record.get("subject") or {}
    return principal.uid in (subject.get("uid"), (record.get("requestedBy") or {}).get("uid"))


def get(principal: Principal, client: Client, request_id: str) -> dict:
    record = repo.read(client.client_id, request_id).data
    if record is None or not _visible_to(principal, record):
        raise ApiError(404, NOT_FOUND)
    return record


def page(client: Client, query: models.RequestsQuery) -> tuple[list[dict], str | None]:
    filters: dict[str, Any] = {}
    if query.type:
        filters["type"] = query.type
    if query.status:
        filters["status"] = query.status
    if query.uid:
        filters["subjectHash.uid"] = keys.subject_hash(client.client_id, query.uid)
    found, more = repo.page(client.client_id, query.limit, query.startAfter, filters)
    return found, (found[-1]["requestId"] if more and found else None)


def download_link(record: dict, now: dt.datetime | None = None) -> tuple[str, str] | None:
    """(url, expiresAt) of a completed export's archive: a signed link that expires after DOWNLOAD_MINUTES."""
    if record["type"] != models.EXPORT or record["status"] != models.COMPLETED or not record.get("archivePath"):
        return None
    expires = (now or clock.now()) + dt.timedelta(minutes=models.DOWNLOAD_MINUTES)
    # Real time, as the link's reader checks it: a test that moves the platform clock does not move a link's life.
    expires_epoch = int(time.time()) + models.DOWNLOAD_MINUTES * 60
    if not record.get("downloadKey"):
        return None
    token = keys.download_token(record["downloadKey"], record["clientId"], record["requestId"], expires_epoch)
    return f"{config.base_url()}/api/privacy/downloads/{token}", clock.iso(expires)


def view(record: dict, *, with_link: bool = False) -> dict[str, Any]:
    link = download_link(record) if with_link else None
    subject = record.get("subject")
    by = record.get("requestedBy") or {}
    return {
        "requestId": record["requestId"], "type": record["type"], "status": record["status"],
        "subject": ({"uid": subject.get("uid"), "email": subject.get("email"),
                     "externalUserId": subject.get("externalUserId")} if subject and subject.get("uid") else None),
        "subjectHash": (record.get("subjectHash") or {}).get("uid") or "",
        "requestedBy": {"kind": by.get("kind", "user"), "uid": by.get("uid"), "role": by.get("role")},
        "createdAt": clock.iso(record["createdAt"]), "updatedAt": clock.iso(record["updatedAt"]),
        "startedAt": clock.iso(record.get("startedAt")), "completedAt": clock.iso(record.get("completedAt")),
        "progress": {area: {k: v for k, v in p.items() if k in ("status", "count", "deleted", "anonymised")}
                     for area, p in (record.get("progress") or {}).items() if isinstance(p, dict) and "status" in p},
        "manifest": record.get("manifest"), "report": record.get("report"),
        "truncated": list(record.get("truncated") or []), "archiveBytes": record.get("archiveBytes"),
        "downloadUrl": link[0] if link else None, "downloadExpiresAt": link[1] if link else None,
        "archiveExpiredAt": clock.iso(record.get("archiveExpiredAt")),
        "error": record.get("error"),
    }


# ------------------------------------------------------------------------------------------------ download


def archive_for(token: str):
    """(blob, file name) of the archive a genuine, unexpired token names; 404 otherwise."""
    if len(token) > models.MAX_TOKEN:
        raise ApiError(404, BAD_LINK)
    try:
        client_id, request_id, _ = keys.parse_download_token(token)
        record = repo.read(client_id, request_id).data if tenancy.valid_id(client_id) else None
        if record is None or record["type"] != models.EXPORT or not record.get("archivePath"):
            raise keys.TokenInvalid()
        keys.check_download_token(record.get("downloadKey"), token, time.time())
    except keys.TokenInvalid:
        raise ApiError(404, BAD_LINK) from None
    blob = repo.open_archive(record["archivePath"])
    if blob is None:
        raise ApiError(404, BAD_LINK)
    return blob, f"{request_id}.zip"

