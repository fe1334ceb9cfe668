"""The assistant through Hosting: the wellness chat's event stream and the saved conversation, and the
OpenAI-compatible proxy with the official openai SDK (the functions answer with the local model). JSON answers are
checked against the served OpenAPI document (the api fixture); streamed ones against their documented media type."""

import json

import openai
import pytest
import requests

from tests.conftest import BASE_URL

pytestmark = pytest.mark.e2e

CHAT = "/api/wellness-chat"
CONVERSATIONS = "/api/wellness-chat/conversations"
COMPLETIONS = "/api/openai/v1/chat/completions"
PROXY = f"{BASE_URL}/api/openai/v1"
QUESTION = [{"role": "user", "content": "What can you do?"}]


@pytest.fixture
def chatter(tenant):
    tenant.configure("modules.wellnessChat=true", "modules.aiMove=true", "modules.vitalScan=true")
    return tenant


def chat_events(response: requests.Response) -> list[tuple[str, dict]]:
    """(event, data) of a wellness-chat stream, read as it arrives."""
    events, name = [], None
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[6:])))
    return events


def assert_streamed_as_documented(contract, response: requests.Response, template: str) -> None:
    """A streamed 200: the document gives text/event-stream for it, and the answer carries our request id."""
    operation = contract.document["paths"][template][response.request.method.lower()]
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/event-stream")
    assert response.headers.get("x-request-id")


def test_a_chat_turn_streams_and_is_saved(api, contract, chatter):
    with requests.post(BASE_URL + CHAT, json={"message": "Which lessons help with balance?", "locale": "en"},
                       headers=chatter.player.headers, stream=True, timeout=60) as response:
        assert_streamed_as_documented(contract, response, CHAT)
        events = chat_events(response)
    names = [name for name, _ in events]
    assert names[:2] == ["tool", "tool"] and names[-1] == "done"
    assert events[0][1] == {"name": "find_lessons", "status": "started"}
    assert set(names[2:-1]) == {"delta"}
    text = "".join(data["text"] for name, data in events if name == "delta")
    assert text.startswith("I found no lesson matching that goal.")
    done = events[-1][1]
    assert done["usage"]["promptTokens"] > 0 and done["usage"]["completionTokens"] > 0
    conversation_id = done["conversationId"]

    detail = api("GET", f"{CONVERSATIONS}/{conversation_id}", headers=chatter.player.headers)
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["conversation"]["messageCount"] == 2 and body["conversation"]["usage"] == done["usage"]
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("user", "Which lessons help with balance?"), ("assistant", text)]
    assert body["messages"][1]["tools"] == ["find_lessons"] and body["messages"][1]["interrupted"] is False

    listed = api("GET", CONVERSATIONS, headers=chatter.player.headers)
    assert [c["conversationId"] for c in listed.json()["conversations"]] == [conversation_id]
    # Another member of the client does not see it.
    other = chatter.add_member("player")
    assert api("GET", f"{CONVERSATIONS}/{conversation_id}", headers=other.headers).status_code == 404


def test_chat_errors_through_hosting(api, chatter):
    assert api("POST", CHAT, json={"message": "hi"}).status_code == 401
    assert api("POST", CHAT, json={"message": ""}, headers=chatter.player.headers).status_code == 400
    missing = api("POST", CHAT, json={"message": "hi", "conversationId": "nope"}, headers=chatter.player.headers)
    assert missing.status_code == 404 and missing.json() == {"error": "Conversation not found."}


def test_the_proxy_through_hosting_is_checked_against_the_document(api, chatter):
    headers = chatter.player.headers
    completion = api("POST", COMPLETIONS, json={"model": "local", "messages": QUESTION}, headers=headers)
    assert completion.status_code == 200, completion.text
    assert completion.json()["choices"][0]["message"]["content"].startswith("I'm your wellness assistant.")
    models = api("GET", "/api/openai/v1/models", headers=headers)
    assert [m["id"] for m in models.json()["data"]] == ["local"]
    embeddings = api("POST", "/api/openai/v1/embeddings", json={"model": "local", "input": "balance"}, headers=headers)
    assert len(embeddings.json()["data"][0]["embedding"]) == 256
    not_found = api("POST", COMPLETIONS, json={"model": "gpt-4o", "messages": QUESTION}, headers=headers)
    assert not_found.status_code == 404 and not_found.json()["error"]["code"] == "model_not_found"
    bad = api("POST", COMPLETIONS, json={"model": "local", "messages": []}, headers=headers)
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "messages"
    unauthorized = api("POST", COMPLETIONS, json={"model": "local", "messages": QUESTION})
    assert unauthorized.status_code == 401 and unauthorized.json()["error"]["type"] == "authentication_error"
    unknown = api("GET", "/api/openai/v1/nope", headers=headers)
    assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "invalid_request_error"


def test_a_streamed_completion_through_hosting(contract, chatter):
    body = {"model": "local", "messages": QUESTION, "stream": True}
    with requests.post(BASE_URL + COMPLETIONS, json=body, headers=chatter.player.headers, stream=True,
                       timeout=60) as response:
        assert_streamed_as_documented(contract, response, COMPLETIONS)
        data = [line[6:] for line in response.iter_lines(decode_unicode=True) if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    chunks = [json.loads(item) for item in data[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks).startswith("I'm your wellness")
    assert not any("usage" in c for c in chunks)


def test_the_openai_sdk_through_hosting(chatter):
    with openai.OpenAI(base_url=PROXY, api_key=chatter.player.token, max_retries=0, timeout=60) as client:
        completion = client.chat.completions.create(model="local", messages=QUESTION)
        intro = completion.choices[0].message.content
        assert intro.startswith("I'm your wellness assistant.")

        chunks = list(client.chat.completions.create(model="local", messages=QUESTION, stream=True,
                                                     stream_options={"include_usage": True}))
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == intro
        assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0

        zh = client.chat.completions.create(model="local", messages=[{"role": "user", "content": "推薦一些瑜伽課程"}],
                                            tools=[{"type": "function", "function": {
                                                "name": "find_lessons", "parameters": {"type": "object"}}}])
        assert zh.choices[0].message.tool_calls[0].function.name == "find_lessons"

        embedding = client.embeddings.create(model="local", input="balance exercises")  # base64 on the wire
        assert len(embedding.data[0].embedding) == 256
        assert [m.id for m in client.models.list()] == ["local"]

        with pytest.raises(openai.NotFoundError) as caught:
            client.chat.completions.create(model="gpt-4o", messages=QUESTION, stream=True)
        assert caught.value.code == "model_not_found"

    with (openai.OpenAI(base_url=PROXY, api_key="not-a-token", max_retries=0, timeout=60) as client,
          pytest.raises(openai.AuthenticationError)):
        client.models.list()


def test_the_proxys_limits_through_hosting_with_the_sdk(chatter):
    """OpenAI's embeddings limit, a parameter outside the allow-list and a per-client cap, through Hosting: the
    SDK's BadRequestError with the parameter named."""
    with openai.OpenAI(base_url=PROXY, api_key=chatter.player.token, max_retries=0, timeout=60) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            client.embeddings.create(model="local", input=["balance"] * 2049)
        assert caught.value.param == "input"
        assert caught.value.body["message"] == "Invalid field input: at most 2048 inputs per request, not 2049."
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model="local", messages=QUESTION, store=True)
        assert caught.value.param == "store"
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model="local", messages=QUESTION, n=5)
        assert caught.value.param == "n"
        assert len(client.chat.completions.create(model="local", messages=QUESTION, n=4).choices) == 1  # local: one
