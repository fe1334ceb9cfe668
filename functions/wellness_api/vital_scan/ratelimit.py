"""The workspace request rate: fixed one-minute windows on capped counter shards.

A window's limit (`requestsPerMinute`) is split into shards, one document each
(`clients/{id}/vitalScanRate/{window}_{shard}`), holding how many calls it admitted against its own
slice of the limit. Every partner call (create, GET, DELETE) reads the window's shards (one batched
read), picks a random shard with room and takes one unit of it with compare-and-set (a precondition
on the update time it read; see repository.take_from_shards). So no more than the limit is ever
admitted in a window, whatever the concurrency, a burst does not starve the calls that came first,
and concurrent calls spread over several documents and never wait on a lock.
There is one shard per 60 requests per minute (at most 16), so at full rate each shard document
takes about one write per second. A refused call writes nothing; once a process has seen a window
full it refuses further calls of that window without touching Firestore. Counter documents are
removed by a Firestore TTL policy on expireAt.
"""

import dataclasses
import datetime as dt
import math
import threading

WINDOW = dt.timedelta(minutes=1)
MAX_SHARDS = 16
REQUESTS_PER_SHARD = 60
# Counter documents are deleted by a Firestore TTL policy on expireAt (firestore.indexes.json).
COUNTER_TTL = dt.timedelta(days=1)


@dataclasses.dataclass(frozen=True)
class Window:
    window_id: str
    starts_at: dt.datetime
    ends_at: dt.datetime

    def reset_seconds(self, now: dt.datetime) -> int:
        """Whole seconds until the window ends, at least 1 (ratelimit-reset and Retry-After)."""
        return max(1, math.ceil((self.ends_at - now).total_seconds()))


@dataclasses.dataclass(frozen=True)
class Verdict:
    limit: int
    remaining: int
    reset_seconds: int
    allowed: bool


def window_of(now: dt.datetime) -> Window:
    epoch_minute = int(now.timestamp() // 60)
    start = dt.datetime.fromtimestamp(epoch_minute * 60, dt.UTC)
    return Window(str(epoch_minute), start, start + WINDOW)


def shard_count(limit: int) -> int:
    return max(1, min(MAX_SHARDS, math.ceil(limit / REQUESTS_PER_SHARD)))


def slice_of(limit: int, shards: int, shard: int) -> int:
    """The calls per window that one shard admits; the slices add up to the limit."""
    return limit // shards + (1 if shard < limit % shards else 0)


class FullWindows:
    """Windows this process has seen full, per workspace, so refusals cost no Firestore operation."""

    def __init__(self):
        self._lock = threading.Lock()
        self._full: dict[str, tuple[str, int]] = {}

    def is_full(self, client_id: str, window: Window, limit: int) -> bool:
        with self._lock:
            seen = self._full.get(client_id)
        # A limit raised since then may have room again.
        return seen is not None and seen[0] == window.window_id and limit <= seen[1]

    def mark_full(self, client_id: str, window: Window, limit: int) -> None:
        with self._lock:
            if len(self._full) > 10_000:
                self._full.clear()
            self._full[client_id] = (window.window_id, limit)


full_windows = FullWindows()
