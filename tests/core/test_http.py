"""The shared Flask app: request ids, envelopes, body parsing and the 500 guard."""

import json

import pytest
from pydantic import BaseModel, ConfigDict

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
