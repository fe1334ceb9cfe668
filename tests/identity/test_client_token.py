"""POST /api/client/token/ (spec 4.2): client credentials -> a client JWT."""

import datetime as dt

import jwt
import pytest

from tests.conftest import bearer
from wellness_api.api_keys import service
from wellness_api.core import client_tokens, clock, config, server_keys
from wellness_api.identity.routes import app


@pytest.fixture
def http():
    return app.test_client()


@pytest.fixture
def key(tenant):
    return service.create_key(tenant.client_id, "server", False, "test")


def test_active_key_gets_a_signed_client_token(http, tenant, key):
    response = http.post("/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 200
    assert set(response.json) == {"token"}
    claims = jwt.decode(response.json["token"], config.client_jwt_secret(), algorithms=["HS256"],
                        audience=client_tokens.AUDIENCE, issuer=client_tokens.ISSUER)
    assert claims["sub"] == claims["clientId"] == tenant.client_id
    assert claims["keyId"] == key.api_key["keyId"]
    assert claims["typ"] == "client"
    assert claims["exp"] - claims["iat"] == 3600
    assert response.headers["x-request-id"]


def test_path_without_trailing_slash_works_too(http, tenant, key):
    response = http.post("/api/client/token", json={"clientId": tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 200


def test_any_active_key_works_and_use_is_recorded(http, tenant, key):
    second = service.create_key(tenant.client_id, "second", False, "test")
    for created in (key, second):
        response = http.post("/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": created.secret})
        assert response.status_code == 200
    used = {k["keyId"]: k["lastUsedAt"] for k in service.list_keys(tenant.client_id).api_keys}
    assert all(used.values())


def test_last_used_is_written_at_most_once_a_minute(tenant, key):
    match = server_keys.authenticate(key.secret)
    server_keys.touch(match)
    first = service.list_keys(tenant.client_id).api_keys[0]["lastUsedAt"]
    server_keys.touch(server_keys.authenticate(key.secret))
    assert service.list_keys(tenant.client_id).api_keys[0]["lastUsedAt"] == first
    clock.advance(dt.timedelta(minutes=2))
    server_keys.touch(server_keys.authenticate(key.secret))
    assert service.list_keys(tenant.client_id).api_keys[0]["lastUsedAt"] != first


@pytest.mark.parametrize("secret", ["wsk_" + "x" * 43, "nonsense", "x" * 200])
def test_wrong_secret_is_401(http, tenant, key, secret):
    response = http.post("/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": secret})
    assert response.status_code == 401
    assert response.json == {"error": "Invalid client credentials"}


def test_revoked_key_is_401_and_its_tokens_stop_working(http, tenant, key):
    service.create_key(tenant.client_id, "replacement", False, "test")
    token = http.post("/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": key.secret}).json["token"]
    assert client_tokens.verify(token) is not None
    service.revoke_key(tenant.client_id, key.api_key["keyId"])
    response = http.post("/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 401
    assert client_tokens.verify(token) is None


def test_another_clients_key_is_401(http, tenant, other_tenant, key):
    response = http.post("/api/client/token/", json={"clientId": other_tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 401
    assert response.json == {"error": "Invalid client credentials"}


def test_expired_client_token_is_refused(http, tenant, key):
    token = client_tokens.sign(tenant.client_id, key.api_key["keyId"])
    clock.advance(dt.timedelta(hours=1, seconds=1))
    assert client_tokens.verify(token) is None


def test_forged_client_token_is_refused(tenant, key):
    forged = jwt.encode({"iss": client_tokens.ISSUER, "aud": client_tokens.AUDIENCE, "sub": tenant.client_id,
                         "clientId": tenant.client_id, "keyId": key.api_key["keyId"], "typ": "client",
                         "iat": 1, "exp": 4102444800}, "not-the-secret-" * 4, algorithm="HS256")
    assert client_tokens.verify(forged) is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"clientSecret": "x"}, "clientId is required."),
        ({"clientId": "x"}, "clientSecret is required."),
        ({"clientId": 1, "clientSecret": "x"}, "Invalid field clientId"),
        ({"clientId": "x", "clientSecret": "y", "role": "admin"}, "Unknown field: role."),
        ({"clientId": "", "clientSecret": "y"}, "Invalid field clientId"),
    ],
)
def test_bad_bodies_are_400(http, body, message):
    response = http.post("/api/client/token/", json=body)
    assert response.status_code == 400
    assert response.json["error"].startswith(message)
    assert set(response.json) == {"error"}


@pytest.mark.parametrize("data", [b"nope", b"[]", b""])
def test_malformed_json_is_400(http, data):
    response = http.post("/api/client/token/", data=data, content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"error": "Request body must be a JSON object."}


@pytest.mark.parametrize("data", [b"[" * 1000 + b"]" * 1000, b'{"clientId": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001])
def test_deeply_nested_json_is_400(http, data):
    response = http.post("/api/client/token/", data=data, content_type="application/json")
    assert response.status_code == 400
    assert response.json == {"error": "Request body is nested too deeply."}


@pytest.mark.parametrize("content_type", [None, "text/plain"])
def test_a_body_not_declared_json_is_415(http, tenant, key, content_type):
    import json

    data = json.dumps({"clientId": tenant.client_id, "clientSecret": key.secret})
    response = http.post("/api/client/token/", data=data, headers={"Content-Type": content_type} if content_type else {})
    assert response.status_code == 415
    assert response.json == {"error": "Content-Type must be application/json."}


def test_get_is_405_in_the_envelope(http):
    response = http.get("/api/client/token/")
    assert response.status_code == 405
    assert response.json == {"error": "Method not allowed."}


def test_client_token_authenticates_as_jwt(tenant, key):
    """Areas that accept "Bearer <JWT>" resolve the client token to its client."""
    import flask

    from wellness_api.core import auth

    token = client_tokens.sign(tenant.client_id, key.api_key["keyId"])
    with flask.Flask("probe").test_request_context(headers=bearer(token)):
        principal = auth.require_jwt()
    assert principal.kind == "client" and principal.client_id == tenant.client_id
    assert principal.key_id == key.api_key["keyId"] and not principal.is_admin
