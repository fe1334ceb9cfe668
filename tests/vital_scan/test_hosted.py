"""The hosted-session endpoints (CONTRACT 4) and the lifecycle of 3.2, driven by the scanToken."""

import datetime as dt
import json

import pytest

from tests.conftest import bearer
from tests.vital_scan.conftest import ORIGIN
from tests.vital_scan.test_routes import BASE, assert_error, spent
from wellness_api.core import clock
from wellness_api.vital_scan import engine, service
from wellness_api.vital_scan import repository as repo

HOSTED = "/api/hosted/vital-scan"


def new_session(http, partner, **body):
    body.setdefault("userId", "member-7")
    response = http.post(BASE, json=body, headers=partner.headers)
    assert response.status_code == 201, response.json
    data = response.json["data"]
    return data["vitalScanResultId"], data["vitalScanUrl"].split("#scanToken=")[1]


def partner_view(http, partner, sid):
    clock.advance(dt.timedelta(seconds=5))  # the poll limit
    response = http.get(f"{BASE}/{sid}", headers=partner.headers)
    assert response.status_code == 200, response.json
    return response.json["data"]


def trace(seconds=16, fps=30):
    frames = int(seconds * fps) + 1
    return {"fps": fps, "t": [round(i * 1000 / fps, 3) for i in range(frames)],
            "rgb": [[150 + (i % 5), 100.5, 80] for i in range(frames)]}


def complete(http, headers):
    """Send trace() until the session completes: a trace that supports nothing is first answered "try
    again" (service.MAX_RETRIES times, the session staying in_progress). The last response."""
    for _ in range(service.MAX_RETRIES + 1):
        response = http.post(f"{HOSTED}/measurement", json=trace(), headers=headers)
        if response.status_code != 200 or response.json["status"] != "in_progress":
            break
    return response


class ScriptedEngine:
    """An engine at the provider boundary that returns a fixed result, internal fields included."""

    def __init__(self, result):
        self.result = result
        self.traces = []

    def estimate(self, trace):
        self.traces.append(trace)
        return self.result


def test_full_flow_created_in_progress_completed(http, partner):
    sid, token = new_session(http, partner, locale="zh-TW", returnUrl=f"{ORIGIN}/back?x=1#frag")
    scan = bearer(token)

    response = http.get(f"{HOSTED}/session", headers=scan)
    assert response.status_code == 200 and response.headers["x-request-id"]
    created = response.json
    assert created == {"status": "created", "locale": "zh-TW", "expiresAt": created["expiresAt"],
                       "returnUrl": f"{ORIGIN}/back?x=1", "retriesLeft": service.MAX_RETRIES}
    assert "ratelimit-limit" not in response.headers  # hosted calls do not spend the partner's rate

    started = http.post(f"{HOSTED}/start", headers=scan)
    assert started.status_code == 200 and started.json["status"] == "in_progress"
    view = partner_view(http, partner, sid)
    assert view["status"] == "in_progress" and view["startedAt"] and view["metrics"] is None

    # The user leaves and comes back: start again changes nothing and costs no point.
    clock.advance(dt.timedelta(minutes=10))
    again = http.post(f"{HOSTED}/start", headers=scan)
    assert again.status_code == 200 and again.json["status"] == "in_progress"
    assert partner_view(http, partner, sid)["startedAt"] == view["startedAt"]
    assert spent(partner.client_id) == 1

    exited = http.post(f"{HOSTED}/exit", headers=scan)
    assert exited.status_code == 200
    assert exited.json == {"redirectUrl": f"{ORIGIN}/back?x=1&vital_scan_session_id={sid}&status=exited"}
    assert partner_view(http, partner, sid)["status"] == "in_progress"

    # A trace that supports nothing: the page is told what to change MAX_RETRIES times, and the next scan
    # completes (retriesLeft 0 tells the page that its next trace is the last).
    for left in reversed(range(service.MAX_RETRIES)):
        again = http.post(f"{HOSTED}/measurement", json=trace(), headers=scan)
        assert again.status_code == 200 and again.json == {"status": "in_progress", "retry": "weak", "retriesLeft": left}
        # A page opened again (a reload) reads the same count, so its last scan is long too.
        assert http.get(f"{HOSTED}/session", headers=scan).json["retriesLeft"] == left
        assert partner_view(http, partner, sid)["status"] == "in_progress" and spent(partner.client_id) == 1
    done = http.post(f"{HOSTED}/measurement", json=trace(), headers=scan)
    assert done.status_code == 200, done.json
    assert done.json == {"status": "completed", "metrics": None,
                         "redirectUrl": f"{ORIGIN}/back?x=1&vital_scan_session_id={sid}&status=completed"}
    final = partner_view(http, partner, sid)
    assert final["status"] == "completed" and final["completedAt"] and final["metrics"] is None
    assert final["failedAt"] is None and final["error"] is None

    # A terminal session refuses its token on every endpoint.
    for method, path in [("GET", "/session"), ("POST", "/start"), ("POST", "/exit"), ("POST", "/fail")]:
        response = http.open(f"{HOSTED}{path}", method=method, json={"message": "x"}, headers=scan)
        assert_error(response, 410, None, "This Vital Scan session has ended.")
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=scan), 410, None)
    assert spent(partner.client_id) == 1


def test_engine_metrics_are_stored_public_only(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    result = {"hr": 71.5, "spo2": 97, "hrv_indices": {"RMSSD": 31.0, "internalScore": 0.4},
              "signalQuality": 0.83, "snr": 3.1, "bvp": [0.1, 0.2], "sbp": None}
    with engine.installed(ScriptedEngine(result)) as scripted:
        response = http.post(f"{HOSTED}/measurement", json=trace(seconds=20, fps=25), headers=bearer(token))
    assert response.status_code == 200
    expected = {"hr": 71.5, "spo2": 97, "hrv_indices": {"RMSSD": 31.0}}
    assert response.json["metrics"] == expected
    assert response.json["redirectUrl"] is None
    assert scripted.traces[0].fps == 25 and len(scripted.traces[0].t) == 501
    assert partner_view(http, partner, sid)["metrics"] == expected
    stored = repo.session_ref(partner.client_id, sid).get().to_dict()
    assert stored["metrics"] == expected
    assert "rgb" not in json.dumps(stored, default=str) and "signalQuality" not in str(stored)


def test_empty_metrics_stay_empty(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    with engine.installed(ScriptedEngine({"quality": 0.1})):
        response = http.post(f"{HOSTED}/measurement", json=trace(), headers=bearer(token))
    assert response.json["metrics"] == {}
    assert partner_view(http, partner, sid)["metrics"] == {}


def test_fail_moves_in_progress_to_failed_without_refund(http, partner):
    sid, token = new_session(http, partner)
    scan = bearer(token)
    http.post(f"{HOSTED}/start", headers=scan)
    response = http.post(f"{HOSTED}/fail", json={"message": "  Face not detected  "}, headers=scan)
    assert response.status_code == 200 and response.json == {"status": "failed"}
    view = partner_view(http, partner, sid)
    assert view["status"] == "failed" and view["failedAt"] and view["error"] == {"message": "Face not detected"}
    assert view["completedAt"] is None and view["metrics"] is None
    assert spent(partner.client_id) == 1
    assert_error(http.post(f"{HOSTED}/start", headers=scan), 410, None)


def test_measurement_and_fail_need_a_started_scan(http, partner):
    sid, token = new_session(http, partner)
    scan = bearer(token)
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=scan), 409, None, "The scan has not been started.")
    assert_error(http.post(f"{HOSTED}/fail", json={"message": "x"}, headers=scan), 409, None, "The scan has not been started.")
    assert partner_view(http, partner, sid)["status"] == "created"


def test_exit_without_return_url_is_null_and_changes_nothing(http, partner):
    sid, token = new_session(http, partner)
    response = http.post(f"{HOSTED}/exit", headers=bearer(token))
    assert response.status_code == 200 and response.json == {"redirectUrl": None}
    assert partner_view(http, partner, sid)["status"] == "created"
    assert http.get(f"{HOSTED}/session", headers=bearer(token)).json["locale"] == "en"


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer"}, bearer("short"), bearer("x" * 43), bearer("a/b" * 15), {"Authorization": "Token abc"},
])
def test_missing_or_unknown_tokens_are_401(http, partner, headers):
    for method, path in [("GET", "/session"), ("POST", "/start"), ("POST", "/measurement"), ("POST", "/fail"),
                         ("POST", "/exit")]:
        response = http.open(f"{HOSTED}{path}", method=method, json={}, headers=headers)
        assert_error(response, 401, None, "Missing or invalid scan token.")


def test_api_key_is_not_a_scan_token_and_token_is_not_an_api_key(http, partner):
    sid, token = new_session(http, partner)
    assert_error(http.get(f"{HOSTED}/session", headers=partner.headers), 401, None)
    assert_error(http.get(f"{BASE}/{sid}", headers=bearer(token)), 401, "invalid_api_key")


def test_a_token_reaches_only_its_own_session(http, partner, other_partner):
    sid, token = new_session(http, partner)
    other_sid, _ = new_session(http, other_partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    assert partner_view(http, partner, sid)["status"] == "in_progress"
    assert partner_view(http, other_partner, other_sid)["status"] == "created"


@pytest.mark.parametrize("body", [
    {"fps": 30, "t": [0, 1000], "rgb": [[1, 2, 3], [1, 2, 3]]},
    {**trace(), "extra": 1},
    {"fps": True, "t": trace()["t"], "rgb": trace()["rgb"]},
    {"fps": "30", "t": trace()["t"], "rgb": trace()["rgb"]},
    {"fps": 30, "t": trace()["t"], "rgb": trace()["rgb"][:-1]},
    {"fps": 30, "t": trace()["t"], "rgb": [[1, 2]] * len(trace()["t"])},
    {"fps": 30, "t": trace()["t"], "rgb": [[1, 2, 300]] * len(trace()["t"])},
    {"fps": 30, "t": list(reversed(trace()["t"])), "rgb": trace()["rgb"]},
    {"fps": 30, "t": trace()["t"]},
    {},
])
def test_bad_traces_are_400_and_change_nothing(http, partner, body):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    assert_error(http.post(f"{HOSTED}/measurement", json=body, headers=bearer(token)), 400, "invalid_request")
    assert partner_view(http, partner, sid)["status"] == "in_progress"


def test_non_finite_numbers_and_malformed_json_are_400(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    raw = json.dumps(trace()).replace('"fps": 30', '"fps": NaN')
    headers = {**bearer(token), "Content-Type": "application/json"}
    assert_error(http.post(f"{HOSTED}/measurement", data=raw, headers=headers), 400, "invalid_request")
    assert_error(http.post(f"{HOSTED}/measurement", data=b"{", headers=headers), 400, "invalid_request")
    assert_error(http.post(f"{HOSTED}/fail", data=b'{"message": 5}', headers=headers), 400, "invalid_request")
    assert_error(http.post(f"{HOSTED}/fail", data=b'{"message": ""}', headers=headers), 400, "invalid_request")
    assert_error(http.post(f"{HOSTED}/measurement", data=b"[" + b"0," * (600 << 10) + b"0]", headers=headers),
                 400, "invalid_request", "Request body is too large.")
    assert partner_view(http, partner, sid)["status"] == "in_progress"


def test_hosted_flow_after_expiry_is_410_and_expires_the_session(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    clock.advance(dt.timedelta(hours=2))
    assert_error(http.get(f"{HOSTED}/session", headers=bearer(token)), 410, None)
    stored = repo.session_ref(partner.client_id, sid).get().to_dict()
    assert stored["status"] == "expired" and stored["updatedAt"] == stored["expiresAt"]
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=bearer(token)), 410, None)


def test_token_never_logged(http, partner, capsys):
    _, token = new_session(http, partner)
    http.get(f"{HOSTED}/session", headers=bearer(token))
    http.post(f"{HOSTED}/start", headers=bearer(token))
    http.get(f"{HOSTED}/session", headers=bearer("y" * 43))
    out = capsys.readouterr()
    assert token not in out.out + out.err and partner.key not in out.out + out.err
    assert '"route": "/api/hosted/vital-scan/session"' in out.out  # the access log was written


# ------------------------------------------------------------------------- bodies and media types


def test_deeply_nested_or_undeclared_bodies_are_refused_and_change_nothing(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    json_headers = {**bearer(token), "Content-Type": "application/json"}
    for path in ("measurement", "fail"):
        deep = b'{"message": ' + b"[" * 1000 + b"]" * 1000 + b"}"
        assert_error(http.post(f"{HOSTED}/{path}", data=deep, headers=json_headers), 400, "invalid_request",
                     "Request body is nested too deeply.")
    for content_type in ("text/plain", None):
        headers = {**bearer(token), **({"Content-Type": content_type} if content_type else {})}
        assert_error(http.post(f"{HOSTED}/measurement", data=json.dumps(trace()), headers=headers), 415,
                     "unsupported_media_type", "Content-Type must be application/json.")
        assert_error(http.post(f"{HOSTED}/fail", data=json.dumps({"message": "camera"}), headers=headers), 415,
                     "unsupported_media_type")
    assert partner_view(http, partner, sid)["status"] == "in_progress"


def test_endpoints_without_a_body_ignore_the_content_type(http, partner):
    _, token = new_session(http, partner)
    plain = {**bearer(token), "Content-Type": "text/plain"}
    assert http.post(f"{HOSTED}/start", data=b"[" * 1000, headers=plain).json["status"] == "in_progress"
    assert http.post(f"{HOSTED}/exit", data=b"bye", headers=plain).json == {"redirectUrl": None}


# ------------------------------------------------------------------------------ dependencies down: 503


def test_every_503_of_the_hosted_endpoints_carries_a_code(http, partner, monkeypatch):
    from tests.vital_scan.test_routes import SessionStoreDown, SessionWritesAlwaysConflict

    sid, token = new_session(http, partner)
    SessionStoreDown(monkeypatch)
    for method, path in (("get", "session"), ("post", "start"), ("post", "exit")):
        response = getattr(http, method)(f"{HOSTED}/{path}", headers=bearer(token))
        assert_error(response, 503, "vital_scan_unavailable", "Vital Scan is temporarily unavailable; retry later.")
    monkeypatch.undo()
    SessionWritesAlwaysConflict(monkeypatch)
    assert_error(http.post(f"{HOSTED}/start", headers=bearer(token)), 503, "vital_scan_unavailable")
    monkeypatch.undo()
    assert partner_view(http, partner, sid)["status"] == "created"
