"""The OpenAI image adapter against a fake Images API at the vendor's HTTP boundary (the official SDK is real)."""

import base64
import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from tests.media_generation.servers import huge_png
from wellness_api.media_generation.providers import registry
from wellness_api.media_generation.providers.base import GenerationRequest, ProviderError
from wellness_api.media_generation.providers.local import LocalProvider
from wellness_api.media_generation.providers.openai_images import OpenAIImageProvider, size_for

KEY = "sk-test-platform-key"


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (20, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


class FakeImagesApi:
    """POST /v1/images/generations answered as the vendor would; `behaviour` picks success, an error or slowness."""

    def __init__(self):
        self.requests: list[dict] = []
        self.behaviour = "ok"
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if api.behaviour == "slow":
                    time.sleep(2)
                if api.behaviour == "refused":
                    return self._json(400, {"error": {"message": "Your request was rejected by the safety system.",
                                                      "type": "invalid_request_error", "code": "moderation_blocked"}})
                if api.behaviour == "garbage":
                    return self._json(200, {"created": 1, "data": [{"b64_json": "bm90IGFuIGltYWdl"}]})
                if api.behaviour == "bomb":
                    return self._json(200, {"created": 1, "data": [{"b64_json": base64.b64encode(huge_png())
                                                                    .decode()}]})
                width, height = (int(v) for v in body["size"].split("x"))
                return self._json(200, {"created": 1, "data": [{"b64_json": base64.b64encode(png(width, height))
                                                               .decode()}],
                                        "usage": {"input_tokens": 50, "output_tokens": 4160, "total_tokens": 4210}})

            def _json(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("x-request-id", "req_fake_123")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def vendor():
    fake = FakeImagesApi()
    yield fake
    fake.server.shutdown()


def request(resolution: str = "1280x720") -> GenerationRequest:
    return GenerationRequest("image", "A bright promotional visual for Squats.", "gpt-image-1", "16:9", resolution)


def provider(vendor, **kwargs) -> OpenAIImageProvider:
    return OpenAIImageProvider(KEY, vendor.base_url, "gpt-image-1", **kwargs)


def test_an_image_comes_back_decoded_with_the_vendors_request_id(vendor):
    media = provider(vendor).generate(request())
    assert (media.content_type, media.width, media.height) == ("image/png", 1536, 1024)
    assert media.provider_generation_id == "req_fake_123" and media.provider_cost_usd is None
    [sent] = vendor.requests
    assert sent["path"] == "/v1/images/generations" and sent["auth"] == f"Bearer {KEY}"
    assert sent["body"] == {"model": "gpt-image-1", "prompt": "A bright promotional visual for Squats.", "n": 1,
                            "size": "1536x1024", "output_format": "png"}


@pytest.mark.parametrize(("resolution", "size"), [("1024x1024", "1024x1024"), ("1000x1080", "1024x1024"),
                                                  ("720x1280", "1024x1536"), ("1600x900", "1536x1024")])
def test_the_size_follows_the_requested_orientation(resolution, size):
    assert size_for(resolution) == size


def test_a_vendor_refusal_is_a_provider_error_with_its_message(vendor):
    vendor.behaviour = "refused"
    with pytest.raises(ProviderError, match=r"refused the request \(400\): Your request was rejected by the safety"):
        provider(vendor).generate(request())
    assert len(vendor.requests) == 1  # a 400 is not retried


def test_a_vendor_that_does_not_answer_in_time_is_a_provider_error(vendor):
    vendor.behaviour = "slow"
    with pytest.raises(ProviderError, match="did not answer in time"):
        provider(vendor, timeout=0.5, max_retries=0).generate(request())


def test_an_answer_without_a_readable_image_is_a_provider_error(vendor):
    vendor.behaviour = "garbage"
    with pytest.raises(ProviderError, match="without a readable image"):
        provider(vendor).generate(request())


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_an_answer_whose_header_names_13000_by_13000_pixels_is_refused_before_it_is_decoded(vendor):
    vendor.behaviour = "bomb"
    with pytest.raises(ProviderError, match=r"^The image provider's answer is 13,000 x 13,000 pixels; at most "
                                            r"4,096 x 4,096 are accepted\.$"):
        provider(vendor).generate(request())


def test_an_unreachable_vendor_is_a_provider_error():
    unreachable = OpenAIImageProvider(KEY, "http://127.0.0.1:9/v1", "gpt-image-1", timeout=2, max_retries=0)
    with pytest.raises(ProviderError, match="could not be reached"):
        unreachable.generate(request())


def test_the_provider_is_chosen_by_the_deployment_parameters(vendor, monkeypatch):
    assert isinstance(registry.provider_for("image"), LocalProvider)  # the default: offline
    monkeypatch.setenv("MEDIA_IMAGE_PROVIDER", "openai")
    monkeypatch.setenv("MEDIA_IMAGE_BASE_URL", vendor.base_url)
    monkeypatch.setenv("MEDIA_IMAGE_API_KEY", KEY)
    chosen = registry.provider_for("image")
    assert isinstance(chosen, OpenAIImageProvider)
    assert chosen.generate(request("1024x1024")).width == 1024 and vendor.requests[0]["auth"] == f"Bearer {KEY}"
    assert isinstance(registry.provider_for("video"), LocalProvider)
    monkeypatch.setenv("MEDIA_IMAGE_PROVIDER", "dall-e")
    with pytest.raises(ProviderError, match="must be local or openai"):
        registry.provider_for("image")
