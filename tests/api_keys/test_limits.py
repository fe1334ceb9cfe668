"""The API-key area's caps (issue 25): the label and body are bounded in the OpenAPI document and refused past their
bound; no client holds more than MAX_ACTIVE_KEYS keys whose status is active, expired ones included, so every read
of the active keys is that small."""

import datetime as dt

import pytest

from support import caps
from tests.api_keys.test_routes import create, path
from wellness_api.api_keys import repository as repo
from wellness_api.api_keys.models import MAX_LABEL_LENGTH
from wellness_api.api_keys.routes import app
from wellness_api.api_keys.service import MAX_ACTIVE_KEYS, TOO_MANY_KEYS
from wellness_api.core import clock, firebase, server_keys
from wellness_api.openapi import document


@pytest.fixture
def http():
    return app.test_client()


def test_the_openapi_document_bounds_every_api_key_input():
    assert [row for row in caps.violations(document.build()) if row[0] == "API keys"] == []


def test_label_is_at_most_100_characters(http, tenant):
    assert create(http, tenant, label="L" * MAX_LABEL_LENGTH)["apiKey"]["label"] == "L" * MAX_LABEL_LENGTH
    response = http.post(path(tenant.client_id), json={"label": "L" * (MAX_LABEL_LENGTH + 1)},
                         headers=tenant.admin.headers)
    assert response.status_code == 400
    assert response.json == {"error": f"Invalid field label: String should have at most {MAX_LABEL_LENGTH} characters."}


def write_expired_keys(client_id: str, count: int) -> list[str]:
    batch, ids = firebase.db().batch(), []
    for i in range(count):
        raw = server_keys.generate()
        key_id = repo.new_key_id(client_id)
        repo.write_new_key(batch, client_id, {
            "keyId": key_id, "label": f"expired {i}", "prefix": server_keys.prefix_of(raw),
            "suffix": server_keys.suffix_of(raw), "maskedKey": "x", "keyHash": server_keys.hash_key(raw),
            "status": server_keys.ACTIVE, "isPrimary": False, "createdAt": clock.now(), "createdBy": "test",
            "expiresAt": clock.now() - dt.timedelta(days=1), "revokedAt": None, "lastUsedAt": None,
        })
        ids.append(key_id)
    batch.commit()
    return ids


def test_expired_keys_count_toward_the_active_key_cap_and_can_be_revoked(http, tenant):
    # Keys an operator let expire kept status active but did not count: creating past them grew the client's
    # active keys, which every key operation reads, without bound.
    expired = write_expired_keys(tenant.client_id, MAX_ACTIVE_KEYS)
    response = http.post(path(tenant.client_id), json={}, headers=tenant.admin.headers)
    assert response.status_code == 409
    assert response.json == {"error": TOO_MANY_KEYS}
    # An expired key can always be revoked (even with no usable key left): it authenticates nothing.
    response = http.patch(path(tenant.client_id, expired[0]), json={"action": "revoke"}, headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    assert response.json["legacyPrimaryKeyId"] is None
    created = create(http, tenant)["apiKey"]
    assert created["isPrimary"] is True
