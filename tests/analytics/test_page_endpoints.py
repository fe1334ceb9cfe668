"""The dashboard page's two endpoints: GET /api/analytics/clients (the clients its picker offers: every client to
platform administrators, the caller's own to a client's administrator) and GET /api/analytics/config (the public
Firebase web settings the page signs in with; no credential)."""

import json
import os

from tests.analytics.conftest import ADMIN_REQUIRED, INVALID_TOKEN, MISSING_AUTH, client_token, new_tenant
from tests.conftest import AUTH_HOST, PROJECT, assert_error, bearer
from wellness_api.core import users

CLIENTS = "/api/analytics/clients"
CONFIG = "/api/analytics/config"


def clients(http, caller) -> list[dict]:
    response = http.get(CLIENTS, headers=caller.headers)
    assert response.status_code == 200, response.json
    assert set(response.json) == {"clients", "truncated"} and response.json["truncated"] is False
    for row in response.json["clients"]:
        assert set(row) == {"clientId", "name", "isOperator", "analytics"}
    return response.json["clients"]


def test_a_clients_admin_is_offered_their_own_client_only(http, dashboard, other_tenant):
    assert clients(http, dashboard.admin) == [{"clientId": dashboard.client_id, "name": f"Test {dashboard.client_id}",
                                               "isOperator": False, "analytics": True}]
    # With analytics off the client is still theirs, marked off (the page says so instead of failing).
    assert clients(http, other_tenant.admin) == [{"clientId": other_tenant.client_id,
                                                  "name": f"Test {other_tenant.client_id}", "isOperator": False,
                                                  "analytics": False}]


def test_a_platform_administrator_is_offered_every_client_by_id(http, platform_admin, operator_tenant, dashboard,
                                                                other_tenant):
    offered = clients(http, platform_admin)
    ids = [row["clientId"] for row in offered]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    rows = {row["clientId"]: row for row in offered}
    assert rows[operator_tenant.client_id]["isOperator"] is True
    assert rows[dashboard.client_id] == {"clientId": dashboard.client_id, "name": f"Test {dashboard.client_id}",
                                         "isOperator": False, "analytics": True}
    assert rows[other_tenant.client_id]["analytics"] is False
    assert sum(row["isOperator"] for row in offered) == 1
    # A client made meanwhile is offered at once.
    newer = new_tenant(analytics=False)
    assert newer.client_id in {row["clientId"] for row in clients(http, platform_admin)}


def test_the_client_list_refuses_everyone_else(http, dashboard):
    assert_error(http.get(CLIENTS), 401, MISSING_AUTH)
    assert_error(http.get(CLIENTS, headers=bearer("garbage")), 401, INVALID_TOKEN)
    assert_error(http.get(CLIENTS, headers=client_token(dashboard)), 401, INVALID_TOKEN)
    assert_error(http.get(CLIENTS, headers=dashboard.player.headers), 403, ADMIN_REQUIRED)
    admin = dashboard.add_member("admin")
    headers = admin.headers
    assert http.get(CLIENTS, headers=headers).status_code == 200
    users.disable_user(dashboard.client, admin.uid)
    assert_error(http.get(CLIENTS, headers=headers), 401, INVALID_TOKEN)


def test_the_page_config_is_public_and_holds_no_credential(http):
    response = http.get(CONFIG)
    assert response.status_code == 200, response.json
    assert response.headers["x-request-id"]
    body = response.json
    assert set(body) == {"firebase", "authEmulatorUrl"}
    assert set(body["firebase"]) == {"apiKey", "authDomain", "projectId"}
    assert body["firebase"]["projectId"] == PROJECT
    assert body["firebase"]["authDomain"] == f"{PROJECT}.firebaseapp.com"
    assert isinstance(body["firebase"]["apiKey"], str) and body["firebase"]["apiKey"]  # the JS SDK needs one
    assert body["authEmulatorUrl"] == f"http://{AUTH_HOST}"
    text = json.dumps(body)
    for name in ("CLIENT_JWT_SECRET", "LLM_API_KEY"):
        secret = os.environ.get(name)
        assert not secret or secret not in text, name
    # Any caller gets the same, a token changes nothing.
    assert http.get(CONFIG, headers=bearer("garbage")).json == body


def test_the_page_endpoints_serve_get_only(http, dashboard):
    for path in (CLIENTS, CONFIG):
        assert http.post(path, headers=dashboard.admin.headers).status_code == 405
