"""POST /api/auth/custom-token (4.2, 7.1, part 5, 9.3) through the Flask app against the emulators."""

import datetime as dt
import threading

import pytest
import requests
from google.cloud.firestore import FieldFilter

from support.firestore_ops import counting
from tests.identity.conftest import (
    auth_users_with_uid,
    claims_of,
    external,
    fresh_window,
    key_headers,
    new_external_id,
    redeem,
    server_key,
)
from wellness_api.api_keys import service as api_keys
from wellness_api.core import clock, firebase, server_keys, tenancy, users
from wellness_api.identity.custom_token import external_uid

PATH = "/api/auth/custom-token"
PROFILE_FIELDS = {"uid", "email", "displayName", "photoURL", "emailVerified", "disabled"}


def members_with_external_id(client_id: str, external_id: str) -> int:
    query = tenancy.client_ref(client_id).collection("users").where(filter=FieldFilter("externalUserId", "==", external_id))
    return len(list(query.stream()))


def assert_error(response, status: int, code: str):
    assert response.status_code == status, response.json
    assert set(response.json) == {"code", "error"}, response.json
    assert response.json["code"] == code
    assert isinstance(response.json["error"], str) and response.json["error"]


@pytest.fixture
def jit_tenant(tenant):
    tenant.configure("auth.externalUser=jit")
    tenant.key = server_key(tenant)
    return tenant


# ------------------------------------------------------------------------------------ external_user


def test_jit_creates_a_minimum_active_player_whose_token_signs_in(ct, jit_tenant):
    external_id = new_external_id()
    response = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
    assert response.status_code == 200, response.json
    assert set(response.json) == {"customToken", "user"}
    user = response.json["user"]
    assert set(user) == PROFILE_FIELDS
    assert user["uid"] == external_uid(jit_tenant.client_id, external_id)
    assert user["email"] is None and user["displayName"] is None and user["photoURL"] is None
    assert user["emailVerified"] is False and user["disabled"] is False

    record = tenancy.user_ref(jit_tenant.client_id, user["uid"]).get().to_dict()
    assert record["role"] == "player" and record["status"] == "active"
    assert record["externalUserId"] == external_id and record["email"] is None

    claims = claims_of(redeem(response.json["customToken"]))
    assert claims["uid"] == user["uid"]
    assert claims["clientId"] == jit_tenant.client_id and claims["role"] == "player"
    assert "platformAdmin" not in claims


def test_same_external_id_is_the_same_user_and_ids_are_case_sensitive(ct, jit_tenant):
    external_id = new_external_id()
    first = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).json["user"]["uid"]
    again = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).json["user"]["uid"]
    other_case = ct.post(PATH, json=external(external_id.lower()), headers=key_headers(jit_tenant.key))
    assert first == again
    assert other_case.status_code == 200 and other_case.json["user"]["uid"] != first


def test_another_clients_key_never_yields_the_same_uid(ct, jit_tenant, make_tenant):
    other = make_tenant()
    other.configure("auth.externalUser=jit")
    external_id = new_external_id()
    mine = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).json
    theirs = ct.post(PATH, json=external(external_id), headers=key_headers(server_key(other))).json
    assert mine["user"]["uid"] != theirs["user"]["uid"]
    assert claims_of(redeem(theirs["customToken"]))["clientId"] == other.client_id
    # Each client holds only its own record.
    assert tenancy.user_ref(other.client_id, mine["user"]["uid"]).get().exists is False


def test_racing_requests_for_a_new_id_create_exactly_one_user(jit_tenant):
    from wellness_api.identity.routes import custom_token_app

    external_id = new_external_id()
    results, barrier = [], threading.Barrier(8)

    def call():
        client = custom_token_app.test_client()
        barrier.wait()
        response = client.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
        results.append((response.status_code, response.json))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [status for status, _ in results] == [200] * 8, results
    uids = {body["user"]["uid"] for _, body in results}
    assert uids == {external_uid(jit_tenant.client_id, external_id)}
    assert members_with_external_id(jit_tenant.client_id, external_id) == 1
    assert auth_users_with_uid(uids.pop()) == 1


def test_existing_only_refuses_unknown_users_and_signs_in_known_ones(ct, jit_tenant):
    known = new_external_id()
    assert ct.post(PATH, json=external(known), headers=key_headers(jit_tenant.key)).status_code == 200
    jit_tenant.configure("auth.externalUser=existingOnly")
    assert ct.post(PATH, json=external(known), headers=key_headers(jit_tenant.key)).status_code == 200
    unknown = new_external_id()
    refused = ct.post(PATH, json=external(unknown), headers=key_headers(jit_tenant.key))
    assert_error(refused, 403, "jit_provisioning_disabled")
    assert not tenancy.user_ref(jit_tenant.client_id, external_uid(jit_tenant.client_id, unknown)).get().exists
    assert auth_users_with_uid(external_uid(jit_tenant.client_id, unknown)) == 0


def test_existing_only_with_half_a_user_is_user_not_found(ct, jit_tenant):
    jit_tenant.configure("auth.externalUser=existingOnly")
    external_id = new_external_id()
    uid = external_uid(jit_tenant.client_id, external_id)
    firebase.auth().create_user(uid=uid, app=firebase.app())  # Auth identity without a client user
    assert_error(ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)), 404, "user_not_found")


def test_off_is_external_sso_disabled(ct, tenant):
    key = server_key(tenant)  # auth.externalUser defaults to off
    assert_error(ct.post(PATH, json=external(new_external_id()), headers=key_headers(key)), 403, "external_sso_disabled")


@pytest.mark.parametrize("header", [None, "Bearer wsk_" + "x" * 43, "Bearer nonsense", "Basic abc", "Bearer "])
def test_missing_or_invalid_key_is_invalid_credentials(ct, jit_tenant, header):
    headers = {"Authorization": header} if header is not None else {}
    assert_error(ct.post(PATH, json=external(new_external_id()), headers=headers), 401, "invalid_credentials")


def test_revoked_key_is_invalid_credentials(ct, jit_tenant):
    replacement = server_key(jit_tenant)
    api_keys.revoke_key(jit_tenant.client_id, server_keys.authenticate(jit_tenant.key).key_id)
    assert_error(ct.post(PATH, json=external(new_external_id()), headers=key_headers(jit_tenant.key)),
                 401, "invalid_credentials")
    assert ct.post(PATH, json=external(new_external_id()), headers=key_headers(replacement)).status_code == 200


def test_disabled_external_user_is_never_reactivated(ct, jit_tenant):
    external_id = new_external_id()
    uid = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).json["user"]["uid"]
    users.disable_user(jit_tenant.client, uid)
    refused = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
    assert_error(refused, 403, "user_disabled")
    assert tenancy.user_ref(jit_tenant.client_id, uid).get().get("status") == "disabled"
    assert firebase.auth().get_user(uid, app=firebase.app()).disabled is True


def test_inactive_record_or_disabled_auth_account_alone_is_user_disabled(ct, jit_tenant):
    a, b = new_external_id(), new_external_id()
    uid_a = ct.post(PATH, json=external(a), headers=key_headers(jit_tenant.key)).json["user"]["uid"]
    uid_b = ct.post(PATH, json=external(b), headers=key_headers(jit_tenant.key)).json["user"]["uid"]
    tenancy.user_ref(jit_tenant.client_id, uid_a).update({"status": "disabled"})
    firebase.auth().update_user(uid_b, disabled=True, app=firebase.app())
    assert_error(ct.post(PATH, json=external(a), headers=key_headers(jit_tenant.key)), 403, "user_disabled")
    assert_error(ct.post(PATH, json=external(b), headers=key_headers(jit_tenant.key)), 403, "user_disabled")
    assert tenancy.user_ref(jit_tenant.client_id, uid_a).get().get("status") == "disabled"
    assert firebase.auth().get_user(uid_b, app=firebase.app()).disabled is True


def test_role_comes_from_the_record_never_from_the_caller(ct, jit_tenant):
    external_id = new_external_id()
    uid = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).json["user"]["uid"]
    for extra in ({"role": "admin"}, {"claims": {"role": "admin"}}, {"clientId": "operator"}, {"uid": "x"}):
        response = ct.post(PATH, json={**external(external_id), **extra}, headers=key_headers(jit_tenant.key))
        assert_error(response, 400, "invalid_request")
    # An operator promotes the member in Firestore: the next token carries the new role.
    tenancy.user_ref(jit_tenant.client_id, uid).update({"role": "admin"})
    token = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).json["customToken"]
    claims = claims_of(redeem(token))
    assert claims["role"] == "admin" and claims["clientId"] == jit_tenant.client_id


def test_partial_provisioning_is_503_and_a_retry_repairs_it_without_a_duplicate(ct, jit_tenant):
    """The Auth API fails while creating the user (a fake at its HTTP boundary): 503, then a retry."""
    fb_auth = firebase.auth()
    session = fb_auth._get_client(firebase.app())._user_manager.http_client.session
    prefix = "http://"

    class FailingCreate(requests.adapters.HTTPAdapter):
        def send(self, request, **kwargs):
            if request.method == "POST" and request.url.split("?")[0].endswith("/accounts"):
                response = requests.Response()
                response.status_code, response._content, response.url = 503, b'{"error": {"message": "UNAVAILABLE"}}', request.url
                response.request = request
                return response
            return super().send(request, **kwargs)

    original = session.adapters[prefix]
    external_id = new_external_id()
    uid = external_uid(jit_tenant.client_id, external_id)
    session.mount(prefix, FailingCreate())
    try:
        failed = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
    finally:
        session.mount(prefix, original)
    assert_error(failed, 503, "provisioning_incomplete")
    assert tenancy.user_ref(jit_tenant.client_id, uid).get().exists  # the half that was written
    assert auth_users_with_uid(uid) == 0

    retried = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
    assert retried.status_code == 200 and retried.json["user"]["uid"] == uid
    assert auth_users_with_uid(uid) == 1
    assert members_with_external_id(jit_tenant.client_id, external_id) == 1
    assert claims_of(redeem(retried.json["customToken"]))["role"] == "player"


def test_auth_user_without_record_is_repaired_under_jit(ct, jit_tenant):
    external_id = new_external_id()
    uid = external_uid(jit_tenant.client_id, external_id)
    firebase.auth().create_user(uid=uid, app=firebase.app())  # as if the record write had been lost
    response = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
    assert response.status_code == 200 and response.json["user"]["uid"] == uid
    assert tenancy.user_ref(jit_tenant.client_id, uid).get().get("status") == "active"


@pytest.mark.parametrize(
    "body",
    [
        {"grantType": "external_user"},
        {"grantType": "external_user", "externalUserId": ""},
        {"grantType": "external_user", "externalUserId": 42},
        {"grantType": "external_user", "externalUserId": " padded "},
        {"grantType": "external_user", "externalUserId": "tab\there"},
        {"grantType": "external_user", "externalUserId": "x" * 257},
        {"grantType": "external_user", "externalUserId": "a", "email": "a@b.c"},
        {"grantType": "external_user", "externalUserId": "a", "password": "p"},
        {"grantType": "external_user", "externalUserId": "a", "clientId": "c"},
        {"grantType": "external_user", "externalUserId": "a", "userId": "u"},
        {"grantType": "refresh_token"},
        {"grantType": None, "clientId": "c", "email": "a@b.c", "password": "p"},
        {"grantType": 1},
        {"grantType": "password", "externalUserId": "a"},
        {"clientId": "c", "email": "a@b.c", "password": "p", "externalUserId": "a"},
        {"clientId": "c", "email": "a@b.c"},
        {"clientId": "c", "password": "p"},
        {"email": "a@b.c", "password": "p"},
        {"clientId": 5, "email": "a@b.c", "password": "p"},
        {"clientId": "c", "email": "a@b.c", "password": "p", "role": "admin"},
        {},
    ],
)
def test_anything_but_exactly_one_grant_is_invalid_request(ct, jit_tenant, body):
    response = ct.post(PATH, json=body, headers=key_headers(jit_tenant.key))
    assert_error(response, 400, "invalid_request")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"grant_type": "external_user", "externalUserId": "a"}, "Unknown field grant_type; did you mean grantType?"),
        ({"grant_type": "password", "clientId": "c", "email": "a@b.c", "password": "p"},
         "Unknown field grant_type; did you mean grantType?"),
        ({"grantType": "external_user", "external_user_id": "a"},
         "Unknown field external_user_id; did you mean externalUserId?"),
        ({"client_id": "c", "email": "a@b.c", "password": "p"}, "Unknown field client_id; did you mean clientId?"),
        ({"clientId": "c", "Email": "a@b.c", "password": "p"}, "Unknown field Email; did you mean email?"),
        ({"GRANT-TYPE": "external_user", "externalUserId": "a"}, "Unknown field GRANT-TYPE; did you mean grantType?"),
    ],
)
def test_a_near_miss_field_is_named_before_the_grant_is_chosen(ct, jit_tenant, body, message):
    """grant_type used to fall into the password grant: 'Missing required field: clientId.'"""
    response = ct.post(PATH, json=body, headers=key_headers(jit_tenant.key))
    assert response.status_code == 400
    assert response.json == {"code": "invalid_request", "error": message}


@pytest.mark.parametrize("data", [b"{", b"[]", b"null", b"", b'"text"', "{\"a\": \"\u00e9\"".encode()])
def test_malformed_json_is_invalid_request(ct, data):
    assert_error(ct.post(PATH, data=data, content_type="application/json"), 400, "invalid_request")


@pytest.mark.parametrize("data", [b"[" * 1000 + b"]" * 1000,
                                  b'{"grantType": "external_user", "externalUserId": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001,
                                  b'{"clientId": "c", "email": "e", "password": "p", "x": ' + b"[" * 40 + b"]" * 40 + b"}"])
def test_deeply_nested_json_is_invalid_request(ct, jit_tenant, data):
    response = ct.post(PATH, data=data, content_type="application/json", headers=key_headers(jit_tenant.key))
    assert response.status_code == 400
    assert response.json == {"code": "invalid_request", "error": "Request body is nested too deeply."}


@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_json_is_415_unsupported_media_type(ct, jit_tenant, content_type):
    import json

    data = json.dumps(external(new_external_id()))
    headers = {**key_headers(jit_tenant.key), **({"Content-Type": content_type} if content_type else {})}
    response = ct.post(PATH, data=data, headers=headers)
    assert response.status_code == 415
    assert response.json == {"code": "unsupported_media_type", "error": "Content-Type must be application/json."}
    charset = ct.post(PATH, data=data, headers={**key_headers(jit_tenant.key),
                                                "Content-Type": "application/json; charset=utf-8"})
    assert charset.status_code == 200


@pytest.mark.parametrize("external_id", ["a\x85b", "a\u202eb", "a\u2066b\u2069", "a\u2028b", "a\x00b", "a\nb"])
def test_external_ids_with_control_or_bidi_override_characters_are_invalid_request(ct, jit_tenant, external_id):
    assert_error(ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)), 400, "invalid_request")


def test_oversized_body_is_invalid_request(ct, jit_tenant):
    body = external("x" * 20000)
    assert_error(ct.post(PATH, json=body, headers=key_headers(jit_tenant.key)), 400, "invalid_request")


def test_wrong_method_uses_the_coded_envelope(ct):
    response = ct.get(PATH)
    assert response.status_code == 405
    assert response.json == {"code": "method_not_allowed", "error": "Method not allowed."}


# ------------------------------------------------------------------------------------- rate limits


def test_request_rate_per_client_is_429_with_retry_after_until_the_window_ends(ct, jit_tenant, other_tenant):
    jit_tenant.configure("auth.requestsPerMinute=2")
    fresh_window()
    external_id = new_external_id()
    for _ in range(2):
        assert ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).status_code == 200
    limited = ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key))
    assert_error(limited, 429, "rate_limit_exceeded")
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    # Another client is not affected.
    other_tenant.configure("auth.externalUser=jit")
    assert ct.post(PATH, json=external(external_id), headers=key_headers(server_key(other_tenant))).status_code == 200
    clock.advance(dt.timedelta(seconds=int(limited.headers["Retry-After"])))
    assert ct.post(PATH, json=external(external_id), headers=key_headers(jit_tenant.key)).status_code == 200


def test_provisioning_rate_limits_new_users_only(ct, jit_tenant):
    jit_tenant.configure("auth.provisioningPerMinute=1")
    fresh_window()
    first = new_external_id()
    assert ct.post(PATH, json=external(first), headers=key_headers(jit_tenant.key)).status_code == 200
    second = new_external_id()
    limited = ct.post(PATH, json=external(second), headers=key_headers(jit_tenant.key))
    assert_error(limited, 429, "rate_limit_exceeded")
    assert int(limited.headers["Retry-After"]) >= 1
    assert not tenancy.user_ref(jit_tenant.client_id, external_uid(jit_tenant.client_id, second)).get().exists
    # Existing users still sign in.
    assert ct.post(PATH, json=external(first), headers=key_headers(jit_tenant.key)).status_code == 200
    clock.advance(dt.timedelta(seconds=61))
    assert ct.post(PATH, json=external(second), headers=key_headers(jit_tenant.key)).status_code == 200


# ----------------------------------------------------------------------------------------- password


def password_body(member, client_id=None, **extra) -> dict:
    return {"clientId": client_id or member.client_id, "email": member.email, "password": member.password, **extra}


@pytest.mark.parametrize("grant_type", [None, "password"])
def test_password_grant_keeps_the_profile_and_carries_the_role(ct, tenant, grant_type):
    extra = {"grantType": grant_type} if grant_type else {}
    response = ct.post(PATH, json=password_body(tenant.admin, **extra))
    assert response.status_code == 200, response.json
    user = response.json["user"]
    assert set(user) == PROFILE_FIELDS
    assert user["uid"] == tenant.admin.uid and user["email"] == tenant.admin.email
    assert user["displayName"] == f"admin of {tenant.client_id}" and user["disabled"] is False
    claims = claims_of(redeem(response.json["customToken"]))
    assert claims["uid"] == tenant.admin.uid
    assert claims["clientId"] == tenant.client_id and claims["role"] == "admin"


def test_password_grant_of_an_operator_admin_carries_platform_admin(ct, platform_admin):
    response = ct.post(PATH, json=password_body(platform_admin))
    assert response.status_code == 200
    assert claims_of(redeem(response.json["customToken"]))["platformAdmin"] is True


def test_wrong_password_and_unknown_email_are_indistinguishable(ct, tenant, recording_toolkit):
    """Same status, body and headers, the same single Identity Toolkit call, the same Firestore work."""
    outcomes = []
    for body in (
        {"clientId": tenant.client_id, "email": tenant.player.email, "password": "wrong-password"},
        {"clientId": tenant.client_id, "email": f"nobody-{tenant.client_id}@example.test", "password": "whatever"},
    ):
        before = len(recording_toolkit.calls)
        with counting() as ops:
            response = ct.post(PATH, json=body)
        assert_error(response, 401, "invalid_credentials")
        outcomes.append((response.json, sorted(k for k, _ in response.headers.items() if k.lower() != "x-request-id"),
                         recording_toolkit.calls[before:], ops.reads, ops.writes))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][2] == ["/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword"]


def test_unknown_client_and_foreign_client_are_invalid_credentials(ct, tenant, other_tenant, recording_toolkit):
    assert_error(ct.post(PATH, json=password_body(tenant.player, client_id="no-such-client")), 401,
                 "invalid_credentials")
    # Right password, but the user is not a member of the other client: no credential oracle there.
    foreign = ct.post(PATH, json=password_body(tenant.player, client_id=other_tenant.client_id))
    wrong = ct.post(PATH, json={**password_body(tenant.player, client_id=other_tenant.client_id), "password": "x"})
    assert_error(foreign, 401, "invalid_credentials")
    assert foreign.json == wrong.json
    assert len(recording_toolkit.calls) == 3  # the password was checked every time


def test_password_attempts_naming_unknown_clients_are_limited_per_caller(ct, tenant, recording_toolkit):
    """Unknown clientIds reach Identity Toolkit like known ones, so they count too: 30 a minute per caller
    for all unknown clientIds together (made-up ids do not buy more attempts); then 429 before Toolkit."""
    import concurrent.futures
    import uuid

    fresh_window()
    me = {"X-Forwarded-For": f"2001:db8::{uuid.uuid4().hex[:4]}"}
    victim = {**password_body(tenant.player), "password": "guess"}

    def attempt(i):
        client = ct.application.test_client()
        return client.post(PATH, json={**victim, "clientId": f"made-up-{i}"}, headers=me)

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        responses = list(pool.map(attempt, range(30)))
    for response in responses:
        assert_error(response, 401, "invalid_credentials")
    calls = len(recording_toolkit.calls)
    assert calls == 30
    for client_id in ("made-up-0", "another-made-up-id", "x" * 128):
        limited = ct.post(PATH, json={**victim, "clientId": client_id}, headers=me)
        assert_error(limited, 429, "rate_limit_exceeded")
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert len(recording_toolkit.calls) == calls  # refused before the password is tried
    # A known client keeps its own per-caller limit, and another caller is not affected.
    assert ct.post(PATH, json=password_body(tenant.player), headers=me).status_code == 200
    other = ct.post(PATH, json={**victim, "clientId": "made-up-0"}, headers={"X-Forwarded-For": "198.51.100.99"})
    assert_error(other, 401, "invalid_credentials")
    # The counter stores neither the address nor the made-up ids.
    docs = [snap.id for snap in firebase.db().collection("rateLimits").stream()]
    # (the whole address: a 32-hex-digit hash holds "2001" once in about 2,300 documents)
    assert not any(me["X-Forwarded-For"] in d or "made-up" in d for d in docs)


def test_disabled_password_user_is_user_disabled_and_stays_disabled(ct, tenant, other_tenant):
    users.disable_user(tenant.client, tenant.player.uid)
    assert_error(ct.post(PATH, json=password_body(tenant.player)), 403, "user_disabled")
    # Even with a wrong password; but never to another client, which learns nothing about the account.
    assert_error(ct.post(PATH, json={**password_body(tenant.player), "password": "nope"}), 403, "user_disabled")
    assert_error(ct.post(PATH, json=password_body(tenant.player, client_id=other_tenant.client_id)), 401,
                 "invalid_credentials")
    assert firebase.auth().get_user(tenant.player.uid, app=firebase.app()).disabled is True


def test_inactive_membership_is_user_disabled(ct, tenant):
    tenancy.user_ref(tenant.client_id, tenant.player.uid).update({"status": "disabled"})
    assert_error(ct.post(PATH, json=password_body(tenant.player)), 403, "user_disabled")
    assert tenancy.user_ref(tenant.client_id, tenant.player.uid).get().get("status") == "disabled"


def test_password_grant_ignores_an_authorization_header(ct, tenant, other_tenant):
    response = ct.post(PATH, json=password_body(tenant.player), headers=key_headers(server_key(other_tenant)))
    assert response.status_code == 200
    assert claims_of(redeem(response.json["customToken"]))["clientId"] == tenant.client_id


def test_password_attempts_are_limited_per_caller(ct, tenant):
    tenant.configure("auth.passwordAttemptsPerMinute=2")
    fresh_window()
    me = {"X-Forwarded-For": "198.51.100.7"}
    wrong = {**password_body(tenant.player), "password": "wrong"}
    for _ in range(2):
        assert_error(ct.post(PATH, json=wrong, headers=me), 401, "invalid_credentials")
    limited = ct.post(PATH, json=password_body(tenant.player), headers=me)
    assert_error(limited, 429, "rate_limit_exceeded")
    assert int(limited.headers["Retry-After"]) >= 1
    # Another caller is unaffected.
    assert ct.post(PATH, json=password_body(tenant.player), headers={"X-Forwarded-For": "198.51.100.8"}).status_code == 200


def test_password_failures_are_limited_per_account_whatever_the_callers(ct, tenant):
    """Many addresses used to share out the guesses at one account: 30 a minute each, no account limit."""
    tenant.configure("auth.passwordFailuresPerAccount=3")
    fresh_window(900)
    known = {"X-Forwarded-For": "198.51.100.50"}
    assert ct.post(PATH, json=password_body(tenant.player), headers=known).status_code == 200
    wrong = {**password_body(tenant.player), "password": "guess"}
    for i in range(3):
        assert_error(ct.post(PATH, json=wrong, headers={"X-Forwarded-For": f"2001:db8:{i}::1"}), 401,
                     "invalid_credentials")
    # A fourth address is refused before the password is checked, even the right one.
    for body in (wrong, password_body(tenant.player)):
        limited = ct.post(PATH, json=body, headers={"X-Forwarded-For": "203.0.113.60"})
        assert_error(limited, 429, "rate_limit_exceeded")
        assert 1 <= int(limited.headers["Retry-After"]) <= 900
    # The real user's own caller, which signed this account in before, is never refused by it.
    assert ct.post(PATH, json=password_body(tenant.player), headers=known).status_code == 200
    # Other accounts of the client are not affected.
    assert ct.post(PATH, json=password_body(tenant.admin), headers={"X-Forwarded-For": "203.0.113.60"}).status_code == 200
    # The refusal ends with its window.
    clock.advance(dt.timedelta(seconds=int(limited.headers["Retry-After"])))
    assert ct.post(PATH, json=password_body(tenant.player), headers={"X-Forwarded-For": "203.0.113.61"}).status_code == 200


def test_successful_sign_ins_do_not_count_as_account_failures(ct, tenant):
    tenant.configure("auth.passwordFailuresPerAccount=2")
    fresh_window(900)
    for i in range(4):  # each from a caller new to the account
        assert ct.post(PATH, json=password_body(tenant.player), headers={"X-Forwarded-For": f"192.0.2.{i + 1}"}
                       ).status_code == 200
    wrong = {**password_body(tenant.player), "password": "guess"}
    for i in range(2):
        assert_error(ct.post(PATH, json=wrong, headers={"X-Forwarded-For": f"192.0.2.{i + 10}"}), 401,
                     "invalid_credentials")
    assert_error(ct.post(PATH, json=wrong, headers={"X-Forwarded-For": "192.0.2.20"}), 429, "rate_limit_exceeded")


def test_racing_failures_cannot_exceed_the_account_limit(ct, tenant, recording_toolkit):
    """The hit is taken before the password is checked: 12 racing guesses from 12 addresses, limit 5."""
    import concurrent.futures

    tenant.configure("auth.passwordFailuresPerAccount=5")
    fresh_window(900)
    wrong = {**password_body(tenant.player), "password": "guess"}

    def attempt(i):
        return ct.application.test_client().post(PATH, json=wrong, headers={"X-Forwarded-For": f"203.0.113.{i + 1}"})

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        statuses = sorted(r.status_code for r in pool.map(attempt, range(12)))
    assert statuses == [401] * 5 + [429] * 7
    assert len(recording_toolkit.calls) == 5


def test_the_account_limit_is_a_bounded_setting(tenant):
    with pytest.raises(Exception, match="at most 1000"):
        tenant.configure("auth.passwordFailuresPerAccount=1001")
