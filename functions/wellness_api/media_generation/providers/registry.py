"""Which provider renders a job: chosen by deployment parameters (core.config), local unless configured."""

from ...core import config
from .base import Provider, ProviderError
from .local import LocalProvider


def _openai() -> Provider:
    from .openai_images import OpenAIImageProvider

    return OpenAIImageProvider(config.MEDIA_IMAGE_API_KEY.value, config.MEDIA_IMAGE_BASE_URL.value,
                               config.MEDIA_IMAGE_MODEL.value)


def _runway() -> Provider:
    from .runway_video import RunwayVideoProvider

    return RunwayVideoProvider(config.MEDIA_VIDEO_API_KEY.value, config.MEDIA_VIDEO_BASE_URL.value,
                               config.MEDIA_VIDEO_MODEL.value)


# media type -> (the parameter naming its provider, that parameter's model parameter, the vendors it may name)
_CHOICES = {
    "image": (config.MEDIA_IMAGE_PROVIDER, config.MEDIA_IMAGE_MODEL, {"openai": _openai}),
    "video": (config.MEDIA_VIDEO_PROVIDER, config.MEDIA_VIDEO_MODEL, {"runway": _runway}),
}


def _kind(media_type: str) -> str:
    parameter, _, vendors = _CHOICES[media_type]
    kind = parameter.value
    if kind != "local" and kind not in vendors:
        raise ProviderError(f"{parameter.name} must be local or {' or '.join(vendors)}, not {kind!r}")
    return kind


def provider_for(media_type: str) -> Provider:
    """The provider of MEDIA_IMAGE_PROVIDER for images, of MEDIA_VIDEO_PROVIDER for videos."""
    kind = _kind(media_type)
    return LocalProvider() if kind == "local" else _CHOICES[media_type][2][kind]()


def default_model(media_type: str, preset) -> str:
    """The model a new job records: the configured vendor's, or the preset's local one."""
    parameter, model, _ = _CHOICES[media_type]
    return preset.defaults.model if parameter.value == "local" else model.value
