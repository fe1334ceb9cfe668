"""Which provider answers: an OpenAI-compatible server when LLM_BASE_URL and LLM_MODEL are set, else the local one."""

from ...core import config
from .base import ChatModel
from .local import MODEL as LOCAL_MODEL
from .local import LocalModel


def remote_configured() -> bool:
    return bool(config.LLM_BASE_URL.value.strip() and config.LLM_MODEL.value.strip())


def default_model() -> str:
    """The wellness chat's model, and what the proxy allows when a client names none."""
    return config.LLM_MODEL.value.strip() if remote_configured() else LOCAL_MODEL


def model_for(name: str) -> ChatModel | None:
    """The provider that serves model `name`: `local` always, any other name only through a configured server."""
    if name == LOCAL_MODEL:
        return LocalModel()
    if not remote_configured():
        return None
    from .openai_compatible import OpenAICompatibleModel

    return OpenAICompatibleModel(config.LLM_BASE_URL.value.strip(), config.LLM_API_KEY.value, name)
