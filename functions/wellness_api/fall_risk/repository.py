"""All Firestore access of fall risk.

Layout:
    clients/{clientId}/fallRiskResults/{fallRiskResultId}   a result: steps as recorded, scoring once complete
    clients/{clientId}/fallRiskActivity/{day}_{shard}       the daily rollup (core.rollups): created and completed
                                                            by origin, risk levels, urgent, test sums by age group;
                                                            on the day a result was created, how many of that day's
                                                            results were started and completed (cohort*)
    clients/{clientId}/users/{uid}.fallRisk                 the member's latest completed result: riskLevel,
                                                            urgentAttention, completedAt, fallRiskResultId

Result ids sort newest first (a reversed millisecond time, then randomness): a user's list and the client-wide
list are one index range each, ordered by document id; a cursor is an id (no read); a date range is a range of
ids (no createdAt index); results created meanwhile sort before any cursor. Filters are equalities on single
fields, which Firestore serves from its automatic single-field indexes merged on the document id.

A step is written with a precondition on the result's update time as read (core.transactions.optimistic): of two
steps sent at once, one commits and the other is re-applied on fresh data, so the step that completes the result
always sees all five, and the scoring and the rollup change in that same commit, exactly once.
"""

import dataclasses
import datetime as dt
import secrets
import string
from typing import Any

from google.cloud import firestore

from ..core import activity, firebase, reads, tenancy, transactions
from ..core.transactions import Seen

RESULTS = "fallRiskResults"
ACTIVITY = activity.FALL_RISK

_ID_TIME_DIGITS = 13
_ID_SUFFIX = string.ascii_lowercase + string.digits


def results_collection(client_id: str):
    return tenancy.client_ref(client_id).collection(RESULTS)


def result_ref(client_id: str, result_id: str):
    return results_collection(client_id).document(result_id)


def _reversed_millis(moment: dt.datetime) -> str:
    # Clamped to the ids' range (1970 to 2286), so that a bound far in the past or future still sorts right.
    millis = min(max(int(moment.timestamp() * 1000), 0), 10**_ID_TIME_DIGITS - 1)
    return f"{10**_ID_TIME_DIGITS - 1 - millis:0{_ID_TIME_DIGITS}d}"


def new_result_id(created_at: dt.datetime) -> str:
    """Sorts before every result created earlier (to the millisecond)."""
    return _reversed_millis(created_at) + "".join(secrets.choice(_ID_SUFFIX) for _ in range(8))


def id_bound(moment: dt.datetime) -> str:
    """The 13-digit time prefix of ids created at `moment` (ids of later moments sort before it)."""
    return _reversed_millis(moment)


# After every id suffix character (a-z, 0-9): "<prefix>~" sorts after every id that starts with <prefix>.
_AFTER_SUFFIXES = "~"


def seen_result(client_id: str, result_id: str) -> Seen:
    return transactions.read(result_ref(client_id, result_id))


def get_member(client_id: str, uid: str) -> dict[str, Any] | None:
    return reads.document(tenancy.user_ref(client_id, uid))


def create(result: dict[str, Any], activity: dict[str, int]) -> None:
    batch = firebase.db().batch()
    batch.create(result_ref(result["clientId"], result["fallRiskResultId"]), result)
    ACTIVITY.add(result["clientId"], activity, user=result["userId"], moment=result["createdAt"],
                 within=batch)
    batch.commit()


def member_exists(client_id: str, uid: str) -> bool:
    return tenancy.user_ref(client_id, uid).get().exists


def commit_step(seen: Seen, updated: dict[str, Any], cohort: dict[str, int] | None,
                completion: dict[str, int | float] | None, *, member: bool = False) -> None:
    """Replace the result as it was read (or fail), in one commit with what the step adds to the rollup: to the
    day the result was created (`cohort`: it started, or completed) and to today (`completion`); a completion is
    also the latest outcome of the member (`member`: the subject has a member record; a guest has none)."""
    client_id, uid = updated["clientId"], updated["userId"]
    batch = firebase.db().batch()
    batch.update(result_ref(client_id, updated["fallRiskResultId"]), updated, option=transactions.unchanged(seen))
    if cohort:
        ACTIVITY.add(client_id, cohort, user=uid, moment=updated["createdAt"], within=batch)
    if completion:
        ACTIVITY.add(client_id, completion, user=uid, moment=updated["completedAt"], within=batch)
    if completion and member:
        # update, never set: the member record is the identity area's, only this field is fall risk's, and a
        # record that vanished meanwhile fails the commit (retried on fresh reads) rather than being made up.
        # Completions are "now", so the last one written is the latest.
        batch.update(tenancy.user_ref(client_id, uid), {"fallRisk": {
            "fallRiskResultId": updated["fallRiskResultId"], "riskLevel": updated["riskLevel"],
            "urgentAttention": updated["urgentAttention"], "completedAt": updated["completedAt"],
        }})
    batch.commit()


@dataclasses.dataclass(frozen=True)
class Filters:
    user_id: str | None = None
    status: str | None = None
    risk_level: int | None = None
    urgent: bool | None = None
    origin: str | None = None
    newest_id: str | None = None  # ids sort newest first: the range starts at this time prefix (the newest moment)
    oldest_id: str | None = None  # ... and takes every id up to this time prefix (the oldest moment), inclusive


def page(client_id: str, filters: Filters, limit: int, start_after: str | None) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` results after the cursor, newest first, and whether more follow (one extra is read)."""
    query = results_collection(client_id)
    for field, value in (("userId", filters.user_id), ("status", filters.status), ("riskLevel", filters.risk_level),
                         ("urgentAttention", filters.urgent), ("origin", filters.origin)):
        if value is not None:
            query = query.where(filter=firestore.FieldFilter(field, "==", value))
    query = query.order_by("__name__")
    lower = max(filter(None, (start_after, filters.newest_id)), default=None)
    if start_after and lower == start_after:
        query = query.start_after({"__name__": result_ref(client_id, start_after)})
    elif lower:
        query = query.start_at({"__name__": result_ref(client_id, lower)})
    if filters.oldest_id:
        query = query.end_before({"__name__": result_ref(client_id, filters.oldest_id + _AFTER_SUFFIXES)})
    # Decoded once into dicts of our own (core.reads): Query.stream() deep-copies each result into its snapshot.
    found = [data for _, data in reads.rows(query.limit(limit + 1))]
    return found[:limit], len(found) > limit
