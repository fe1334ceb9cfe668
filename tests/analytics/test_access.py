"""Who may read a client's analytics (4.10, part 5, 7.8): administrators of the client with the module on, and
platform administrators on any client; every other caller is refused before anything is read, on every endpoint."""

import uuid

import pytest

from tests.analytics.conftest import (
    ADMIN_REQUIRED,
    CLIENT_NOT_FOUND,
    ENDPOINTS,
    FORBIDDEN,
    INVALID_TOKEN,
    MISSING_AUTH,
    MODULE_OFF,
    RANGED,
    assert_metadata,
    client_token,
    new_tenant,
    read,
    url,
)
from tests.conftest import Tenant, assert_error, bearer
from tests.identity.conftest import redeem
from wellness_api.core import users
from wellness_api.identity.routes import app as identity_app


def refused(http, headers: dict | None, client_id: str, status: int, message: str, query: str = "") -> None:
    """Every endpoint answers `status` {"error": message}."""
    for endpoint in ENDPOINTS:
        assert_error(http.get(url(client_id, endpoint, query), headers=headers or {}), status, message)


@pytest.fixture(scope="module")
def dashboard(emulators) -> Tenant:
    """One client with analytics on, shared by the read-only cases of this module."""
    return new_tenant()


@pytest.fixture(scope="module")
def other_dashboard(emulators) -> Tenant:
    return new_tenant()


@pytest.mark.parametrize("headers", [
    None,
    {"Authorization": ""},
    {"Authorization": "Bearer"},
    {"Authorization": "Basic dXNlcjpwYXNz"},
    {"Authorization": "Bearer two tokens"},
])
def test_without_a_bearer_token_every_endpoint_is_401(http, dashboard, headers):
    refused(http, headers, dashboard.client_id, 401, MISSING_AUTH)


def test_a_forged_token_is_401(http, dashboard):
    refused(http, bearer("not-a-jwt"), dashboard.client_id, 401, INVALID_TOKEN)
    token = dashboard.admin.token
    forged = token[:-6] + ("AAAAAA" if not token.endswith("AAAAAA") else "BBBBBB")
    refused(http, bearer(forged), dashboard.client_id, 401, INVALID_TOKEN)


def test_a_client_token_is_not_an_id_token_401(http, dashboard):
    # A partner backend's client token (POST /api/client/token/) identifies no administrator.
    refused(http, client_token(dashboard), dashboard.client_id, 401, INVALID_TOKEN)


def test_a_player_is_403_and_sees_no_number(http, dashboard):
    refused(http, dashboard.player.headers, dashboard.client_id, 403, ADMIN_REQUIRED)
    # Whatever client the player names, and even with a malformed range (identity is checked first).
    refused(http, dashboard.player.headers, "no-such-client", 403, ADMIN_REQUIRED)
    refused(http, dashboard.player.headers, dashboard.client_id, 403, ADMIN_REQUIRED, "?startDate=x&endDate=y")


def test_a_player_of_the_operator_tenant_is_no_platform_administrator(http, dashboard, operator_tenant):
    player = operator_tenant.add_member("player")
    refused(http, player.headers, dashboard.client_id, 403, ADMIN_REQUIRED)
    refused(http, player.headers, operator_tenant.client_id, 403, ADMIN_REQUIRED)


def test_a_guest_is_403(http):
    host = f"guests-{uuid.uuid4().hex[:8]}.example.test"
    tenant = new_tenant(hostnames=[host])
    tenant.configure("auth.guestSignIn=true", "modules.analytics=true")
    issued = identity_app.test_client().post("/api/auth/guest-custom-token", headers={"X-Forwarded-Host": host})
    assert issued.status_code == 200, issued.json
    guest = bearer(redeem(issued.json["customToken"]))
    refused(http, guest, tenant.client_id, 403, ADMIN_REQUIRED)


def test_an_admin_of_another_client_is_403(http, dashboard, other_dashboard):
    # Both clients have analytics on: the other client's admin still reads only their own.
    refused(http, other_dashboard.admin.headers, dashboard.client_id, 403, FORBIDDEN)
    refused(http, dashboard.admin.headers, other_dashboard.client_id, 403, FORBIDDEN)
    refused(http, dashboard.admin.headers, other_dashboard.client_id, 403, FORBIDDEN, "?startDate=bad")


def test_an_admin_naming_an_unknown_client_is_403_not_404(http, dashboard):
    # Only platform administrators learn whether a client exists.
    for client_id in ("no-such-client", "bad%20id!", "operator"):
        refused(http, dashboard.admin.headers, client_id, 403, FORBIDDEN)


def test_the_clients_admin_reads_every_endpoint(http, dashboard):
    for endpoint in ENDPOINTS:
        body = read(http, dashboard.admin, dashboard.client_id, endpoint)
        assert_metadata(body, dashboard.client_id, False, 1)


def test_a_platform_administrator_reads_any_client_even_with_the_module_off(http, dashboard, platform_admin):
    tenant = new_tenant(analytics=False)
    for client in (dashboard, tenant):  # tenant: analytics never configured (off by default)
        for endpoint in ENDPOINTS:
            body = read(http, platform_admin, client.client_id, endpoint)
            assert_metadata(body, client.client_id, True, 1)
        for endpoint in RANGED:
            body = read(http, platform_admin, client.client_id, endpoint, "2026-01-01", "2026-01-31")
            assert_metadata(body, client.client_id, True, 1, "2026-01-01", "2026-01-31")


def test_a_platform_administrator_naming_an_unknown_client_is_404(http, platform_admin):
    refused(http, platform_admin.headers, f"t-{uuid.uuid4().hex[:12]}", 404, CLIENT_NOT_FOUND)
    refused(http, platform_admin.headers, "bad%20id!", 404, CLIENT_NOT_FOUND)


def test_analytics_off_is_403_for_the_clients_admin(http, platform_admin):
    tenant = new_tenant(analytics=False)
    # Off by default ...
    refused(http, tenant.admin.headers, tenant.client_id, 403, MODULE_OFF)
    # ... on ...
    tenant.configure("modules.analytics=true")
    assert read(http, tenant.admin, tenant.client_id, "overview")["totalLinkedPlayers"] == 1
    # ... and off again: at once.
    tenant.configure("modules.analytics=false")
    refused(http, tenant.admin.headers, tenant.client_id, 403, MODULE_OFF)
    # A player still learns only that they are no admin; the platform administrator still reads it.
    refused(http, tenant.player.headers, tenant.client_id, 403, ADMIN_REQUIRED)
    assert read(http, platform_admin, tenant.client_id, "overview")["metadata"]["isGofaAdmin"] is True


def test_an_admin_with_analytics_off_at_home_is_still_refused_elsewhere(http, other_dashboard):
    tenant = new_tenant(analytics=False)
    refused(http, tenant.admin.headers, other_dashboard.client_id, 403, FORBIDDEN)


def test_a_disabled_admins_token_is_refused_at_once(http, dashboard):
    admin = dashboard.add_member("admin")  # not the shared admin: this one is disabled
    headers = admin.headers
    assert read(http, headers, dashboard.client_id, "overview")["metadata"]["isGofaAdmin"] is False
    users.disable_user(dashboard.client, admin.uid)
    refused(http, headers, dashboard.client_id, 401, INVALID_TOKEN)


def test_a_second_admin_of_the_client_reads_the_same_figures(http, dashboard):
    second = dashboard.add_member("admin")
    first = read(http, dashboard.admin, dashboard.client_id, "overview")
    again = read(http, second, dashboard.client_id, "overview")
    for body in (first, again):
        body["metadata"].pop("generatedAt")
    assert first == again


def test_the_operator_tenants_own_view_is_for_platform_administrators(http, platform_admin, operator_tenant, dashboard):
    # Operator admins are platform administrators; the operator's view is the broad one (see the other modules).
    for endpoint in ENDPOINTS:
        body = read(http, platform_admin, operator_tenant.client_id, endpoint)
        assert_metadata(body, operator_tenant.client_id, True, None)
    refused(http, dashboard.admin.headers, operator_tenant.client_id, 403, FORBIDDEN)


def test_only_get_is_served(http, dashboard):
    for endpoint in ENDPOINTS:
        for method in ("post", "put", "patch", "delete"):
            response = getattr(http, method)(url(dashboard.client_id, endpoint), headers=dashboard.admin.headers)
            assert response.status_code == 405, (endpoint, method, response.status_code)


def test_a_trailing_slash_is_the_same_route(http, dashboard):
    for endpoint in ENDPOINTS:
        response = http.get(url(dashboard.client_id, endpoint) + "/", headers=dashboard.admin.headers)
        assert response.status_code == 200, (endpoint, response.status_code)
        assert response.json["metadata"]["queryClientId"] == dashboard.client_id
