"""Identity through Hosting, as a partner backend and an app call it: custom tokens redeemed at the Auth
emulator, host-mapped exchange and guest tokens, set-claims after an invitation, and the emulator log
searched for every secret the flow used."""

import os
import pathlib
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.conftest import bearer, sign_in
from tests.identity.conftest import claims_of, redeem, server_key, sign_up, verify_email
from tests.ops.test_cli import ROOT, run_json

CUSTOM = "/api/auth/custom-token"


def log_path() -> pathlib.Path:
    offset = int(os.environ.get("DEVSTACK_PORT_OFFSET") or 0)
    return ROOT / ".devstack" / (f"logs-offset{offset}" if offset else "logs") / "emulators.log"


def wait_for_log(request_ids: list[str], timeout: float = 15.0) -> str:
    """The emulator log once it holds the access-log lines of these requests."""
    deadline = time.monotonic() + timeout
    while True:
        text = log_path().read_text(errors="replace")
        if all(rid in text for rid in request_ids) or time.monotonic() > deadline:
            return text
        time.sleep(0.2)


@pytest.fixture
def partner(make_tenant):
    host = f"e2e-{uuid.uuid4().hex[:8]}.localhost"
    tenant = make_tenant(hostnames=[host])
    tenant.configure("auth.externalUser=jit", "auth.guestSignIn=true")
    tenant.host = host
    tenant.key = server_key(tenant)
    return tenant


def test_partner_backend_signs_users_in_with_both_grants(api, partner, other_tenant):
    external_id = f"crm-{uuid.uuid4().hex[:8]}"
    body = {"grantType": "external_user", "externalUserId": external_id}
    with ThreadPoolExecutor(4) as pool:  # a new user's first sign-ins racing each other
        responses = list(pool.map(lambda _: api("POST", CUSTOM, json=body, headers=bearer(partner.key)), range(4)))
    assert [r.status_code for r in responses] == [200] * 4
    assert len({r.json()["user"]["uid"] for r in responses}) == 1
    claims = claims_of(redeem(responses[0].json()["customToken"]))
    assert claims["clientId"] == partner.client_id and claims["role"] == "player"

    password = api("POST", CUSTOM, json={"clientId": partner.client_id, "email": partner.admin.email,
                                         "password": partner.admin.password})
    assert password.status_code == 200
    assert password.json()["user"]["email"] == partner.admin.email
    assert claims_of(redeem(password.json()["customToken"]))["role"] == "admin"

    # 7.1 through Hosting: the coded envelope every time.
    cases = [
        (dict(json={"grantType": "external_user", "externalUserId": "x", "role": "admin"}, headers=bearer(partner.key)),
         400, "invalid_request"),
        (dict(data=b"{", headers={"Content-Type": "application/json"}), 400, "invalid_request"),
        (dict(json=body, headers=bearer(partner.key[:-3] + "zzz")), 401, "invalid_credentials"),
        (dict(json=body), 401, "invalid_credentials"),
        (dict(json=body, headers=bearer(server_key(other_tenant))), 403, "external_sso_disabled"),
        (dict(json={"clientId": partner.client_id, "email": partner.admin.email, "password": "wrong"}), 401,
         "invalid_credentials"),
        (dict(json={"clientId": partner.client_id, "email": "nobody@nowhere.test", "password": "wrong"}), 401,
         "invalid_credentials"),
        (dict(json={"clientId": other_tenant.client_id, "email": partner.admin.email,
                    "password": partner.admin.password}), 401, "invalid_credentials"),
    ]
    for kwargs, status, code in cases:
        response = api("POST", CUSTOM, **kwargs)
        assert response.status_code == status, (kwargs, response.text)
        assert set(response.json()) == {"code", "error"} and response.json()["code"] == code


def test_rate_limit_through_hosting_has_retry_after(api, partner):
    run_json("client", "configure", "--client-id", partner.client_id, "--set", "auth.requestsPerMinute=2")
    body = {"grantType": "external_user", "externalUserId": "rate-probe"}
    statuses = []
    for _ in range(5):  # at most one window boundary can fall inside five quick calls
        response = api("POST", CUSTOM, json=body, headers=bearer(partner.key))
        statuses.append(response.status_code)
        if response.status_code == 429:
            break
    assert statuses[-1] == 429, statuses
    assert response.json()["code"] == "rate_limit_exceeded" and 1 <= int(response.headers["Retry-After"]) <= 60


def test_app_exchanges_and_guests_by_host(api, partner):
    token = sign_in(partner.player.email, partner.player.password)
    exchanged = api("POST", "/api/auth/exchange-token", headers={"Host": partner.host, **bearer(token)})
    assert exchanged.status_code == 200, exchanged.text
    claims = claims_of(redeem(exchanged.json()["customToken"]))
    assert claims["uid"] == partner.player.uid and claims["clientId"] == partner.client_id

    assert api("POST", "/api/auth/exchange-token", headers={"Host": partner.host}).json() == {
        "error": "Missing or invalid Authorization header"}
    assert api("POST", "/api/auth/exchange-token", headers={"Host": partner.host, **bearer("x.y.z")}).json() == {
        "error": "Invalid or expired token"}
    unknown = api("POST", "/api/auth/exchange-token", headers={"Host": "unknown.localhost", **bearer(token)})
    assert unknown.status_code == 404 and unknown.json() == {"error": "Client user not found"}

    guest = api("POST", "/api/auth/guest-custom-token", headers={"Host": partner.host})
    assert guest.status_code == 200
    guest_claims = claims_of(redeem(guest.json()["customToken"]))
    assert guest_claims["role"] == "guest" and guest_claims["clientId"] == partner.client_id
    missing = api("POST", "/api/auth/guest-custom-token", headers={"Host": "unknown.localhost"})
    assert missing.status_code == 500 and missing.json() == {"error": "Client ID not found"}

    run_json("client", "configure", "--client-id", partner.client_id, "--set", "auth.guestAttemptsPerMinute=2")
    me = {"Host": partner.host, "X-Forwarded-For": f"192.0.2.{uuid.uuid4().int % 250 + 1}"}
    for _ in range(5):
        limited = api("POST", "/api/auth/guest-custom-token", headers=me)
        if limited.status_code == 429:
            break
    assert limited.status_code == 429 and set(limited.json()) == {"error", "retryAfterSeconds"}
    run_json("client", "configure", "--client-id", partner.client_id, "--set", "auth.guestSignIn=false")
    refused = api("POST", "/api/auth/guest-custom-token", headers={"Host": partner.host})
    assert refused.status_code == 403 and set(refused.json()) == {"error"}


def test_a_forged_x_forwarded_for_through_hosting_is_not_a_new_caller(api, partner):
    """Hosting (the emulator as production) passes the caller's X-Forwarded-For on: the entries a caller
    writes must not name the caller the limits count. The emulator appends nothing, so there the caller
    is the socket peer, whatever the header says; each request below claims another address (IPv4,
    other IPv6 /64s, a chain) and the third is refused all the same."""
    run_json("client", "configure", "--client-id", partner.client_id, "--set", "auth.guestAttemptsPerMinute=2")
    forged = ["198.51.100.1", "198.51.100.2", "2001:db8:1::1", "2001:db8:2::1", "6.6.6.6, 198.51.100.3",
              "::ffff:198.51.100.4"]
    statuses = []
    for address in forged:  # at most one window boundary can fall inside six quick calls
        response = api("POST", "/api/auth/guest-custom-token", headers={"Host": partner.host, "X-Forwarded-For": address})
        statuses.append(response.status_code)
        if response.status_code == 429:
            break
    assert statuses[-1] == 429, statuses
    assert set(response.json()) == {"error", "retryAfterSeconds"}


def functions_url(function: str, path: str) -> str:
    """The function's own URL on the Functions emulator (not through Hosting), from the emulator hub."""
    hub = os.environ["FIREBASE_EMULATOR_HUB"]
    info = requests.get(f"http://{hub}/emulators", timeout=10).json()["functions"]
    project = os.environ.get("GCLOUD_PROJECT", "demo-wellness")
    return f"http://{info['host']}:{info['port']}/{project}/us-central1/{function}{path}"


@pytest.mark.parametrize("host", ["__x__", "a..b", "x" * 300, "a_b.localhost"])
def test_an_invalid_forwarded_host_on_the_function_url_is_an_unknown_host(partner, host):
    """X-Forwarded-Host: __x__ sent to the function directly made exchange-token a 500 (the hostname
    lookup); now every host from a header is validated first and is just an unregistered host."""
    token = sign_in(partner.player.email, partner.player.password)
    exchanged = requests.post(functions_url("identity", "/api/auth/exchange-token"),
                              headers={"X-Forwarded-Host": host, **bearer(token)}, timeout=30)
    assert exchanged.status_code == 404 and exchanged.json() == {"error": "Client user not found"}
    guest = requests.post(functions_url("identity", "/api/auth/guest-custom-token"),
                          headers={"X-Forwarded-Host": host}, timeout=30)
    assert guest.status_code == 500 and guest.json() == {"error": "Client ID not found"}


def test_invited_admin_activates_with_set_claims(api, partner):
    email = f"coach-{uuid.uuid4().hex[:8]}@example.test"
    invited = run_json("user", "invite", "--client-id", partner.client_id, "--email", email, "--role", "admin")
    assert invited == {"email": email, "clientId": partner.client_id, "role": "admin", "status": "invited"}
    verify_email(sign_up(email, "coach-pass-123"))
    token = sign_in(email, "coach-pass-123")
    response = api("POST", "/api/auth/set-claims", json={"clientId": partner.client_id, "idToken": token})
    assert response.status_code == 200, response.text
    assert response.json()["claims"] == {"clientId": partner.client_id, "role": "admin"}
    assert claims_of(sign_in(email, "coach-pass-123"))["role"] == "admin"
    # The activated admin now manages the client's keys.
    keys = api("GET", f"/api/clients/{partner.client_id}/api-keys", headers=bearer(sign_in(email, "coach-pass-123")))
    assert keys.status_code == 200

    bad = api("POST", "/api/auth/set-claims", json={"clientId": partner.client_id, "idToken": token, "x": 1})
    assert bad.status_code == 400 and bad.json() == {"error": "Missing clientId"}
    assert api("POST", "/api/auth/set-claims", json={"clientId": partner.client_id}).json() == {
        "error": "Missing idToken"}
    assert api("POST", "/api/auth/set-claims", json={"clientId": partner.client_id, "idToken": "x"}).json() == {
        "error": "Invalid idToken"}


def test_emulator_log_of_a_full_sign_in_holds_no_secret(api, partner):
    password = api("POST", CUSTOM, json={"clientId": partner.client_id, "email": partner.player.email,
                                         "password": partner.player.password})
    wrong = api("POST", CUSTOM, json={"clientId": partner.client_id, "email": partner.player.email,
                                      "password": "Not-" + partner.player.password})
    external = api("POST", CUSTOM, json={"grantType": "external_user", "externalUserId": "log-probe"},
                   headers=bearer(partner.key))
    id_token = redeem(password.json()["customToken"])
    exchanged = api("POST", "/api/auth/exchange-token", headers={"Host": partner.host, **bearer(id_token)})
    claims = api("POST", "/api/auth/set-claims", json={"clientId": partner.client_id, "idToken": id_token})
    responses = [password, wrong, external, exchanged, claims]
    assert [r.status_code for r in responses] == [200, 401, 200, 200, 200]

    log = wait_for_log([r.headers["x-request-id"] for r in responses])
    assert all(r.headers["x-request-id"] in log for r in responses), "the function's access log lines are missing"
    secrets = {
        "password": partner.player.password,
        "server API key": partner.key,
        "ID token": id_token,
        "custom token (password)": password.json()["customToken"],
        "custom token (external)": external.json()["customToken"],
        "custom token (exchange)": exchanged.json()["customToken"],
    }
    for name, secret in secrets.items():
        assert secret not in log, f"{name} appears in {log_path()}"
        middle = len(secret) // 2
        assert secret[middle:middle + 24] not in log, f"part of the {name} appears in {log_path()}"
    assert f"Bearer {partner.key}" not in log and f"Bearer {id_token}" not in log
