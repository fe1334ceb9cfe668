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
# 1692: the whole minute gives the breathing rate but loses the heart rate (weak).
BOTH_AT_60 = 502
HR_LOST_AT_60 = 1692
# A moderate 175 s trace (50.6 bpm) whose first 30 s read 50.4 and no breathing rate, whose first minute reads no
# heart rate (weak), and whose first 120 s read 50.6 and 19.5 breaths/min (19.5): the 30 s's rate, right as it is,
# is not confirmed.
LOST_AT_60 = 1260671
# The first 30 s of a 175 s trace that read a heart rate more than 10 bpm off and no breathing rate, whose minute
# reads no heart rate: the page's scan reported such a rate until the minute had to confirm it. Of 30,000 fresh traces
# run after the short-scan floor was set (hard seeds 1400000-1419999, moderate 1400000-1409999) it passed two wrong 30 s
# rates (tests/vital_scan/test_rppg_failures.py PAGE_KNOWN_WRONG): this one, hard 48.9 read as 95.7. The 47 that this list and
# GIVEN_WAY held before it no longer read a rate (PAGE_SHORT_UNCLEAR there).
KEPT_WRONG = [("hard", 1402708)]
# The same, whose minute reads the right rate, which the session completes with: moderate 83.6 read as 166.7 (the
# beamformer), whose minute reads 83.6.
GIVEN_WAY = [("moderate", 1403067)]


def bodies(seed: int, level: str = "moderate", length: float = 60, cuts: tuple[float, ...] = (30.0,)) -> list[dict]:
    """The first `cuts` seconds of a bench trace, then the whole, as the page sends them."""
    return sent(synthetic.bench_case(level, length, seed), cuts)


def sent(case, cuts: tuple[float, ...]) -> list[dict]:
    """The first `cuts` seconds of a case's trace, then the whole, as the page sends them (rounded as its JSON is)."""
    t = [round(x, 3) for x in case.t]
    rgb = [[round(v, 3) for v in px] for px in case.rgb]
    ends = [bisect.bisect_right(t, seconds * 1000.0) for seconds in cuts] + [len(t)]
    return [{"fps": round((k - 1) / (t[k - 1] / 1000), 2), "t": t[:k], "rgb": rgb[:k]} for k in ends]


def measure(body: dict) -> dict | None:
    return RppgEngine().estimate(Trace(body["fps"], body["t"], body["rgb"]))


def first_and_minute(level: str, seed: int) -> tuple[dict, dict, dict | None, float]:
    """(the first 30 s of a 175 s bench trace as sent, their metrics, its first minute's metrics, its true hr)."""
    case = synthetic.bench_case(level, 175, seed)
    head, minute, _ = sent(case, (30.0, 60.0))
    return head, measure(head), measure(minute), case.truth.hr


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


def test_the_whole_traces_metrics_win_and_the_first_part_fills_in_what_they_lack_where_its_hr_is_confirmed():
    assert scan_on.merge({"hr": 81.0, "hrv": 30.0}, {"hr": 80.2, "rr": 11.8}) == {"hr": 80.2, "rr": 11.8, "hrv": 30.0}
    assert scan_on.merge({"hr": 80.0, "hrv": 30.0}, {"hr": 88.0}) == {"hr": 88.0, "hrv": 30.0}  # CONFIRMED_WITHIN
    assert scan_on.merge({"hr": 80.0, "hrv": 30.0}, {"hr": 72.0}) == {"hr": 72.0, "hrv": 30.0}


def test_a_heart_rate_the_whole_trace_does_not_read_is_not_carried():
    """A rate the longer look at the same face cannot read, or reads elsewhere, is not reported, nor what was
    measured with it."""
    assert scan_on.merge({"hr": 81.0}, {"rr": 11.8}) == {"rr": 11.8}
    assert scan_on.merge({"hr": 81.0, "hrv": 30.0}, {"hr": 89.2, "rr": 11.8}) == {"hr": 89.2, "rr": 11.8}
    assert scan_on.merge({"hr": 80.0, "hrv": 30.0}, {"hr": 71.9}) == {"hr": 71.9}
    assert scan_on.merge({"hr": 81.0}, None) is None and scan_on.merge({"hr": 81.0}, {}) == {}
    assert scan_on.merge(None, None) is None and scan_on.merge(None, {"hr": 70.0}) == {"hr": 70.0}
    assert not scan_on.confirms({"rr": 12.0}, {"hr": 70.0, "rr": 12.0})


@pytest.mark.parametrize(("level", "seed"), KEPT_WRONG)
def test_a_wrong_30_s_rate_the_minute_does_not_read_is_not_reported(level, seed):
    head, first, whole, truth = first_and_minute(level, seed)
    assert abs(first["hr"] - truth) > synthetic.HR_WRONG
    assert scan_on.wanted(first, head["t"]) == "rr" and "hr" not in (whole or {})
    assert "hr" not in (scan_on.merge(first, whole) or {})


@pytest.mark.parametrize(("level", "seed"), GIVEN_WAY)
def test_a_wrong_30_s_rate_gives_way_to_the_minutes_own(level, seed):
    head, first, whole, truth = first_and_minute(level, seed)
    assert abs(first["hr"] - truth) > synthetic.HR_WRONG and scan_on.wanted(first, head["t"]) == "rr"
    assert abs(whole["hr"] - truth) <= synthetic.HR_WRONG
    assert scan_on.merge(first, whole)["hr"] == whole["hr"]


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


def test_a_heart_rate_the_minute_loses_is_not_kept_and_the_page_records_on(http, partner):
    """LOST_AT_60: its first 30 s read a heart rate. The minute, sent as still recording, reads none: it is answered
    "try again" (weak) instead of completing with the 30 s's rate, and the capture's first 120 s complete the session
    with their own rate and breathing rate, the first part's quality kept with them."""
    sid, scan = started(http, partner)
    case = synthetic.bench_case("moderate", 175, LOST_AT_60)
    head, minute, two_minutes, _ = sent(case, (30.0, 60.0, 120.0))
    truth = case.truth
    first, lost, whole = measure(head), measure(minute), measure(two_minutes)
    assert "hr" in first and "rr" not in first and (lost is None or "hr" not in lost)

    assert post(http, scan, head, recording=True).json == {"status": "in_progress", "scanOn": "rr"}
    kept = stored(partner, sid)["scanOnFirst"]
    response = post(http, scan, minute, recording=True)
    assert response.json == {"status": "in_progress", "retry": "weak", "retriesLeft": MAX_RETRIES - 1}
    assert partner_view(http, partner, sid)["metrics"] is None and "scanOnFirst" in stored(partner, sid)

    done = post(http, scan, two_minutes)
    assert done.json["status"] == "completed" and done.json["metrics"] == whole
    assert abs(whole["hr"] - truth.hr) <= 1 and abs(whole["rr"] - truth.rr) <= 1
    doc = stored(partner, sid)
    assert doc["metrics"] == whole and doc["quality"]["firstPart"] == kept["quality"] and spent(partner.client_id) == 1


def test_a_minute_with_the_breathing_rate_alone_does_not_complete_with_the_first_parts_heart_rate(http, partner):
    """HR_LOST_AT_60: the minute gives the breathing rate but no heart rate. The 30 s's rate was right this time,
    but nothing the longer look does not read is kept: "try again", which the page answers by recording on."""
    _, scan = started(http, partner)
    head, whole = bodies(HR_LOST_AT_60)
    assert "hr" in measure(head) and set(measure(whole)) == {"rr"}
    assert post(http, scan, head, recording=True).json == {"status": "in_progress", "scanOn": "rr"}
    response = post(http, scan, whole, recording=True)
    assert response.json == {"status": "in_progress", "retry": "weak", "retriesLeft": MAX_RETRIES - 1}


def test_a_new_capture_is_measured_on_its_own(http, partner):
    """After a reload the page records afresh: a trace that does not begin with the first part gets nothing of it,
    and the first part stays for the capture it belongs to."""
    sid, scan = started(http, partner)
    head, minute, two_minutes, _ = bodies(LOST_AT_60, length=175, cuts=(30.0, 60.0, 120.0))
    assert post(http, scan, head, recording=True).json["scanOn"] == "rr"
    other = {**minute, "rgb": [[r + 0.5, g, b] for r, g, b in minute["rgb"]]}
    response = post(http, scan, other)
    assert response.json == {"status": "in_progress", "retry": "weak", "retriesLeft": MAX_RETRIES - 1}
    assert "firstPart" not in stored(partner, sid)["retryQuality"] and "scanOnFirst" in stored(partner, sid)
    done = post(http, scan, two_minutes)
    assert done.json["metrics"] == measure(two_minutes) and "firstPart" in stored(partner, sid)["quality"]


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
