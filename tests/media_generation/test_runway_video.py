"""The Runway video adapter against a fake Runway API at the vendor's HTTP boundary (the official SDK is real)."""

import base64
import dataclasses
import io
import json
import threading
import time
import types
import typing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import av
import numpy as np
import pytest
from PIL import Image
from runwayml.resources import image_to_video, text_to_video

from tests.media_generation.test_openai_images import FakeImagesApi
from wellness_api.media_generation import presets
from wellness_api.media_generation.providers import registry, runway_video
from wellness_api.media_generation.providers.base import GenerationRequest, ProviderError
from wellness_api.media_generation.providers.local import LocalProvider
from wellness_api.media_generation.providers.openai_images import OpenAIImageProvider
from wellness_api.media_generation.providers.runway_video import MODELS, RunwayVideoProvider, duration_for, ratio_for

KEY = "key_test-platform-runway-secret"
PROMPT = "A short looping cover video of the exercise Squats (strength)."
TASK = "17f20503-6c24-4c16-946b-35dbbce2af2f"


@pytest.fixture(scope="module")
def mp4() -> bytes:
    """A real, decodable 1 s 16:9 H.264 MP4, as the vendor's output would be."""
    return LocalProvider().generate(GenerationRequest("video", "Runway output", "local-video-1", "16:9", "128x72",
                                                      1)).data


class FakeRunwayApi:
    """Runway's task API as the SDK sees it; `statuses` is what successive polls answer, `behaviour` the failures."""

    def __init__(self, mp4: bytes):
        self.mp4, self.behaviour = mp4, "ok"
        self.statuses = ["SUCCEEDED"]
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self._recorded(body):
                    return None
                if api.behaviour == "slow":
                    time.sleep(1.5)
                if api.behaviour == "refused":
                    return self._json(400, {"error": "Validation of body failed",
                                            "issues": [{"code": "too_big", "path": ["promptText"],
                                                        "message": "promptText must be at most 1000 characters"}],
                                            "docUrl": "https://docs.dev.runwayml.com/errors/"})
                return self._json(200, {"id": TASK})

            def do_GET(self):
                if self.path == f"/output/{TASK}.mp4":
                    api.requests.append({"method": "GET", "path": self.path, "auth": self.headers.get("Authorization")})
                    if api.behaviour == "gone":
                        return self._json(403, {"error": "expired"})
                    return self._bytes(b"not a video at all" if api.behaviour == "garbage" else api.mp4)
                if self._recorded(None):
                    status = api.statuses.pop(0) if len(api.statuses) > 1 else api.statuses[0]
                    return self._json(200, api.task(status))
                return None

            def do_DELETE(self):
                if self._recorded(None):
                    self.send_response(204)
                    self.end_headers()

            def _recorded(self, body) -> bool:
                """Records the call; answers 401 as the vendor would without the key and the API version."""
                api.requests.append({"method": self.command, "path": self.path, "body": body,
                                     "auth": self.headers.get("Authorization"),
                                     "version": self.headers.get("X-Runway-Version")})
                if self.headers.get("Authorization") != f"Bearer {KEY}" or not self.headers.get("X-Runway-Version"):
                    self._json(401, {"error": "Invalid API key or version"})
                    return False
                return True

            def _json(self, status: int, payload: dict):
                self._bytes(json.dumps(payload).encode(), status, "application/json")

            def _bytes(self, data: bytes, status: int = 200, content_type: str = "video/mp4"):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll interval: shutdown() waits for it, and every test stops its server.
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def task(self, status: str) -> dict:
        """The task as GET /v1/tasks/{id} answers it in that status."""
        task = {"id": TASK, "createdAt": "2026-05-01T10:00:00.000Z", "status": status}
        if status in ("PENDING", "THROTTLED", "RUNNING"):
            task["estimatedCost"] = {"credits": 48}
        else:
            task["cost"] = {"credits": 48 if status == "SUCCEEDED" else 0}
        if status == "RUNNING":
            task["progress"] = 0.4
        if status == "SUCCEEDED":
            task["output"] = [f"{self.base_url}/output/{TASK}.mp4"]
        if status == "FAILED":
            task |= {"failure": "The prompt was flagged by content moderation.", "failureCode": "SAFETY.INPUT.TEXT"}
        return task

    def calls(self, method: str, path: str = "") -> list[dict]:
        return [r for r in self.requests if r["method"] == method and r["path"].startswith(path)]


@pytest.fixture
def vendor(mp4):
    fake = FakeRunwayApi(mp4)
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def request(resolution: str = "640x360", seconds: float = 4, **kwargs) -> GenerationRequest:
    return GenerationRequest("video", PROMPT, presets.LOCAL_VIDEO, "16:9", resolution, seconds, **kwargs)


def provider(vendor, **kwargs) -> RunwayVideoProvider:
    return RunwayVideoProvider(KEY, vendor.base_url, "gen4.5", **{"poll_interval": 0.05, **kwargs})


def test_a_text_to_video_task_is_polled_downloaded_and_decoded(vendor):
    media = provider(vendor).generate(request(seed=42))
    assert (media.content_type, media.width, media.height, media.duration_seconds) == ("video/mp4", 128, 72, 1.0)
    assert media.data == vendor.mp4 and media.provider_generation_id == TASK
    assert media.provider_cost_usd == 0.48  # 48 credits at $0.01
    [create] = vendor.calls("POST")
    assert create["path"] == "/v1/text_to_video" and create["auth"] == f"Bearer {KEY}"
    assert create["version"] == "2024-11-06"
    assert create["body"] == {"model": "gen4.5", "promptText": PROMPT, "ratio": "1280:720", "duration": 4, "seed": 42}
    assert [r["path"] for r in vendor.calls("GET")] == [f"/v1/tasks/{TASK}", f"/output/{TASK}.mp4"]
    assert vendor.calls("GET", "/output/")[0]["auth"] is None  # the pre-signed URL never sees the key


def test_a_reference_image_makes_it_image_to_video_with_a_data_uri(vendor):
    png = io.BytesIO()
    Image.new("RGB", (90, 160), (200, 120, 20)).save(png, format="PNG")
    reference = (png.getvalue(), "image/png")
    provider(vendor).generate(request("720x1280", 7, references=(reference, (b"second", "image/jpeg"))))
    [create] = vendor.calls("POST")
    assert create["path"] == "/v1/image_to_video"
    body = create["body"]
    assert body["promptImage"] == "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    assert {k: body[k] for k in ("model", "promptText", "ratio", "duration")} == \
        {"model": "gen4.5", "promptText": PROMPT, "ratio": "720:1280", "duration": 7}
    assert "seed" not in body  # none requested: the vendor picks one


def test_a_slow_job_is_polled_until_it_succeeds(vendor):
    vendor.statuses = ["PENDING", "PENDING", "THROTTLED", "RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"]
    started = time.monotonic()
    media = provider(vendor).generate(request())
    assert media.provider_generation_id == TASK
    assert len(vendor.calls("GET", "/v1/tasks/")) == 7
    assert time.monotonic() - started >= 7 * 0.05  # one poll per poll_interval, not a busy loop


def test_a_failed_task_is_a_provider_error_with_the_vendors_reason(vendor):
    vendor.statuses = ["RUNNING", "FAILED"]
    with pytest.raises(ProviderError, match=r"failed the generation: The prompt was flagged by content moderation\. "
                                            r"\(SAFETY\.INPUT\.TEXT\)"):
        provider(vendor).generate(request())
    assert not vendor.calls("DELETE") and not vendor.calls("GET", "/output/")


def test_a_cancelled_task_is_a_provider_error(vendor):
    vendor.statuses = ["CANCELLED"]
    with pytest.raises(ProviderError, match="cancelled the generation"):
        provider(vendor).generate(request())


def test_a_vendor_refusal_is_a_provider_error_with_its_message(vendor):
    vendor.behaviour = "refused"
    with pytest.raises(ProviderError) as caught:
        provider(vendor).generate(request())
    assert str(caught.value) == ("The video provider refused the request (400): Validation of body failed: "
                                 "promptText must be at most 1000 characters")
    assert len(vendor.calls("POST")) == 1 and not vendor.calls("GET")


def test_a_wrong_key_is_a_provider_error_without_the_key(vendor):
    with pytest.raises(ProviderError, match=r"refused the request \(401\): Invalid API key") as caught:
        RunwayVideoProvider("key_wrong", vendor.base_url, "gen4.5").generate(request())
    assert "key_wrong" not in str(caught.value) and KEY not in str(caught.value)


def test_a_task_that_never_finishes_times_out_and_is_cancelled(vendor):
    vendor.statuses = ["RUNNING"]
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"did not finish within 0\.3 s; the task was cancelled"):
        provider(vendor, timeout=0.3).generate(request())
    assert time.monotonic() - started < 2
    [cancel] = vendor.calls("DELETE")
    assert cancel["path"] == f"/v1/tasks/{TASK}" and cancel["auth"] == f"Bearer {KEY}"


def test_a_vendor_that_does_not_answer_in_time_is_a_provider_error_and_not_retried(vendor):
    vendor.behaviour = "slow"
    with pytest.raises(ProviderError, match="did not answer in time"):
        provider(vendor, request_timeout=0.3).generate(request())
    assert len(vendor.calls("POST")) == 1  # a retried create could start, and bill, a second task


def test_an_output_that_is_not_a_video_is_a_provider_error(vendor):
    vendor.behaviour = "garbage"
    with pytest.raises(ProviderError, match="without a readable video"):
        provider(vendor).generate(request())


def wide_mp4(width: int, height: int) -> bytes:
    """One black H.264 frame of width x height: a few hundred bytes, however many pixels a frame decodes to."""
    buffer = io.BytesIO()
    with av.open(buffer, mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=24)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        frame = av.VideoFrame.from_ndarray(np.zeros((height, width, 3), dtype=np.uint8), format="rgb24")
        for packet in [*stream.encode(frame), *stream.encode()]:
            container.mux(packet)
    return buffer.getvalue()


def test_an_output_wider_than_the_limit_is_refused_before_a_frame_is_decoded(vendor):
    vendor.mp4 = wide_mp4(4112, 16)
    with pytest.raises(ProviderError, match=r"^The video provider's output is 4,112 x 16 pixels; at most 4,096 x "
                                            r"4,096 are accepted\.$"):
        provider(vendor).generate(request())


def test_an_output_that_cannot_be_downloaded_is_a_provider_error(vendor):
    vendor.behaviour = "gone"
    with pytest.raises(ProviderError, match=r"could not be downloaded \(403\)"):
        provider(vendor).generate(request())


def test_an_output_over_the_size_cap_is_refused(vendor, monkeypatch):
    monkeypatch.setattr(runway_video, "MAX_VIDEO_BYTES", len(vendor.mp4) - 1)
    with pytest.raises(ProviderError, match="larger than 200 MiB"):
        provider(vendor).generate(request())


def test_an_unreachable_vendor_is_a_provider_error():
    unreachable = RunwayVideoProvider(KEY, "http://127.0.0.1:9", "gen4.5", request_timeout=2, max_retries=0)
    with pytest.raises(ProviderError, match="could not be reached"):
        unreachable.generate(request())


def test_an_image_only_model_needs_a_reference_and_unknown_models_are_refused(vendor):
    with pytest.raises(ProviderError, match="gen4_turbo animates a reference image and this job has none"):
        RunwayVideoProvider(KEY, vendor.base_url, "gen4_turbo").generate(request())
    with pytest.raises(ProviderError, match=r"must be one of gen4\.5, gen4_turbo, veo3\.1, veo3\.1_fast, not 'gen5'"):
        RunwayVideoProvider(KEY, vendor.base_url, "gen5").generate(request())
    assert not vendor.requests


def test_a_runway_model_named_by_the_job_is_honoured(vendor):
    provider(vendor).generate(dataclasses.replace(request("1920x1080", 5), model="veo3.1_fast"))
    assert {k: vendor.calls("POST")[0]["body"][k] for k in ("model", "ratio", "duration")} == \
        {"model": "veo3.1_fast", "ratio": "1920:1080", "duration": 4}  # 5 s: 4 and 6 are as near, 4 costs less


@pytest.mark.parametrize(("resolution", "allowed", "ratio"), [
    ("640x360", MODELS["gen4.5"].text_ratios, "1280:720"),
    ("1080x1920", MODELS["gen4.5"].text_ratios, "720:1280"),
    ("1024x1024", MODELS["gen4.5"].text_ratios, "1280:720"),  # no square for text: landscape
    ("1024x1024", MODELS["gen4.5"].image_ratios, "960:960"),
    ("1000x1080", MODELS["gen4.5"].image_ratios, "960:960"),
    ("1024x768", MODELS["gen4.5"].image_ratios, "1104:832"),
    ("2560x1080", MODELS["gen4.5"].image_ratios, "1584:672"),
    ("768x1024", MODELS["gen4.5"].image_ratios, "832:1104"),
    ("640x360", MODELS["veo3.1"].text_ratios, "1280:720"),
    ("1920x1080", MODELS["veo3.1"].text_ratios, "1920:1080"),
    ("1024x1024", MODELS["veo3.1"].image_ratios, "1280:720"),
])
def test_the_ratio_follows_the_requested_orientation_then_shape_then_size(resolution, allowed, ratio):
    assert ratio_for(resolution, allowed) == ratio


@pytest.mark.parametrize(("seconds", "allowed", "duration"), [
    (4, MODELS["gen4.5"].durations, 4), (0, MODELS["gen4.5"].durations, 4), (1, MODELS["gen4.5"].durations, 2),
    (12.5, MODELS["gen4.5"].durations, 10), (6.6, MODELS["gen4.5"].durations, 7), (5, MODELS["veo3.1"].durations, 4),
    (7.2, MODELS["veo3.1"].durations, 8), (30, MODELS["veo3.1"].durations, 8),
])
def test_the_duration_is_the_nearest_allowed(seconds, allowed, duration):
    assert duration_for(seconds, allowed) == duration


def _sdk_models(resource, module) -> dict[str, dict]:
    """model -> the type hints of its create overload in the installed SDK."""
    hints = (typing.get_type_hints(f, globalns=vars(module)) for f in typing.get_overloads(resource.create))
    return {typing.get_args(h["model"])[0]: h for h in hints}


def _parts(hint) -> tuple:
    return typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)


def _literals(hint) -> set:
    return {v for part in _parts(hint) if typing.get_origin(part) is typing.Literal for v in typing.get_args(part)}


@pytest.mark.parametrize("name", MODELS)
def test_the_model_table_matches_the_sdks_types(name):
    model = MODELS[name]
    text = _sdk_models(text_to_video.TextToVideoResource, text_to_video)
    image = _sdk_models(image_to_video.ImageToVideoResource, image_to_video)
    assert _literals(image[name]["ratio"]) == set(model.image_ratios) and "seed" in image[name]
    assert (name in text) == bool(model.text_ratios)
    if model.text_ratios:
        assert _literals(text[name]["ratio"]) == set(model.text_ratios) and "seed" in text[name]
    for hints in (endpoint[name] for endpoint in (text, image) if name in endpoint):
        if _literals(hints["duration"]):
            assert _literals(hints["duration"]) == set(model.durations)
        else:  # any int: the table keeps the documented 2 to 10 s
            assert int in _parts(hints["duration"]) and model.durations == tuple(range(2, 11))


def test_the_video_provider_is_chosen_by_the_deployment_parameters(vendor, monkeypatch):
    assert isinstance(registry.provider_for("video"), LocalProvider)  # the default: offline
    monkeypatch.setenv("MEDIA_VIDEO_PROVIDER", "runway")
    monkeypatch.setenv("MEDIA_VIDEO_BASE_URL", vendor.base_url)
    monkeypatch.setenv("MEDIA_VIDEO_API_KEY", KEY)
    monkeypatch.setenv("MEDIA_VIDEO_MODEL", "veo3.1")
    chosen = registry.provider_for("video")
    assert isinstance(chosen, RunwayVideoProvider) and (chosen.model, chosen.timeout) == ("veo3.1", 600.0)
    chosen.poll_interval = 0.05
    assert chosen.generate(request()).provider_generation_id == TASK
    assert vendor.calls("POST")[0]["body"]["model"] == "veo3.1" and vendor.requests[0]["auth"] == f"Bearer {KEY}"
    assert isinstance(registry.provider_for("image"), LocalProvider)  # images keep their own parameter
    monkeypatch.setenv("MEDIA_VIDEO_PROVIDER", "sora")
    with pytest.raises(ProviderError, match="MEDIA_VIDEO_PROVIDER must be local or runway, not 'sora'"):
        registry.provider_for("video")


def test_a_missing_key_is_a_provider_error_before_any_call(vendor, monkeypatch):
    monkeypatch.setenv("MEDIA_VIDEO_PROVIDER", "runway")
    monkeypatch.setenv("MEDIA_VIDEO_BASE_URL", vendor.base_url)
    monkeypatch.delenv("MEDIA_VIDEO_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="MEDIA_VIDEO_API_KEY is not set"):
        registry.provider_for("video").generate(request())
    assert not vendor.requests


def test_the_image_adapter_does_not_send_a_presets_local_model_to_the_vendor():
    fake = FakeImagesApi()
    try:
        OpenAIImageProvider("sk-test", fake.base_url, "gpt-image-1").generate(
            GenerationRequest("image", PROMPT, presets.LOCAL_IMAGE, "1:1", "1024x1024"))
        assert fake.requests[0]["body"]["model"] == "gpt-image-1"
    finally:
        fake.server.shutdown()

