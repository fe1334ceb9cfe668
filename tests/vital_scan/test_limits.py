"""Issue 25: every Vital Scan input that sizes work has a documented cap, checked before the work, and a
refusal that names the rule (400 invalid_request in the Vital Scan envelope)."""

import json

import pytest

from support import caps
from support import rppg_synthetic as synthetic
from tests.conftest import bearer
from tests.vital_scan.test_hosted import HOSTED, ScriptedEngine, new_session, partner_view
from tests.vital_scan.test_routes import BASE, assert_error
from wellness_api.vital_scan import engine, models
from wellness_api.vital_scan.models import CreateSessionBody, FailBody, MeasurementBody

SPAN = "The trace's time span must agree with its frame count and fps: (frames - 1) / fps may differ from the span " \
       "from the first to the last t by at most a factor of 2."
TIME_RANGE = "t must be milliseconds from 0 to 180000 since the first frame: a scan lasts at most 180 seconds."
TOO_MANY = "The trace may hold at most 43201 frames."


def even(frames: int, fps: float, span_ms: float | None = None) -> dict:
    span_ms = (frames - 1) / fps * 1000 if span_ms is None else span_ms
    return {"fps": fps, "t": [round(i * span_ms / (frames - 1), 3) for i in range(frames)],
            "rgb": [[150, 110, 90]] * frames}


@pytest.fixture
def scan(http, partner):
    """A started session, its token's headers, and an engine that records what reaches it."""
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    with engine.installed(ScriptedEngine({"hr": 70.0})) as scripted:
        yield sid, bearer(token), scripted


def refused(http, partner, scan, body, message: str) -> None:
    sid, headers, scripted = scan
    data = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
    response = http.post(f"{HOSTED}/measurement", data=data, headers={**headers, "Content-Type": "application/json"})
    assert_error(response, 400, "invalid_request", message)
    assert scripted.traces == []  # refused before the engine: nothing was sized by the trace
    assert partner_view(http, partner, sid)["status"] == "in_progress"


# ----------------------------------------------------------------------------------- the finding


def test_five_frames_with_a_far_last_time_are_refused_before_the_engine(http, partner, scan):
    """The issue's body: it once grew a worker from 188 to 1,758 MiB."""
    body = b'{"fps":10,"t":[0,100,200,300,20000000],"rgb":[[150,110,90],[150,110,90],[150,110,90],' \
           b'[150,110,90],[150,110,90]]}'
    refused(http, partner, scan, body, TIME_RANGE)


def test_a_span_that_disagrees_with_frames_and_fps_is_refused(http, partner, scan):
    # 481 frames at 30 fps are 16 s, not 150 s; 30 fps over 16 s cannot hold 2,000 frames either.
    refused(http, partner, scan, even(481, 30, span_ms=150_000), SPAN)
    refused(http, partner, scan, even(2_000, 30, span_ms=16_000), SPAN)
    # Within the factor of 2 either way it is a camera that dropped frames or ran fast, and it passes.
    for frames, span_ms in ((481, 31_000), (2_000, 34_000)):  # 16 s of frames over 31 s; 66.6 s over 34 s
        assert models.check_trace(MeasurementBody.model_validate(even(frames, 30, span_ms), strict=True))


def test_a_span_longer_than_a_scan_is_refused(http, partner, scan):
    refused(http, partner, scan, even(6_001, 30), TIME_RANGE)  # 200 s, in step with its fps


def test_negative_or_decreasing_times_are_refused(http, partner, scan):
    body = even(481, 30)
    body["t"] = [t - 1000 for t in body["t"]]
    refused(http, partner, scan, body, TIME_RANGE)
    body = even(481, 30)
    body["t"][100], body["t"][101] = body["t"][101], body["t"][100]
    refused(http, partner, scan, body, "t must be strictly increasing milliseconds.")
    body = even(481, 30)
    body["t"][101] = body["t"][100]
    refused(http, partner, scan, body, "t must be strictly increasing milliseconds.")


def test_too_many_frames_are_refused(http, partner, scan):
    frames = models.MAX_FRAMES + 1
    body = {"fps": 240, "t": [0] * frames, "rgb": [[0, 0, 0]] * frames}
    assert len(json.dumps(body, separators=(",", ":"))) < 1 << 20  # under the body limit: the cap answers
    refused(http, partner, scan, body, TOO_MANY)
    refused(http, partner, scan, {**even(900, 30), "rgb": [[0, 0, 0]] * frames}, TOO_MANY)


def test_numbers_beyond_their_bounds_name_their_rule(http, partner, scan):
    fps = "fps must be greater than 0 and at most 240."
    refused(http, partner, scan, {**even(481, 30), "fps": 241}, fps)
    refused(http, partner, scan, {**even(481, 30), "fps": 0}, fps)
    refused(http, partner, scan, {**even(481, 30), "fps": 1e308}, fps)
    rgb = "rgb values must be between 0 and 255."
    refused(http, partner, scan, {**even(481, 30), "rgb": [[150, 110, 90]] * 480 + [[1, 256, 0]]}, rgb)
    refused(http, partner, scan, {**even(481, 30), "rgb": [[-1, 110, 90]] * 481}, rgb)


# ------------------------------------------------------------------- real traces still pass


def test_real_traces_pass_the_caps(http, partner):
    """The hosted page's trace (fps = (frames - 1) / span, uneven times), the bench's traces with jitter and
    dropped frames at their nominal fps, and the longest scan at the fastest camera."""
    page_t = [0.0]
    for i in range(1, 900):
        page_t.append(round(page_t[-1] + (33.3 if i % 7 else 50.1), 1))  # a frame late now and then
    page = {"fps": round((len(page_t) - 1) / (page_t[-1] / 1000), 2), "t": page_t, "rgb": [[150, 110, 90]] * 900}
    hard = synthetic.generate(90, 15, "hard", seconds=30, fps=30, seed=5)
    longest = even(models.MAX_FRAMES, models.MAX_FPS)
    for body in (page, {"fps": hard.fps, "t": [round(x, 3) for x in hard.t], "rgb": [[round(v, 3) for v in px]
                                                                                   for px in hard.rgb]}, longest):
        _, token = new_session(http, partner)
        http.post(f"{HOSTED}/start", headers=bearer(token))
        with engine.installed(ScriptedEngine({"hr": 70.0})) as scripted:
            response = http.post(f"{HOSTED}/measurement", data=json.dumps(body, separators=(",", ":")),
                                 headers={**bearer(token), "Content-Type": "application/json"})
        assert response.status_code == 200, response.json
        assert len(scripted.traces[0].t) == len(body["t"])


# ------------------------------------------------------------------------ the other operations


def test_fail_message_is_capped_as_sent(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    response = http.post(f"{HOSTED}/fail", json={"message": "x" * 501}, headers=bearer(token))
    assert_error(response, 400, "invalid_request", "message must be 1 to 500 characters.")
    response = http.post(f"{HOSTED}/fail", json={"message": "x" * 100_000}, headers=bearer(token))
    assert_error(response, 400, "invalid_request", "message must be 1 to 500 characters.")
    response = http.post(f"{HOSTED}/fail", json={"message": "  " + "x" * 500 + "\n"}, headers=bearer(token))
    assert response.status_code == 200
    assert partner_view(http, partner, sid)["error"] == {"message": "x" * 500}


def test_create_body_fields_are_capped_with_their_rules(http, partner):
    def create(body):
        return http.post(BASE, json=body, headers=partner.headers)

    assert_error(create({"userId": "u" * 129}), 400, "invalid_request", "userId must be at most 128 characters.")
    assert_error(create({"userId": " " * 3}), 400, "invalid_request", "userId must not be empty.")
    assert create({"userId": "  " + "u" * 128 + "\t"}).status_code == 201  # trimmed first (4.8)
    assert_error(create({"userId": "u", "locale": "x" * 10_000}), 400, "invalid_request",
                 "locale must be one of: en, zh, zh-Hant, zh-Hans, zh-TW.")
    assert_error(create({"userId": "u", "returnUrl": "https://partner.example/" + "a" * 3000}), 400,
                 "invalid_request", "returnUrl must be at most 2,048 characters.")


@pytest.mark.parametrize("model", [CreateSessionBody, MeasurementBody, FailBody])
def test_every_body_field_has_a_documented_bound(model):
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    assert list(caps.unbounded(schema, schema.pop("$defs", {}), "body")) == []
