"""The assistant's limits (issue 25): OpenAI's embeddings limits, the proxy's parameter allow-list and per-client caps,
the budget reserved before the model is called (concurrent requests overshoot it by at most one request's
estimate), and the concurrent requests per user and per client, refused with 429 and Retry-After."""

import concurrent.futures

import pytest

from support import fake_upstream as fake
from wellness_api.assistant import metering, proxy, tokens
from wellness_api.assistant import repository as repo
from wellness_api.assistant.providers import local
from wellness_api.assistant.routes import proxy_app
from wellness_api.core import clock, ratelimit, slots, tenancy

from .conftest import CHAT, COMPLETIONS, EMBEDDINGS, FAKE_MODEL
from .test_proxy import QUESTION, body, openai_error, usage_record


def refused(response, message: str, param: str) -> None:
    assert response.status_code == 400, response.json
    assert response.json == openai_error(message, param=param, code="invalid_request")


# ------------------------------------------------------------------------------------------ embeddings


def test_more_than_2048_inputs_are_refused_before_any_work(proxy_http, chatter, upstream):
    response = proxy_http.post(EMBEDDINGS, json={"model": FAKE_MODEL, "input": ["balance"] * 2049},
                               headers=chatter.player.headers)
    refused(response, "Invalid field input: at most 2048 inputs per request, not 2049.", "input")
    assert upstream.requests == []
    assert usage_record(chatter, response) is None
    upstream.reply(fake.Json(200, {"object": "list", "model": FAKE_MODEL, "data": [], "usage": fake.usage(2048, 0)}))
    response = proxy_http.post(EMBEDDINGS, json={"model": FAKE_MODEL, "input": ["balance"] * 2048},
                               headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    assert len(upstream.requests[0]["body"]["input"]) == 2048


@pytest.mark.parametrize(("sent", "message"), [
    ("x" * (4 * 8192 + 4), "input is 8193 tokens long; an input may hold at most 8192 tokens"),
    (["ok", "平" * 8193], "input[1] is 8193 tokens long; an input may hold at most 8192 tokens"),
    ([1] * 8193, "input is 8193 tokens long; an input may hold at most 8192 tokens"),
    ([[1] * 8000] * 38, "the inputs are 304000 tokens long; a request may hold at most 300000 tokens"),
    ([], "input must be a non-empty text, an array of non-empty texts, an array of token ids (0 to 1000000) or an "
         "array of such arrays"),
    (["ok", 3], "input must be a non-empty text, an array of non-empty texts, an array of token ids (0 to 1000000) "
                "or an array of such arrays"),
])
def test_openais_token_limits_of_embeddings(proxy_http, chatter, upstream, sent, message):
    response = proxy_http.post(EMBEDDINGS, json={"model": FAKE_MODEL, "input": sent}, headers=chatter.player.headers)
    refused(response, f"Invalid field input: {message}.", "input")
    assert upstream.requests == []


def test_the_local_engines_answer_is_bounded(proxy_http, chatter):
    chatter.configure("wellnessChat.models=local")
    sent = {"model": "local", "input": ["balance"] * 1025}  # x 256 dimensions: over 262,144 values
    response = proxy_http.post(EMBEDDINGS, json=sent, headers=chatter.player.headers)
    assert response.status_code == 400
    assert response.json == openai_error(
        "The local model answers at most 262144 values (inputs x dimensions); 1025 inputs x 256 dimensions is more.",
        param="dimensions", code="invalid_request")
    assert usage_record(chatter, response) is None
    response = proxy_http.post(EMBEDDINGS, json={**sent, "dimensions": 3073}, headers=chatter.player.headers)
    refused(response, "Invalid field dimensions: Input should be less than or equal to 3072.", "dimensions")
    response = proxy_http.post(EMBEDDINGS, json={"model": "local", "input": ["balance"] * 2048, "dimensions": 128},
                               headers=chatter.player.headers)
    assert response.status_code == 200
    assert len(response.json["data"]) == 2048 and len(response.json["data"][0]["embedding"]) == 128
    assert local.MAX_EMBEDDING_VALUES == 2048 * 128


# ------------------------------------------------------------------------------------------ chat completions


@pytest.mark.parametrize("param", ["store", "service_tier", "modalities", "functions", "web_search_options", "foo"])
def test_a_parameter_outside_the_allow_list_is_refused_by_name(proxy_http, chatter, upstream, param):
    response = proxy_http.post(COMPLETIONS, json=body(**{param: True}), headers=chatter.player.headers)
    refused(response, f"Unknown field: {param}.", param)
    assert upstream.requests == []


def test_n_and_the_max_tokens_are_capped_per_client(proxy_http, chatter, upstream):
    response = proxy_http.post(COMPLETIONS, json=body(n=128), headers=chatter.player.headers)
    refused(response, "Invalid 'n': integer above maximum value. Expected a value <= 4 (the client's "
                      "wellnessChat.maxN), but got 128 instead.", "n")
    response = proxy_http.post(COMPLETIONS, json=body(n=129), headers=chatter.player.headers)
    refused(response, "Invalid field n: Input should be less than or equal to 128.", "n")
    for name in ("max_tokens", "max_completion_tokens"):
        response = proxy_http.post(COMPLETIONS, json=body(**{name: 4097}), headers=chatter.player.headers)
        refused(response, f"Invalid '{name}': integer above maximum value. Expected a value <= 4096 (the client's "
                          f"wellnessChat.maxCompletionTokens), but got 4097 instead.", name)
    assert upstream.requests == []
    chatter.configure("wellnessChat.maxN=2", "wellnessChat.maxCompletionTokens=50")
    upstream.reply(fake.completion("a"), fake.completion("b"))
    assert proxy_http.post(COMPLETIONS, json=body(n=2, max_tokens=50), headers=chatter.player.headers).status_code == 200
    assert proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers).status_code == 200
    # Given, the caller's max goes as sent; absent, the client's cap goes as max_completion_tokens.
    assert upstream.requests[0]["body"] == body(n=2, max_tokens=50)
    assert upstream.requests[1]["body"] == body(max_completion_tokens=50)


@pytest.mark.parametrize(("extra", "message", "param"), [
    ({"stop": ["a", "b", "c", "d", "e"]}, "List should have at most 4 items after validation, not 5", "stop"),
    ({"stop": "x" * 257}, "String should have at most 256 characters", "stop"),
    ({"logit_bias": {str(i): 1 for i in range(301)}}, "Dictionary should have at most 300 items after validation, "
                                                       "not more", "logit_bias"),
    ({"logit_bias": {"50256": 101}}, "Input should be less than or equal to 100", "logit_bias.50256"),
    ({"metadata": {f"k{i}": "v" for i in range(17)}}, "Dictionary should have at most 16 items after validation, "
                                                       "not more", "metadata"),
    ({"metadata": {"k": "v" * 513}}, "String should have at most 512 characters", "metadata.k"),
    ({"tools": [{"type": "function", "function": {"name": f"f{i}"}} for i in range(129)]},
     "List should have at most 128 items after validation, not 129", "tools"),
    ({"top_logprobs": 21}, "Input should be less than or equal to 20", "top_logprobs"),
    ({"temperature": 2.5}, "Input should be less than or equal to 2", "temperature"),
    ({"messages": [{"role": "user", "content": "x" * (1 << 20 | 1)}]},
     "String should have at most 1048576 characters", "messages.0.content"),
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}] * 101}]},
     "List should have at most 100 items after validation, not 101", "messages.0.content"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", **{f"k{i}": 1 for i in range(32)}}]}]},
     "at most 32 fields (at 0)", "messages.0.content"),
    ({"messages": [{"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}] * 129}]},
     "List should have at most 128 items after validation, not 129", "messages.0.tool_calls"),
    ({"messages": [{"role": "user", "content": "hi", "name": "n" * 65}]},
     "String should have at most 64 characters", "messages.0.name"),
])
def test_inputs_that_size_work_are_capped(proxy_http, chatter, upstream, extra, message, param):
    response = proxy_http.post(COMPLETIONS, json=body(**extra), headers=chatter.player.headers)
    refused(response, f"Invalid field {param}: {message}.", param)
    assert upstream.requests == []


# ------------------------------------------------------------------------------------------ the budget


def _generous(tenant, **caps) -> None:
    """Rate and concurrency out of the way, so only the budget refuses."""
    tenant.configure("wellnessChat.requestsPerMinute=1000", "wellnessChat.maxConcurrentPerUser=20",
                     "wellnessChat.maxConcurrentPerClient=200", *[f"wellnessChat.{k}={v}" for k, v in caps.items()])


def test_concurrent_requests_overshoot_the_budget_by_at_most_one_estimate(chatter, upstream):
    _generous(chatter, maxCompletionTokens=100, monthlyTokenBudget=300)
    estimate = tokens.estimate_messages(QUESTION) + 100
    requests = 12
    # Every answer is held open a moment, so the requests run together; each uses 55 of its 105 reserved tokens.
    upstream.reply(*[fake.text_stream(["a", "b"], delay=0.3, reported=fake.usage(5, 50)) for _ in range(requests)])

    def send(_):
        response = proxy_app.test_client().post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers)
        response.get_data()
        return response.status_code, (response.json or {}).get("error", {}).get("code") if response.is_json else None

    with concurrent.futures.ThreadPoolExecutor(max_workers=requests) as pool:
        outcomes = list(pool.map(send, range(requests)))
    admitted = outcomes.count((200, None))
    assert admitted + outcomes.count((429, "insufficient_quota")) == requests
    used = repo.tokens_used(chatter.client_id, repo.month_of(clock.now()))
    assert used == 55 * admitted
    assert used <= 300 + estimate
    assert 0 < admitted < requests
    # Settled: the ledger holds what was used, nothing still reserved.
    assert repo.ledger_tokens(chatter.client_id, repo.month_of(clock.now())) == used


def test_a_refused_or_failed_request_gives_its_reservation_back(proxy_http, chatter, upstream):
    _generous(chatter, maxCompletionTokens=100, monthlyTokenBudget=1000)
    month = repo.month_of(clock.now())
    upstream.reply(fake.Json(500, {"error": {"message": "boom"}}))
    assert proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers).status_code == 502
    assert proxy_http.post(COMPLETIONS, json=body(n=5), headers=chatter.player.headers).status_code == 400
    assert repo.ledger_tokens(chatter.client_id, month) == 0
    upstream.reply(fake.completion("ok", fake.usage(7, 3)))
    assert proxy_http.post(COMPLETIONS, json=body(), headers=chatter.player.headers).status_code == 200
    assert repo.ledger_tokens(chatter.client_id, month) == 10


def test_a_stream_cut_off_settles_to_its_estimated_usage(proxy_http, chatter, upstream):
    _generous(chatter, maxCompletionTokens=100)
    upstream.reply(fake.text_stream(["Hello", " there"], end=False))
    response = proxy_http.post(COMPLETIONS, json=body(stream=True), headers=chatter.player.headers)
    response.get_data()
    record = usage_record(chatter, response)
    assert record["outcome"] == "cut"
    assert repo.ledger_tokens(chatter.client_id, repo.month_of(clock.now())) == (
        record["promptTokens"] + record["completionTokens"])


# ------------------------------------------------------------------------------------------ concurrency


def _held(tenant, uid: str) -> tuple[int, int]:
    user = slots.Limit(metering.USER_SLOTS, ratelimit.caller_key(tenant.client_id, uid), 1)
    return slots.held(user), slots.held(slots.Limit(metering.CLIENT_SLOTS, tenant.client_id, 1))


def test_a_user_may_have_two_requests_running_then_429_with_retry_after(proxy_http, chatter):
    chatter.configure("wellnessChat.models=local")
    open_streams = [proxy_http.post(COMPLETIONS, json=body("local", stream=True), headers=chatter.player.headers,
                                    buffered=False) for _ in range(2)]
    assert [r.status_code for r in open_streams] == [200, 200]
    response = proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers)
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "5"
    assert response.json == openai_error(
        "Too many assistant requests at once: each user may have 2 running (wellnessChat.maxConcurrentPerUser); "
        "retry in 5 seconds.", "rate_limit_error", code="rate_limit_exceeded")
    # Another user of the client has their own slots.
    assert proxy_http.post(EMBEDDINGS, json={"model": "local", "input": "x"},
                           headers=chatter.admin.headers).status_code == 200
    # A caller that goes away (the response closed unread) frees its slot.
    open_streams[0].close()
    assert _held(chatter, chatter.player.uid) == (1, 1)
    assert proxy_http.post(COMPLETIONS, json=body("local"), headers=chatter.player.headers).status_code == 200
    b"".join(open_streams[1].response)
    open_streams[1].close()
    assert _held(chatter, chatter.player.uid) == (0, 0)


def test_the_clients_users_together_are_capped_and_the_chat_says_so_in_its_envelope(http, proxy_http, chatter):
    chatter.configure("wellnessChat.models=local", "wellnessChat.maxConcurrentPerClient=1")
    holding = proxy_http.post(COMPLETIONS, json=body("local", stream=True), headers=chatter.player.headers,
                              buffered=False)
    assert holding.status_code == 200
    response = http.post(CHAT, json={"message": "hello"}, headers=chatter.admin.headers)
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "5"
    assert response.json == {"error": "Too many assistant requests at once: the client's users together may have 1 "
                                      "running (wellnessChat.maxConcurrentPerClient); retry in 5 seconds.",
                             "retryAfterSeconds": 5}
    holding.close()
    chat = http.post(CHAT, json={"message": "hello"}, headers=chatter.admin.headers)
    assert chat.status_code == 200 and b"event: done" in chat.get_data()
    assert _held(chatter, chatter.admin.uid) == (0, 0)


def test_twelve_users_of_one_client_are_admitted_at_once_with_the_default_limits(chatter):
    """Every request of a tenant wrote the one document of the client's slots: a burst of chats answered 503 on
    lock timeouts. Each lease is now a document of its own, and a burst under the limit is all admitted."""
    client = tenancy.get_client(chatter.client_id)
    assert int(client.setting("wellnessChat.maxConcurrentPerClient")) == 20
    with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
        admissions = list(pool.map(lambda i: metering.hold(client, f"user-{i}", 10), range(12)))
    assert slots.held(slots.Limit(metering.CLIENT_SLOTS, chatter.client_id, 1)) == 12
    for admission in admissions:
        admission.close(0)
    assert slots.held(slots.Limit(metering.CLIENT_SLOTS, chatter.client_id, 1)) == 0


def test_the_chat_reserves_each_answer_and_settles_to_its_usage(http, chatter, upstream):
    _generous(chatter, maxCompletionTokens=100)
    upstream.reply(fake.text_stream(["hi"], reported=fake.usage(40, 2)))
    response = http.post(CHAT, json={"message": "hello"}, headers=chatter.player.headers)
    assert b"event: done" in response.get_data()
    assert upstream.requests[0]["body"]["max_completion_tokens"] == 100
    assert repo.ledger_tokens(chatter.client_id, repo.month_of(clock.now())) == 42


def test_the_bound_body_and_estimate():
    class Client:
        def setting(self, key):
            return {"wellnessChat.maxN": 3, "wellnessChat.maxCompletionTokens": 10}[key]

    sent = {"model": "m", "messages": QUESTION, "n": 3}
    forwarded = proxy.bounded(Client(), sent)
    assert forwarded == {**sent, "max_completion_tokens": 10}
    assert proxy.chat_estimate(forwarded) == tokens.estimate_messages(QUESTION) + 30
    assert proxy.embeddings_estimate({"input": ["ab", [1, 2, 3]]}) == 1 + 3
