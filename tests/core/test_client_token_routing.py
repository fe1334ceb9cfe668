"""Which verifier a bearer JWT goes to (core/client_tokens.is_client_token): decided from the header segment alone."""

import base64
import json
import os

import jwt
import pytest

from wellness_api.core import client_tokens


def _segment(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


@pytest.fixture(autouse=True)
def secret(monkeypatch):
    monkeypatch.setenv("CLIENT_JWT_SECRET", os.environ.get("CLIENT_JWT_SECRET") or "s" * 40)


def test_a_client_token_goes_to_the_client_verifier():
    assert client_tokens.is_client_token(client_tokens.sign("acme", "key-1"))


@pytest.mark.parametrize("header", [{"alg": "RS256", "kid": "k", "typ": "JWT"}, {"alg": "none", "typ": "JWT"}, {}])
def test_firebase_id_tokens_go_to_firebase(header):
    # RS256 in production, "none" from the Auth emulator.
    token = f"{_segment(header)}.{_segment({'iss': 'https://securetoken.google.com/p', 'sub': 'u'})}.sig"
    assert not client_tokens.is_client_token(token)


@pytest.mark.parametrize("token", ["", ".", "not-base64!.x.y", f"{_segment([1, 2])}.x.y",
                                   base64.urlsafe_b64encode(b"\xff\xfe").decode() + ".x.y", "e" * 600 + ".x.y"])
def test_what_is_no_jwt_header_goes_to_firebase(token):
    assert not client_tokens.is_client_token(token)


def test_a_foreign_hs256_token_is_routed_to_the_client_verifier_which_refuses_it():
    foreign = jwt.encode({"iss": "elsewhere", "sub": "acme", "clientId": "acme", "keyId": "k", "iat": 1,
                          "exp": 4_000_000_000}, "x" * 40, algorithm="HS256")
    assert client_tokens.is_client_token(foreign)
    assert client_tokens.verify(foreign) is None
