"""Usage metering: per-client, per-day request counts that analytics can read without a hot document.

Layout: clients/{clientId}/usageShards/{YYYY-MM-DD}_{shard} (core.rollups), with
counts: {<area>: {"total": int, <operation>: int, ...}, ...}.

Every metered request increments `counts.<area>.total` and `counts.<area>.<operation>` on one shard
chosen at random. Metering is best effort: a failed increment is logged and never fails the request
it counts.
"""

import datetime as dt

from google.cloud.firestore import DocumentReference

from . import logging as log
from .rollups import DailyCounters, day_of

COUNTERS = DailyCounters("usageShards")
COLLECTION = COUNTERS.collection
SHARDS = COUNTERS.shards
TOTAL = "total"

__all__ = ["COLLECTION", "SHARDS", "TOTAL", "daily", "day_of", "day_totals", "increment", "record", "shard_ref"]


def shard_ref(client_id: str, day: str, shard: int) -> DocumentReference:
    return COUNTERS.shard_ref(client_id, day, shard)


def increment(client_id: str, area: str, operation: str, count: int = 1, moment: dt.datetime | None = None) -> None:
    """Count `count` requests of `area`/`operation` for the client today (raises on Firestore errors)."""
    if operation == TOTAL:
        raise ValueError(f"invalid usage counter name: {area}.{operation}")
    COUNTERS.add(client_id, area, {TOTAL: count, operation: count}, moment=moment)


def record(client_id: str | None, area: str, operation: str) -> None:
    """Best-effort `increment`: a metering failure is logged, never raised."""
    if not client_id:
        return
    try:
        increment(client_id, area, operation)
    except Exception as exc:  # noqa: BLE001 - metering must never fail the request it counts
        log.warning(f"usage metering failed: {type(exc).__name__}", clientId=client_id, area=area, operation=operation)


def daily(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, dict[str, int | float]]]:
    """{day: {area: {"total": n, operation: n}}} for the days in [start_day, end_day] that had traffic."""
    return COUNTERS.daily(client_id, start_day, end_day)


def day_totals(client_id: str, day: str) -> dict[str, dict[str, int | float]]:
    """{area: {"total": n, operation: n}} of one day (empty when there was no traffic)."""
    return daily(client_id, day, day).get(day, {})
