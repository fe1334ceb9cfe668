"""Firestore document reads and writes per api-keys and client-token request, served by the areas' Flask apps."""

import contextlib
import io
import uuid


def main() -> None:
    from support.firestore_ops import counting
    from support.tenants import Tenant
    from wellness_api.api_keys.routes import app as keys_app
    from wellness_api.identity.routes import app as identity_app

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    keys, identity = keys_app.test_client(), identity_app.test_client()
    headers = tenant.admin.headers
    base = f"/api/clients/{tenant.client_id}/api-keys"
    rows = []

    def measure(label, call):
        with counting() as ops, contextlib.redirect_stdout(io.StringIO()):  # keep access logs out of the table
            response = call()
        rows.append((label, response.status_code, ops.reads, ops.writes))
        return response

    first = measure("POST api-keys (first key)", lambda: keys.post(base, json={}, headers=headers)).json
    second = measure("POST api-keys (second key)", lambda: keys.post(base, json={}, headers=headers)).json
    measure("GET api-keys (2 keys)", lambda: keys.get(base, headers=headers))
    measure("PATCH promote", lambda: keys.patch(f"{base}/{second['apiKey']['keyId']}", json={"action": "promote"},
                                                headers=headers))
    body = {"clientId": tenant.client_id, "clientSecret": first["secret"]}
    measure("POST client/token (first use: lastUsedAt)", lambda: identity.post("/api/client/token/", json=body))
    measure("POST client/token (within a minute)", lambda: identity.post("/api/client/token/", json=body))
    measure("PATCH revoke", lambda: keys.patch(f"{base}/{first['apiKey']['keyId']}", json={"action": "revoke"},
                                               headers=headers))
    print("\n== Firestore document reads / writes per request")
    print(f"{'request':45} {'status':>6} {'reads':>6} {'writes':>6}")
    for label, status, reads, writes in rows:
        print(f"{label:45} {status:>6} {reads:>6} {writes:>6}")
    print("(Auth: admin routes also verify the ID token and check revocation: at most one Auth lookup per user\n"
          " per revocation TTL per instance, see the credential check below.)")
