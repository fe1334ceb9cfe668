"""The demo data of `platformctl seed` for the assistant: the demo player's conversation, answered by the real chat
path with the local model and its tools, and the completed demo Vital Scan the chat's Vital Scan tool reads."""

from wellness_api.assistant import demo, tools
from wellness_api.assistant import repository as repo
from wellness_api.core import tenancy
from wellness_api.lessons import demo as lessons_demo
from wellness_api.vital_scan import demo as vital_scan_demo
from wellness_api.vital_scan import repository as vital_scan_repo

from .conftest import CHAT, CONVERSATIONS, sse_events


def usage_records(tenant) -> list[dict]:
    return [snap.to_dict() for snap in tenancy.client_ref(tenant.client_id).collection(repo.USAGE).stream()]


def test_seed_makes_the_demo_conversation_with_two_tool_answers(http, chatter):
    demo.seed(chatter.client)
    stored = repo.get_conversation(chatter.client_id, demo.CONVERSATION_ID)
    assert stored is not None
    assert stored["uid"] == chatter.player.uid and stored["messageCount"] == 4 and stored["locale"] == "en"
    assert stored["title"] == "How are my workouts going?"
    messages = repo.messages(chatter.client_id, demo.CONVERSATION_ID)
    assert [(m["index"], m["role"]) for m in messages] == [(1, "user"), (2, "assistant"), (3, "user"), (4, "assistant")]
    assert [m["content"] for m in messages if m["role"] == "user"] == list(demo.MESSAGES)
    first, second = (m for m in messages if m["role"] == "assistant")
    assert first["tools"] == ["get_exercise_activity"] and first["interrupted"] is False
    assert second["tools"] == ["find_lessons"] and second["interrupted"] is False
    # No AI Move session and no lesson yet: the answers say so, from the tools' results.
    assert first["content"] == "You have no completed AI Move sessions yet. A short squat session is a good way to start."
    assert second["content"].startswith("I found no lesson matching that goal.")
    records = usage_records(chatter)
    assert sorted(r["requestId"] for r in records) == [f"seed-{demo.CONVERSATION_ID}-0", f"seed-{demo.CONVERSATION_ID}-1"]
    assert all(r["kind"] == "chat" and r["outcome"] == "completed" and r["conversationId"] == demo.CONVERSATION_ID
               for r in records)
    # The player reads it like any conversation of theirs.
    response = http.get(f"{CONVERSATIONS}/{demo.CONVERSATION_ID}", headers=chatter.player.headers)
    assert response.status_code == 200, response.json
    assert response.json["conversation"]["messageCount"] == 4
    assert [m["tools"] for m in response.json["messages"] if m["role"] == "assistant"] == [
        ["get_exercise_activity"], ["find_lessons"]]
    listed = http.get(CONVERSATIONS, headers=chatter.player.headers).json["conversations"]
    assert [c["conversationId"] for c in listed] == [demo.CONVERSATION_ID]


def test_a_second_seed_changes_nothing(chatter):
    demo.seed(chatter.client)
    before = repo.get_conversation(chatter.client_id, demo.CONVERSATION_ID)
    before_messages = repo.messages(chatter.client_id, demo.CONVERSATION_ID)
    demo.seed(tenancy.get_client(chatter.client_id))
    assert repo.get_conversation(chatter.client_id, demo.CONVERSATION_ID) == before
    assert repo.messages(chatter.client_id, demo.CONVERSATION_ID) == before_messages
    assert len(usage_records(chatter)) == 2


def test_seed_answers_from_the_demo_lessons(chatter):
    lessons_demo.seed(chatter.client)
    demo.seed(chatter.client)
    answer = repo.messages(chatter.client_id, demo.CONVERSATION_ID)[3]
    assert answer["tools"] == ["find_lessons"]
    assert answer["content"].startswith("Lessons that match your goal:\n1. ")


def test_seed_makes_the_conversation_again_once_it_is_deleted(http, chatter):
    demo.seed(chatter.client)
    response = http.delete(f"{CONVERSATIONS}/{demo.CONVERSATION_ID}", headers=chatter.player.headers)
    assert response.status_code == 200
    assert repo.get_conversation(chatter.client_id, demo.CONVERSATION_ID) is None
    demo.seed(chatter.client)
    assert repo.get_conversation(chatter.client_id, demo.CONVERSATION_ID)["messageCount"] == 4


def test_seed_does_nothing_while_the_chat_is_off(tenant):
    demo.seed(tenant.client)
    assert repo.get_conversation(tenant.client_id, demo.CONVERSATION_ID) is None
    assert usage_records(tenant) == []


def test_without_ai_move_the_first_answer_uses_no_tool(tenant):
    tenant.configure("modules.wellnessChat=true")
    demo.seed(tenant.client)
    first, second = (m for m in repo.messages(tenant.client_id, demo.CONVERSATION_ID) if m["role"] == "assistant")
    assert first["tools"] == [] and first["content"].startswith("I'm your wellness assistant.")
    assert second["tools"] == ["find_lessons"]


def test_the_vital_scan_demo_is_a_completed_scan_near_72_bpm(chatter):
    vital_scan_demo.seed(chatter.client)
    session = vital_scan_repo.read_session(chatter.client_id, vital_scan_demo.SESSION_ID)
    assert session is not None
    assert session["status"] == "completed" and session["userId"] == chatter.player.uid
    assert session["completedAt"] > session["startedAt"]
    assert abs(session["metrics"]["hr"] - 72) <= 3, session["metrics"]
    # A second run changes nothing.
    vital_scan_demo.seed(tenancy.get_client(chatter.client_id))
    assert vital_scan_repo.read_session(chatter.client_id, vital_scan_demo.SESSION_ID) == session
    # It is what the chat's Vital Scan tool reads for the player.
    found = tools.latest_vital_scan(tools.Context(chatter.client, chatter.player.uid, "en"), {})
    assert abs(found["scan"]["heartRateBpm"] - 72) <= 3
    assert found["scan"]["measuredAt"] == session["completedAt"].strftime("%Y-%m-%d")


def test_the_chat_answers_with_the_demo_scan(http, chatter):
    vital_scan_demo.seed(chatter.client)
    response = http.post(CHAT, json={"message": "What is my heart rate?"}, headers=chatter.player.headers)
    assert response.status_code == 200
    events = sse_events(response.get_data())
    assert ("tool", {"name": "get_latest_vital_scan", "status": "started"}) in events
    text = "".join(data["text"] for name, data in events if name == "delta")
    assert text.startswith("Your latest Vital Scan (")
    hr = vital_scan_repo.read_session(chatter.client_id, vital_scan_demo.SESSION_ID)["metrics"]["hr"]
    shown = f"{hr:.1f}" if isinstance(hr, float) and not hr.is_integer() else str(int(hr))
    assert f"heart rate {shown} bpm" in text, (text, hr)
    assert events[-1][0] == "done"

