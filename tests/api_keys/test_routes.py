"""/api/clients/[clientId]/api-keys through the area's Flask app, against the emulators."""

import pytest

from tests.conftest import bearer
from wellness_api.api_keys.routes import app
from wellness_api.core import server_keys

RECORD_FIELDS = {
    "keyId", "label", "maskedKey", "prefix", "suffix", "status", "isPrimary",
    "createdAt", "createdBy", "expiresAt", "revokedAt", "lastUsedAt",
}


@pytest.fixture
def http():
    return app.test_client()


def path(client_id: str, key_id: str | None = None) -> str:
    return f"/api/clients/{client_id}/api-keys" + (f"/{key_id}" if key_id else "")


def create(http, tenant, **body):
    response = http.post(path(tenant.client_id), json=body, headers=tenant.admin.headers)
    assert response.status_code == 201, response.json
    return response.json


def test_create_returns_raw_key_once_and_record_without_it(http, tenant):
    body = create(http, tenant, label="Production")
    assert body["success"] is True
    assert body["secret"] == body["clientSecret"]
    raw = body["secret"]
    record = body["apiKey"]
    assert set(record) == RECORD_FIELDS
    assert record["label"] == "Production"
    assert record["status"] == "active"
    assert record["prefix"] == raw[:8] and record["suffix"] == raw[-4:]
    assert record["maskedKey"].startswith(record["prefix"]) and record["maskedKey"].endswith(record["suffix"])
    assert raw not in record["maskedKey"]
    assert record["createdBy"] == tenant.admin.uid
    assert record["createdAt"].endswith("Z")
    assert record["expiresAt"] is None and record["revokedAt"] is None and record["lastUsedAt"] is None

    listed = http.get(path(tenant.client_id), headers=tenant.admin.headers)
    assert listed.status_code == 200
    assert raw not in listed.get_data(as_text=True)
    assert [k["keyId"] for k in listed.json["apiKeys"]] == [record["keyId"]]


def test_raw_key_is_stored_only_as_a_hash(http, tenant):
    from wellness_api.core import firebase

    raw = create(http, tenant)["secret"]
    stored = [snap.to_dict() for snap in firebase.db().collection(f"clients/{tenant.client_id}/apiKeys").stream()]
    assert all(raw not in str(doc) for doc in stored)
    assert stored[0]["keyHash"] == server_keys.hash_key(raw)
    assert server_keys.index_ref(server_keys.hash_key(raw)).get().exists


def test_first_key_is_primary_and_later_keys_overlap(http, tenant):
    first = create(http, tenant)["apiKey"]
    second = create(http, tenant, label="second")["apiKey"]
    assert first["isPrimary"] is True and second["isPrimary"] is False
    body = http.get(path(tenant.client_id), headers=tenant.admin.headers).json
    assert body["legacyPrimaryKeyId"] == first["keyId"]
    assert {k["status"] for k in body["apiKeys"]} == {"active"}


def test_make_primary_moves_the_primary(http, tenant):
    first = create(http, tenant)["apiKey"]
    second = create(http, tenant, makePrimary=True)["apiKey"]
    body = http.get(path(tenant.client_id), headers=tenant.admin.headers).json
    assert body["legacyPrimaryKeyId"] == second["keyId"]
    primaries = {k["keyId"]: k["isPrimary"] for k in body["apiKeys"]}
    assert primaries == {first["keyId"]: False, second["keyId"]: True}


def test_promote_changes_primary_and_revokes_nothing(http, tenant):
    first = create(http, tenant)["apiKey"]
    second = create(http, tenant)["apiKey"]
    response = http.patch(path(tenant.client_id, second["keyId"]), json={"action": "promote"}, headers=tenant.admin.headers)
    assert response.status_code == 200
    body = response.json
    assert body["success"] is True and body["legacyPrimaryKeyId"] == second["keyId"]
    assert {k["keyId"]: (k["status"], k["isPrimary"]) for k in body["apiKeys"]} == {
        first["keyId"]: ("active", False),
        second["keyId"]: ("active", True),
    }


def test_revoke_disables_immediately_and_moves_primary(http, tenant):
    first = create(http, tenant)
    second = create(http, tenant)["apiKey"]
    third = create(http, tenant)["apiKey"]
    assert server_keys.authenticate(first["secret"]) is not None
    response = http.patch(path(tenant.client_id, first["apiKey"]["keyId"]), json={"action": "revoke"},
                          headers=tenant.admin.headers)
    assert response.status_code == 200
    body = response.json
    by_id = {k["keyId"]: k for k in body["apiKeys"]}
    revoked = by_id[first["apiKey"]["keyId"]]
    assert revoked["status"] == "revoked" and revoked["revokedAt"] and revoked["isPrimary"] is False
    # The newest remaining active key becomes primary.
    assert body["legacyPrimaryKeyId"] == third["keyId"]
    assert by_id[third["keyId"]]["isPrimary"] is True and by_id[second["keyId"]]["isPrimary"] is False
    assert server_keys.authenticate(first["secret"]) is None


def test_last_active_key_cannot_be_revoked(http, tenant):
    only = create(http, tenant)["apiKey"]
    response = http.patch(path(tenant.client_id, only["keyId"]), json={"action": "revoke"}, headers=tenant.admin.headers)
    assert response.status_code == 409
    assert response.json == {"error": "The last active API key cannot be revoked."}
    body = http.get(path(tenant.client_id), headers=tenant.admin.headers).json
    assert body["apiKeys"][0]["status"] == "active" and body["legacyPrimaryKeyId"] == only["keyId"]


def test_revoking_twice_is_a_no_op_and_revoked_keys_cannot_be_promoted(http, tenant):
    first = create(http, tenant)["apiKey"]
    create(http, tenant)
    url = path(tenant.client_id, first["keyId"])
    assert http.patch(url, json={"action": "revoke"}, headers=tenant.admin.headers).status_code == 200
    assert http.patch(url, json={"action": "revoke"}, headers=tenant.admin.headers).status_code == 200
    response = http.patch(url, json={"action": "promote"}, headers=tenant.admin.headers)
    assert response.status_code == 409
    assert response.json == {"error": "Only an active API key can be promoted."}


def test_empty_client_lists_no_keys(http, tenant):
    body = http.get(path(tenant.client_id), headers=tenant.admin.headers).json
    assert body == {"apiKeys": [], "legacyPrimaryKeyId": None}


def test_active_key_limit(http, tenant):
    from wellness_api.api_keys.service import MAX_ACTIVE_KEYS

    for _ in range(MAX_ACTIVE_KEYS):
        create(http, tenant)
    response = http.post(path(tenant.client_id), json={}, headers=tenant.admin.headers)
    assert response.status_code == 409
    assert "at most" in response.json["error"]


def test_platform_admin_manages_any_client(http, tenant, platform_admin):
    response = http.post(path(tenant.client_id), json={"label": "by operator"}, headers=platform_admin.headers)
    assert response.status_code == 201
    assert response.json["apiKey"]["createdBy"] == platform_admin.uid
    assert http.get(path(tenant.client_id), headers=platform_admin.headers).status_code == 200


def test_platform_admin_gets_404_for_unknown_client(http, platform_admin):
    for method, url, body in [
        ("get", path("no-such-client"), None),
        ("post", path("no-such-client"), {}),
        ("patch", path("no-such-client", "k1"), {"action": "promote"}),
    ]:
        response = getattr(http, method)(url, json=body, headers=platform_admin.headers)
        assert response.status_code == 404, (method, response.json)
        assert response.json == {"error": "Client not found."}


def test_unknown_key_is_404(http, tenant):
    create(http, tenant)
    for key_id in ("doesnotexist", "bad..id"):
        response = http.patch(path(tenant.client_id, key_id), json={"action": "revoke"}, headers=tenant.admin.headers)
        assert response.status_code == 404
        assert response.json == {"error": "API key not found."}


@pytest.mark.parametrize("method", ["get", "post", "patch"])
def test_other_tenants_admin_and_players_are_refused(http, tenant, other_tenant, method):
    key = create(http, tenant)["apiKey"]
    url = path(tenant.client_id, key["keyId"] if method == "patch" else None)
    body = {"action": "revoke"} if method == "patch" else {}
    for member in (other_tenant.admin, tenant.player, other_tenant.player):
        response = getattr(http, method)(url, json=body, headers=member.headers)
        assert response.status_code == 403, member.role
        assert response.json == {"error": "You do not have access to this client."}
    # Nothing changed.
    assert http.get(path(tenant.client_id), headers=tenant.admin.headers).json["apiKeys"][0]["status"] == "active"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic abc"}])
def test_missing_or_invalid_identity_is_401(http, tenant, headers):
    response = http.get(path(tenant.client_id), headers=headers)
    assert response.status_code == 401
    assert set(response.json) == {"error"}
    assert response.headers["x-request-id"]


def test_disabled_admin_is_refused(http, tenant):
    from wellness_api.core import users

    token = tenant.admin.token
    users.disable_user(tenant.client, tenant.admin.uid)
    for method, body in (("get", None), ("post", {})):
        response = getattr(http, method)(path(tenant.client_id), json=body, headers=bearer(token))
        assert response.status_code == 401
        assert response.json == {"error": "Invalid or expired token"}


def test_client_token_is_not_an_admin_credential(http, tenant):
    from wellness_api.core import client_tokens

    key = create(http, tenant)["apiKey"]
    token = client_tokens.sign(tenant.client_id, key["keyId"])
    assert http.get(path(tenant.client_id), headers=bearer(token)).status_code == 401


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"label": 5}, "Invalid field label"),
        ({"makePrimary": "yes"}, "Invalid field makePrimary"),
        ({"label": "x" * 101}, "Invalid field label"),
        ({"unknown": 1}, "Unknown field: unknown."),
    ],
)
def test_bad_create_bodies_are_400_and_write_nothing(http, tenant, body, message):
    response = http.post(path(tenant.client_id), json=body, headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json["error"].startswith(message)
    assert http.get(path(tenant.client_id), headers=tenant.admin.headers).json["apiKeys"] == []


@pytest.mark.parametrize("data", [b"{not json", b"[1,2]", b'"text"', b""])
def test_malformed_patch_bodies_are_400(http, tenant, data):
    key = create(http, tenant)["apiKey"]
    response = http.patch(path(tenant.client_id, key["keyId"]), data=data, content_type="application/json",
                          headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json == {"error": "Request body must be a JSON object."}


@pytest.mark.parametrize("body", [{"action": "delete"}, {}, {"action": "revoke", "extra": True}, {"action": 1}])
def test_bad_patch_actions_are_400(http, tenant, body):
    key = create(http, tenant)["apiKey"]
    response = http.patch(path(tenant.client_id, key["keyId"]), json=body, headers=tenant.admin.headers)
    assert response.status_code == 400
    assert set(response.json) == {"error"}


def test_oversized_body_is_413(http, tenant):
    response = http.post(path(tenant.client_id), data=b'{"label": "' + b"x" * (2 << 20) + b'"}',
                         content_type="application/json", headers=tenant.admin.headers)
    assert response.status_code == 413
    assert response.json == {"error": "Request body is too large."}


def test_create_with_empty_body_is_allowed(http, tenant):
    response = http.post(path(tenant.client_id), headers=tenant.admin.headers)
    assert response.status_code == 201
    assert response.json["apiKey"]["label"] == ""


# ------------------------------------------------------------------------ body media type and depth


@pytest.mark.parametrize("data", [b"[" * 1000 + b"]" * 1000, b'{"label": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001,
                                  b'{"label": "a", "x": ' + b"[" * 40 + b"]" * 40 + b"}"])
def test_deeply_nested_bodies_are_400_and_write_nothing(http, tenant, data):
    response = http.post(path(tenant.client_id), data=data, content_type="application/json",
                         headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json == {"error": "Request body is nested too deeply."}
    assert http.get(path(tenant.client_id), headers=tenant.admin.headers).json["apiKeys"] == []
    key = create(http, tenant)["apiKey"]
    response = http.patch(path(tenant.client_id, key["keyId"]), data=data, content_type="application/json",
                          headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json == {"error": "Request body is nested too deeply."}


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_that_is_not_declared_json_is_415_and_writes_nothing(http, tenant, content_type):
    headers = {**tenant.admin.headers, **({"Content-Type": content_type} if content_type else {})}
    response = http.post(path(tenant.client_id), data=b'{"label": "plain"}', headers=headers)
    assert response.status_code == 415
    assert response.json == {"error": "Content-Type must be application/json."}
    assert http.get(path(tenant.client_id), headers=tenant.admin.headers).json["apiKeys"] == []
    key = create(http, tenant)["apiKey"]
    response = http.patch(path(tenant.client_id, key["keyId"]), data=b'{"action": "revoke"}', headers=headers)
    assert response.status_code == 415
    assert response.json == {"error": "Content-Type must be application/json."}


def test_json_with_a_charset_is_accepted(http, tenant):
    response = http.post(path(tenant.client_id), data='{"label": "Büro"}'.encode(),
                         headers={**tenant.admin.headers, "Content-Type": "application/json; charset=utf-8"})
    assert response.status_code == 201 and response.json["apiKey"]["label"] == "Büro"


# ---------------------------------------------------------------------------------------- label text


@pytest.mark.parametrize("label", ["prod\x00", "line\nbreak", "carriage\rreturn", "tab\there", "esc\x1b[31m",
                                   "c1\x85", "del\x7f", "evil\u202egnp.exe", "iso\u2066late\u2069",
                                   "sep\u2028"])
def test_labels_with_control_or_bidi_override_characters_are_400(http, tenant, label):
    response = http.post(path(tenant.client_id), json={"label": label}, headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json["error"].startswith("Invalid field label: must ")
    assert http.get(path(tenant.client_id), headers=tenant.admin.headers).json["apiKeys"] == []


def test_labels_people_type_are_kept(http, tenant):
    for label in ("Production (EU)", "生產環境", "שרת\u200fראשי", "backend 🚀"):
        assert create(http, tenant, label=label)["apiKey"]["label"] == label


# ------------------------------------------------------------------------------ the list after rotations


def test_every_active_key_is_listed_after_many_rotations(http, tenant):
    """The primary is the oldest key; 120 newer keys were revoked since. Every active key stays listed,
    with the 100 most recently revoked keys, newest first."""
    import datetime as dt

    from wellness_api.api_keys import repository as repo
    from wellness_api.core import clock, firebase

    primary = create(http, tenant, label="primary")["apiKey"]
    other_active = create(http, tenant, label="secondary")["apiKey"]
    base = clock.now()
    revoked_ids = []
    batch, writes = firebase.db().batch(), 0
    for i in range(120):  # written through the repository in batches: 240 rotations over HTTP take minutes
        created = base + dt.timedelta(milliseconds=i + 1)
        raw = server_keys.generate()
        key_id = repo.new_key_id(tenant.client_id)
        repo.write_new_key(batch, tenant.client_id, {
            "keyId": key_id, "label": f"rotated {i}", "prefix": server_keys.prefix_of(raw),
            "suffix": server_keys.suffix_of(raw), "maskedKey": "x", "keyHash": server_keys.hash_key(raw),
            "status": server_keys.REVOKED, "isPrimary": False, "createdAt": created, "createdBy": "test",
            "expiresAt": None, "revokedAt": created + dt.timedelta(minutes=5), "lastUsedAt": None,
        })
        revoked_ids.append(key_id)
        writes += 2
        if writes >= 400:
            batch.commit()
            batch, writes = firebase.db().batch(), 0
    batch.commit()
    clock.advance(dt.timedelta(hours=1))
    newest_active = create(http, tenant, label="newest")["apiKey"]

    body = http.get(path(tenant.client_id), headers=tenant.admin.headers).json
    listed = [k["keyId"] for k in body["apiKeys"]]
    assert body["legacyPrimaryKeyId"] == primary["keyId"]
    active = [k["keyId"] for k in body["apiKeys"] if k["status"] == "active"]
    assert set(active) == {primary["keyId"], other_active["keyId"], newest_active["keyId"]}
    assert [k["keyId"] for k in body["apiKeys"] if k["isPrimary"]] == [primary["keyId"]]
    # The 100 most recently revoked, and nothing older; newest created first throughout.
    assert [k for k in listed if k in revoked_ids] == list(reversed(revoked_ids[-repo.REVOKED_LIST_LIMIT:]))
    assert listed[0] == newest_active["keyId"] and listed[-2:] == [other_active["keyId"], primary["keyId"]]
    assert len(listed) == repo.REVOKED_LIST_LIMIT + 3
