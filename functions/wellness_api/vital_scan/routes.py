"""HTTP routes of Vital Scan: the partner API (/api/v1/vital-scan, bearer API key) and the hosted-session
endpoints (/api/hosted/vital-scan, bearer scanToken). Errors use the nested envelope (7.6)."""

import flask

from ..core import auth, http
from ..core import logging as log
from ..core.errors import BODY_TOO_LARGE, FIELD_IS_REQUIRED, ApiError, nested_envelope
from ..core.http import BodyError
from . import access, failures, service
from .models import CreateSessionBody, FailBody, MeasurementBody

V1 = "/api/v1/vital-scan"
HOSTED = "/api/hosted/vital-scan"
CREATE_RULE = f"{V1}/sessions"
# The create body holds a userId (128) and a returnUrl (2,048): 16 KiB is plenty. Traces are bigger,
# so the app allows the core's 1 MiB and the create route checks its own limit.
MAX_CREATE_BODY_BYTES = 16 * 1024

CREATION_FAILED = "vital_scan_creation_failed"
CREATION_FAILED_MESSAGE = "The Vital Scan session could not be created."
INTERNAL_ERROR_MESSAGE = "Internal server error."

# 7.6 has no 413: an oversized body is an invalid request.
app = http.create_app("vital_scan", nested_envelope, oversized_status=400)


def _creating() -> bool:
    rule = flask.request.url_rule
    return flask.request.method == "POST" and rule is not None and rule.rule == CREATE_RULE


@app.after_request
def _rate_headers(response: flask.Response) -> flask.Response:
    for name, value in access.rate_headers().items():
        response.headers[name] = value
    return response


@app.errorhandler(Exception)
def _unexpected(exc: Exception):
    """Dependencies down -> 503 (7.6); anything else -> 500, vital_scan_creation_failed on create."""
    creating = _creating()
    if failures.is_infrastructure(exc):
        log.warning(f"dependency unavailable: {type(exc).__name__}", requestId=http.request_id(),
                    route=flask.request.path)
        code = failures.CREATION_UNAVAILABLE if creating else None
        return http.error_response(failures.unavailable(code))
    # The hosted flow carries health data (traces, metrics): its errors are logged by type only.
    detail = "" if flask.request.path.startswith(HOSTED) else f": {exc}"
    log.error(f"unhandled {type(exc).__name__}{detail}", requestId=http.request_id(), route=flask.request.path)
    if creating:
        return http.error_response(ApiError(500, CREATION_FAILED_MESSAGE, code=CREATION_FAILED))
    return http.error_response(ApiError(500, INTERNAL_ERROR_MESSAGE))


def _parse(model, max_bytes: int | None = None):
    if max_bytes is not None:
        declared = flask.request.content_length
        if (declared is not None and declared > max_bytes) or len(flask.request.get_data(cache=True)) > max_bytes:
            raise BodyError(BODY_TOO_LARGE)
    return http.parse_body(model, missing=FIELD_IS_REQUIRED)


# ------------------------------------------------------------------------------------ partner API


@app.post(CREATE_RULE)
def create_session():
    workspace = access.open_workspace()
    body = _parse(CreateSessionBody, MAX_CREATE_BODY_BYTES)
    response = flask.jsonify({"data": service.create_session(workspace, body)})
    response.status_code = 201
    return response


@app.get(f"{V1}/sessions/<session_id>")
def get_session(session_id: str):
    workspace = access.open_workspace()
    return {"data": service.get_session(workspace, session_id)}


@app.delete(f"{V1}/sessions/<session_id>")
def delete_session(session_id: str):
    workspace = access.open_workspace()
    service.delete_session(workspace, session_id)
    return flask.Response(status=204)


# ------------------------------------------------------------------------------------- hosted flow


def _scan() -> service.HostedRef:
    return service.resolve_token(auth.bearer_token())


@app.get(f"{HOSTED}/session")
def hosted_session():
    return service.hosted_get(_scan())


@app.post(f"{HOSTED}/start")
def hosted_start():
    return service.hosted_start(_scan())


@app.post(f"{HOSTED}/measurement")
def hosted_measurement():
    ref = _scan()
    return service.hosted_measurement(ref, _parse(MeasurementBody))


@app.post(f"{HOSTED}/fail")
def hosted_fail():
    ref = _scan()
    return service.hosted_fail(ref, _parse(FailBody).message)


@app.post(f"{HOSTED}/exit")
def hosted_exit():
    return service.hosted_exit(_scan())
