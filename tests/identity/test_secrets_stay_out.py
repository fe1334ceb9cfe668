"""Part 5 rule 2: passwords, API keys, custom tokens and Authorization headers are never logged or persisted.

A full sign-in (both grants, the token redeemed, exchange, set-claims, guest, and failures on the way)
runs in this process with its stdout and stderr captured at the file-descriptor level; the output and
every Firestore document the flow could have touched are then searched for each secret.
"""

import json
import socket
import uuid

from tests.conftest import bearer
from tests.identity.conftest import external, key_headers, redeem, server_key
from wellness_api.core import firebase, tenancy


def _documents(ref) -> list[dict]:
    """Every document under a document reference, recursively."""
    found = []
    snap = ref.get()
    if snap.exists:
        found.append(snap.to_dict())
    for collection in ref.collections():
        for child in collection.list_documents():
            found.extend(_documents(child))
    return found


def _stored_text(client_id: str) -> str:
    db = firebase.db()
    docs = _documents(tenancy.client_ref(client_id))
    docs += [s.to_dict() for s in db.collection("apiKeyIndex").stream()]
    docs += [s.to_dict() for s in db.collection("rateLimits").stream()]
    return json.dumps(docs, default=str)


def test_a_full_sign_in_leaves_no_secret_in_logs_or_firestore(ct, idp, make_tenant, capfd, monkeypatch):
    host = f"secrets-{uuid.uuid4().hex[:8]}.example.test"
    tenant = make_tenant(hostnames=[host])
    tenant.configure("auth.externalUser=jit", "auth.guestSignIn=true")
    key = server_key(tenant)
    capfd.readouterr()  # start from a clean capture: only the sign-in flow below counts

    password_grant = ct.post("/api/auth/custom-token", json={
        "clientId": tenant.client_id, "email": tenant.player.email, "password": tenant.player.password})
    wrong = ct.post("/api/auth/custom-token", json={
        "clientId": tenant.client_id, "email": tenant.player.email, "password": "Wrong-" + tenant.player.password})
    external_grant = ct.post("/api/auth/custom-token", json=external(f"ext-{uuid.uuid4().hex}"), headers=key_headers(key))
    bad_key = ct.post("/api/auth/custom-token", json=external("someone"), headers=key_headers(key[:-4] + "AAAA"))
    assert (password_grant.status_code, wrong.status_code, external_grant.status_code, bad_key.status_code) == (
        200, 401, 200, 401)
    custom_tokens = [password_grant.json["customToken"], external_grant.json["customToken"]]
    id_tokens = [redeem(token) for token in custom_tokens]

    exchanged = idp.post("/api/auth/exchange-token", headers={"X-Forwarded-Host": host, **bearer(id_tokens[0])})
    claims = idp.post("/api/auth/set-claims", json={"clientId": tenant.client_id, "idToken": id_tokens[1]})
    guest = idp.post("/api/auth/guest-custom-token", headers={"X-Forwarded-Host": host})
    assert (exchanged.status_code, claims.status_code, guest.status_code) == (200, 200, 200)
    custom_tokens += [exchanged.json["customToken"], guest.json["customToken"]]

    # The Identity Toolkit unreachable: the error is logged, without the request it was making.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    monkeypatch.setenv("IDENTITY_TOOLKIT_URL", f"http://127.0.0.1:{closed_port}")
    web_api_key = "AIzaSy-web-api-key-" + uuid.uuid4().hex
    monkeypatch.setenv("IDENTITY_WEB_API_KEY", web_api_key)
    unavailable = ct.post("/api/auth/custom-token", json={
        "clientId": tenant.client_id, "email": tenant.player.email, "password": tenant.player.password})
    assert unavailable.status_code == 500 and unavailable.json == {"code": "internal_error", "error": "Internal server error"}

    captured = capfd.readouterr()
    logs = captured.out + captured.err
    assert logs.count('"message": "request"') == 8  # every request was logged...
    assert "password verification unavailable" in logs
    secrets = {
        "password": tenant.player.password,
        "server API key": key,
        "web API key": web_api_key,
        **{f"custom token {i}": token for i, token in enumerate(custom_tokens)},
        **{f"ID token {i}": token for i, token in enumerate(id_tokens)},
    }
    stored = _stored_text(tenant.client_id)
    for name, secret in secrets.items():
        assert secret not in logs, f"{name} appears in the logs"
        assert secret not in stored, f"{name} is stored in Firestore"
        # No fragment long enough to matter either (tokens are long; a 24-character piece is specific).
        if len(secret) > 48:
            middle = len(secret) // 2
            assert secret[middle:middle + 24] not in logs, f"part of the {name} appears in the logs"
    assert "Bearer " not in logs and "Authorization" not in logs

