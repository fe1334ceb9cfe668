"""POST /api/auth/set-claims (4.2, 7.2) and invitations (`platformctl user invite`)."""

import uuid

import pytest

from tests.conftest import sign_in
from tests.identity.conftest import claims_of, sign_up, verify_email
from wellness_api.core import firebase, tenancy, users
from wellness_api.identity import members
from wellness_api.identity import repository as repo

PATH = "/api/auth/set-claims"
PROFILE_FIELDS = {"uid", "email", "displayName", "photoURL", "emailVerified", "disabled"}


def test_claims_are_rebuilt_from_the_client_record(idp, tenant):
    tenancy.user_ref(tenant.client_id, tenant.player.uid).update({"role": "admin"})
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": tenant.player.token})
    assert response.status_code == 200, response.json
    assert response.json["success"] is True
    assert response.json["claims"] == {"clientId": tenant.client_id, "role": "admin"}
    user = response.json["user"]
    assert set(user) == PROFILE_FIELDS
    assert user["uid"] == tenant.player.uid and user["email"] == tenant.player.email
    assert user["disabled"] is False
    # The next ID token carries them.
    assert claims_of(sign_in(tenant.player.email, tenant.player.password))["role"] == "admin"


def test_operator_admin_gets_platform_admin(idp, platform_admin):
    response = idp.post(PATH, json={"clientId": platform_admin.client_id, "idToken": platform_admin.token})
    assert response.json["claims"] == {"clientId": platform_admin.client_id, "role": "admin", "platformAdmin": True}


def test_member_of_another_client_is_client_user_not_found(idp, tenant, other_tenant):
    response = idp.post(PATH, json={"clientId": other_tenant.client_id, "idToken": tenant.admin.token})
    assert response.status_code == 404 and response.json == {"error": "Client user not found"}
    # The caller's own claims are untouched.
    assert claims_of(sign_in(tenant.admin.email, tenant.admin.password))["clientId"] == tenant.client_id


@pytest.mark.parametrize("client_id", ["no-such-client", "a/b", "../x"])
def test_unknown_client_is_client_user_not_found(idp, tenant, client_id):
    response = idp.post(PATH, json={"clientId": client_id, "idToken": tenant.player.token})
    assert response.status_code == 404 and response.json == {"error": "Client user not found"}


def test_record_without_usable_data_is_client_user_data_missing(idp, tenant):
    tenancy.user_ref(tenant.client_id, tenant.player.uid).set({"uid": tenant.player.uid})
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": tenant.player.token})
    assert response.status_code == 404 and response.json == {"error": "Client user data missing"}


def test_disabled_member_loses_the_clients_claims(idp, tenant):
    token = tenant.player.token
    tenancy.user_ref(tenant.client_id, tenant.player.uid).update({"status": "disabled"})
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": token})
    assert response.status_code == 200 and response.json["claims"] == {}
    assert firebase.auth().get_user(tenant.player.uid, app=firebase.app()).custom_claims in (None, {})
    assert tenancy.user_ref(tenant.client_id, tenant.player.uid).get().get("status") == "disabled"


def test_disabled_account_token_is_invalid(idp, tenant):
    token = tenant.player.token
    users.disable_user(tenant.client, tenant.player.uid)
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": token})
    assert response.status_code == 401 and response.json == {"error": "Invalid idToken"}


@pytest.mark.parametrize("token", ["garbage", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "a" * 5000])
def test_invalid_token_is_401(idp, tenant, token):
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": token})
    assert response.status_code == 401 and response.json == {"error": "Invalid idToken"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"idToken": "t"}, "Missing clientId"),
        ({"clientId": "", "idToken": "t"}, "Missing clientId"),
        ({"clientId": 7, "idToken": "t"}, "Missing clientId"),
        ({"clientId": "c"}, "Missing idToken"),
        ({"clientId": "c", "idToken": ""}, "Missing idToken"),
        ({"clientId": "c", "idToken": ["t"]}, "Missing idToken"),
        ({"clientId": "c", "idToken": "t", "role": "admin"}, "Missing clientId"),
        ({"clientId": "c", "idToken": "t", "claims": {"role": "admin"}}, "Missing clientId"),
        ({}, "Missing clientId"),
    ],
)
def test_bad_bodies_are_400(idp, body, message):
    response = idp.post(PATH, json=body)
    assert response.status_code == 400 and response.json == {"error": message}


@pytest.mark.parametrize("data", [b"{", b"[]", b"", b"null", b"x" * 40000])
def test_malformed_or_oversized_bodies_are_400(idp, data):
    response = idp.post(PATH, data=data, content_type="application/json")
    assert response.status_code == 400 and response.json == {"error": "Missing clientId"}


@pytest.mark.parametrize("data", [b"[" * 1000 + b"]" * 1000, b'{"clientId": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001])
def test_deeply_nested_bodies_are_400_missing_client_id(idp, data):
    response = idp.post(PATH, data=data, content_type="application/json")
    assert response.status_code == 400 and response.json == {"error": "Missing clientId"}


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_json_is_415(idp, tenant, content_type):
    """7.2's two 400 messages name a missing field, which would be untrue here: like every JSON endpoint,
    set-claims answers a body in another media type 415 (and changes nothing)."""
    import json

    data = json.dumps({"clientId": tenant.client_id, "idToken": tenant.admin.token})
    response = idp.post(PATH, data=data, headers={"Content-Type": content_type} if content_type else {})
    assert response.status_code == 415
    assert response.json == {"error": "Content-Type must be application/json."}
    ok = idp.post(PATH, data=data, headers={"Content-Type": "application/json; charset=utf-8"})
    assert ok.status_code == 200


def test_unknown_fields_are_refused_even_with_a_valid_token(idp, tenant):
    body = {"clientId": tenant.client_id, "idToken": tenant.player.token, "role": "admin"}
    response = idp.post(PATH, json=body)
    assert response.status_code == 400
    assert tenancy.user_ref(tenant.client_id, tenant.player.uid).get().get("role") == "player"


# -------------------------------------------------------------------------------------- invitations


def invitee_email(tenant) -> str:
    return f"Invitee-{uuid.uuid4().hex[:8]}@{tenant.client_id}.test"


def test_invited_email_becomes_an_active_member_when_it_signs_in_verified(idp, tenant):
    email = invitee_email(tenant)
    assert members.invite(tenant.client, email, "admin") == {
        "email": email.lower(), "clientId": tenant.client_id, "role": "admin", "status": "invited"}
    token = sign_up(email.lower(), "invitee-pass-1")
    verify_email(token)
    token = sign_in(email.lower(), "invitee-pass-1")
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": token})
    assert response.status_code == 200, response.json
    assert response.json["claims"] == {"clientId": tenant.client_id, "role": "admin"}
    assert response.json["user"]["email"] == email.lower() and response.json["user"]["emailVerified"] is True
    uid = response.json["user"]["uid"]
    record = tenancy.user_ref(tenant.client_id, uid).get().to_dict()
    assert record["status"] == "active" and record["role"] == "admin" and record["source"] == "invitation"
    assert not repo.invite_ref(tenant.client_id, email.lower()).get().exists
    # Signing in again changes nothing.
    again = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": token})
    assert again.status_code == 200 and again.json["claims"]["role"] == "admin"


def test_unverified_email_does_not_claim_an_invitation(idp, tenant):
    email = invitee_email(tenant).lower()
    members.invite(tenant.client, email, "admin")
    token = sign_up(email, "squatter-pass-1")  # anyone can register any address
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": token})
    assert response.status_code == 404 and response.json == {"error": "Client user not found"}
    assert repo.invite_ref(tenant.client_id, email).get().get("status") == "invited"


def test_invitation_of_another_client_is_not_activated_here(idp, tenant, other_tenant):
    email = invitee_email(tenant).lower()
    members.invite(other_tenant.client, email, "player")
    token = sign_up(email, "invitee-pass-2")
    verify_email(token)
    response = idp.post(PATH, json={"clientId": tenant.client_id, "idToken": sign_in(email, "invitee-pass-2")})
    assert response.status_code == 404


def test_invite_rules(tenant):
    email = invitee_email(tenant)
    members.invite(tenant.client, email, "player")
    assert members.invite(tenant.client, email.upper(), "player")["status"] == "invited"  # idempotent
    with pytest.raises(members.InviteError, match="already invited"):
        members.invite(tenant.client, email, "admin")
    with pytest.raises(members.InviteError, match="already a member"):
        members.invite(tenant.client, tenant.player.email, "player")
    with pytest.raises(members.InviteError, match="not an email"):
        members.invite(tenant.client, "not-an-email", "player")
    with pytest.raises(members.InviteError, match="role"):
        members.invite(tenant.client, "x@y.test", "guest")
