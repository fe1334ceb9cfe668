"""Scanning on (vital_scan.scan_on): a trace the page is still recording, with a heart rate but no breathing rate,
is answered "scanOn", and the whole trace of the same capture completes the session with both parts' metrics."""

import bisect

import pytest

from support import rppg_synthetic as synthetic
from tests.conftest import bearer
from tests.vital_scan.test_hosted import HOSTED, new_session, partner_view, trace
from tests.vital_scan.test_routes import assert_error, spent
from wellness_api.vital_scan import repository as repo
from wellness_api.vital_scan import scan_on
from wellness_api.vital_scan.engine import Trace
from wellness_api.vital_scan.models import MAX_RETRIES
from wellness_api.vital_scan.rppg import RppgEngine

# Moderate 60 s traces whose first 30 s give a heart rate but no breathing rate. 502: the whole minute gives both.
# 687 (type V): the whole minute gives the breathing rate but loses the heart rate (its pulse weak in the second
# half), so the session keeps the first 30 s's.
BOTH_AT_60 = 502
HR_LOST_AT_60 = 687


def bodies(seed: int) -> tuple[dict, dict]:
    """(the first 30 s, the whole 60 s) of a moderate trace, as the page sends them (rounded as its JSON is)."""
    case = synthetic.bench_case("moderate", 60, seed)
    t = [round(x, 3) for x in case.t]
    rgb = [[round(v, 3) for v in px] for px in case.rgb]
    k = bisect.bisect_right(t, 30000.0)
    head = {"fps": round((k - 1) / (t[k - 1] / 1000), 2), "t": t[:k], "rgb": rgb[:k]}
    return head, {"fps": round((len(t) - 1) / (t[-1] / 1000), 2), "t": t, "rgb": rgb}


def measure(body: dict) -> dict | None:
    return RppgEngine().estimate(Trace(body["fps"], body["t"], body["rgb"]))


def started(http, partner) -> tuple[str, dict]:
    sid, token = new_session(http, partner)
    assert http.post(f"{HOSTED}/start", headers=bearer(token)).status_code == 200
    return sid, bearer(token)


def stored(partner, sid) -> dict:
    return repo.session_ref(partner.client_id, sid).get().to_dict()


def post(http, scan, body, **extra):
    return http.post(f"{HOSTED}/measurement", json={**body, **extra}, headers=scan)


# ------------------------------------------------------------------------------------------ the rules


def test_a_heart_rate_without_a_breathing_rate_under_45_s_wants_rr():
    assert scan_on.wanted({"hr": 70.0}, [0.0, 30000.0]) == "rr"
    assert scan_on.wanted({"hr": 70.0, "hrv": 40.0}, [0.0, 44999.0]) == "rr"
    assert scan_on.wanted({"hr": 70.0}, [0.0, 45000.0]) is None  # long enough already
    assert scan_on.wanted({"hr": 70.0, "rr": 14.0}, [0.0, 30000.0]) is None
    assert scan_on.wanted({"rr": 14.0}, [0.0, 30000.0]) is None  # no heart rate: a retry's business
    assert scan_on.wanted(None, [0.0, 30000.0]) is None and scan_on.wanted({}, [0.0, 30000.0]) is None


def test_a_first_part_is_carried_only_by_a_longer_trace_that_begins_with_it_frame_for_frame():
    head, whole = bodies(BOTH_AT_60)
    first = scan_on.first_part(head["t"], head["rgb"], {"hr": 64.0}, {"reason": None})
    assert first["frames"] == len(head["t"]) and first["metrics"] == {"hr": 64.0}
    assert scan_on.carried(first, whole["t"], whole["rgb"]) == first
    assert scan_on.carried(first, head["t"], head["rgb"]) is None  # not longer: the same trace sent again
    assert scan_on.carried(None, whole["t"], whole["rgb"]) is None
    for frame, change in ((0, 0.001), (len(head["t"]) - 1, -0.001)):
        rgb = [list(px) for px in whole["rgb"]]
        rgb[frame][1] += change
        assert scan_on.carried(first, whole["t"], rgb) is None
    t = list(whole["t"])
    t[5] += 0.1
    assert scan_on.carried(first, t, whole["rgb"]) is None


def test_the_whole_traces_metrics_win_and_the_first_part_fills_in_what_they_lack():
    assert scan_on.merge({"hr": 81.0}, {"rr": 11.8}) == {"hr": 81.0, "rr": 11.8}
    assert scan_on.merge({"hr": 81.0, "hrv": 30.0}, {"hr": 80.2, "rr": 11.8}) == {"hr": 80.2, "rr": 11.8, "hrv": 30.0}
    assert scan_on.merge({"hr": 81.0}, None) == {"hr": 81.0}
    assert scan_on.merge(None, None) is None and scan_on.merge(None, {}) == {}


# ------------------------------------------------------------------------------------------ the flow


def test_the_page_scans_on_for_rr_and_the_whole_trace_completes_with_both(http, partner):
    sid, scan = started(http, partner)
    head, whole = bodies(BOTH_AT_60)
    first = measure(head)
    assert "hr" in first and "rr" not in first

    response = post(http, scan, head, recording=True)
    assert response.status_code == 200 and response.json == {"status": "in_progress", "scanOn": "rr"}
    # No retry is spent, nothing is shown: not to the page, not to the partner.
    assert http.get(f"{HOSTED}/session", headers=scan).json["retriesLeft"] == MAX_RETRIES
    view = partner_view(http, partner, sid)
    assert view["status"] == "in_progress" and view["metrics"] is None
    kept = stored(partner, sid)["scanOnFirst"]
    assert kept["frames"] == len(head["t"]) and kept["metrics"] == first and kept["quality"]["seconds"] >= 29

    done = post(http, scan, whole)
    assert done.status_code == 200, done.json
    metrics = measure(whole)
    assert done.json["status"] == "completed" and done.json["metrics"] == metrics and {"hr", "rr"} <= set(metrics)
    truth = synthetic.bench_case("moderate", 60, BOTH_AT_60).truth
    assert abs(metrics["hr"] - truth.hr) <= 1 and abs(metrics["rr"] - truth.rr) <= 3
    assert partner_view(http, partner, sid)["metrics"] == metrics
    doc = stored(partner, sid)
    assert "scanOnFirst" not in doc and doc["quality"]["firstPart"] == kept["quality"]
    assert doc["quality"]["seconds"] >= 59 and spent(partner.client_id) == 1


def test_a_heart_rate_the_whole_trace_loses_is_kept_from_its_first_part(http, partner):
    sid, scan = started(http, partner)
    head, whole = bodies(HR_LOST_AT_60)
    first, alone = measure(head), measure(whole)
    assert set(first) >= {"hr"} and "rr" not in first and set(alone) == {"rr"}

    assert post(http, scan, head, recording=True).json == {"status": "in_progress", "scanOn": "rr"}
    done = post(http, scan, whole)
    # Alone, the whole minute would be answered "try again" (no heart rate); with its first 30 s it completes.
    assert done.json["status"] == "completed" and done.json["metrics"] == {**first, **alone}
    truth = synthetic.bench_case("moderate", 60, HR_LOST_AT_60).truth
    assert abs(done.json["metrics"]["hr"] - truth.hr) <= 1 and abs(done.json["metrics"]["rr"] - truth.rr) <= 1
    assert partner_view(http, partner, sid)["metrics"] == done.json["metrics"]


def test_a_new_capture_is_measured_on_its_own(http, partner):
    """After a reload the page records afresh: a trace that does not begin with the first part gets nothing of it."""
    sid, scan = started(http, partner)
    head, whole = bodies(HR_LOST_AT_60)
    assert post(http, scan, head, recording=True).json["scanOn"] == "rr"
    other = {**whole, "rgb": [[r + 0.5, g, b] for r, g, b in whole["rgb"]]}
    response = post(http, scan, other)
    assert response.json == {"status": "in_progress", "retry": "weak", "retriesLeft": MAX_RETRIES - 1}
    assert "scanOnFirst" in stored(partner, sid)  # still there for the capture it belongs to
    assert post(http, scan, whole).json["metrics"] == {**measure(head), **measure(whole)}


def test_without_recording_or_with_the_breathing_rate_a_trace_completes_at_once(http, partner):
    head, _ = bodies(BOTH_AT_60)
    sid, scan = started(http, partner)
    response = post(http, scan, head)
    assert response.json["status"] == "completed" and response.json["metrics"] == measure(head)
    assert "scanOnFirst" not in stored(partner, sid)

    clean = synthetic.generate(72, 14, "clean", seconds=30, seed=21, skin="III")
    body = {"fps": clean.fps, "t": [round(x, 3) for x in clean.t], "rgb": [[round(v, 3) for v in px] for px in clean.rgb]}
    assert {"hr", "rr"} <= set(measure(body))
    _, scan = started(http, partner)
    assert post(http, scan, body, recording=True).json["status"] == "completed"


def test_a_trace_without_a_heart_rate_is_answered_try_again_while_recording(http, partner):
    _, scan = started(http, partner)
    response = post(http, scan, trace(seconds=30), recording=True)
    assert response.json == {"status": "in_progress", "retry": "weak", "retriesLeft": MAX_RETRIES - 1}


def test_scan_on_is_answered_at_most_once_per_try(http, partner):
    """A caller sending the same first part again and again cannot keep the engine running: after MAX_SCAN_ONS
    answers the trace completes with what it has."""
    sid, scan = started(http, partner)
    head, _ = bodies(BOTH_AT_60)
    for n in range(1, scan_on.MAX_SCAN_ONS + 1):
        assert post(http, scan, head, recording=True).json == {"status": "in_progress", "scanOn": "rr"}
        assert stored(partner, sid)["scanOns"] == n
    done = post(http, scan, head, recording=True)
    assert done.json["status"] == "completed" and done.json["metrics"] == measure(head)


@pytest.mark.parametrize("value", ["true", 1, None, [True]])
def test_recording_is_a_boolean(http, partner, value):
    sid, scan = started(http, partner)
    assert_error(post(http, scan, trace(), recording=value), 400, "invalid_request")
    assert "scanOns" not in stored(partner, sid)
