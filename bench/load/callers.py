"""The callers: each sends its requests through its own session and records what it saw; what every caller saw
succeed is gathered in Seen, for the checks."""

import collections
import contextlib
import dataclasses
import random
import threading
import time

import requests

from bench.load.plan import SEED, TIMEOUT_S
from bench.load.world import World


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
