"""Firestore and Storage access of the privacy area.

clients/{clientId}/privacyRequests/{requestId}   a request (export or erase): its subject, who asked, status,
                                                  progress per area, the manifest or report; ids are a reversed
                                                  millisecond time plus random characters, so id order is newest first
privacy/{clientId}/{requestId}.zip (Storage)      an export's archive: no download token, read only by the API;
                                                  deleted privacy.exportRetentionDays after the export completed
"""

import datetime as dt
import secrets

from google.api_core import exceptions as gexc
from google.cloud import firestore

from ..core import firebase, tenancy, transactions

REQUESTS = "privacyRequests"
# An export's archiveState: in Storage until the retention sweep deletes it (privacy.exportRetentionDays)
ARCHIVE_STORED = "stored"
ARCHIVE_EXPIRED = "expired"
_MAX_MS = 10**13  # far beyond any millisecond time this platform will see


def requests_collection(client_id: str):
    return tenancy.client_ref(client_id).collection(REQUESTS)


def request_ref(client_id: str, request_id: str):
    return requests_collection(client_id).document(request_id)


def new_request_id(now: dt.datetime) -> str:
    reversed_ms = _MAX_MS - int(now.timestamp() * 1000)
    return f"pr{reversed_ms:013d}{secrets.token_hex(4)}"


def archive_path(client_id: str, request_id: str) -> str:
    return f"privacy/{client_id}/{request_id}.zip"


def create(record: dict) -> None:
    request_ref(record["clientId"], record["requestId"]).create(record)


def read(client_id: str, request_id: str) -> transactions.Seen:
    if not tenancy.valid_id(request_id):
        return transactions.NOT_SEEN
    return transactions.read(request_ref(client_id, request_id))


def update_if_unchanged(client_id: str, request_id: str, seen: transactions.Seen, fields: dict) -> None:
    request_ref(client_id, request_id).update(fields, option=transactions.unchanged(seen))


def update(client_id: str, request_id: str, fields: dict) -> None:
    request_ref(client_id, request_id).update(fields)


def requests_about(client_id: str, uid: str, limit: int) -> list[dict]:
    """The requests about a person not erased yet, newest first."""
    query = (requests_collection(client_id)
             .where(filter=firestore.FieldFilter("subject.uid", "==", uid))
             .order_by("__name__").limit(limit))
    return [snap.to_dict() for snap in query.stream()]


def stored_archives_before(client_id: str, cutoff: dt.datetime, limit: int) -> list:
    """Exports whose archive is still in Storage and that completed before `cutoff`, oldest first (their archive paths
    only; the index is in firestore.indexes.json)."""
    query = (requests_collection(client_id)
             .where(filter=firestore.FieldFilter("archiveState", "==", ARCHIVE_STORED))
             .where(filter=firestore.FieldFilter("completedAt", "<", cutoff))
             .order_by("completedAt").limit(limit))
    return list(query.select(["archivePath"]).stream())


def count_open(client_id: str, statuses: tuple[str, ...]) -> int:
    query = requests_collection(client_id).where(filter=firestore.FieldFilter("status", "in", list(statuses)))
    return int(query.count(alias="n").get()[0][0].value)


def page(client_id: str, limit: int, start_after: str | None, filters: dict[str, str]) -> tuple[list[dict], bool]:
    """Up to `limit` requests after the cursor, newest first (id order), with equality filters; and whether more follow."""
    query = requests_collection(client_id)
    for field, value in filters.items():
        query = query.where(filter=firestore.FieldFilter(field, "==", value))
    query = query.order_by("__name__")
    if start_after:
        query = query.start_after({"__name__": request_ref(client_id, start_after)})
    found = [snap.to_dict() for snap in query.limit(limit + 1).stream()]
    return found[:limit], len(found) > limit


# ---------------------------------------------------------------------------------------- storage


def store_archive(path: str, data: bytes) -> None:
    """No download token: the object is reachable only through the API's signed, expiring download link."""
    blob = firebase.bucket().blob(path)
    blob.content_disposition = f'attachment; filename="{path.rsplit("/", 1)[-1]}"'
    blob.cache_control = "private, no-store"
    blob.upload_from_string(data, content_type="application/zip")


def open_archive(path: str):
    """The stored archive's blob (for a streamed read), or None."""
    return firebase.bucket().get_blob(path)


def delete_object(path: str) -> bool:
    """Delete a Storage object; False when there was none."""
    try:
        firebase.bucket().blob(path).delete()
        return True
    except gexc.NotFound:
        return False
