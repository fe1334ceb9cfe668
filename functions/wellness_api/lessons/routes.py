"""HTTP routes of the lessons family (4.1): the app reads and the B2B catalog, each usage-metered."""

import flask

from ..core import auth, http, usage
from ..core.errors import ApiError
from . import service
from .models import CatalogPatchBody, CreateLessonBody, UpdateLessonBody

AREA = "lessons"
# JSON bodies stay small; the limit is set by the subtitle upload: a file of at most
# service.MAX_SUBTITLE_BYTES plus the multipart envelope. Larger bodies get 413 before any parsing.
MAX_BODY_BYTES = 1 << 20

app = http.create_app(AREA, max_body_bytes=MAX_BODY_BYTES)


@app.after_request
def _meter(response: flask.Response) -> flask.Response:
    # Counted once the caller is authenticated and the client is known (4.1 rule 7), whatever the outcome.
    client_id, operation = flask.g.get("usage_client_id"), flask.g.get("usage_operation")
    if client_id and operation:
        usage.record(client_id, AREA, operation)
    return response


def _metered(client_id: str, operation: str) -> None:
    flask.g.usage_client_id = client_id
    flask.g.usage_operation = operation


# ------------------------------------------------------------------------------------ app reads


@app.get("/api/lessons")
def list_lessons():
    requested = flask.request.args.get("clientId")
    if not requested:
        raise ApiError(400, service.CLIENT_ID_REQUIRED)
    principal = auth.require_jwt()
    client_id = service.reader_client_id(principal, requested)
    if client_id is None:
        return {"data": []}
    _metered(client_id, "list")
    return {"data": service.list_live(client_id)}


@app.get("/api/lessons/<lesson_id>")
def get_lesson(lesson_id: str):
    principal = auth.require_jwt()
    requested = flask.request.args.get("clientId") or principal.client_id
    if not requested:
        raise ApiError(401, service.WRONG_CLIENT)
    client_id = service.reader_client_id(principal, requested)
    if client_id is None:
        raise ApiError(404, service.LESSON_NOT_FOUND)
    _metered(client_id, "get")
    return {"lesson": service.get_live(client_id, lesson_id)}


# ------------------------------------------------------------------------------------ B2B catalog


def _manage(operation: str):
    principal = auth.require_user()
    client = service.managed_client(principal, flask.request.args.get("clientId"))
    _metered(client.client_id, operation)
    return principal, client


@app.get("/api/b2b/lessons/catalog")
def get_catalog():
    _, client = _manage("catalogGet")
    return service.catalog(client)


@app.patch("/api/b2b/lessons/catalog")
def patch_catalog():
    principal, client = _manage("catalogPatch")
    body = http.parse_body(CatalogPatchBody)
    service.patch_catalog(client, body, principal.uid)
    return {"success": True, "catalog": service.catalog(client)}


@app.post("/api/b2b/lessons/catalog")
def create_lesson():
    principal, client = _manage("lessonCreate")
    body = http.parse_body(CreateLessonBody)
    lesson_id = service.create_lesson(client, body, principal.uid)
    response = flask.jsonify({"success": True, "lessonId": lesson_id, "catalog": service.catalog(client)})
    response.status_code = 201
    return response


@app.patch("/api/b2b/lessons/catalog/<lesson_id>")
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


@app.post("/api/b2b/lessons/catalog/<lesson_id>/subtitle")
def upload_subtitle(lesson_id: str):
    principal, client = _manage("subtitleUpload")
    upload = _subtitle_file()
    url = service.upload_subtitle(client, lesson_id, flask.request.form.get("locale"), upload, principal.uid)
    return {"success": True, "subtitleUrl": url, "catalog": service.catalog(client)}
