"""firestore.rules deny direct client access: an app's signed-in user cannot read or write anything."""

import os

import pytest
import requests

FIRESTORE = f"http://{os.environ['FIRESTORE_EMULATOR_HOST']}/v1/projects/{os.environ['GCLOUD_PROJECT']}/databases/(default)/documents"


@pytest.mark.parametrize("path", ["clients/{cid}", "clients/{cid}/users/{uid}", "clients/{cid}/apiKeys/any",
                                  "apiKeyIndex/any", "hostnames/any"])
def test_signed_in_users_cannot_read_directly(tenant, path):
    url = f"{FIRESTORE}/{path.format(cid=tenant.client_id, uid=tenant.admin.uid)}"
    for member in (tenant.admin, tenant.player):
        response = requests.get(url, headers=member.headers, timeout=10)
        assert response.status_code == 403, response.text


def test_signed_in_users_cannot_write_directly(tenant):
    url = f"{FIRESTORE}/clients/{tenant.client_id}?updateMask.fieldPaths=isOperator"
    response = requests.patch(url, json={"fields": {"isOperator": {"booleanValue": True}}},
                              headers=tenant.admin.headers, timeout=10)
    assert response.status_code == 403
    assert tenant.client.is_operator is False
