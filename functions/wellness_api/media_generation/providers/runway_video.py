"""Runway's video API through the official `runwayml` SDK: the video vendor adapter.

A job without reference images goes to text_to_video; with references, the first one goes to image_to_video as
a data: URI, so the vendor never has to fetch anything from the platform. Runway answers with a task id at once
and renders asynchronously: the task is polled until it ends, or cancelled when `timeout` passes so it stops
costing. Its output URL is pre-signed and short-lived, so the video is downloaded here (without the key) and
checked to be a real video. The task id is the providerGenerationId; the task's final cost in credits becomes
providerCostUsd at Runway's API price. The key is a secret (MEDIA_VIDEO_API_KEY), never stored on a job.
"""

import base64
import contextlib
import dataclasses
import io
import math
import time
from typing import Any

import httpx
import runwayml

from .. import images
from .base import GeneratedMedia, GenerationRequest, ProviderError, dimensions

REQUEST_TIMEOUT_SECONDS = 30.0
DOWNLOAD_TIMEOUT_SECONDS = 120.0
MAX_VIDEO_BYTES = 200 * 1024 * 1024
MAX_DATA_URI = 5_000_000  # Runway takes data: URIs "up to 5MB"
PROMPT_LIMIT = 1000  # UTF-16 code units, as Runway counts them
DEFAULT_SECONDS = 4  # the video preset's default, when a request names none
USD_PER_CREDIT = 0.01  # Runway's API credit price
MAX_MESSAGE = 300


@dataclasses.dataclass(frozen=True)
class Model:
    """What one Runway model accepts, from the SDK's Literal types (the tests compare them with the SDK)."""

    text_ratios: tuple[str, ...]  # empty: the model only animates an image
    image_ratios: tuple[str, ...]
    durations: tuple[int, ...]


_GEN4_IMAGE = ("1280:720", "720:1280", "1104:832", "832:1104", "960:960", "1584:672")
_VEO = ("1280:720", "720:1280", "1080:1920", "1920:1080")
# Runway's own models and Google's Veo served through Runway; all four take a seed. The SDK types gen4 durations as
# int and documents 2 to 10 seconds.
MODELS = {
    "gen4.5": Model(("1280:720", "720:1280"), _GEN4_IMAGE, tuple(range(2, 11))),
    "gen4_turbo": Model((), _GEN4_IMAGE, tuple(range(2, 11))),
    "veo3.1": Model(_VEO, _VEO, (4, 6, 8)),
    "veo3.1_fast": Model(_VEO, _VEO, (4, 6, 8)),
}


def ratio_for(resolution: str, allowed: tuple[str, ...]) -> str:
    """The allowed ratio of the requested orientation nearest in shape, then in size, to the resolution."""
    width, height = dimensions(resolution)
    same = [r for r in allowed if _orientation(*_size(r)) == _orientation(width, height)] or allowed

    def distance(ratio: str) -> tuple[float, float]:
        w, h = _size(ratio)
        # Rounded so that mirror images (16:9 and 9:16 for a square) tie and the first listed, landscape, wins.
        return round(abs(math.log(w / h * height / width)), 6), abs(math.log(w * h / (width * height)))

    return min(same, key=distance)


def duration_for(seconds: float, allowed: tuple[int, ...]) -> int:
    """The allowed duration nearest to the requested one; the shorter, cheaper one of two as near."""
    wanted = seconds or DEFAULT_SECONDS
    return min(allowed, key=lambda d: (abs(d - wanted), d))


def data_uri(reference: tuple[bytes, str]) -> str:
    """A reference image as the base64 data: URI Runway accepts in promptImage."""
    data, content_type = reference
    uri = f"data:{content_type.split(';')[0].strip().lower()};base64,{base64.b64encode(data).decode()}"
    if len(uri) > MAX_DATA_URI:
        raise ProviderError("The reference image is too large for the video provider (5 MB at most once encoded).")
    return uri


def _size(ratio: str) -> tuple[int, int]:
    width, height = ratio.split(":")
    return int(width), int(height)


def _orientation(width: int, height: int) -> str:
    if abs(width - height) <= min(width, height) * 0.1:
        return "square"
    return "landscape" if width > height else "portrait"


def _prompt(text: str) -> str:
    return text.encode("utf-16-le")[:PROMPT_LIMIT * 2].decode("utf-16-le", errors="ignore")


class RunwayVideoProvider:
    name = "runway"

    def __init__(self, api_key: str, base_url: str, model: str, poll_interval: float = 5.0, timeout: float = 600.0,
                 *, request_timeout: float = REQUEST_TIMEOUT_SECONDS, max_retries: int = 2):
        self.api_key, self.base_url, self.model = api_key, base_url, model
        self.poll_interval, self.timeout = poll_interval, timeout
        self.request_timeout, self.max_retries = request_timeout, max_retries

    def generate(self, request: GenerationRequest) -> GeneratedMedia:
        if request.media_type != "video":
            raise ProviderError("the runway provider makes videos only")
        if not self.api_key:
            raise ProviderError("The video provider has no API key (MEDIA_VIDEO_API_KEY is not set).")
        deadline = time.monotonic() + self.timeout
        with runwayml.RunwayML(api_key=self.api_key, base_url=self.base_url, timeout=self.request_timeout,
                               max_retries=self.max_retries) as client, _vendor_errors(self.api_key):
            task = self._finished(client, self._start(client, request), deadline)
        if not task.output:
            raise ProviderError("The video provider finished without an output.")
        data, width, height, seconds = _checked(_download(task.output[0]))
        return GeneratedMedia(data, "video/mp4", width, height, seconds, provider_generation_id=task.id,
                              provider_cost_usd=_cost_usd(task))

    def _model(self, request: GenerationRequest) -> tuple[str, Model]:
        # Jobs carry their preset's model (local-video-1 by default), which means nothing to Runway: a Runway
        # model a job names is honoured, anything else renders with the configured one.
        name = request.model if request.model in MODELS else self.model
        if name not in MODELS:
            raise ProviderError(f"MEDIA_VIDEO_MODEL must be one of {', '.join(MODELS)}, not {name!r}")
        return name, MODELS[name]

    def _start(self, client: runwayml.RunwayML, request: GenerationRequest) -> str:
        """The id of the task Runway started for the request."""
        name, model = self._model(request)
        # The SDK's overloads are one per model name, which is chosen at run time: the fields are checked by Runway.
        fields: dict[str, Any] = {"model": name, "prompt_text": _prompt(request.prompt),
                  "duration": duration_for(request.duration_seconds, model.durations)}
        if request.seed is not None:
            fields["seed"] = request.seed
        # A create retried after a timeout may have started a task already, and a second one would be billed too.
        create = client.with_options(max_retries=0)
        if request.references:
            fields.update(ratio=ratio_for(request.resolution, model.image_ratios),
                          prompt_image=data_uri(request.references[0]))
            return create.image_to_video.create(**fields).id
        if not model.text_ratios:
            raise ProviderError(f"The video model {name} animates a reference image and this job has none.")
        fields["ratio"] = ratio_for(request.resolution, model.text_ratios)
        return create.text_to_video.create(**fields).id

    def _finished(self, client: runwayml.RunwayML, task_id: str, deadline: float):
        """The succeeded task, polled every poll_interval; cancelled at the vendor once the deadline passes."""
        while True:
            time.sleep(max(0.0, min(self.poll_interval, deadline - time.monotonic())))
            task = client.tasks.retrieve(task_id)
            if task.status == "SUCCEEDED":
                return task
            if task.status == "FAILED":
                code = f" ({task.failure_code})" if getattr(task, "failure_code", None) else ""
                raise ProviderError(f"The video provider failed the generation: {task.failure}{code}"[:MAX_MESSAGE])
            if task.status == "CANCELLED":
                raise ProviderError("The video provider cancelled the generation.")
            if time.monotonic() >= deadline:  # PENDING, THROTTLED and RUNNING all wait
                with contextlib.suppress(runwayml.RunwayMLError):
                    client.tasks.delete(task_id)
                raise ProviderError(f"The video provider did not finish within {self.timeout:g} s; "
                                    "the task was cancelled.")


@contextlib.contextmanager
def _vendor_errors(api_key: str):
    """The SDK's errors as ProviderError, with the vendor's own words when it gave some."""
    try:
        yield
    except runwayml.APITimeoutError:
        raise ProviderError("The video provider did not answer in time.") from None
    except runwayml.APIStatusError as exc:
        message = f"The video provider refused the request ({exc.status_code}): {_message(exc)}"
        raise ProviderError(message.replace(api_key, "[key]")[:MAX_MESSAGE]) from None
    except runwayml.APIConnectionError:
        raise ProviderError("The video provider could not be reached.") from None
    except runwayml.RunwayMLError:
        raise ProviderError("The video provider gave an unexpected answer.") from None


def _message(exc: runwayml.APIStatusError) -> str:
    # Runway answers {"error": "...", "issues": [{"message": ...}, ...]}; the first issue says what to fix.
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") or body.get("message")
    if isinstance(error, dict):
        error = error.get("message")
    issues = [i["message"] for i in body.get("issues") or () if isinstance(i, dict) and i.get("message")]
    return ": ".join(str(part) for part in (error or exc.message, *issues[:1]))


def _cost_usd(task) -> float | None:
    credits = getattr(getattr(task, "cost", None), "credits", None)
    return None if credits is None else round(credits * USD_PER_CREDIT, 4)


def _download(url: str) -> bytes:
    """The output's bytes, at most MAX_VIDEO_BYTES within DOWNLOAD_TIMEOUT_SECONDS."""
    deadline = time.monotonic() + DOWNLOAD_TIMEOUT_SECONDS
    try:
        with httpx.Client(timeout=REQUEST_TIMEOUT_SECONDS, follow_redirects=True) as http, \
                http.stream("GET", url) as response:
            if not response.is_success:
                raise ProviderError(f"The video provider's output could not be downloaded ({response.status_code}).")
            if int(response.headers.get("Content-Length") or 0) > MAX_VIDEO_BYTES:
                raise ProviderError("The video provider's output is larger than 200 MiB.")
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_VIDEO_BYTES:
                    raise ProviderError("The video provider's output is larger than 200 MiB.")
                if time.monotonic() > deadline:
                    raise ProviderError("The video provider's output took too long to download.")
                chunks.append(chunk)
    except (httpx.HTTPError, httpx.InvalidURL):
        raise ProviderError("The video provider's output could not be downloaded.") from None
    return b"".join(chunks)


def _checked(data: bytes) -> tuple[bytes, int, int, float]:
    """(data, width, height, seconds) of an MP4 whose first frame decodes, or ProviderError."""
    import av

    try:
        with av.open(io.BytesIO(data), mode="r") as container:
            stream = container.streams.video[0]
            width, height, kind = stream.codec_context.width, stream.codec_context.height, container.format.name
            images.check_size(width, height, "The video provider's output")  # before a frame is decoded
            next(container.decode(stream))
            # A stream without a duration or time base is a TypeError here, refused below as no readable video.
            seconds = container.duration / av.time_base if container.duration else float(
                stream.duration * stream.time_base)  # type: ignore[operator]
    except images.TooLarge as exc:
        raise ProviderError(f"{exc}.") from None
    except (av.FFmpegError, IndexError, StopIteration, TypeError, ValueError, OSError):
        raise ProviderError("The video provider answered without a readable video.") from None
    if "mp4" not in kind.split(","):
        raise ProviderError(f"The video provider answered with an unsupported format ({kind}).")
    return data, width, height, round(seconds, 3)
