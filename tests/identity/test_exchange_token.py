"""POST /api/auth/exchange-token (4.2, 7.2, CONTRACT 5): ID token + host -> custom token with full claims."""

import uuid

import pytest

from tests.conftest import bearer
from tests.identity.conftest import claims_of, redeem
from wellness_api.core import firebase, tenancy, users

PATH = "/api/auth/exchange-token"


@pytest.fixture
def hosted(make_tenant):
    host = f"app-{uuid.uuid4().hex[:8]}.example.test"
    tenant = make_tenant(hostnames=[host])
    tenant.host = host
    return tenant


def host_headers(host: str, token: str | None = None, forwarded: bool = True) -> dict:
    headers = {"X-Forwarded-Host": host} if forwarded else {"Host": host}
    return {**headers, **(bearer(token) if token else {})}


def test_exchange_gives_a_custom_token_with_the_members_full_claims(idp, hosted):
    response = idp.post(PATH, headers=host_headers(hosted.host, hosted.admin.token))
    assert response.status_code == 200, response.json
    assert set(response.json) == {"customToken"}
    claims = claims_of(redeem(response.json["customToken"]))
    assert claims["uid"] == hosted.admin.uid
    assert claims["clientId"] == hosted.client_id and claims["role"] == "admin"


def test_host_header_is_used_without_x_forwarded_host_and_forwarded_host_wins(idp, hosted, make_tenant):
    direct = idp.post(PATH, headers=host_headers(hosted.host.upper() + ":443", hosted.player.token, forwarded=False))
    assert direct.status_code == 200
    other_host = f"other-{uuid.uuid4().hex[:8]}.example.test"
    make_tenant(hostnames=[other_host])
    # Hosting forwards the caller's host; the function's own Host header must not decide the client.
    both = idp.post(PATH, headers={"Host": hosted.host, "X-Forwarded-Host": other_host, **bearer(hosted.player.token)})
    assert both.status_code == 404 and both.json == {"error": "Client user not found"}


def test_claims_come_from_current_client_data_not_from_the_token(idp, hosted):
    token = hosted.player.token  # minted while the member was a player
    tenancy.user_ref(hosted.client_id, hosted.player.uid).update({"role": "admin"})
    response = idp.post(PATH, headers=host_headers(hosted.host, token))
    assert claims_of(redeem(response.json["customToken"]))["role"] == "admin"


def test_another_clients_user_on_this_host_is_client_user_not_found(idp, hosted, other_tenant):
    response = idp.post(PATH, headers=host_headers(hosted.host, other_tenant.admin.token))
    assert response.status_code == 404
    assert response.json == {"error": "Client user not found"}


def test_unregistered_host_is_client_user_not_found(idp, hosted):
    response = idp.post(PATH, headers=host_headers("unknown.example.test", hosted.player.token))
    assert response.status_code == 404 and response.json == {"error": "Client user not found"}


INVALID_HOSTS = ["__x__", "__x__.example.test", "a..b", ".", "-a.example.test", "a_b.example.test",
                 "a/b", "x" * 254, ("a" * 64) + ".example.test", "host:port", "host:99999999", "\u00e9.example.test",
                 "a b.example.test", "x" * 5000]


@pytest.mark.parametrize("host", INVALID_HOSTS)
def test_an_invalid_host_is_an_unregistered_host_never_a_500(idp, hosted, host):
    """X-Forwarded-Host: __x__ was looked up as a Firestore document id (reserved): 500."""
    response = idp.post(PATH, headers={"X-Forwarded-Host": host, **bearer(hosted.player.token)})
    assert response.status_code == 404 and response.json == {"error": "Client user not found"}


def test_a_host_with_port_or_trailing_dot_is_the_registered_host(idp, hosted):
    for host in (f"{hosted.host}:5000", f"{hosted.host}.", hosted.host.upper()):
        assert idp.post(PATH, headers=host_headers(host, hosted.player.token)).status_code == 200, host


@pytest.mark.parametrize("header", [None, "Bearer", "Token abc", "Bearer a b"])
def test_missing_authorization_is_401(idp, hosted, header):
    headers = {"X-Forwarded-Host": hosted.host, **({"Authorization": header} if header is not None else {})}
    response = idp.post(PATH, headers=headers)
    assert response.status_code == 401
    assert response.json == {"error": "Missing or invalid Authorization header"}


@pytest.mark.parametrize("token", ["not-a-jwt", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."])
def test_invalid_token_is_401(idp, hosted, token):
    response = idp.post(PATH, headers=host_headers(hosted.host, token))
    assert response.status_code == 401
    assert response.json == {"error": "Invalid or expired token"}


def test_a_custom_token_is_not_a_bearer_token(idp, hosted):
    custom = idp.post(PATH, headers=host_headers(hosted.host, hosted.player.token)).json["customToken"]
    response = idp.post(PATH, headers=host_headers(hosted.host, custom))
    assert response.status_code == 401 and response.json == {"error": "Invalid or expired token"}


def test_disabled_member_cannot_exchange(idp, hosted):
    token = hosted.player.token
    tenancy.user_ref(hosted.client_id, hosted.player.uid).update({"status": "disabled"})
    response = idp.post(PATH, headers=host_headers(hosted.host, token))
    assert response.status_code == 401 and response.json == {"error": "Invalid or expired token"}
    users.disable_user(hosted.client, hosted.player.uid)  # Auth account disabled too: token revoked
    response = idp.post(PATH, headers=host_headers(hosted.host, token))
    assert response.status_code == 401 and response.json == {"error": "Invalid or expired token"}
    assert firebase.auth().get_user(hosted.player.uid, app=firebase.app()).disabled is True


def test_body_is_ignored_and_get_is_405(idp, hosted):
    response = idp.post(PATH, data=b"{not json", headers=host_headers(hosted.host, hosted.player.token),
                        content_type="application/json")
    assert response.status_code == 200
    # It takes no body, so a body's Content-Type does not matter either.
    response = idp.post(PATH, data=b"[" * 1000, headers=host_headers(hosted.host, hosted.player.token),
                        content_type="text/plain")
    assert response.status_code == 200
    assert idp.get(PATH).status_code == 405
