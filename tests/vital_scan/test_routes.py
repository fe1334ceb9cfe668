"""The partner API (4.8, 7.6, part 8) through the area's Flask app, against the emulators."""

import datetime as dt
import json

import pytest

from support.vital_scan import ORIGIN, make_partner, spent, stored_sessions
from tests.conftest import bearer
from wellness_api.api_keys import service as api_keys
from wellness_api.core import client_tokens, clock, config, firebase, server_keys
from wellness_api.vital_scan import points, ratelimit, service
from wellness_api.vital_scan import repository as repo

BASE = "/api/v1/vital-scan/sessions"
SESSION_FIELDS = {
    "vitalScanResultId", "userId", "status", "createdAt", "updatedAt", "expiresAt", "startedAt", "completedAt",
    "failedAt", "returnUrl", "error", "metrics",
}


def parse_iso(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def create(http, partner, **body):
    body.setdefault("userId", "user-1")
    response = http.post(BASE, json=body, headers=partner.headers)
    assert response.status_code == 201, response.json
    return response.json["data"]


def assert_error(response, status: int, code: str | None, message: str | None = None):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.json
    error = body["error"]
    assert error["requestId"] == response.headers["x-request-id"]
    if code is None:
        assert set(error) == {"message", "requestId"}
    else:
        assert error["code"] == code and set(error) == {"code", "message", "requestId"}
    if message is not None:
        assert error["message"] == message
    return body


# ------------------------------------------------------------------------------------------ create


def test_create_returns_the_session_with_its_hosted_url(http, partner):
    response = http.post(BASE, json={"userId": "  member:42@partner+x  ", "locale": "zh-Hant",
                                     "returnUrl": f"{ORIGIN}/scan/done?ref=7#section"}, headers=partner.headers)
    assert response.status_code == 201
    assert response.headers["x-request-id"]
    session = response.json["data"]
    assert set(response.json) == {"data"}
    assert set(session) == SESSION_FIELDS | {"vitalScanUrl"}
    assert session["userId"] == "member:42@partner+x"
    assert session["status"] == "created"
    assert session["returnUrl"] == f"{ORIGIN}/scan/done?ref=7"
    assert session["startedAt"] is session["completedAt"] is session["failedAt"] is None
    assert session["error"] is None and session["metrics"] is None
    assert session["createdAt"] == session["updatedAt"] and session["createdAt"].endswith("Z")
    assert parse_iso(session["expiresAt"]) - parse_iso(session["createdAt"]) == dt.timedelta(hours=2)
    url_base, _, token = session["vitalScanUrl"].partition("/vital-scan/#scanToken=")
    assert url_base == config.base_url() and len(token) >= 40
    assert spent(partner.client_id) == 1


def test_scan_token_is_stored_only_as_its_hash(http, partner):
    session = create(http, partner)
    token = session["vitalScanUrl"].split("#scanToken=")[1]
    stored = stored_sessions(partner.client_id)
    assert len(stored) == 1 and token not in json.dumps(stored, default=str)
    assert stored[0]["scanTokenHash"] == service.hash_token(token)
    index = repo.token_ref(service.hash_token(token)).get().to_dict()
    assert index["clientId"] == partner.client_id and index["sessionId"] == session["vitalScanResultId"]
    assert token not in json.dumps(index, default=str)


def test_every_create_is_a_new_session_and_a_new_point(http, partner):
    first = create(http, partner, userId="same")
    second = create(http, partner, userId="same")
    assert first["vitalScanResultId"] != second["vitalScanResultId"]
    assert first["vitalScanUrl"] != second["vitalScanUrl"]
    assert spent(partner.client_id) == 2


def test_optional_fields_may_be_absent_or_null(http, partner):
    session = create(http, partner, locale=None, returnUrl=None)
    assert session["returnUrl"] is None
    assert create(http, partner)["returnUrl"] is None


def test_caller_request_id_is_ignored(http, partner):
    response = http.post(BASE, json={"userId": "u"}, headers={**partner.headers, "x-request-id": "mine"})
    assert response.status_code == 201 and response.headers["x-request-id"] != "mine"
    bad = http.post(BASE, json={}, headers={**partner.headers, "X-Request-Id": "mine"})
    assert bad.headers["x-request-id"] != "mine"
    assert bad.json["error"]["requestId"] == bad.headers["x-request-id"]


@pytest.mark.parametrize(("raw", "message"), [
    (b"{", "Request body must be a JSON object."),
    (b"", "Request body must be a JSON object."),
    (b"[1]", "Request body must be a JSON object."),
    (b'"userId"', "Request body must be a JSON object."),
    (b"{}", "userId is required."),
    (b'{"userId": "u", "extra": 1}', "Unknown field: extra."),
    (b'{"userId": "u", "clientId": "x"}', "Unknown field: clientId."),
    (b'{"userId": 42}', None),
    (b'{"userId": null}', None),
    (b'{"userId": ["u"]}', None),
    (b'{"userId": "u", "locale": 1}', None),
    (b'{"userId": "u", "returnUrl": true}', None),
    (b'{"userId": "   "}', "userId must not be empty."),
    (b'{"userId": "a b"}', "userId may contain only ASCII letters, digits and . _ : @ + -"),
    (b'{"userId": "a/b"}', "userId may contain only ASCII letters, digits and . _ : @ + -"),
    (b'{"userId": "u", "locale": "fr"}', "locale must be one of: en, zh, zh-Hant, zh-Hans, zh-TW."),
    (b'{"userId": "u", "returnUrl": "http://partner.example/x"}', "returnUrl must be an absolute HTTPS URL."),
    (b'{"userId": "u", "returnUrl": "https://a:b@partner.example/x"}', "returnUrl must not contain credentials."),
])
def test_invalid_bodies_are_400_invalid_request_and_write_nothing(http, partner, raw, message):
    response = http.post(BASE, data=raw, headers={**partner.headers, "Content-Type": "application/json"})
    assert_error(response, 400, "invalid_request", message)
    assert spent(partner.client_id) == 0 and stored_sessions(partner.client_id) == []


def test_user_id_length_limits(http, partner):
    assert create(http, partner, userId="u" * 128)["userId"] == "u" * 128
    response = http.post(BASE, json={"userId": "u" * 129}, headers=partner.headers)
    assert_error(response, 400, "invalid_request", "userId must be at most 128 characters.")


def test_return_url_limits_and_approval(http, partner):
    ok = f"{ORIGIN}/" + "a" * (2048 - len(ORIGIN) - 1)
    assert create(http, partner, returnUrl=ok)["returnUrl"] == ok
    response = http.post(BASE, json={"userId": "u", "returnUrl": ok + "a"}, headers=partner.headers)
    assert_error(response, 400, "invalid_request", "returnUrl must be at most 2,048 characters.")
    response = http.post(BASE, json={"userId": "u", "returnUrl": "https://evil.example/cb"}, headers=partner.headers)
    assert_error(response, 400, "return_origin_not_approved",
                 "The origin of returnUrl is not approved for this workspace.")
    assert spent(partner.client_id) == 1


def test_no_approved_origins_means_no_return_url(http, tenant):
    partner = make_partner(tenant, origins="")
    response = http.post(BASE, json={"userId": "u", "returnUrl": f"{ORIGIN}/x"}, headers=partner.headers)
    assert_error(response, 400, "return_origin_not_approved")
    assert create(http, partner)["returnUrl"] is None


def test_oversized_body_is_400(http, partner):
    response = http.post(BASE, data=json.dumps({"userId": "u", "pad": "x" * 20_000}),
                         headers={**partner.headers, "Content-Type": "application/json"})
    assert_error(response, 400, "invalid_request", "Request body is too large.")
    huge = http.post(BASE, data=b"{" + b" " * (2 << 20) + b"}", headers={**partner.headers, "Content-Type": "application/json"})
    assert_error(huge, 400, "invalid_request", "Request body is too large.")
    assert spent(partner.client_id) == 0


# ---------------------------------------------------------------------------------------- points


def test_insufficient_credits_402_with_cycle(http, tenant):
    partner = make_partner(tenant, points=2)
    create(http, partner)
    create(http, partner)
    response = http.post(BASE, json={"userId": "u"}, headers=partner.headers)
    body = assert_error(response, 402, "insufficient_credits", "No Vital Scan points remain in the current cycle.")
    cycle = points.cycle_of(clock.now())
    assert body["remaining"] == 0
    assert body["cycleId"] == cycle.cycle_id
    assert body["resetsAt"] == clock.iso(cycle.resets_at)
    assert len(stored_sessions(partner.client_id)) == 2 and spent(partner.client_id) == 2


def test_zero_points_402_and_a_top_up_applies_at_once(http, tenant):
    partner = make_partner(tenant, points=0)
    assert_error(http.post(BASE, json={"userId": "u"}, headers=partner.headers), 402, "insufficient_credits")
    partner.configure("vitalScan.points=1")
    create(http, partner)
    assert_error(http.post(BASE, json={"userId": "u"}, headers=partner.headers), 402, "insufficient_credits")


def test_points_reset_with_the_next_cycle(http, tenant):
    partner = make_partner(tenant, points=1)
    create(http, partner)
    assert_error(http.post(BASE, json={"userId": "u"}, headers=partner.headers), 402, "insufficient_credits")
    cycle = points.cycle_of(clock.now())
    clock.advance(cycle.resets_at - clock.now() + dt.timedelta(seconds=1))
    session = create(http, partner)
    assert points.cycle_of(parse_iso(session["createdAt"])).cycle_id != cycle.cycle_id
    account = service.point_account(partner.tenant.client)
    assert (account["spent"], account["remaining"], account["points"]) == (1, 0, 1)


def test_get_and_delete_consume_no_point_and_nothing_is_refunded(http, tenant):
    partner = make_partner(tenant, points=1)
    session = create(http, partner)
    sid = session["vitalScanResultId"]
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).status_code == 200
    assert http.delete(f"{BASE}/{sid}", headers=partner.headers).status_code == 204
    assert spent(partner.client_id) == 1
    assert_error(http.post(BASE, json={"userId": "u"}, headers=partner.headers), 402, "insufficient_credits")


# ------------------------------------------------------------------------------------ GET, DELETE


def test_get_returns_the_session_without_url(http, partner):
    created = create(http, partner, returnUrl=f"{ORIGIN}/done")
    response = http.get(f"{BASE}/{created['vitalScanResultId']}", headers=partner.headers)
    assert response.status_code == 200
    session = response.json["data"]
    assert set(session) == SESSION_FIELDS
    assert session == {k: v for k, v in created.items() if k != "vitalScanUrl"}


def test_unknown_and_foreign_sessions_are_404_without_code(http, partner, other_partner):
    session = create(http, partner)
    sid = session["vitalScanResultId"]
    for path in (f"{BASE}/nope", f"{BASE}/{sid}x", f"{BASE}/..", f"{BASE}/a.b"):
        assert_error(http.get(path, headers=partner.headers), 404, None)
    # Another workspace's key: 404, and nothing changes.
    assert_error(http.get(f"{BASE}/{sid}", headers=other_partner.headers), 404, None, "Vital Scan session not found.")
    assert_error(http.delete(f"{BASE}/{sid}", headers=other_partner.headers), 404, None, "Vital Scan session not found.")
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).status_code == 200


def test_delete_is_soft_and_every_later_access_is_404(http, partner):
    session = create(http, partner)
    sid = session["vitalScanResultId"]
    token = session["vitalScanUrl"].split("#scanToken=")[1]
    response = http.delete(f"{BASE}/{sid}", headers=partner.headers)
    assert response.status_code == 204 and response.get_data() == b""
    assert response.headers["x-request-id"] and response.headers["ratelimit-limit"]
    clock.advance(dt.timedelta(seconds=6))
    assert_error(http.get(f"{BASE}/{sid}", headers=partner.headers), 404, None)
    assert_error(http.delete(f"{BASE}/{sid}", headers=partner.headers), 404, None)
    assert_error(http.get("/api/hosted/vital-scan/session", headers=bearer(token)), 401, None)
    stored = repo.session_ref(partner.client_id, sid).get().to_dict()
    assert stored["deleted"] is True and stored["deletedAt"] is not None
    assert not repo.token_ref(service.hash_token(token)).get().exists


def test_no_list_endpoint_and_unknown_methods(http, partner):
    assert_error(http.get(BASE, headers=partner.headers), 405, None)
    assert_error(http.put(f"{BASE}/x", headers=partner.headers), 405, None)
    assert_error(http.get("/api/v1/vital-scan/other", headers=partner.headers), 404, None)


# ----------------------------------------------------------------------------------------- access


def _all_routes(http, headers, sid="anything"):
    return [
        http.post(BASE, json={"userId": "u"}, headers=headers),
        http.get(f"{BASE}/{sid}", headers=headers),
        http.delete(f"{BASE}/{sid}", headers=headers),
    ]


def test_missing_invalid_and_revoked_keys_are_401(http, partner):
    sid = create(http, partner)["vitalScanResultId"]
    second = api_keys.create_key(partner.client_id, "second", False, "test")
    api_keys.revoke_key(partner.client_id, server_keys.authenticate(partner.key).key_id)
    credentials = [
        {}, {"Authorization": "Bearer"}, {"Authorization": f"Basic {partner.key}"}, {"Authorization": partner.key},
        bearer("wsk_" + "x" * 43), bearer("not-a-key"), bearer(partner.key),  # revoked
        bearer(partner.tenant.admin.token),  # an admin's ID token is not an API key
        bearer(partner.tenant.player.token),
        bearer(client_tokens.sign(partner.client_id, "k")),  # nor is a client token
        {"x-api-key": second.secret},
    ]
    for headers in credentials:
        for response in _all_routes(http, headers, sid):
            assert_error(response, 401, "invalid_api_key", "Missing or invalid API key.")
            assert "ratelimit-limit" not in response.headers
    # The new key of the same workspace still works.
    assert http.get(f"{BASE}/{sid}", headers=bearer(second.secret)).status_code == 200


def test_expired_key_is_401(http, partner):
    match = server_keys.authenticate(partner.key)
    server_keys.index_ref(match.key_hash).update({"expiresAt": clock.now() - dt.timedelta(seconds=1)})
    for response in _all_routes(http, partner.headers):
        assert_error(response, 401, "invalid_api_key")


@pytest.mark.parametrize(("setting", "code"), [
    ("modules.vitalScan=false", "product_not_available"),
    ("vitalScan.access=productNotAvailable", "product_not_available"),
    ("vitalScan.access=notEntitled", "product_not_entitled"),
    ("vitalScan.access=entitlementInactive", "entitlement_inactive"),
    ("vitalScan.access=entitlementExpired", "entitlement_expired"),
    ("vitalScan.access=freeMembershipRequired", "free_membership_required"),
])
def test_access_settings_give_the_403_codes(http, partner, setting, code):
    sid = create(http, partner)["vitalScanResultId"]
    partner.configure(setting)
    for response in _all_routes(http, partner.headers, sid):
        assert_error(response, 403, code)
    assert spent(partner.client_id) == 1
    partner.configure("modules.vitalScan=true", "vitalScan.access=active")
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).status_code == 200


def test_workspace_without_settings_has_no_product(http, tenant):
    key = api_keys.create_key(tenant.client_id, "k", False, "test").secret
    assert_error(http.post(BASE, json={"userId": "u"}, headers=bearer(key)), 403, "product_not_available")


def test_key_use_is_recorded(http, partner):
    create(http, partner)
    match = server_keys.authenticate(partner.key)
    assert match.last_used_at is not None


# ------------------------------------------------------------------------------------ rate limits


def test_rate_headers_on_every_counted_response(http, tenant):
    partner = make_partner(tenant, rpm=50)
    response = http.post(BASE, json={"userId": "u"}, headers=partner.headers)
    assert response.headers["ratelimit-limit"] == "50"
    assert response.headers["ratelimit-remaining"] == "49"
    assert 1 <= int(response.headers["ratelimit-reset"]) <= 60
    bad = http.post(BASE, json={"userId": "u", "x": 1}, headers=partner.headers)
    assert bad.status_code == 400 and bad.headers["ratelimit-remaining"] == "48"
    missing = http.get(f"{BASE}/none", headers=partner.headers)
    assert missing.status_code == 404 and missing.headers["ratelimit-remaining"] == "47"


def test_requests_per_minute_shared_by_all_operations(http, tenant):
    partner = make_partner(tenant, rpm=3)
    window = ratelimit.window_of(clock.now())
    clock.advance(window.ends_at - clock.now() + dt.timedelta(milliseconds=1))  # a fresh window
    sid = create(http, partner)["vitalScanResultId"]
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).status_code == 200
    assert http.get(f"{BASE}/nope", headers=partner.headers).status_code == 404
    for response in _all_routes(http, partner.headers, sid):
        body = assert_error(response, 429, "rate_limit_exceeded")
        assert "3 Vital Scan requests per minute" in body["error"]["message"]
        assert response.headers["ratelimit-remaining"] == "0" and response.headers["ratelimit-limit"] == "3"
        retry_after = int(response.headers["Retry-After"])
        assert 1 <= retry_after <= 60 and response.headers["ratelimit-reset"] == str(retry_after)
    assert spent(partner.client_id) == 1
    clock.advance(dt.timedelta(seconds=60))
    response = http.get(f"{BASE}/{sid}", headers=partner.headers)
    assert response.status_code == 200 and response.headers["ratelimit-remaining"] == "2"


def test_rate_limits_are_per_workspace(http, make_tenant):
    first, second = make_partner(make_tenant(), rpm=1), make_partner(make_tenant(), rpm=1)
    window = ratelimit.window_of(clock.now())
    clock.advance(window.ends_at - clock.now() + dt.timedelta(milliseconds=1))
    assert http.get(f"{BASE}/x", headers=first.headers).status_code == 404
    assert http.get(f"{BASE}/x", headers=first.headers).status_code == 429
    assert http.get(f"{BASE}/x", headers=second.headers).status_code == 404


def test_raising_the_limit_applies_within_the_window(http, tenant):
    partner = make_partner(tenant, rpm=1)
    window = ratelimit.window_of(clock.now())
    clock.advance(window.ends_at - clock.now() + dt.timedelta(milliseconds=1))
    assert http.get(f"{BASE}/x", headers=partner.headers).status_code == 404
    assert http.get(f"{BASE}/x", headers=partner.headers).status_code == 429
    partner.configure("vitalScan.requestsPerMinute=5")
    assert http.get(f"{BASE}/x", headers=partner.headers).status_code == 404


def test_poll_limit_one_get_per_session_per_five_seconds(http, partner):
    sid = create(http, partner)["vitalScanResultId"]
    other = create(http, partner)["vitalScanResultId"]
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).status_code == 200
    clock.advance(dt.timedelta(seconds=2))
    response = http.get(f"{BASE}/{sid}", headers=partner.headers)
    body = assert_error(response, 429, None, "A session can be polled at most once every 5 seconds. Retry after 3 seconds.")
    assert response.headers["Retry-After"] == "3"
    assert "code" not in body["error"]
    # Another session is polled independently; DELETE is not a poll.
    assert http.get(f"{BASE}/{other}", headers=partner.headers).status_code == 200
    clock.advance(dt.timedelta(seconds=3))
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).status_code == 200


# ----------------------------------------------------------------------------------------- expiry


def test_unfinished_session_is_expired_two_hours_after_creation(http, partner):
    session = create(http, partner)
    sid = session["vitalScanResultId"]
    clock.advance(dt.timedelta(hours=2) - dt.timedelta(seconds=1))
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).json["data"]["status"] == "created"
    clock.advance(dt.timedelta(seconds=6))
    data = http.get(f"{BASE}/{sid}", headers=partner.headers).json["data"]
    assert data["status"] == "expired"
    assert data["updatedAt"] == data["expiresAt"] == session["expiresAt"]
    assert data["metrics"] is None
    assert repo.session_ref(partner.client_id, sid).get().get("status") == "expired"


# ---------------------------------------------------------------------------------- unexpected errors


def test_unexpected_errors_are_500_with_the_documented_codes(http, partner, capsys):
    sid = create(http, partner)["vitalScanResultId"]
    # Data no code path writes: a grant that is not a number, a session without its timestamps.
    firebase.db().document(f"clients/{partner.client_id}").update({"settings.vitalScan.points": "many"})
    repo.session_ref(partner.client_id, sid).update({"expiresAt": None})
    response = http.post(BASE, json={"userId": "u"}, headers=partner.headers)
    assert_error(response, 500, "vital_scan_creation_failed", "The Vital Scan session could not be created.")
    assert_error(http.get(f"{BASE}/{sid}", headers=partner.headers), 500, None, "Internal server error.")
    assert partner.key not in capsys.readouterr().err


# ---------------------------------------------------------------------- bodies the parser cannot take


@pytest.mark.parametrize("raw", [b"[" * 1000 + b"]" * 1000, b'{"userId": ' + b'{"a":' * 1000 + b"1" + b"}" * 1001,
                                 b'{"userId": "u", "locale": ' + b"[" * 40 + b"]" * 40 + b"}"])
def test_deeply_nested_bodies_are_400_invalid_request(http, partner, raw):
    response = http.post(BASE, data=raw, headers={**partner.headers, "Content-Type": "application/json"})
    assert_error(response, 400, "invalid_request", "Request body is nested too deeply.")
    assert spent(partner.client_id) == 0 and stored_sessions(partner.client_id) == []


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_json_is_415_unsupported_media_type(http, partner, content_type):
    headers = {**partner.headers, **({"Content-Type": content_type} if content_type else {})}
    response = http.post(BASE, data=json.dumps({"userId": "u"}), headers=headers)
    assert_error(response, 415, "unsupported_media_type", "Content-Type must be application/json.")
    assert spent(partner.client_id) == 0 and stored_sessions(partner.client_id) == []
    ok = http.post(BASE, data=json.dumps({"userId": "u"}),
                   headers={**partner.headers, "Content-Type": "application/json; charset=utf-8"})
    assert ok.status_code == 201


# ------------------------------------------------------------------------------ dependencies down: 503


class SessionStoreDown:
    """Firestore refusing reads of Vital Scan session documents (a fake at the client library's boundary);
    the API key index, the client and the rate counters stay readable."""

    def __init__(self, monkeypatch):
        from google.api_core import exceptions as gexc
        from google.cloud.firestore_v1.document import DocumentReference

        real_get = DocumentReference.get

        def get(ref, *args, **kwargs):
            if f"/{repo.SESSIONS}/" in ref.path:
                raise gexc.ServiceUnavailable("firestore is down")
            return real_get(ref, *args, **kwargs)

        monkeypatch.setattr(DocumentReference, "get", get)


class SessionWritesAlwaysConflict:
    """Every compare-and-set write of a session fails its precondition, as if other requests kept
    changing it (a fake at the client library's boundary); other writes go through."""

    def __init__(self, monkeypatch):
        from google.api_core import exceptions as gexc
        from google.cloud.firestore_v1.batch import WriteBatch

        real_commit = WriteBatch.commit

        def commit(batch, *args, **kwargs):
            if any(f"/{repo.SESSIONS}/" in (w.update.name or w.delete) for w in batch._write_pbs):
                raise gexc.FailedPrecondition("the document changed")
            return real_commit(batch, *args, **kwargs)

        monkeypatch.setattr(WriteBatch, "commit", commit)


def test_every_503_of_get_and_delete_carries_a_code(http, partner, monkeypatch):
    sid = create(http, partner)["vitalScanResultId"]
    SessionStoreDown(monkeypatch)
    for method in ("get", "delete"):
        clock.advance(dt.timedelta(seconds=6))
        response = getattr(http, method)(f"{BASE}/{sid}", headers=partner.headers)
        assert_error(response, 503, "vital_scan_unavailable", "Vital Scan is temporarily unavailable; retry later.")
    monkeypatch.undo()
    SessionWritesAlwaysConflict(monkeypatch)
    for method in ("get", "delete"):
        clock.advance(dt.timedelta(seconds=6))
        response = getattr(http, method)(f"{BASE}/{sid}", headers=partner.headers)
        assert_error(response, 503, "vital_scan_unavailable")
    monkeypatch.undo()
    clock.advance(dt.timedelta(seconds=6))
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).json["data"]["status"] == "created"
