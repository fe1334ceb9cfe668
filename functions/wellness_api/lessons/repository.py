"""All Firestore and Cloud Storage access of the lessons area.

Firestore layout:
    clients/{clientId}/lessons/{lessonId}        a lesson in its canonical stored form (models.py)
    clients/{clientId}/lessonPlans/{planId}      {id, clientId, title, lessonIds, isLive, createdAt, modifiedAt}
    clients/{clientId}/lessonCatalog/state       {lessonCount, planCount, updatedAt}: every catalog mutation
                                                 reads and writes it, so mutations of one client serialize
Cloud Storage (default bucket):
    clients/{clientId}/lessons/{lessonId}/subtitles/{locale}/{uploadId}.vtt
"""

import uuid

from google.cloud import firestore

from ..core import activity, firebase, storage, tenancy
from .models import MAX_LESSONS_PER_CLIENT, MAX_PLANS_PER_CLIENT

LESSONS = "lessons"
PLANS = "lessonPlans"
PLAYS = "lessonPlays"
ACTIVITY = activity.LESSONS
CATALOG = "lessonCatalog"
STATE = "state"
VTT_CONTENT_TYPE = "text/vtt"


def lessons_collection(client_id: str):
    return tenancy.client_ref(client_id).collection(LESSONS)


def lesson_ref(client_id: str, lesson_id: str):
    return lessons_collection(client_id).document(lesson_id)


def plans_collection(client_id: str):
    return tenancy.client_ref(client_id).collection(PLANS)


def state_ref(client_id: str):
    return tenancy.client_ref(client_id).collection(CATALOG).document(STATE)


def new_lesson_id(client_id: str) -> str:
    return lessons_collection(client_id).document().id


def new_plan_id(client_id: str) -> str:
    return plans_collection(client_id).document().id


# ---------------------------------------------------------------------------------------- reads


def live_lessons(client_id: str) -> list[dict]:
    """The live lessons of a client, oldest first; index (isLive, createdAt)."""
    query = (
        lessons_collection(client_id)
        .where(filter=firestore.FieldFilter("isLive", "==", True))
        .order_by("createdAt")
        .limit(MAX_LESSONS_PER_CLIENT)
    )
    return [snap.to_dict() for snap in query.stream()]


def get_lesson(client_id: str, lesson_id: str) -> dict | None:
    snap = lesson_ref(client_id, lesson_id).get()
    return snap.to_dict() if snap.exists else None


def get_lessons(client_id: str, lesson_ids: list[str]) -> list[dict]:
    """The existing lessons among `lesson_ids`, in that order (one read per id)."""
    if not lesson_ids:
        return []
    found = {
        snap.id: snap.to_dict() or {}
        for snap in firebase.db().get_all([lesson_ref(client_id, i) for i in lesson_ids])
        if snap.exists
    }
    return [found[i] for i in lesson_ids if i in found]


def catalog_lessons(client_id: str, transaction=None) -> list[dict]:
    """Every lesson of the client, oldest first (at most MAX_LESSONS_PER_CLIENT exist)."""
    query = lessons_collection(client_id).order_by("createdAt").limit(MAX_LESSONS_PER_CLIENT)
    return [snap.to_dict() for snap in query.stream(transaction=transaction)]


def read_state_in(transaction, client_id: str) -> dict:
    snap = state_ref(client_id).get(transaction=transaction)
    return snap.to_dict() if snap.exists else {}


def read_lesson_in(transaction, client_id: str, lesson_id: str) -> dict | None:
    snap = lesson_ref(client_id, lesson_id).get(transaction=transaction)
    return snap.to_dict() if snap.exists else None


def read_lessons_in(transaction, client_id: str, lesson_ids: list[str]) -> dict[str, dict]:
    if not lesson_ids:
        return {}
    refs = [lesson_ref(client_id, i) for i in lesson_ids]
    return {snap.id: snap.to_dict() for snap in transaction.get_all(refs) if snap.exists}


def live_plans_in(transaction, client_id: str) -> list[dict]:
    """The client's live plans (at most MAX_PLANS_PER_CLIENT exist); single-field index on isLive."""
    query = (
        plans_collection(client_id)
        .where(filter=firestore.FieldFilter("isLive", "==", True))
        .limit(MAX_PLANS_PER_CLIENT)
    )
    return [snap.to_dict() for snap in query.stream(transaction=transaction)]


# ---------------------------------------------------------------------------------------- writes


def create_lesson(transaction, client_id: str, lesson: dict) -> None:
    transaction.create(lesson_ref(client_id, lesson["id"]), lesson)


def replace_lesson(transaction, client_id: str, lesson: dict) -> None:
    transaction.set(lesson_ref(client_id, lesson["id"]), lesson)


def update_lesson(transaction, client_id: str, lesson_id: str, fields: dict) -> None:
    transaction.update(lesson_ref(client_id, lesson_id), fields)


def create_plan(transaction, client_id: str, plan: dict) -> None:
    transaction.create(plans_collection(client_id).document(plan["id"]), plan)


def update_plan(transaction, client_id: str, plan_id: str, fields: dict) -> None:
    transaction.update(plans_collection(client_id).document(plan_id), fields)


def write_state(transaction, client_id: str, state: dict) -> None:
    transaction.set(state_ref(client_id), {**state, "updatedAt": firestore.SERVER_TIMESTAMP}, merge=True)


# ---------------------------------------------------------------------------------------- storage


def subtitle_path(client_id: str, lesson_id: str, locale: str) -> str:
    """A new object name for a subtitle upload; every upload gets its own, so a failed one never
    overwrites the file the lesson still points to."""
    return f"clients/{client_id}/lessons/{lesson_id}/subtitles/{locale}/{uuid.uuid4().hex}.vtt"


def upload_subtitle(path: str, data: bytes, locale: str) -> str:
    """Store a WebVTT file (text/vtt, inline) with a new download token; returns the token."""
    return storage.upload(path, data, VTT_CONTENT_TYPE, filename=f"{locale}.vtt", cache_control="public, max-age=300")


download_url = storage.download_url
delete_object = storage.delete


# ------------------------------------------------------------------------------------ plays


def play_ref(client_id: str, uid: str, play_id: str):
    # the user's uid in the id: two users choosing the same playId never meet
    return tenancy.client_ref(client_id).collection(PLAYS).document(f"{uid}_{play_id}")


def read_play_in(transaction, client_id: str, uid: str, play_id: str) -> dict | None:
    snap = play_ref(client_id, uid, play_id).get(transaction=transaction)
    return snap.to_dict() if snap.exists else None


def write_play(transaction, play: dict, counts: dict[str, int]) -> None:
    """Store the play and count what changed in the daily rollup, in the caller's transaction."""
    transaction.set(play_ref(play["clientId"], play["userId"], play["playId"]), play)
    ACTIVITY.add(play["clientId"], counts, user=play["userId"], within=transaction)
