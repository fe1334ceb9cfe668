"""API errors and the spec's error envelopes (part 7); each area picks one envelope.

Handlers and services raise ApiError; the area's Flask app renders it with its envelope, so the
same rule ("401 invalid credentials") reads the same everywhere and never leaks a stack trace.
"""

from collections.abc import Callable
from typing import Any


class ApiError(Exception):
    """An error with an HTTP status, a human message and, where the envelope has one, a code."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        *,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.extra = extra or {}
        self.headers = headers or {}


# An envelope turns (error, request id) into the JSON body.
Envelope = Callable[[ApiError, str], dict[str, Any]]


def plain_envelope(err: ApiError, request_id: str) -> dict[str, Any]:
    """{error: string} plus any documented extras (most areas)."""
    return {"error": err.message, **err.extra}


# Codes for the framework's own answers (unknown path, wrong method) in the coded envelope.
_CODES_BY_STATUS = {400: "invalid_request", 404: "not_found", 405: "method_not_allowed"}


def coded_envelope(err: ApiError, request_id: str) -> dict[str, Any]:
    """{code, error} (custom tokens, 7.1); a code is always present, derived from the status if unset."""
    code = err.code or _CODES_BY_STATUS.get(err.status, "internal_error")
    return {"code": code, "error": err.message, **err.extra}


def nested_envelope(err: ApiError, request_id: str) -> dict[str, Any]:
    """{error: {code, message, requestId}} (Vital Scan, 7.6); code omitted where the spec gives none."""
    body: dict[str, Any] = {"message": err.message, "requestId": request_id}
    if err.code:
        body = {"code": err.code, **body}
    return {"error": body, **err.extra}


# OpenAI's error types by status (and the one code with a type of its own): the openai SDK raises its exception
# class by status, and callers read `type`.
_OPENAI_TYPES = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}
INSUFFICIENT_QUOTA = "insufficient_quota"


def openai_envelope(err: ApiError, request_id: str) -> dict[str, Any]:
    """{error: {message, type, param, code}}: OpenAI's format, for the OpenAI-compatible proxy."""
    kind = INSUFFICIENT_QUOTA if err.code == INSUFFICIENT_QUOTA else _OPENAI_TYPES.get(err.status) or (
        "server_error" if err.status >= 500 else "invalid_request_error")
    return {"error": {"message": err.message, "type": kind, "param": getattr(err, "field", None), "code": err.code}}


# Messages used by more than one area, written once.
FIELD_IS_REQUIRED = "{field} is required."
MALFORMED_JSON = "Request body must be a JSON object."
BODY_TOO_LARGE = "Request body is too large."
BODY_TOO_DEEP = "Request body is nested too deeply."

# A non-empty body sent to a JSON endpoint without Content-Type application/json (or application/*+json).
UNSUPPORTED_MEDIA_TYPE_STATUS = 415
UNSUPPORTED_MEDIA_TYPE_CODE = "unsupported_media_type"
UNSUPPORTED_MEDIA_TYPE = "Content-Type must be application/json."
