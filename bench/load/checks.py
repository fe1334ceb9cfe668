"""After the traffic, exactly: what the callers saw succeed against what is stored and what the API reports."""

import collections
import time

import requests

from bench.load.callers import Seen
from bench.load.plan import POINTS, TERMINAL_JOB_STATES, TIMEOUT_S
from bench.load.world import World


def wait_for_jobs(world: World, job_ids: set[str], timeout: float) -> tuple[dict[str, dict], float]:
    from wellness_api.media_generation import repository as media

    started = time.perf_counter()
    while True:
        jobs = {snap.id: snap.to_dict() for snap in media.jobs(world.tenant.client_id).stream()}
        pending = [j for j in job_ids if (jobs.get(j) or {}).get("status") not in TERMINAL_JOB_STATES]
        if not pending or time.perf_counter() - started > timeout:
            return jobs, time.perf_counter() - started
        time.sleep(1.0)


class Checks:
    def __init__(self):
        self.rows: list[tuple[str, bool, str]] = []

    def equal(self, name: str, expected, got, unknown: int = 0) -> None:
        if unknown and isinstance(expected, int | float) and isinstance(got, int | float):
            ok = expected <= got <= expected + unknown
            note = f" (got {got:g}; {unknown} of unknown outcome: {expected}..{expected + unknown})"
        else:
            ok, note = expected == got, ""
        self.rows.append((name, ok, ("ok" if ok else f"MISMATCH {expected}/{got}") + note))

    def note(self, text: str) -> None:
        self.rows.append((text, True, ""))


def _collection(client_id: str, name: str) -> list[dict]:
    from wellness_api.core import tenancy

    return [snap.to_dict() or {} for snap in tenancy.client_ref(client_id).collection(name).stream()]


def check(world: World, seen: Seen, first_day: str, months: set[str], jobs: dict[str, dict]) -> Checks:
    from wellness_api.assistant import repository as assistant
    from wellness_api.core import activity, tenancy
    from wellness_api.core.rollups import day_of
    from wellness_api.media_generation import repository as media
    from wellness_api.vital_scan import service as vital_scan

    cid = world.tenant.client_id
    last_day = day_of()
    checks = Checks()
    unknown = seen.unknown

    def rollup(which, name: str) -> tuple[float, float]:
        """(lifetime, the run's days after compaction) of one counter."""
        lifetime = which.counters.all_time(cid).count(which.group, name)
        days = sum(t.count(which.group, name) for t in which.counters.days(cid, first_day, last_day).values())
        return lifetime, days

    def both(label: str, which, name: str, expected: int, area: str) -> None:
        lifetime, days = rollup(which, name)
        checks.equal(f"{label} (lifetime)", expected, lifetime, unknown[area])
        checks.equal(f"{label} (the run's days, compacted)", expected, days, unknown[area])

    # Vital Scan: the point account as platformctl prints it, the sessions, the rollup.
    account = vital_scan.point_account(tenancy.get_client(cid))
    created = len(seen.scans)
    checks.equal("vital scan: points spent == sessions created (201)", created, account["spent"], unknown["vitalScan"])
    checks.equal("vital scan: granted - remaining == sessions created", created, POINTS - account["remaining"],
                 unknown["vitalScan"])
    stored = {s.get("vitalScanResultId") for s in _collection(cid, "vitalScanSessions")
              if not s.get("voided") and "status" in s}
    checks.equal("vital scan: session documents == 201 answers", created, len(stored), unknown["vitalScan"])
    checks.equal("vital scan: every 201's session is stored", set(), seen.scans - stored)
    both("vital scan: rollup created", activity.VITAL_SCAN, "created", created, "vitalScan")

    # AI Move: sessions, each player's statistics through the API, the rollup.
    sessions = _collection(cid, "aiMoveSessions")
    checks.equal("ai move: session documents == 201 answers", len(seen.sessions), len(sessions), unknown["aiMove"])
    completed_docs = sum(1 for s in sessions if s.get("status") == "completed")
    checks.equal("ai move: completed sessions == completing 200s", len(seen.completed), completed_docs,
                 unknown["aiMove"])
    api_sessions = api_reps = 0
    for player in world.players:
        stats = requests.get(f"{world.base_url}/api/ai-move/statistics", headers=player.headers,
                             timeout=TIMEOUT_S).json()["statistics"]
        api_sessions += stats["sessionsCompleted"]
        api_reps += stats["totalReps"]
    reps = sum(r for _, r in seen.completed.values())
    checks.equal("ai move: statistics sessionsCompleted (API, all players)", len(seen.completed), api_sessions,
                 unknown["aiMove"])
    checks.equal("ai move: statistics totalReps (API, all players)", reps, api_reps, 12 * unknown["aiMove"])
    both("ai move: rollup sessionsStarted", activity.AI_MOVE, "sessionsStarted", len(seen.sessions), "aiMove")
    both("ai move: rollup sessionsCompleted", activity.AI_MOVE, "sessionsCompleted", len(seen.completed), "aiMove")

    # Lessons: the plays and their rollup.
    plays = _collection(cid, "lessonPlays")
    checks.equal("lessons: play documents == distinct started plays", len(seen.plays_started), len(plays),
                 unknown["lessons"])
    checks.equal("lessons: completed plays == completing 200s", len(seen.plays_completed),
                 sum(1 for p in plays if p.get("status") == "completed"), unknown["lessons"])
    both("lessons: rollup plays", activity.LESSONS, "plays", len(seen.plays_started), "lessons")
    both("lessons: rollup completedPlays", activity.LESSONS, "completedPlays", len(seen.plays_completed), "lessons")

    # Fall risk: results, their first step, the rollup.
    results = _collection(cid, "fallRiskResults")
    checks.equal("fall risk: result documents == 200 creates", len(seen.results), len(results), unknown["fallRisk"])
    checks.equal("fall risk: in-progress results == quiz 200s", len(seen.quizzed),
                 sum(1 for r in results if r.get("status") == "in-progress"), unknown["fallRisk"])
    both("fall risk: rollup created", activity.FALL_RISK, "created", len(seen.results), "fallRisk")
    both("fall risk: rollup cohortStarted", activity.FALL_RISK, "cohortStarted", len(seen.quizzed), "fallRisk")

    # Media generation: every job stored, each in one terminal state, counted once there.
    checks.equal("media: job documents == 201/202 answers", len(seen.jobs), len(jobs), unknown["media"])
    checks.equal("media: every 201/202's job is stored", set(), seen.jobs - set(jobs))
    states = collections.Counter(job.get("status") for job in jobs.values())
    checks.equal("media: jobs in a terminal state (available or failed)", len(jobs),
                 sum(states[s] for s in TERMINAL_JOB_STATES))
    for job_id, job in jobs.items():
        if job.get("status") not in TERMINAL_JOB_STATES:
            checks.note(f"  not terminal: {job_id} {job.get('status')}, attemptCount {job.get('attemptCount')}, "
                        f"leaseUntil {job.get('leaseUntil')}, updatedAt {job.get('updatedAt')}")
    counted = collections.Counter()
    for day in media.daily_activity(cid, first_day, last_day).values():
        counted.update({k: v for k, v in day.items() if k in ("created", "available", "failed")})
    checks.equal("media: rollup created", len(seen.jobs), counted["created"], unknown["media"])
    checks.equal("media: rollup available + failed == jobs (one terminal count each)", len(jobs),
                 counted["available"] + counted["failed"])
    checks.equal("media: rollup available == available jobs", states["available"], counted["available"])
    checks.equal("media: media assets == available jobs", states["available"],
                 len(_collection(cid, media.ASSETS)))

    # Assistant: conversations, usage records, the month's tokens, the rollup.
    conversations = {c.get("conversationId"): c for c in _collection(cid, assistant.CONVERSATIONS)}
    checks.equal("assistant: conversations == done events", len(seen.conversations), len(conversations),
                 unknown["assistant"])
    checks.equal("assistant: every done event's conversation is stored", set(), seen.conversations - set(conversations))
    checks.equal("assistant: conversations holding 2 messages", len(conversations),
                 sum(1 for c in conversations.values() if c.get("messageCount") == 2))
    usage = [u for u in _collection(cid, assistant.USAGE) if u.get("kind") == "chat"]
    checks.equal("assistant: usage records == chat streams (200)", seen.chat_streams, len(usage),
                 unknown["assistant"])
    recorded = sum(u.get("promptTokens", 0) + u.get("completionTokens", 0) for u in usage)
    used = sum(assistant.tokens_used(cid, month) for month in months)
    checks.equal("assistant: month's tokens == usage records' tokens", recorded, used)
    answered = sum(u.get("promptTokens", 0) + u.get("completionTokens", 0) for u in usage
                   if u.get("conversationId") in seen.conversations)
    checks.equal("assistant: usage records' tokens == the done events' usage", seen.chat_tokens, answered)
    both("assistant: rollup chats", activity.WELLNESS_CHAT, "chats", len(seen.conversations), "assistant")
    both("assistant: rollup messages", activity.WELLNESS_CHAT, "messages", seen.chat_streams, "assistant")

    # The dashboard reads the same rollups: engagement through the API, lifetime and over the run's days.
    admin = world.tenant.admin.headers
    for label, query in (("lifetime", ""), ("the run's days", f"?startDate={first_day}&endDate={last_day}")):
        got = requests.get(f"{world.base_url}/api/client/{cid}/analytics/engagement-insights{query}", headers=admin,
                           timeout=TIMEOUT_S).json()
        pairs = (("lessons.totalPlays", len(seen.plays_started), "lessons"),
                 ("lessons.completedPlays", len(seen.plays_completed), "lessons"),
                 ("aiMove.totalSessions", len(seen.sessions), "aiMove"),
                 ("aiMove.completedSessions", len(seen.completed), "aiMove"),
                 ("aiMove.totalReps", reps, "aiMove"),
                 ("wellnessChat.totalChats", len(seen.conversations), "assistant"),
                 ("wellnessChat.totalMessages", seen.chat_streams, "assistant"),
                 ("vitalScan.totalScans", created, "vitalScan"))
        for path, expected, area in pairs:
            group, field = path.split(".")
            checks.equal(f"analytics engagement ({label}): {path}", expected, got[group][field],
                         unknown[area] * (12 if field == "totalReps" else 1))
    return checks
