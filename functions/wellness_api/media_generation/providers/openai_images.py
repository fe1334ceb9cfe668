"""The OpenAI Images API through the official `openai` SDK: the image vendor adapter.

The platform's key is a secret (MEDIA_IMAGE_API_KEY) sent by the SDK, never stored on a job. The API returns no
price, so providerCostUsd stays null; its request id (x-request-id) is the providerGenerationId that support can
trace. Any OpenAI-compatible Images endpoint works through MEDIA_IMAGE_BASE_URL.
"""

import base64
from typing import Any

from .. import images
from ..presets import LOCAL_IMAGE, LOCAL_VIDEO
from .base import GeneratedMedia, GenerationRequest, ProviderError, dimensions

# The sizes gpt-image models accept, by orientation.
SQUARE, LANDSCAPE, PORTRAIT = "1024x1024", "1536x1024", "1024x1536"
LOCAL_MODELS = (LOCAL_IMAGE, LOCAL_VIDEO)
TIMEOUT_SECONDS = 120.0
MAX_MESSAGE = 300


def size_for(resolution: str) -> str:
    """The accepted size closest to the requested resolution's orientation."""
    width, height = dimensions(resolution)
    if abs(width - height) <= min(width, height) * 0.1:
        return SQUARE
    return LANDSCAPE if width > height else PORTRAIT


class OpenAIImageProvider:
    name = "openai"

    def __init__(self, api_key: str, base_url: str, model: str, timeout: float = TIMEOUT_SECONDS,
                 max_retries: int = 2):
        self.api_key, self.base_url, self.model = api_key, base_url, model
        self.timeout, self.max_retries = timeout, max_retries

    def _model(self, request: GenerationRequest) -> str:
        # A job made while the local generator was configured names a local model, which means nothing here.
        return request.model if request.model and request.model not in LOCAL_MODELS else self.model

    def generate(self, request: GenerationRequest) -> GeneratedMedia:
        import openai

        if request.media_type != "image":
            raise ProviderError("the openai image provider makes images only")
        client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                               max_retries=self.max_retries)
        try:
            response = client.images.generate(model=self._model(request), prompt=request.prompt, n=1,
                                              size=size_for(request.resolution), output_format="png")
        except openai.APITimeoutError:
            raise ProviderError("The image provider did not answer in time.") from None
        except openai.APIStatusError as exc:
            raise ProviderError(f"The image provider refused the request ({exc.status_code}): "
                                f"{_message(exc)}"[:MAX_MESSAGE]) from None
        except openai.APIConnectionError:
            raise ProviderError("The image provider could not be reached.") from None
        return _decoded(response)


def _message(exc) -> str:
    body: dict[str, Any] = exc.body if isinstance(exc.body, dict) else {}
    nested = body.get("error")
    error: dict[str, Any] = nested if isinstance(nested, dict) else body
    return str(error.get("message") or exc.message)


def _decoded(response) -> GeneratedMedia:
    """The vendor's image, its size checked from the header before it is decoded (a vendor is not trusted
    with the worker's memory either)."""
    try:
        data = base64.b64decode(response.data[0].b64_json, validate=True)
        with images.opened(data, "The image provider's answer") as image:
            image.load()
            width, height, kind = image.width, image.height, image.format
    except images.TooLarge as exc:
        raise ProviderError(f"{exc}.") from None
    except (IndexError, TypeError, ValueError, OSError):
        raise ProviderError("The image provider answered without a readable image.") from None
    content_type = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}.get(kind)
    if content_type is None:
        raise ProviderError(f"The image provider answered with an unsupported format ({kind}).")
    return GeneratedMedia(data, content_type, width, height, provider_generation_id=response._request_id)
