"""AI Move rules (4.6, 3.1, 7.5): the catalog per tenant kind, sessions and their moves, statistics, records.

Every session write is checked against the session as read and commits only if the session is still as
read (core.transactions.optimistic; repository.commit_update). A completing PATCH adds the session to the
user's statistics and to the daily activity rollup in that same commit, so the statistics change exactly
when the session turns completed: once, however often and however concurrently the completion is sent.
"""

import dataclasses
import datetime as dt
from typing import Any

from ..core import auth, clock, tenancy, transactions
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.rollups import day_of
from ..core.tenancy import Client
from ..core.transactions import Seen
from . import models
from . import repository as repo
from .models import COMPLETED, CREATED, TERMINAL, CreateAiMoveSessionBody, ExerciseSpec, UpdateAiMoveSessionBody

MODULE_SETTING = "modules.aiMove"
MODULE_OFF = "The AI Move module is not enabled for this client."
ADMIN_REQUIRED = "Admin authentication required."
CLIENT_NOT_FOUND = auth.CLIENT_NOT_FOUND
EXERCISE_NOT_FOUND = "Exercise not found."
SESSION_NOT_FOUND = "Session not found."
NOT_OWNER = "You do not own this session."
NOTHING_TO_UPDATE = "The body must contain at least one session field."
INVALID_CURSOR = "Invalid field startAfter: not a session id."
CONTENTION = ApiError(503, "The session is being changed by another request; retry shortly.")


def _type_mismatch(exercise: dict) -> str:
    return f"exerciseType must be the exercise's type ({exercise['type']})."


TARGET_REPS_REQUIRED = "targetReps is required for rep exercises."
TARGET_DURATION_REQUIRED = "targetDurationSeconds is required for timer exercises."
TARGET_REPS_NOT_ALLOWED = "targetReps is only for rep exercises."
TARGET_DURATION_NOT_ALLOWED = "targetDurationSeconds is only for timer exercises."


def _terminal(status: str) -> str:
    return f"The session is {status}; a finished session cannot change."


def _move_refused(current: str, wanted: str) -> str:
    allowed = ", ".join(s for s in models.NEXT_STATES[current] if s != current) or "none"
    return f"A session cannot move from {current} to {wanted} (allowed next: {allowed})."


# ------------------------------------------------------------------------------------ who may call


def member_client(principal: Principal) -> Client:
    """The caller's client, with the AI Move module on; 403 when it is off (or the client is gone)."""
    return auth.module_client(principal, MODULE_SETTING, MODULE_OFF)


def records_client(principal: Principal, requested: str | None) -> Client:
    """The client whose records an admin reads: its own, or any for platform administrators."""
    if not principal.is_admin:
        raise ApiError(401, ADMIN_REQUIRED)
    client = auth.administered_client(principal, requested)
    if not client.setting(MODULE_SETTING):
        raise ApiError(403, MODULE_OFF)
    return client


# ------------------------------------------------------------------------------------ exercises


def catalog(client: Client) -> list[dict[str, Any]]:
    """The client's exercises, list form. The operator tenant: the enabled library in library order. Other
    clients: their enabled custom exercises and the enabled library exercises selected for them, by
    sortOrder, then name."""
    if client.is_operator:
        return [models.exercise_list_form(e) for e in repo.enabled_exercises(None)]
    custom = repo.enabled_exercises(client.client_id)
    # A custom exercise hides a library exercise of the same id (as find_exercise does).
    taken = {e["exerciseId"] for e in custom}
    selected = [e for e in repo.library_exercises(repo.selected_ids(client.client_id))
                if e.get("enabled") and e["exerciseId"] not in taken]
    exercises = sorted([*custom, *selected], key=lambda e: (e["sortOrder"], e["name"].casefold(), e["exerciseId"]))
    return [models.exercise_list_form(e) for e in exercises]


def find_exercise(client: Client, exercise_id: str) -> dict[str, Any]:
    """An enabled exercise in the client's catalog, stored form; 404 otherwise."""
    exercise = None
    if tenancy.valid_id(exercise_id):
        if client.is_operator:
            exercise = repo.get_library(exercise_id)
        else:
            exercise = repo.get_custom(client.client_id, exercise_id)
            if exercise is None and exercise_id in repo.selected_ids(client.client_id):
                exercise = repo.get_library(exercise_id)
    if exercise is None or not exercise.get("enabled"):
        raise ApiError(404, EXERCISE_NOT_FOUND)
    return exercise


# ------------------------------------------------------------------------------------ sessions


def _initial_session(session_id: str, client_id: str, uid: str, exercise: dict, body: CreateAiMoveSessionBody,
                     now) -> dict[str, Any]:
    return {
        "sessionId": session_id, "clientId": client_id, "userId": uid,
        "exerciseId": exercise["exerciseId"], "exerciseType": exercise["type"],
        "targetReps": body.targetReps, "targetDurationSeconds": body.targetDurationSeconds,
        "repsCompleted": 0, "durationSeconds": 0, "caloriesBurned": 0, "holdTimeSeconds": 0, "retryCountUsed": 0,
        "poseAccuracy": 0, "formScore": None, "retryCountRemaining": None, "failureReason": None,
        "formViolations": [], "completionOutcome": None, "status": CREATED,
        "createdAt": now, "completedAt": None, "updatedAt": now,
    }


def _check_targets(exercise: dict, body: CreateAiMoveSessionBody) -> None:
    if body.exerciseType != exercise["type"]:
        raise ApiError(400, _type_mismatch(exercise))
    if exercise["type"] == models.REP:
        if body.targetReps is None:
            raise ApiError(400, TARGET_REPS_REQUIRED)
        if body.targetDurationSeconds is not None:
            raise ApiError(400, TARGET_DURATION_NOT_ALLOWED)
    else:
        if body.targetDurationSeconds is None:
            raise ApiError(400, TARGET_DURATION_REQUIRED)
        if body.targetReps is not None:
            raise ApiError(400, TARGET_REPS_NOT_ALLOWED)


def _active_day(client_id: str, uid: str, now) -> Seen | None:
    """The user's active-day marker as read when `now` is their first AI Move activity of its day, else None."""
    active = repo.seen_active_day(client_id, uid)
    return None if (active.data or {}).get("lastActiveDay") == day_of(now) else active


def create_session(client: Client, uid: str, body: CreateAiMoveSessionBody) -> dict[str, Any]:
    exercise = find_exercise(client, body.exerciseId)
    _check_targets(exercise, body)
    now = clock.now()
    session = _initial_session(repo.new_session_id(now), client.client_id, uid, exercise, body, now)

    def attempt():
        active = _active_day(client.client_id, uid, now)
        repo.commit_start(session, active, {"sessionsStarted": 1, "activeUsers": int(active is not None)},
                          day_of(now))

    transactions.optimistic(attempt, contention_error=CONTENTION)
    return models.session_view(session)


def _owned(session: dict | None, uid: str) -> dict[str, Any]:
    if session is None:
        raise ApiError(404, SESSION_NOT_FOUND)
    if session["userId"] != uid:
        raise ApiError(403, NOT_OWNER)
    return session


def own_session(client: Client, uid: str, session_id: str) -> dict[str, Any]:
    """The caller's session; 404 unknown (or another tenant's), 403 another user's (7.5)."""
    return _seen_own_session(client, uid, session_id).existing()


def _seen_own_session(client: Client, uid: str, session_id: str) -> Seen:
    seen = repo.seen_session(client.client_id, session_id) if tenancy.valid_id(session_id) else transactions.NOT_SEEN
    _owned(seen.data, uid)
    return seen


def list_sessions(client: Client, uid: str, limit: int, start_after: str | None) -> dict[str, Any]:
    if start_after is not None and not tenancy.valid_id(start_after):
        raise ApiError(400, INVALID_CURSOR)
    sessions, more = repo.user_sessions(client.client_id, uid, limit, start_after)
    return {"sessions": [models.session_summary(s) for s in sessions],
            "nextStartAfter": sessions[-1]["sessionId"] if more else None}


def _check_move(session: dict, sent: dict[str, Any]) -> None:
    current = session["status"]
    if current in TERMINAL:
        # A retry of the request that finished the session changes nothing and succeeds; anything else is refused.
        if any(session.get(name) != value for name, value in sent.items()):
            raise ApiError(409, _terminal(current))
        return
    wanted = sent.get("status", current)
    if wanted not in models.NEXT_STATES[current]:
        raise ApiError(409, _move_refused(current, wanted))


ENDED_COUNTERS = {models.FAILED: "sessionsFailed", models.ABANDONED: "sessionsAbandoned"}


def update_session(client: Client, uid: str, session_id: str, body: UpdateAiMoveSessionBody) -> None:
    """Apply the PATCH to the session as read; a completion also adds it to the statistics, in one commit that
    fails (and is retried on fresh reads) if the session changed meanwhile: exactly once."""
    sent = models.changes(body)
    if not sent:
        raise ApiError(400, NOTHING_TO_UPDATE)

    def attempt():
        seen = _seen_own_session(client, uid, session_id)
        session = seen.data
        _check_move(session, sent)
        if session["status"] in TERMINAL:
            return  # an identical retry of the request that finished it: nothing to write
        now = clock.now()
        updated = {**session, **sent, "updatedAt": now}
        completed = updated["status"] == COMPLETED
        active, activity = None, None
        if completed:
            updated["completedAt"] = now
            active = _active_day(client.client_id, uid, now)
            activity = {"sessionsCompleted": 1, "reps": updated["repsCompleted"],
                        "durationSeconds": updated["durationSeconds"], "caloriesBurned": updated["caloriesBurned"],
                        "activeUsers": int(active is not None)}
        elif updated["status"] in TERMINAL:
            active = _active_day(client.client_id, uid, now)
            activity = {ENDED_COUNTERS[updated["status"]]: 1, "activeUsers": int(active is not None)}
        repo.commit_update(seen, updated, completed=completed, active=active, activity=activity, day=day_of(now))

    transactions.optimistic(attempt, contention_error=CONTENTION)


# ------------------------------------------------------------------------------------ statistics and records


def _totals_view(totals: dict[str, Any] | None) -> dict[str, Any]:
    totals = totals or {}
    completed_ms = totals.get("lastCompletedAtMs")
    return {
        "sessionsCompleted": totals.get("sessionsCompleted", 0),
        "totalReps": totals.get("totalReps", 0),
        # Sums of increments: rounded, so that 0.1 + 0.2 reads 0.3.
        "totalDurationSeconds": round(totals.get("totalDurationSeconds", 0), 3),
        "totalHoldTimeSeconds": round(totals.get("totalHoldTimeSeconds", 0), 3),
        "totalCaloriesBurned": round(totals.get("totalCaloriesBurned", 0), 3),
        "bestFormScore": totals.get("bestFormScore"),
        "lastCompletedAt": None if completed_ms is None else clock.iso(
            dt.datetime.fromtimestamp(completed_ms / 1000, dt.UTC)),
    }


def statistics(client: Client, uid: str) -> dict[str, Any]:
    stats = repo.get_stats(client.client_id, uid) or {}
    exercises = sorted((stats.get("exercises") or {}).items(), key=lambda item: item[1]["lastCompletedAtMs"],
                       reverse=True)
    return {
        "userId": uid, "clientId": client.client_id, **_totals_view(stats.get("overall")),
        "exercises": [{"exerciseId": exercise_id, "exerciseType": totals["exerciseType"], **_totals_view(totals)}
                      for exercise_id, totals in exercises],
    }


def records(client: Client, limit: int, start_after: str | None) -> dict[str, Any]:
    if start_after is not None and not tenancy.valid_id(start_after):
        raise ApiError(400, INVALID_CURSOR.replace("a session id", "a record id"))
    sessions, more = repo.client_sessions(client.client_id, limit, start_after)
    data = [models.record(s) for s in sessions]
    return {"data": data, "count": len(data), "nextStartAfter": sessions[-1]["sessionId"] if more else None}


def daily_activity(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, float]]:
    """{day: {sessionsStarted, sessionsCompleted, sessionsFailed, sessionsAbandoned, reps, durationSeconds,
    caloriesBurned, activeUsers}} for the days that had AI Move activity (what analytics reads)."""
    return repo.ACTIVITY.daily(client_id, start_day, end_day)


# ------------------------------------------------------------------------------------ catalog management


class CatalogError(Exception):
    """A catalog change an operator asked for that cannot be made (message is one line for platformctl)."""


LIBRARY_IS_OPERATORS = "library exercises belong to the operator tenant: use its client id with --library"
OPERATOR_NEEDS_LIBRARY = "the operator tenant's exercises are the library: add --library"


@dataclasses.dataclass(frozen=True)
class NewExercise:
    client: Client
    spec: ExerciseSpec
    library: bool
    exercise_id: str | None = None


def create_exercise(new: NewExercise) -> str:
    """Create a library or custom exercise; nothing is written when a rule refuses it."""
    client, spec = new.client, new.spec
    if new.library != client.is_operator:
        raise CatalogError(LIBRARY_IS_OPERATORS if new.library else OPERATOR_NEEDS_LIBRARY)
    exercise_id = new.exercise_id or repo.new_exercise_id()
    if not tenancy.valid_id(exercise_id):
        raise CatalogError("exercise id must be 1-64 letters, digits, '-' or '_'")
    owner = None if new.library else client.client_id
    sort_order = spec.sortOrder
    if sort_order is None:
        last = repo.last_sort_order(owner)
        sort_order = 1 if last is None else last + 1
    now = clock.now()
    document = {**spec.model_dump(), "exerciseId": exercise_id, "clientId": client.client_id,
                "sortOrder": sort_order, "library": new.library, "createdAt": now, "updatedAt": now}
    ref = repo.library_ref(exercise_id) if new.library else repo.custom_ref(client.client_id, exercise_id)

    def run(transaction):
        taken = ref.get(transaction=transaction).exists
        if not new.library and not taken:
            taken = repo.library_ref(exercise_id).get(transaction=transaction).exists
        if taken:
            raise CatalogError(f"exercise {exercise_id} already exists")
        transaction.create(ref, document)

    transactions.run(run)
    return exercise_id


def operator_catalog(client: Client) -> dict[str, Any]:
    """Every exercise in the client's catalog, disabled ones included, detail form plus `library`."""
    if client.is_operator:
        exercises = repo.all_exercises(None)
    else:
        exercises = [*repo.all_exercises(client.client_id),
                     *repo.library_exercises(repo.selected_ids(client.client_id))]
    return {"clientId": client.client_id,
            "exercises": [{**models.exercise_detail(e), "library": bool(e.get("library"))} for e in exercises]}


def select_exercise(client: Client, exercise_id: str) -> None:
    """Put a library exercise in a (non-operator) client's catalog; selecting it again changes nothing."""
    if client.is_operator:
        raise CatalogError("the operator tenant's catalog is the whole library; nothing to select")
    if not tenancy.valid_id(exercise_id) or repo.get_library(exercise_id) is None:
        raise CatalogError(f"exercise {exercise_id} is not a library exercise")
    if repo.get_custom(client.client_id, exercise_id) is not None:
        raise CatalogError(f"client {client.client_id} has a custom exercise {exercise_id}; ids are unique in a catalog")

    def run(transaction):
        snap = repo.selection_ref(client.client_id).get(transaction=transaction)
        ids = list((snap.to_dict() or {}).get("exerciseIds") or []) if snap.exists else []
        if exercise_id in ids:
            return
        if len(ids) >= repo.MAX_EXERCISES:
            raise CatalogError(f"a client can select at most {repo.MAX_EXERCISES} library exercises")
        transaction.set(repo.selection_ref(client.client_id),
                        {"clientId": client.client_id, "exerciseIds": [*ids, exercise_id], "updatedAt": clock.now()})

    transactions.run(run)
