"""Vital Scan end to end through Hosting: a partner server with an API key, and the hosted page's calls."""

import time
from urllib.parse import urlsplit

from tests.conftest import bearer
from tests.vital_scan.conftest import ORIGIN, make_partner
from wellness_api.vital_scan import service

BASE = "/api/v1/vital-scan/sessions"
HOSTED = "/api/hosted/vital-scan"


def trace(seconds=16, fps=30):
    frames = int(seconds * fps) + 1
    return {"fps": fps, "t": [i * 1000 / fps for i in range(frames)], "rgb": [[140, 100, 80]] * frames}


def measure_until_done(api, scan, body):
    """Send a trace until the session completes: one that supports nothing is first answered "try again"
    (200 in_progress with `retry`, vital_scan/models.py MAX_RETRIES times). The retries seen and the last answer."""
    retries = []
    for _ in range(service.MAX_RETRIES + 1):
        response = api("POST", f"{HOSTED}/measurement", json=body, headers=scan)
        if response.status_code != 200 or response.json()["status"] != "in_progress":
            return retries, response
        retries.append(response.json()["retry"])
    return retries, response


def error_of(response, status, code=None):
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["requestId"] == response.headers["x-request-id"]
    assert error.get("code") == code
    return response.json()


def test_partner_creates_user_scans_partner_reads_result(api, tenant):
    partner = make_partner(tenant, points=3, rpm=100)
    created = api("POST", BASE, json={"userId": " member-1 ", "locale": "en", "returnUrl": f"{ORIGIN}/done#x"},
                  headers={**partner.headers, "x-request-id": "caller-chosen"})
    assert created.status_code == 201, created.text
    assert created.headers["x-request-id"] and created.headers["x-request-id"] != "caller-chosen"
    assert created.headers["ratelimit-limit"] == "100" and created.headers["ratelimit-remaining"] == "99"
    session = created.json()["data"]
    sid = session["vitalScanResultId"]
    assert session["userId"] == "member-1" and session["status"] == "created" and session["returnUrl"] == f"{ORIGIN}/done"
    # The host is the functions' PUBLIC_BASE_URL (functions/.env pins :5000, also under a port offset).
    url = urlsplit(session["vitalScanUrl"])
    assert url.path == "/vital-scan/" and url.fragment.startswith("scanToken=") and not url.query
    token = session["vitalScanUrl"].split("#scanToken=")[1]

    page = api("GET", "/vital-scan/")
    assert page.status_code == 200 and "scanToken" in page.text
    assert page.headers.get("X-Frame-Options") == "DENY"

    scan = bearer(token)
    assert api("GET", f"{HOSTED}/session", headers=scan).json()["status"] == "created"
    assert api("POST", f"{HOSTED}/start", headers=scan).json()["status"] == "in_progress"
    exited = api("POST", f"{HOSTED}/exit", headers=scan).json()
    assert exited["redirectUrl"] == f"{ORIGIN}/done?vital_scan_session_id={sid}&status=exited"

    polled = api("GET", f"{BASE}/{sid}", headers=partner.headers)
    assert polled.status_code == 200 and "vitalScanUrl" not in polled.json()["data"]
    assert polled.json()["data"]["status"] == "in_progress"
    too_soon = api("GET", f"{BASE}/{sid}", headers=partner.headers)
    error_of(too_soon, 429)
    assert 1 <= int(too_soon.headers["Retry-After"]) <= 5

    retries, done = measure_until_done(api, scan, trace())
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "completed" and done.json()["metrics"] is None
    assert len(retries) == service.MAX_RETRIES  # a flat trace supports nothing: the page was told each time to retry
    error_of(api("POST", f"{HOSTED}/start", headers=scan), 410)

    time.sleep(5.1)  # the per-session poll interval
    final = api("GET", f"{BASE}/{sid}", headers=partner.headers).json()["data"]
    assert final["status"] == "completed" and final["completedAt"] and final["metrics"] is None

    assert api("DELETE", f"{BASE}/{sid}", headers=partner.headers).status_code == 204
    error_of(api("GET", f"{BASE}/{sid}", headers=partner.headers), 404)
    error_of(api("GET", f"{HOSTED}/session", headers=scan), 401)


def test_points_access_and_credentials_through_hosting(api, tenant, other_tenant):
    partner = make_partner(tenant, points=1)
    other = make_partner(other_tenant)
    sid = api("POST", BASE, json={"userId": "u"}, headers=partner.headers).json()["data"]["vitalScanResultId"]
    body = error_of(api("POST", BASE, json={"userId": "u"}, headers=partner.headers), 402, "insufficient_credits")
    assert body["remaining"] == 0 and body["cycleId"] and body["resetsAt"]

    error_of(api("GET", f"{BASE}/{sid}", headers=other.headers), 404)
    error_of(api("DELETE", f"{BASE}/{sid}", headers=other.headers), 404)
    for headers in ({}, bearer("wsk_" + "z" * 43), bearer(tenant.admin.token)):
        error_of(api("POST", BASE, json={"userId": "u"}, headers=headers), 401, "invalid_api_key")
        error_of(api("GET", f"{BASE}/{sid}", headers=headers), 401, "invalid_api_key")

    partner.configure("vitalScan.access=entitlementExpired")
    error_of(api("GET", f"{BASE}/{sid}", headers=partner.headers), 403, "entitlement_expired")
    partner.configure("modules.vitalScan=false")
    error_of(api("DELETE", f"{BASE}/{sid}", headers=partner.headers), 403, "product_not_available")


def test_rate_limit_through_hosting(api, tenant):
    partner = make_partner(tenant, rpm=2)
    statuses = [api("GET", f"{BASE}/missing", headers=partner.headers) for _ in range(4)]
    limited = [r for r in statuses if r.status_code == 429]
    assert limited and all(r.status_code in (404, 429) for r in statuses)
    body = error_of(limited[0], 429, "rate_limit_exceeded")
    assert "2 Vital Scan requests per minute" in body["error"]["message"]
    assert limited[0].headers["ratelimit-remaining"] == "0" and int(limited[0].headers["Retry-After"]) >= 1


def test_bad_input_through_hosting_is_never_a_500(api, tenant):
    partner = make_partner(tenant)
    json_headers = {**partner.headers, "Content-Type": "application/json"}
    for data, code in [
        (b"{", "invalid_request"), (b"[]", "invalid_request"), (b'{"userId": 1}', "invalid_request"),
        (b'{"userId": "u", "more": true}', "invalid_request"), (b'{"userId": "u/x"}', "invalid_request"),
        (b'{"userId": "u", "returnUrl": "https://elsewhere.example/"}', "return_origin_not_approved"),
        (b'{"userId": "u", "returnUrl": "http://partner.example/"}', "invalid_request"),
        (b'{"userId": "u", "locale": "de"}', "invalid_request"),
    ]:
        error_of(api("POST", BASE, data=data, headers=json_headers), 400, code)
    error_of(api("PUT", f"{BASE}/x", headers=partner.headers), 405)
    error_of(api("POST", f"{HOSTED}/measurement", data=b"{", headers={"Authorization": "Bearer " + "q" * 43}), 401)


def test_trace_caps_through_hosting(api, tenant):
    """Issue 25: five frames whose last time is 20,000 s (135 bytes) once grew the worker by 1.5 GB. Now a 400
    that names the rule, before the engine; and the longest scan (180 s) is still measured."""
    partner = make_partner(tenant, points=1)
    created = api("POST", BASE, json={"userId": "caps"}, headers=partner.headers)
    scan = bearer(created.json()["data"]["vitalScanUrl"].split("#scanToken=")[1])
    api("POST", f"{HOSTED}/start", headers=scan)
    json_scan = {**scan, "Content-Type": "application/json"}
    far = b'{"fps": 10, "t": [0, 100, 200, 300, 20000000], "rgb": [[150, 110, 90], [150, 110, 90], ' \
          b'[150, 110, 90], [150, 110, 90], [150, 110, 90]]}'
    body = error_of(api("POST", f"{HOSTED}/measurement", data=far, headers=json_scan), 400, "invalid_request")
    assert body["error"]["message"] == ("t must be milliseconds from 0 to 180000 since the first frame: "
                                        "a scan lasts at most 180 seconds.")
    spread = {**trace(), "t": [i * 300 for i in range(481)]}  # 481 frames at 30 fps are 16 s, not 144 s
    body = error_of(api("POST", f"{HOSTED}/measurement", json=spread, headers=scan), 400, "invalid_request")
    assert body["error"]["message"].startswith("The trace's time span must agree with its frame count and fps")
    _, done = measure_until_done(api, scan, trace(seconds=180))
    assert done.status_code == 200 and done.json()["status"] == "completed", done.text
