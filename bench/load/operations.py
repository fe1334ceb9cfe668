"""The mix's operations: one area's request (or two, a create and its completion) each, sent by a caller."""

import json
import random
import uuid

from bench.load.callers import Caller
from bench.load.plan import CHAT_MESSAGES, MEDIA_BODY, MIX, SEED


def _lessons_list(c: Caller) -> None:
    c.send("GET lessons", "GET", f"/api/lessons?clientId={c.world.tenant.client_id}", headers=c.player.headers)


def _lesson_play(c: Caller) -> None:
    play_id = uuid.uuid4().hex
    path = f"/api/lessons/{c.world.lesson_id}/plays/{play_id}"
    key = (c.player.uid, play_id)
    started = c.send("PUT play started", "PUT", path, headers=c.player.headers, body={"status": "started"},
                     write="lessons")
    if started is None or started.status_code != 201:
        return
    with c.seen.lock:
        c.seen.plays_started.add(key)
    done = c.send("PUT play completed", "PUT", path, headers=c.player.headers, body={"status": "completed"},
                  write="lessons")
    if done is not None and done.status_code == 200:
        with c.seen.lock:
            c.seen.plays_completed.add(key)


def _ai_move_session(c: Caller) -> None:
    created = c.send("POST ai-move session", "POST", "/api/ai-move/sessions", headers=c.player.headers,
                     body={"exerciseId": c.world.exercise_id, "exerciseType": "rep", "targetReps": 10}, write="aiMove")
    if created is None or created.status_code != 201:
        return
    session = created.json()["sessionId"]
    with c.seen.lock:
        c.seen.sessions[session] = c.player.uid
    reps = c.rng.randint(1, 12)
    done = c.send("PATCH ai-move completed", "PATCH", f"/api/ai-move/sessions/{session}", headers=c.player.headers,
                  body={"status": "completed", "repsCompleted": reps, "durationSeconds": 20}, write="aiMove")
    if done is not None and done.status_code == 200:
        with c.seen.lock:
            c.seen.completed[session] = (c.player.uid, reps)


def _ai_move_statistics(c: Caller) -> None:
    c.send("GET ai-move statistics", "GET", "/api/ai-move/statistics", headers=c.player.headers)


def _vital_scan(c: Caller) -> None:
    created = c.send("POST vital-scan session", "POST", "/api/v1/vital-scan/sessions",
                     headers={"Authorization": f"Bearer {c.world.api_key}"},
                     body={"userId": f"load-{c.player.uid[:12]}"}, write="vitalScan")
    if created is not None and created.status_code == 201:
        with c.seen.lock:
            c.seen.scans.add(created.json()["data"]["vitalScanResultId"])


def _fall_risk(c: Caller) -> None:
    created = c.send("POST fall-risk", "POST", "/api/fall-risk", headers=c.player.headers, body={},
                     write="fallRisk")
    if created is None or created.status_code != 200:
        return
    result = created.json()["fallRiskResultId"]
    with c.seen.lock:
        c.seen.results.add(result)
    step = c.send("PUT fall-risk quiz", "PUT", f"/api/fall-risk/results/{result}/quiz", headers=c.player.headers,
                  body=c.world.quiz, write="fallRisk")
    if step is not None and step.status_code == 200:
        with c.seen.lock:
            c.seen.quizzed.add(result)


def _chat(c: Caller) -> None:
    op = "POST wellness-chat"
    answer = c.send(op, "POST", "/api/wellness-chat", headers=c.player.headers,
                    body={"message": c.rng.choice(CHAT_MESSAGES)}, write="assistant")
    if answer is None or answer.status_code != 200:
        return
    events = {}
    for block in answer.text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if lines.get("event") in ("done", "error"):
            events[lines["event"]] = json.loads(lines.get("data", "{}"))
    with c.seen.lock:
        c.seen.chat_streams += 1
        if "done" in events:
            c.seen.conversations.add(events["done"]["conversationId"])
            usage = events["done"].get("usage") or {}
            c.seen.chat_tokens += usage.get("promptTokens", 0) + usage.get("completionTokens", 0)
    if "done" not in events:
        c.fail(f"200 {op}: stream ended with {events.get('error') or 'no done event'}")


def media_job(c: Caller) -> None:
    body = {**MEDIA_BODY, "promptInput": {**MEDIA_BODY["promptInput"], "promptText": f"load {uuid.uuid4().hex[:8]}"}}
    created = c.send("POST media job", "POST", "/api/b2b/ai/media-generation/jobs", headers=c.world.tenant.admin.headers,
                     body=body, write="media")
    if created is not None and created.status_code in (201, 202):  # 202: saved but not queued, so failed
        with c.seen.lock:
            c.seen.jobs.add(created.json()["job"]["jobId"])


def _analytics_overview(c: Caller) -> None:
    c.send("GET analytics overview", "GET", f"/api/client/{c.world.tenant.client_id}/analytics/overview",
           headers=c.world.tenant.admin.headers)


def _content_public(c: Caller) -> None:
    c.send("GET content public", "GET", f"/api/client/{c.world.tenant.client_id}/content/public/{c.world.content_key}")


def health(c: Caller) -> None:
    c.send("GET health", "GET", "/api/health")


OPERATIONS = {
    "lessons.list": _lessons_list, "lessons.play": _lesson_play, "aiMove.session": _ai_move_session,
    "aiMove.statistics": _ai_move_statistics, "vitalScan.create": _vital_scan, "fallRisk.assessment": _fall_risk,
    "assistant.chat": _chat, "media.job": media_job, "analytics.overview": _analytics_overview,
    "content.public": _content_public,
}


def schedule() -> list:
    ops = [OPERATIONS[name] for name, weight in MIX.items() for _ in range(weight)]
    random.Random(SEED).shuffle(ops)
    return ops
