"""Each user's revocation time and disabled state, looked up in Firebase Auth at most once per TTL per instance.

Checking revocation on every ID-token request costs one Auth lookup (get_user) per request; this cache bounds
that to one lookup per user per TTL on each instance. The price is a delay: a revocation or a disable made
outside this process takes effect on an instance at the latest TTL seconds after it was made (an entry is
never older than TTL, counted from the moment its lookup started). One made through this process
(users.disable_user) calls forget() and takes effect here at once.

Bounded: at most MAX_ENTRIES users (least recently used dropped first), each entry a few hundred bytes.
Thread-safe: a lookup runs outside the lock, and concurrent first requests of one user share one lookup.
"""

import collections
import dataclasses
import datetime as dt
import threading
from collections.abc import Callable

from . import clock, firebase

# The longest delay before a revocation or a disable made elsewhere (platformctl, the Firebase console) takes
# effect on an instance. The README states it; tests/core/test_revocation.py holds it.
TTL = dt.timedelta(seconds=30)
# ~10,000 users active within a TTL on one instance is far above what one instance serves; a few MB at most.
MAX_ENTRIES = 10_000


@dataclasses.dataclass(frozen=True)
class Standing:
    """What Auth said about a user: tokens issued before valid_after_ms are revoked; refused: disabled or gone."""

    valid_after_ms: int
    refused: bool
    fetched_at: dt.datetime

    def admits(self, issued_at: int | float) -> bool:
        return not self.refused and issued_at * 1000 >= self.valid_after_ms


def auth_lookup(uid: str) -> tuple[int, bool]:
    """(tokens valid after, in ms since the epoch; disabled or deleted) from Firebase Auth: one get_user call."""
    fb_auth = firebase.auth()
    try:
        user = fb_auth.get_user(uid, app=firebase.app())
    except fb_auth.UserNotFoundError:
        return 0, True
    return user.tokens_valid_after_timestamp or 0, bool(user.disabled)


class _Flight:
    """One lookup under way; forget() during it marks its answer as too old to keep."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.forgotten = False


class RevocationCache:
    def __init__(self, lookup: Callable[[str], tuple[int, bool]] = auth_lookup, ttl: dt.timedelta = TTL,
                 max_entries: int = MAX_ENTRIES, now: Callable[[], dt.datetime] = clock.now):
        self._lookup, self._ttl, self._max, self._now = lookup, ttl, max_entries, now
        self._entries: collections.OrderedDict[str, Standing] = collections.OrderedDict()
        self._flights: dict[str, _Flight] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _fresh(self, uid: str) -> Standing | None:
        entry = self._entries.get(uid)
        if entry is None:
            return None
        age = self._now() - entry.fetched_at
        # A clock moved backwards (tests shift core.clock) makes the age negative: look again rather than trust it.
        if dt.timedelta(0) <= age < self._ttl:
            self._entries.move_to_end(uid)
            return entry
        del self._entries[uid]
        return None

    def standing(self, uid: str) -> Standing:
        """The user's standing, at most TTL old; Auth errors other than "no such user" propagate."""
        while True:
            with self._lock:
                entry = self._fresh(uid)
                if entry is not None:
                    return entry
                flight = self._flights.get(uid)
                if flight is None:
                    flight = self._flights[uid] = _Flight()
                    break
            # Another request of this user is looking it up: wait for its answer (or its failure, then try).
            flight.done.wait()
        try:
            started = self._now()
            valid_after_ms, refused = self._lookup(uid)
            entry = Standing(valid_after_ms, refused, started)
            with self._lock:
                if not flight.forgotten and self._ttl > dt.timedelta(0):
                    self._entries[uid] = entry
                    self._entries.move_to_end(uid)
                    while len(self._entries) > self._max:
                        self._entries.popitem(last=False)
            return entry
        finally:
            with self._lock:
                self._flights.pop(uid, None)
            flight.done.set()

    def forget(self, uid: str) -> None:
        """Drop what is known of the user (this process just revoked or disabled them): the next request looks."""
        with self._lock:
            self._entries.pop(uid, None)
            flight = self._flights.get(uid)
            if flight is not None:
                flight.forgotten = True

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            for flight in self._flights.values():
                flight.forgotten = True


# One per process, shared by its concurrent requests: it holds no request's data, only Auth's answer per uid.
cache = RevocationCache()


def standing(uid: str) -> Standing:
    return cache.standing(uid)


def forget(uid: str) -> None:
    cache.forget(uid)
