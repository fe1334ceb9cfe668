"""Per-client, per-day counters spread over shards: usage metering and the areas' activity rollups.

Layout (one collection per kind of counter, under each client):

    clients/{clientId}/{collection}/{YYYY-MM-DD}_{shard}      shard = 00 .. shards-1
        clientId: str, day: "YYYY-MM-DD" (UTC), shard: int,
        counts: {<group>: {<name>: int, ...}, ...},
        reach: {<group>: {<register>: rank, ...}, ...}     the day's active users (core.reach)
        pending: true                                       (compacted counters) not folded yet
    clients/{clientId}/{collection}/{YYYY-MM-DD}_all          (compacted counters) the day's folded shards
    clients/{clientId}/{collection}/lifetime_{shard}          the same, for all time (day: "lifetime"), kept
                                                              by counters made with lifetime=True

Each `add` increments its counters with firestore.Increment on ONE shard chosen at random, so the writes
of a busy client spread over `shards` documents per day (one document sustains only about one write per
second under contention), and an increment needs no read: inside a transaction or batch it adds a write
and never a conflict. A day's totals are the sum over its shards; `daily()` reads a date range with one single-field
range query on `day` (automatically indexed), so its cost is at most `shards` documents per day that had
activity, however many events there were. Readers (analytics) never scan events.

Compaction (counters made with compacted=True): `compact()` folds a day's shards into that day's one `_all`
document and deletes them, in one transaction, so a read of a day costs one document however many shards
its writers filled. A write after that (a late event, or the next one today) makes a shard again, which
readers add to the `_all` document, and the next compaction folds it in as well: nothing is counted twice
or lost, because a shard's value moves in the same transaction that deletes it, and a write to a shard the
transaction read makes it retry.
"""

import dataclasses
import datetime as dt
import random
import re
from collections.abc import Iterator, Mapping
from typing import Any

from google.cloud import firestore

from . import clock, firebase, reach, transactions

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
LIFETIME = "lifetime"  # the bucket of all time: sorts after every YYYY-MM-DD, so no day range takes it in


def day_of(moment: dt.datetime | None = None) -> str:
    """The UTC calendar day of a moment (default: now) as YYYY-MM-DD."""
    return (moment or clock.now()).astimezone(dt.UTC).strftime("%Y-%m-%d")


@dataclasses.dataclass
class Totals:
    """A bucket's counters summed over its shards (and clients): {group: {name: total}}, and its sketches."""

    counts: dict[str, dict[str, int | float]] = dataclasses.field(default_factory=dict)
    reach: dict[str, dict[int, int]] = dataclasses.field(default_factory=dict)

    def add_shard(self, data: dict[str, Any]) -> None:
        for group, counters in (data.get("counts") or {}).items():
            totals = self.counts.setdefault(group, {})
            for name, value in (counters or {}).items():
                totals[name] = totals.get(name, 0) + value
        for group, registers in (data.get("reach") or {}).items():
            reach.merge(self.reach.setdefault(group, {}), registers or {})

    def merge(self, other: "Totals") -> "Totals":
        """Add another bucket's totals (another day's, another client's) to these; returns self."""
        self.add_shard({"counts": other.counts, "reach": other.reach})
        return self

    def count(self, group: str, name: str) -> int | float:
        return self.counts.get(group, {}).get(name, 0)

    def active_users(self, group: str) -> int:
        return reach.estimate(self.reach.get(group, {}))


ALL = "all"  # the id suffix of a day's compacted document


class DailyCounters:
    def __init__(self, collection: str, shards: int = 16, *, lifetime: bool = False, compacted: bool = False):
        self.collection = collection
        self.shards = shards
        self.lifetime = lifetime
        self.compacted = compacted

    def shards_collection(self, client_id: str) -> firestore.CollectionReference:
        return firebase.db().collection("clients", client_id, self.collection)

    def shard_ref(self, client_id: str, day: str, shard: int) -> firestore.DocumentReference:
        return self.shards_collection(client_id).document(f"{day}_{shard:02d}")

    def add(self, client_id: str, group: str, counts: Mapping[str, int | float], *, user: str | None = None,
            moment: dt.datetime | None = None, within: firestore.Transaction | firestore.WriteBatch | None = None,
            ) -> None:
        """Add `counts` to the client's `group` counters of the day of `moment` (and of all time, where kept);
        `user`: who was active (the day's sketch of `group`); `within`: a transaction or batch to add the
        writes to (default: written at once)."""
        for name in (group, *counts):
            if not _NAME.match(name):
                raise ValueError(f"invalid counter name: {group}.{name}")
        if user is None:
            shard = random.randrange(self.shards)  # noqa: S311 - load spreading, not security
        else:
            # By register, so each of a day's shards holds a sixteenth of the sketch, and one user's
            # registers are never split.
            index, rank = reach.register_of(client_id, user)
            shard = index % self.shards
        for day in (day_of(moment), *((LIFETIME,) if self.lifetime else ())):
            data: dict[str, Any] = {
                "clientId": client_id,
                "day": day,
                "shard": shard,
                "counts": {group: {name: firestore.Increment(value) for name, value in counts.items()}},
            }
            if user is not None:
                data["reach"] = {group: {str(index): firestore.Maximum(rank)}}
            if self.compacted and day != LIFETIME:
                data["pending"] = True
            ref = self.shard_ref(client_id, day, shard)
            if within is None:
                ref.set(data, merge=True)
            else:
                within.set(ref, data, merge=True)

    def _scope(self, client_id: str | None) -> firestore.CollectionReference | firestore.CollectionGroup:
        """One client's shards, or with None every client's (a collection-group query)."""
        if client_id is None:
            return firebase.db().collection_group(self.collection)
        return self.shards_collection(client_id)

    def documents(self, client_id: str | None, start_day: str, end_day: str) -> Iterator[dict[str, Any]]:
        """The shard documents of the days in [start_day, end_day] (LIFETIME, LIFETIME: the lifetime bucket);
        client None: every client's (a collection-group query), each naming its clientId."""
        query = (
            self._scope(client_id)
            .where(filter=firestore.FieldFilter("day", ">=", start_day))
            .where(filter=firestore.FieldFilter("day", "<=", end_day))
        )
        for snap in query.stream():
            yield snap.to_dict() or {}

    def days(self, client_id: str | None, start_day: str, end_day: str) -> dict[str, Totals]:
        """{day: Totals} for the days in [start_day, end_day] that had activity; client None: every client."""
        days: dict[str, Totals] = {}
        for data in self.documents(client_id, start_day, end_day):
            days.setdefault(data.get("day", ""), Totals()).add_shard(data)
        return dict(sorted(days.items()))

    def all_time(self, client_id: str | None) -> Totals:
        """The lifetime bucket (counters made with lifetime=True); client None: every client's together."""
        totals = Totals()
        for data in self.documents(client_id, LIFETIME, LIFETIME):
            totals.add_shard(data)
        return totals

    def pending(self, limit: int) -> dict[tuple[str, str], list[firestore.DocumentReference]]:
        """Up to `limit` shards not folded yet, of every client, by (client, day): what `compact` takes."""
        query = firebase.db().collection_group(self.collection).where(
            filter=firestore.FieldFilter("pending", "==", True)).limit(limit)
        found: dict[tuple[str, str], list[firestore.DocumentReference]] = {}
        for snap in query.stream():
            data = snap.to_dict() or {}
            found.setdefault((data.get("clientId", ""), data.get("day", "")), []).append(snap.reference)
        return found

    def compact(self, client_id: str, day: str, shard_refs: list[firestore.DocumentReference]) -> None:
        """Fold these shards of a day into the day's `_all` document and delete them, all or nothing."""
        total_ref = self.shards_collection(client_id).document(f"{day}_{ALL}")

        def fold(transaction: firestore.Transaction) -> None:
            total = total_ref.get(transaction=transaction)
            shards = [snap for snap in firebase.db().get_all(shard_refs, transaction=transaction) if snap.exists]
            if not shards:
                return
            totals = Totals()
            for snap in (total, *shards):
                if snap.exists:
                    totals.add_shard(snap.to_dict() or {})
            transaction.set(total_ref, {
                "clientId": client_id, "day": day, "shard": ALL, "counts": totals.counts,
                "reach": {group: {str(index): rank for index, rank in registers.items()}
                          for group, registers in totals.reach.items()},
                "compactedAt": clock.now(),
            })
            for snap in shards:
                transaction.delete(snap.reference)

        transactions.run(fold)

    def daily(self, client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, dict[str, int | float]]]:
        """{day: {group: {name: total}}} for the days in [start_day, end_day] that had counts."""
        return {day: totals.counts for day, totals in self.days(client_id, start_day, end_day).items()}
