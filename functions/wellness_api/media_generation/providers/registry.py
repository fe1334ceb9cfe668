"""Which provider renders a job: chosen by deployment parameters (core.config), local unless configured."""

from ...core import config
from .base import Provider, ProviderError
from .local import LocalProvider


def provider_for(media_type: str) -> Provider:
    """The image provider of MEDIA_IMAGE_PROVIDER; videos are rendered locally until a video vendor is configured."""
    kind = config.MEDIA_IMAGE_PROVIDER.value if media_type == "image" else "local"
    if kind == "local":
        return LocalProvider()
    if kind == "openai":
        from .openai_images import OpenAIImageProvider

        return OpenAIImageProvider(config.MEDIA_IMAGE_API_KEY.value, config.MEDIA_IMAGE_BASE_URL.value,
                                   config.MEDIA_IMAGE_MODEL.value)
    raise ProviderError(f"MEDIA_IMAGE_PROVIDER must be local or openai, not {kind!r}")
