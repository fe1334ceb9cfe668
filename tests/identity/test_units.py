"""Pure logic of the identity area: grant parsing, uid derivation, rate windows, caller and host parsing."""

import datetime as dt

import flask
import pytest

from wellness_api.core import ratelimit, tenancy, users
from wellness_api.core.http import BodyError
from wellness_api.identity import members, models, origin, toolkit
from wellness_api.identity.custom_token import external_uid


def test_external_uid_is_stable_namespaced_case_sensitive_and_a_valid_id():
    uid = external_uid("client-a", "User-1")
    assert uid == external_uid("client-a", "User-1")
    assert uid != external_uid("client-a", "user-1")
    assert uid != external_uid("client-b", "User-1")
    # No way to make two (client, id) pairs collide by moving the separator.
    assert external_uid("a", "b\x00c") != external_uid("a\x00b", "c")
    assert uid.startswith("ext_") and tenancy.valid_id(uid) and len(uid) <= 128


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"grantType": "external_user", "externalUserId": "u-1"}, models.ExternalUserGrant),
        ({"clientId": "c", "email": "e@x", "password": "p"}, models.PasswordGrant),
        ({"grantType": "password", "clientId": "c", "email": "e@x", "password": "p"}, models.PasswordGrant),
    ],
)
def test_each_grant_is_recognised(data, kind):
    assert isinstance(models.parse_grant(data), kind)


def test_external_user_ids_are_kept_exactly_as_sent():
    grant = models.parse_grant({"grantType": "external_user", "externalUserId": "Ünïcode:ID/42@partner"})
    assert grant.externalUserId == "Ünïcode:ID/42@partner"


@pytest.mark.parametrize(
    "data",
    [
        {"grantType": "external_user", "externalUserId": "u", "password": "p"},
        {"grantType": "external_user"},
        {"grantType": "password", "clientId": "c", "email": "e", "password": "p", "externalUserId": "u"},
        {"grantType": "client_credentials"},
        {"grantType": None},
        {"grantType": ["password"]},
        {"clientId": "c", "email": "e", "password": 1},
    ],
)
def test_other_shapes_are_body_errors(data):
    with pytest.raises(BodyError) as caught:
        models.parse_grant(data)
    assert caught.value.status == 400 and caught.value.code == "invalid_request"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "Missing clientId"),
        ({"clientId": "c", "idToken": "t"}, None),
        ({"clientId": "  ", "idToken": "t"}, "Missing clientId"),
        ({"clientId": "c", "idToken": None}, "Missing idToken"),
        ({"clientId": "c", "idToken": "t", "extra": 1}, "Missing clientId"),
        ({"idToken": "t", "extra": 1}, "Missing clientId"),
        ({"clientId": "c", "extra": 1}, "Missing idToken"),
    ],
)
def test_set_claims_messages(data, message):
    assert models.set_claims_error(data) == message


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        (" Ann@Example.COM ", "ann@example.com"),
        ("a@b", "a@b"),
        ("no-at", None),
        ("@x.com", None),
        ("a@", None),
        ("a@@b", None),
        ("a b@c.d", None),
        ("a@.c", None),
        (None, None),
        ("x" * 250 + "@a.bc", None),
    ],
)
def test_normalize_email(raw, normalized):
    assert users.normalize_email(raw) == normalized


def test_invitation_ids_do_not_collide_with_uids():
    invite = members.repo.invite_id("a@b.c")
    assert invite.startswith("invite_") and tenancy.valid_id(invite)
    assert invite == members.repo.invite_id("a@b.c") != members.repo.invite_id("a@b.d")


@pytest.mark.parametrize(
    ("limit", "shards", "share"),
    [(1, 1, 1), (10, 1, 10), (120, 1, 120), (121, 2, 61), (600, 5, 120), (1000, 9, 112)],
)
def test_large_limits_spread_over_shards_small_ones_are_exact(limit, shards, share):
    rule = ratelimit.Limit("requests", limit)
    assert (rule.shards, rule.share) == (shards, share)
    assert rule.shards * rule.share >= limit


def test_windows_are_aligned_and_keys_hide_the_caller():
    rule = ratelimit.Limit("guest", 5, window_seconds=60)
    start, end = ratelimit.window_of(rule, dt.datetime(2030, 1, 1, 12, 0, 59, 999000, tzinfo=dt.UTC))
    assert end - start == 60 and start % 60 == 0
    key = ratelimit.caller_key("client-a", "203.0.113.5")
    assert "203" not in key and len(key) == 32 and key != ratelimit.caller_key("client-b", "203.0.113.5")


@pytest.mark.parametrize(
    ("headers", "hops", "expected"),
    [
        ({}, "1", "127.0.0.9"),
        ({"X-Forwarded-For": "198.51.100.1"}, "1", "198.51.100.1"),
        ({"X-Forwarded-For": "6.6.6.6, 198.51.100.1"}, "1", "198.51.100.1"),
        ({"X-Forwarded-For": "6.6.6.6, 198.51.100.1, 10.0.0.1"}, "2", "198.51.100.1"),
        ({"X-Forwarded-For": "198.51.100.1"}, "2", "127.0.0.9"),
        ({"X-Forwarded-For": "198.51.100.1"}, "0", "127.0.0.9"),
        # The production shape behind Hosting: forged entries in front, the trusted ones appended.
        ({"X-Forwarded-For": "6.6.6.6, 7.7.7.7, 198.51.100.1, 10.0.0.1"}, "2", "198.51.100.1"),
        ({"X-Forwarded-For": "198.51.100.1, 10.0.0.1"}, "2", "198.51.100.1"),
        ({"X-Forwarded-For": ", 10.0.0.1"}, "2", "127.0.0.9"),
        ({"X-Forwarded-For": "6.6.6.6," * 5000 + "198.51.100.1"}, "1", "198.51.100.1"),
        # IPv6 callers are counted by their /64; IPv4-mapped IPv6 is the IPv4 address.
        ({"X-Forwarded-For": "2001:db8:1:2:aaaa::1"}, "1", "2001:db8:1:2::/64"),
        ({"X-Forwarded-For": "6.6.6.6, 2001:db8:1:2:ffff:ffff:ffff:ffff"}, "1", "2001:db8:1:2::/64"),
        ({"X-Forwarded-For": "::ffff:198.51.100.1"}, "1", "198.51.100.1"),
        ({"X-Forwarded-For": "[2001:db8:1:2::5]:443"}, "1", "2001:db8:1:2::/64"),
        ({"X-Forwarded-For": "198.51.100.1:5555"}, "1", "198.51.100.1"),
    ],
)
def test_caller_address(monkeypatch, headers, hops, expected):
    monkeypatch.delenv("FUNCTIONS_EMULATOR", raising=False)
    monkeypatch.setenv("IDENTITY_TRUSTED_PROXY_HOPS", hops)
    with flask.Flask("probe").test_request_context(headers=headers, environ_base={"REMOTE_ADDR": "127.0.0.9"}):
        assert origin.caller_address() == expected


def test_under_the_emulators_no_forwarded_entry_is_trusted(monkeypatch):
    """Nothing in the local stack appends to X-Forwarded-For: every entry there is the caller's own."""
    monkeypatch.setenv("FUNCTIONS_EMULATOR", "true")
    monkeypatch.setenv("IDENTITY_TRUSTED_PROXY_HOPS", "1")
    headers = {"X-Forwarded-For": "6.6.6.6, 198.51.100.1"}
    with flask.Flask("probe").test_request_context(headers=headers, environ_base={"REMOTE_ADDR": "127.0.0.9"}):
        assert origin.caller_address() == "127.0.0.9"


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("203.0.113.5", "203.0.113.5"),
        ("2001:db8::1", "2001:db8::/64"),
        ("2001:0db8:0000:0000:ffff:0000:0000:0001", "2001:db8::/64"),
        ("2001:db8:0:1::1", "2001:db8:0:1::/64"),
        ("::ffff:203.0.113.5", "203.0.113.5"),
        ("fe80::1%eth0", "fe80::/64"),
        ("unknown", "unknown"),
        ("x" * 500, "x" * 64),
    ],
)
def test_caller_network(address, network):
    assert ratelimit.caller_network(address) == network


@pytest.mark.parametrize(
    ("host", "normalized"),
    [
        ("App.Example.TEST", "app.example.test"),
        ("app.example.test:5000", "app.example.test"),
        ("app.example.test.", "app.example.test"),
        ("app.example.test, proxy.internal", "app.example.test"),
        ("127.0.0.1:5000", "127.0.0.1"),
        ("localhost", "localhost"),
        ("a" * 63 + ".example.test", "a" * 63 + ".example.test"),
        ("__x__", None), ("a..b", None), (".", None), ("", None), (None, None), ("-a.test", None),
        ("a-.test", None), ("a_b.test", None), ("a/b", None), ("a" * 64 + ".test", None),
        (".".join(["a" * 63] * 4), None), ("host:port", None), ("host:", None), ("[::1]:5000", None),
        ("\u00e9.test", None), ("a b.test", None), ("x" * 100_000, None),
    ],
)
def test_normalize_host_validates_before_any_lookup(host, normalized):
    assert tenancy.normalize_host(host) == normalized


@pytest.mark.parametrize(
    ("headers", "host"),
    [
        ({"Host": "app.example.test"}, "app.example.test"),
        ({"Host": "fn.local", "X-Forwarded-Host": "app.example.test"}, "app.example.test"),
        ({"Host": "app.example.test", "X-Forwarded-Host": ""}, "app.example.test"),
    ],
)
def test_request_host_prefers_x_forwarded_host(headers, host):
    with flask.Flask("probe").test_request_context(headers=headers):
        assert origin.request_host() == host


def test_toolkit_url_and_error_codes(monkeypatch):
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
    monkeypatch.delenv("IDENTITY_TOOLKIT_URL", raising=False)
    assert toolkit.base_url() == "http://127.0.0.1:9099/identitytoolkit.googleapis.com"
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST")
    assert toolkit.base_url() == "https://identitytoolkit.googleapis.com"
    monkeypatch.delenv("IDENTITY_WEB_API_KEY", raising=False)
    with pytest.raises(toolkit.ToolkitUnavailable, match="IDENTITY_WEB_API_KEY"):
        toolkit.verify_password("a@b.c", "p")
    monkeypatch.setenv("IDENTITY_TOOLKIT_URL", "https://proxy.example.test/itk/")
    assert toolkit.base_url() == "https://proxy.example.test/itk"

    class Reply:
        def __init__(self, status, body):
            self.status_code, self._body = status, body

        def json(self):
            if isinstance(self._body, Exception):
                raise self._body
            return self._body

    assert toolkit._error_code(Reply(400, {"error": {"message": "INVALID_PASSWORD"}})) == "INVALID_PASSWORD"
    assert toolkit._error_code(Reply(400, {"error": {"message": "TOO_MANY_ATTEMPTS_TRY_LATER : Access"}})) == (
        "TOO_MANY_ATTEMPTS_TRY_LATER")
    assert toolkit._error_code(Reply(502, ValueError("html"))) == "HTTP 502"
