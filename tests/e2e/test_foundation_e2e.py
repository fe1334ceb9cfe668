"""Health, API keys and the client token through Hosting, with a CLI-made admin signed in at the Auth emulator."""

import json
import subprocess

from tests.conftest import bearer, sign_in
from tests.ops.test_cli import ROOT


def test_health(api):
    response = api("GET", "/api/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_health_carries_a_fresh_request_id_like_every_response(api):
    first = api("GET", "/api/health", headers={"x-request-id": "mine"})
    second = api("GET", "/api/health")
    ids = [first.headers.get("x-request-id"), second.headers.get("x-request-id")]
    assert all(i and len(i) == 32 and int(i, 16) >= 0 for i in ids), ids
    assert ids[0] != ids[1] and "mine" not in ids


def test_admin_manages_keys_and_partner_gets_client_token(api, tenant, other_tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    base = f"/api/clients/{tenant.client_id}/api-keys"

    created = api("POST", base, json={"label": "prod", "makePrimary": True}, headers=admin)
    assert created.status_code == 201
    first = created.json()
    assert first["secret"] == first["clientSecret"] and created.headers["x-request-id"]
    second = api("POST", base, json={"label": "rotation"}, headers=admin).json()

    listed = api("GET", base, headers=admin).json()
    assert listed["legacyPrimaryKeyId"] == first["apiKey"]["keyId"]
    assert first["secret"] not in json.dumps(listed)

    token = api("POST", "/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": second["secret"]})
    assert token.status_code == 200 and token.json()["token"].count(".") == 2

    promoted = api("PATCH", f"{base}/{second['apiKey']['keyId']}", json={"action": "promote"}, headers=admin)
    assert promoted.status_code == 200 and promoted.json()["legacyPrimaryKeyId"] == second["apiKey"]["keyId"]
    revoked = api("PATCH", f"{base}/{first['apiKey']['keyId']}", json={"action": "revoke"}, headers=admin)
    assert revoked.status_code == 200
    refused = api("POST", "/api/client/token/", json={"clientId": tenant.client_id, "clientSecret": first["secret"]})
    assert refused.status_code == 401 and refused.json() == {"error": "Invalid client credentials"}
    last = api("PATCH", f"{base}/{second['apiKey']['keyId']}", json={"action": "revoke"}, headers=admin)
    assert last.status_code == 409

    foreign = bearer(sign_in(other_tenant.admin.email, other_tenant.admin.password))
    assert api("GET", base, headers=foreign).status_code == 403
    assert api("GET", base, headers=bearer(sign_in(tenant.player.email, tenant.player.password))).status_code == 403
    assert api("GET", base).status_code == 401


def test_bad_input_through_hosting_is_never_a_500(api, tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    for method, path, data in [
        ("POST", "/api/client/token/", b"{"),
        ("POST", "/api/client/token", b'{"clientId": 5}'),
        ("POST", f"/api/clients/{tenant.client_id}/api-keys", b'{"label": [1]}'),
        ("PATCH", f"/api/clients/{tenant.client_id}/api-keys/nokey", b'{"action": "explode"}'),
    ]:
        response = api(method, path, data=data, headers={**admin, "Content-Type": "application/json"})
        assert response.status_code == 400, (path, response.text)
        assert set(response.json()) == {"error"}


def test_platformctl_made_admin_signs_in_through_auth_emulator(api, emulators):
    import uuid

    client_id = f"e2e-{uuid.uuid4().hex[:8]}"

    def ctl(*args):
        out = subprocess.run([str(ROOT / "bin" / "platformctl"), *args], capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    ctl("client", "create", "--client-id", client_id)
    ctl("user", "create", "--client-id", client_id, "--email", f"boss@{client_id}.example", "--password", "pw-987654",
        "--role", "admin")
    admin = bearer(sign_in(f"boss@{client_id}.example", "pw-987654"))
    created = api("POST", f"/api/clients/{client_id}/api-keys", json={}, headers=admin)
    assert created.status_code == 201 and created.json()["apiKey"]["isPrimary"] is True


def test_an_unknown_path_under_api_is_a_json_404_in_the_area_envelope():
    import requests

    from tests.conftest import BASE_URL
    from wellness_api.openapi.routes import NO_SUCH_OPERATION

    for method, path in [("GET", "/api/nope"), ("POST", "/api/v2/lessons"), ("DELETE", "/api/hosted/x/y"),
                         ("GET", "/api/")]:
        response = requests.request(method, BASE_URL + path, timeout=60)
        assert response.status_code == 404, (method, path, response.text[:200])
        assert response.headers["Content-Type"].startswith("application/json"), path
        assert response.json() == {"error": NO_SUCH_OPERATION} and response.headers["x-request-id"]
    # Under an area's own prefix, the area answers in its own envelope (Vital Scan's is nested).
    nested = requests.get(BASE_URL + "/api/v1/vital-scan/nope/deeper", timeout=60)
    assert nested.status_code == 404 and nested.json()["error"]["message"] == "Not found."
    # The health check and the document are still the platform's own routes.
    assert requests.get(BASE_URL + "/api/health", timeout=60).json() == {"status": "ok"}
