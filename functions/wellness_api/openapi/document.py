"""The OpenAPI 3.1 document: every operation every area declared (core.openapi), assembled once per process.

Areas are imported here, inside build(), so /api/health (served by the same app) stays light.
"""

import functools
import importlib
from typing import Any

import flask
from pydantic import BaseModel, RootModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from ..core import openapi
from ..core.errors import BODY_TOO_LARGE
from ..core.openapi import Error, Operation

TITLE = "Wellness Platform API"
VERSION = "1.0.0"
DESCRIPTION = (
    "A multi-tenant API for fitness, wellness and health-assessment apps: lessons, identity (sign-in tokens), API keys, "
    "Vital Scan, AI Move, fall risk, content, media generation, the AI assistant (the wellness chat and an "
    "OpenAI-compatible proxy), analytics and privacy (export and erasure of one person's data). Partner backends "
    "call it with server API keys, apps with Firebase ID tokens, "
    "administrators with the ID token of an admin. Every response carries `x-request-id`.\n\n"
    "The curl examples work as written against the local stack (`make serve`) after "
    '`eval "$(bin/demo-env)"`, which sets BASE_URL, the demo credentials and ids.\n\n'
    "The guide, one page per area with runnable examples, its rules and design, and how to run and deploy the "
    "platform: [/guide/](/guide/)."
)

# (module, attribute) of every Flask app that serves public routes, in the document's tag order.
APPS = (
    ("wellness_api.openapi.routes", "app"),
    ("wellness_api.api_keys.routes", "app"),
    ("wellness_api.identity.routes", "app"),
    ("wellness_api.identity.routes", "custom_token_app"),
    ("wellness_api.lessons.routes", "app"),
    ("wellness_api.vital_scan.routes", "app"),
    ("wellness_api.ai_move.routes", "app"),
    ("wellness_api.fall_risk.routes", "app"),
    ("wellness_api.content.routes", "app"),
    ("wellness_api.media_generation.routes", "app"),
    ("wellness_api.assistant.routes", "app"),
    ("wellness_api.assistant.routes", "proxy_app"),
    ("wellness_api.analytics.routes", "app"),
    ("wellness_api.privacy.routes", "app"),
)

# Ids the platform mints or accepts (tenancy.valid_id).
ID_SCHEMA = {"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "minLength": 1, "maxLength": 64}
# Path parameters with narrower rules than ID_SCHEMA.
PATH_SCHEMAS = {"playId": {**ID_SCHEMA, "minLength": 8}}
DEMO_CLIENT_ID = "demo-fitness"  # the demo world's client (ops/demo.py), the value of every example
PATH_PARAMS = {
    "clientId": ("The client (tenant) id.", DEMO_CLIENT_ID),
    "keyId": ("The id of an API key of that client.", None),
    "lessonId": ("The id of a lesson of the client.", None),
    "vitalScanResultId": ("The id of a Vital Scan session of the workspace.", None),
    "exerciseId": ("The id of an exercise of the client's AI Move catalog.", None),
    "sessionId": ("The id of one of the caller's AI Move sessions.", None),
    "fallRiskResultId": ("The id of a fall-risk result of the client.", None),
    "key": ("A content key (unique per owner client).", None),
    "contentId": ("The id of a content item.", None),
    "versionId": ("The id of a version of the content item.", None),
    "categoryKey": ("A content category key.", None),
    "jobId": ("The id of a media-generation job of the client.", None),
    "conversationId": ("The id of one of the caller's wellness-chat conversations.", None),
    "requestId": ("The id of a privacy request of the client.", None),
    "token": ("The signed token of an export's download link (downloadUrl).", None),
    "playId": ("An id the app chooses for one play of a lesson: 8-64 letters, digits, - or _ (a UUID will do).",
               None),
}

TAG_DESCRIPTIONS = {
    "Platform": "Health check and this document.",
    "API keys": "Overlapping server API keys per client: list, create, promote, revoke (spec 4.7).",
    "Identity": "Custom tokens for partner backends, token exchange, guest sign-in, set-claims and the client "
                "token (spec 4.2).",
    "Lessons": "The app lesson list and the B2B lesson catalog with live plans and subtitles (spec 4.1).",
    "Vital Scan": "Server-to-server Vital Scan sessions (spec 4.8), one point per session, and the endpoints the "
                  "hosted scan page calls with its scanToken (CONTRACT 4).",
    "AI Move": "Camera-based exercises: the client's exercise catalog, the user's exercise sessions and statistics, "
               "and the administrators' session records (spec 4.6).",
    "Fall risk": "Fall-risk assessments scored by the CDC STEADI protocol: start one (spec 4.3), record its "
                 "questionnaire and functional tests, read results, and the staff's client-wide list.",
    "Content": "Multilingual announcements, legal documents and help articles: the public reads (no credentials), "
               "the administrators' content management with versions, and the platform administrators' "
               "categories and permissions (spec 4.4).",
    "Media generation": "AI image and video generation jobs for administrators (spec 4.9): presets, a background "
                        "worker on Cloud Tasks, results stored in the client's media library, explicit attach; "
                        "the same jobs on the legacy video-generation path.",
    "AI assistant": "The streaming wellness chat (spec 4.5): Server-Sent Events, tools that read the caller's own "
                    "data, guidance not diagnosis; and the caller's saved conversations.",
    "OpenAI-compatible proxy": "OpenAI's chat-completions (streamed or not), embeddings and models APIs for signed-in "
                               "users, with the platform's provider key, a per-client model allow-list and the same "
                               "budgets and usage records as the chat (spec 4.5).",
    "Analytics": "The administrators' dashboard (spec 4.10, 2.14): linked players by fall risk and age, engagement "
                 "per module with active users per day, assessment counts and functional-test averages, all read "
                 "from rollups kept as activity is written; and the settings of the dashboard page.",
    "Privacy": "One person's data exported (a zip archive behind a short-lived link) or erased across every area, "
               "asked for by the client's admins or the person themself; and the client's audit trail of those "
               "requests.",
}

JSON = "application/json"


def apps() -> list[flask.Flask]:
    return [getattr(importlib.import_module(module), name) for module, name in APPS]


def operations() -> list[Operation]:
    return [op for app in apps() for op in openapi.operations_of(app)]


@functools.cache
def _static_document() -> dict[str, Any]:
    ops = operations()
    schemas, refs = _schemas(ops)
    paths: dict[str, dict[str, Any]] = {}
    for op in ops:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, refs)
    tags = list(dict.fromkeys(op.tag for op in ops))
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": VERSION, "description": DESCRIPTION},
        "tags": [{"name": tag, "description": TAG_DESCRIPTIONS.get(tag, "")} for tag in tags],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": openapi.SECURITY_SCHEMES,
            "headers": openapi.HEADERS,
        },
    }


def build() -> dict[str, Any]:
    """The document. Its server is relative: the origin that served it, whichever host a client uses."""
    return {**_static_document(), "servers": [{"url": "/", "description": "The origin that serves this document"}]}


# ------------------------------------------------------------------------------ schemas


def _models(ops: list[Operation]) -> set[tuple[type[BaseModel], JsonSchemaMode]]:
    wanted: set[tuple[type[BaseModel], JsonSchemaMode]] = set()
    for op in ops:
        if op.body is not None:
            wanted.add((op.body, "validation"))
        if op.query is not None:
            wanted.add((op.query, "validation"))
        wanted.update((model, "serialization") for model in op.responses.values() if model is not None)
        wanted.add((op.envelope, "serialization"))
        wanted.update((err.model, "serialization") for err in op.errors if err.model is not None)
    return wanted


def _schemas(ops: list[Operation]) -> tuple[dict[str, Any], dict[tuple[Any, JsonSchemaMode], dict[str, Any]]]:
    wanted = sorted(_models(ops), key=lambda item: (item[0].__name__, item[1]))
    refs, schema = models_json_schema(wanted, ref_template="#/components/schemas/{model}")
    return _tidy(schema.get("$defs", {})), refs


def _tidy(node: Any) -> Any:
    """Drop pydantic's `default: null` on optional fields: absent is the documented default, never null."""
    if isinstance(node, dict):
        return {k: _tidy(v) for k, v in node.items() if not (k == "default" and v is None)}
    if isinstance(node, list):
        return [_tidy(v) for v in node]
    return node


# ------------------------------------------------------------------------------ operations


EVENT_STREAM = "text/event-stream"
# One event of a stream, as SSE readers (and schemathesis) parse it: its type (absent: "message") and its data.
SSE_EVENT = {"type": "object", "required": ["data"], "properties": {
    "event": {"type": "string"}, "data": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer"}}}


def _operation(op: Operation, refs) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": [op.tag],
        "security": [{scheme: []} if scheme else {} for scheme in op.security],
        "parameters": _parameters(op, refs),
    }
    if op.description:
        entry["description"] = op.description
    if op.body is not None:
        entry["requestBody"] = _request_body(op, refs)
    entry["responses"] = _responses(op, refs)
    entry["x-codeSamples"] = [{"lang": "Shell", "label": "curl", "source": openapi.curl_sample(op)}]
    return entry


def _parameters(op: Operation, refs) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    for name in op.path_params:
        description, example = PATH_PARAMS.get(name, ("", None))
        param = {"name": name, "in": "path", "required": True, "description": description,
                 "schema": PATH_SCHEMAS.get(name, ID_SCHEMA)}
        if example:
            param["example"] = example
        params.append(param)
    if op.query is not None:
        schema = op.query.model_json_schema(ref_template="#/components/schemas/{model}")
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            prop = _tidy(dict(prop))
            description = prop.pop("description", "")
            prop.pop("title", None)
            param = {"name": name, "in": "query", "required": name in required, "description": description,
                     "schema": prop}
            if name == "clientId":
                param["example"] = DEMO_CLIENT_ID
            params.append(param)
    return params


def _request_body(op: Operation, refs) -> dict[str, Any]:
    media = "multipart/form-data" if op.form else JSON
    assert op.body is not None  # asked only for operations with a body
    content: dict[str, Any] = {"schema": refs[(op.body, "validation")]}
    if op.example is not None:
        content["example"] = op.example
    # A body whose every field is optional may be left out (POST api-keys); a RootModel (a union) may not.
    required = issubclass(op.body, RootModel) or any(f.is_required() for f in op.body.model_fields.values())
    return {"required": required, "content": {media: content}}


def _headers(names) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in (openapi.REQUEST_ID, *names)}


def _responses(op: Operation, refs) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for status, model in op.responses.items():
        answer: dict[str, Any] = {
            "description": _first_line(model.__doc__) if model is not None else "Done; no body.",
            "headers": _headers(op.response_headers),
        }
        if model is not None:
            answer["content"] = {JSON: {"schema": refs[(model, "serialization")]}}
        if op.events and status == min(op.responses):
            answer["description"] = op.events
            answer.setdefault("content", {})[EVENT_STREAM] = {"schema": SSE_EVENT}
        if op.binary and status == min(op.responses):
            answer["description"] = f"The file ({op.binary})."
            answer.setdefault("content", {})[op.binary] = {"schema": {"type": "string", "format": "binary"}}
        out[str(status)] = answer
    for err in _errors(op):
        base = refs[(err.model or op.envelope, "serialization")]
        schema = _with_codes(base, op.envelope, err.codes)
        headers = (*op.response_headers, *err.headers) if op.response_headers and err.status != 401 else err.headers
        out[str(err.status)] = {"description": err.description, "headers": _headers(headers),
                                "content": {JSON: {"schema": schema}}}
    return dict(sorted(out.items()))


def _with_codes(base: dict[str, str], envelope: type[BaseModel], codes: tuple[str, ...]) -> dict[str, Any]:
    """The envelope with its code limited to `codes`; openapi.NO_CODE among them leaves the code optional."""
    named = [code for code in codes if code != openapi.NO_CODE]
    if not named:
        return base
    enum = {"type": "string", "enum": named}
    if envelope in (openapi.NestedError, openapi.OpenAIError):
        inner: dict[str, Any] = {"properties": {"code": enum}}
        if openapi.NO_CODE not in codes:
            inner["required"] = ["code"]
        return {"allOf": [base], "properties": {"error": inner}}
    return {"allOf": [base], "properties": {"code": enum}}


def _errors(op: Operation) -> list[Error]:
    """The operation's declared errors merged per status, plus the answers every operation of its kind gives."""
    merged: dict[int, Error] = {}
    implied: list[Error] = []
    coded = op.envelope is not openapi.PlainError
    invalid = ("invalid_request",) if coded else ()
    if op.body is not None or op.query is not None:
        implied.append(openapi.error(400, "The body or a parameter breaks its rule; the message names the field.",
                                     *invalid))
    if op.body is not None:
        if op.oversized_status == 413:
            implied.append(openapi.error(413, BODY_TOO_LARGE))
        else:
            implied.append(openapi.error(400, f"{BODY_TOO_LARGE} (over the limit)", *invalid))
        if not op.form:
            implied.append(openapi.error(415, "The body is not declared as `Content-Type: application/json`.",
                                         *(("unsupported_media_type",) if coded else ())))
    implied.append(openapi.error(500, "Unexpected error; safe to report with the x-request-id.",
                                 *(("internal_error",) if op.envelope is openapi.CodedError else ())))
    for err in (*op.errors, *implied):
        known = merged.get(err.status)
        if known is None:
            merged[err.status] = err
            continue
        if err in implied and known not in implied:
            # An operation's own wording wins; its codes still gain the framework's.
            merged[err.status] = Error(err.status, known.description, _union(known.codes, err.codes), known.model,
                                       _union(known.headers, err.headers))
            continue
        description = known.description if err.description in known.description else \
            f"{known.description} {err.description}"
        merged[err.status] = Error(err.status, description, _union(known.codes, err.codes),
                                   known.model or err.model, _union(known.headers, err.headers))
    return [merged[status] for status in sorted(merged)]


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*a, *b)))


def _first_line(text: str | None) -> str:
    return (text or "Success.").strip().splitlines()[0]
