"""Server-Sent Events: writing the chat's events, and cutting an upstream byte stream into whole events."""

import json
import re
from typing import Any

DONE = "[DONE]"
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def event(name: str, data: dict[str, Any]) -> bytes:
    """One event (`event: name`, one `data:` line of compact JSON, a blank line)."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


def data_event(data: dict[str, Any] | str) -> bytes:
    """A `data:`-only event, as OpenAI's streams send them (a chunk's JSON, or [DONE])."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"data: {text}\n\n".encode()


class EventSplitter:
    """Whole events out of a byte stream, whatever its chunk boundaries (one event may span many reads)."""

    MAX_EVENT_BYTES = 4 << 20  # far above any chunk; a stream that never ends an event is not an SSE stream

    def __init__(self):
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        self._buffer += chunk
        events = []
        while match := _EVENT_END.search(self._buffer):
            events.append(self._buffer[:match.end()])
            self._buffer = self._buffer[match.end():]
        if len(self._buffer) > self.MAX_EVENT_BYTES:
            raise ValueError("an event of the upstream stream is over 4 MiB")
        return events

    def rest(self) -> bytes:
        """What came after the last whole event (a stream cut mid-event)."""
        rest, self._buffer = self._buffer, b""
        return rest


def data_of(raw: bytes) -> str | None:
    """The data of one raw event (its `data:` lines joined by newlines), or None when it has none (a comment)."""
    lines = [line[5:].removeprefix(" ") for line in raw.decode("utf-8", "replace").splitlines()
             if line.startswith("data:")]
    return "\n".join(lines) if lines else None
