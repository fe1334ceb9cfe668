"""The hosted Vital Scan page (public/vital-scan/) in a real browser with a fake camera (CONTRACT 4, spec 4.8).

A partner creates a session with its API key; headless Chromium (phone-sized viewport) opens the
session's vitalScanUrl through web/scan-check.mjs (playwright-core). Its camera is a .y4m video made here
from a real photograph of a face (scikit-image's astronaut) whose skin pulses at a known heart rate
(tests/browser/scan_video.py). The runs:

- The page finds the face with its bundled detector, records the mean skin colour per frame for about 30 s,
  sends the trace, shows the results and returns to the partner's returnUrl, which the driver answers itself
  (no https server); its first sending of the trace is answered 503 in the browser, and Try again sends the
  same trace again. The partner's GET then shows the heart rate.
- The same face has no breathing in it: sent as still recording, its 30 s trace is answered scanOn and the
  page records on to a minute, sent as still recording too, which completes with the heart rate. When the head
  starts jumping meanwhile, or the user taps Finish now, the page sends what it recorded at once. The still
  face's traces have no steps where the detector ran, and no breathing rate.
- A face without a pulse is answered "try again" and scans on to a minute, to two and to 175 s, which completes
  the session with nothing measured. A "try again" answer with no try left (injected in the browser) says so, and the
  last try records a minute at once.
- The camera denied: the page says so and Exit still returns with status=exited.
- The server unavailable at first (the first reads of the session answered 503 in the browser): the page
  tries again by itself, then offers Try again, and the session survives.
- A camera without a face: the guidance says so, nothing is recorded, a reload resumes the session and Exit
  without a returnUrl shows the exit page. Three more show the face too small, too dark and jumping
  sideways: the guidance names each problem.

Screenshots land in .devstack/screenshots[-offsetN]/vital-scan-<run>/ (scan, scan-on, scan-on-moved, scan-on-finish, weak,
last-try, denied, outage-*, no-face, guidance-*); the tests print the paths (the request body of the scan is saved beside
them as trace.json).
"""

import itertools
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
import requests
from skimage import data

from tests.browser import driver
from tests.browser.driver import ROOT, SHOTS
from tests.browser.scan_video import region_steps, write_problem_y4m, write_still_y4m, write_y4m
from tests.conftest import BASE_URL
from tests.vital_scan.conftest import ORIGIN, make_partner

pytestmark = pytest.mark.e2e

SESSIONS = BASE_URL + "/api/v1/vital-scan/sessions"
TRUE_BPM = 72.0


def _require_browser():
    driver.require(ROOT / "public" / "vital-scan" / "scan.js",
                   ROOT / "public" / "vital-scan" / "models" / "tiny_face_detector_model.bin")


def _create(partner, **body) -> dict:
    response = requests.post(SESSIONS, json={"userId": "member-7", **body}, headers=partner.headers, timeout=60)
    assert response.status_code == 201, response.text
    session = response.json()["data"]
    # vitalScanUrl carries the functions' PUBLIC_BASE_URL; the browser opens the same page on this stack.
    url = urlsplit(session["vitalScanUrl"])
    assert url.path == "/vital-scan/" and url.fragment.startswith("scanToken=")
    session["pageUrl"] = f"{BASE_URL}{url.path}#{url.fragment}"
    session["token"] = url.fragment.split("=", 1)[1]
    return session


def _drive(session: dict, name: str, *extra: str, timeout: int = 240) -> dict:
    return driver.run("scan-check.mjs", "--url", session["pageUrl"], "--return-origin", ORIGIN,
                      "--shots", str(SHOTS / f"vital-scan-{name}"), *extra, timeout=timeout)


def _common(report: dict, session: dict):
    # The token left the address bar at once, and the page ran on a phone-sized screen without overflow.
    assert "scanToken" not in report["addressAfterLoad"] and "#" not in report["addressAfterLoad"]
    assert report["pageWidth"] <= 390
    assert report["startButton"]["height"] >= 44 and report["startButton"]["focused"]
    assert report["offHost"] == [] and report["pageErrors"] == [] and report["failed"] == []
    assert report["cspViolations"] == [], report["cspViolations"]
    # The platform never failed (an emulator's passing failure, without x-request-id, the page tries again).
    assert [e for e in report["hostedErrors"] if e["status"] >= 500 and e["requestId"]] == [], report["hostedErrors"]
    # No hosted call carries anything in its URL (the token travels in the Authorization header).
    assert all("?" not in call for call in report["hosted"]), report["hosted"]
    # The return: the approved returnUrl with the session id and status, nothing else added.
    back = urlsplit(report["returnUrl"])
    assert f"{back.scheme}://{back.netloc}" == ORIGIN and back.path == "/vital-scan/done"
    query = parse_qs(back.query)
    assert query["vital_scan_session_id"] == [session["vitalScanResultId"]] and query["ref"] == ["a1"]
    assert set(query) == {"ref", "vital_scan_session_id", "status"}
    assert session["token"] not in report["returnUrl"] and not back.fragment
    return query["status"]


def test_every_locale_of_the_page_holds_every_text_the_page_shows():
    """A text missing in one locale would show "undefined": each locale has the same keys, and every key the page
    names (say, guide, the answers' tables and the results note's composed keys) is one of them."""
    source = (ROOT / "web" / "vital-scan.js").read_text()
    table = source[source.index("const TEXT = {"):source.index("\n}\n", source.index("const TEXT = {"))]
    starts = [m.start() for m in re.finditer(r"^  (?:en|'zh-Hant'|'zh-Hans'): \{$", table, re.M)] + [len(table)]
    locales = [set(re.findall(r"^    (\w+):", table[a:b], re.M)) for a, b in itertools.pairwise(starts)]
    assert len(locales) == 3 and locales[0] == locales[1] == locales[2], [locales[0] ^ other for other in locales]
    named = set(re.findall(r"\b(?:say|guide)\('(\w+)'", source)) - {""}
    for table_name in ("EXTEND_FOR", "SCAN_ON_FOR", "RETRY_TEXT"):
        named |= set(re.findall(r"'(\w+)'", re.search(rf"const {table_name} = \{{(.*?)\}}", source).group(1)))
    named |= {prefix + missing for prefix in ("longerScan", "stillerScan") for missing in ("", "Rr", "Hrv")}
    assert named <= locales[0], named - locales[0]


def test_the_page_and_its_detector_are_served_with_their_headers():
    page = requests.get(BASE_URL + "/vital-scan/", timeout=30)
    assert page.status_code == 200 and '<script type="module" src="/vital-scan/scan.js">' in page.text
    csp = page.headers.get("Content-Security-Policy", "")
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    # tfjs compiles WebAssembly ('wasm-unsafe-eval'); JavaScript eval stays blocked.
    assert "'unsafe-eval'" not in csp and "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp
    assert page.headers.get("X-Frame-Options") == "DENY" and page.headers.get("Cache-Control") == "no-store"
    assert page.headers.get("Referrer-Policy") == "no-referrer"
    for path in ("scan.js", "models/tiny_face_detector_model-weights_manifest.json",
                 "models/face_landmark_68_tiny_model.bin"):
        served = requests.get(f"{BASE_URL}/vital-scan/{path}", timeout=30)
        assert served.status_code == 200 and served.content == (ROOT / "public" / "vital-scan" / path).read_bytes()


def test_scan_with_a_pulsing_face_completes_and_returns_with_the_heart_rate(tenant, tmp_path, capsys):
    _require_browser()
    # A video that does not loop while the page records (_still_face): with the 10 s looping one, the pulse's phase
    # slipped at each loop and the steps' median reached 0.16 once on the loaded CI machine.
    video = write_y4m(tmp_path / "face.y4m", bpm=TRUE_BPM, moves_after=50)
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "scan", "--video", video["path"], "--fail-measurement")

    assert report["lang"] == "en" and "Start scan" in report["introText"] and "camera" in report["introText"]
    assert _common(report, session) == ["completed"]
    assert report["hosted"][:2] == ["GET /api/hosted/vital-scan/session", "POST /api/hosted/vital-scan/start"]
    # The first sending was answered 503 (--fail-measurement): the page offered Try again, which sent the
    # same trace again instead of a new capture.
    assert report["afterFailedSend"] == {"message": "Your scan could not be sent. Try again to send it, or exit.",
                                         "retryShown": True, "exitShown": True, "focused": "retry"}
    sent = report["measurementsSent"]
    assert len(sent) == 2 and sent[0] == sent[1]
    assert report["hosted"].count("POST /api/hosted/vital-scan/measurement") == 1
    # The trace: mean skin colours with their times, about 30 s of them at about the camera's 30 fps.
    measured = report["measurement"]
    assert measured["keys"] == ["fps", "rgb", "t"], measured
    assert 29.5 <= measured["seconds"] <= 33 and 20 <= measured["fps"] <= 31, measured
    assert any(g.startswith("Measuring") for g in report["guidanceSeen"]), report["guidanceSeen"]
    assert report["focused"] == "results-title"

    polled = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60)
    assert polled.status_code == 200, polled.text
    data = polled.json()["data"]
    assert data["status"] == "completed" and data["completedAt"]
    with capsys.disabled():
        print(f"\n[vital scan page] {report['timings']} backend {report.get('backend')}; trace {measured}; "
              f"metrics {data['metrics']}; shown {report['metrics']}; screenshots {report['shots']}")
    # The heart rate the engine found in the trace the page recorded, within 3 bpm of the video's.
    assert data["metrics"] and abs(data["metrics"]["hr"] - TRUE_BPM) <= 3, data["metrics"]
    assert report["metrics"].get("hr") == f"{round(data['metrics']['hr'])} bpm"
    _still_face(report, data)


def _still_face(report: dict, data: dict):
    """The face of the video is still. The page keeps its regions while the face keeps still, so its trace has no steps
    where the detector ran (with new regions at every detection: steps of up to 1.8 levels once a second, against a
    pulse of 1.5, which a 30 s trace once read as 19.5 breaths/min: median 0.3 levels, now about 0.02).

    The runs that check this play a video that does not loop while the page records: Chromium's fake camera repeats a
    frame each time a video loops, so the pulse's phase slips (33 ms every 10 s), which the fit's one phase leaves in the
    levels, and the beats' timing gets a 0.1 Hz rhythm whose harmonics two modulations once agreed on (18.4/min).
    tests/vital_scan/test_rppg_failures.py holds the breathless face's trace."""
    trace = json.loads((Path(report["shots"][0]).parent / "trace.json").read_text())  # the last trace sent
    steps = region_steps(trace, data["metrics"]["hr"])
    # The median: the first detections of a capture may still move the regions (and a looping video's phase slips left
    # single steps of up to 3 levels on a loaded machine).
    assert len(steps) >= 20 and np.median(abs(steps)) < 0.15, steps.round(2).tolist()


def test_a_heart_rate_without_a_breathing_rate_scans_on_to_a_minute_and_completes(tenant, tmp_path, capsys):
    """The pulsing face has no breathing in it: its 30 s trace, sent as still recording, gives a heart rate but no
    breathing rate and is answered scanOn. The camera goes on to 60 s and sends the whole trace, the first 30 s
    frame for frame, which reads the heart rate again and completes the session with no retry spent."""
    _require_browser()
    # A video that does not loop while the page records: at each loop Chromium repeats a frame, a rhythm in the beats'
    # timing whose harmonics were once read as a breathing rate at 30 s on a loaded machine, and no scan-on followed.
    video = write_y4m(tmp_path / "face.y4m", bpm=TRUE_BPM, moves_after=80)
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "scan-on", "--video", video["path"], "--expect-scan-on", "--timeout-ms", "150000",
                    timeout=300)

    assert _common(report, session) == ["completed"]
    assert report["hosted"].count("POST /api/hosted/vital-scan/measurement") == 2
    first, whole = report["measurements"]
    assert 29.5 <= first["seconds"] <= 33 and first["recording"] and not first["extends"], report["measurements"]
    # The minute goes as still recording too: had it read no heart rate, the capture would go on (scan_on).
    assert 59.5 <= whole["seconds"] <= 63 and whole["extends"] and whole["recording"], report["measurements"]
    says = "Heart rate measured. The scan goes on for 30 more seconds to measure your breathing rate. Hold still."
    assert report["scanningOn"] == {**report["scanningOn"], "guidance": says, "cameraShown": True, "finishShown": True,
                                    "exitShown": True}, report["scanningOn"]
    assert report["scanningOn"]["progress"].endswith(" s left"), report["scanningOn"]
    # No breathing in the video: the results say what a breathing rate needs after a whole minute.
    assert "a very still scan in even light" in report["resultsText"], report["resultsText"]

    polled = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60)
    data = polled.json()["data"]
    assert data["status"] == "completed" and abs(data["metrics"]["hr"] - TRUE_BPM) <= 3, data
    assert report["metrics"].get("hr") == f"{round(data['metrics']['hr'])} bpm"
    _still_face(report, data)
    with capsys.disabled():
        print(f"\n[vital scan page, scanning on] {report['timings']}; traces {report['measurements']}; "
              f"metrics {data['metrics']}; screenshots {report['shots']}")


def test_movement_while_scanning_on_sends_what_was_recorded(tenant, tmp_path, capsys):
    """The head starts jumping 50 s into the video, while the page scans on for the breathing rate: the page does
    not start over, it sends what it recorded (its first 30 s frame for frame), and the heart rate completes."""
    _require_browser()
    video = write_y4m(tmp_path / "moves.y4m", bpm=TRUE_BPM, moves_after=50)
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "scan-on-moved", "--video", video["path"], "--timeout-ms", "150000", timeout=300)

    assert _common(report, session) == ["completed"]
    first, moved = report["measurements"]
    assert 29.5 <= first["seconds"] <= 33 and first["recording"], report["measurements"]
    assert first["seconds"] < moved["seconds"] < 59 and moved["extends"] and not moved["recording"], report["measurements"]
    data = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60).json()["data"]
    assert data["status"] == "completed" and abs(data["metrics"]["hr"] - TRUE_BPM) <= 3, data
    # Under a minute: the results ask for a calm scan of about 60 seconds for the rest. This video does not loop
    # while the page records, and the trace ends at the last detection before the jumps: a face that does not
    # breathe gives no breathing rate (a second of the jumps at the end was once read as 13/min).
    assert "a calm scan of about 60 seconds" in report["resultsText"], report["resultsText"]
    _still_face(report, data)
    assert "rr" not in data["metrics"], data["metrics"]
    with capsys.disabled():
        print(f"\n[vital scan page, moved while scanning on] {report['timings']}; traces {report['measurements']}")


def test_finish_now_while_scanning_on_keeps_the_heart_rate(tenant, tmp_path, capsys):
    """While the page scans on for the breathing rate, Finish now sends what was recorded at once: the session
    completes with the heart rate, and the results ask for a calm minute for the rest."""
    _require_browser()
    video = write_y4m(tmp_path / "face.y4m", bpm=TRUE_BPM, moves_after=80)  # no loop while recording, as above
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "scan-on-finish", "--video", video["path"], "--expect-scan-on", "--finish-scan-on",
                    "--timeout-ms", "150000", timeout=300)

    assert _common(report, session) == ["completed"]
    first, finished = report["measurements"]
    assert 29.5 <= first["seconds"] <= 33 and first["recording"], report["measurements"]
    assert first["seconds"] < finished["seconds"] < 40 and finished["extends"], report["measurements"]
    assert not finished["recording"]
    assert "a calm scan of about 60 seconds" in report["resultsText"], report["resultsText"]
    data = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60).json()["data"]
    assert data["status"] == "completed" and abs(data["metrics"]["hr"] - TRUE_BPM) <= 3, data
    with capsys.disabled():
        print(f"\n[vital scan page, finished while scanning on] {report['timings']}; traces {report['measurements']}")


def test_a_weak_pulse_scans_on_to_three_minutes_and_completes(tenant, tmp_path, capsys):
    """The face without a pulse (a photograph): its 30 s trace is answered "try again" (weak) with tries left, and
    the camera, still recording, goes on to 60 s and sends the whole trace as still recording, the first 30 s frame
    for frame; answered the same, on to 120 s, and answered the same again, now with no try left, on to 175 s,
    whose whole trace completes the session with nothing measured."""
    _require_browser()
    video = write_y4m(tmp_path / "still.y4m", beats=1, amplitude=0.0)
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "weak", "--video", video["path"], "--expect-scan-on", "--timeout-ms", "260000",
                    timeout=480)

    assert _common(report, session) == ["completed"]
    assert report["hosted"].count("POST /api/hosted/vital-scan/measurement") == 4
    first, minute, two, whole = report["measurements"]
    assert 29.5 <= first["seconds"] <= 33 and not first["extends"] and first["recording"], report["measurements"]
    assert 59.5 <= minute["seconds"] <= 63 and minute["extends"] and minute["recording"], report["measurements"]
    assert 119.5 <= two["seconds"] <= 123 and two["extends"] and two["recording"], report["measurements"]
    assert 174.5 <= whole["seconds"] <= 178 and whole["extends"] and not whole["recording"], report["measurements"]
    says = "The pulse signal is weak: the scan goes on for 30 more seconds. Hold still."
    assert report["scanningOn"] == {**report["scanningOn"], "guidance": says, "cameraShown": True,
                                    "finishShown": False, "exitShown": True}, report["scanningOn"]
    assert "The pulse signal is weak: the scan goes on for 60 more seconds. Hold still." in report["guidanceSeen"]
    assert "The pulse signal is weak: the scan goes on for 55 more seconds. Hold still." in report["guidanceSeen"]
    assert not any("Try again" in m for m in report["messages"]), report["messages"]
    assert "no measurement could be made" in report["resultsText"] and report["metrics"] == {}

    polled = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60)
    data = polled.json()["data"]
    assert data["status"] == "completed" and data["metrics"] is None
    with capsys.disabled():
        print(f"\n[vital scan page, weak pulse] {report['timings']}; traces {report['measurements']}; "
              f"screenshots {report['shots']}")


def test_a_last_try_answer_says_so_and_the_last_try_records_a_minute_at_once(tenant, tmp_path, capsys):
    """The 30 s trace's answer is a session's last "try again", here for the dark (`--answer-retry dark`, injected
    in the browser: the engine's own answers to a face without a pulse are weak ones, which scan on instead): the
    camera stops, the page says what to change and that the last try takes about a minute, with Try again focused.
    Try again records a minute at once, never a 30 s trace answered on. Exit then returns as exited."""
    _require_browser()
    video = write_y4m(tmp_path / "face.y4m", bpm=TRUE_BPM)
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "last-try", "--video", video["path"], "--expect-retry", "--answer-retry", "dark",
                    "--timeout-ms", "90000", timeout=240)

    assert _common(report, session) == ["exited"]
    assert report["afterRetry"] == {
        "message": "No measurement this time: it was too dark. Move to a brighter place or face a light, then tap "
                   "Try again. The last try takes about a minute.",
        "retryShown": True, "focused": "retry"}
    assert "The last try takes about a minute." in report["messages"], report["messages"]
    assert report["lastTry"]["guidance"] == "Measuring for about a minute. Hold still and keep your face in the oval."
    assert 55 <= int(report["lastTry"]["progress"].split(": ")[1].split(" ")[0]) <= 60, report["lastTry"]
    first, = report["measurements"]  # the last try sent nothing before Exit
    assert 29.5 <= first["seconds"] <= 33 and first["recording"], report["measurements"]
    with capsys.disabled():
        print(f"\n[vital scan page, last try] {report['timings']}; screenshots {report['shots']}")


def test_camera_denied_says_so_and_exit_still_returns(tenant, capsys):
    _require_browser()
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="zh-TW", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, "denied", "--deny-camera", timeout=120)

    assert report["lang"] == "zh-Hant" and "開始掃描" in report["introText"]
    assert "相機存取遭拒" in report["cameraMessage"], report["cameraMessage"]
    assert report["focused"] == "retry"
    assert _common(report, session) == ["exited"]
    assert report["hosted"] == ["GET /api/hosted/vital-scan/session", "POST /api/hosted/vital-scan/start",
                                "POST /api/hosted/vital-scan/exit"]
    # Leaving is not failing: the session stays in progress (it can be resumed).
    polled = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60)
    assert polled.status_code == 200 and polled.json()["data"]["status"] == "in_progress"
    with capsys.disabled():
        print(f"\n[vital scan page, camera denied] {report['timings']}; screenshots {report['shots']}")


@pytest.mark.parametrize(("outage", "asked"), [(2, False), (3, True)])
def test_a_passing_outage_is_tried_again_and_the_session_survives_it(tenant, outage, asked, capsys):
    """The first reads of the session are answered 503 in the browser (scan-check --outage): the page reads
    again after 1 s and 3 s by itself; after a third failure it says so and offers Try again, keeping the
    token (a refusal would forget it and a reload could not resume). Then the flow goes on as usual."""
    _require_browser()
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="en", returnUrl=f"{ORIGIN}/vital-scan/done?ref=a1")

    report = _drive(session, f"outage-{outage}", "--deny-camera", "--outage", str(outage), timeout=120)

    assert [(e["call"], e["status"]) for e in report["hostedErrors"]] == [
        ("GET /api/hosted/vital-scan/session", 503)] * outage
    shown = report["outage"]
    assert (shown["retryShown"], shown["sessionReads"]) == (asked, outage + (0 if asked else 1)), shown
    if asked:
        assert shown["message"] == "Something went wrong. Please try again." and shown["focused"] == "retry"
        assert report["shots"][0].endswith("0-unavailable.png")
    else:
        assert shown["message"] == "", shown  # the intro was shown
    assert _common(report, session) == ["exited"]
    assert report["hosted"] == ["GET /api/hosted/vital-scan/session", "POST /api/hosted/vital-scan/start",
                                "POST /api/hosted/vital-scan/exit"]
    with capsys.disabled():
        print(f"\n[vital scan page, {outage} reads failed] {report['timings']}; screenshots {report['shots']}")


def test_no_face_is_guided_the_session_resumes_and_exit_without_return_url_stays(tenant, tmp_path, capsys):
    _require_browser()
    video = write_still_y4m(tmp_path / "cup.y4m", data.coffee())  # a cup of coffee: no face
    partner = make_partner(tenant, points=2)
    session = _create(partner, locale="zh")

    report = _drive(session, "no-face", "--video", video["path"], "--no-face", timeout=150)

    assert report["lang"] == "zh-Hans" and "开始扫描" in report["introText"]  # a bare zh reads Simplified
    assert "未检测到人脸" in report["warning"] and report["progressWithoutFace"] == 0
    assert "scanToken" not in report["addressAfterLoad"] and "#" not in report["addressAfterLoad"]
    assert report["addressAfterReload"] == report["addressAfterLoad"]
    assert report["retryShown"]
    # Try again, then a reload resumed the session with the token kept for the tab: start again (no
    # change while in progress, no point), then exit.
    session_, start = "GET /api/hosted/vital-scan/session", "POST /api/hosted/vital-scan/start"
    assert report["hosted"] == [session_, start, start, session_, start, "POST /api/hosted/vital-scan/exit"]
    assert "您已退出扫描" in report["exitMessage"] and not report["cameraShown"] and report["focused"] == "title"
    assert report["offHost"] == [] and report["pageErrors"] == [] and report["failed"] == []
    assert report["cspViolations"] == [], report["cspViolations"]
    polled = requests.get(f"{SESSIONS}/{session['vitalScanResultId']}", headers=partner.headers, timeout=60)
    assert polled.status_code == 200 and polled.json()["data"]["status"] == "in_progress"
    with capsys.disabled():
        print(f"\n[vital scan page, no face] {report['timings']}; screenshots {report['shots']}")


@pytest.mark.parametrize(("problem", "says"), [
    ("small", "Your face is too small. Move closer to the camera."),
    ("dark", "It is too dark. Move to a brighter place or face a light."),
    ("moving", "Too much movement. Hold still."),
])
def test_guidance_names_the_problem(tenant, tmp_path, problem, says):
    _require_browser()
    video = write_problem_y4m(tmp_path / f"{problem}.y4m", problem)
    session = _create(make_partner(tenant, points=2), locale="en")

    report = _drive(session, f"guidance-{problem}", "--video", video["path"], "--guidance-only",
                    "--expect-guidance", says, timeout=120)

    assert says in report["guidanceSeen"], report["guidanceSeen"]
    if problem != "moving":  # (a head that keeps jumping may hold still long enough in between)
        assert not any(g.startswith("Measuring") for g in report["guidanceSeen"]), report["guidanceSeen"]
    assert report["pageErrors"] == [] and report["cspViolations"] == []
