"""Per-client, per-day counters spread over shards: usage metering and the areas' activity rollups.

Layout (one collection per kind of counter, under each client):

    clients/{clientId}/{collection}/{YYYY-MM-DD}_{shard}      shard = 00 .. shards-1
        clientId: str, day: "YYYY-MM-DD" (UTC), shard: int,
        counts: {<group>: {<name>: int, ...}, ...}

Each `add` increments its counters with firestore.Increment on ONE shard chosen at random, so the writes
of a busy client spread over `shards` documents per day (one document sustains only about one write per
second under contention), and an increment needs no read: inside a transaction or batch it adds a write
and never a conflict. A day's totals are the sum over its shards; `daily()` reads a date range with one single-field
range query on `day` (automatically indexed), so its cost is at most `shards` documents per day that had
activity, however many events there were. Readers (analytics) never scan events.
"""

import datetime as dt
import random
import re
from collections.abc import Mapping

from google.cloud import firestore

from . import clock, firebase

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")


def day_of(moment: dt.datetime | None = None) -> str:
    """The UTC calendar day of a moment (default: now) as YYYY-MM-DD."""
    return (moment or clock.now()).astimezone(dt.UTC).strftime("%Y-%m-%d")


class DailyCounters:
    def __init__(self, collection: str, shards: int = 16):
        self.collection = collection
        self.shards = shards

    def shards_collection(self, client_id: str):
        return firebase.db().collection("clients").document(client_id).collection(self.collection)

    def shard_ref(self, client_id: str, day: str, shard: int):
        return self.shards_collection(client_id).document(f"{day}_{shard:02d}")

    def add(self, client_id: str, group: str, counts: Mapping[str, int | float], *,
            moment: dt.datetime | None = None, within=None) -> None:
        """Add `counts` to the client's `group` counters of the day of `moment`; `within`: a transaction or batch
        to add the write to (default: written at once)."""
        for name in (group, *counts):
            if not _NAME.match(name):
                raise ValueError(f"invalid counter name: {group}.{name}")
        day = day_of(moment)
        shard = random.randrange(self.shards)  # noqa: S311 - load spreading, not security
        data = {
            "clientId": client_id,
            "day": day,
            "shard": shard,
            "counts": {group: {name: firestore.Increment(value) for name, value in counts.items()}},
        }
        ref = self.shard_ref(client_id, day, shard)
        if within is None:
            ref.set(data, merge=True)
        else:
            within.set(ref, data, merge=True)

    def daily(self, client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, dict[str, int | float]]]:
        """{day: {group: {name: total}}} for the days in [start_day, end_day] that had counts."""
        query = (
            self.shards_collection(client_id)
            .where(filter=firestore.FieldFilter("day", ">=", start_day))
            .where(filter=firestore.FieldFilter("day", "<=", end_day))
        )
        days: dict[str, dict[str, dict[str, int | float]]] = {}
        for snap in query.stream():
            data = snap.to_dict() or {}
            groups = days.setdefault(data.get("day", ""), {})
            for group, counters in (data.get("counts") or {}).items():
                totals = groups.setdefault(group, {})
                for name, value in (counters or {}).items():
                    totals[name] = totals.get(name, 0) + value
        return dict(sorted(days.items()))
