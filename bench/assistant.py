"""Assistant benchmarks (issue 14), run by bench/run.py inside the emulators.

1. Time to first byte and total time of one streamed answer from a fake OpenAI-compatible upstream (a first
   token after TTFT_S, then PIECES pieces PIECE_GAP_S apart), called three ways in one run: the upstream directly,
   through the proxy (POST /api/openai/v1/chat/completions) and through the wellness chat (POST
   /api/wellness-chat), both served by their Flask app in a real HTTP server. First byte = the first content
   piece (a `data:` chunk with content, or a `delta` event). Medians of RUNS; ratios against the direct call.
2. Firestore reads and writes of one chat turn and one proxied request.
"""

import contextlib
import io
import json
import os
import statistics
import threading
import time
import uuid

import requests

RUNS = 7
TTFT_S = 0.4
PIECES = 30
PIECE_GAP_S = 0.02


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


def _serve(app):
    import logging

    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access line per request in the table
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def _timed(url: str, headers: dict, body: dict, marker: bytes) -> tuple[float, float]:
    """(seconds to the first line holding `marker`, seconds to the end of the stream)."""
    started = time.perf_counter()
    first = None
    with requests.post(url, headers=headers, json=body, stream=True, timeout=30) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if first is None and marker in line:
                first = time.perf_counter() - started
    return first or float("nan"), time.perf_counter() - started


def _script(upstream, fake) -> None:
    pieces = [f" word{i}" for i in range(PIECES)]
    parts = [TTFT_S, fake.chunk({"role": "assistant", "content": ""})]
    for piece in pieces:
        parts += [fake.chunk({"content": piece}), PIECE_GAP_S]
    parts += [fake.chunk({}, "stop"), fake.chunk(None, usage=fake.usage(50, PIECES)), fake.DONE]
    upstream.reply(fake.Stream(parts))


def streaming() -> None:
    from support import fake_upstream as fake
    from support.tenants import Tenant
    from wellness_api.assistant.routes import app, proxy_app

    upstream = fake.FakeUpstream()
    os.environ.update({"LLM_BASE_URL": upstream.base_url, "LLM_MODEL": "fake-model", "LLM_API_KEY": fake.KEY})
    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    # One request at a time, but a slot is given back after the stream's last byte: the next request may start
    # first, so the per-user cap of requests running at once is raised with the rate.
    tenant.configure("modules.wellnessChat=true", "wellnessChat.requestsPerMinute=1000",
                     "wellnessChat.maxConcurrentPerUser=20", "wellnessChat.maxConcurrentPerClient=200")
    chat_server, chat_url = _serve(app)
    proxy_server, proxy_url = _serve(proxy_app)
    player = {**tenant.player.headers, "Content-Type": "application/json"}
    request = {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    ways = {
        "upstream directly": (f"{upstream.base_url}/chat/completions", {"Authorization": f"Bearer {fake.KEY}"}, request,
                              b'"content": " word'),
        "through the proxy": (f"{proxy_url}/api/openai/v1/chat/completions", player, request, b'"content": " word'),
        "through the chat": (f"{chat_url}/api/wellness-chat", player, {"message": "hi"}, b'"text":" word'),
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    with _quiet():
        for _ in range(RUNS):
            for name, (url, headers, body, marker) in ways.items():  # interleaved: drift hits every way alike
                _script(upstream, fake)
                results[name].append(_timed(url, headers, body, marker))
    chat_server.shutdown()
    proxy_server.shutdown()
    upstream.close()
    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        os.environ.pop(name, None)
    print(f"\n== Assistant: one streamed answer (fake upstream: first token after {TTFT_S * 1000:.0f} ms, then "
          f"{PIECES} pieces {PIECE_GAP_S * 1000:.0f} ms apart; median of {RUNS})")
    print(f"{'way':<20} {'first byte':>11} {'ratio':>6} {'total':>9} {'ratio':>6}")
    direct_first = statistics.median(r[0] for r in results["upstream directly"])
    direct_total = statistics.median(r[1] for r in results["upstream directly"])
    for name, runs in results.items():
        first, total = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{name:<20} {first * 1000:8.1f} ms {first / direct_first:5.2f}x {total * 1000:6.1f} ms "
              f"{total / direct_total:5.2f}x")
    print("(goal: first byte within 1.1x of the upstream's. The chat's first byte also waits for the ID token check, "
          "the client, the rate and budget checks and the conversation; the proxy's for the same but the conversation.)")


def operations() -> None:
    from support.firestore_ops import counting
    from support.tenants import Tenant
    from wellness_api.assistant.routes import app, proxy_app

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    tenant.configure("modules.wellnessChat=true", "modules.aiMove=true")
    headers = tenant.player.headers
    chat, proxy = app.test_client(), proxy_app.test_client()
    rows = []
    with _quiet():
        with counting() as ops:
            first = chat.post("/api/wellness-chat", json={"message": "How are my workouts going?"}, headers=headers)
            conversation = json.loads(first.get_data().decode().split("event: done\ndata: ")[1].split("\n")[0])
        rows.append(("chat, new conversation (1 tool)", ops))
        with counting() as ops:
            chat.post("/api/wellness-chat", json={"message": "Thanks!", "conversationId": conversation["conversationId"]},
                      headers=headers).get_data()
        rows.append(("chat, continued (no tool)", ops))
        with counting() as ops:
            proxy.post("/api/openai/v1/chat/completions", headers=headers,
                       json={"model": "local", "messages": [{"role": "user", "content": "hi"}]})
        rows.append(("proxy, not streamed", ops))
    print("\n== Assistant: Firestore reads and writes per request (local provider)")
    print(f"{'request':<34} {'reads':>6} {'writes':>6}")
    for name, ops in rows:
        print(f"{name:<34} {ops.reads:>6} {ops.writes:>6}")
    print("(Every request: the client (module gate), the rate-limit counter (one write), the month's token shards "
          "(budget). A turn adds the conversation and its recent messages, and one transaction for the messages, "
          "the conversation, the usage record, a token shard and the daily rollup. A tool adds what it reads.)")


def main() -> None:
    streaming()
    operations()
