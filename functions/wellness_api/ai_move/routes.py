"""HTTP routes of AI Move (4.6): the exercise catalog and sessions (the user's ID token), the user's statistics,
and the admin session records. The client's `modules.aiMove` setting gates every route (403)."""

import flask

from ..core import auth, http, openapi
from ..core.openapi import ID_TOKEN, error
from . import service
from .models import (
    AiMoveRecordsQuery,
    AiMoveSessionsQuery,
    CreateAiMoveSessionBody,
    UpdateAiMoveSessionBody,
    exercise_detail,
    session_view,
)
from .responses import (
    AiMoveExerciseList,
    AiMoveRecords,
    AiMoveSession,
    AiMoveSessionList,
    AiMoveStatisticsResult,
    OneAiMoveExercise,
    OneAiMoveSession,
    Success,
)

app = http.create_app("ai_move")
api = openapi.Api(app, "AI Move")

USER_UNAUTHORIZED = error(401, "Missing, invalid or expired ID token, or a disabled user.")
MODULE_OFF = error(403, "The AI Move module is not enabled for the caller's client.")
USER_ERRORS = (USER_UNAUTHORIZED, MODULE_OFF)
SESSION_ERRORS = (
    *USER_ERRORS,
    error(403, "The session belongs to another user (every user reads and changes only their own sessions)."),
    error(404, "Session not found (unknown, or of another client)."),
)
BUSY = error(503, "The session was changed by too many requests at once; retry.")


def _member():
    principal = auth.require_user()
    return principal, service.member_client(principal)


@api.get("/api/ai-move/exercises", operation_id="listAiMoveExercises", summary="List the exercise catalog",
         description="The exercises the caller's client offers, list form (2.9). The operator tenant: every enabled "
                     "library exercise in library order. Other clients: their enabled custom exercises and the "
                     "enabled library exercises selected for them, by sortOrder, then name.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: AiMoveExerciseList}, errors=USER_ERRORS)
def list_exercises():
    _, client = _member()
    return {"exercises": service.catalog(client)}


@api.get("/api/ai-move/exercises/<exercise_id>", operation_id="getAiMoveExercise", summary="Get an exercise",
         description="Detail form (2.9): adds nameZh, description, imageUrl, estimatedCalories and algorithm.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: OneAiMoveExercise},
         errors=[*USER_ERRORS, error(404, "Exercise not found: unknown, disabled, not in the client's catalog, or "
                                          "another client's.")])
def get_exercise(exercise_id: str):
    _, client = _member()
    return {"exercise": exercise_detail(service.find_exercise(client, exercise_id))}


@api.post("/api/ai-move/sessions", operation_id="createAiMoveSession", summary="Start an exercise session",
          description="Creates a session (status created, every counter at its initial value) for an exercise of "
                      "the client's catalog. exerciseType must be the exercise's type; a rep exercise needs "
                      "targetReps, a timer exercise targetDurationSeconds.",
          security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", body=CreateAiMoveSessionBody,
          example={"exerciseId": "squat", "exerciseType": "rep", "targetReps": 12},
          responses={201: AiMoveSession},
          errors=[*USER_ERRORS,
                  error(404, "Exercise not found: unknown, disabled or not in the client's catalog."), BUSY])
def create_session():
    principal, client = _member()
    body = http.parse_body(CreateAiMoveSessionBody)
    response = flask.jsonify(service.create_session(client, principal.uid, body))
    response.status_code = 201
    return response


@api.get("/api/ai-move/sessions", operation_id="listAiMoveSessions", summary="List the caller's sessions",
         description="The caller's sessions, newest first, as summaries. Page with startAfter = nextStartAfter of "
                     "the previous page; sessions created meanwhile never shift or repeat a page.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", query=AiMoveSessionsQuery, responses={200: AiMoveSessionList},
         errors=USER_ERRORS)
def list_sessions():
    principal, client = _member()
    query = http.parse_query(AiMoveSessionsQuery)
    return service.list_sessions(client, principal.uid, query.limit, query.startAfter)


@api.get("/api/ai-move/sessions/<session_id>", operation_id="getAiMoveSession", summary="Get a session",
         description="One of the caller's sessions, in full (2.10).",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: OneAiMoveSession}, errors=SESSION_ERRORS)
def get_session(session_id: str):
    principal, client = _member()
    return {"session": session_view(service.own_session(client, principal.uid, session_id))}


@api.patch("/api/ai-move/sessions/<session_id>", operation_id="updateAiMoveSession", summary="Report progress",
           description="Any subset of the session's fields. Status moves: created -> in-progress, completed, failed "
                       "or abandoned; in-progress -> completed, failed or abandoned; other moves are 409. Completing "
                       "sets completedAt and adds the session to the caller's statistics, exactly once. A finished "
                       "session is final: repeating the request that finished it succeeds and changes nothing; any "
                       "other change is 409.",
           security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", body=UpdateAiMoveSessionBody,
           example={"status": "in-progress", "repsCompleted": 6, "poseAccuracy": 0.82, "durationSeconds": 41.5},
           responses={200: Success},
           errors=[*SESSION_ERRORS,
                   error(400, "Invalid field, a value out of range, or an empty body."),
                   error(409, "The status move is not allowed, or the session is finished."), BUSY])
def update_session(session_id: str):
    principal, client = _member()
    body = http.parse_body(UpdateAiMoveSessionBody)
    service.update_session(client, principal.uid, session_id, body)
    return {"success": True}


@api.get("/api/ai-move/statistics", operation_id="getAiMoveStatistics", summary="Get the caller's statistics",
         description="Totals of the caller's completed sessions, overall and per exercise: sessions completed, reps, "
                     "duration, hold time, calories and the best formScore. Each completed session counts once.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: AiMoveStatisticsResult}, errors=USER_ERRORS)
def get_statistics():
    principal, client = _member()
    return {"statistics": service.statistics(client, principal.uid)}


@api.get("/api/ai-move/records", operation_id="listAiMoveRecords", summary="List session records (admin)",
         description="Every user's sessions of the client, newest first (createdAt descending). An admin reads their "
                     "own client; platform administrators may name any client with clientId.",
         security=[ID_TOKEN], query=AiMoveRecordsQuery, responses={200: AiMoveRecords},
         errors=[error(401, "Admin authentication required: missing or invalid ID token, or not an admin."),
                 error(403, "The AI Move module is not enabled for the client, or clientId names another client "
                            "(platform administrators only)."),
                 error(404, "The named client does not exist (platform administrators).")])
def list_records():
    principal = auth.require_user()
    query = http.parse_query(AiMoveRecordsQuery)
    client = service.records_client(principal, query.clientId)
    return service.records(client, query.limit, query.startAfter)
