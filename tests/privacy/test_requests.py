"""POST/GET /api/privacy/requests and the download: who may ask about whom, every refusal in the area's envelope
({"error": message}), the caps, and an export's link that works without credentials and then expires."""

import io
import json
import time
import urllib.parse
import zipfile

import pytest

from tests.conftest import assert_error
from tests.privacy.conftest import REQUESTS, create, deliver, read
from wellness_api.privacy import keys, models, service
from wellness_api.privacy import repository as repo


def test_an_admin_exports_a_member_and_downloads_the_archive(http, tenant, held_tasks):
    request = create(http, tenant.admin.headers, "export", tenant.player.uid)
    assert request["status"] == "queued" and request["subject"]["uid"] == tenant.player.uid
    assert request["subject"]["email"] == tenant.player.email and request["downloadUrl"] is None
    assert request["requestedBy"] == {"kind": "user", "uid": tenant.admin.uid, "role": "admin"}
    assert held_tasks == [(tenant.client_id, request["requestId"])]
    assert deliver(tenant.client_id, request["requestId"]) == "completed"

    done = read(http, tenant.admin.headers, request["requestId"])
    assert done["status"] == "completed" and done["manifest"]["identity"] == 2  # the member record, the Auth user
    assert set(done["manifest"]) == set(done["progress"]) and done["archiveBytes"] > 0
    url = urllib.parse.urlsplit(done["downloadUrl"])
    assert url.path.startswith("/api/privacy/downloads/") and done["downloadExpiresAt"]
    response = http.get(url.path)  # no credentials
    assert response.status_code == 200 and response.mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.get_data()))
    assert json.loads(archive.read("manifest.json")) == done["manifest"]
    identity = json.loads(archive.read("identity.json"))
    assert identity["documents"]["user"][0]["data"]["email"] == tenant.player.email


def test_a_person_asks_for_their_own_data_and_sees_their_request(http, tenant, held_tasks):
    request = create(http, tenant.player.headers, "export", tenant.player.uid)
    assert read(http, tenant.player.headers, request["requestId"])["requestId"] == request["requestId"]
    # Another player of the client does not see it (nor learns that it exists).
    other = tenant.add_member("player")
    assert_error(http.get(f"{REQUESTS}/{request['requestId']}", headers=other.headers), 404,
                 service.NOT_FOUND)


def test_a_player_may_not_ask_about_someone_else(http, tenant, held_tasks):
    for kind in ("export", "erase"):
        assert_error(http.post(REQUESTS, json={"type": kind, "uid": tenant.admin.uid}, headers=tenant.player.headers),
                     403, service.NOT_YOURS)
    assert held_tasks == []


def test_another_clients_admin_gets_404_for_a_member(http, tenant, other_tenant, held_tasks):
    assert_error(http.post(REQUESTS, json={"type": "erase", "uid": tenant.player.uid},
                           headers=other_tenant.admin.headers), 404, service.USER_NOT_FOUND)
    assert_error(http.post(REQUESTS, json={"type": "export", "uid": "no-such-uid"}, headers=tenant.admin.headers),
                 404, service.USER_NOT_FOUND)
    assert held_tasks == []


def test_another_clients_admin_cannot_read_a_request(http, tenant, other_tenant, held_tasks):
    request = create(http, tenant.admin.headers, "export", tenant.player.uid)
    assert_error(http.get(f"{REQUESTS}/{request['requestId']}", headers=other_tenant.admin.headers), 404,
                 service.NOT_FOUND)
    listed = http.get(REQUESTS, headers=other_tenant.admin.headers).json["requests"]
    assert request["requestId"] not in [r["requestId"] for r in listed]


@pytest.mark.parametrize("body, message", [
    ({"type": "delete", "uid": "u1"}, "Invalid field type: Input should be 'export' or 'erase'."),
    ({"type": "export", "uid": "u" * (models.MAX_UID + 1)},
     f"Invalid field uid: String should have at most {models.MAX_UID} characters."),
    ({"type": "export", "uid": ""}, "Invalid field uid: String should have at least 1 character."),
    ({"type": "export", "uid": 42}, "Invalid field uid: Input should be a valid string."),
    ({"type": "export"}, "Missing required field: uid."),
    ({"type": "export", "uid": "u1", "clientId": "x"}, "Unknown field: clientId."),
])
def test_bad_bodies_are_400_before_any_work(http, tenant, held_tasks, body, message):
    assert_error(http.post(REQUESTS, json=body, headers=tenant.admin.headers), 400, message)
    assert held_tasks == []


def test_without_a_token_every_endpoint_is_401(http):
    assert http.post(REQUESTS, json={"type": "export", "uid": "u"}).status_code == 401
    assert_error(http.get(REQUESTS), 401, "Missing or invalid Authorization header")
    assert_error(http.get(f"{REQUESTS}/x"), 401, "Missing or invalid Authorization header")


def test_unknown_and_malformed_request_ids_are_404(http, tenant):
    for request_id in ("pr00000000000000000000", "a" * 65, "..", "%00"):
        assert_error(http.get(f"{REQUESTS}/{request_id}", headers=tenant.admin.headers), 404, service.NOT_FOUND)


def test_an_open_request_is_answered_again_not_duplicated(http, tenant, held_tasks):
    first = create(http, tenant.admin.headers, "erase", tenant.player.uid)
    again = create(http, tenant.player.headers, "erase", tenant.player.uid)
    assert again["requestId"] == first["requestId"] and len(held_tasks) == 1
    # An export of the same person is another request.
    assert create(http, tenant.admin.headers, "export", tenant.player.uid)["requestId"] != first["requestId"]


def test_a_client_has_at_most_so_many_open_requests(http, tenant, held_tasks, monkeypatch):
    monkeypatch.setattr(models, "MAX_OPEN_PER_CLIENT", 2)
    others = [tenant.add_member("player") for _ in range(2)]
    for member in others:
        create(http, tenant.admin.headers, "export", member.uid)
    response = http.post(REQUESTS, json={"type": "export", "uid": tenant.player.uid}, headers=tenant.admin.headers)
    assert response.status_code == 429 and response.headers["Retry-After"] == "60"
    assert response.json == {"error": service.TOO_MANY.format(n=2)}
    assert len(held_tasks) == 2


def test_the_audit_trail_is_for_admins_and_pages_newest_first(http, tenant, held_tasks):
    made = [create(http, tenant.admin.headers, "export", m.uid)["requestId"]
            for m in (tenant.player, tenant.add_member("player"), tenant.add_member("player"))]
    assert_error(http.get(REQUESTS, headers=tenant.player.headers), 403, service.ADMINS_ONLY)
    page = http.get(f"{REQUESTS}?limit=2", headers=tenant.admin.headers).json
    assert [r["requestId"] for r in page["requests"]] == made[::-1][:2] and page["nextStartAfter"] == made[1]
    rest = http.get(f"{REQUESTS}?limit=2&startAfter={page['nextStartAfter']}", headers=tenant.admin.headers).json
    assert [r["requestId"] for r in rest["requests"]] == [made[0]] and rest["nextStartAfter"] is None
    mine = http.get(f"{REQUESTS}?uid={tenant.player.uid}", headers=tenant.admin.headers).json["requests"]
    assert [r["requestId"] for r in mine] == [made[0]]
    assert http.get(f"{REQUESTS}?type=erase", headers=tenant.admin.headers).json["requests"] == []


@pytest.mark.parametrize("query", ["limit=0", f"limit={models.PAGE_MAX + 1}", "limit=x", "type=delete",
                                   "status=done", "startAfter=a/b", f"uid={'u' * (models.MAX_UID + 1)}"])
def test_bad_queries_are_400(http, tenant, query):
    response = http.get(f"{REQUESTS}?{query}", headers=tenant.admin.headers)
    assert response.status_code == 400 and set(response.json) == {"error"}


def _completed_export(http, tenant) -> dict:
    request = create(http, tenant.admin.headers, "export", tenant.player.uid)
    deliver(tenant.client_id, request["requestId"])
    return read(http, tenant.admin.headers, request["requestId"])


def test_a_download_link_expires_and_cannot_be_forged(http, tenant, held_tasks):
    done = _completed_export(http, tenant)
    stored = repo.read(tenant.client_id, done["requestId"]).data
    expired = keys.download_token(stored["downloadKey"], tenant.client_id, done["requestId"], int(time.time()) - 1)
    assert_error(http.get(f"/api/privacy/downloads/{expired}"), 404, service.BAD_LINK)
    forged = keys.download_token("00" * 32, tenant.client_id, done["requestId"], int(time.time()) + 600)
    assert_error(http.get(f"/api/privacy/downloads/{forged}"), 404, service.BAD_LINK)
    for junk in ("x", "a.b", "x" * (models.MAX_TOKEN + 1)):
        assert_error(http.get(f"/api/privacy/downloads/{junk}"), 404, service.BAD_LINK)
    # Signed for one export, it opens no other.
    valid = urllib.parse.urlsplit(done["downloadUrl"]).path.rsplit("/", 1)[1]
    payload, signature = valid.split(".")
    other = json.loads(keys._unb64(payload)) | {"r": "another-request"}
    moved = keys._b64(json.dumps(other, separators=(",", ":")).encode()) + "." + signature
    assert_error(http.get(f"/api/privacy/downloads/{moved}"), 404, service.BAD_LINK)
    assert http.get(f"/api/privacy/downloads/{valid}").status_code == 200
