"""The official openai SDK against the proxy, served over real HTTP (werkzeug in a thread), answered by the local
model: what a partner's code does with `base_url=.../api/openai/v1` and the user's ID token as its api_key."""

import io
import json
import threading

import openai
import pytest
from werkzeug.serving import make_server

from wellness_api.assistant.providers import local
from wellness_api.assistant.providers.local_texts import TEXTS
from wellness_api.assistant.routes import proxy_app
from wellness_api.assistant.tools import BY_NAME

QUESTION = [{"role": "user", "content": "What can you do?"}]
FIND_LESSONS = BY_NAME["find_lessons"].definition()


class Recorder:
    """WSGI middleware: the path and body of every request, as the SDK sent them."""

    def __init__(self, app):
        self.app = app
        self.requests: list[tuple[str, bytes]] = []

    def __call__(self, environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(raw)
        self.requests.append((environ["PATH_INFO"], raw))
        return self.app(environ, start_response)


@pytest.fixture(scope="module")
def server():
    recorder = Recorder(proxy_app)
    httpd = make_server("127.0.0.1", 0, recorder, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/api/openai/v1", recorder
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def sdk(server, chatter):
    base_url, recorder = server
    recorder.requests.clear()
    with openai.OpenAI(base_url=base_url, api_key=chatter.player.token, max_retries=0, timeout=30) as client:
        yield client


def test_a_chat_completion(sdk):
    completion = sdk.chat.completions.create(model="local", messages=QUESTION)
    assert completion.object == "chat.completion" and completion.model == "local"
    [choice] = completion.choices
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content == TEXTS["en"]["intro"]
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens > 0


def test_a_streamed_chat_completion(sdk):
    stream = sdk.chat.completions.create(model="local", messages=QUESTION, stream=True)
    chunks = list(stream)
    assert len(chunks) > 3
    assert all(chunk.object == "chat.completion.chunk" for chunk in chunks)
    assert "".join(chunk.choices[0].delta.content or "" for chunk in chunks) == TEXTS["en"]["intro"]
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(chunk.usage is None for chunk in chunks)


def test_a_streamed_chat_completion_with_usage(sdk):
    stream = sdk.chat.completions.create(model="local", messages=QUESTION, stream=True,
                                         stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert text == TEXTS["en"]["intro"]
    last = chunks[-1]
    assert last.choices == []
    assert last.usage.prompt_tokens > 0 and last.usage.completion_tokens > 0
    assert last.usage.total_tokens == last.usage.prompt_tokens + last.usage.completion_tokens
    assert all(chunk.usage is None for chunk in chunks[:-1])


def test_a_tool_call_and_the_answer_from_its_result(sdk):
    question = [{"role": "user", "content": "Which lessons help with balance?"}]
    first = sdk.chat.completions.create(model="local", messages=question, tools=[FIND_LESSONS])
    assert first.choices[0].finish_reason == "tool_calls"
    [call] = first.choices[0].message.tool_calls
    assert call.function.name == "find_lessons"
    assert json.loads(call.function.arguments) == {"goal": "Which lessons help with balance?"}
    result = {"lessons": [{"title": "Balance Basics", "description": "Stand on one leg."}]}
    messages = [*question, first.choices[0].message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}]
    second = sdk.chat.completions.create(model="local", messages=messages, tools=[FIND_LESSONS])
    assert second.choices[0].message.content == "Lessons that match your goal:\n1. Balance Basics: Stand on one leg."


def test_a_streamed_tool_call(sdk):
    stream = sdk.chat.completions.create(model="local", stream=True, tools=[FIND_LESSONS],
                                         messages=[{"role": "user", "content": "Suggest a yoga lesson"}])
    calls = [call for chunk in stream for call in (chunk.choices[0].delta.tool_calls or [])]
    assert [call.function.name for call in calls] == ["find_lessons"]


def test_embeddings_ask_for_base64_and_the_sdk_decodes_them(sdk, server):
    _, recorder = server
    answer = sdk.embeddings.create(model="local", input="balance exercises")
    assert json.loads(recorder.requests[-1][1])["encoding_format"] == "base64"
    [item] = answer.data
    assert item.index == 0 and len(item.embedding) == local.EMBEDDING_DIMENSIONS
    assert item.embedding == pytest.approx(local.embedding("balance exercises", local.EMBEDDING_DIMENSIONS), abs=1e-6)
    assert answer.usage.prompt_tokens > 0


def test_embeddings_as_floats_with_dimensions_and_several_inputs(sdk):
    answer = sdk.embeddings.create(model="local", input=["balance", "strength"], encoding_format="float", dimensions=16)
    assert [item.index for item in answer.data] == [0, 1]
    assert answer.data[1].embedding == pytest.approx(local.embedding("strength", 16))


def test_models_list(sdk, chatter):
    assert [model.id for model in sdk.models.list()] == ["local"]
    model = sdk.models.list().data[0]
    assert (model.object, model.owned_by) == ("model", "wellness-platform")


def test_a_bad_token_is_an_authentication_error(server, chatter):
    base_url, _ = server
    with openai.OpenAI(base_url=base_url, api_key="not-an-id-token", max_retries=0) as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            client.chat.completions.create(model="local", messages=QUESTION)
        with pytest.raises(openai.AuthenticationError):
            client.models.list()
    assert caught.value.status_code == 401
    assert caught.value.type == "authentication_error"
    # The SDK reports the proxy's own x-request-id (the key of the request's log lines).
    assert caught.value.request_id == caught.value.response.headers["x-request-id"]
    assert len(caught.value.request_id) == 32


def test_a_model_not_allowed_is_a_not_found_error(sdk):
    with pytest.raises(openai.NotFoundError) as caught:
        sdk.chat.completions.create(model="gpt-4o", messages=QUESTION)
    assert caught.value.status_code == 404
    assert caught.value.code == "model_not_found"
    assert caught.value.body["message"] == "The model `gpt-4o` does not exist or you do not have access to it."
    with pytest.raises(openai.NotFoundError):
        sdk.chat.completions.create(model="gpt-4o", messages=QUESTION, stream=True)
    with pytest.raises(openai.NotFoundError):
        sdk.embeddings.create(model="gpt-4o", input="x")


def test_a_bad_request_is_a_bad_request_error_naming_the_field(sdk):
    with pytest.raises(openai.BadRequestError) as caught:
        sdk.chat.completions.create(model="local", messages=[])
    assert caught.value.param == "messages"
    assert caught.value.type == "invalid_request_error"


def test_a_client_without_the_chat_is_a_permission_denied_error(server, tenant):
    base_url, _ = server
    with (openai.OpenAI(base_url=base_url, api_key=tenant.player.token, max_retries=0) as client,
          pytest.raises(openai.PermissionDeniedError) as caught):
        client.chat.completions.create(model="local", messages=QUESTION)
    assert caught.value.type == "permission_error"


def test_a_used_up_budget_is_a_rate_limit_error_with_insufficient_quota(sdk, chatter):
    chatter.configure("wellnessChat.monthlyTokenBudget=0")
    with pytest.raises(openai.RateLimitError) as caught:
        sdk.chat.completions.create(model="local", messages=QUESTION)
    assert caught.value.code == "insufficient_quota" and caught.value.type == "insufficient_quota"
