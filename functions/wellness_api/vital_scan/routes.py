"""HTTP routes of Vital Scan: the partner API (/api/v1/vital-scan, bearer API key) and the hosted-session
endpoints (/api/hosted/vital-scan, bearer scanToken). Errors use the nested envelope (7.6)."""

import flask

from ..core import auth, http, openapi
from ..core import logging as log
from ..core.errors import BODY_TOO_LARGE, FIELD_IS_REQUIRED, ApiError, nested_envelope
from ..core.http import BodyError
from ..core.openapi import API_KEY, NO_CODE, RATELIMIT_HEADERS, RETRY_AFTER, SCAN_TOKEN, error
from . import access, failures, models, service
from .models import CreateSessionBody, FailBody, MeasurementBody, body_error
from .responses import (
    CreatedSession,
    ExitResult,
    FailResult,
    HostedSession,
    InsufficientCredits,
    MeasurementResult,
    SessionResult,
)

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
api = openapi.Api(app, "Vital Scan")

# The common access boundary, run before every partner handler (7.6).
BOUNDARY = (
    error(401, "Bearer API key missing, invalid, expired or revoked.", access.INVALID_API_KEY),
    error(403, "Vital Scan is not available, not entitled or not active for the workspace.",
          *(code for code, _ in access.ACCESS_DENIALS.values())),
    error(429, "The workspace's requests-per-minute limit is exceeded; honour Retry-After.",
          access.RATE_LIMIT_EXCEEDED, headers=[RETRY_AFTER]),
    error(503, "A required dependency is temporarily unavailable.", failures.ENTITLEMENT_UNAVAILABLE,
          failures.RATE_LIMIT_UNAVAILABLE),
)
SESSION_UNAVAILABLE = error(503, "The session store is temporarily unavailable; retry.",
                            failures.VITAL_SCAN_UNAVAILABLE)
HOSTED_ERRORS = (
    error(401, "Missing or unknown scanToken.", NO_CODE),
    error(410, "The session has ended (completed, failed or expired).", NO_CODE),
    SESSION_UNAVAILABLE,
)
NOT_FOUND = error(404, "Unknown or deleted session.", NO_CODE)
UNEXPECTED = error(500, "Unexpected error.", NO_CODE)


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
        code = failures.CREATION_UNAVAILABLE if creating else failures.VITAL_SCAN_UNAVAILABLE
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
    try:
        return http.parse_body(model, missing=FIELD_IS_REQUIRED)
    except BodyError as exc:
        raise body_error(model, exc) from None


# ------------------------------------------------------------------------------------ partner API


@api.post(CREATE_RULE, operation_id="createVitalScanSession", summary="Create a Vital Scan session",
          description="Every successful call creates a new independent session and uses one point; there is no "
                      "idempotency key, so never retry automatically after a timeout or a 5xx. The body is strict. "
                      "With an approved returnUrl the hosted page navigates there with vital_scan_session_id and "
                      "status (completed or exited): hints only, verify with GET.",
          security=[API_KEY], body=CreateSessionBody,
          example={"userId": "member-1042", "locale": "en", "returnUrl": "https://demo-fitness.example/scan-done"},
          responses={201: CreatedSession}, response_headers=RATELIMIT_HEADERS,
          errors=[*BOUNDARY,
                  error(400, "Invalid body, userId, locale or returnUrl; or a returnUrl origin the workspace has "
                             "not approved.", "invalid_request", "return_origin_not_approved"),
                  error(402, "No points left in the current cycle.", "insufficient_credits",
                        model=InsufficientCredits),
                  error(500, "Unexpected error during session creation.", CREATION_FAILED),
                  error(503, "Do not retry automatically: commit_outcome_unknown means the session may exist.",
                        failures.CREATION_UNAVAILABLE, failures.COMMIT_OUTCOME_UNKNOWN)])
def create_session():
    workspace = access.open_workspace()
    body = _parse(CreateSessionBody, MAX_CREATE_BODY_BYTES)
    response = flask.jsonify({"data": service.create_session(workspace, body)})
    response.status_code = 201
    return response


@api.get(f"{V1}/sessions/<vital_scan_result_id>", operation_id="getVitalScanSession",
         summary="Get a Vital Scan session",
         description="Uses no point but counts toward the rate limit. Poll one session at most once every five "
                     "seconds; metrics are null until completed.",
         security=[API_KEY], responses={200: SessionResult}, response_headers=RATELIMIT_HEADERS,
         errors=[*BOUNDARY, NOT_FOUND, SESSION_UNAVAILABLE,
                 error(429, "Polled again within five seconds (no code); honour Retry-After.", NO_CODE,
                       headers=[RETRY_AFTER]),
                 UNEXPECTED])
def get_session(vital_scan_result_id: str):
    workspace = access.open_workspace()
    return {"data": service.get_session(workspace, vital_scan_result_id)}


@api.delete(f"{V1}/sessions/<vital_scan_result_id>", operation_id="deleteVitalScanSession",
            summary="Delete a Vital Scan session",
            description="Free; a soft delete: later access answers 404. The point is not refunded.",
            security=[API_KEY], responses={204: None}, response_headers=RATELIMIT_HEADERS,
            errors=[*BOUNDARY, NOT_FOUND, SESSION_UNAVAILABLE, UNEXPECTED])
def delete_session(vital_scan_result_id: str):
    workspace = access.open_workspace()
    service.delete_session(workspace, vital_scan_result_id)
    return flask.Response(status=204)


# ------------------------------------------------------------------------------------- hosted flow

# 16 seconds at 1 frame per second: the shortest valid trace (too few frames for metrics, still completes).
SAMPLE_TRACE = {"fps": 1, "t": [i * 1000 for i in range(17)], "rgb": [[150, 110, 90]] * 17}


def _scan() -> service.HostedRef:
    return service.resolve_token(auth.bearer_token())


@api.get(f"{HOSTED}/session", operation_id="getHostedVitalScanSession",
         summary="Hosted page: the token's session",
         description="Called by the hosted scan page with the scanToken from its URL fragment.",
         security=[SCAN_TOKEN], responses={200: HostedSession},
         errors=[*HOSTED_ERRORS, UNEXPECTED])
def hosted_session():
    return service.hosted_get(_scan())


@api.post(f"{HOSTED}/start", operation_id="startHostedVitalScan", summary="Hosted page: start the scan",
          description="created -> in_progress (startedAt set); again while in_progress (a resumed scan): no change.",
          security=[SCAN_TOKEN], responses={200: HostedSession},
          errors=[*HOSTED_ERRORS, UNEXPECTED])
def hosted_start():
    return service.hosted_start(_scan())


@api.post(f"{HOSTED}/measurement", operation_id="submitHostedVitalScanMeasurement",
          summary="Hosted page: submit the colour trace",
          description="The mean skin colour (0-255) of every frame over at least 15 seconds. in_progress -> "
                      "completed with the metrics the trace supports. A scan lasts at most "
                      f"{models.MAX_TRACE_MS // 1000} seconds: t counts milliseconds from the first frame (0 to "
                      f"{models.MAX_TRACE_MS:,}), at most {models.MAX_FRAMES:,} frames, fps at most "
                      f"{models.MAX_FPS}, and the span must agree with the frame count and fps within a factor "
                      f"of {models.SPAN_TOLERANCE:g}.",
          security=[SCAN_TOKEN], body=MeasurementBody, example=SAMPLE_TRACE,
          responses={200: MeasurementResult},
          errors=[*HOSTED_ERRORS, error(400, "Invalid trace: the message names the rule it breaks (too short, "
                                             "times out of range or not increasing, span out of step with frames "
                                             "and fps, too many frames, fps or colour out of range).",
                                        "invalid_request"),
                  error(409, "The scan has not been started.", NO_CODE), UNEXPECTED])
def hosted_measurement():
    ref = _scan()
    return service.hosted_measurement(ref, _parse(MeasurementBody))


@api.post(f"{HOSTED}/fail", operation_id="failHostedVitalScan", summary="Hosted page: report a failed scan",
          description="in_progress -> failed (failedAt, error.message); the point is not refunded.",
          security=[SCAN_TOKEN], body=FailBody, example={"message": "Camera permission denied."},
          responses={200: FailResult},
          errors=[*HOSTED_ERRORS, error(400, "The message is empty or too long.", "invalid_request"),
                  error(409, "The scan has not been started.", NO_CODE), UNEXPECTED])
def hosted_fail():
    ref = _scan()
    return service.hosted_fail(ref, _parse(FailBody).message)


@api.post(f"{HOSTED}/exit", operation_id="exitHostedVitalScan", summary="Hosted page: leave the scan",
          description="No state change: the session stays resumable until completed or expired.",
          security=[SCAN_TOKEN], responses={200: ExitResult},
          errors=[*HOSTED_ERRORS, UNEXPECTED])
def hosted_exit():
    return service.hosted_exit(_scan())
