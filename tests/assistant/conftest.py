"""Fixtures of the assistant tests: the two Flask apps, a client with the wellness chat on, and the fake
OpenAI-compatible upstream (configured through the same parameters a deployment sets)."""

import pytest

from support.fake_upstream import KEY, FakeUpstream
from wellness_api.assistant.routes import app, proxy_app

CHAT = "/api/wellness-chat"
CONVERSATIONS = "/api/wellness-chat/conversations"
COMPLETIONS = "/api/openai/v1/chat/completions"
EMBEDDINGS = "/api/openai/v1/embeddings"
MODELS = "/api/openai/v1/models"
FAKE_MODEL = "fake-model"


@pytest.fixture
def http():
    return app.test_client()


@pytest.fixture
def proxy_http():
    return proxy_app.test_client()


@pytest.fixture
def chatter(tenant):
    """A client with the wellness chat (and AI Move and Vital Scan) on."""
    tenant.configure("modules.wellnessChat=true", "modules.aiMove=true", "modules.vitalScan=true")
    return tenant


@pytest.fixture
def upstream(monkeypatch):
    """The fake server as the platform's LLM (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY)."""
    fake = FakeUpstream()
    monkeypatch.setenv("LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("LLM_MODEL", FAKE_MODEL)
    monkeypatch.setenv("LLM_API_KEY", KEY)
    yield fake
    fake.close()


def sse_events(data: bytes) -> list[tuple[str, dict]]:
    """(event name, data) of a chat stream, in order."""
    import json

    events = []
    for block in data.decode().split("\n\n"):
        if not block.strip():
            continue
        name = next(line[7:] for line in block.splitlines() if line.startswith("event: "))
        payload = json.loads(next(line[6:] for line in block.splitlines() if line.startswith("data: ")))
        events.append((name, payload))
    return events
