"""What every media provider takes and gives back."""

import dataclasses
from typing import Protocol


@dataclasses.dataclass(frozen=True)
class GenerationRequest:
    media_type: str  # "image" or "video"
    prompt: str  # the normalized prompt
    model: str
    aspect_ratio: str
    resolution: str  # "WIDTHxHEIGHT"
    duration_seconds: float = 0  # videos
    seed: int | None = None
    # Reference images fetched by the worker (references.fetch): (bytes, content type), in the job's order.
    references: tuple[tuple[bytes, str], ...] = ()


@dataclasses.dataclass(frozen=True)
class GeneratedMedia:
    data: bytes
    content_type: str  # image/png, video/mp4, ...
    width: int
    height: int
    duration_seconds: float | None = None
    provider_generation_id: str | None = None
    provider_cost_usd: float | None = None


class ProviderError(Exception):
    """The provider refused or failed the generation; the message is safe to store as the job's errorMessage."""


class Provider(Protocol):
    name: str

    def generate(self, request: GenerationRequest) -> GeneratedMedia: ...


def dimensions(resolution: str, limit: int = 4096) -> tuple[int, int]:
    """(width, height) of "WIDTHxHEIGHT", both even (video encoders need it) and within 16..limit."""
    try:
        width, height = (int(part) for part in resolution.lower().split("x"))
    except ValueError:
        raise ProviderError(f"resolution must be WIDTHxHEIGHT, not {resolution!r}") from None
    if not (16 <= width <= limit and 16 <= height <= limit):
        raise ProviderError(f"resolution must be between 16 and {limit} pixels a side")
    return width - width % 2, height - height % 2
