"""The assistant's tools read only the signed-in user's own data in their own client, whatever the model asks:
AI Move activity, the latest Vital Scan (minimal vital signs only), the client's live lessons and its help
articles. Tools of modules the client has off are not offered. The model is the fake upstream, which calls the
tool; what the tool returned is read from the tool message of the next upstream request."""

import datetime as dt
import json
import uuid

from support import fake_upstream as fake
from tests.ai_move.conftest import make_exercise, start
from wellness_api.ai_move.routes import app as ai_move_app
from wellness_api.content import service as content
from wellness_api.content.models import CreateContentBody
from wellness_api.core import clock, config, tenancy
from wellness_api.lessons import service as lessons
from wellness_api.lessons.models import CreateLessonBody
from wellness_api.vital_scan import repository as vital_scan_repo

from .conftest import CHAT, sse_events

ALL_TOOLS = ["get_exercise_activity", "get_latest_vital_scan", "find_lessons", "search_help_articles"]
VITAL_KEYS = {"heartRateBpm", "breathingRatePerMinute", "hrvMs", "oxygenSaturationPercent", "bloodPressureMmHg",
              "measuredAt"}


def tool_result(http, upstream, member, tool: str, arguments: str = "{}", **fields) -> dict:
    """Have the model call `tool` for `member`; the tool's result as the model received it."""
    seen = len(upstream.requests)
    upstream.reply(fake.tool_stream(tool, arguments), fake.text_stream(["ok"], reported=fake.usage(1, 1)))
    response = http.post(CHAT, json={"message": "tell me", **fields}, headers=member.headers)
    assert response.status_code == 200, response.json
    events = sse_events(response.get_data())
    assert events[:2] == [("tool", {"name": tool, "status": "started"}), ("tool", {"name": tool, "status": "finished"})]
    assert events[-1][0] == "done", events
    sent = upstream.requests[seen + 1]["body"]
    message = sent["messages"][-1]
    assert message["role"] == "tool"
    return json.loads(message["content"])


def sent_text(upstream) -> str:
    """Everything the platform told the model (system, user and tool messages), as one text; the model's own
    tool calls are left out, since they echo what the model asked for."""
    return json.dumps([[m for m in sent["body"]["messages"] if m["role"] != "assistant"] for sent in upstream.requests],
                      ensure_ascii=False)


def offered(upstream, index: int = 0) -> list[str]:
    return [tool["function"]["name"] for tool in upstream.requests[index]["body"].get("tools") or []]


# ------------------------------------------------------------------------------------------ AI Move


def finished_session(moves, member, exercise_id: str, status: str = "completed", **values) -> dict:
    session_id = start(moves, member, exercise_id)["sessionId"]
    response = moves.patch(f"/api/ai-move/sessions/{session_id}", json={"status": status, **values},
                           headers=member.headers)
    assert response.status_code == 200, response.json
    clock.advance(dt.timedelta(milliseconds=5))
    return moves.get(f"/api/ai-move/sessions/{session_id}", headers=member.headers).json["session"]


def test_exercise_activity_is_the_callers_own_sessions_only(http, chatter, other_tenant, upstream):
    moves = ai_move_app.test_client()
    squats = make_exercise(chatter.client, "rep", name="Squats")
    mine = finished_session(moves, chatter.player, squats, repsCompleted=10, durationSeconds=60, formScore=0.8)
    latest = finished_session(moves, chatter.player, squats, repsCompleted=12, durationSeconds=120, formScore=0.9)
    failed = finished_session(moves, chatter.player, squats, status="failed", repsCompleted=3, durationSeconds=30)
    start(moves, chatter.player, squats)  # in progress: says nothing yet
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    theirs = finished_session(moves, neighbour, squats, repsCompleted=99, durationSeconds=600, formScore=0.1)
    other_tenant.configure("modules.aiMove=true", "modules.wellnessChat=true")
    elsewhere = make_exercise(other_tenant.client, "rep", name="Lunges")
    far = finished_session(moves, other_tenant.player, elsewhere, repsCompleted=77, durationSeconds=300)

    # Arguments naming another user or client change nothing: the tool takes no ids.
    result = tool_result(http, upstream, chatter.player, "get_exercise_activity",
                         json.dumps({"userId": neighbour.uid, "clientId": other_tenant.client_id}))
    assert result == {
        "sessionsCompleted": 2, "totalReps": 22, "totalMinutes": 3.0,
        "recentSessions": [
            {"exercise": squats, "status": "failed", "reps": 3, "durationSeconds": 30, "formScore": None,
             "date": (failed["completedAt"] or failed["createdAt"])[:10]},
            {"exercise": squats, "status": "completed", "reps": 12, "durationSeconds": 120, "formScore": 0.9,
             "date": latest["completedAt"][:10]},
            {"exercise": squats, "status": "completed", "reps": 10, "durationSeconds": 60, "formScore": 0.8,
             "date": mine["completedAt"][:10]},
        ],
    }
    text = sent_text(upstream)
    for foreign in (neighbour.uid, theirs["sessionId"], far["sessionId"], elsewhere, other_tenant.client_id,
                    mine["sessionId"], chatter.player.uid):
        assert foreign not in text  # no ids at all: not the caller's own either

    # The neighbour's tool reads the neighbour's sessions.
    assert tool_result(http, upstream, neighbour, "get_exercise_activity")["totalReps"] == 99
    assert tool_result(http, upstream, other_tenant.player, "get_exercise_activity")["totalReps"] == 77


def test_exercise_activity_shows_the_three_latest_finished_sessions(http, chatter, upstream):
    moves = ai_move_app.test_client()
    squats = make_exercise(chatter.client, "rep", name="Squats")
    for reps in (1, 2, 3, 4):
        finished_session(moves, chatter.player, squats, repsCompleted=reps)
    finished_session(moves, chatter.player, squats, status="abandoned", repsCompleted=5)
    result = tool_result(http, upstream, chatter.player, "get_exercise_activity")
    assert result["sessionsCompleted"] == 4 and result["totalReps"] == 10
    assert [(s["status"], s["reps"]) for s in result["recentSessions"]] == [("abandoned", 5), ("completed", 4),
                                                                           ("completed", 3)]


# ------------------------------------------------------------------------------------------ Vital Scan


def write_scan(client_id: str, user_id: str, completed_at: dt.datetime, metrics: dict, *, status: str = "completed",
               deleted: bool = False) -> str:
    """A Vital Scan session document as the demo seed writes one."""
    session_id = f"scan-{uuid.uuid4().hex[:12]}"
    started = completed_at - dt.timedelta(minutes=1)
    vital_scan_repo.session_ref(client_id, session_id).set({
        "vitalScanResultId": session_id, "clientId": client_id, "userId": user_id, "locale": "en",
        "returnUrl": None, "status": status, "createdAt": started, "updatedAt": completed_at,
        "expiresAt": started + dt.timedelta(hours=1), "startedAt": started,
        "completedAt": completed_at if status == "completed" else None, "failedAt": None, "error": None,
        "metrics": metrics, "deleted": deleted, "deletedAt": None, "lastPolledAt": None, "scanTokenHash": None,
        "keyId": None,
    })
    return session_id


FULL_METRICS = {
    "hr": 71, "rr": 14, "hrv": 48.5, "spo2": 98, "sbp": 118, "dbp": 76,
    # Everything else a scan stores never reaches the model.
    "si": 1.2, "wellness_score": 7, "hemoglobin": 14.1, "cardiovascular_age": 33, "afib": "none",
    "hrv_indices": {"SDNN": 40, "RMSSD": 35}, "HbA1c": {"value": 5.2, "risk": 1}, "cholesterol": {"value": 180},
    "cvd_risk": {"points": 3, "percentage": 2.5}, "ANSIndex": {"PNS": 1, "SNS": 2},
}


def test_latest_vital_scan_is_the_callers_latest_completed_scan_with_minimal_vital_signs(
        http, chatter, other_tenant, upstream):
    now = clock.now()
    me = chatter.player.uid
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    write_scan(chatter.client_id, me, now - dt.timedelta(days=3), {**FULL_METRICS, "hr": 60})
    mine = now - dt.timedelta(days=1)
    write_scan(chatter.client_id, me, mine, FULL_METRICS)
    # Newer, but not the caller's latest completed one: deleted, still running, another user's, another client's.
    write_scan(chatter.client_id, me, now - dt.timedelta(hours=1), {**FULL_METRICS, "hr": 111}, deleted=True)
    write_scan(chatter.client_id, me, now - dt.timedelta(hours=1), {"hr": 112}, status="measuring")
    write_scan(chatter.client_id, neighbour.uid, now - dt.timedelta(minutes=5), {**FULL_METRICS, "hr": 113})
    write_scan(other_tenant.client_id, me, now - dt.timedelta(minutes=5), {**FULL_METRICS, "hr": 114})

    result = tool_result(http, upstream, chatter.player, "get_latest_vital_scan", json.dumps({"userId": neighbour.uid}))
    assert result == {"scan": {
        "measuredAt": clock.iso(mine)[:10], "heartRateBpm": 71, "breathingRatePerMinute": 14, "hrvMs": 48.5,
        "oxygenSaturationPercent": 98, "bloodPressureMmHg": {"systolic": 118, "diastolic": 76},
    }}
    assert set(result["scan"]) <= VITAL_KEYS
    text = sent_text(upstream)
    for private in ("wellness_score", "hemoglobin", "HbA1c", "cholesterol", "afib", "SDNN", "cvd_risk", "ANSIndex",
                    "cardiovascular_age", '"si"', neighbour.uid):
        assert private not in text
    assert tool_result(http, upstream, neighbour, "get_latest_vital_scan")["scan"]["heartRateBpm"] == 113


def test_a_user_without_a_completed_scan_has_none(http, chatter, upstream):
    write_scan(chatter.client_id, chatter.player.uid, clock.now(), {"hr": 70}, status="failed")
    assert tool_result(http, upstream, chatter.player, "get_latest_vital_scan") == {"scan": None}


def test_partial_readings_give_only_what_was_measured(http, chatter, upstream):
    write_scan(chatter.client_id, chatter.player.uid, clock.now(), {"hr": 80, "sbp": 120, "wellness_score": 5})
    scan = tool_result(http, upstream, chatter.player, "get_latest_vital_scan")["scan"]
    # Blood pressure needs both numbers.
    assert set(scan) == {"measuredAt", "heartRateBpm"} and scan["heartRateBpm"] == 80


def test_the_members_external_user_id_is_preferred_for_vital_scan(http, chatter, upstream):
    me = chatter.player.uid
    external = f"partner-{uuid.uuid4().hex[:8]}"
    tenancy.user_ref(chatter.client_id, me).set({"externalUserId": external}, merge=True)
    now = clock.now()
    write_scan(chatter.client_id, me, now - dt.timedelta(minutes=1), {"hr": 90})
    write_scan(chatter.client_id, external, now - dt.timedelta(hours=2), {"hr": 65})
    assert tool_result(http, upstream, chatter.player, "get_latest_vital_scan")["scan"]["heartRateBpm"] == 65
    # A member without an external id is read by their uid (the neighbour has no scan).
    neighbour = chatter.add_member(tenancy.ROLE_PLAYER)
    assert tool_result(http, upstream, neighbour, "get_latest_vital_scan") == {"scan": None}


# ------------------------------------------------------------------------------------------ lessons and help


def make_lesson(tenant, title: dict, description: dict | None = None, live: bool = True) -> str:
    body = CreateLessonBody.model_validate({"title": title, "isLive": live,
                                            **({"description": description} if description else {})})
    return lessons.create_lesson(tenant.client, body, "test")


def test_find_lessons_reads_the_callers_client_live_lessons_only(http, chatter, other_tenant, upstream):
    make_lesson(chatter, {"en": "Balance basics", "zh_Hant": "平衡基礎"}, {"en": "Stand on one leg for balance."})
    make_lesson(chatter, {"en": "Balance secrets (draft)"}, {"en": "Not live yet."}, live=False)
    make_lesson(chatter, {"en": "Strength day"}, {"en": "Squats and lunges."})
    make_lesson(other_tenant, {"en": "Balance elsewhere"}, {"en": "Another client's balance lesson."})
    result = tool_result(http, upstream, chatter.player, "find_lessons", json.dumps({"goal": "better balance"}))
    assert result == {"lessons": [{"title": "Balance basics", "description": "Stand on one leg for balance."}]}
    assert "elsewhere" not in sent_text(upstream) and "draft" not in sent_text(upstream)
    # The lesson's title in the chat's language.
    result = tool_result(http, upstream, chatter.player, "find_lessons", json.dumps({"goal": "balance"}),
                         locale="zh-Hant")
    assert result["lessons"][0]["title"] == "平衡基礎"
    # The other client's player finds only their own lesson.
    other_tenant.configure("modules.wellnessChat=true")
    result = tool_result(http, upstream, other_tenant.player, "find_lessons", json.dumps({"goal": "balance"}))
    assert [lesson["title"] for lesson in result["lessons"]] == ["Balance elsewhere"]


def test_find_lessons_without_a_match_is_empty(http, chatter, upstream):
    make_lesson(chatter, {"en": "Strength day"})
    assert tool_result(http, upstream, chatter.player, "find_lessons", json.dumps({"goal": "yoga"})) == {"lessons": []}


def help_article(tenant, title: str, body: str, **fields) -> str:
    spec = CreateContentBody.model_validate({"key": f"help-{uuid.uuid4().hex[:8]}", "categoryKey": "help",
                                             "title": {"en": title}, "body": {"en": body}, **fields})
    return content.create_item(tenant.client, spec, "test")["contentId"]


def test_search_help_articles_reads_the_callers_client_published_help_only(http, chatter, other_tenant, upstream):
    mine = help_article(chatter, "Resetting your password", "Open Settings, then Account, then Reset password.")
    help_article(chatter, "Password draft", "Unpublished password text.", publish=False)
    help_article(chatter, "Password tips later",
                 "Scheduled password text.", publishAt=clock.iso(clock.now() + dt.timedelta(days=3)))
    spec = CreateContentBody.model_validate({"key": f"legal-{uuid.uuid4().hex[:8]}", "categoryKey": "legal",
                                             "title": {"en": "Password policy"}, "body": {"en": "Legal password."}})
    content.create_item(chatter.client, spec, "test")  # not a help article
    help_article(other_tenant, "Password help elsewhere", "Another client's password article.")

    result = tool_result(http, upstream, chatter.player, "search_help_articles",
                         json.dumps({"query": "How do I reset my password?"}))
    assert result == {"articles": [{
        "title": "Resetting your password", "excerpt": "Open Settings, then Account, then Reset password.",
        "url": f"{config.base_url()}/ct/{mine}?lang=en",
    }]}
    text = sent_text(upstream)
    for hidden in ("elsewhere", "Unpublished", "Scheduled", "Legal password"):
        assert hidden not in text


# ------------------------------------------------------------------------------------------ what is offered


def test_every_tool_is_offered_when_ai_move_and_vital_scan_are_on(http, chatter, upstream):
    upstream.reply(fake.text_stream(["hi"]))
    assert http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers).status_code == 200
    assert offered(upstream) == ALL_TOOLS
    for tool in upstream.requests[0]["body"]["tools"]:
        assert tool["type"] == "function" and tool["function"]["description"]
        assert tool["function"]["parameters"]["type"] == "object"
        assert "userId" not in json.dumps(tool) and "clientId" not in json.dumps(tool)


def test_tools_of_modules_that_are_off_are_not_offered(http, chatter, upstream):
    chatter.configure("modules.aiMove=false")
    upstream.reply(fake.text_stream(["hi"]))
    http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers)
    assert offered(upstream, 0) == ["get_latest_vital_scan", "find_lessons", "search_help_articles"]
    chatter.configure("modules.aiMove=true", "modules.vitalScan=false")
    upstream.reply(fake.text_stream(["hi"]))
    http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers)
    assert offered(upstream, 1) == ["get_exercise_activity", "find_lessons", "search_help_articles"]
    chatter.configure("modules.aiMove=false")
    upstream.reply(fake.text_stream(["hi"]))
    http.post(CHAT, json={"message": "hi"}, headers=chatter.player.headers)
    assert offered(upstream, 2) == ["find_lessons", "search_help_articles"]


def test_a_tool_of_a_module_that_is_off_is_refused_even_when_the_model_calls_it(http, chatter, upstream):
    write_scan(chatter.client_id, chatter.player.uid, clock.now(), {"hr": 70})
    chatter.configure("modules.vitalScan=false")
    upstream.reply(fake.tool_stream("get_latest_vital_scan"), fake.text_stream(["ok"], reported=fake.usage(1, 1)))
    events = sse_events(http.post(CHAT, json={"message": "tell me"}, headers=chatter.player.headers).get_data())
    assert [name for name, _ in events] == ["delta", "done"]  # a tool that is not offered is not shown as run
    result = upstream.requests[-1]["body"]["messages"][-1]
    assert json.loads(result["content"]) == {"error": "There is no tool named 'get_latest_vital_scan'."}
    assert '"heartRateBpm"' not in sent_text(upstream)
