"""Any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp server) through the official openai SDK.

Bodies go out as they are and answers come back as bytes (the SDK's raw response), so a streamed answer is
relayed chunk by chunk as it arrives and fields the SDK does not know survive the round trip.
"""

import functools
from collections.abc import Iterator
from typing import Any

import httpx2
import openai

from .base import StreamCut, UpstreamError

# Connecting should be quick; a long answer may take minutes between its first and last token, but a read that
# waits longer than READ_TIMEOUT_S for the next chunk is a stalled stream.
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 120.0


class _RawStream:
    def __init__(self, response: httpx2.Response):
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._response.iter_raw()
        except httpx2.HTTPError as exc:  # a read timeout, a dropped connection: the SDK's client is httpx2
            raise StreamCut(f"{type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        # Closing the response closes its connection: the server sees the request cancelled.
        self._response.close()


def _error(exc: openai.APIError) -> UpstreamError:
    if isinstance(exc, openai.APIStatusError):
        try:
            body = exc.response.json()
        except ValueError:
            body = None
        detail = body.get("error") if isinstance(body, dict) else None
        message = detail.get("message") if isinstance(detail, dict) else None
        return UpstreamError(exc.status_code, str(message or exc.message)[:500], body if isinstance(body, dict) else None,
                             exc.response.headers.get("retry-after"))
    if isinstance(exc, openai.APITimeoutError):
        return UpstreamError(0, "the model provider did not answer in time")
    return UpstreamError(0, f"the model provider could not be reached ({type(exc).__name__})")


@functools.lru_cache(maxsize=8)
def _client(base_url: str, api_key: str) -> openai.OpenAI:
    """One SDK client per server and key, kept: its connection pool saves each request a new connection (and
    building a client costs milliseconds of its own)."""
    # No SDK retries: a retried stream would start over behind the caller's back; the caller decides.
    return openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", max_retries=0,
                         timeout=httpx2.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S))


class OpenAICompatibleModel:
    def __init__(self, base_url: str, api_key: str, model: str):
        self.name = model
        self._client = _client(base_url, api_key)

    def _post(self, path: str, body: dict[str, Any], *, stream: bool) -> httpx2.Response:
        try:
            return self._client.post(path, cast_to=httpx2.Response, body=body, stream=stream)
        except openai.APIError as exc:
            raise _error(exc) from None

    def open_stream(self, body: dict[str, Any]) -> _RawStream:
        return _RawStream(self._post("/chat/completions", body, stream=True))

    def _json(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self._post(path, body, stream=False)
        try:
            answer = response.json()
        except ValueError:
            raise UpstreamError(response.status_code, "the model provider answered with something else than JSON") \
                from None
        if not isinstance(answer, dict):
            raise UpstreamError(response.status_code, "the model provider answered with something else than an object")
        return answer

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._json("/chat/completions", body)

    def embed(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._json("/embeddings", body)
