"""HTTP routes of the lessons family (4.1): the app reads and the B2B catalog, each usage-metered."""

import flask

from ..core import auth, http, openapi, usage
from ..core.errors import FIELD_IS_REQUIRED, ApiError
from ..core.openapi import CLIENT_TOKEN, ID_TOKEN, error
from . import service
from .models import (
    CatalogPatchBody,
    ClientQuery,
    CreateLessonBody,
    ListLessonsQuery,
    PlayBody,
    SubtitleForm,
    UpdateLessonBody,
)
from .responses import (
    Catalog,
    CatalogUpdated,
    LessonCreated,
    LessonList,
    LivePlanConflict,
    OneLesson,
    PlayReported,
    SubtitleUploaded,
)

AREA = "lessons"
# JSON bodies stay small; the limit is set by the subtitle upload: a file of at most
# service.MAX_SUBTITLE_BYTES plus the multipart envelope. Larger bodies get 413 before any parsing.
MAX_BODY_BYTES = 1 << 20

app = http.create_app(AREA, max_body_bytes=MAX_BODY_BYTES)
api = openapi.Api(app, "Lessons")

READ_UNAUTHORIZED = error(401, "Missing, invalid or expired token, a disabled user, or a token of another client.")
CATALOG_ERRORS = (
    error(401, "Missing, invalid or expired ID token, or a disabled user."),
    error(403, "Not an admin of the managed client (clientId is for platform administrators)."),
    error(404, "The managed client does not exist."),
    error(503, "Too many catalog changes at once for this client; retry."),
)
CONFLICT = error(409, "The change would turn off lessons held by live plans (4.1 rule 3).", model=LivePlanConflict)
SAMPLE_LESSON = {
    "title": {"en": "Morning mobility", "zh_Hant": "晨間活動"},
    "description": {"en": "Ten gentle minutes to start the day."},
    "duration": 10, "MET": 2.5, "algorithm": "Video", "intensity": "Low",
    "categories": ["Mobility"], "areas": ["Full body"], "equipment": "Mat",
    "videoURLs": ["https://videos.example.com/mobility.mp4"],
    "sessions": [{"title": {"en": "Warm-up"}, "startSeconds": 0, "endSeconds": 120, "type": "warmup"}],
    "isLive": False, "membershipTiers": ["premium"],
}


@app.after_request
def _meter(response: flask.Response) -> flask.Response:
    # Counted once the caller is authenticated and the client is known (4.1 rule 7), whatever the outcome.
    client_id, operation = flask.g.get("usage_client_id"), flask.g.get("usage_operation")
    if client_id and operation:
        usage.record(client_id, AREA, operation)
    return response


def _metered(client_id: str | None, operation: str) -> None:
    flask.g.usage_client_id = client_id
    flask.g.usage_operation = operation


# ------------------------------------------------------------------------------------ app reads


@api.get("/api/lessons", operation_id="listLessons", summary="List the client's live lessons",
         description="The app lesson list: every live lesson of the client (isLive true). A player's, admin's or "
                     "guest's ID token, or a client token, of that client.",
         security=[ID_TOKEN, CLIENT_TOKEN], sample_as="PLAYER_ID_TOKEN", query=ListLessonsQuery,
         responses={200: LessonList},
         errors=[error(400, "clientId is required."), READ_UNAUTHORIZED])
def list_lessons():
    requested = http.parse_query(ListLessonsQuery, missing=FIELD_IS_REQUIRED).clientId
    if not requested:
        raise ApiError(400, service.CLIENT_ID_REQUIRED)
    principal = auth.require_jwt()
    client_id = service.reader_client_id(principal, requested)
    if client_id is None:
        return {"data": []}
    _metered(client_id, "list")
    return {"data": service.list_live(client_id)}


@api.get("/api/lessons/<lesson_id>", operation_id="getLesson", summary="Get a live lesson",
         description="One live lesson of the client, with its related lessons.",
         security=[ID_TOKEN, CLIENT_TOKEN], sample_as="PLAYER_ID_TOKEN", query=ClientQuery,
         responses={200: OneLesson},
         errors=[READ_UNAUTHORIZED, error(404, "Lesson not found (or not live).")])
def get_lesson(lesson_id: str):
    principal = auth.require_jwt()
    requested = http.parse_query(ClientQuery).clientId or principal.client_id
    if not requested:
        raise ApiError(401, service.WRONG_CLIENT)
    client_id = service.reader_client_id(principal, requested)
    if client_id is None:
        raise ApiError(404, service.LESSON_NOT_FOUND)
    _metered(client_id, "get")
    return {"lesson": service.get_live(client_id, lesson_id)}


@api.put("/api/lessons/<lesson_id>/plays/<play_id>", operation_id="reportLessonPlay",
         summary="Report that the user started or finished a lesson",
         description="The app reports a play of a live lesson for analytics: status started when the video begins, "
                     "completed when it ends. The app chooses playId (8-64 letters, digits, - or _; a UUID will do) "
                     "and sends the same one for both reports, so a retried report counts once. 201 for a new play, "
                     "200 for a known one; a completed play stays completed. The user's ID token (player, admin or "
                     "guest) of the lesson's client.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", body=PlayBody, example={"status": "completed"},
         responses={200: PlayReported, 201: PlayReported},
         errors=[error(400, "Invalid body or playId."), error(401, "Missing, invalid or expired ID token."),
                 error(404, "Lesson not found (or not live)."),
                 error(409, "The playId was reported for another lesson.")])
def report_play(lesson_id: str, play_id: str):
    principal = auth.require_user()
    _metered(principal.client_id, "play")  # whatever the outcome, once the caller is known (4.1 rule 7)
    body = http.parse_body(PlayBody)
    play, created = service.report_play(principal, lesson_id, play_id, body)
    return {"play": play}, 201 if created else 200


# ------------------------------------------------------------------------------------ B2B catalog


def _manage(operation: str):
    principal = auth.require_user()
    client = service.managed_client(principal, http.parse_query(ClientQuery).clientId)
    _metered(client.client_id, operation)
    return principal, client


@api.get("/api/b2b/lessons/catalog", operation_id="getLessonCatalog", summary="Get the lesson catalog",
         description="Every lesson of the managed client, live or not, with the live set and the membership tiers.",
         security=[ID_TOKEN], query=ClientQuery, responses={200: Catalog}, errors=CATALOG_ERRORS)
def get_catalog():
    _, client = _manage("catalogGet")
    return service.catalog(client)


@api.patch("/api/b2b/lessons/catalog", operation_id="updateLessonCatalog",
           summary="Set the live lessons and membership tiers",
           description="liveLessonIds is the complete list of lessons that must be live; lessonTierUpdates sets the "
                       "tiers of the lessons it names. At least one of them is required. 409 when lessons held by "
                       "live plans would turn off, unless force is true.",
           security=[ID_TOKEN], query=ClientQuery, body=CatalogPatchBody,
           example={"lessonTierUpdates": [{"lessonId": "$LESSON_ID", "membershipTiers": ["free", "premium"]}]},
           responses={200: CatalogUpdated},
           errors=[*CATALOG_ERRORS, error(400, "Invalid payload, or unknown lesson ids."), CONFLICT])
def patch_catalog():
    principal, client = _manage("catalogPatch")
    body = http.parse_body(CatalogPatchBody)
    service.patch_catalog(client, body, principal.uid)
    return {"success": True, "catalog": service.catalog(client)}


@api.post("/api/b2b/lessons/catalog", operation_id="createLesson", summary="Create a lesson",
          description="title.en is required; every other lesson write field (2.5) is optional. Durations in minutes.",
          security=[ID_TOKEN], query=ClientQuery, body=CreateLessonBody, example=SAMPLE_LESSON,
          responses={201: LessonCreated},
          errors=[*CATALOG_ERRORS, error(400, "Invalid payload, or the client's lesson limit is reached.")])
def create_lesson():
    principal, client = _manage("lessonCreate")
    body = http.parse_body(CreateLessonBody)
    lesson_id = service.create_lesson(client, body, principal.uid)
    response = flask.jsonify({"success": True, "lessonId": lesson_id, "catalog": service.catalog(client)})
    response.status_code = 201
    return response


@api.patch("/api/b2b/lessons/catalog/<lesson_id>", operation_id="updateLesson", summary="Edit a lesson",
           description="Any subset of the lesson write fields; null removes an optional field. isLive false hides "
                       "the lesson from the app list without deleting it (409 under the live-plan rule, unless "
                       "force is true).",
           security=[ID_TOKEN], query=ClientQuery, body=UpdateLessonBody,
           example={"description": {"en": "Ten gentle minutes, updated."}, "intensity": "Medium"},
           responses={200: CatalogUpdated},
           errors=[*CATALOG_ERRORS, error(404, "Lesson not found for the managed client."), CONFLICT])
def patch_lesson(lesson_id: str):
    principal, client = _manage("lessonPatch")
    body = http.parse_body(UpdateLessonBody)
    service.update_lesson(client, lesson_id, body, principal.uid)
    return {"success": True, "catalog": service.catalog(client)}


def _subtitle_file() -> service.SubtitleFile | None:
    upload = flask.request.files.get("file")
    if upload is None:
        return None
    data = upload.stream.read(service.MAX_SUBTITLE_BYTES + 1)
    return service.SubtitleFile(
        filename=upload.filename,
        content_type=upload.mimetype if upload.content_type else "",
        data=data if len(data) <= service.MAX_SUBTITLE_BYTES else None,
    )


@api.post("/api/b2b/lessons/catalog/<lesson_id>/subtitle", operation_id="uploadLessonSubtitle",
          summary="Upload a subtitle file",
          description="Uploads or replaces the WebVTT subtitle of one locale; subtitleUrl serves it.",
          security=[ID_TOKEN], query=ClientQuery, body=SubtitleForm, form=True,
          example={"locale": "en", "file": "@subtitles.vtt"},
          responses={200: SubtitleUploaded},
          errors=[*CATALOG_ERRORS,
                  error(400, "Unsupported locale, missing file, unsupported file type, or not valid WebVTT."),
                  error(404, "Lesson not found for the managed client.")])
def upload_subtitle(lesson_id: str):
    principal, client = _manage("subtitleUpload")
    upload = _subtitle_file()
    url = service.upload_subtitle(client, lesson_id, flask.request.form.get("locale"), upload, principal.uid)
    return {"success": True, "subtitleUrl": url, "catalog": service.catalog(client)}
