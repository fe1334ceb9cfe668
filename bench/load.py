"""Load run (issue 16), the last part of `make bench`: mixed traffic through Hosting at rising concurrency.

1. Each level (1, 4, 16, 64 callers, one requests.Session each) sends a weighted mix of the areas' requests to the
   stack's Hosting origin, so every request goes Hosting -> Functions emulator -> a Python worker -> Firestore. A
   level stops at a request count or a time cap, whichever comes first. Then the same count of GET /api/health
   at the same concurrency: the floor (Hosting, the emulator and a worker, no area and no Firestore behind it).
   The emulator runs one request at a time per worker process and starts a new worker (a cold start) for each
   request that finds none idle, so each measurement follows an unmeasured ramp at its concurrency; the table
   says how many workers were still started while measuring, and where the CPU went.
   Meanwhile the analytics compaction runs every few seconds, racing the rollup writes as the schedule would.
2. Afterwards, exactly: what the callers saw succeed against what is stored (points, sessions, statistics,
   rollups, jobs, conversations and usage). Each check prints `ok` or `MISMATCH expected/got`; any mismatch
   raises, so `make bench` fails loudly.

Callers never retry the platform's answers: a refused write (429, 503) wrote nothing, so the counts stay exact.
The one answer sent again (once) is the Functions emulator's hang-up, 500 {"code":"ECONNRESET"} without
x-request-id (see is_emulator_hangup): it is counted and printed apart, never as the platform's error. A write
whose outcome the caller could not see (no answer within TIMEOUT_S; an answer that is the emulator's or Hosting's,
without x-request-id, a hang-up included; Vital Scan's 503 commit_outcome_unknown) widens its checks to
[expected, expected + unknown], and the line says so and what it found.
"""

import collections
import contextlib
import dataclasses
import io
import json
import math
import os
import random
import threading
import time
import uuid

import requests

LEVELS = (1, 4, 16, 64)
PER_CALLER = 30  # requests per caller and level ...
MAX_REQUESTS = 400  # ... but never more than this per level
TIME_CAP_S = 45.0  # nor longer than this
PLAYERS = 8  # callers share these players round robin, so several callers write one user's statistics at once
COMPACT_EVERY_S = 10.0
MEDIA_WAIT_S = 90.0  # a task whose deliveries failed is retried 10, 30, 70 s ... after the first
MEDIA_WORKERS = 4  # the queue's max_concurrent_dispatches (main.py)
POINTS = 100_000
TIMEOUT_S = 30.0  # a request still unanswered then is abandoned (an unknown outcome): it bounds a level's tail
SEED = 16

# Weighted: each caller walks this list (shuffled once) from its own offset, so every level sees the same mix.
MIX = {
    "lessons.list": 2, "lessons.play": 2, "aiMove.session": 2, "aiMove.statistics": 1, "vitalScan.create": 2,
    "fallRisk.assessment": 1, "assistant.chat": 1, "media.job": 1, "analytics.overview": 1, "content.public": 1,
}
CHAT_MESSAGES = ("How are my workouts going?", "Which lessons help with balance?", "Any tips for sleeping better?")
MEDIA_BODY = {"mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
              "promptPreset": "image-exercise-thumbnail",
              "promptInput": {"promptText": "load run", "context": {"name": "Squat", "category": "strength"}}}
TERMINAL_JOB_STATES = ("available", "failed")


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep the platform's log lines out of the tables


# ------------------------------------------------------------------------------------------------ the world


@dataclasses.dataclass
class World:
    base_url: str
    tenant: object
    players: list
    api_key: str
    lesson_id: str
    exercise_id: str
    content_key: str
    quiz: dict


def _setup(base_url: str) -> World:
    from tests.ai_move.conftest import make_exercise
    from tests.conftest import Tenant
    from tests.fall_risk.conftest import quiz
    from wellness_api.content import service as content
    from wellness_api.content.models import CreateContentBody
    from wellness_api.lessons import service as lessons
    from wellness_api.lessons.models import CreateLessonBody

    with _quiet():
        tenant = Tenant(f"load-{uuid.uuid4().hex[:8]}")
        tenant.configure("modules.aiMove=true", "modules.vitalScan=true", "modules.mediaGeneration=true",
                         "modules.wellnessChat=true", "modules.analytics=true", f"vitalScan.points={POINTS}",
                         "vitalScan.requestsPerMinute=100000", "wellnessChat.requestsPerMinute=100000",
                         # Several callers share each player: the assistant's caps on requests running at once
                         # (per user 2, per client 20 by default) would measure refusals, not throughput.
                         "wellnessChat.maxConcurrentPerUser=20", "wellnessChat.maxConcurrentPerClient=200",
                         "mediaGeneration.maxActiveJobs=20")
        players = [tenant.player] + [tenant.add_member("player") for _ in range(PLAYERS - 1)]
        for member in (tenant.admin, *players):
            member.token  # noqa: B018 - sign in now, not inside the timed requests
        exercise_id = make_exercise(tenant.client, "rep", name="Squats")
        lesson_id = lessons.create_lesson(tenant.client, CreateLessonBody.model_validate(
            {"title": {"en": "Load run lesson"}, "duration": 10, "isLive": True}, strict=True), "bench")
        content.put_item(tenant.client, CreateContentBody.model_validate(
            {"key": "load-notice", "categoryKey": "announcements", "title": {"en": "Notice"},
             "body": {"en": "Read me."}}, strict=True), "bench")
    # The key comes from the api-keys endpoint, as a partner's administrator gets one.
    created = requests.post(f"{base_url}/api/clients/{tenant.client_id}/api-keys", json={"label": "load run"},
                            headers=tenant.admin.headers, timeout=TIMEOUT_S)
    created.raise_for_status()
    return World(base_url, tenant, players, created.json()["secret"], lesson_id, exercise_id, "load-notice",
                 quiz())


# ------------------------------------------------------------------------------------ what the callers saw


class Seen:
    """What callers saw succeed, and writes whose outcome they could not see; shared by every caller."""

    def __init__(self):
        self.lock = threading.Lock()
        self.plays_started: set[tuple[str, str]] = set()
        self.plays_completed: set[tuple[str, str]] = set()
        self.sessions: dict[str, str] = {}  # AI Move session -> uid
        self.completed: dict[str, tuple[str, int]] = {}  # session -> (uid, reps)
        self.scans: set[str] = set()
        self.results: set[str] = set()
        self.quizzed: set[str] = set()
        self.jobs: set[str] = set()
        self.chat_streams = 0
        self.conversations: set[str] = set()
        self.chat_tokens = 0
        self.unknown: collections.Counter = collections.Counter()  # area -> writes of unknown outcome
        self.hangups: collections.Counter = collections.Counter()  # operation -> emulator hang-ups (each retried)


@dataclasses.dataclass
class Record:
    op: str
    seconds: float
    kind: str | None  # None: a success; else the error's kind (status, operation, code)
    emulator: bool = False  # the answer is the emulator's or Hosting's, not the platform's (no x-request-id)


class Level:
    """One level's run: the request budget, the deadline and every request's record."""

    def __init__(self, budget: int, cap: float):
        self.budget = budget
        self.deadline = time.perf_counter() + cap
        self.lock = threading.Lock()
        self.sent = 0
        self.records: list[Record] = []

    def may_start(self) -> bool:
        with self.lock:
            return self.sent < self.budget and time.perf_counter() < self.deadline


HANGUP_BODY = {"code": "ECONNRESET"}


def is_emulator_hangup(response) -> bool:
    """The Functions emulator's answer when its connection to a worker broke ("Request to function failed:
    Error: socket hang up" in its log): 500 with Node's error object as the body and none of the platform's
    headers. No function of the platform answers that (every one sets x-request-id)."""
    if response.status_code != 500 or "x-request-id" in response.headers or len(response.content) > 200:
        return False
    with contextlib.suppress(ValueError):
        return response.json() == HANGUP_BODY
    return False


def _error_code(response) -> str:
    with contextlib.suppress(ValueError, AttributeError):
        error = response.json().get("error")
        if isinstance(error, dict):
            return error.get("code") or ""
    return ""


class Caller:
    def __init__(self, world: World, seen: Seen, level: Level, index: int):
        self.world, self.seen, self.level = world, seen, level
        self.player = world.players[index % len(world.players)]
        self.http = requests.Session()
        self.rng = random.Random(SEED * 1000 + index)
        self.last: Record | None = None

    def send(self, op: str, method: str, path: str, *, headers=None, body=None, write: str | None = None):
        """The response (read to its end), or None when there was none; recorded with its latency. An emulator
        hang-up is sent again once (see is_emulator_hangup) and the latency is the two attempts'."""
        with self.level.lock:
            self.level.sent += 1
        started = time.perf_counter()
        for attempt in (1, 2):
            try:
                response = self.http.request(method, self.world.base_url + path, headers=headers, json=body,
                                             timeout=TIMEOUT_S)
            except requests.RequestException as exc:
                self._record(op, started, f"{type(exc).__name__} {op}")
                if write:
                    with self.seen.lock:
                        self.seen.unknown[write] += 1
                return None
            if not is_emulator_hangup(response):
                break
            with self.seen.lock:
                self.seen.hangups[op] += 1
                if write:  # the worker may have committed before it went away: its outcome is unknown
                    self.seen.unknown[write] += 1
            if attempt == 2:
                self._record(op, started, f"{op}: the emulator hung up twice", emulator=True)
                return response
        kind, emulator = None, False
        if response.status_code >= 400:
            code = _error_code(response)
            # No x-request-id: the answer is the emulator's or Hosting's (a timeout, a body it refused), so the
            # platform may or may not have committed.
            emulator = "x-request-id" not in response.headers
            kind = f"{response.status_code} {op}" + (f" {code}" if code else "")
            if emulator:
                kind += f" (not the platform's: {response.text.strip()[:50]})"
            elif response.status_code in (404, 405, 500) and not code:  # none expected in this mix: say which
                with contextlib.suppress(ValueError, AttributeError):
                    kind += f": {str(response.json().get('error'))[:50]}"
            if write and (emulator or code == "commit_outcome_unknown"):
                with self.seen.lock:
                    self.seen.unknown[write] += 1
        self._record(op, started, kind, emulator=emulator)
        return response

    def _record(self, op: str, started: float, kind: str | None, emulator: bool = False) -> None:
        self.last = Record(op, time.perf_counter() - started, kind, emulator)
        with self.level.lock:
            self.level.records.append(self.last)

    def fail(self, kind: str) -> None:
        """The last request's 2xx said it failed (a chat stream that ended in an error event)."""
        with self.level.lock:
            self.last.kind = kind


# --------------------------------------------------------------------------------------------- operations


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


def _media_job(c: Caller) -> None:
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


def _health(c: Caller) -> None:
    c.send("GET health", "GET", "/api/health")


OPERATIONS = {
    "lessons.list": _lessons_list, "lessons.play": _lesson_play, "aiMove.session": _ai_move_session,
    "aiMove.statistics": _ai_move_statistics, "vitalScan.create": _vital_scan, "fallRisk.assessment": _fall_risk,
    "assistant.chat": _chat, "media.job": _media_job, "analytics.overview": _analytics_overview,
    "content.public": _content_public,
}


def _schedule() -> list:
    ops = [OPERATIONS[name] for name, weight in MIX.items() for _ in range(weight)]
    random.Random(SEED).shuffle(ops)
    return ops


# ------------------------------------------------------------------------------------------------ a level


@dataclasses.dataclass
class Workers:
    count: int
    rss_mb: float


def _stack_processes():
    """(pid, argv, the /proc stat fields after the name) of each process of this stack (devstack's DEVSTACK_MARK)."""
    from devstack import stack

    for pid, _ in stack.marked_pids(root=os.environ.get("DEVSTACK_MARK")):
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as f:
                yield pid, argv, f.read().rsplit(b")", 1)[1].split()


def _is_worker(argv: list[bytes]) -> bool:
    return any(arg.endswith(b"functions-framework") for arg in argv[1:2])


def _workers() -> Workers:
    """This stack's function workers and their memory. The Functions emulator gives each worker one request at a
    time and starts a new one (a Python process: gunicorn master and worker) whenever a function has no idle
    worker, so a level's concurrency turns into workers; they stay until the emulator stops."""
    rss = 0
    pids = {}
    for pid, argv, stat in _stack_processes():
        if not (b"python" in argv[0] and _is_worker(argv)):
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/statm", "rb") as f:
                rss += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            pids[pid] = int(stat[1])
    masters = sum(1 for ppid in pids.values() if ppid not in pids)  # a gunicorn worker's parent is its master
    return Workers(masters, rss / 2**20)


def _cpu() -> collections.Counter:
    """CPU seconds used so far by this stack's processes, by kind: the emulators' Node process (Hosting, the
    Functions emulator's router, Auth, Tasks), Firestore's JVM, the function workers, and this bench."""
    tick = os.sysconf("SC_CLK_TCK")
    used: collections.Counter = collections.Counter()
    mine = os.times()
    used["bench"] = mine.user + mine.system
    for _, argv, stat in _stack_processes():
        name = argv[0].rsplit(b"/", 1)[-1]
        kind = ("workers" if _is_worker(argv) else
                "node" if name == b"node" else "firestore" if name == b"java" else "other")
        used[kind] += (int(stat[11]) + int(stat[12])) / tick
    return used


@dataclasses.dataclass
class Outcome:
    callers: int
    records: list[Record]
    elapsed: float
    before: Workers
    after: Workers
    cpu: collections.Counter  # CPU seconds used during the run, by kind of process

    @property
    def requests(self) -> int:
        return len(self.records)

    def rate(self) -> float:
        return self.requests / self.elapsed if self.elapsed else 0.0

    def percentile(self, p: float) -> float:
        """Nearest rank, in ms."""
        times = sorted(r.seconds for r in self.records)
        return times[max(0, math.ceil(p / 100 * len(times)) - 1)] * 1000 if times else float("nan")

    def errors(self, emulator: bool | None = None) -> collections.Counter:
        """Errors by kind: the platform's answers (emulator=False), the emulator's or Hosting's (True), or all."""
        return collections.Counter(r.kind for r in self.records if r.kind and emulator in (None, r.emulator))


def _run(world: World, seen: Seen, callers: int, budget: int, cap: float, ops: list, once: bool = False) -> Outcome:
    """`callers` threads walking `ops` until the budget or the cap; `once`: one operation each, all at once."""
    level = Level(budget, cap)
    before, cpu_before = _workers(), _cpu()
    # A ramp's requests leave together: the emulator starts a worker for each one that finds none idle.
    together = threading.Barrier(callers)

    def loop(index: int) -> None:
        caller = Caller(world, seen, level, index)
        step = index  # callers start at different places in the (shuffled) mix
        if once:
            together.wait()
            ops[step % len(ops)](caller)
            return
        while level.may_start():
            ops[step % len(ops)](caller)
            step += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cpu = _cpu()
    cpu.subtract(cpu_before)
    return Outcome(callers, level.records, elapsed, before, _workers(), cpu)


@dataclasses.dataclass
class Row:
    """One level: the measured mixed traffic and health floor, each after a ramp that is not measured, in which
    the emulator starts the workers the level needs."""

    ramp: Outcome
    mixed: Outcome
    health_ramp: Outcome  # half the floor's count, not measured
    floor: Outcome


def _level(world: World, seen: Seen, callers: int, budget: int, cap: float, ops: list) -> Row:
    ramp = _run(world, seen, callers, callers, cap, ops, once=True)
    mixed = _run(world, seen, callers, budget, cap, ops)
    # A health request takes milliseconds, so one at once per caller overlaps too little to start the workers a
    # level needs: half the measured count first.
    health_ramp = _run(world, seen, callers, max(callers, mixed.requests // 2), cap, [_health])
    floor = _run(world, seen, callers, mixed.requests, cap, [_health])
    return Row(ramp, mixed, health_ramp, floor)


class _Compactor:
    """The analytics compaction every few seconds while the traffic runs, as the schedule would run it."""

    def __init__(self, every: float):
        self.every, self.folded, self.runs, self.failures = every, 0, 0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        from wellness_api.core import activity

        while not self.stop.wait(self.every):
            try:
                self.folded += activity.compact_all()
                self.runs += 1
            except Exception as exc:  # noqa: BLE001 - reported with the checks, never hidden
                self.failures.append(repr(exc))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


# ------------------------------------------------------------------------------------------------- checks


def _wait_for_jobs(world: World, job_ids: set[str], timeout: float) -> tuple[dict[str, dict], float]:
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


def _check(world: World, seen: Seen, first_day: str, months: set[str], jobs: dict[str, dict]) -> Checks:
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


# --------------------------------------------------------------------------------------------------- main


def _print_table(rows: list[Row]) -> None:
    print(f"{'callers':>7} {'requests':>8} {'req/s':>6} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'emul.':>5} | "
          f"{'health req/s':>12} {'p50 ms':>6} {'p99 ms':>6} | {'p50 x':>6} {'p99 x':>6} {'req/s x':>7} | "
          "ramps | workers (started while measured), RSS")
    for row in rows:
        mixed, floor = row.mixed, row.floor
        ramps = row.ramp.elapsed + row.health_ramp.elapsed
        measured = mixed.after.count - mixed.before.count + floor.after.count - floor.before.count
        print(f"{mixed.callers:>7} {mixed.requests:>8} {mixed.rate():>6.1f} {mixed.percentile(50):>7.0f} "
              f"{mixed.percentile(99):>7.0f} {sum(mixed.errors(False).values()):>6} "
              f"{sum(mixed.errors(True).values()):>5} | {floor.rate():>12.1f} "
              f"{floor.percentile(50):>6.0f} {floor.percentile(99):>6.0f} | "
              f"{mixed.percentile(50) / floor.percentile(50):>5.1f}x {mixed.percentile(99) / floor.percentile(99):>5.1f}x "
              f"{mixed.rate() / floor.rate():>6.2f}x | {ramps:>4.1f} s | {row.ramp.before.count:>3} -> "
              f"{floor.after.count:>3} ({measured:>2}), {floor.after.rss_mb / 1024:.1f} GB")


def _print_errors(rows: list[Row]) -> None:
    for row in rows:
        for outcome, what in ((row.ramp, "mixed ramp"), (row.mixed, "mixed"), (row.health_ramp, "health ramp"),
                              (row.floor, "health")):
            for emulator, whose in ((False, "the platform's"), (True, "the emulator's or Hosting's")):
                errors = outcome.errors(emulator)
                if errors:
                    listed = ", ".join(f"{kind} x{n}" for kind, n in errors.most_common())
                    print(f"errors at {outcome.callers} callers ({what}), {whose}: {listed}")


def _print_cpu(rows: list[Row]) -> None:
    print(f"\nCPU seconds used while measured (this machine has {os.cpu_count()} cores, shared):")
    kinds = ("node", "firestore", "workers", "bench", "other")
    print(f"{'callers':>7} {'run':>7} {'wall s':>7} " + " ".join(f"{k:>9}" for k in kinds))
    for row in rows:
        for outcome, what in ((row.mixed, "mixed"), (row.floor, "health")):
            print(f"{outcome.callers:>7} {what:>7} {outcome.elapsed:>7.1f} "
                  + " ".join(f"{max(0.0, outcome.cpu[k]):>9.1f}" for k in kinds))
    print("(node: Hosting, the Functions emulator's router, Auth and Tasks in one Node process; firestore: the "
          "Firestore emulator's JVM; workers: the function workers' Python processes; bench: the callers)")


def _print_operations(rows: list[Row]) -> None:
    by_op: dict[str, dict[int, list[float]]] = collections.defaultdict(dict)
    for row in rows:
        for record in row.mixed.records:
            by_op[record.op].setdefault(row.mixed.callers, []).append(record.seconds)
    levels = [row.mixed.callers for row in rows]
    print("\np50 ms (requests) per request and level:")
    print(f"{'request':24} " + " ".join(f"{f'{n} callers':>13}" for n in levels))
    for op in sorted(by_op):
        cells = []
        for n in levels:
            times = sorted(by_op[op].get(n, []))
            cells.append(f"{times[len(times) // 2] * 1000:>6.0f} ({len(times):>3})" if times else "-")
        print(f"{op:24} " + " ".join(f"{cell:>13}" for cell in cells))


def main(levels=LEVELS, per_caller: int = PER_CALLER, max_requests: int = MAX_REQUESTS,
         time_cap: float = TIME_CAP_S, compact_every: float = COMPACT_EVERY_S, media_wait: float = MEDIA_WAIT_S) -> None:
    from tests.conftest import BASE_URL
    from wellness_api.assistant import repository as assistant
    from wellness_api.core import activity, clock
    from wellness_api.core.rollups import day_of

    began = time.perf_counter()
    world = _setup(BASE_URL)
    seen = Seen()
    first_day, months = day_of(), {assistant.month_of(clock.now())}
    ops = _schedule()
    start_workers = _workers()
    warm = _run(world, seen, 1, len(ops) * 2, time_cap, ops)  # every function's first worker, and its first request
    # The task queue's workers too: a worker the emulator starts in the middle of a busy level may fail to bind
    # its port, and the job's delivery then waits for the queue's backoff.
    _run(world, seen, MEDIA_WORKERS, MEDIA_WORKERS, time_cap, [_media_job], once=True)
    _wait_for_jobs(world, seen.jobs, media_wait)
    rows = []
    with _Compactor(compact_every) as compactor:
        rows = [_level(world, seen, callers, min(per_caller * callers, max_requests), time_cap, ops)
                for callers in levels]
    traffic_seconds = time.perf_counter() - began
    months.add(assistant.month_of(clock.now()))
    jobs, waited = _wait_for_jobs(world, seen.jobs, media_wait)
    with _quiet():
        folded = activity.compact_all()
    checks = _check(world, seen, first_day, months, jobs)

    print(f"\n== Load run: mixed traffic through Hosting ({world.base_url}) beside GET /api/health at the same "
          "concurrency (the floor)")
    print(f"(a level: at most {per_caller} requests per caller and {max_requests} in all, at most {time_cap:.0f} s; "
          f"the mix by weight: {', '.join(f'{k} {v}' for k, v in MIX.items())}; {len(world.players)} players; "
          "latency: the whole answer, a chat's stream read to its end. Before each measurement a ramp, not measured "
          "(one operation per caller; half the count of health requests), lets the emulator start the workers the "
          "level needs.)")
    _print_table(rows)
    _print_errors(rows)
    _print_operations(rows)
    _print_cpu(rows)
    warm_errors = warm.errors()
    print(f"\nwarm-up, one caller, not measured: {warm.requests} requests in {warm.elapsed:.1f} s"
          + (f", errors {dict(warm_errors)}" if warm_errors else "")
          + f"; function workers {start_workers.count} before it, {rows[-1].floor.after.count} at the end")
    print(f"compaction during the traffic: {compactor.runs} runs, {compactor.folded} shards folded"
          + (f", failures: {compactor.failures}" if compactor.failures else "") + f"; after it: {folded}")
    print(f"media jobs: {len(seen.jobs)} created; every one terminal {waited:.1f} s after the traffic")
    hangups = sum(seen.hangups.values())
    print('emulator hang-ups (500 {"code":"ECONNRESET"}, "socket hang up" in its log; each sent again once, '
          f"none counted as the platform's): {hangups}" + (f" ({dict(seen.hangups.most_common())})" if hangups else ""))
    if any(seen.unknown.values()):
        print(f"writes of unknown outcome (no answer, or not the platform's): {dict(seen.unknown)}")
    print("\n== Load run: nothing lost or counted twice (what the callers saw succeed against what is stored)")
    width = max(len(name) for name, _, verdict in checks.rows if verdict)
    for name, _, verdict in checks.rows:
        print(f"{name:<{width}}  {verdict}" if verdict else name)
    print(f"\nload run: {time.perf_counter() - began:.0f} s in all ({traffic_seconds:.0f} s of setup and traffic)")
    failed = [name for name, ok, _ in checks.rows if not ok]
    if failed:
        raise SystemExit(f"load run: {len(failed)} check(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    import pathlib
    import sys

    root = pathlib.Path(__file__).resolve().parents[1]
    sys.path[:0] = [str(root / "functions"), str(root)]
    main()
