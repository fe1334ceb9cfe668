"""Concurrency slots: at most `limit` requests of one key running at once, across every instance.

Every lease is a document of its own, rateLimits/slots:{scope}:{key}/slotLeases/{leaseId}, holding only its
expiry, so no document is written by more than the one request that owns it: the old design (one document per
key holding a map of leases, taken in a transaction) capped a tenant at Firestore's ~1 sustained write/s per
document and timed out on the emulator's transaction locks with a handful of chats at once.

Admission is create-then-count: the request first creates its leases (one per limit, one batched commit), then
counts the live leases of each key (a count() over `expiresAt > now` in the key's collection, served by the
automatic single-field index), and when any count is over its limit it deletes the leases it created and is
refused. That never admits more than `limit` at once: of any set of leases held together, the one created last
counted after every other one was created, and so saw them all. Racers can instead both see too many and both
give back, refusing a request a serial order would have admitted: the refusal is transient (429, retry), and
when fewer requests race than the limit allows, none is refused. Giving a lease back deletes its documents
(one write each, no read; deleting a deleted document is no error).

A lease runs out by itself at its expiry: a slot held by an instance that crashed, or was stopped at its
timeout before its `finally`, no longer counts then. Leases are therefore taken for longer than the longest
request they guard. The TTL policy on the slotLeases collection group's expiresAt deletes the leftovers.
"""

import dataclasses
import datetime as dt
import threading
import uuid
from typing import Any

from google.cloud import firestore

from . import clock, firebase
from . import logging as log

COLLECTION = "rateLimits"
LEASES = "slotLeases"


@dataclasses.dataclass(frozen=True)
class Limit:
    scope: str  # names the limit in document ids ("assistantUser", "assistantClient")
    key: str  # document-id safe (ratelimit.caller_key, a client id)
    limit: int  # leases at once

    def leases(self) -> firestore.CollectionReference:
        return firebase.db().collection(COLLECTION, f"slots:{self.scope}:{self.key}", LEASES)


class Full(Exception):
    """Every slot of `limit` is taken."""

    def __init__(self, limit: Limit):
        super().__init__(f"{limit.scope}: all {limit.limit} slots are taken")
        self.limit = limit


def _live(limit: Limit, now: dt.datetime) -> int:
    query = limit.leases().where(filter=firestore.FieldFilter("expiresAt", ">", now))
    # google-cloud-firestore annotates count() as returning the AggregationQuery class, and its get() as a flat
    # list of results; they are an instance and a list of lists.
    counted: Any = query.count(alias="n")
    return int(counted.get()[0][0].value)


def _delete(lease_id: str, limits: list[Limit]) -> None:
    batch = firebase.db().batch()
    for limit in limits:
        batch.delete(limit.leases().document(lease_id))
    batch.commit()


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
        try:
            _delete(self.lease_id, self.limits)
        except Exception as exc:  # noqa: BLE001 - the lease still stops counting at its expiry
            log.error(f"slot lease not released: {type(exc).__name__}: {exc}",
                      scopes=",".join(limit.scope for limit in self.limits))


def acquire(limits: list[Limit], lease_seconds: int) -> Lease:
    """A lease on one slot of every limit, or Full naming the first limit that has none free."""
    lease = Lease(uuid.uuid4().hex, limits)
    now = clock.now()
    batch = firebase.db().batch()
    for limit in limits:
        batch.create(limit.leases().document(lease.lease_id), {"expiresAt": now + dt.timedelta(seconds=lease_seconds)})
    batch.commit()
    try:
        for limit in limits:
            if _live(limit, clock.now()) > limit.limit:
                raise Full(limit)
    except BaseException:
        # Refused (or the count failed): a request never holds one slot while it is refused another.
        lease.release()
        raise
    return lease


def held(limit: Limit) -> int:
    """Leases of `limit` running now (for tests and operators)."""
    return _live(limit, clock.now())
