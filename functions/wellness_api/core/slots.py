"""Concurrency slots: at most `limit` requests of one key running at once, across every instance.

The leases of one key live in one document, rateLimits/slots:{scope}:{key}, as a map {leaseId: expiry}
(rateLimits, the collection of the abuse counters, whose TTL policy on expiresAt deletes documents nobody
uses any more). Taking slots is one transaction over the documents of every limit asked for: the leases still
running are counted, expired ones dropped, and a lease is added to each only when every one has room, so a
request never holds one slot while it waits for another. Giving them back deletes the map entries (one write
per document, no read).

A lease runs out by itself at its expiry: a slot held by an instance that crashed, or was stopped at its
timeout before its `finally`, frees itself then. Leases are therefore taken for longer than the longest
request they guard.
"""

import dataclasses
import datetime as dt
import threading
import uuid

from google.api_core import exceptions as gexc
from google.cloud import firestore

from . import clock, firebase, transactions
from . import logging as log

COLLECTION = "rateLimits"
EXPIRY_GRACE = dt.timedelta(hours=1)


@dataclasses.dataclass(frozen=True)
class Limit:
    scope: str  # names the limit in document ids ("assistantUser", "assistantClient")
    key: str  # document-id safe (ratelimit.caller_key, a client id)
    limit: int  # leases at once

    def ref(self):
        return firebase.db().collection(COLLECTION).document(f"slots:{self.scope}:{self.key}")


class Full(Exception):
    """Every slot of `limit` is taken."""

    def __init__(self, limit: Limit):
        super().__init__(f"{limit.scope}: all {limit.limit} slots are taken")
        self.limit = limit


def _live(data: dict | None, now: dt.datetime) -> dict[str, dt.datetime]:
    leases = (data or {}).get("leases")
    return {lease: expiry for lease, expiry in (leases or {}).items()
            if isinstance(expiry, dt.datetime) and expiry > now}


class Lease:
    """Slots held by one request; release() gives them back, once, from whichever path gets there first."""

    def __init__(self, lease_id: str, limits: list[Limit]):
        self.lease_id = lease_id
        self.limits = limits
        self._released = False
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        for limit in self.limits:
            try:
                limit.ref().update({f"leases.{self.lease_id}": firestore.DELETE_FIELD})
            except gexc.NotFound:
                pass  # the document expired and was deleted: nothing to give back
            except Exception as exc:  # noqa: BLE001 - the lease still frees itself at its expiry
                log.error(f"slot lease not released: {type(exc).__name__}: {exc}", scope=limit.scope)


def acquire(limits: list[Limit], lease_seconds: int) -> Lease:
    """A lease on one slot of every limit, or Full naming the first limit that has none free."""
    lease_id = uuid.uuid4().hex
    refs = [limit.ref() for limit in limits]

    def body(transaction):
        now = clock.now()
        expiry = now + dt.timedelta(seconds=lease_seconds)
        seen = [_live(snap.to_dict() if snap.exists else None, now)
                for snap in (ref.get(transaction=transaction) for ref in refs)]
        for limit, live in zip(limits, seen, strict=True):
            if len(live) >= limit.limit:
                raise Full(limit)
        for limit, ref, live in zip(limits, refs, seen, strict=True):
            transaction.set(ref, {"scope": limit.scope, "leases": {**live, lease_id: expiry},
                                  "expiresAt": max([expiry, *live.values()]) + EXPIRY_GRACE})

    transactions.run(body)
    return Lease(lease_id, limits)


def held(limit: Limit) -> int:
    """Leases of `limit` running now (for tests and operators)."""
    snap = limit.ref().get()
    return len(_live(snap.to_dict() if snap.exists else None, clock.now()))
