"""HTTP routes of /api/privacy: export and erasure requests about one person, their audit trail, and the download
of an export's archive. Callers: a client's admin (for its members) and the person themself, with an ID token."""

import flask

from ..core import auth, http, openapi, tenancy
from ..core.errors import ApiError
from ..core.openapi import ID_TOKEN, RETRY_AFTER, error
from . import service
from .models import CreateRequestBody, RequestsQuery
from .responses import PrivacyRequestAnswer, PrivacyRequestList

app = http.create_app("privacy")
api = openapi.Api(app, "Privacy", errors=(
    error(401, "Missing, invalid or expired ID token, or a disabled user."),
))
CHUNK = 256 << 10


def _client(principal: auth.Principal) -> tenancy.Client:
    client = tenancy.get_client(principal.client_id)
    if client is None:
        raise ApiError(403, auth.FORBIDDEN)
    return client


@api.post("/api/privacy/requests", operation_id="createPrivacyRequest",
          summary="Ask for a person's data to be exported or erased",
          description="An admin may ask about any member of their own client (a uid that is not one is 404, another "
                      "client's members included); anyone may ask about themself. The request runs as a task: read "
                      "it with GET /api/privacy/requests/{requestId}. An export collects every area's documents and "
                      "files about the person into one zip archive; an erasure deletes them (or removes the person's "
                      "ids from what the client keeps: activity counts, usage records, content they authored), then "
                      "the Auth user. While a request of the same type about the same person is queued or running, "
                      "that request is the answer, not a new one.",
          security=[ID_TOKEN], body=CreateRequestBody, example={"type": "export", "uid": "$PLAYER_UID"},
          responses={202: PrivacyRequestAnswer},
          errors=[error(400, "Invalid body: unknown type, a uid of more than 128 characters, unknown fields."),
                  error(403, "A player or guest asking about someone else."),
                  error(404, "The uid is not a member of the caller's client."),
                  error(429, "The client has 20 requests queued or running.", headers=[RETRY_AFTER]),
                  error(503, "The request could not be queued; retry.")])
def create_request():
    principal = auth.require_user()
    body = http.parse_body(CreateRequestBody)
    service.check_may_ask(principal, body.uid)
    client = _client(principal)
    record, _ = service.create(client, service.Requester.of(principal), body.type, body.uid)
    response = flask.jsonify({"request": service.view(record, with_link=True)})
    response.status_code = 202
    return response


@api.get("/api/privacy/requests", operation_id="listPrivacyRequests", summary="The client's privacy requests",
         description="The audit trail, newest first: who asked, when, about whom, and the outcome. An erased "
                     "person is named only by subjectHash; `uid` finds their requests by that hash.",
         security=[ID_TOKEN], query=RequestsQuery, responses={200: PrivacyRequestList},
         errors=[error(400, "Invalid query."), error(403, "Not an admin of the client.")])
def list_requests():
    principal = auth.require_user()
    if not principal.is_admin:
        raise ApiError(403, service.ADMINS_ONLY)
    query = http.parse_query(RequestsQuery)
    found, next_start = service.page(_client(principal), query)
    return {"requests": [service.view(r) for r in found], "nextStartAfter": next_start}


@api.get("/api/privacy/requests/<request_id>", operation_id="getPrivacyRequest", summary="One privacy request",
         description="Status, progress per area, and the outcome: an export's manifest and a download link that "
                     "works without credentials for 15 minutes (a new one with every read); an erasure's report. "
                     "Admins of the client see every request; others their own.",
         security=[ID_TOKEN], responses={200: PrivacyRequestAnswer},
         errors=[error(404, "No such request of the caller's client (or not the caller's).")])
def get_request(request_id: str):
    principal = auth.require_user()
    record = service.get(principal, _client(principal), request_id)
    return {"request": service.view(record, with_link=True)}


@api.get("/api/privacy/downloads/<token>", operation_id="downloadPrivacyExport",
         summary="Download an export's archive",
         description="The link of a completed export (downloadUrl): no credentials, valid 15 minutes after it was "
                     "handed out. Answers the zip (application/zip): manifest.json, one JSON per area, the files.",
         security=[""], responses={200: None}, binary="application/zip",
         errors=[error(404, "The link is invalid or has expired.")])
def download(token: str):
    blob, name = service.archive_for(token)

    size = blob.size or 0

    def chunks():
        # Ranged reads (the Storage emulator does not end BlobReader's stream), so memory stays at one chunk.
        for start in range(0, size, CHUNK):
            yield blob.download_as_bytes(start=start, end=min(start + CHUNK, size) - 1)

    response = flask.Response(chunks(), mimetype="application/zip")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Content-Length"] = str(size)
    return response
