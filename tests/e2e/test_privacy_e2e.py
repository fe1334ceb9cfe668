"""Privacy requests through Hosting, run by the Tasks emulator's privacyworker: an admin exports a member and downloads
the archive by its link; the member then erases themself and the admin's audit trail names them only by hash."""

import io
import json
import time
import zipfile

import requests

from tests.conftest import BASE_URL, bearer, sign_in

REQUESTS = "/api/privacy/requests"


def _finished(api, headers, request_id: str) -> dict:
    deadline = time.monotonic() + 120
    while True:
        request = api("GET", f"{REQUESTS}/{request_id}", headers=headers).json()["request"]
        if request["status"] in ("completed", "failed") or time.monotonic() > deadline:
            return request
        time.sleep(0.5)


def test_an_export_and_an_erasure_through_hosting(api, tenant, other_tenant):
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    player = bearer(sign_in(tenant.player.email, tenant.player.password))

    created = api("POST", REQUESTS, headers=admin, json={"type": "export", "uid": tenant.player.uid})
    assert created.status_code == 202 and created.headers["x-request-id"]
    export = _finished(api, admin, created.json()["request"]["requestId"])
    assert export["status"] == "completed" and export["manifest"]["identity"] == 2
    # The link is on the stack's public base URL (PUBLIC_BASE_URL); the test stack may run Hosting elsewhere.
    link = BASE_URL + "/api/privacy/downloads/" + export["downloadUrl"].split("/api/privacy/downloads/", 1)[1]
    archive = requests.get(link, timeout=60)  # no credentials
    assert archive.status_code == 200 and archive.headers["Content-Type"] == "application/zip"
    assert json.loads(zipfile.ZipFile(io.BytesIO(archive.content)).read("manifest.json")) == export["manifest"]
    assert requests.get(f"{BASE_URL}/api/privacy/downloads/forged.token", timeout=60).status_code == 404

    other_admin = bearer(sign_in(other_tenant.admin.email, other_tenant.admin.password))
    refused = api("POST", REQUESTS, headers=other_admin, json={"type": "erase", "uid": tenant.player.uid})
    assert refused.status_code == 404 and refused.json() == {"error": "User not found."}
    assert api("POST", REQUESTS, headers=player,
               json={"type": "erase", "uid": tenant.admin.uid}).status_code == 403

    erase = api("POST", REQUESTS, headers=player, json={"type": "erase", "uid": tenant.player.uid})
    assert erase.status_code == 202
    done = _finished(api, admin, erase.json()["request"]["requestId"])
    assert done["status"] == "completed" and done["subject"] is None and done["requestedBy"]["uid"] is None
    assert done["report"]["identity"] == {"deleted": 2, "anonymised": 0}
    trail = api("GET", REQUESTS, headers=admin).json()["requests"]
    assert [r["type"] for r in trail] == ["erase", "export"] and all(r["subject"] is None for r in trail)
    assert requests.get(link, timeout=60).status_code == 404  # the archive went with the person
