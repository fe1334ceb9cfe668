"""The wellness chat against the fake upstream: event order, flushing, tools, usage, cut streams, disconnects."""

import time

from . import fake_upstream as fake
from .conftest import CHAT, sse_events


def test_a_streamed_answer_is_relayed_as_delta_events_then_done(http, chatter, upstream):
    upstream.reply(fake.text_stream(["Hello", " there"], reported=fake.usage(120, 7)))
    response = http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    events = sse_events(response.get_data())
    assert events[:2] == [("delta", {"text": "Hello"}), ("delta", {"text": " there"})]
    assert events[2][0] == "done"
    assert events[2][1]["usage"] == {"promptTokens": 120, "completionTokens": 7}
    sent = upstream.requests[0]
    assert sent["authorization"] == f"Bearer {fake.KEY}"
    assert sent["body"]["stream_options"] == {"include_usage": True}


def test_the_first_delta_arrives_before_the_upstream_finishes(http, chatter, upstream):
    upstream.reply(fake.text_stream(["one", " two", " three"], delay=0.4, reported=fake.usage(10, 3)))
    response = http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers, buffered=False)
    chunks = iter(response.response)
    first = b""
    while b"event: delta" not in first:
        first += next(chunks)
    assert not upstream.finished.is_set()
    rest = b"".join(chunks)
    assert upstream.finished.is_set()
    assert [name for name, _ in sse_events(first + rest)] == ["delta", "delta", "delta", "done"]


def test_a_client_that_disconnects_cancels_the_upstream_request(http, chatter, upstream):
    upstream.reply(fake.text_stream([f" w{i}" for i in range(50)], delay=0.1, reported=fake.usage(10, 50)))
    response = http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers, buffered=False)
    chunks = iter(response.response)
    assert b"delta" in next(chunks)
    response.close()
    deadline = time.monotonic() + 5
    while not upstream.hung_up.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert upstream.hung_up.is_set()
    assert not upstream.finished.is_set()
