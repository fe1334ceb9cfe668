"""Usage metering: per-client, per-day request counts that analytics can read without a hot document.

Layout (one collection per client):

    clients/{clientId}/usageShards/{YYYY-MM-DD}_{shard}      shard = 00 .. SHARDS-1
        clientId: str, day: "YYYY-MM-DD" (UTC), shard: int,
        counts: {<area>: {"total": int, <operation>: int, ...}, ...}

Every metered request increments `counts.<area>.total` and `counts.<area>.<operation>` with
firestore.Increment on ONE shard chosen at random, so the write load of a busy client spreads over
SHARDS documents per day (a single document sustains only about one write per second under
contention). A day's totals are the sum over its shards; `daily()` reads a date range with one
single-field range query on `day` (automatically indexed; no composite index needed), so its cost is at
most SHARDS documents per day that had traffic, whatever the number of requests.

Metering is best effort: a failed increment is logged and never fails the request it counts.
"""

import datetime as dt
import random
import re

from google.cloud import firestore

from . import clock, firebase
from . import logging as log

COLLECTION = "usageShards"
SHARDS = 16
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
TOTAL = "total"


def day_of(moment: dt.datetime | None = None) -> str:
    """The UTC calendar day of a moment (default: now) as YYYY-MM-DD."""
    return (moment or clock.now()).astimezone(dt.UTC).strftime("%Y-%m-%d")


def shards_collection(client_id: str):
    return firebase.db().collection("clients").document(client_id).collection(COLLECTION)


def shard_ref(client_id: str, day: str, shard: int):
    return shards_collection(client_id).document(f"{day}_{shard:02d}")


def increment(client_id: str, area: str, operation: str, count: int = 1, moment: dt.datetime | None = None) -> None:
    """Count `count` requests of `area`/`operation` for the client today (raises on Firestore errors)."""
    if not _NAME.match(area) or not _NAME.match(operation) or operation == TOTAL:
        raise ValueError(f"invalid usage counter name: {area}.{operation}")
    day = day_of(moment)
    shard = random.randrange(SHARDS)  # noqa: S311 - load spreading, not security
    shard_ref(client_id, day, shard).set(
        {
            "clientId": client_id,
            "day": day,
            "shard": shard,
            "counts": {area: {TOTAL: firestore.Increment(count), operation: firestore.Increment(count)}},
        },
        merge=True,
    )


def record(client_id: str | None, area: str, operation: str) -> None:
    """Best-effort `increment`: a metering failure is logged, never raised."""
    if not client_id:
        return
    try:
        increment(client_id, area, operation)
    except Exception as exc:  # noqa: BLE001 - metering must never fail the request it counts
        log.warning(f"usage metering failed: {type(exc).__name__}", clientId=client_id, area=area, operation=operation)


def daily(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, dict[str, int]]]:
    """{day: {area: {"total": n, operation: n}}} for the days in [start_day, end_day] that had traffic."""
    query = (
        shards_collection(client_id)
        .where(filter=firestore.FieldFilter("day", ">=", start_day))
        .where(filter=firestore.FieldFilter("day", "<=", end_day))
    )
    days: dict[str, dict[str, dict[str, int]]] = {}
    for snap in query.stream():
        data = snap.to_dict() or {}
        areas = days.setdefault(data.get("day", ""), {})
        for area, counters in (data.get("counts") or {}).items():
            totals = areas.setdefault(area, {})
            for name, value in (counters or {}).items():
                totals[name] = totals.get(name, 0) + int(value)
    return dict(sorted(days.items()))


def day_totals(client_id: str, day: str) -> dict[str, dict[str, int]]:
    """{area: {"total": n, operation: n}} of one day (empty when there was no traffic)."""
    return daily(client_id, day, day).get(day, {})
