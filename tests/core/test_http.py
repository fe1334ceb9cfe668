"""The shared Flask app: request ids, envelopes, body parsing and the 500 guard."""

import io
import json

import flask
import pytest
from pydantic import BaseModel, ConfigDict
from werkzeug.test import EnvironBuilder

from wellness_api.core import errors, http
from wellness_api.core.errors import ApiError


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    count: int = 0


def make_app(envelope):
    app = http.create_app("probe", envelope, max_body_bytes=1024)

    @app.post("/echo")
    def echo():
        return http.parse_body(Body).model_dump()

    @app.get("/fail")
    def fail():
        raise RuntimeError("secret detail Bearer abc.def.ghi")

    @app.get("/teapot")
    def teapot():
        raise ApiError(418, "short and stout", code="teapot", extra={"retryAfterSeconds": 3}, headers={"Retry-After": "3"})

    return app.test_client()


@pytest.fixture
def plain():
    return make_app(errors.plain_envelope)


def test_every_response_has_a_fresh_request_id_and_ignores_the_callers(plain):
    first = plain.post("/echo", json={"name": "a"}, headers={"x-request-id": "mine"})
    second = plain.post("/echo", json={"name": "a"})
    assert first.status_code == 200 and first.json == {"name": "a", "count": 0}
    assert first.headers["x-request-id"] != "mine"
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


def test_unexpected_errors_are_500_without_details(plain, capsys):
    response = plain.get("/fail")
    assert response.status_code == 500
    assert response.json == {"error": "Internal server error"}
    logged = capsys.readouterr().err
    assert "RuntimeError" in logged and "abc.def.ghi" not in logged


def test_envelopes():
    assert make_app(errors.plain_envelope).get("/teapot").json == {"error": "short and stout", "retryAfterSeconds": 3}
    assert make_app(errors.coded_envelope).get("/teapot").json == {
        "code": "teapot", "error": "short and stout", "retryAfterSeconds": 3}
    response = make_app(errors.nested_envelope).get("/teapot")
    assert response.headers["Retry-After"] == "3"
    assert response.json == {"error": {"code": "teapot", "message": "short and stout",
                                       "requestId": response.headers["x-request-id"]}, "retryAfterSeconds": 3}


def test_nested_envelope_404_has_no_code():
    response = make_app(errors.nested_envelope).get("/nowhere")
    assert response.status_code == 404
    assert response.json == {"error": {"message": "Not found.", "requestId": response.headers["x-request-id"]}}


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        (b"{", 400, "Request body must be a JSON object."),
        (b"[]", 400, "Request body must be a JSON object."),
        (b'{"name": 1}', 400, "Invalid field name: Input should be a valid string."),
        (b'{"name": "a", "count": "1"}', 400, "Invalid field count: Input should be a valid integer."),
        (b'{"name": "a", "x": 1}', 400, "Unknown field: x."),
        (b"{}", 400, "Missing required field: name."),
        # Python's json reads these; they are not JSON (RFC 8259) and could not be answered back.
        (b'{"name": "a", "count": NaN}', 400, "Request body must be a JSON object."),
        (b'{"name": "a", "count": -Infinity}', 400, "Request body must be a JSON object."),
        (b'{"name": "a", "count": 1e400}', 400, "Request body must be a JSON object."),
        (json.dumps({"name": "x" * 2000}).encode(), 413, "Request body is too large."),
    ],
)
def test_body_errors(plain, data, status, message):
    response = plain.post("/echo", data=data, content_type="application/json")
    assert response.status_code == status
    assert response.json == {"error": message}


def test_oversized_status_serves_areas_without_a_413():
    app = http.create_app("probe400", errors.coded_envelope, max_body_bytes=16, oversized_status=400)

    @app.post("/echo")
    def echo():
        return http.parse_body(Body).model_dump()

    response = app.test_client().post("/echo", data=b'{"name": "' + b"x" * 64 + b'"}', content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"code": "invalid_request", "error": "Request body is too large."}


def test_coded_envelope_always_carries_a_code():
    coded = make_app(errors.coded_envelope)
    assert coded.get("/echo").json == {"code": "method_not_allowed", "error": "Method not allowed."}
    assert coded.get("/nowhere").json == {"code": "not_found", "error": "Not found."}
    assert coded.get("/fail").json == {"code": "internal_error", "error": "Internal server error"}


def test_missing_field_wording_is_the_callers():
    app = http.create_app("probe-missing")

    @app.post("/echo")
    def echo():
        return http.parse_body(Body, missing=errors.FIELD_IS_REQUIRED).model_dump()

    response = app.test_client().post("/echo", json={})
    assert response.status_code == 400
    assert response.json == {"error": "name is required."}


# ------------------------------------------------------------------------ nesting depth and media type

DEEP_ARRAY = b"[" * 1000 + b"]" * 1000  # the 7 KB body that used to overflow the parser's recursion
DEEP_OBJECT = b'{"a":' * 1000 + b"1" + b"}" * 1000


def nested(depth: int) -> bytes:
    """{"name": "a", "x": [[...]]} nested `depth` levels deep, the outer object included."""
    return b'{"name": "a", "x": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


def make_raw_app(envelope):
    app = http.create_app("probe-raw", envelope)

    @app.post("/raw")
    def raw():
        return {"keys": sorted(http.json_object())}

    @app.post("/optional")
    def optional():
        return {"keys": sorted(http.json_object(allow_empty=True))}

    return app.test_client()


@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT, b'{"a": ' + DEEP_ARRAY + b"}", nested(33)])
def test_deeply_nested_json_is_400_in_every_envelope(body):
    plain, coded, nested_ = (make_raw_app(e) for e in (errors.plain_envelope, errors.coded_envelope,
                                                       errors.nested_envelope))
    response = plain.post("/raw", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"error": "Request body is nested too deeply."}
    response = coded.post("/raw", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"code": "invalid_request", "error": "Request body is nested too deeply."}
    response = nested_.post("/raw", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"error": {"code": "invalid_request", "message": "Request body is nested too deeply.",
                                       "requestId": response.headers["x-request-id"]}}


def test_nesting_up_to_the_limit_is_parsed_and_brackets_in_strings_do_not_count():
    raw = make_raw_app(errors.plain_envelope)
    assert http.MAX_JSON_DEPTH == 32
    response = raw.post("/raw", data=nested(32), content_type="application/json")
    assert response.status_code == 200 and response.json == {"keys": ["name", "x"]}
    in_strings = json.dumps({"a": "[" * 5000, "b": ["{" * 100, '\\"[[[['], "c": "\\" + "]" * 40}).encode()
    assert raw.post("/raw", data=in_strings, content_type="application/json").status_code == 200


@pytest.mark.parametrize(("text", "deeper"), [
    ("[" * 33 + "]" * 33, True),
    ("[" * 32 + "]" * 32, False),
    ('{"a": "' + "[" * 100 + '"}', False),
    ('["\\"' + "[" * 40 + '"]', False),  # an escaped quote does not end the string
    ('["\\\\", ' + "[" * 40 + "]" * 40 + "]", True),  # an escaped backslash does
    ("[" * 100, True),  # unclosed: what a parser would have recursed into
    ('"' + "[" * 100, False),  # an unterminated string
])
def test_json_nesting_exceeds(text, deeper):
    assert http.json_nesting_exceeds(text) is deeper


def test_a_body_that_is_not_text_is_400():
    raw = make_raw_app(errors.coded_envelope)
    response = raw.post("/raw", data=b'{"a": "\xff\xfe\xfd"}', content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"code": "invalid_request", "error": "Request body must be a JSON object."}


@pytest.mark.parametrize("content_type", [
    None, "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data",
    "application/jsonx", "application/+json", "text/json", "application/json-patch",
])
def test_a_body_without_a_json_content_type_is_415(content_type):
    body = b'{"name": "a"}'
    headers = {"Content-Type": content_type} if content_type else {}
    response = make_raw_app(errors.plain_envelope).post("/raw", data=body, headers=headers)
    assert response.status_code == 415
    assert response.json == {"error": "Content-Type must be application/json."}
    response = make_raw_app(errors.coded_envelope).post("/raw", data=body, headers=headers)
    assert response.status_code == 415
    assert response.json == {"code": "unsupported_media_type", "error": "Content-Type must be application/json."}
    response = make_raw_app(errors.nested_envelope).post("/raw", data=body, headers=headers)
    assert response.status_code == 415
    assert response.json["error"]["code"] == "unsupported_media_type"
    assert response.json["error"]["message"] == "Content-Type must be application/json."


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json",
    "application/vnd.partner.v1+json; charset=UTF-8",
])
def test_json_content_types_are_accepted(content_type):
    response = make_raw_app(errors.plain_envelope).post("/raw", data=b'{"name": "a"}',
                                                        headers={"Content-Type": content_type})
    assert response.status_code == 200 and response.json == {"keys": ["name"]}


def test_an_empty_optional_body_needs_no_content_type():
    raw = make_raw_app(errors.plain_envelope)
    assert raw.post("/optional").json == {"keys": []}
    assert raw.post("/optional", data=b"  ", content_type="text/plain").json == {"keys": []}
    # A required body stays required, whatever its Content-Type.
    assert raw.post("/raw").json == {"error": "Request body must be a JSON object."}


class CamelBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    grantType: str
    clientId: str = ""


class LenientBody(BaseModel):
    grantType: str = ""  # extra fields are ignored by this model, not by the near-miss check


@pytest.mark.parametrize("key", ["grant_type", "granttype", "GrantType", "GRANT_TYPE", "grant-type"])
def test_a_near_miss_of_a_known_field_is_named_with_the_field_it_resembles(key):
    app = http.create_app("probe")

    @app.post("/strict")
    def strict():
        return http.parse_body(CamelBody).model_dump()

    @app.post("/lenient")
    def lenient():
        return http.parse_body(LenientBody).model_dump()

    client = app.test_client()
    for path in ("/strict", "/lenient"):
        response = client.post(path, json={key: "password"})
        assert response.status_code == 400, path
        assert response.json == {"error": f"Unknown field {key}; did you mean grantType?"}
    # The right spelling beside a wrong one is still a mistake worth naming.
    assert client.post("/strict", json={"grantType": "x", key: "y"}).json["error"].endswith("did you mean grantType?")
    # Unrelated unknown fields keep their wording; a lenient model still ignores them.
    assert client.post("/strict", json={"grantType": "x", "other": 1}).json == {"error": "Unknown field: other."}
    assert client.post("/lenient", json={"other": 1}).json == {"grantType": ""}


def test_near_miss_error_checks_only_other_spellings():
    http.near_miss_error({"grantType": 1, "unrelated": 2}, {"grantType", "clientId"})
    with pytest.raises(http.BodyError) as raised:
        http.near_miss_error({"client_id": 1}, {"grantType", "clientId"})
    assert raised.value.field == "client_id" and raised.value.kind == "near_miss"
    assert raised.value.message == "Unknown field client_id; did you mean clientId?"


def test_a_huge_unknown_field_name_is_not_echoed_whole(plain):
    key = "x" * 500  # the probe app takes bodies up to 1 KiB
    response = plain.post("/echo", data=json.dumps({"name": "a", key: 1}), content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"error": f"Unknown field: {'x' * http.MAX_SHOWN_FIELD}...."}


class _CountingInput(io.BytesIO):
    """A request body that records the largest single read (what a reader held in memory at once)."""

    largest = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.largest = max(self.largest, len(chunk))
        return chunk


def test_a_refused_oversized_body_is_drained_a_chunk_at_a_time(plain):
    # The functions runtime reads the whole body after every answer; drained, it finds nothing left to hold.
    app = http.create_app("probe", errors.plain_envelope, max_body_bytes=1024)

    @app.post("/echo")
    def echo():
        return http.parse_body(Body).model_dump()

    body = b'{"name": "' + b"x" * (3 << 20) + b'"}'
    stream = _CountingInput(body)
    environ = EnvironBuilder(path="/echo", method="POST", input_stream=stream,
                             content_type="application/json").get_environ()
    response = http.dispatch(app, flask.Request(environ))
    assert response.status_code == 413
    assert stream.read() == b"" and 0 < stream.largest <= 64 << 10


def test_a_body_declared_beyond_what_cloud_run_admits_is_not_drained():
    app = http.create_app("probe", errors.plain_envelope, max_body_bytes=1024)

    @app.post("/echo")
    def echo():
        return http.parse_body(Body).model_dump()

    stream = _CountingInput(b"{}")
    environ = EnvironBuilder(path="/echo", method="POST", input_stream=stream,
                             content_type="application/json").get_environ()
    environ["CONTENT_LENGTH"] = str(http.MAX_DRAINED_BYTES + 1)  # the builder counts the stream instead
    assert http.dispatch(app, flask.Request(environ)).status_code == 413
    assert stream.largest == 0
