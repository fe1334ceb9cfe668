"""Which provider renders a job: chosen by deployment parameters (core.config), local unless configured."""

from ...core import config
from .base import Provider, ProviderError
from .local import LocalProvider


def provider_for(media_type: str) -> Provider:
    """The provider of MEDIA_VIDEO_PROVIDER for videos, of MEDIA_IMAGE_PROVIDER for images."""
    if media_type != "image":
        return _video_provider()
    kind = config.MEDIA_IMAGE_PROVIDER.value
    if kind == "local":
        return LocalProvider()
    if kind == "openai":
        from .openai_images import OpenAIImageProvider

        return OpenAIImageProvider(config.MEDIA_IMAGE_API_KEY.value, config.MEDIA_IMAGE_BASE_URL.value,
                                   config.MEDIA_IMAGE_MODEL.value)
    raise ProviderError(f"MEDIA_IMAGE_PROVIDER must be local or openai, not {kind!r}")


def _video_provider() -> Provider:
    kind = config.MEDIA_VIDEO_PROVIDER.value
    if kind == "local":
        return LocalProvider()
    if kind == "runway":
        from .runway_video import RunwayVideoProvider

        return RunwayVideoProvider(config.MEDIA_VIDEO_API_KEY.value, config.MEDIA_VIDEO_BASE_URL.value,
                                   config.MEDIA_VIDEO_MODEL.value)
    raise ProviderError(f"MEDIA_VIDEO_PROVIDER must be local or runway, not {kind!r}")


def default_model(media_type: str, preset) -> str:
    """The model a new job records: the configured vendor's, or the preset's local one."""
    kind = (config.MEDIA_IMAGE_PROVIDER if media_type == "image" else config.MEDIA_VIDEO_PROVIDER).value
    if kind == "local":
        return preset.defaults.model
    return (config.MEDIA_IMAGE_MODEL if media_type == "image" else config.MEDIA_VIDEO_MODEL).value
