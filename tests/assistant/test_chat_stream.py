"""The wellness chat against the fake upstream: event order, flushing, tools, usage, cut streams, disconnects."""

import json
import threading

import pytest

from support import fake_upstream as fake
from tests.conftest import assert_error
from wellness_api.assistant import chat as chat_module
from wellness_api.assistant import repository as repo
from wellness_api.assistant import tokens
from wellness_api.assistant.routes import app
from wellness_api.core import clock, tenancy

from .conftest import CHAT, FAKE_MODEL, sse_events


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
    assert upstream.hung_up.wait(5)
    assert not upstream.finished.is_set()


# ------------------------------------------------------------------------------------------ helpers

def chat(http, member, message: str = "hi", **fields):
    return http.post(CHAT, json={"message": message, **fields}, headers=member.headers)


def usage_record(tenant, request_id: str) -> dict:
    snap = tenancy.client_ref(tenant.client_id).collection(repo.USAGE).document(request_id).get()
    assert snap.exists, f"no usage record {request_id}"
    return snap.to_dict()


def saved_turn(tenant, conversation_id: str) -> list[dict]:
    return repo.messages(tenant.client_id, conversation_id)


def tool_names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def text_then_tool(text: str, name: str, arguments: str = "{}", *, reported: dict | None = None,
                   call_id: str = "call_1") -> fake.Stream:
    """An answer that says something, then calls a tool in the same round (as models do)."""
    parts: list[bytes | float] = [
        fake.chunk({"role": "assistant", "content": text}),
        fake.chunk({"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                    "function": {"name": name, "arguments": arguments}}]}),
        fake.chunk({}, "tool_calls"),
    ]
    if reported is not None:
        parts.append(fake.chunk(None, usage=reported))
    parts.append(fake.DONE)
    return fake.Stream(parts)


def estimated_prompt(sent: dict) -> int:
    return tokens.estimate_messages(sent["body"]["messages"], sent["body"].get("tools"))


# ------------------------------------------------------------------------------------------ tools in the stream


def test_a_tool_call_streams_delta_tool_started_finished_delta_done_in_order(http, chatter, upstream):
    upstream.reply(text_then_tool("Let me look. ", "get_exercise_activity", reported=fake.usage(100, 10)),
                   fake.text_stream(["You did ", "well."], reported=fake.usage(150, 20)))
    response = chat(http, chatter.player, "How are my workouts?")
    assert response.status_code == 200
    events = sse_events(response.get_data())
    assert events[:-1] == [
        ("delta", {"text": "Let me look. "}),
        ("tool", {"name": "get_exercise_activity", "status": "started"}),
        ("tool", {"name": "get_exercise_activity", "status": "finished"}),
        ("delta", {"text": "You did "}),
        ("delta", {"text": "well."}),
    ]
    name, done = events[-1]
    assert name == "done"
    # Usage is the sum of both rounds' reported usage chunks.
    assert done["usage"] == {"promptTokens": 250, "completionTokens": 30}
    record = usage_record(chatter, response.headers["x-request-id"])
    assert record["estimated"] is False and record["outcome"] == "completed" and record["kind"] == "chat"
    assert (record["promptTokens"], record["completionTokens"]) == (250, 30)
    assert record["uid"] == chatter.player.uid and record["conversationId"] == done["conversationId"]
    # The saved answer is all the text of both rounds, with the tool it called.
    user, assistant = saved_turn(chatter, done["conversationId"])
    assert user["role"] == "user" and user["content"] == "How are my workouts?"
    assert assistant["content"] == "Let me look. You did well."
    assert assistant["tools"] == ["get_exercise_activity"] and assistant["interrupted"] is False


def test_the_second_request_carries_the_assistant_tool_call_and_the_tool_result(http, chatter, upstream):
    upstream.reply(fake.tool_stream("get_exercise_activity", "{}", call_id="call_abc"),
                   fake.text_stream(["ok"], reported=fake.usage(1, 1)))
    response = chat(http, chatter.player)
    assert [name for name, _ in sse_events(response.get_data())] == ["tool", "tool", "delta", "done"]
    assert len(upstream.requests) == 2
    first, second = (sent["body"] for sent in upstream.requests)
    assert second["messages"][:len(first["messages"])] == first["messages"]
    call_message, result_message = second["messages"][len(first["messages"]):]
    assert call_message == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_abc", "type": "function", "function": {"name": "get_exercise_activity", "arguments": "{}"}}]}
    assert result_message["role"] == "tool" and result_message["tool_call_id"] == "call_abc"
    assert json.loads(result_message["content"]) == {"sessionsCompleted": 0, "totalReps": 0, "totalMinutes": 0.0,
                                                     "recentSessions": []}
    # The round after a tool still offers the tools, and still asks for the usage chunk.
    assert tool_names(second) == tool_names(first) and "get_exercise_activity" in tool_names(second)
    assert second["stream"] is True and second["stream_options"] == {"include_usage": True}
    assert second["model"] == FAKE_MODEL


def test_two_tool_calls_in_one_round_run_in_order_and_both_results_go_upstream(http, chatter, upstream):
    upstream.reply(fake.Stream([
        fake.chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_a", "type": "function", "function": {"name": "find_lessons", "arguments": ""}},
            {"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_latest_vital_scan",
                                                                          "arguments": "{}"}}]}),
        fake.chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"goal": "balance"}'}}]}),
        fake.chunk({}, "tool_calls"), fake.DONE,
    ]), fake.text_stream(["done"]))
    events = sse_events(chat(http, chatter.player).get_data())
    assert events[:4] == [("tool", {"name": "find_lessons", "status": "started"}),
                          ("tool", {"name": "find_lessons", "status": "finished"}),
                          ("tool", {"name": "get_latest_vital_scan", "status": "started"}),
                          ("tool", {"name": "get_latest_vital_scan", "status": "finished"})]
    results = upstream.requests[1]["body"]["messages"][-2:]
    assert [(m["role"], m["tool_call_id"]) for m in results] == [("tool", "call_a"), ("tool", "call_b")]
    assert json.loads(results[0]["content"]) == {"lessons": []}
    assert json.loads(results[1]["content"]) == {"scan": None}
    _user, assistant = saved_turn(chatter, events[-1][1]["conversationId"])
    assert assistant["tools"] == ["find_lessons", "get_latest_vital_scan"]


# ------------------------------------------------------------------------------------------ usage


def test_a_stream_without_a_usage_chunk_is_estimated_in_done_and_in_the_record(http, chatter, upstream):
    upstream.reply(fake.text_stream(["Hello", " there"]))
    response = chat(http, chatter.player)
    name, done = sse_events(response.get_data())[-1]
    assert name == "done"
    expected = {"promptTokens": estimated_prompt(upstream.requests[0]),
                "completionTokens": tokens.estimate("Hello there")}
    assert expected["promptTokens"] > 0 and expected["completionTokens"] > 0
    assert done["usage"] == expected
    record = usage_record(chatter, response.headers["x-request-id"])
    assert record["estimated"] is True and record["outcome"] == "completed"
    assert {"promptTokens": record["promptTokens"], "completionTokens": record["completionTokens"]} == expected


def test_one_round_without_usage_makes_the_whole_turn_estimated(http, chatter, upstream):
    upstream.reply(fake.tool_stream("find_lessons", '{"goal": "yoga"}', reported=fake.usage(100, 10)),
                   fake.text_stream(["No lessons."]))
    response = chat(http, chatter.player)
    name, done = sse_events(response.get_data())[-1]
    assert name == "done"
    assert done["usage"] == {"promptTokens": 100 + estimated_prompt(upstream.requests[1]),
                             "completionTokens": 10 + tokens.estimate("No lessons.")}
    assert usage_record(chatter, response.headers["x-request-id"])["estimated"] is True


def test_usage_adds_up_on_the_conversation(http, chatter, upstream):
    upstream.reply(fake.text_stream(["a"], reported=fake.usage(10, 1)), fake.text_stream(["b"], reported=fake.usage(20, 2)))
    conversation_id = sse_events(chat(http, chatter.player).get_data())[-1][1]["conversationId"]
    done = sse_events(chat(http, chatter.player, "more", conversationId=conversation_id).get_data())[-1]
    assert done == ("done", {"conversationId": conversation_id, "usage": {"promptTokens": 20, "completionTokens": 2}})
    stored = repo.get_conversation(chatter.client_id, conversation_id)
    assert (stored["promptTokens"], stored["completionTokens"], stored["messageCount"]) == (30, 3, 4)
    assert repo.tokens_used(chatter.client_id, repo.month_of(clock.now())) == 33


# ------------------------------------------------------------------------------------------ cut streams and failures


def test_a_cut_stream_ends_with_error_and_saves_what_was_streamed_as_interrupted(http, chatter, upstream):
    upstream.reply(fake.text_stream(["Half ", "an answ"], end=False))
    response = chat(http, chatter.player, "Tell me everything")
    events = sse_events(response.get_data())
    assert events == [("delta", {"text": "Half "}), ("delta", {"text": "an answ"}),
                      ("error", {"error": "The answer was cut off; ask again."})]
    conversations = repo.user_conversations(chatter.client_id, chatter.player.uid, 10, None)[0]
    assert len(conversations) == 1
    user, assistant = saved_turn(chatter, conversations[0]["conversationId"])
    assert user["content"] == "Tell me everything"
    assert assistant["content"] == "Half an answ" and assistant["interrupted"] is True and assistant["tools"] == []
    record = usage_record(chatter, response.headers["x-request-id"])
    assert record["estimated"] is True and record["outcome"] == "cut"
    assert record["promptTokens"] == estimated_prompt(upstream.requests[0]) > 0
    assert record["completionTokens"] == tokens.estimate("Half an answ") > 0
    assert record["conversationId"] == conversations[0]["conversationId"]


def test_an_error_event_inside_the_upstream_stream_is_a_cut_answer(http, chatter, upstream):
    upstream.reply(fake.Stream([fake.chunk({"role": "assistant", "content": "Start"}),
                                b'data: {"error": {"message": "overloaded, internal detail"}}\n\n']))
    response = chat(http, chatter.player)
    events = sse_events(response.get_data())
    assert events == [("delta", {"text": "Start"}), ("error", {"error": "The answer was cut off; ask again."})]
    assert b"internal detail" not in response.get_data()
    assert usage_record(chatter, response.headers["x-request-id"])["outcome"] == "cut"


@pytest.mark.parametrize("status", [500, 401, 400])
def test_an_upstream_refusal_before_the_stream_is_a_plain_502(http, chatter, upstream, status):
    upstream.reply(fake.Json(status, {"error": {"message": "secret provider detail", "type": "server_error"}}))
    response = chat(http, chatter.player)
    assert_error(response, 502, "The assistant is unavailable right now; try again shortly.")
    # Nothing was said: no conversation, no usage.
    assert repo.user_conversations(chatter.client_id, chatter.player.uid, 10, None)[0] == []
    assert list(tenancy.client_ref(chatter.client_id).collection(repo.USAGE).stream()) == []


def test_an_unreachable_upstream_is_a_plain_502(http, chatter, monkeypatch):
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MODEL", FAKE_MODEL)
    assert_error(chat(http, chatter.player), 502, "The assistant is unavailable right now; try again shortly.")


def test_an_upstream_429_is_a_503_with_its_retry_after(http, chatter, upstream):
    upstream.reply(fake.Json(429, {"error": {"message": "rate limited"}}, headers={"Retry-After": "7"}))
    response = chat(http, chatter.player)
    assert_error(response, 503, "The assistant is busy right now; try again shortly.")
    assert response.headers["Retry-After"] == "7"


def test_an_upstream_429_without_retry_after_is_a_503_without_the_header(http, chatter, upstream):
    upstream.reply(fake.Json(429, {"error": {"message": "rate limited"}}))
    response = chat(http, chatter.player)
    assert_error(response, 503, "The assistant is busy right now; try again shortly.")
    assert "Retry-After" not in response.headers


def test_an_upstream_failure_in_the_tool_round_ends_with_error_and_saves_the_turn(http, chatter, upstream):
    upstream.reply(text_then_tool("Checking. ", "get_exercise_activity", reported=fake.usage(50, 5)),
                   fake.Json(500, {"error": {"message": "boom"}}))
    response = chat(http, chatter.player, "workouts?")
    events = sse_events(response.get_data())
    assert events == [("delta", {"text": "Checking. "}),
                      ("tool", {"name": "get_exercise_activity", "status": "started"}),
                      ("tool", {"name": "get_exercise_activity", "status": "finished"}),
                      ("error", {"error": "The assistant is unavailable right now; try again shortly."})]
    conversations = repo.user_conversations(chatter.client_id, chatter.player.uid, 10, None)[0]
    user, assistant = saved_turn(chatter, conversations[0]["conversationId"])
    assert user["content"] == "workouts?"
    assert assistant["content"] == "Checking. " and assistant["interrupted"] is True
    assert assistant["tools"] == ["get_exercise_activity"]
    record = usage_record(chatter, response.headers["x-request-id"])
    assert record["outcome"] == "failed" and (record["promptTokens"], record["completionTokens"]) == (50, 5)


def test_an_upstream_429_in_the_tool_round_says_busy(http, chatter, upstream):
    upstream.reply(fake.tool_stream("find_lessons", '{"goal": "yoga"}'),
                   fake.Json(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "3"}))
    events = sse_events(chat(http, chatter.player).get_data())
    assert events[-1] == ("error", {"error": "The assistant is busy right now; try again shortly."})


# ------------------------------------------------------------------------------------------ tool rounds


def test_after_max_tool_rounds_the_last_request_offers_no_tools(http, chatter, upstream):
    rounds = chat_module.MAX_TOOL_ROUNDS
    upstream.reply(*[fake.tool_stream("find_lessons", '{"goal": "yoga"}', call_id=f"call_{i}") for i in range(rounds)],
                   fake.text_stream(["Here is what I found."], reported=fake.usage(5, 5)))
    events = sse_events(chat(http, chatter.player).get_data())
    assert [name for name, _ in events] == ["tool", "tool"] * rounds + ["delta", "done"]
    assert len(upstream.requests) == rounds + 1
    assert all("find_lessons" in tool_names(sent["body"]) for sent in upstream.requests[:rounds])
    last = upstream.requests[-1]["body"]
    assert "tools" not in last
    # It still holds every call and its result, so the model answers with what it read.
    assert [m["tool_call_id"] for m in last["messages"] if m["role"] == "tool"] == [f"call_{i}" for i in range(rounds)]


def test_a_model_that_calls_a_tool_in_the_tool_less_round_gets_no_more_rounds(http, chatter, upstream):
    rounds = chat_module.MAX_TOOL_ROUNDS
    upstream.reply(*[fake.tool_stream("find_lessons", '{"goal": "yoga"}', call_id=f"call_{i}", reported=fake.usage(1, 1))
                     for i in range(rounds + 1)],
                   fake.text_stream(["never read"], reported=fake.usage(1000, 1000)))
    events = sse_events(chat(http, chatter.player).get_data())
    assert "tools" not in upstream.requests[rounds]["body"]
    assert sum(1 for name, data in events if name == "tool" and data["status"] == "started") == rounds
    assert len(upstream.requests) == rounds + 1


def test_an_unknown_tool_is_an_error_result_for_the_model_and_the_stream_still_finishes(http, chatter, upstream):
    upstream.reply(fake.tool_stream("delete_all_users", '{"confirm": true}'),
                   fake.text_stream(["Sorry, I cannot do that."], reported=fake.usage(3, 3)))
    response = chat(http, chatter.player)
    events = sse_events(response.get_data())
    # A name the model made up is not shown to the app.
    assert events[0] == ("delta", {"text": "Sorry, I cannot do that."})
    assert events[-1][0] == "done"
    result = upstream.requests[1]["body"]["messages"][-1]
    assert result["role"] == "tool"
    assert json.loads(result["content"]) == {"error": "There is no tool named 'delete_all_users'."}


@pytest.mark.parametrize(("arguments", "error"), [("{not json", "The arguments are not JSON."),
                                                  ("[1, 2]", "The arguments must be an object.")])
def test_tool_arguments_that_are_not_an_object_are_an_error_result(http, chatter, upstream, arguments, error):
    upstream.reply(fake.tool_stream("find_lessons", arguments), fake.text_stream(["ok"]))
    events = sse_events(chat(http, chatter.player).get_data())
    assert events[-1][0] == "done"
    assert json.loads(upstream.requests[1]["body"]["messages"][-1]["content"]) == {"error": error}


def test_a_stream_cut_during_a_tool_call_runs_no_tool(http, chatter, upstream):
    upstream.reply(fake.Stream([fake.chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "find_lessons", "arguments": '{"go'}}]})]))
    response = chat(http, chatter.player)
    assert sse_events(response.get_data()) == [("error", {"error": "The answer was cut off; ask again."})]
    assert len(upstream.requests) == 1
    conversation = repo.user_conversations(chatter.client_id, chatter.player.uid, 10, None)[0][0]
    _user, assistant = saved_turn(chatter, conversation["conversationId"])
    assert assistant == {**assistant, "content": "", "tools": [], "interrupted": True}
    record = usage_record(chatter, response.headers["x-request-id"])
    assert record["outcome"] == "cut" and record["estimated"] is True and record["completionTokens"] > 0


def test_a_client_that_disconnects_still_has_its_turn_saved_and_its_usage_recorded(http, chatter, upstream):
    upstream.reply(fake.text_stream([f" w{i}" for i in range(50)], delay=0.1, reported=fake.usage(10, 50)))
    response = http.post(CHAT, json={"message": "long one"}, headers=chatter.player.headers, buffered=False)
    request_id = response.headers["x-request-id"]
    chunks = iter(response.response)
    assert next(chunks) == b'event: delta\ndata: {"text":" w0"}\n\n'
    response.close()
    conversation = repo.user_conversations(chatter.client_id, chatter.player.uid, 10, None)[0][0]
    user, assistant = saved_turn(chatter, conversation["conversationId"])
    assert user["content"] == "long one"
    assert assistant["content"] == " w0" and assistant["interrupted"] is True
    record = usage_record(chatter, request_id)
    assert record["outcome"] == "cancelled" and record["estimated"] is True
    assert record["promptTokens"] == estimated_prompt(upstream.requests[0]) and record["completionTokens"] == 1


def test_the_stream_has_event_stream_headers_that_keep_proxies_from_buffering(http, chatter, upstream):
    upstream.reply(fake.text_stream(["hi"]))
    response = chat(http, chatter.player)
    assert response.headers["Content-Type"].startswith("text/event-stream")
    assert response.headers["Cache-Control"] == "no-cache, no-transform"
    assert response.headers["X-Accel-Buffering"] == "no"


def test_upstream_events_split_anywhere_and_comments_are_read_whole(http, chatter, upstream):
    payload = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": FAKE_MODEL,
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": "你好，"}, "finish_reason": None}]}
    first = f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()  # raw UTF-8, as servers send it
    second = fake.chunk({"content": "world"}).replace(b"\n\n", b"\r\n\r\n")
    cut = first.index("好".encode()) + 1  # inside a UTF-8 sequence
    upstream.reply(fake.Stream([first[:cut], 0.05, first[cut:], b": keep-alive\n\n", second[:7], 0.05, second[7:],
                                fake.chunk({}, "stop"), fake.chunk(None, usage=fake.usage(4, 4)), fake.DONE]))
    events = sse_events(chat(http, chatter.player).get_data())
    assert events[:2] == [("delta", {"text": "你好，"}), ("delta", {"text": "world"})]
    assert events[2][0] == "done" and events[2][1]["usage"] == {"promptTokens": 4, "completionTokens": 4}


def test_concurrent_turns_of_one_conversation_are_numbered_one_after_the_other(http, chatter, upstream):
    upstream.reply(fake.text_stream(["first"], reported=fake.usage(1, 1)))
    conversation_id = sse_events(chat(http, chatter.player).get_data())[-1][1]["conversationId"]
    upstream.reply(*[fake.text_stream(["slow", " answer"], delay=0.3, reported=fake.usage(1, 1)) for _ in range(2)])
    results = {}

    def one(name: str):
        response = app.test_client().post(CHAT, json={"message": name, "conversationId": conversation_id},
                                          headers=chatter.player.headers)
        results[name] = sse_events(response.get_data())[-1][0]

    threads = [threading.Thread(target=one, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == {"a": "done", "b": "done"}
    stored = saved_turn(chatter, conversation_id)
    assert [m["index"] for m in stored] == [1, 2, 3, 4, 5, 6]
    assert sorted(m["content"] for m in stored[2::2]) == ["a", "b"]
    assert repo.get_conversation(chatter.client_id, conversation_id)["messageCount"] == 6


def test_concurrent_turns_cannot_overfill_a_conversation(http, chatter, upstream):
    upstream.reply(fake.text_stream(["first"]))
    conversation_id = sse_events(chat(http, chatter.player).get_data())[-1][1]["conversationId"]
    repo.conversation_ref(chatter.client_id, conversation_id).update({"messageCount": 198})
    upstream.reply(*[fake.text_stream(["slow", " answer"], delay=0.5) for _ in range(2)])

    def one():
        app.test_client().post(CHAT, json={"message": "more", "conversationId": conversation_id},
                               headers=chatter.player.headers).get_data()

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert repo.get_conversation(chatter.client_id, conversation_id)["messageCount"] <= chat_module.MAX_CONVERSATION_MESSAGES
