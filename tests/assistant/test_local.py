"""The local assistant (model `local`) as units: intents, locales, the turn's decision, answers from tool results,
its OpenAI stream and completion, its embedding; and the token estimates and the SSE splitter it relies on."""

import base64
import json
import math
import random
import struct

import pytest

from wellness_api.assistant import sse, tokens
from wellness_api.assistant.providers import local
from wellness_api.assistant.providers.base import UpstreamError
from wellness_api.assistant.providers.local_texts import TEXTS
from wellness_api.assistant.responses import ChatCompletion, EmbeddingList
from wellness_api.assistant.tools import TOOLS

ALL_TOOLS = [tool.definition() for tool in TOOLS]


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def tools_named(*names: str) -> list[dict]:
    return [tool.definition() for tool in TOOLS if tool.name in names]


def with_results(question: str, *results: tuple[str, object]) -> list[dict]:
    """A conversation that ends with the tool results (name, result) of the assistant's calls."""
    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
             for i, (name, _) in enumerate(results)]
    messages = [{"role": "system", "content": "You are a wellness assistant."}, *user(question),
                {"role": "assistant", "content": None, "tool_calls": calls}]
    for i, (_, result) in enumerate(results):
        content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": content})
    return messages


def parse_stream(data: bytes) -> list:
    """The data of every event of an OpenAI stream: chunk objects, and the final "[DONE]"."""
    assert data.endswith(b"\n\n")
    out = []
    for block in data.decode().split("\n\n")[:-1]:
        assert block.startswith("data: "), block
        payload = block[6:]
        out.append(payload if payload == "[DONE]" else json.loads(payload))
    return out


# ------------------------------------------------------------------------------------------ intents and locales


@pytest.mark.parametrize(("text", "intent"), [
    ("How did my workouts go this week?", "exercise"),
    ("What is my heart rate?", "vitals"),
    ("Can you recommend a yoga class?", "lessons"),
    ("How do I reset my password?", "help"),
    ("Could these symptoms be diabetes?", "medical"),
    ("我這週的運動做得怎麼樣？", "exercise"),
    ("我的运动进度", "exercise"),
    ("我的心率是多少？", "vitals"),
    ("我的血压", "vitals"),
    ("推薦一些瑜伽課程", "lessons"),
    ("推荐课程", "lessons"),
    ("這個要怎麼用？", "help"),
    ("如何使用", "help"),
    ("我應該吃什麼藥？", "medical"),
    ("我的症状严重吗", "medical"),
    ("hello there", None),
    ("你好", None),
    ("", None),
])
def test_intent_of(text, intent):
    assert local.intent_of(text) == intent


@pytest.mark.parametrize("text", [
    "My squat workout gave me chest pain, is it serious?",
    "Should I take medication before my yoga class?",
    "Can my heart rate scan diagnose a disease?",
    "運動後胸痛，需要看醫生嗎？",
    "我的心率扫描能诊断疾病吗",
])
def test_a_medical_question_wins_over_every_other_intent(text):
    assert local.intent_of(text) == "medical"


def test_intents_are_matched_case_insensitively():
    assert local.intent_of("WORKOUT") == "exercise"
    assert local.intent_of("My HRV?") == "vitals"


@pytest.mark.parametrize(("messages", "locale"), [
    (user("How are my workouts?"), "en"),
    (user("我這週的運動做得怎麼樣？"), "zh-Hant"),
    (user("这个课程怎么样"), "zh-Hans"),
    (user("推薦課程"), "zh-Hant"),
    (user("推荐课程"), "zh-Hans"),
    # The system prompt counts too: an English one does not outweigh a Chinese question.
    ([{"role": "system", "content": "You are a wellness assistant."}, *user("這個課程")], "zh-Hant"),
    # Content parts: their text.
    ([{"role": "user", "content": [{"type": "text", "text": "这个课程"}, {"type": "image_url", "image_url": {}}]}],
     "zh-Hans"),
    ([], "en"),
])
def test_locale_of_reads_the_script(messages, locale):
    assert local.locale_of(messages) == locale


def test_locale_of_follows_the_majority_script():
    assert local.locale_of(user("這個們會") + user("这")) == "zh-Hant"
    assert local.locale_of(user("這") + user("这个们")) == "zh-Hans"


@pytest.mark.parametrize("text", ["我的症状严重吗", "我的心率是多少？"])
def test_a_chinese_text_is_never_answered_in_english(text):
    assert local.locale_of(user(text)) != "en"
    text_answer, _ = local.decide(user(text), None)
    assert text_answer not in (TEXTS["en"]["medical"], TEXTS["en"]["intro"])


# ------------------------------------------------------------------------------------------ the turn's decision


@pytest.mark.parametrize(("question", "tool", "arguments"), [
    ("How did my workouts go this week?", "get_exercise_activity", {}),
    ("What is my heart rate?", "get_latest_vital_scan", {}),
    ("  Which lessons help with balance?  ", "find_lessons", {"goal": "Which lessons help with balance?"}),
    ("How do I reset my password?", "search_help_articles", {"query": "How do I reset my password?"}),
    ("推薦一些瑜伽課程", "find_lessons", {"goal": "推薦一些瑜伽課程"}),
])
def test_decide_calls_the_intents_tool_when_it_is_offered(question, tool, arguments):
    text, call = local.decide(user(question), ALL_TOOLS)
    assert text is None
    assert call["name"] == tool
    assert json.loads(call["arguments"]) == arguments
    # Offered alone, it is called too.
    assert local.decide(user(question), tools_named(tool))[1]["name"] == tool


@pytest.mark.parametrize("question", ["How did my workouts go this week?", "What is my heart rate?",
                                      "Which lessons help with balance?", "How do I reset my password?"])
def test_decide_answers_with_the_introduction_when_the_tool_is_not_offered(question):
    assert local.decide(user(question), None) == (TEXTS["en"]["intro"], None)
    assert local.decide(user(question), []) == (TEXTS["en"]["intro"], None)
    others = [t for t in ALL_TOOLS if t["function"]["name"] != local.decide(user(question), ALL_TOOLS)[1]["name"]]
    assert local.decide(user(question), others) == (TEXTS["en"]["intro"], None)


def test_decide_never_calls_a_tool_for_a_medical_question():
    assert local.decide(user("Is my heart rate a symptom of a disease?"), ALL_TOOLS) == (TEXTS["en"]["medical"], None)
    assert local.decide(user("我的運動會治療糖尿病嗎？"), ALL_TOOLS) == (TEXTS["zh-Hant"]["medical"], None)
    assert local.decide(user("这个药对运动有帮助吗"), ALL_TOOLS) == (TEXTS["zh-Hans"]["medical"], None)


def test_decide_introduces_itself_in_the_conversations_language():
    assert local.decide(user("你好，這個是什麼？"), ALL_TOOLS) == (TEXTS["zh-Hant"]["intro"], None)
    assert local.decide(user("你好，这个是什么？"), ALL_TOOLS) == (TEXTS["zh-Hans"]["intro"], None)


def test_decide_reads_the_last_user_message_and_limits_the_argument():
    messages = [*user("How are my workouts?"), {"role": "assistant", "content": "Fine."}, *user("x " * 300 + "goal")]
    _, call = local.decide(messages, ALL_TOOLS)
    assert call["name"] == "find_lessons"
    assert len(json.loads(call["arguments"])["goal"]) == local.MAX_ARGUMENT_CHARS


EXERCISE = {"sessionsCompleted": 2, "totalReps": 30, "totalMinutes": 5.5, "recentSessions": [
    {"exercise": "squat", "status": "completed", "reps": 15, "formScore": 86.4, "date": "2024-05-01",
     "durationSeconds": 90}]}
VITALS = {"scan": {"measuredAt": "2024-05-02", "heartRateBpm": 72.4, "breathingRatePerMinute": 14, "hrvMs": 48,
                   "oxygenSaturationPercent": 98, "bloodPressureMmHg": {"systolic": 118, "diastolic": 76}}}
LESSONS = {"lessons": [{"title": "Balance Basics", "description": "Stand on one leg."},
                       {"title": "Core Strength", "description": None}]}
ARTICLES = {"articles": [{"title": "Reset your password", "excerpt": "Open Settings.", "url": "https://x.test/ct/1"}]}


def test_answers_from_each_tools_result_in_english():
    answer = local.decide(with_results("How are my workouts?", ("get_exercise_activity", EXERCISE)), ALL_TOOLS)
    assert answer == ("You have completed 2 AI Move sessions: 30 reps and 5.5 minutes of exercise in all. Your most "
                      "recent was squat on 2024-05-01 (completed, 15 reps, form score 86.4). Keep a steady rhythm: a "
                      "few short sessions a week beat one long one.", None)
    answer = local.decide(with_results("My heart rate?", ("get_latest_vital_scan", VITALS)), ALL_TOOLS)
    assert answer == ("Your latest Vital Scan (2024-05-02): heart rate 72.4 bpm, breathing rate 14 per minute, heart "
                      "rate variability 48 ms, oxygen saturation 98%, blood pressure 118/76 mmHg. These are wellness "
                      "estimates from the camera, not medical measurements.", None)
    answer = local.decide(with_results("Balance lessons?", ("find_lessons", LESSONS)), ALL_TOOLS)
    assert answer == ("Lessons that match your goal:\n1. Balance Basics: Stand on one leg.\n2. Core Strength", None)
    answer = local.decide(with_results("Password?", ("search_help_articles", ARTICLES)), ALL_TOOLS)
    assert answer == ("From the help articles:\n1. Reset your password: Open Settings. (https://x.test/ct/1)", None)


@pytest.mark.parametrize(("name", "result", "key"), [
    ("get_exercise_activity", {"sessionsCompleted": 0, "totalReps": 0, "totalMinutes": 0, "recentSessions": []},
     "exercise_none"),
    ("get_latest_vital_scan", {"scan": None}, "vitals_none"),
    ("find_lessons", {"lessons": []}, "lessons_none"),
    ("search_help_articles", {"articles": []}, "help_none"),
    ("get_exercise_activity", {"error": "The data could not be read just now."}, "unavailable"),
    ("find_lessons", {"error": "There is no tool named 'find_lessons'."}, "unavailable"),
    ("search_help_articles", "not json", "unavailable"),
    ("get_latest_vital_scan", [1, 2], "unavailable"),
    ("no_such_tool", {"anything": 1}, "unavailable"),
])
@pytest.mark.parametrize(("question", "locale"), [("How is it?", "en"), ("這個怎麼樣？", "zh-Hant"),
                                                  ("这个怎么样？", "zh-Hans")])
def test_empty_and_failed_results_in_each_locale(name, result, key, question, locale):
    assert local.decide(with_results(question, (name, result)), ALL_TOOLS) == (TEXTS[locale][key], None)


def test_answers_from_results_in_chinese():
    text, _ = local.decide(with_results("我這週的運動做得怎麼樣？", ("get_exercise_activity", EXERCISE)), None)
    assert text == ("你已完成 2 次 AI Move 運動，共 30 次動作、5.5 分鐘。最近一次是 2024-05-01 的 squat（completed，15 次，"
                    "動作分數 86.4）。保持穩定的節奏：每週幾次短時間運動，勝過一次長時間運動。")
    text, _ = local.decide(with_results("我的血压怎么样", ("get_latest_vital_scan", VITALS)), None)
    assert text == ("你最近一次的 Vital Scan（2024-05-02）：心率 72.4 次/分，呼吸 14 次/分，心率变异 48 毫秒，血氧 98%，"
                    "血压 118/76 mmHg。这些是相机估算的健康参考值，并非医疗测量。")
    text, _ = local.decide(with_results("推薦課程", ("find_lessons", LESSONS)), None)
    assert text == "符合你目標的課程：\n1. Balance Basics: Stand on one leg.\n2. Core Strength"
    text, _ = local.decide(with_results("如何重设密码？这个", ("search_help_articles", ARTICLES)), None)
    assert text == "帮助文章：\n1. Reset your password: Open Settings. (https://x.test/ct/1)"


def test_a_scan_without_readings_says_so():
    text, _ = local.decide(with_results("Scan?", ("get_latest_vital_scan", {"scan": {"measuredAt": "2024-05-02"}})), None)
    assert text == ("Your latest Vital Scan (2024-05-02): the scan did not yield a reading. These are wellness "
                    "estimates from the camera, not medical measurements.")


def test_several_results_are_answered_in_order():
    messages = with_results("Workouts and lessons?", ("get_exercise_activity", {"sessionsCompleted": 0}),
                            ("find_lessons", {"lessons": []}))
    assert local.decide(messages, ALL_TOOLS) == (TEXTS["en"]["exercise_none"] + "\n\n" + TEXTS["en"]["lessons_none"],
                                                 None)


# ------------------------------------------------------------------------------------------ pieces and the stream

TEXTS_TO_SPLIT = [
    TEXTS["en"]["intro"], TEXTS["zh-Hant"]["intro"], TEXTS["zh-Hans"]["medical"],
    "Lessons that match your goal:\n1. Balance Basics: Stand on one leg.\n2. Core Strength",
    "  leading and trailing spaces,  doubled  spaces\tand tabs\n\n\nend  ", "one", "", "a\nb\nc d e f g",
    "超長的中文句子沒有任何空格一直寫下去直到超過十二個字元為止然後再多寫一點", "mixed 中文 and English 混合的句子 here",
]


@pytest.mark.parametrize("text", TEXTS_TO_SPLIT)
def test_pieces_keep_the_text_intact(text):
    parts = local.pieces(text)
    assert "".join(parts) == text
    assert all(parts)


def test_pieces_are_a_few_words_or_a_few_chinese_characters():
    english = local.pieces(TEXTS["en"]["intro"])
    assert len(english) > 5
    assert all(len(piece.split()) <= 3 for piece in english)
    chinese = local.pieces("超長的中文句子沒有任何空格一直寫下去直到超過十二個字元為止")
    assert len(chinese) > 1
    assert all(len(piece) <= 8 for piece in chinese)


def _stream(body: dict) -> list:
    return parse_stream(b"".join(local.LocalModel().open_stream(body)))


@pytest.mark.parametrize("include_usage", [False, True])
def test_the_stream_is_openai_chunks_ending_in_done(include_usage):
    body = {"model": "local", "messages": user("What can you do?"), "stream": True}
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    events = _stream(body)
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    ids = {chunk["id"] for chunk in chunks}
    assert len(ids) == 1 and ids.pop().startswith("chatcmpl-")
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk" and chunk["model"] == "local"
        assert isinstance(chunk["created"], int)
    usage_chunks = [chunk for chunk in chunks if "usage" in chunk]
    if include_usage:
        assert usage_chunks == [chunks[-1]]
        assert chunks[-1]["choices"] == []
        usage = chunks[-1]["usage"]
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        assert usage["completion_tokens"] == tokens.estimate(TEXTS["en"]["intro"])
        chunks = chunks[:-1]
    else:
        assert usage_chunks == []
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all(chunk["choices"][0]["finish_reason"] is None for chunk in chunks[:-1])
    text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks)
    assert text == TEXTS["en"]["intro"]
    assert len(chunks) > 3  # streamed in pieces


def test_include_usage_false_sends_no_usage_chunk():
    events = _stream({"messages": user("hi"), "stream_options": {"include_usage": False}})
    assert not any("usage" in chunk for chunk in events[:-1])


def test_a_tool_call_streams_as_one_call_then_finish_reason_tool_calls():
    chunks = _stream({"messages": user("How are my workouts?"), "tools": ALL_TOOLS,
                      "stream_options": {"include_usage": True}})
    assert chunks[-1] == "[DONE]"
    call = chunks[1]["choices"][0]["delta"]["tool_calls"]
    assert len(call) == 1
    assert call[0]["index"] == 0 and call[0]["type"] == "function" and call[0]["id"].startswith("call_")
    assert call[0]["function"] == {"name": "get_exercise_activity", "arguments": "{}"}
    assert chunks[2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[3]["usage"]["completion_tokens"] == tokens.estimate("get_exercise_activity{}")


def test_complete_is_a_chat_completion():
    answer = local.LocalModel().complete({"model": "local", "messages": user("What can you do?")})
    ChatCompletion.model_validate(answer)
    assert answer["object"] == "chat.completion" and answer["model"] == "local" and answer["id"].startswith("chatcmpl-")
    assert answer["choices"] == [{"index": 0, "message": {"role": "assistant", "content": TEXTS["en"]["intro"],
                                                          "refusal": None}, "logprobs": None, "finish_reason": "stop"}]
    usage = answer["usage"]
    assert usage == {"prompt_tokens": tokens.estimate_messages(user("What can you do?")),
                     "completion_tokens": tokens.estimate(TEXTS["en"]["intro"]),
                     "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}


def test_complete_with_a_tool_call():
    answer = local.LocalModel().complete({"messages": user("Which lessons help with balance?"), "tools": ALL_TOOLS})
    choice = answer["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    [call] = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "find_lessons"
    assert json.loads(call["function"]["arguments"]) == {"goal": "Which lessons help with balance?"}
    # The prompt's tool definitions are counted.
    assert answer["usage"]["prompt_tokens"] == tokens.estimate_messages(user("Which lessons help with balance?"),
                                                                        ALL_TOOLS)


@pytest.mark.parametrize("messages", [None, "hi", [1, 2], [{"role": "user", "content": "hi"}, "x"]])
def test_messages_that_are_not_message_objects_are_a_400(messages):
    for call in (local.LocalModel().complete, local.LocalModel().open_stream):
        with pytest.raises(UpstreamError) as caught:
            call({"messages": messages})
        assert caught.value.status == 400


# ------------------------------------------------------------------------------------------ embeddings


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("text", ["balance exercises", "平衡訓練課程", "a", "x " * 500])
@pytest.mark.parametrize("dimensions", [16, 256, 3072])
def test_an_embedding_has_unit_length(text, dimensions):
    vector = local.embedding(text, dimensions)
    assert len(vector) == dimensions
    assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, rel_tol=1e-9)


def test_a_one_dimensional_embedding_of_one_word_is_plus_or_minus_one():
    assert local.embedding("a", 1) in ([1.0], [-1.0])


@pytest.mark.parametrize("text", ["!!!", "😀"])
def test_a_text_without_words_still_has_a_unit_embedding(text):
    vector = local.embedding(text, 256)
    assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, rel_tol=1e-9)


def test_an_embedding_is_deterministic():
    assert local.embedding("Balance exercises for beginners", 256) == local.embedding("Balance exercises for beginners",
                                                                                      256)
    assert local.embedding("BALANCE", 64) == local.embedding("balance", 64)  # words are lower-cased


def test_texts_that_share_words_are_more_similar_than_unrelated_texts():
    query = local.embedding("balance exercises for beginners", 256)
    related = local.embedding("balance exercises for beginners at home", 256)
    unrelated = local.embedding("reset my account password", 256)
    assert cosine(query, related) > 0.6
    assert cosine(query, related) > cosine(query, unrelated) + 0.3
    zh = local.embedding("平衡訓練", 256)
    assert cosine(zh, local.embedding("初學者的平衡訓練", 256)) > cosine(zh, local.embedding("重設密碼", 256)) + 0.3


def test_embed_answers_floats_base64_dimensions_and_lists():
    model = local.LocalModel()
    floats = model.embed({"model": "local", "input": "balance exercises"})
    EmbeddingList.model_validate(floats)
    assert floats["object"] == "list" and floats["model"] == "local"
    assert floats["data"] == [{"object": "embedding", "index": 0,
                               "embedding": local.embedding("balance exercises", local.EMBEDDING_DIMENSIONS)}]
    assert floats["usage"] == {"prompt_tokens": tokens.estimate("balance exercises"),
                               "total_tokens": tokens.estimate("balance exercises")}
    encoded = model.embed({"input": "balance exercises", "encoding_format": "base64"})["data"][0]["embedding"]
    raw = base64.b64decode(encoded)
    assert len(raw) == 4 * local.EMBEDDING_DIMENSIONS
    decoded = struct.unpack(f"<{local.EMBEDDING_DIMENSIONS}f", raw)
    assert all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(decoded, floats["data"][0]["embedding"], strict=True))
    many = model.embed({"input": ["one", "two", "three"], "dimensions": 8})
    assert [item["index"] for item in many["data"]] == [0, 1, 2]
    assert all(len(item["embedding"]) == 8 for item in many["data"])


@pytest.mark.parametrize("body", [
    {"input": [1, 2, 3]}, {"input": [[1, 2], [3]]}, {"input": []}, {"input": None}, {"input": ["ok", 3]},
    {"input": "x", "dimensions": 0}, {"input": "x", "dimensions": 3073}, {"input": "x", "dimensions": True},
    {"input": "x", "dimensions": "8"}, {"input": "x", "encoding_format": "hex"},
])
def test_embed_refuses_what_it_cannot_embed(body):
    with pytest.raises(UpstreamError) as caught:
        local.LocalModel().embed(body)
    assert caught.value.status == 400


# ------------------------------------------------------------------------------------------ token estimates


@pytest.mark.parametrize(("text", "count"), [
    ("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("abcdefgh", 2), ("abcdefghi", 3), (" ", 1),
    ("你好", 2), ("你好嗎？", 4), ("你好ab", 3), ("你好abcde", 4), ("こんにちは", 5), ("ＡＢＣ", 3),
])
def test_estimate(text, count):
    assert tokens.estimate(text) == count


@pytest.mark.parametrize("text", ["a", ".", " ", "\n", "é", "😀", "中"])
def test_a_non_empty_text_is_never_free(text):
    assert tokens.estimate(text) >= 1


def test_estimate_messages_counts_overhead_text_parts_tool_calls_and_tools():
    assert tokens.estimate_messages([]) == 0
    assert tokens.estimate_messages(user("abcd")) == tokens.MESSAGE_OVERHEAD + 1
    assert tokens.estimate_messages([{"role": "assistant", "content": None}]) == tokens.MESSAGE_OVERHEAD
    parts = [{"role": "user", "content": [{"type": "text", "text": "你好"}, {"type": "text", "text": "abcd"}]}]
    assert tokens.estimate_messages(parts) == tokens.MESSAGE_OVERHEAD + tokens.estimate("你好 abcd")
    calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    with_calls = [{"role": "assistant", "content": None, "tool_calls": calls}]
    assert tokens.estimate_messages(with_calls) == tokens.MESSAGE_OVERHEAD + tokens.estimate(json.dumps(calls))
    assert tokens.estimate_messages(user("abcd"), ALL_TOOLS) == (tokens.MESSAGE_OVERHEAD + 1 +
                                                                tokens.estimate(json.dumps(ALL_TOOLS, ensure_ascii=False)))


# ------------------------------------------------------------------------------------------ the SSE splitter

EVENTS = [
    b'data: {"id":"a","choices":[{"delta":{"content":"Hel"}}]}\n\n',
    b": keep-alive comment\n\n",
    b'data: {"id":"b","choices":[{"delta":{"content":"\xe4\xbd\xa0\xe5\xa5\xbd"}}]}\r\n\r\n',
    b"event: message\ndata: line one\ndata: line two\n\n",
    b"data:no-space\r\n\r\n",
    b"data: [DONE]\n\n",
]
STREAM = b"".join(EVENTS)


def split_all(chunks: list[bytes]) -> tuple[list[bytes], bytes]:
    splitter = sse.EventSplitter()
    events = [event for chunk in chunks for event in splitter.feed(chunk)]
    return events, splitter.rest()


def test_the_splitter_cuts_whole_events_at_every_chunk_boundary():
    for cut in range(len(STREAM) + 1):
        assert split_all([STREAM[:cut], STREAM[cut:]]) == (EVENTS, b""), cut
    for cut in range(1, len(STREAM) - 1):  # three pieces, the middle one of one byte
        assert split_all([STREAM[:cut], STREAM[cut:cut + 1], STREAM[cut + 1:]]) == (EVENTS, b""), cut


def test_the_splitter_at_random_chunk_sizes_and_byte_by_byte():
    assert split_all([STREAM[i:i + 1] for i in range(len(STREAM))]) == (EVENTS, b"")
    rng = random.Random(7)
    for _ in range(200):
        chunks, at = [], 0
        while at < len(STREAM):
            size = rng.randint(0, 17)
            chunks.append(STREAM[at:at + size])
            at += size
        assert split_all(chunks) == (EVENTS, b"")


def test_the_splitter_handles_crlf_and_cr_line_ends():
    crlf = b"data: one\r\n\r\ndata: two\r\n\r\n"
    for cut in range(len(crlf) + 1):
        assert split_all([crlf[:cut], crlf[cut:]]) == ([b"data: one\r\n\r\n", b"data: two\r\n\r\n"], b"")
    assert split_all([b"data: one\r\rdata: two\r\r"]) == ([b"data: one\r\r", b"data: two\r\r"], b"")
    assert [sse.data_of(event) for event in split_all([crlf])[0]] == ["one", "two"]


def test_the_splitter_keeps_an_unfinished_event_as_the_rest():
    events, rest = split_all([EVENTS[0], b'data: {"cut'])
    assert events == [EVENTS[0]]
    assert rest == b'data: {"cut'
    splitter = sse.EventSplitter()
    assert splitter.feed(b"data: x") == []
    assert splitter.rest() == b"data: x"
    assert splitter.rest() == b""


def test_the_splitter_refuses_an_endless_event():
    splitter = sse.EventSplitter()
    with pytest.raises(ValueError, match="over 4 MiB"):
        for _ in range(5):
            splitter.feed(b"x" * (1 << 20))


def test_data_of():
    assert [sse.data_of(event) for event in EVENTS] == [
        '{"id":"a","choices":[{"delta":{"content":"Hel"}}]}', None, '{"id":"b","choices":[{"delta":{"content":"你好"}}]}',
        "line one\nline two", "no-space", "[DONE]"]


def test_data_event_and_event():
    assert sse.data_event({"a": "你", "b": [1, 2]}) == 'data: {"a":"你","b":[1,2]}\n\n'.encode()
    assert sse.data_event(sse.DONE) == b"data: [DONE]\n\n"
    assert sse.event("delta", {"text": "hi"}) == b'event: delta\ndata: {"text":"hi"}\n\n'
