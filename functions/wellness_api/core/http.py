"""The Flask app every area is built on: request ids, access logs, envelopes, body parsing.

Each area calls create_app() once with its envelope and registers its routes; main.py hands the
Functions request to that app with dispatch().
"""

import json
import math
import re
import time
import uuid
from collections.abc import Iterable
from itertools import accumulate
from typing import Annotated, Any, TypeVar, cast

import flask
import pydantic
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from . import logging as log
from .errors import (
    BODY_TOO_DEEP,
    BODY_TOO_LARGE,
    MALFORMED_JSON,
    UNSUPPORTED_MEDIA_TYPE,
    UNSUPPORTED_MEDIA_TYPE_CODE,
    UNSUPPORTED_MEDIA_TYPE_STATUS,
    ApiError,
    Envelope,
    plain_envelope,
)

DEFAULT_MAX_BODY_BYTES = 1 << 20  # 1 MiB: far above any JSON body of the spec.
# No body of the spec nests deeper than about 5 levels; 32 leaves room and keeps every parser
# (json, pydantic, Firestore) far from Python's recursion limit.
MAX_JSON_DEPTH = 32

Model = TypeVar("Model", bound=pydantic.BaseModel)


def request_id() -> str:
    return flask.g.get("request_id") or "unknown"


def create_app(
    area: str,
    envelope: Envelope = plain_envelope,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    oversized_status: int = 413,
) -> flask.Flask:
    """An area's app; `oversized_status` 400 serves areas whose documented errors have no 413."""
    app = flask.Flask(f"wellness_api.{area}")
    app.config["MAX_CONTENT_LENGTH"] = max_body_bytes
    cast(DefaultJSONProvider, app.json).sort_keys = False  # app.json is typed as the base JSONProvider
    app.url_map.strict_slashes = False
    app.extensions["envelope"] = envelope
    app.extensions["oversized_status"] = oversized_status

    @app.before_request
    def _start() -> None:
        # Always ours: a caller-supplied x-request-id is ignored (spec 4.8 rule 3).
        flask.g.request_id = uuid.uuid4().hex
        flask.g.started = time.perf_counter()

    @app.after_request
    def _finish(response: flask.Response) -> flask.Response:
        _discard_unread_body(app)
        response.headers["x-request-id"] = request_id()
        response.headers.setdefault("Cache-Control", "no-store")
        started = flask.g.get("started")
        log.info(
            "request",
            requestId=request_id(),
            area=area,
            method=flask.request.method,
            route=flask.request.url_rule.rule if flask.request.url_rule else flask.request.path,
            status=response.status_code,
            clientId=flask.g.get("client_id"),
            latencyMs=round((time.perf_counter() - started) * 1000, 2) if started else None,
        )
        return response

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> flask.Response:
        return error_response(err)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> flask.Response:
        status = exc.code or 500
        if status == 413:
            status = oversized_status
            return error_response(ApiError(status, BODY_TOO_LARGE, code="invalid_request"))
        message = {
            404: "Not found.",
            405: "Method not allowed.",
        }.get(status, exc.description or exc.name)
        return error_response(ApiError(status, message, code=_default_code(status)))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> flask.Response:
        log.error(
            f"unhandled {type(exc).__name__}: {exc}",
            requestId=request_id(),
            area=area,
            route=flask.request.path,
        )
        return error_response(ApiError(500, "Internal server error", code="internal_error"))

    return app


# Cloud Run refuses requests over 32 MiB before they reach a function; a longer declared body is not drained.
MAX_DRAINED_BYTES = 32 << 20
_DRAIN_CHUNK = 64 << 10


def _discard_unread_body(app: flask.Flask) -> None:
    """Read and drop, a chunk at a time, a body declared over the app's limit that nothing read.

    The functions runtime reads the whole request body into memory after every answer (functions_framework's
    read_request), so a refused 30 MiB body would still cost its worker 30 MiB per concurrent request. Drained
    here, the runtime finds the stream at its end."""
    declared = flask.request.content_length
    limit = app.config["MAX_CONTENT_LENGTH"]
    if not declared or declared <= limit or declared > MAX_DRAINED_BYTES:
        return
    stream = flask.request.environ.get("wsgi.input")
    if stream is None:
        return
    remaining = declared
    while remaining > 0:
        chunk = stream.read(min(_DRAIN_CHUNK, remaining))
        if not chunk:
            break
        remaining -= len(chunk)


def _default_code(status: int) -> str | None:
    return "invalid_request" if status == 400 else None


def error_response(err: ApiError) -> flask.Response:
    envelope: Envelope = flask.current_app.extensions["envelope"]
    response = flask.jsonify(envelope(err, request_id()))
    response.status_code = err.status
    for name, value in err.headers.items():
        response.headers[name] = value
    return response


def dispatch(app: flask.Flask, req: flask.Request) -> flask.Response:
    """Serve a Cloud Functions request with an area's Flask app."""
    with app.request_context(req.environ):
        return app.full_dispatch_request()


class BodyError(ApiError):
    """A body that is not valid JSON, not an object, or fails its model; `field` names the culprit."""

    def __init__(self, message: str, field: str | None = None, kind: str | None = None):
        super().__init__(400, message, code="invalid_request")
        self.field = field
        self.kind = kind


class UnsupportedMediaType(ApiError):
    """A body sent to a JSON endpoint without a JSON Content-Type (415); not a BodyError, so handlers that
    reword body errors (set-claims) let it through."""

    def __init__(self) -> None:
        super().__init__(UNSUPPORTED_MEDIA_TYPE_STATUS, UNSUPPORTED_MEDIA_TYPE, code=UNSUPPORTED_MEDIA_TYPE_CODE)


def is_json_media_type(mimetype: str) -> bool:
    """application/json or application/<anything>+json; parameters (charset) are already stripped."""
    if mimetype == "application/json":
        return True
    kind, _, subtype = mimetype.partition("/")
    return kind == "application" and subtype.endswith("+json") and len(subtype) > len("+json")


# Inside a JSON string a backslash escapes the next character; outside one it is malformed JSON (where
# the parser stops anyway). Removing escapes first leaves strings as "..." (an unterminated one runs to
# the end), so both passes are linear and never backtrack.
_ESCAPE = re.compile(r"\\.", re.DOTALL)
_STRING = re.compile(r'"[^"]*"?')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_nesting_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON `text` nests arrays/objects deeper than `limit`, found without recursion.

    Brackets inside strings are left out; the depth at any point is the running sum of the others.
    For malformed text this is at least the depth a parser reaches before it stops."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", _ESCAPE.sub("", text)))
    if len(brackets) <= limit:
        return False
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets))) > limit


def json_object(allow_empty: bool = False) -> dict[str, Any]:
    """The request body as a JSON object; an empty body is {} where every field is optional.

    A non-empty body must be declared JSON (Content-Type application/json, parameters allowed, or
    application/*+json): anything else is 415, whatever the bytes look like. The body must be a JSON
    object nested at most MAX_JSON_DEPTH levels deep; anything the parser cannot take is a 400."""
    raw = flask.request.get_data(cache=True)
    if not raw.strip():
        if allow_empty:
            return {}
        raise BodyError(MALFORMED_JSON)
    if not is_json_media_type(flask.request.mimetype):
        raise UnsupportedMediaType()
    try:
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")
    except (UnicodeDecodeError, LookupError):
        raise BodyError(MALFORMED_JSON) from None
    if json_nesting_exceeds(text):
        raise BodyError(BODY_TOO_DEEP)
    try:
        data = strict_json(text)
    except RecursionError:  # not reachable after the depth check; never a 500 if it were
        raise BodyError(BODY_TOO_DEEP) from None
    except ValueError:
        raise BodyError(MALFORMED_JSON) from None
    if not isinstance(data, dict):
        raise BodyError(MALFORMED_JSON)
    return data


def strict_json(text: str) -> Any:
    """json.loads for RFC 8259 JSON only: NaN, Infinity and numbers beyond a float's range are a ValueError.

    Bodies and operators' JSON options alike (platformctl): such a value could be stored but never answered
    back as JSON."""
    return json.loads(text, parse_constant=_not_json, parse_float=_finite_float)


def _not_json(constant: str) -> float:
    raise ValueError(f"{constant} is not JSON")  # Python's json reads NaN and Infinity; RFC 8259 has no such values


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: a number no JSON reader can give back; never stored
        raise ValueError(f"{text} is out of range")
    return value


MISSING_FIELD = "Missing required field: {field}."


def parse_body(model: type[Model], allow_empty: bool = False, missing: str = MISSING_FIELD) -> Model:
    """Validate the JSON body strictly (JSON types, no coercion) against a pydantic model.

    `missing` words the error for an absent required field ({field} is replaced).
    """
    data = json_object(allow_empty)
    near_miss_error(data, field_names(model))
    return validate(model, data, missing)


def _query_integer(value: Any) -> Any:
    return int(value) if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,12}", value) else value


# An integer in a query string: parse_query validates strictly, and query values are strings.
QUERY_INT_CONVERSION = pydantic.BeforeValidator(_query_integer)
QueryInt = Annotated[int, QUERY_INT_CONVERSION]


def parse_query(model: type[Model], missing: str = MISSING_FIELD) -> Model:
    """The query string (first value of each name) validated against a model; unknown names are ignored."""
    return validate(model, flask.request.args.to_dict(flat=True), missing)


def validate(model: type[Model], data: dict[str, Any], missing: str = MISSING_FIELD) -> Model:
    try:
        return model.model_validate(data, strict=True)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = _shown(".".join(str(part) for part in first["loc"])) or None
        kind = first["type"]
        if kind == "extra_forbidden":
            message = f"Unknown field: {field}."
        elif kind == "missing":
            message = missing.format(field=field)
        else:
            message = f"Invalid field {field}: {first['msg']}." if field else f"{first['msg']}."
        raise BodyError(message, field=field, kind=kind) from None


# A field name echoed in a message is cut here: a caller's 1 MiB key is not answered back whole.
MAX_SHOWN_FIELD = 100


def _shown(field: str) -> str:
    return field if len(field) <= MAX_SHOWN_FIELD else field[:MAX_SHOWN_FIELD] + "..."


def field_names(model: type[pydantic.BaseModel]) -> set[str]:
    """The top-level names a body of `model` may use (each field's alias and its own name)."""
    names = set()
    for name, info in model.model_fields.items():
        names.add(name)
        if info.alias:
            names.add(info.alias)
    return names


def _squashed(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def near_miss_error(data: dict[str, Any], known: Iterable[str]) -> None:
    """400 for a body key that is another spelling of a known field (other case, snake or kebab case).

    Without it `grant_type` is an unknown field at best, or silently ignored, and the caller is told
    about a missing field they believe they sent."""
    known = set(known)
    by_squash = {_squashed(name): name for name in known}
    for key in data:
        if key in known:
            continue
        match = by_squash.get(_squashed(key))
        if match is not None:
            raise BodyError(f"Unknown field {_shown(key)}; did you mean {match}?", field=key, kind="near_miss")
