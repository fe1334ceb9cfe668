"""Analytics' reads: aggregation queries over the members, and the areas' activity rollups (core.activity).

Nothing here reads an event. The member figures are count() and avg() aggregations, which Firestore answers
from its indexes (billed one read per batch of up to 1,000 index entries, so by members, never by activity);
the activity figures are the rollups' shard documents, at most 16 per day of the range and module.

Members: clients/{clientId}/users/{uid} with role "player" and status "active" are a client's linked players
(the population of a Players page: no admins, no disabled members, no pending invitations). The operator
tenant's broad view is every client's: the same filters over the `users` collection group.
"""

import datetime as dt
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from google.cloud.firestore_v1.base_query import FieldFilter

from ..core import firebase, tenancy
from ..core.rollups import DailyCounters
from ..core.tenancy import ROLE_PLAYER, USER_ACTIVE, Client

# Aggregations are independent round trips: a few at once keep the overview's latency near one of them.
_PARALLEL = 8


def linked_players(client_id: str | None):
    """The linked players of one client, or with None of every client."""
    db = firebase.db()
    base = db.collection_group(tenancy.USERS) if client_id is None else tenancy.client_ref(client_id).collection(
        tenancy.USERS)
    return base.where(filter=FieldFilter("role", "==", ROLE_PLAYER)).where(filter=FieldFilter("status", "==",
                                                                                              USER_ACTIVE))


def count(query) -> int:
    return int(query.count().get()[0][0].value)


def gather(jobs: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Run independent reads at once; {name: result}."""
    with ThreadPoolExecutor(min(_PARALLEL, len(jobs))) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


def count_players(client_id: str | None, *filters: FieldFilter) -> int:
    query = linked_players(client_id)
    for one in filters:
        query = query.where(filter=one)
    return count(query)


def born_between(after: dt.date | None, until: dt.date) -> list[FieldFilter]:
    """Members born after `after` (exclusive) and on or before `until`, by their YYYY-MM-DD birthDate."""
    found = [FieldFilter("birthDate", "<=", until.isoformat())]
    if after is not None:
        found.append(FieldFilter("birthDate", ">", after.isoformat()))
    return found


def average_birth_ordinal(client_id: str | None) -> float | None:
    """The mean birthOrdinal of the linked players who have one; None when none has (counted in the same
    aggregation: an average over nothing is null in Firestore but 0 in its emulator)."""
    query = linked_players(client_id).where(filter=FieldFilter("birthOrdinal", ">", 0))
    found = {result.alias: result.value for result in query.count(alias="n").avg("birthOrdinal", alias="mean").get()[0]}
    return float(found["mean"]) if found["n"] else None


def day_documents(counters: DailyCounters, client_id: str | None, start_day: str, end_day: str) -> Iterator[dict]:
    """A rollup's documents of the days in [start_day, end_day], in day order (a reader folds one day at a time);
    client None: every client's."""
    db = firebase.db()
    base = db.collection_group(counters.collection) if client_id is None else counters.shards_collection(client_id)
    query = (base.where(filter=FieldFilter("day", ">=", start_day)).where(filter=FieldFilter("day", "<=", end_day))
             .order_by("day"))
    for snap in query.stream():
        yield snap.to_dict() or {}


def client_names(client_ids: set[str]) -> dict[str, str]:
    refs = [tenancy.client_ref(client_id) for client_id in sorted(client_ids)]
    return {snap.id: Client.from_snapshot(snap).name for snap in firebase.db().get_all(refs) if snap.exists}


def first_clients(limit: int) -> list[Client]:
    """The first `limit` clients by id (the platform administrators' client picker)."""
    return [Client.from_snapshot(snap) for snap in
            firebase.db().collection(tenancy.CLIENTS).order_by("__name__").limit(limit).stream()]

