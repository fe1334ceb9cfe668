"""A fake OpenAI-compatible server at the HTTP boundary (the only fake of these tests): it answers
/v1/chat/completions and /v1/embeddings from a script of replies, streams with delays, calls tools, cuts streams
and records every request and whether the platform hung up before a stream's end."""

import dataclasses
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "sk-upstream-test-key"


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, *, usage: dict | None = None,
          model: str = "fake-model") -> bytes:
    payload: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": model,
                               "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        payload["usage"] = usage
    return f"data: {json.dumps(payload)}\n\n".encode()


DONE = b"data: [DONE]\n\n"


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


@dataclasses.dataclass
class Stream:
    """A streamed answer: byte strings to send, and floats (seconds to wait before the next one)."""

    parts: list[bytes | float]


@dataclasses.dataclass
class Json:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = dataclasses.field(default_factory=dict)


def text_stream(pieces: list[str], delay: float = 0.0, *, reported: dict | None = None, end: bool = True) -> Stream:
    """The pieces as content deltas `delay` apart; then stop, the usage chunk (when `reported`) and [DONE].
    `end=False` cuts the stream after the last piece (no finish_reason, no usage, no [DONE])."""
    parts: list[bytes | float] = [chunk({"role": "assistant", "content": ""})]
    for piece in pieces:
        if delay:
            parts.append(delay)
        parts.append(chunk({"content": piece}))
    if end:
        parts.append(chunk({}, "stop"))
        if reported is not None:
            parts.append(chunk(None, usage=reported))
        parts.append(DONE)
    return Stream(parts)


def tool_stream(name: str, arguments: str = "{}", *, reported: dict | None = None, call_id: str = "call_1") -> Stream:
    """A tool call, its arguments split over two chunks as OpenAI sends them."""
    half = len(arguments) // 2
    parts: list[bytes | float] = [
        chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments[:half]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[half:]}}]}),
        chunk({}, "tool_calls"),
    ]
    if reported is not None:
        parts.append(chunk(None, usage=reported))
    parts.append(DONE)
    return Stream(parts)


def completion(text: str, reported: dict | None = None) -> Json:
    return Json(200, {"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": "fake-model",
                      "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                   "finish_reason": "stop"}], "usage": reported or usage(10, 5)})


class FakeUpstream:
    def __init__(self):
        self.replies: deque[Stream | Json] = deque()
        self.requests: list[dict[str, Any]] = []
        self.finished = threading.Event()  # a stream was sent to its end
        self.hung_up = threading.Event()  # the platform closed the connection before a stream's end
        self.first_byte_sent_at: float | None = None
        self.last_byte_sent_at: float | None = None
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # the body ends when the connection closes, as a cut stream does

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                upstream.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"),
                                          "body": body})
                reply = upstream.replies.popleft() if upstream.replies else completion("default answer")
                if isinstance(reply, Json):
                    data = json.dumps(reply.body).encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for part in reply.parts:
                        if isinstance(part, float):
                            time.sleep(part)
                            continue
                        self.wfile.write(part)
                        self.wfile.flush()
                        now = time.perf_counter()
                        upstream.first_byte_sent_at = upstream.first_byte_sent_at or now
                        upstream.last_byte_sent_at = now
                except (BrokenPipeError, ConnectionResetError):
                    upstream.hung_up.set()
                    return
                upstream.finished.set()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reply(self, *replies: Stream | Json) -> None:
        self.replies.extend(replies)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
