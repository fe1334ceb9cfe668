"""The OpenAI-compatible proxy (/api/openai/v1) with the Flask test client: pass-through of the provider's answers
(the fake upstream, or the local model), the platform's key, streamed relay byte for byte, usage records, and
errors in OpenAI's format."""

import base64
import datetime as dt
import json
import math
import re
import struct

import pytest

from support import fake_upstream as fake
from wellness_api.assistant import repository as repo
from wellness_api.assistant import tokens
from wellness_api.assistant.providers import local, openai_compatible
from wellness_api.core import clock, tenancy

from .conftest import COMPLETIONS, EMBEDDINGS, FAKE_MODEL, MODELS

QUESTION = [{"role": "user", "content": "hi"}]


def body(model: str = FAKE_MODEL, **extra) -> dict:
    return {"model": model, "messages": QUESTION, **extra}


def openai_error(message: str, kind: str = "invalid_request_error", param: str | None = None,
                 code: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def usage_record(tenant, response) -> dict | None:
    request_id = response.headers["x-request-id"]
    snap = tenancy.client_ref(tenant.client_id).collection(repo.USAGE).document(request_id).get()
    return snap.to_dict() if snap.exists else None


def raw_chunk(payload: dict, *, prefix: bytes = b"data: ", end: bytes = b"\n\n") -> bytes:
    return prefix + json.dumps(payload, ensure_ascii=False).encode() + end


def chunk_payload(delta: dict | None, finish: str | None = None, **extra) -> dict:
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": FAKE_MODEL,
            "system_fingerprint": "fp_fake", **extra,
            "choices": [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}


# Events of a provider's stream, each as its bytes on the wire: spacing, CRLF, comments and fields the proxy does
# not know must all arrive as they were sent.
ROLE = raw_chunk(chunk_payload({"role": "assistant", "content": ""}))
COMMENT = b": keep-alive\n\n"
HELLO = raw_chunk(chunk_payload({"content": "Hello"}), prefix=b"data:", end=b"\r\n\r\n")
WORLD = raw_chunk(chunk_payload({"content": " 世界"}, provider_extra={"a": [1, 2]}))
STOP = raw_chunk(chunk_payload({}, "stop"))
USAGE = raw_chunk(chunk_payload(None, usage=fake.usage(31, 4)))
DONE = fake.DONE
UPSTREAM_EVENTS = [ROLE, COMMENT, HELLO, WORLD, STOP, USAGE, DONE]


def streamed_reply(delay: float = 0.0) -> fake.Stream:
    parts: list[bytes | float] = []
    for event in UPSTREAM_EVENTS:
        if event is WORLD:  # one event over two writes: it is relayed once it is whole
            parts += [event[:20], 0.05, event[20:]]
        else:
            parts.append(event)
        if delay:
            parts.append(delay)
    return fake.Stream(parts)


def fresh_rate_window() -> None:
    """Move the clock to the start of a new minute, so two requests fall in one rate window."""
    now = clock.now().timestamp()
    clock.advance(dt.timedelta(seconds=60 - now % 60 + 1))


# ------------------------------------------------------------------------------------------ not streamed


def test_a_completion_passes_through_unchanged_with_the_platforms_key(proxy_http, chatter, upstream):
    answer = {"id": "chatcmpl-abc", "object": "chat.completion", "created": 1712345678, "model": "fake-model-2024",
              "system_fingerprint": "fp_44709d6fcb", "service_tier": "default",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi!", "refusal": None,
                                                   "annotations": []}, "logprobs": None, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15,
                        "prompt_tokens_details": {"cached_tokens": 0}}}
    upstream.reply(fake.Json(200, answer))
    sent = body(temperature=0.2, user="someone", metadata={"k": "v"})
    response = proxy_http.post(COMPLETIONS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    assert response.mimetype == "application/json"
    assert response.json == answer
    [request] = upstream.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["authorization"] == f"Bearer {fake.KEY}"
    assert request["body"] == {**sent, "max_completion_tokens": 4096}  # the client's cap, as no max was given
    assert chatter.player.token not in json.dumps(upstream.requests)
    record = usage_record(chatter, response)
    assert record["kind"] == "proxy.chat" and record["model"] == FAKE_MODEL and record["outcome"] == "completed"
    assert (record["promptTokens"], record["completionTokens"], record["estimated"]) == (12, 3, False)
    assert record["uid"] == chatter.player.uid and record["requestId"] == response.headers["x-request-id"]
    assert record["conversationId"] is None


def test_a_completion_without_usage_is_recorded_as_estimated(proxy_http, chatter, upstream):
    answer = fake.completion("Four words of answer").body
    del answer["usage"]
    upstream.reply(fake.Json(200, answer))
    response = proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers)
    assert response.status_code == 200 and response.json == answer
    record = usage_record(chatter, response)
    assert record["estimated"] is True
    assert record["promptTokens"] == tokens.estimate_messages(QUESTION)
    assert record["completionTokens"] > 0


def test_the_local_model_answers_a_completion(proxy_http, chatter):
    response = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    answer = response.json
    assert answer["object"] == "chat.completion" and answer["model"] == "local"
    assert answer["choices"][0]["message"]["content"] == local.TEXTS["en"]["intro"]
    record = usage_record(chatter, response)
    assert record["kind"] == "proxy.chat" and record["model"] == "local"
    assert record["promptTokens"] == answer["usage"]["prompt_tokens"]
    assert record["completionTokens"] == answer["usage"]["completion_tokens"]
    assert record["estimated"] is True  # the local model's own counts are estimates


# ------------------------------------------------------------------------------------------ streamed


@pytest.mark.parametrize("options", [None, {}, {"include_usage": False}])
def test_a_stream_is_relayed_byte_for_byte_without_the_usage_chunk_the_caller_did_not_ask_for(
        proxy_http, chatter, upstream, options):
    upstream.reply(streamed_reply())
    sent = body(stream=True) if options is None else body(stream=True, stream_options=options)
    response = proxy_http.post(COMPLETIONS, json=sent, headers=chatter.player.headers, buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache, no-transform"
    assert list(response.response) == [e for e in UPSTREAM_EVENTS if e is not USAGE]  # one whole event per write
    [request] = upstream.requests
    assert request["body"]["stream_options"] == {**(options or {}), "include_usage": True}
    assert request["body"]["messages"] == QUESTION and request["body"]["stream"] is True
    assert request["authorization"] == f"Bearer {fake.KEY}"
    record = usage_record(chatter, response)
    assert record["kind"] == "proxy.chat" and record["outcome"] == "completed"
    assert (record["promptTokens"], record["completionTokens"], record["estimated"]) == (31, 4, False)


def test_a_stream_keeps_the_usage_chunk_when_the_caller_asked_for_it(proxy_http, chatter, upstream):
    upstream.reply(streamed_reply())
    sent = body(stream=True, stream_options={"include_usage": True})
    response = proxy_http.post(COMPLETIONS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 200
    assert response.get_data() == b"".join(UPSTREAM_EVENTS)
    assert upstream.requests[0]["body"]["stream_options"] == {"include_usage": True}
    assert usage_record(chatter, response)["completionTokens"] == 4


def test_a_usage_chunk_with_choices_is_always_relayed(proxy_http, chatter, upstream):
    # Some servers report usage on every chunk: those chunks carry the text and are never dropped.
    with_usage = raw_chunk(chunk_payload({"content": "x"}, usage=fake.usage(5, 1)))
    upstream.reply(fake.Stream([ROLE, with_usage, STOP, DONE]))
    response = proxy_http.post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers)
    assert response.get_data() == ROLE + with_usage + STOP + DONE
    assert usage_record(chatter, response)["estimated"] is False


def test_the_first_event_is_relayed_before_the_upstream_finishes(proxy_http, chatter, upstream):
    upstream.reply(streamed_reply(delay=0.3))
    response = proxy_http.post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers, buffered=False)
    chunks = iter(response.response)
    assert next(chunks) == ROLE
    assert not upstream.finished.is_set()
    rest = b"".join(chunks)
    assert upstream.finished.is_set()
    assert ROLE + rest == b"".join(e for e in UPSTREAM_EVENTS if e is not USAGE)


def test_a_stream_that_stalls_ends_with_an_error_event_and_an_estimated_record(proxy_http, chatter, upstream,
                                                                              monkeypatch, request):
    # The SDK client is kept per server: one made with this short timeout must not serve later tests.
    openai_compatible._client.cache_clear()
    request.addfinalizer(openai_compatible._client.cache_clear)
    monkeypatch.setattr(openai_compatible, "READ_TIMEOUT_S", 0.5)
    upstream.reply(fake.Stream([ROLE, HELLO, 3.0, STOP, DONE]))
    response = proxy_http.post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers)
    assert response.status_code == 200
    data = response.get_data()
    assert data.startswith(ROLE + HELLO)
    events = [e for e in re.split(rb"\r\n\r\n|\n\n", data) if e.strip()]  # the fake's events end in CRLF
    last = json.loads(events[-1].removeprefix(b"data: "))
    assert last == openai_error("The model's stream was cut off.", "server_error")
    assert b"[DONE]" not in data
    record = usage_record(chatter, response)
    assert record["outcome"] == "cut" and record["estimated"] is True
    assert record["promptTokens"] == tokens.estimate_messages(QUESTION)
    assert record["completionTokens"] == tokens.estimate("Hello")


def test_a_stream_closed_before_its_end_ends_with_an_error_event(proxy_http, chatter, upstream):
    upstream.reply(fake.text_stream(["Hello", " there"], end=False))
    response = proxy_http.post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers)
    assert response.status_code == 200
    data = response.get_data()
    record = usage_record(chatter, response)
    assert record["estimated"] is True
    assert record["completionTokens"] == tokens.estimate("Hello there")
    events = [e for e in data.split(b"\n\n") if e.strip()]
    assert json.loads(events[-1].removeprefix(b"data: "))["error"]["type"] == "server_error"
    assert record["outcome"] == "cut"


def test_a_client_that_disconnects_hangs_up_on_the_upstream(proxy_http, chatter, upstream):
    upstream.reply(fake.text_stream([f" w{i}" for i in range(50)], delay=0.1, reported=fake.usage(10, 50)))
    response = proxy_http.post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers, buffered=False)
    chunks = iter(response.response)
    assert b"data:" in next(chunks)
    response.close()
    assert upstream.hung_up.wait(5)
    assert not upstream.finished.is_set()
    record = usage_record(chatter, response)
    assert record["outcome"] == "cancelled" and record["estimated"] is True


def test_the_local_model_streams(proxy_http, chatter):
    sent = body("local", stream=True, stream_options={"include_usage": True})
    response = proxy_http.post(COMPLETIONS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    payloads = [e.removeprefix(b"data: ") for e in response.get_data().split(b"\n\n") if e]
    assert payloads[-1] == b"[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == local.TEXTS["en"]["intro"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == tokens.estimate(text)
    record = usage_record(chatter, response)
    assert record["completionTokens"] == tokens.estimate(text)
    assert record["estimated"] is True  # the local model's own counts are estimates


# ------------------------------------------------------------------------------------------ who may call, and what


def test_no_token_is_a_401(proxy_http, chatter):
    response = proxy_http.post(COMPLETIONS, json=body("local"))
    assert response.status_code == 401
    assert response.json == openai_error("Missing or invalid Authorization header", "authentication_error")
    response = proxy_http.get(MODELS, headers={"Authorization": "Bearer not-a-token"})
    assert response.status_code == 401
    assert response.json == openai_error("Invalid or expired token", "authentication_error")


def test_a_client_without_the_wellness_chat_is_a_403(proxy_http, tenant):
    for response in (proxy_http.post(COMPLETIONS, json=body("local"), headers=tenant.player.headers),
                     proxy_http.post(EMBEDDINGS, json={"model": "local", "input": "x"}, headers=tenant.player.headers),
                     proxy_http.get(MODELS, headers=tenant.player.headers)):
        assert response.status_code == 403
        assert response.json == openai_error("The wellness chat is not enabled for this client.", "permission_error")


def test_a_model_outside_the_allow_list_is_a_404(proxy_http, chatter, upstream):
    chatter.configure("wellnessChat.models=fake-model,other")
    for name in ("x", "local", "gpt-4o"):
        response = proxy_http.post(COMPLETIONS, json=body(name), headers=chatter.player.headers)
        assert response.status_code == 404
        assert response.json == openai_error(f"The model `{name}` does not exist or you do not have access to it.",
                                             code="model_not_found")
    response = proxy_http.post(EMBEDDINGS, json={"model": "x", "input": "hi"}, headers=chatter.player.headers)
    assert response.status_code == 404 and response.json["error"]["code"] == "model_not_found"
    assert upstream.requests == []
    upstream.reply(fake.completion("from other"))
    response = proxy_http.post(COMPLETIONS, json=body("other"), headers=chatter.player.headers)
    assert response.status_code == 200
    assert upstream.requests[0]["body"]["model"] == "other"


def test_without_an_allow_list_only_the_platforms_model_is_allowed(proxy_http, chatter, upstream):
    response = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert response.status_code == 404 and response.json["error"]["code"] == "model_not_found"
    upstream.reply(fake.completion("ok"))
    assert proxy_http.post(COMPLETIONS, json=body(FAKE_MODEL), headers=chatter.player.headers).status_code == 200


def test_without_an_llm_a_model_other_than_local_is_a_404_even_when_allowed(proxy_http, chatter):
    chatter.configure("wellnessChat.models=local,gpt-4o")
    response = proxy_http.post(COMPLETIONS, json=body("gpt-4o"), headers=chatter.player.headers)
    assert response.status_code == 404
    assert response.json == openai_error("The model `gpt-4o` does not exist or you do not have access to it.",
                                         code="model_not_found")
    assert proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers).status_code == 200



def test_local_may_be_allowed_beside_the_platforms_llm(proxy_http, chatter, upstream):
    chatter.configure("wellnessChat.models=fake-model,local")
    response = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert response.status_code == 200 and response.json["model"] == "local"
    assert upstream.requests == []
    assert [m["id"] for m in proxy_http.get(MODELS, headers=chatter.player.headers).json["data"]] == [FAKE_MODEL, "local"]


def test_a_long_conversation_fits_up_to_1000_messages_and_4_mib(proxy_http, chatter):
    long = [{"role": "assistant" if i % 2 else "user", "content": "x" * 2000} for i in range(999)]  # about 2 MiB
    long.append({"role": "user", "content": "What can you do?"})
    response = proxy_http.post(COMPLETIONS, json=body("local", messages=long), headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    response = proxy_http.post(COMPLETIONS, json=body("local", messages=[*long, *QUESTION]),
                               headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == openai_error("Invalid field messages: List should have at most 1000 items after validation, "
                                         "not 1001.", param="messages", code="invalid_request")
    too_long = [{"role": "user", "content": "x" * 1000}] * 5000  # about 5 MiB
    response = proxy_http.post(COMPLETIONS, json=body("local", messages=too_long), headers=chatter.player.headers)
    assert response.status_code == 413
    assert response.json == openai_error("Request body is too large.", code="invalid_request")

@pytest.mark.parametrize(("sent", "message", "param"), [
    ({"messages": QUESTION}, "Missing required field: model.", "model"),
    ({"model": "local"}, "Missing required field: messages.", "messages"),
    ({"model": "", "messages": QUESTION}, "Invalid field model: String should have at least 1 character.", "model"),
    ({"model": "local", "messages": []},
     "Invalid field messages: List should have at least 1 item after validation, not 0.", "messages"),
    ({"model": "local", "messages": [{"role": "user", "content": "hi"}, {"role": "robot", "content": "beep"}]},
     "Invalid field messages.1.role: Input should be 'system', 'developer', 'user', 'assistant' or 'tool'.",
     "messages.1.role"),
    ({"model": "local", "messages": [{"content": "no role"}]}, "Missing required field: messages.0.role.",
     "messages.0.role"),
    ({"model": "local", "messages": QUESTION, "stream": "yes"}, "Invalid field stream: Input should be a valid boolean.",
     "stream"),
])
def test_a_bad_body_is_a_400_naming_the_field(proxy_http, chatter, sent, message, param):
    response = proxy_http.post(COMPLETIONS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == openai_error(message, param=param, code="invalid_request")


def test_a_body_that_is_not_a_json_object_is_a_400(proxy_http, chatter):
    for data in (b"{not json", b"[1, 2]", b""):
        response = proxy_http.post(COMPLETIONS, data=data, content_type="application/json",
                                   headers=chatter.player.headers)
        assert response.status_code == 400
        assert response.json == openai_error("Request body must be a JSON object.", code="invalid_request")


def test_a_body_that_is_not_declared_json_is_a_415(proxy_http, chatter):
    response = proxy_http.post(COMPLETIONS, data=json.dumps(body("local")), content_type="text/plain",
                               headers=chatter.player.headers)
    assert response.status_code == 415
    assert response.json == openai_error("Content-Type must be application/json.", code="unsupported_media_type")


def test_the_users_rate_is_limited(proxy_http, chatter):
    chatter.configure("wellnessChat.requestsPerMinute=1")
    fresh_rate_window()
    assert proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers).status_code == 200
    response = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert response.status_code == 429
    seconds = int(response.headers["Retry-After"])
    assert 1 <= seconds <= 60
    assert response.json == openai_error(f"Too many assistant requests; retry in {seconds} seconds.",
                                         "rate_limit_error", code="rate_limit_exceeded")
    # Embeddings count against the same rate; another member of the client has their own.
    response = proxy_http.post(EMBEDDINGS, json={"model": "local", "input": "x"}, headers=chatter.player.headers)
    assert response.status_code == 429
    assert proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.admin.headers).status_code == 200
    # The model list is not counted.
    assert proxy_http.get(MODELS, headers=chatter.player.headers).status_code == 200


def test_a_used_up_budget_is_a_429_insufficient_quota(proxy_http, chatter):
    chatter.configure("wellnessChat.monthlyTokenBudget=0")
    response = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert response.status_code == 429
    error = response.json["error"]
    assert error["type"] == "insufficient_quota" and error["code"] == "insufficient_quota" and error["param"] is None
    renews = (clock.now().replace(day=28) + dt.timedelta(days=4)).replace(day=1).strftime("%Y-%m-%d")
    assert error["message"] == f"The monthly token budget of this client is used up; it renews on {renews}."
    assert "Retry-After" not in response.headers


def test_the_budget_counts_the_proxys_usage(proxy_http, chatter):
    chatter.configure("wellnessChat.monthlyTokenBudget=1")
    first = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert first.status_code == 200  # the request that crosses the budget still finishes
    used = repo.tokens_used(chatter.client_id, repo.month_of(clock.now()))
    assert used == first.json["usage"]["prompt_tokens"] + first.json["usage"]["completion_tokens"]
    second = proxy_http.post(COMPLETIONS, json=body("local", stream=True), headers=chatter.player.headers)
    assert second.status_code == 429 and second.json["error"]["code"] == "insufficient_quota"


def test_an_unknown_path_and_a_wrong_method_answer_in_openais_format(proxy_http, chatter):
    response = proxy_http.post("/api/openai/v1/nope", json={}, headers=chatter.player.headers)
    assert response.status_code == 404
    assert response.json == openai_error("Not found.")
    response = proxy_http.get("/api/openai/v1/nope")
    assert response.status_code == 404 and response.json == openai_error("Not found.")
    response = proxy_http.get(COMPLETIONS, headers=chatter.player.headers)
    assert response.status_code == 405 and response.json == openai_error("Method not allowed.")


# ------------------------------------------------------------------------------------------ provider failures

CONTEXT_TOO_LONG = {"error": {"message": "This model's maximum context length is 8192 tokens.",
                              "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}


@pytest.mark.parametrize("stream", [False, True])
def test_a_providers_400_is_passed_through_with_its_body(proxy_http, chatter, upstream, stream):
    upstream.reply(fake.Json(400, CONTEXT_TOO_LONG))
    response = proxy_http.post(COMPLETIONS, json=body(stream=stream), headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == CONTEXT_TOO_LONG


def test_a_providers_422_without_an_openai_body_is_a_422_in_openais_format(proxy_http, chatter, upstream):
    upstream.reply(fake.Json(422, {"detail": "unprocessable"}))
    response = proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers)
    assert response.status_code == 422
    assert response.json["error"]["type"] == "invalid_request_error"
    assert set(response.json["error"]) == {"message", "type", "param", "code"}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("status", [401, 403, 500])
def test_a_provider_failure_is_a_502(proxy_http, chatter, upstream, status, stream):
    upstream.reply(fake.Json(status, {"error": {"message": "Incorrect API key provided: sk-upstream-...",
                                                "type": "invalid_request_error", "code": "invalid_api_key"}}))
    response = proxy_http.post(COMPLETIONS, json=body(stream=stream), headers=chatter.player.headers)
    assert response.status_code == 502
    assert response.json == openai_error("The model provider failed to answer; retry shortly.", "server_error")
    assert usage_record(chatter, response) is None


@pytest.mark.parametrize("stream", [False, True])
def test_a_busy_provider_is_a_503_with_its_retry_after(proxy_http, chatter, upstream, stream):
    upstream.reply(fake.Json(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": None}},
                             headers={"Retry-After": "7"}))
    response = proxy_http.post(COMPLETIONS, json=body(stream=stream), headers=chatter.player.headers)
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "7"
    assert response.json == openai_error("The model provider is busy; retry shortly.", "server_error")


def test_a_busy_provider_without_retry_after_is_a_503_without_it(proxy_http, chatter, upstream):
    upstream.reply(fake.Json(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": None}}))
    response = proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers)
    assert response.status_code == 503
    assert "Retry-After" not in response.headers


def test_an_unreachable_provider_is_a_502(proxy_http, chatter, upstream):
    upstream.close()  # nothing listens on its port any more
    response = proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers)
    assert response.status_code == 502
    assert response.json == openai_error("The model provider failed to answer; retry shortly.", "server_error")


# ------------------------------------------------------------------------------------------ embeddings


def test_embeddings_pass_through_the_provider(proxy_http, chatter, upstream):
    answer = {"object": "list", "model": "fake-embed", "data": [{"object": "embedding", "index": 0,
                                                                 "embedding": [0.1, -0.2, 0.3]}],
              "usage": {"prompt_tokens": 3, "total_tokens": 3}, "extra": {"kept": True}}
    upstream.reply(fake.Json(200, answer))
    sent = {"model": FAKE_MODEL, "input": [[1, 2, 3]], "encoding_format": "float", "dimensions": 3}
    response = proxy_http.post(EMBEDDINGS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    assert response.json == answer
    [request] = upstream.requests
    assert request["path"] == "/v1/embeddings"
    assert request["authorization"] == f"Bearer {fake.KEY}"
    assert request["body"] == sent
    record = usage_record(chatter, response)
    assert record["kind"] == "proxy.embeddings"
    assert (record["promptTokens"], record["completionTokens"], record["estimated"]) == (3, 0, False)


def test_local_embeddings_as_floats(proxy_http, chatter):
    response = proxy_http.post(EMBEDDINGS, json={"model": "local", "input": "balance exercises"},
                               headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    assert response.json["object"] == "list" and response.json["model"] == "local"
    [item] = response.json["data"]
    assert item["object"] == "embedding" and item["index"] == 0
    assert item["embedding"] == pytest.approx(local.embedding("balance exercises", 256))
    assert math.isclose(sum(v * v for v in item["embedding"]), 1.0, rel_tol=1e-6)
    record = usage_record(chatter, response)
    assert record["kind"] == "proxy.embeddings" and record["model"] == "local"
    assert (record["promptTokens"], record["completionTokens"]) == (tokens.estimate("balance exercises"), 0)


def test_local_embeddings_as_base64_with_dimensions_and_a_list(proxy_http, chatter):
    sent = {"model": "local", "input": ["balance", "strength"], "encoding_format": "base64", "dimensions": 32}
    response = proxy_http.post(EMBEDDINGS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    data = response.json["data"]
    assert [item["index"] for item in data] == [0, 1]
    for item, text in zip(data, ["balance", "strength"], strict=True):
        vector = struct.unpack("<32f", base64.b64decode(item["embedding"]))
        assert vector == pytest.approx(local.embedding(text, 32), abs=1e-6)
    assert usage_record(chatter, response)["promptTokens"] == tokens.estimate("balance") + tokens.estimate("strength")


@pytest.mark.parametrize(("sent", "message"), [
    ({"input": [1, 2, 3]}, "The local model embeds text: input must be a string or an array of strings."),
    ({"input": [[1, 2], [3]]}, "The local model embeds text: input must be a string or an array of strings."),
])
def test_local_embeddings_refuse_what_they_cannot_embed(proxy_http, chatter, sent, message):
    response = proxy_http.post(EMBEDDINGS, json={"model": "local", **sent}, headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == openai_error(message, code="invalid_request")
    assert usage_record(chatter, response) is None


@pytest.mark.parametrize(("sent", "message", "param"), [
    ({"input": "x", "dimensions": 0}, "Invalid field dimensions: Input should be greater than or equal to 1.",
     "dimensions"),
    ({"input": "x", "encoding_format": "hex"}, "Invalid field encoding_format: Input should be 'float' or 'base64'.",
     "encoding_format"),
])
def test_embeddings_parameters_are_checked_before_any_work(proxy_http, chatter, sent, message, param):
    response = proxy_http.post(EMBEDDINGS, json={"model": "local", **sent}, headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == openai_error(message, param=param, code="invalid_request")
    assert usage_record(chatter, response) is None


def test_embeddings_need_an_input(proxy_http, chatter):
    response = proxy_http.post(EMBEDDINGS, json={"model": "local"}, headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == openai_error("Missing required field: input.", param="input", code="invalid_request")


# ------------------------------------------------------------------------------------------ models


def test_models_lists_the_platforms_model_by_default(proxy_http, chatter):
    response = proxy_http.get(MODELS, headers=chatter.player.headers)
    assert response.status_code == 200
    assert response.json == {"object": "list", "data": [
        {"id": "local", "object": "model", "created": 0, "owned_by": "wellness-platform"}]}


def test_models_lists_the_allow_list(proxy_http, chatter, upstream):
    assert [m["id"] for m in proxy_http.get(MODELS, headers=chatter.player.headers).json["data"]] == [FAKE_MODEL]
    chatter.configure("wellnessChat.models=fake-model,other,llama3.1:8b")
    response = proxy_http.get(MODELS, headers=chatter.player.headers)
    assert [m["id"] for m in response.json["data"]] == ["fake-model", "other", "llama3.1:8b"]


def test_models_leaves_out_allowed_models_no_provider_serves(proxy_http, chatter):
    chatter.configure("wellnessChat.models=gpt-4o,local")
    response = proxy_http.get(MODELS, headers=chatter.player.headers)
    assert [m["id"] for m in response.json["data"]] == ["local"]


