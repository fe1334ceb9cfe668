"""Pure rules of Vital Scan: cycles and shards, rate windows, body rules of 4.8, metrics (2.12), failures."""

import datetime as dt
import math

import pytest
from google.api_core import exceptions as gexc

from wellness_api.core.errors import ApiError
from wellness_api.vital_scan import failures, points, ratelimit
from wellness_api.vital_scan.metrics import public_metrics
from wellness_api.vital_scan.models import (
    MeasurementBody,
    check_fail_message,
    check_locale,
    check_return_url,
    check_trace,
    check_user_id,
    return_navigation,
)

UTC = dt.UTC
ALLOWED = ["https://partner.example", "https://app.partner.example:8443"]


def raises(code: str, call, *args):
    with pytest.raises(ApiError) as info:
        call(*args)
    assert info.value.status == 400 and info.value.code == code, info.value.message
    return info.value.message


# --------------------------------------------------------------------------------------- points


def test_cycle_is_the_utc_month_and_resets_at_the_next_one():
    cycle = points.cycle_of(dt.datetime(2025, 6, 17, 13, 5, tzinfo=UTC))
    assert cycle.cycle_id == "2025-06"
    assert cycle.starts_at == dt.datetime(2025, 6, 1, tzinfo=UTC)
    assert cycle.resets_at == dt.datetime(2025, 7, 1, tzinfo=UTC)
    december = points.cycle_of(dt.datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC))
    assert (december.cycle_id, december.resets_at) == ("2025-12", dt.datetime(2026, 1, 1, tzinfo=UTC))
    assert points.cycle_of(dt.datetime(2026, 1, 1, tzinfo=UTC)).cycle_id == "2026-01"
    # Another offset is converted to UTC first.
    tokyo = dt.timezone(dt.timedelta(hours=9))
    assert points.cycle_of(dt.datetime(2025, 7, 1, 3, 0, tzinfo=tokyo)).cycle_id == "2025-06"


@pytest.mark.parametrize("total", [0, 1, 10, 15, 16, 17, 500, 1001])
def test_slices_add_up_to_the_grant_and_differ_by_at_most_one(total):
    slices = [points.slice_of(total, i) for i in range(points.SHARDS)]
    assert sum(slices) == total
    assert max(slices) - min(slices) <= 1
    assert points.funded_shards(total) == [i for i, s in enumerate(slices) if s > 0]
    assert points.remaining_in(total, {}) == total


def test_remaining_never_negative_and_counts_each_shard_against_its_slice():
    assert points.remaining_in(10, dict.fromkeys(range(10), 1)) == 0
    assert points.remaining_in(10, {0: 1, 1: 1}) == 8
    # A lowered grant: shards that spent beyond their new slice add nothing, never a negative.
    assert points.remaining_in(2, dict.fromkeys(range(10), 1)) == 0
    assert points.slice_of(-5, 0) == 0


# ------------------------------------------------------------------------------------ rate windows


def test_fixed_one_minute_windows():
    now = dt.datetime(2025, 6, 17, 13, 5, 42, 500000, tzinfo=UTC)
    window = ratelimit.window_of(now)
    assert window.starts_at == dt.datetime(2025, 6, 17, 13, 5, tzinfo=UTC)
    assert window.ends_at == dt.datetime(2025, 6, 17, 13, 6, tzinfo=UTC)
    assert window.reset_seconds(now) == 18
    assert window.reset_seconds(window.ends_at) == 1
    assert ratelimit.window_of(window.ends_at).window_id != window.window_id


def test_rate_shards_grow_with_the_limit_and_slices_add_up():
    assert [ratelimit.shard_count(n) for n in (1, 10, 60, 61, 120, 600, 100_000)] == [1, 1, 1, 2, 2, 10, 16]
    for limit in (1, 7, 60, 61, 120, 1000):
        shards = ratelimit.shard_count(limit)
        slices = [ratelimit.slice_of(limit, shards, i) for i in range(shards)]
        assert sum(slices) == limit and max(slices) - min(slices) <= 1


def test_full_windows_cache_respects_window_and_raised_limit():
    cache = ratelimit.FullWindows()
    window = ratelimit.window_of(dt.datetime(2025, 1, 1, tzinfo=UTC))
    later = ratelimit.window_of(window.ends_at)
    cache.mark_full("c1", window, 10)
    assert cache.is_full("c1", window, 10)
    assert not cache.is_full("c1", window, 11)  # the limit was raised: check again
    assert not cache.is_full("c1", later, 10)
    assert not cache.is_full("c2", window, 10)


# ----------------------------------------------------------------------------------- body rules


def test_user_id_is_trimmed_and_limited():
    assert check_user_id("  user-1  ") == "user-1"
    assert check_user_id("A.b_c:d@e+f-9") == "A.b_c:d@e+f-9"
    assert check_user_id("x" * 128) == "x" * 128
    assert check_user_id(" " + "x" * 128 + "\t") == "x" * 128
    assert raises("invalid_request", check_user_id, "x" * 129) == "userId must be at most 128 characters."
    assert raises("invalid_request", check_user_id, "   ") == "userId must not be empty."
    assert raises("invalid_request", check_user_id, "") == "userId must not be empty."
    for bad in ("a b", "a/b", "a\tb", "ü", "a#b", "a%20", "a,b", "😀"):
        assert raises("invalid_request", check_user_id, bad) == "userId may contain only ASCII letters, digits and . _ : @ + -"


def test_locales():
    for locale in ("en", "zh", "zh-Hant", "zh-Hans", "zh-TW"):
        assert check_locale(locale) == locale
    assert check_locale(None) is None
    for bad in ("EN", "zh_Hant", "fr", "", "zh-hant"):
        assert raises("invalid_request", check_locale, bad) == "locale must be one of: en, zh, zh-Hant, zh-Hans, zh-TW."


def test_return_url_approved_origin_and_fragment_removed():
    assert check_return_url(None, ALLOWED) is None
    assert check_return_url("https://partner.example/done?x=1#frag", ALLOWED) == "https://partner.example/done?x=1"
    assert check_return_url("https://partner.example", ALLOWED) == "https://partner.example"
    assert check_return_url("https://PARTNER.example:443/a", ALLOWED) == "https://PARTNER.example:443/a"
    assert check_return_url("HTTPS://partner.example/a#", ALLOWED) == "HTTPS://partner.example/a"
    assert check_return_url("https://app.partner.example:8443/cb", ALLOWED) == "https://app.partner.example:8443/cb"


def test_return_url_length_limit_is_2048_characters():
    base = "https://partner.example/"
    assert check_return_url(base + "a" * (2048 - len(base)), ALLOWED)
    assert raises("invalid_request", check_return_url, base + "a" * (2049 - len(base)), ALLOWED) == \
        "returnUrl must be at most 2,048 characters."


@pytest.mark.parametrize("url", [
    "http://partner.example/cb", "partner.example/cb", "/relative", "", "ftp://partner.example/",
    "https:///nohost", "https://partner.example:99999/", "https://partner.example:abc/", "https://part ner.example/",
    "https://partner.example/\u00e9", "javascript:alert(1)", "https://partner.example/a\nb",
])
def test_return_url_must_be_an_https_url(url):
    assert raises("invalid_request", check_return_url, url, ALLOWED) == "returnUrl must be an absolute HTTPS URL."


@pytest.mark.parametrize("url", ["https://user:pw@partner.example/", "https://user@partner.example/", "https://@partner.example/"])
def test_return_url_without_credentials(url):
    assert raises("invalid_request", check_return_url, url, ALLOWED) == "returnUrl must not contain credentials."


@pytest.mark.parametrize("url", [
    "https://evil.example/cb", "https://partner.example.evil.example/", "https://partner.example:8443/",
    "https://app.partner.example/cb", "https://sub.partner.example/",
])
def test_return_url_origin_must_be_approved(url):
    message = raises("return_origin_not_approved", check_return_url, url, ALLOWED)
    assert message == "The origin of returnUrl is not approved for this workspace."


def test_return_navigation_adds_hints_and_replaces_old_ones():
    assert return_navigation(None, "s1", "exited") is None
    assert return_navigation("https://p.example/done", "s1", "exited") == \
        "https://p.example/done?vital_scan_session_id=s1&status=exited"
    assert return_navigation("https://p.example/done?a=1&status=x&vital_scan_session_id=zz", "s1", "completed") == \
        "https://p.example/done?a=1&vital_scan_session_id=s1&status=completed"


# -------------------------------------------------------------------------------------- metrics


def test_metrics_keep_documented_names_and_types_only():
    raw = {
        "hr": 72, "hrv": 41.5, "spo2": 98, "rr": 14, "si": 0, "afib": "no signs", "miscalibration_risk": 0.0,
        "hrv_indices": {"RMSSD": 30.1, "SDNN": 45, "quality": 0.2, "LF_HF_RATIO": float("nan")},
        "ANSIndex": {"PNS": 1.2}, "HbA1c": {"value": 5.4, "range": [4.0, 5.6], "risk": True},
        "cholesterol": {"range": "normal", "value": "high"}, "cvd_risk": {"points": 3, "percentage": 2.5},
        # Internal quality fields, raw capture data, wrong case, wrong types, unavailable values:
        "snr": 4.2, "signalQuality": "good", "rawTrace": [1, 2, 3], "HR": 70, "sbp": None, "dbp": "80",
        "wellness_score": True, "PRQ": float("inf"), "shock_index": math.nan, "afib_conf": 0.9,
        "hemoglobin": {"value": 13}, "ANSIndex_extra": 1,
    }
    assert public_metrics(raw) == {
        "hr": 72, "hrv": 41.5, "spo2": 98, "rr": 14, "si": 0, "afib": "no signs", "miscalibration_risk": 0.0,
        "hrv_indices": {"RMSSD": 30.1, "SDNN": 45}, "ANSIndex": {"PNS": 1.2},
        "HbA1c": {"value": 5.4, "range": [4.0, 5.6]}, "cholesterol": {"range": "normal"},
        "cvd_risk": {"points": 3, "percentage": 2.5},
    }


def test_metrics_none_empty_and_empty_nested():
    assert public_metrics(None) is None
    assert public_metrics({}) == {}
    assert public_metrics({"quality": 1, "hrv_indices": {"quality": 1}, "ANSIndex": {}}) == {}
    assert public_metrics({"HbA1c": {"range": "4.0-5.6"}}) == {"HbA1c": {"range": "4.0-5.6"}}
    assert public_metrics({"HbA1c": {"range": []}}) == {}
    assert public_metrics(["hr", 1]) is None


# ---------------------------------------------------------------------------------------- traces


def trace(seconds: float = 16, fps: float = 30, **overrides):
    frames = int(seconds * fps) + 1
    body = {"fps": fps, "t": [i * 1000 / fps for i in range(frames)], "rgb": [[120.5, 80, 60]] * frames}
    body.update(overrides)
    return MeasurementBody.model_validate(body, strict=True)


def test_trace_rules():
    assert check_trace(trace(15))
    assert raises("invalid_request", check_trace, trace(14.9)) == "The trace must cover at least 15 seconds."
    for fps in (0, -30, 241):
        body = trace()
        body.fps = fps
        assert raises("invalid_request", check_trace, body) == "fps must be greater than 0 and at most 240."
    assert raises("invalid_request", check_trace, trace(rgb=[[1, 2, 3]])) == "t and rgb must have one entry per frame."
    body = trace()
    body.rgb[3] = [1, 256, 0]
    assert raises("invalid_request", check_trace, body) == "rgb values must be between 0 and 255."
    body = trace()
    body.t[5] = body.t[4]
    assert raises("invalid_request", check_trace, body) == "t must be strictly increasing milliseconds."
    assert raises("invalid_request", check_trace, trace(t=[0, 1], rgb=[[1, 1, 1]] * 2)) == \
        "The trace must cover at least 15 seconds."


def test_fail_message():
    assert check_fail_message("  Camera permission denied\x00 ") == "Camera permission denied"
    raises("invalid_request", check_fail_message, " ")
    raises("invalid_request", check_fail_message, "x" * 501)


# -------------------------------------------------------------------------------------- failures


def test_infrastructure_failures_and_ambiguous_commits():
    for exc in (gexc.ServiceUnavailable("x"), gexc.DeadlineExceeded("x"), gexc.InternalServerError("x"),
                gexc.RetryError("x", None), gexc.ResourceExhausted("x"), ConnectionError()):
        assert failures.is_infrastructure(exc)
    for exc in (ValueError(), KeyError(), gexc.InvalidArgument("x"), gexc.AlreadyExists("x"), gexc.NotFound("x")):
        assert not failures.is_infrastructure(exc)
    assert failures.is_ambiguous_commit(gexc.DeadlineExceeded("x"))
    assert failures.is_ambiguous_commit(gexc.ServiceUnavailable("x"))
    assert not failures.is_ambiguous_commit(gexc.ResourceExhausted("x"))
    assert not failures.is_ambiguous_commit(gexc.PermissionDenied("x"))
    err = failures.unavailable(failures.COMMIT_OUTCOME_UNKNOWN, failures.COMMIT_UNKNOWN_MESSAGE)
    assert (err.status, err.code, err.headers) == (503, "commit_outcome_unknown", {})
