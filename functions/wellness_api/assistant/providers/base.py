"""What the assistant needs of a model provider: OpenAI's chat-completions and embeddings, on the wire format.

Both providers speak OpenAI's JSON and OpenAI's stream (`data: {chunk}` events, then `data: [DONE]`), so the chat,
its tool loop, usage metering and the proxy have one path whichever provider answers.
"""

from collections.abc import Iterator
from typing import Any, Protocol


class UpstreamError(Exception):
    """The provider refused or failed a request.

    `status` is the provider's HTTP status (0: no answer at all) and `body` its JSON error, if any; callers decide
    what their own caller sees (the proxy passes a request's own faults through; the chat never does).
    """

    def __init__(self, status: int, message: str, body: dict[str, Any] | None = None,
                 retry_after: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.body = body
        self.retry_after = retry_after


class StreamCut(Exception):
    """A stream that stopped before its end (connection lost, provider timeout)."""


class Stream(Protocol):
    """An open streamed answer: raw SSE bytes as they arrive; close() ends the upstream request."""

    def __iter__(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class ChatModel(Protocol):
    name: str

    def open_stream(self, body: dict[str, Any]) -> Stream:
        """Send a streamed chat completion; raises UpstreamError when it is refused before its first byte."""

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """A chat completion (not streamed)."""

    def embed(self, body: dict[str, Any]) -> dict[str, Any]:
        """Embeddings."""
