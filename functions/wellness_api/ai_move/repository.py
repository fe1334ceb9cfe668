"""All Firestore access of AI Move.

Layout:
    aiMoveLibrary/{exerciseId}                      the operator's exercise library (clientId = the operator tenant)
    clients/{clientId}/aiMoveExercises/{exerciseId} the client's custom exercises
    clients/{clientId}/aiMoveCatalog/selection      {exerciseIds: [...]}: library exercises selected for the client
    clients/{clientId}/aiMoveSessions/{sessionId}   a session (2.10) in its stored form
    clients/{clientId}/aiMoveStats/{uid}            the user's statistics: overall and per-exercise totals
    clients/{clientId}/aiMoveActiveDays/{uid}       {lastActiveDay}: counts the user once a day in the rollup
    clients/{clientId}/aiMoveActivity/{day}_{shard} the daily activity rollup (core.rollups)

Session writes are optimistic (core.transactions.optimistic): a batch that changes a session requires the
session's update time as read, so of two racing completions exactly one commits, and the statistics and
the rollup change in that same batch with increments (no read, no lock, no conflict between sessions).

Session ids sort newest first: a reversed millisecond timestamp, then randomness. So the owner's list and
the admin records are one index range each (userId ==, ordered by document id; or the whole collection),
a cursor is just a session id (no read), and sessions created meanwhile sort before any cursor.
"""

import datetime as dt
import secrets
import string
from typing import Any

from google.cloud import firestore

from ..core import activity, firebase, tenancy, transactions
from ..core.transactions import Seen

LIBRARY = "aiMoveLibrary"
EXERCISES = "aiMoveExercises"
CATALOG = "aiMoveCatalog"
SELECTION = "selection"
SESSIONS = "aiMoveSessions"
STATS = "aiMoveStats"
ACTIVE_DAYS = "aiMoveActiveDays"
ACTIVITY = activity.AI_MOVE

MAX_EXERCISES = 500  # per catalog: custom exercises of a client, selections, the library
_ID_TIME_DIGITS = 13
_ID_SUFFIX = string.ascii_lowercase + string.digits


def exercises_collection(client_id: str | None):
    """A client's custom exercises, or with None the operator's library."""
    if client_id is None:
        return firebase.db().collection(LIBRARY)
    return tenancy.client_ref(client_id).collection(EXERCISES)


def library_ref(exercise_id: str):
    return exercises_collection(None).document(exercise_id)


def custom_ref(client_id: str, exercise_id: str):
    return exercises_collection(client_id).document(exercise_id)


def selection_ref(client_id: str):
    return tenancy.client_ref(client_id).collection(CATALOG).document(SELECTION)


def sessions_collection(client_id: str):
    return tenancy.client_ref(client_id).collection(SESSIONS)


def session_ref(client_id: str, session_id: str):
    return sessions_collection(client_id).document(session_id)


def stats_ref(client_id: str, uid: str):
    return tenancy.client_ref(client_id).collection(STATS).document(uid)


def active_ref(client_id: str, uid: str):
    return tenancy.client_ref(client_id).collection(ACTIVE_DAYS).document(uid)


def new_session_id(created_at: dt.datetime) -> str:
    """Sorts before every session created earlier (to the millisecond)."""
    millis = int(created_at.timestamp() * 1000)
    reversed_time = 10**_ID_TIME_DIGITS - 1 - millis
    return f"{reversed_time:0{_ID_TIME_DIGITS}d}" + "".join(secrets.choice(_ID_SUFFIX) for _ in range(8))


def new_exercise_id() -> str:
    return exercises_collection(None).document().id


# ------------------------------------------------------------------------------------ exercises


def enabled_exercises(client_id: str | None) -> list[dict[str, Any]]:
    """Enabled exercises of a client (None: the library) by sortOrder; index (enabled, sortOrder)."""
    query = (exercises_collection(client_id).where(filter=firestore.FieldFilter("enabled", "==", True))
             .order_by("sortOrder").limit(MAX_EXERCISES))
    return [snap.to_dict() for snap in query.stream()]


def all_exercises(client_id: str | None) -> list[dict[str, Any]]:
    """Every exercise of a client (None: the library), enabled or not, in order (operators only)."""
    query = exercises_collection(client_id).order_by("sortOrder").limit(MAX_EXERCISES)
    return [snap.to_dict() for snap in query.stream()]


def selected_ids(client_id: str) -> list[str]:
    snap = selection_ref(client_id).get()
    return list((snap.to_dict() or {}).get("exerciseIds") or []) if snap.exists else []


def library_exercises(exercise_ids: list[str]) -> list[dict[str, Any]]:
    """The existing library exercises among `exercise_ids` (one read each)."""
    if not exercise_ids:
        return []
    return [snap.to_dict() or {} for snap in firebase.db().get_all([library_ref(i) for i in exercise_ids]) if snap.exists]


def get_library(exercise_id: str) -> dict[str, Any] | None:
    snap = library_ref(exercise_id).get()
    return snap.to_dict() if snap.exists else None


def get_custom(client_id: str, exercise_id: str) -> dict[str, Any] | None:
    snap = custom_ref(client_id, exercise_id).get()
    return snap.to_dict() if snap.exists else None


def last_sort_order(client_id: str | None) -> float | None:
    query = exercises_collection(client_id).order_by("sortOrder", direction=firestore.Query.DESCENDING).limit(1)
    return next((snap.get("sortOrder") for snap in query.stream()), None)


# ------------------------------------------------------------------------------------ sessions


def seen_session(client_id: str, session_id: str) -> Seen:
    return transactions.read(session_ref(client_id, session_id))


def seen_active_day(client_id: str, uid: str) -> Seen:
    return transactions.read(active_ref(client_id, uid))


def get_stats(client_id: str, uid: str) -> dict[str, Any] | None:
    snap = stats_ref(client_id, uid).get()
    return snap.to_dict() if snap.exists else None


def _mark_active(batch, client_id: str, uid: str, active: Seen, day: str) -> None:
    """The user's first activity of `day`; fails the batch if another request marked it meanwhile."""
    data = {"userId": uid, "clientId": client_id, "lastActiveDay": day}
    if active.update_time is None:
        batch.create(active_ref(client_id, uid), data)
    else:
        batch.update(active_ref(client_id, uid), data, option=transactions.unchanged(active))


def _completion_totals(session: dict[str, Any], completed_ms: int) -> dict[str, Any]:
    totals = {
        "sessionsCompleted": firestore.Increment(1),
        "totalReps": firestore.Increment(session["repsCompleted"]),
        "totalDurationSeconds": firestore.Increment(session["durationSeconds"]),
        "totalHoldTimeSeconds": firestore.Increment(session["holdTimeSeconds"]),
        "totalCaloriesBurned": firestore.Increment(session["caloriesBurned"]),
        "lastCompletedAtMs": firestore.Maximum(completed_ms),
    }
    if session.get("formScore") is not None:
        totals["bestFormScore"] = firestore.Maximum(session["formScore"])
    return totals


def commit_start(session: dict[str, Any], active: Seen | None, activity: dict[str, int], day: str) -> None:
    """Create the session, count it in the rollup, and mark the user's active day when `active` is given."""
    client_id, uid = session["clientId"], session["userId"]
    batch = firebase.db().batch()
    batch.create(session_ref(client_id, session["sessionId"]), session)
    if active is not None:
        _mark_active(batch, client_id, uid, active, day)
    ACTIVITY.add(client_id, activity, user=uid, moment=session["createdAt"], within=batch)
    batch.commit()


def commit_update(seen: Seen, updated: dict[str, Any], *, completed: bool, active: Seen | None,
                  activity: dict[str, int | float] | None, day: str) -> None:
    """Replace the session as it was read (or fail), and on completion add it to the user's statistics."""
    client_id, uid = updated["clientId"], updated["userId"]
    batch = firebase.db().batch()
    batch.update(session_ref(client_id, updated["sessionId"]), updated, option=transactions.unchanged(seen))
    if completed:
        totals = _completion_totals(updated, int(updated["completedAt"].timestamp() * 1000))
        batch.set(stats_ref(client_id, uid), {
            "userId": uid, "clientId": client_id, "overall": totals,
            "exercises": {updated["exerciseId"]: {**totals, "exerciseType": updated["exerciseType"]}},
        }, merge=True)
    if active is not None:
        _mark_active(batch, client_id, uid, active, day)
    if activity:
        ACTIVITY.add(client_id, activity, user=uid, moment=updated["updatedAt"], within=batch)
    batch.commit()


def _page(query, limit: int, start_after: str | None, client_id: str) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` sessions after the cursor, and whether more follow (one extra document is read)."""
    query = query.order_by("__name__")
    if start_after:
        query = query.start_after({"__name__": session_ref(client_id, start_after)})
    found = [snap.to_dict() for snap in query.limit(limit + 1).stream()]
    return found[:limit], len(found) > limit


def user_sessions(client_id: str, uid: str, limit: int, start_after: str | None):
    query = sessions_collection(client_id).where(filter=firestore.FieldFilter("userId", "==", uid))
    return _page(query, limit, start_after, client_id)


def client_sessions(client_id: str, limit: int, start_after: str | None):
    return _page(sessions_collection(client_id), limit, start_after, client_id)
