"""Request bodies, the rules of 4.8 for them, and the session (2.12) as the API shows it."""

import re
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StringConstraints

from ..core import clock, settings
from ..core.errors import ApiError
from ..core.http import BodyError
from .rppg import limits

# Session states (3.2).
CREATED = "created"
IN_PROGRESS = "in_progress"
COMPLETED = "completed"
FAILED = "failed"
EXPIRED = "expired"
TERMINAL = (COMPLETED, FAILED, EXPIRED)
UNFINISHED = (CREATED, IN_PROGRESS)

LOCALES = ("en", "zh", "zh-Hant", "zh-Hans", "zh-TW")
DEFAULT_LOCALE = "en"
MAX_RETRIES = 3  # scans of one session answered "try again" before one completes with whatever it supports:
# enough for the hosted page to take a weak pulse from 30 s on to 60, 120 and 175 s (web/vital-scan.js CAPTURES_MS)
MAX_USER_ID_LENGTH = 128
MAX_RETURN_URL_LENGTH = 2048
_USER_ID = re.compile(r"[A-Za-z0-9._:@+\-]+")

INVALID_REQUEST = "invalid_request"
RETURN_ORIGIN_NOT_APPROVED = "return_origin_not_approved"

USER_ID_EMPTY = "userId must not be empty."
USER_ID_TOO_LONG = f"userId must be at most {MAX_USER_ID_LENGTH} characters."
USER_ID_CHARACTERS = "userId may contain only ASCII letters, digits and . _ : @ + -"
LOCALE_INVALID = f"locale must be one of: {', '.join(LOCALES)}."
RETURN_URL_TOO_LONG = f"returnUrl must be at most {MAX_RETURN_URL_LENGTH:,} characters."
RETURN_URL_NOT_HTTPS = "returnUrl must be an absolute HTTPS URL."
RETURN_URL_CREDENTIALS = "returnUrl must not contain credentials."
RETURN_ORIGIN_MESSAGE = "The origin of returnUrl is not approved for this workspace."


MAX_LOCALE_LENGTH = max(len(locale) for locale in LOCALES)


class CreateSessionBody(BaseModel):
    """POST /api/v1/vital-scan/sessions: strict, no other fields; null means absent for the optional ones.

    The bounds are the rules of 4.8 (userId is trimmed before its length counts), so the document shows them;
    a value beyond one is answered with that rule's own message (see `body_error`)."""

    model_config = ConfigDict(extra="forbid")

    userId: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_USER_ID_LENGTH)]
    locale: Annotated[str, Field(max_length=MAX_LOCALE_LENGTH, json_schema_extra={"enum": list(LOCALES)})] | None = None
    returnUrl: Annotated[str, Field(max_length=MAX_RETURN_URL_LENGTH)] | None = None


def invalid(message: str) -> ApiError:
    return ApiError(400, message, code=INVALID_REQUEST)


def check_user_id(raw: str) -> str:
    """Trimmed; 1 to 128 characters; ASCII letters, digits and . _ : @ + - only."""
    value = raw.strip()
    if not value:
        raise invalid(USER_ID_EMPTY)
    if len(value) > MAX_USER_ID_LENGTH:
        raise invalid(USER_ID_TOO_LONG)
    if not _USER_ID.fullmatch(value):
        raise invalid(USER_ID_CHARACTERS)
    return value


def check_locale(raw: str | None) -> str | None:
    if raw is None:
        return None
    if raw not in LOCALES:
        raise invalid(LOCALE_INVALID)
    return raw


def check_return_url(raw: str | None, allowed_origins: list[str]) -> str | None:
    """The returnUrl to store (its fragment removed), or an ApiError for the rules of 4.8."""
    if raw is None:
        return None
    if len(raw) > MAX_RETURN_URL_LENGTH:
        raise invalid(RETURN_URL_TOO_LONG)
    # A URL is ASCII (IRIs must be sent percent-encoded, hosts in punycode), without spaces or controls.
    if not raw.isascii() or any(c <= " " or c == "\x7f" for c in raw):
        raise invalid(RETURN_URL_NOT_HTTPS)
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise invalid(RETURN_URL_NOT_HTTPS) from None
    if parts.scheme.lower() != "https" or not parts.hostname:
        raise invalid(RETURN_URL_NOT_HTTPS)
    if "@" in parts.netloc:
        raise invalid(RETURN_URL_CREDENTIALS)
    try:
        origin = settings.normalize_origin(f"https://{parts.netloc}")
    except settings.SettingError:
        raise invalid(RETURN_URL_NOT_HTTPS) from None
    if origin not in {o.lower() for o in allowed_origins}:
        raise ApiError(400, RETURN_ORIGIN_MESSAGE, code=RETURN_ORIGIN_NOT_APPROVED)
    return raw.split("#", 1)[0]  # the URL as sent, without its fragment


def return_navigation(return_url: str | None, session_id: str, status: str) -> str | None:
    """returnUrl with vital_scan_session_id and status (completed or exited) as query parameters."""
    if not return_url:
        return None
    parts = urlsplit(return_url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if k not in ("vital_scan_session_id", "status")]
    query += [("vital_scan_session_id", session_id), ("status", status)]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def effective_status(data: dict, now=None) -> str:
    """The status, with an unfinished session past its expiresAt seen as expired at once."""
    status = data["status"]
    if status in UNFINISHED and (now or clock.now()) >= data["expiresAt"]:
        return EXPIRED
    return status


def session_view(data: dict, vital_scan_url: str | None = None) -> dict[str, Any]:
    """The 2.12 session; vitalScanUrl only in the create response."""
    status = effective_status(data)
    updated_at = data["expiresAt"] if status == EXPIRED and data["status"] != EXPIRED else data["updatedAt"]
    view = {
        "vitalScanResultId": data["vitalScanResultId"],
        "userId": data.get("userId"),
        "status": status,
        "createdAt": clock.iso(data["createdAt"]),
        "updatedAt": clock.iso(updated_at),
        "expiresAt": clock.iso(data["expiresAt"]),
        "startedAt": clock.iso(data.get("startedAt")),
        "completedAt": clock.iso(data.get("completedAt")),
        "failedAt": clock.iso(data.get("failedAt")),
        "returnUrl": data.get("returnUrl"),
        "error": {"message": data["error"]["message"]} if status == FAILED and data.get("error") else None,
        "metrics": data.get("metrics") if status == COMPLETED else None,
    }
    if vital_scan_url is not None:
        view["vitalScanUrl"] = vital_scan_url
    return view


def hosted_view(data: dict) -> dict[str, Any]:
    """What the hosted page may see: no user id, no health data."""
    return {
        "status": effective_status(data),
        "locale": data.get("locale") or DEFAULT_LOCALE,
        "expiresAt": clock.iso(data["expiresAt"]),
        "returnUrl": data.get("returnUrl"),
        # How many more scans may be answered "try again": at 0 the page records its last scan long at once,
        # also after a reload.
        "retriesLeft": max(0, MAX_RETRIES - int(data.get("retries", 0))),
    }


# ------------------------------------------------------------------------------------- hosted bodies

# A scan lasts at most limits.MAX_SECONDS from first to last frame (the hosted page captures 30 s); t counts
# milliseconds from the first frame, so every t lies in [0, MAX_TRACE_MS] and the span cannot exceed it.
MIN_TRACE_MS = 15_000
MAX_TRACE_MS = limits.MAX_SECONDS * 1000
MAX_FPS = limits.MAX_FRAME_RATE
MAX_FRAMES = limits.MAX_FRAMES  # MAX_SECONDS x MAX_FPS frame periods, plus the first frame
# The span of the frames must agree with their count and fps: (frames - 1) / fps, the span the camera's rate
# implies, may differ from the real span by at most this factor either way. Real traces pass: the hosted page
# sends fps = (frames - 1) / span exactly, and a camera that drops frames (the bench drops up to 3 %) or
# runs unevenly is far inside a factor of 2; a trace whose frames are spread over a span they cannot fill is not.
SPAN_TOLERANCE = 2.0
MAX_FAIL_MESSAGE = 500

TRACE_TOO_SHORT = "The trace must cover at least 15 seconds."
TRACE_MISMATCH = "t and rgb must have one entry per frame."
TRACE_TOO_LONG = f"The trace may hold at most {MAX_FRAMES} frames."
TRACE_TIMES = "t must be strictly increasing milliseconds."
TRACE_TIME_RANGE = (f"t must be milliseconds from 0 to {MAX_TRACE_MS} since the first frame: "
                    f"a scan lasts at most {limits.MAX_SECONDS} seconds.")
TRACE_SPAN_MISMATCH = ("The trace's time span must agree with its frame count and fps: (frames - 1) / fps "
                       f"may differ from the span from the first to the last t by at most a factor of {SPAN_TOLERANCE:g}.")
TRACE_RGB = "rgb values must be between 0 and 255."
TRACE_FPS = f"fps must be greater than 0 and at most {MAX_FPS}."
FAIL_MESSAGE = f"message must be 1 to {MAX_FAIL_MESSAGE} characters."

Millis = Annotated[float, Field(ge=0, le=MAX_TRACE_MS)]
Channel = Annotated[float, Field(ge=0, le=255)]
Rgb = Annotated[list[Channel], Field(min_length=3, max_length=3)]


class MeasurementBody(BaseModel):
    """The colour trace: bounded so that no body can size the measurement beyond one scan of MAX_SECONDS."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    fps: float = Field(gt=0, le=MAX_FPS)
    t: list[Millis] = Field(max_length=MAX_FRAMES, description="Milliseconds since the first frame, strictly "
                            f"increasing, spanning 15 to {limits.MAX_SECONDS} seconds, in step with fps.")
    rgb: list[Rgb] = Field(max_length=MAX_FRAMES)
    recording: StrictBool = Field(default=False, description=(
        "The page is still recording this capture: a trace with a heart rate but no breathing rate may be "
        "answered scanOn, and the page then sends the whole, longer trace of the same capture."))


class FailBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: Annotated[str, StringConstraints(max_length=MAX_FAIL_MESSAGE, strip_whitespace=True)]


def check_trace(body: MeasurementBody) -> MeasurementBody:
    """The rules of a trace, each before anything is sized by it (the models hold the same bounds)."""
    if not 0 < body.fps <= MAX_FPS:
        raise invalid(TRACE_FPS)
    if len(body.t) != len(body.rgb):
        raise invalid(TRACE_MISMATCH)
    if len(body.t) > MAX_FRAMES:
        raise invalid(TRACE_TOO_LONG)
    if len(body.t) < 2:
        raise invalid(TRACE_TOO_SHORT)
    if any(not 0 <= value <= MAX_TRACE_MS for value in body.t):
        raise invalid(TRACE_TIME_RANGE)
    if any(b <= a for a, b in zip(body.t, body.t[1:], strict=False)):
        raise invalid(TRACE_TIMES)
    span = body.t[-1] - body.t[0]
    if span < MIN_TRACE_MS:
        raise invalid(TRACE_TOO_SHORT)
    implied = (len(body.t) - 1) / body.fps * 1000
    if not implied / SPAN_TOLERANCE <= span <= implied * SPAN_TOLERANCE:
        raise invalid(TRACE_SPAN_MISMATCH)
    if any(not 0 <= value <= 255 for frame in body.rgb for value in frame):
        raise invalid(TRACE_RGB)
    return body


def check_fail_message(raw: str) -> str:
    value = "".join(c for c in raw if c.isprintable()).strip()
    if not value or len(value) > MAX_FAIL_MESSAGE:
        raise invalid(FAIL_MESSAGE)
    return value


# A bound of the models is one of the rules above: its refusal says the rule, not pydantic's wording.
# (model, field path with list indexes as [], pydantic error type) -> the rule's message.
_BOUND_MESSAGES: dict[tuple[str, str, str | None], str] = {
    ("CreateSessionBody", "userId", "string_too_short"): USER_ID_EMPTY,
    ("CreateSessionBody", "userId", "string_too_long"): USER_ID_TOO_LONG,
    ("CreateSessionBody", "locale", "string_too_long"): LOCALE_INVALID,
    ("CreateSessionBody", "returnUrl", "string_too_long"): RETURN_URL_TOO_LONG,
    ("MeasurementBody", "fps", "greater_than"): TRACE_FPS,
    ("MeasurementBody", "fps", "less_than_equal"): TRACE_FPS,
    ("MeasurementBody", "t", "too_long"): TRACE_TOO_LONG,
    ("MeasurementBody", "rgb", "too_long"): TRACE_TOO_LONG,
    ("MeasurementBody", "t.[]", "greater_than_equal"): TRACE_TIME_RANGE,
    ("MeasurementBody", "t.[]", "less_than_equal"): TRACE_TIME_RANGE,
    ("MeasurementBody", "rgb.[].[]", "greater_than_equal"): TRACE_RGB,
    ("MeasurementBody", "rgb.[].[]", "less_than_equal"): TRACE_RGB,
    ("FailBody", "message", "string_too_long"): FAIL_MESSAGE,
}


def body_error(model: type[BaseModel], err: BodyError) -> BodyError:
    """The refusal of a body: a bound of the model answered with its rule's message, anything else as it was."""
    path = ".".join("[]" if part.isdigit() else part for part in (err.field or "").split("."))
    message = _BOUND_MESSAGES.get((model.__name__, path, err.kind))
    return BodyError(message, field=err.field, kind=err.kind) if message else err
