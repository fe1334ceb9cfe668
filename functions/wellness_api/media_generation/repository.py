"""All Firestore and Cloud Storage access of media generation.

Firestore layout:
    clients/{clientId}/mediaJobs/{jobId}          a job (2.13 fields) plus execution, leaseId, leaseUntil,
                                                  storagePath and requestedBy
    clients/{clientId}/mediaAssets/{assetId}      the client's media library: one record per stored result
    clients/{clientId}/mediaGenerationActivity/{day}_{shard}
                                                  daily counters (core.rollups): jobs created, available,
                                                  failed, billed per billing preset, vendor cost
    clients/{clientId}/mediaJobAdmission/active   written by every commit that makes a job queued (create,
                                                  retry), with the precondition that it is unchanged since
                                                  read: two admissions racing for the client's last place
                                                  cannot both commit (service.admit)
Cloud Storage (default bucket):
    clients/{clientId}/media-library/{assetId}.{png|mp4}
"""

from collections.abc import Iterator

from google.cloud import firestore

from ..core import firebase, storage, tenancy, transactions
from ..core.rollups import DailyCounters
from ..core.transactions import NOT_SEEN, Seen
from .models import QUEUED, RUNNING

JOBS = "mediaJobs"
ASSETS = "mediaAssets"
ADMISSION = "mediaJobAdmission"
ACTIVITY = DailyCounters("mediaGenerationActivity")
ACTIVITY_GROUP = "mediaGeneration"
LIBRARY = "media-library"
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "video/mp4": "mp4"}
SCAN_BATCH = 200


def jobs(client_id: str):
    return tenancy.client_ref(client_id).collection(JOBS)


def job_ref(client_id: str, job_id: str):
    return jobs(client_id).document(job_id)


def asset_ref(client_id: str, asset_id: str):
    return tenancy.client_ref(client_id).collection(ASSETS).document(asset_id)


def new_job_id(client_id: str) -> str:
    return jobs(client_id).document().id


def read_job(client_id: str, job_id: str) -> Seen:
    return transactions.read(job_ref(client_id, job_id)) if tenancy.valid_id(job_id) else NOT_SEEN


def read_admission(client_id: str) -> Seen:
    return transactions.read(tenancy.client_ref(client_id).collection(ADMISSION).document("active"))


def _admit(batch, client_id: str, admission: Seen, moment) -> None:
    """Change the admission marker in `batch`, only if it is still as read (created if it was not there)."""
    ref = tenancy.client_ref(client_id).collection(ADMISSION).document("active")
    if admission.update_time is None:
        batch.create(ref, {"admittedAt": moment})
    else:
        batch.update(ref, {"admittedAt": moment}, option=transactions.unchanged(admission))


def count_active(client_id: str, now) -> int:
    """Jobs queued, or running under a live lease (two count() aggregations; a running job whose lease ran
    out has lost its worker and holds no place until a delivery or a retry takes it over)."""
    queued = jobs(client_id).where(filter=firestore.FieldFilter("status", "==", QUEUED))
    running = jobs(client_id).where(filter=firestore.FieldFilter("status", "in", list(RUNNING))).where(
        filter=firestore.FieldFilter("leaseUntil", ">", now))
    return sum(int(query.count().get()[0][0].value) for query in (queued, running))


def read_asset(client_id: str, asset_id: str) -> dict | None:
    snap = asset_ref(client_id, asset_id).get()
    return snap.to_dict() if snap.exists else None


# ---------------------------------------------------------------------------------------- writes


def create_job(client_id: str, job: dict, counts: dict[str, int], admission: Seen) -> None:
    """The new job, its creation counters and the admission marker, in one commit."""
    batch = firebase.db().batch()
    batch.create(job_ref(client_id, job["jobId"]), job)
    _admit(batch, client_id, admission, job["createdAt"])
    ACTIVITY.add(client_id, ACTIVITY_GROUP, counts, moment=job["createdAt"], within=batch)
    batch.commit()


def put_job(client_id: str, job: dict) -> None:
    """Write a job whole, replacing any (demo data)."""
    job_ref(client_id, job["jobId"]).set(job)


def update_job(client_id: str, job_id: str, seen: Seen, fields: dict, *, counts: dict | None = None,
               asset: dict | None = None, attach_asset: dict | None = None, admission: Seen | None = None) -> None:
    """Change a job only if it is still as `seen`; counters, library records and the admission marker (a job
    queued again) in the same commit."""
    batch = firebase.db().batch()
    batch.update(job_ref(client_id, job_id), fields, option=transactions.unchanged(seen))
    if admission is not None:
        _admit(batch, client_id, admission, fields.get("updatedAt"))
    if counts:
        ACTIVITY.add(client_id, ACTIVITY_GROUP, counts, within=batch)
    if asset is not None:
        batch.set(asset_ref(client_id, asset["assetId"]), asset)
    if attach_asset is not None:
        batch.update(asset_ref(client_id, attach_asset.pop("assetId")), attach_asset)
    batch.commit()


def delete_job(client_id: str, job_id: str, seen: Seen) -> None:
    job_ref(client_id, job_id).delete(option=transactions.unchanged(seen))


# ---------------------------------------------------------------------------------------- reads


def job_pages(client_id: str, status: str | None, start_after: str | None) -> Iterator[dict] | None:
    """The client's jobs newest first (createdAt, then id, descending), from after `start_after`, lazily.

    None (not a job) when `start_after` names no job of the client.
    """
    query = jobs(client_id)
    if status:
        query = query.where(filter=firestore.FieldFilter("status", "==", status))
    query = query.order_by("createdAt", direction=firestore.Query.DESCENDING).order_by(
        "__name__", direction=firestore.Query.DESCENDING)
    cursor = None
    if start_after:
        cursor = job_ref(client_id, start_after).get()
        if not cursor.exists:
            return None
    return _stream(query, cursor)


def _stream(query, cursor) -> Iterator[dict]:
    while True:
        page = (query.start_after(cursor) if cursor is not None else query).limit(SCAN_BATCH).get()
        for snap in page:
            yield snap.to_dict()
        if len(page) < SCAN_BATCH:
            return
        cursor = page[-1]


def daily_activity(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, int | float]]:
    """{day: {counter: total}} of the media-generation counters."""
    return {day: groups.get(ACTIVITY_GROUP, {}) for day, groups in ACTIVITY.daily(client_id, start_day, end_day).items()}


# ---------------------------------------------------------------------------------------- storage


def library_path(client_id: str, asset_id: str, content_type: str) -> str:
    return f"clients/{client_id}/{LIBRARY}/{asset_id}.{EXTENSIONS.get(content_type, 'bin')}"


def store_result(path: str, data: bytes, content_type: str) -> str:
    """Store a generated file in the library (immutable: every asset has its own name); returns its token."""
    return storage.upload(path, data, content_type, filename=path.rsplit("/", 1)[-1],
                          cache_control="public, max-age=31536000, immutable")


def stored_token(path: str) -> str | None:
    return storage.token_of(path)


download_url = storage.download_url
