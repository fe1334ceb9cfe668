"""The caller's wellness-chat conversations: list (own only, most recently active first, paged), read, delete.
Conversations are made by real chat turns with the local assistant (no LLM configured)."""

import datetime as dt
import re

import pytest

from tests.conftest import assert_error, bearer
from wellness_api.assistant import repository as repo
from wellness_api.assistant.providers.local_texts import TEXTS
from wellness_api.core import auth, clock, tenancy

from .conftest import CHAT, CONVERSATIONS, sse_events

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
NOT_FOUND = "Conversation not found."
INVALID_CURSOR = "startAfter must be a conversationId of one of your conversations."
MODULE_OFF = "The wellness chat is not enabled for this client."


@pytest.fixture(autouse=True)
def local(monkeypatch):
    monkeypatch.delenv("LLM_BASE_URL", raising=False)
    monkeypatch.delenv("LLM_MODEL", raising=False)


def say(http, member, message: str = "What can you do?", **fields) -> tuple[str, dict]:
    """One turn; the conversationId and the done event's data. The clock moves on, so turns sort by time."""
    response = http.post(CHAT, json={"message": message, **fields}, headers=member.headers)
    assert response.status_code == 200, response.json
    name, done = sse_events(response.get_data())[-1]
    assert name == "done", done
    clock.advance(dt.timedelta(milliseconds=5))
    return done["conversationId"], done


def listing(http, member, query: str = "") -> dict:
    response = http.get(f"{CONVERSATIONS}{query}", headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json


def ids(page: dict) -> list[str]:
    return [c["conversationId"] for c in page["conversations"]]


# ------------------------------------------------------------------------------------------ list


def test_a_new_user_has_no_conversations(http, chatter):
    assert listing(http, chatter.player) == {"conversations": [], "nextStartAfter": None}


def test_the_list_is_the_callers_own_most_recently_active_first(http, chatter, other_tenant):
    first, done = say(http, chatter.player, "How are my workouts going?")
    second, _ = say(http, chatter.player, "Hello there", locale="zh-Hant")
    theirs, _ = say(http, chatter.admin)
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    say(http, neighbour)
    other_tenant.configure("modules.wellnessChat=true")
    say(http, other_tenant.player)

    page = listing(http, chatter.player)
    assert ids(page) == [second, first] and page["nextStartAfter"] is None
    newest, oldest = page["conversations"]
    assert oldest["title"] == "How are my workouts going?" and oldest["locale"] == "en"
    assert oldest["messageCount"] == 2 and oldest["usage"] == done["usage"]
    assert ISO_Z.match(oldest["createdAt"]) and ISO_Z.match(oldest["updatedAt"])
    assert oldest["createdAt"] <= oldest["updatedAt"] < newest["updatedAt"]
    assert newest["title"] == "Hello there" and newest["locale"] == "zh-Hant"
    assert set(newest) == {"conversationId", "title", "locale", "messageCount", "usage", "createdAt", "updatedAt"}

    # Continuing the older one makes it the most recently active.
    say(http, chatter.player, "and now?", conversationId=first)
    page = listing(http, chatter.player)
    assert ids(page) == [first, second]
    assert page["conversations"][0]["messageCount"] == 4
    assert page["conversations"][0]["title"] == "How are my workouts going?"
    assert page["conversations"][0]["createdAt"] == oldest["createdAt"]
    assert page["conversations"][0]["updatedAt"] > newest["updatedAt"]
    # The admin is a member too, with conversations of their own.
    assert ids(listing(http, chatter.admin)) == [theirs]


def test_the_list_pages_with_limit_and_start_after(http, chatter):
    made = [say(http, chatter.player, f"question {i}")[0] for i in range(5)]
    newest_first = list(reversed(made))
    page = listing(http, chatter.player, "?limit=2")
    assert ids(page) == newest_first[:2] and page["nextStartAfter"] == newest_first[1]
    page = listing(http, chatter.player, f"?limit=2&startAfter={page['nextStartAfter']}")
    assert ids(page) == newest_first[2:4] and page["nextStartAfter"] == newest_first[3]
    page = listing(http, chatter.player, f"?limit=2&startAfter={page['nextStartAfter']}")
    assert ids(page) == newest_first[4:] and page["nextStartAfter"] is None
    # A page that ends exactly at the last one says so.
    assert listing(http, chatter.player, "?limit=5")["nextStartAfter"] is None
    assert listing(http, chatter.player, f"?startAfter={newest_first[-1]}") == {"conversations": [],
                                                                                "nextStartAfter": None}
    assert ids(listing(http, chatter.player, "?limit=100")) == newest_first
    # The default page is 20.
    assert ids(listing(http, chatter.player)) == newest_first


def test_an_invalid_start_after_is_400(http, chatter, other_tenant):
    mine, _ = say(http, chatter.player)
    theirs, _ = say(http, chatter.admin)
    other_tenant.configure("modules.wellnessChat=true")
    elsewhere, _ = say(http, other_tenant.player)
    for cursor in ("unknown", theirs, elsewhere, "a/b", "..", "x" * 64):
        response = http.get(CONVERSATIONS, query_string={"startAfter": cursor}, headers=chatter.player.headers)
        assert_error(response, 400, INVALID_CURSOR)
    response = http.get(CONVERSATIONS, query_string={"startAfter": "x" * 65}, headers=chatter.player.headers)
    assert_error(response, 400, "Invalid field startAfter: String should have at most 64 characters.")
    assert ids(listing(http, chatter.player, f"?startAfter={mine}")) == []


@pytest.mark.parametrize(("limit", "message"), [
    ("0", "Invalid field limit: Input should be greater than or equal to 1."),
    ("101", "Invalid field limit: Input should be less than or equal to 100."),
    ("-1", "Invalid field limit: Input should be greater than or equal to 1."),
    ("abc", "Invalid field limit: Input should be a valid integer."),
    ("1.5", "Invalid field limit: Input should be a valid integer."),
    ("", "Invalid field limit: Input should be a valid integer."),
])
def test_an_invalid_limit_is_400(http, chatter, limit, message):
    response = http.get(CONVERSATIONS, query_string={"limit": limit}, headers=chatter.player.headers)
    assert_error(response, 400, message)


# ------------------------------------------------------------------------------------------ read


def test_a_conversation_reads_back_with_its_messages_in_order(http, chatter):
    conversation_id, first = say(http, chatter.player, "How are my workouts going?")
    _, second = say(http, chatter.player, "I have chest pain, what disease is it?", conversationId=conversation_id)
    response = http.get(f"{CONVERSATIONS}/{conversation_id}", headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    detail = response.json
    assert detail["conversation"] == listing(http, chatter.player)["conversations"][0]
    assert detail["conversation"]["usage"] == {
        "promptTokens": first["usage"]["promptTokens"] + second["usage"]["promptTokens"],
        "completionTokens": first["usage"]["completionTokens"] + second["usage"]["completionTokens"]}
    messages = detail["messages"]
    for message in messages:
        assert ISO_Z.match(message.pop("createdAt"))
    assert messages == [
        {"index": 1, "role": "user", "content": "How are my workouts going?"},
        {"index": 2, "role": "assistant", "content": TEXTS["en"]["exercise_none"], "tools": ["get_exercise_activity"],
         "interrupted": False},
        {"index": 3, "role": "user", "content": "I have chest pain, what disease is it?"},
        {"index": 4, "role": "assistant", "content": TEXTS["en"]["medical"], "tools": [], "interrupted": False},
    ]


def test_another_users_or_clients_conversation_is_404(http, chatter, other_tenant):
    mine, _ = say(http, chatter.player)
    theirs, _ = say(http, chatter.admin)
    other_tenant.configure("modules.wellnessChat=true")
    elsewhere, _ = say(http, other_tenant.player)
    assert_error(http.get(f"{CONVERSATIONS}/{theirs}", headers=chatter.player.headers), 404, NOT_FOUND)
    assert_error(http.get(f"{CONVERSATIONS}/{mine}", headers=chatter.admin.headers), 404, NOT_FOUND)
    assert_error(http.get(f"{CONVERSATIONS}/{elsewhere}", headers=chatter.player.headers), 404, NOT_FOUND)
    assert_error(http.get(f"{CONVERSATIONS}/{mine}", headers=other_tenant.player.headers), 404, NOT_FOUND)
    assert_error(http.get(f"{CONVERSATIONS}/unknown", headers=chatter.player.headers), 404, NOT_FOUND)
    assert http.get(f"{CONVERSATIONS}/{theirs}", headers=chatter.admin.headers).status_code == 200


# ------------------------------------------------------------------------------------------ delete


def test_delete_removes_the_conversation_and_its_messages_but_not_the_usage(http, chatter):
    conversation_id, _ = say(http, chatter.player)
    say(http, chatter.player, "more", conversationId=conversation_id)
    kept, _ = say(http, chatter.player)
    usage = list(tenancy.client_ref(chatter.client_id).collection(repo.USAGE).stream())
    assert len(usage) == 3
    response = http.delete(f"{CONVERSATIONS}/{conversation_id}", headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    assert response.json == {"success": True, "conversationId": conversation_id}
    assert_error(http.get(f"{CONVERSATIONS}/{conversation_id}", headers=chatter.player.headers), 404, NOT_FOUND)
    assert repo.get_conversation(chatter.client_id, conversation_id) is None
    assert list(repo.conversation_ref(chatter.client_id, conversation_id).collection(repo.MESSAGES).stream()) == []
    assert ids(listing(http, chatter.player)) == [kept]
    assert len(list(tenancy.client_ref(chatter.client_id).collection(repo.USAGE).stream())) == 3
    # Gone: deleting again, or continuing it, is 404.
    assert_error(http.delete(f"{CONVERSATIONS}/{conversation_id}", headers=chatter.player.headers), 404, NOT_FOUND)
    assert_error(http.post(CHAT, json={"message": "hi", "conversationId": conversation_id},
                           headers=chatter.player.headers), 404, NOT_FOUND)


def test_another_users_or_clients_conversation_cannot_be_deleted(http, chatter, other_tenant):
    mine, _ = say(http, chatter.player)
    other_tenant.configure("modules.wellnessChat=true")
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    for member in (chatter.admin, neighbour, other_tenant.player, other_tenant.admin):
        assert_error(http.delete(f"{CONVERSATIONS}/{mine}", headers=member.headers), 404, NOT_FOUND)
    assert http.get(f"{CONVERSATIONS}/{mine}", headers=chatter.player.headers).json["conversation"]["messageCount"] == 2


# ------------------------------------------------------------------------------------------ who may call


def _all_routes(conversation_id: str):
    return [("get", CONVERSATIONS), ("get", f"{CONVERSATIONS}/{conversation_id}"),
            ("delete", f"{CONVERSATIONS}/{conversation_id}")]


def test_every_conversation_route_needs_a_valid_id_token(http, chatter):
    conversation_id, _ = say(http, chatter.player)
    for method, path in _all_routes(conversation_id):
        assert_error(getattr(http, method)(path), 401, auth.MISSING_AUTH)
        assert_error(getattr(http, method)(path, headers={"Authorization": "Basic abc"}), 401, auth.MISSING_AUTH)
        assert_error(getattr(http, method)(path, headers=bearer("not.a.token")), 401, auth.INVALID_TOKEN)
    assert repo.get_conversation(chatter.client_id, conversation_id) is not None


def test_every_conversation_route_is_403_with_the_module_off(http, chatter):
    conversation_id, _ = say(http, chatter.player)
    chatter.configure("modules.wellnessChat=false")
    for method, path in _all_routes(conversation_id):
        assert_error(getattr(http, method)(path, headers=chatter.player.headers), 403, MODULE_OFF)
    chatter.configure("modules.wellnessChat=true")
    assert ids(listing(http, chatter.player)) == [conversation_id]


def test_the_title_is_the_first_message_on_one_line(http, chatter):
    conversation_id, _ = say(http, chatter.player, "  Line one\n\tline two  ")
    say(http, chatter.player, "A different second message", conversationId=conversation_id)
    assert listing(http, chatter.player)["conversations"][0]["title"] == "Line one line two"
    long_id, _ = say(http, chatter.player, "word " * 40)
    title = http.get(f"{CONVERSATIONS}/{long_id}", headers=chatter.player.headers).json["conversation"]["title"]
    assert len(title) == 80 and title == ("word " * 16).strip()[:79] + "…"
