"""POST /api/wellness-chat: who may chat, the body, conversations (own only, history, locale, full), the per-user
rate, the client's monthly token budget, the local assistant (no LLM configured) and the daily activity rollup."""

import datetime as dt

import pytest

from support import fake_upstream as fake
from tests.ai_move.conftest import make_exercise, start
from tests.conftest import assert_error, bearer
from wellness_api.ai_move.routes import app as ai_move_app
from wellness_api.assistant import chat as chat_module
from wellness_api.assistant import prompts
from wellness_api.assistant import repository as repo
from wellness_api.assistant.providers.local_texts import TEXTS
from wellness_api.core import auth, clock, tenancy
from wellness_api.core.rollups import day_of

from .conftest import CHAT, CONVERSATIONS, sse_events

UNAVAILABLE_MODULE = "The wellness chat is not enabled for this client."
NOT_FOUND = "Conversation not found."


@pytest.fixture
def local(monkeypatch):
    """No LLM configured: the local assistant answers."""
    monkeypatch.delenv("LLM_BASE_URL", raising=False)
    monkeypatch.delenv("LLM_MODEL", raising=False)


def chat(http, member, message: str = "hi", **fields):
    return http.post(CHAT, json={"message": message, **fields}, headers=member.headers)


def turn(http, member, message: str = "hi", **fields) -> tuple[list[tuple[str, dict]], str]:
    """A turn that ends with done: its events and conversationId."""
    response = chat(http, member, message, **fields)
    assert response.status_code == 200, response.json
    events = sse_events(response.get_data())
    assert events[-1][0] == "done", events
    return events, events[-1][1]["conversationId"]


def answer(events) -> str:
    return "".join(data["text"] for name, data in events if name == "delta")


# ------------------------------------------------------------------------------------------ who may chat


def test_no_or_a_malformed_authorization_header_is_401(http, chatter, local):
    assert_error(http.post(CHAT, json={"message": "hi"}), 401, auth.MISSING_AUTH)
    assert auth.MISSING_AUTH == "Missing or invalid Authorization header"
    for header in ("Basic abc", "Bearer", "Bearer a b", chatter.player.token):
        assert_error(http.post(CHAT, json={"message": "hi"}, headers={"Authorization": header}), 401,
                     "Missing or invalid Authorization header")


def test_an_invalid_token_is_401(http, chatter, local):
    assert_error(http.post(CHAT, json={"message": "hi"}, headers=bearer("not.a.token")), 401, "Invalid or expired token")
    forged = chatter.player.token[:-4] + "AAAA"
    assert_error(http.post(CHAT, json={"message": "hi"}, headers=bearer(forged)), 401, "Invalid or expired token")


def test_identity_is_checked_before_the_body(http, chatter, local):
    assert_error(http.post(CHAT, data="{oops", content_type="application/json"), 401, auth.MISSING_AUTH)
    assert_error(http.post(CHAT, data="x", content_type="text/plain", headers=bearer("bad")), 401, auth.INVALID_TOKEN)


def test_the_module_off_is_403(http, tenant, local):
    assert_error(chat(http, tenant.player), 403, UNAVAILABLE_MODULE)
    assert_error(chat(http, tenant.admin), 403, UNAVAILABLE_MODULE)
    # Before the body is read.
    assert_error(http.post(CHAT, data="{oops", content_type="application/json", headers=tenant.player.headers), 403,
                 UNAVAILABLE_MODULE)
    tenant.configure("modules.wellnessChat=true")
    assert chat(http, tenant.player).status_code == 200
    tenant.configure("modules.wellnessChat=false")
    assert_error(chat(http, tenant.player), 403, UNAVAILABLE_MODULE)


def test_the_admin_of_a_client_may_chat_too(http, chatter, local):
    events, _ = turn(http, chatter.admin, "What can you do?")
    assert answer(events) == TEXTS["en"]["intro"]


# ------------------------------------------------------------------------------------------ the body

BODY_ERRORS = [
    ({}, "Missing required field: message."),
    ({"message": ""}, "Invalid field message: String should have at least 1 character."),
    ({"message": "x" * 4001}, "Invalid field message: String should have at most 4000 characters."),
    ({"message": " \n\t "}, "Invalid field message: the message is blank."),
    ({"message": 5}, "Invalid field message: Input should be a valid string."),
    ({"message": None}, "Invalid field message: Input should be a valid string."),
    ({"message": "a\x00b"}, "Invalid field message: must not contain control characters other than line breaks and tabs."),
    ({"message": "hi", "model": "gpt-4"}, "Unknown field: model."),
    ({"message": "hi", "locale": "fr"}, "Invalid field locale: Input should be 'en', 'zh-Hant' or 'zh-Hans'."),
    ({"message": "hi", "locale": "zh-TW"}, "Invalid field locale: Input should be 'en', 'zh-Hant' or 'zh-Hans'."),
    ({"message": "hi", "conversationId": 5}, "Invalid field conversationId: Input should be a valid string."),
    ({"message": "hi", "conversationId": ["a"]}, "Invalid field conversationId: Input should be a valid string."),
]


@pytest.mark.parametrize(("body", "message"), BODY_ERRORS)
def test_invalid_bodies_are_400(http, chatter, local, body, message):
    assert_error(http.post(CHAT, json=body, headers=chatter.player.headers), 400, message)


def test_a_message_at_the_limits_is_accepted(http, chatter, local):
    turn(http, chatter.player, "x")
    _, conversation_id = turn(http, chatter.player, "y" * 4000, locale=None, conversationId=None)
    stored = repo.get_conversation(chatter.client_id, conversation_id)
    assert len(stored["title"]) == 80 and stored["title"].endswith("…")
    assert repo.messages(chatter.client_id, conversation_id)[0]["content"] == "y" * 4000


def test_a_body_that_is_not_a_json_object_is_400_and_another_content_type_415(http, chatter, local):
    headers = chatter.player.headers
    for data in ("{not json", "[1, 2]", '"hi"', ""):
        assert_error(http.post(CHAT, data=data, content_type="application/json", headers=headers), 400,
                     "Request body must be a JSON object.")
    for content_type in ("text/plain", "application/x-www-form-urlencoded"):
        assert_error(http.post(CHAT, data='{"message": "hi"}', content_type=content_type, headers=headers), 415,
                     "Content-Type must be application/json.")


def test_body_errors_do_not_count_against_the_rate(http, chatter, local):
    chatter.configure("wellnessChat.requestsPerMinute=1")
    _align_to_rate_window()
    for _ in range(3):
        assert http.post(CHAT, json={}, headers=chatter.player.headers).status_code == 400
    assert chat(http, chatter.player).status_code == 200


# ------------------------------------------------------------------------------------------ conversations


def test_another_users_conversation_is_404_and_stays_untouched(http, chatter, local):
    _, theirs = turn(http, chatter.admin, "mine")
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    _, neighbours = turn(http, neighbour, "also mine")
    for conversation_id in (theirs, neighbours):
        assert_error(chat(http, chatter.player, "let me in", conversationId=conversation_id), 404, NOT_FOUND)
        assert repo.get_conversation(chatter.client_id, conversation_id)["messageCount"] == 2
        assert "let me in" not in [m["content"] for m in repo.messages(chatter.client_id, conversation_id)]


def test_another_clients_conversation_is_404(http, chatter, other_tenant, local):
    other_tenant.configure("modules.wellnessChat=true")
    _, elsewhere = turn(http, other_tenant.player, "elsewhere")
    assert_error(chat(http, chatter.player, conversationId=elsewhere), 404, NOT_FOUND)
    # Nor does the id make a conversation in the caller's client.
    assert repo.get_conversation(chatter.client_id, elsewhere) is None
    assert repo.get_conversation(other_tenant.client_id, elsewhere)["messageCount"] == 2


@pytest.mark.parametrize("conversation_id", ["unknown-id", "", "a/b", "..", "x" * 64])
def test_an_unknown_or_invalid_conversation_id_is_404(http, chatter, local, conversation_id):
    assert_error(chat(http, chatter.player, conversationId=conversation_id), 404, NOT_FOUND)


def test_a_conversation_id_longer_than_any_is_400(http, chatter, local):
    assert_error(chat(http, chatter.player, conversationId="x" * 65), 400,
                 "Invalid field conversationId: String should have at most 64 characters.")


def test_a_continued_conversation_sends_its_history_and_the_system_prompt_in_its_locale(http, chatter, upstream):
    upstream.reply(fake.text_stream(["你好！"], reported=fake.usage(10, 2)),
                   fake.text_stream(["再見"], reported=fake.usage(20, 2)),
                   fake.text_stream(["Bye"], reported=fake.usage(30, 2)))
    _, conversation_id = turn(http, chatter.player, "first question", locale="zh-Hant")
    system_zh = {"role": "system", "content": prompts.system_prompt("zh-Hant", chatter.client.name)}
    assert upstream.requests[0]["body"]["messages"] == [system_zh, {"role": "user", "content": "first question"}]
    # No locale: the conversation's.
    turn(http, chatter.player, "second question", conversationId=conversation_id)
    assert upstream.requests[1]["body"]["messages"] == [
        system_zh, {"role": "user", "content": "first question"}, {"role": "assistant", "content": "你好！"},
        {"role": "user", "content": "second question"}]
    # A locale sent switches the conversation's language from now on.
    turn(http, chatter.player, "third", conversationId=conversation_id, locale="en")
    sent = upstream.requests[2]["body"]["messages"]
    assert sent[0] == {"role": "system", "content": prompts.system_prompt("en", chatter.client.name)}
    assert [m["content"] for m in sent[1:]] == ["first question", "你好！", "second question", "再見", "third"]
    assert repo.get_conversation(chatter.client_id, conversation_id)["locale"] == "en"


def test_a_new_conversation_is_in_english_unless_a_locale_is_sent(http, chatter, upstream):
    upstream.reply(fake.text_stream(["a"]), fake.text_stream(["b"]))
    turn(http, chatter.player)
    turn(http, chatter.player, locale="zh-Hans")
    assert upstream.requests[0]["body"]["messages"][0]["content"] == prompts.system_prompt("en", chatter.client.name)
    assert upstream.requests[1]["body"]["messages"][0]["content"] == prompts.system_prompt("zh-Hans", chatter.client.name)


def test_the_history_sent_is_the_latest_messages_only(http, chatter, upstream):
    upstream.reply(fake.text_stream(["first answer"]), fake.text_stream(["ok"]))
    _, conversation_id = turn(http, chatter.player, "first")
    now = clock.now()
    for index in range(3, 31):
        repo.message_ref(chatter.client_id, conversation_id, index).set({
            "index": index, "role": "user" if index % 2 else "assistant", "content": f"m{index}", "createdAt": now})
    repo.conversation_ref(chatter.client_id, conversation_id).update({"messageCount": 30})
    turn(http, chatter.player, "latest", conversationId=conversation_id)
    sent = upstream.requests[1]["body"]["messages"]
    assert sent[0]["role"] == "system"
    assert [m["content"] for m in sent[1:]] == [f"m{i}" for i in range(31 - chat_module.HISTORY_MESSAGES, 31)] + ["latest"]
    assert repo.get_conversation(chatter.client_id, conversation_id)["messageCount"] == 32


def test_a_full_conversation_is_409_before_the_model_is_asked(http, chatter, upstream):
    upstream.reply(fake.text_stream(["a"]), fake.text_stream(["b"]))
    _, conversation_id = turn(http, chatter.player)
    repo.conversation_ref(chatter.client_id, conversation_id).update({"messageCount": 198})
    turn(http, chatter.player, "the last turn that fits", conversationId=conversation_id)
    assert repo.get_conversation(chatter.client_id, conversation_id)["messageCount"] == 200
    response = chat(http, chatter.player, "one more", conversationId=conversation_id)
    assert_error(response, 409, "This conversation has reached 200 messages; start a new one (send no conversationId).")
    assert len(upstream.requests) == 2
    repo.conversation_ref(chatter.client_id, conversation_id).update({"messageCount": 199})
    assert chat(http, chatter.player, conversationId=conversation_id).status_code == 409
    # A new conversation is fine.
    upstream.reply(fake.text_stream(["c"]))
    turn(http, chatter.player)


# ------------------------------------------------------------------------------------------ rate and budget


def _align_to_rate_window() -> None:
    """Move the clock to just after the start of a rate window, so the next requests share one window."""
    now = clock.now()
    clock.advance(dt.timedelta(seconds=60 - now.timestamp() % 60 + 0.2))


def test_the_per_user_rate_limit_is_429_with_retry_after(http, chatter, local):
    chatter.configure("wellnessChat.requestsPerMinute=1")
    _align_to_rate_window()
    turn(http, chatter.player)
    response = chat(http, chatter.player)
    assert response.status_code == 429
    seconds = response.json["retryAfterSeconds"]
    assert isinstance(seconds, int) and 1 <= seconds <= 60
    assert response.json == {"error": f"Too many assistant requests; retry in {seconds} seconds.",
                             "retryAfterSeconds": seconds}
    assert response.headers["Retry-After"] == str(seconds)
    # Another user of the client is not limited by it; reading conversations is not limited.
    turn(http, chatter.admin)
    assert http.get(CONVERSATIONS, headers=chatter.player.headers).status_code == 200
    # The next window admits the user again.
    clock.advance(dt.timedelta(seconds=60))
    turn(http, chatter.player)


def _renewal() -> str:
    now = clock.now().astimezone(dt.UTC)
    return (dt.date(now.year + 1, 1, 1) if now.month == 12 else dt.date(now.year, now.month + 1, 1)).isoformat()


def test_a_zero_budget_refuses_every_chat(http, chatter, local):
    chatter.configure("wellnessChat.monthlyTokenBudget=0")
    for member in (chatter.player, chatter.admin):
        assert_error(chat(http, member), 429,
                     f"The monthly token budget of this client is used up; it renews on {_renewal()}.")
    assert _renewal().endswith("-01")


def test_a_small_budget_is_used_up_by_reported_usage(http, chatter, upstream):
    chatter.configure("wellnessChat.monthlyTokenBudget=100")
    upstream.reply(fake.text_stream(["a"], reported=fake.usage(60, 10)),
                   fake.text_stream(["b"], reported=fake.usage(60, 10)))
    turn(http, chatter.player)  # 70 of 100
    # The request that crosses the budget still finishes.
    events, _ = turn(http, chatter.player)
    assert events[-1][1]["usage"] == {"promptTokens": 60, "completionTokens": 10}
    message = f"The monthly token budget of this client is used up; it renews on {_renewal()}."
    assert_error(chat(http, chatter.player), 429, message)
    # The budget is the client's: every user is refused, and the upstream was not asked again.
    assert_error(chat(http, chatter.admin), 429, message)
    assert len(upstream.requests) == 2
    # Raising it lets them chat again.
    chatter.configure("wellnessChat.monthlyTokenBudget=1000")
    upstream.reply(fake.text_stream(["c"], reported=fake.usage(1, 1)))
    turn(http, chatter.admin)


def test_the_budget_renews_with_the_month(http, chatter, upstream):
    chatter.configure("wellnessChat.monthlyTokenBudget=50")
    upstream.reply(fake.text_stream(["a"], reported=fake.usage(50, 0)), fake.text_stream(["b"]))
    turn(http, chatter.player)
    assert chat(http, chatter.player).status_code == 429
    now = clock.now()
    next_month = dt.datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, 1, tzinfo=dt.UTC)
    clock.advance(next_month - now)
    turn(http, chatter.player)


# ------------------------------------------------------------------------------------------ the local assistant


def _completed(moves, member, exercise_id: str, **values) -> dict:
    session_id = start(moves, member, exercise_id)["sessionId"]
    response = moves.patch(f"/api/ai-move/sessions/{session_id}", json={"status": "completed", **values},
                           headers=member.headers)
    assert response.status_code == 200, response.json
    clock.advance(dt.timedelta(milliseconds=5))
    return moves.get(f"/api/ai-move/sessions/{session_id}", headers=member.headers).json["session"]


@pytest.mark.parametrize("locale", ["en", "zh-Hant", "zh-Hans"])
def test_the_local_assistant_answers_from_the_players_own_data_in_the_locale(http, chatter, local, locale):
    moves = ai_move_app.test_client()
    squats = make_exercise(chatter.client, "rep", name="Squats")
    _completed(moves, chatter.player, squats, repsCompleted=10, durationSeconds=60, formScore=0.8)
    last = _completed(moves, chatter.player, squats, repsCompleted=12, durationSeconds=120, formScore=0.9)
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    _completed(moves, neighbour, squats, repsCompleted=50, durationSeconds=600)

    events, conversation_id = turn(http, chatter.player, "How are my workouts going?", locale=locale)
    assert events[:2] == [("tool", {"name": "get_exercise_activity", "status": "started"}),
                          ("tool", {"name": "get_exercise_activity", "status": "finished"})]
    words = TEXTS[locale]
    detail = words["exercise_reps"].format(reps=12) + words["exercise_form"].format(score="0.9")
    expected = (words["exercise_total"].format(sessions=2, reps="22", minutes="3")
                + words["exercise_last"].format(exercise=squats, date=last["completedAt"][:10], status="completed",
                                                detail=detail)
                + words["exercise_tip"])
    assert answer(events) == expected
    stored = repo.get_conversation(chatter.client_id, conversation_id)
    assert stored["locale"] == locale
    assistant = repo.messages(chatter.client_id, conversation_id)[1]
    assert assistant["content"] == expected and assistant["tools"] == ["get_exercise_activity"]


@pytest.mark.parametrize(("locale", "question"), [
    ("en", "I have chest pain, what disease is it?"),
    ("en", "My workout gave me chest pain. Is it serious?"),
    ("zh-Hant", "我胸痛，是什麼疾病？"),
    ("zh-Hans", "我胸痛，是什么疾病？"),
])
def test_a_medical_question_gets_the_not_a_diagnosis_answer_and_no_tool(http, chatter, local, locale, question):
    events, _ = turn(http, chatter.player, question, locale=locale)
    assert not [event for event in events if event[0] == "tool"]
    assert answer(events) == TEXTS[locale]["medical"]


def test_the_local_assistant_reports_its_usage(http, chatter, local):
    response = chat(http, chatter.player, "What can you do?")
    done = sse_events(response.get_data())[-1][1]
    assert done["usage"]["promptTokens"] > 0 and done["usage"]["completionTokens"] > 0
    record = tenancy.client_ref(chatter.client_id).collection(repo.USAGE).document(
        response.headers["x-request-id"]).get().to_dict()
    assert record["model"] == "local" and record["outcome"] == "completed"
    assert (record["promptTokens"], record["completionTokens"]) == (done["usage"]["promptTokens"],
                                                                    done["usage"]["completionTokens"])


# ------------------------------------------------------------------------------------------ daily activity


def _activity(tenant, day: str) -> dict:
    return repo.ACTIVITY.daily(tenant.client_id, day, day).get(day, {})


def test_the_daily_rollup_counts_chats_messages_and_each_active_user_once(http, chatter, local):
    today = day_of(clock.now())
    _, first = turn(http, chatter.player, "hello")
    assert {k: _activity(chatter, today)[k] for k in ("chats", "messages", "activeUsers")} == \
        {"chats": 1, "messages": 1, "activeUsers": 1}
    turn(http, chatter.player, "again", conversationId=first)
    turn(http, chatter.player, "a new chat")
    turn(http, chatter.admin, "the admin's chat")
    counts = _activity(chatter, today)
    assert {k: counts[k] for k in ("chats", "messages", "activeUsers")} == {"chats": 3, "messages": 4, "activeUsers": 2}
    conversations = [repo.get_conversation(chatter.client_id, c["conversationId"]) for member in (chatter.player,
                     chatter.admin) for c in repo.user_conversations(chatter.client_id, member.uid, 10, None)[0]]
    assert counts["promptTokens"] == sum(c["promptTokens"] for c in conversations) > 0
    assert counts["completionTokens"] == sum(c["completionTokens"] for c in conversations) > 0
    # A refused request counts nothing.
    assert http.post(CHAT, json={}, headers=chatter.player.headers).status_code == 400
    assert_error(chat(http, chatter.player, conversationId="nope"), 404, NOT_FOUND)
    assert {k: _activity(chatter, today)[k] for k in ("chats", "messages", "activeUsers")} == \
        {"chats": 3, "messages": 4, "activeUsers": 2}
    # The next day the same user is active again.
    clock.advance(dt.timedelta(days=1))
    tomorrow = day_of(clock.now())
    turn(http, chatter.player, "next day", conversationId=first)
    counts = _activity(chatter, tomorrow)
    assert {k: counts[k] for k in ("chats", "messages", "activeUsers")} == {"chats": 0, "messages": 1, "activeUsers": 1}
