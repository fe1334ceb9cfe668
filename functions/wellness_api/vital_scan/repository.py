"""Firestore access of Vital Scan; every path of the area is here.

clients/{clientId}/vitalScanSessions/{sessionId}    sessions (soft-deleted ones keep `deleted: true`)
clients/{clientId}/vitalScanPoints/{cycle}_{shard}  spent points per shard of a cycle (points.py)
clients/{clientId}/vitalScanRate/{window}_{shard}   calls counted per one-minute window (ratelimit.py)
clients/{clientId}/vitalScanActivity/{day}_{shard} the daily rollup (core.rollups), group vitalScan: sessions
                                                    created, started, completed, failed and expired, and the
                                                    day's scanned users; written in the session's own commit
vitalScanTokens/{sha256(scanToken)}                 hosted-session token -> (clientId, sessionId)
"""

import datetime as dt
import random
import time

from google.api_core import exceptions as gexc
from google.cloud import firestore

from ..core import activity, firebase, tenancy
from . import points, ratelimit, spread
from .models import COMPLETED, UNFINISHED

SESSIONS = "vitalScanSessions"
POINTS = "vitalScanPoints"
RATE = "vitalScanRate"
TOKENS = "vitalScanTokens"
ACTIVITY = activity.VITAL_SCAN
REMOVE = firestore.DELETE_FIELD  # a session field's value in an update: the field is deleted
# Token documents and void markers are removed by Firestore TTL policies on expireAt.
TOKEN_TTL_AFTER_EXPIRY = dt.timedelta(days=1)


# ------------------------------------------------------------------------------------------- refs


def session_ref(client_id: str, session_id: str):
    return tenancy.client_ref(client_id).collection(SESSIONS).document(session_id)


def new_session_id(client_id: str) -> str:
    return tenancy.client_ref(client_id).collection(SESSIONS).document().id


def token_ref(token_hash: str):
    return firebase.db().collection(TOKENS).document(token_hash)


def point_shard_ref(client_id: str, cycle_id: str, shard: int):
    return tenancy.client_ref(client_id).collection(POINTS).document(points.shard_doc_id(cycle_id, shard))


def rate_ref(client_id: str, window_id: str, shard: int):
    return tenancy.client_ref(client_id).collection(RATE).document(f"{window_id}_{shard:02d}")


def visible(snap) -> dict | None:
    """A session document as the API may show it: None when missing, voided or soft-deleted."""
    if not snap.exists:
        return None
    data = snap.to_dict()
    if data.get("voided") or data.get("deleted") or "status" not in data:
        return None
    return data


# --------------------------------------------------------------------- capped shards (points, rate)


class Contended(Exception):
    """Too many compare-and-set conflicts in a row; nothing was written."""


MAX_CONFLICTS = 40
# A take reads only what it counts (and the update time, which every snapshot has): every partner call reads up to
# 16 rate shards, and decoding their other fields was a good part of the call's CPU.
USED = ["used"]


def _used(snap) -> int:
    return int(snap.get("used") or 0) if snap.exists else 0


def take_from_shards(refs: dict[int, firestore.DocumentReference], caps: dict[int, int], fields: dict, *, exhausted: set[int],
                     extra_writes=None, committed=None, read_all: bool = False) -> tuple[int, int] | None:
    """Take one unit from a shard with room, with compare-and-set; None when every shard is full.

    Each shard document counts what it has given (`used`) against its own cap. A take picks a shard (at random
    among those no other request of this instance is taking from: spread.py), reads it, then commits `used + 1`
    with a precondition on the update time it read (or create() for a shard not written yet) in one atomic batch
    with `extra_writes(batch)`. A concurrent take of the same shard (another instance's) makes the precondition
    fail and nothing is written: the take re-reads and tries again. No transaction and no Firestore lock, so a
    shard never gives more than its cap. `exhausted` (updated in place) holds shards known full; they stay full.
    `committed()` tells, after a failed commit, whether our writes landed anyway (a retried commit).
    With `read_all`, every shard is read at once (one batched read) to know the total; the answer is
    (shard taken, units left in all shards after this take), else (shard, -1).
    """
    db = firebase.db()
    paths = {i: ref.path for i, ref in refs.items()}
    conflicts = 0
    while True:
        candidates = [i for i in refs if i not in exhausted and caps[i] > 0]
        if not candidates:
            return None
        with spread.shards.pick(paths, candidates) as shard:
            # Read after the pick: a take of this instance that was committing on the shard has finished.
            if read_all:
                snaps = {int(s.reference.id.rsplit("_", 1)[1]): s
                         for s in db.get_all([refs[i] for i in refs], field_paths=USED)}
                exhausted.update(i for i in candidates if _used(snaps[i]) >= caps[i])
                snap = snaps[shard]
            else:
                snap = refs[shard].get(field_paths=USED)
            used = _used(snap)
            if used >= caps[shard]:
                exhausted.add(shard)
                if not read_all:
                    # Look at the others in one batched read, so the next round picks one with room.
                    others = [i for i in candidates if i != shard]
                    for other in db.get_all([refs[i] for i in others], field_paths=USED) if others else ():
                        index = int(other.reference.id.rsplit("_", 1)[1])
                        if _used(other) >= caps[index]:
                            exhausted.add(index)
                continue
            batch = db.batch()
            record = {**fields, "shard": shard, "used": used + 1, "cap": caps[shard]}
            if snap.exists:
                batch.update(refs[shard], record, option=db.write_option(last_update_time=snap.update_time))
            else:
                batch.create(refs[shard], record)
            if extra_writes is not None:
                extra_writes(batch, shard)
            try:
                batch.commit()
            except (gexc.FailedPrecondition, gexc.AlreadyExists, gexc.Conflict, gexc.Aborted):
                if committed is not None and committed():
                    return shard, -1
                conflicts += 1
                if conflicts > MAX_CONFLICTS:
                    raise Contended() from None
            else:
                if read_all:
                    return shard, sum(max(0, caps[i] - _used(snaps[i])) for i in refs) - 1
                return shard, -1
        time.sleep(random.uniform(0.001, 0.004) * min(conflicts, 10))  # noqa: S311 - jitter, the shard freed


# ------------------------------------------------------------------------------------- rate limit


def take_request(client_id: str, window: ratelimit.Window, limit: int) -> int | None:
    """Count one call in its window; the calls left in the window after it, or None when it is full."""
    shards = ratelimit.shard_count(limit)
    refs = {i: rate_ref(client_id, window.window_id, i) for i in range(shards)}
    caps = {i: ratelimit.slice_of(limit, shards, i) for i in range(shards)}
    fields = {"windowStart": window.starts_at, "limit": limit, "expireAt": window.ends_at + ratelimit.COUNTER_TTL}
    taken = take_from_shards(refs, caps, fields, exhausted=set(), read_all=True)
    return None if taken is None else taken[1]


# ----------------------------------------------------------------------------------------- points


def point_refs(client_id: str, cycle_id: str) -> dict[int, firestore.DocumentReference]:
    return {i: point_shard_ref(client_id, cycle_id, i) for i in range(points.SHARDS)}


def spent_by_shard(client_id: str, cycle_id: str, shards: list[int]) -> dict[int, int]:
    """What each of these shards spent this cycle (one batched read)."""
    refs = [point_shard_ref(client_id, cycle_id, i) for i in shards]
    return {int(snap.get("shard")): _used(snap) for snap in firebase.db().get_all(refs) if snap.exists}


def spend_point_and_create(record: dict, token_hash: str, cycle: points.Cycle, point_total: int, now,
                           exhausted: set[int], before_commit=None) -> int | None:
    """Spend one point of the cycle and create the session in the same atomic batch; the shard, or None
    when the cycle has no point left. Raises Contended when conflicts do not settle."""
    client_id = record["clientId"]
    caps = {i: points.slice_of(point_total, i) for i in range(points.SHARDS)}
    fields = {"cycleId": cycle.cycle_id, "points": point_total, "resetsAt": cycle.resets_at, "updatedAt": now}

    def extra_writes(batch, shard):
        record["cycleId"], record["pointShard"] = cycle.cycle_id, shard
        batch.create(session_ref(client_id, record["vitalScanResultId"]), record)
        batch.create(token_ref(token_hash), {
            "clientId": client_id,
            "sessionId": record["vitalScanResultId"],
            "expireAt": record["expiresAt"] + TOKEN_TTL_AFTER_EXPIRY,
        })
        ACTIVITY.add(client_id, {"created": 1}, user=record["userId"], moment=record["createdAt"],
                     within=batch)
        if before_commit is not None:
            before_commit()

    taken = take_from_shards(point_refs(client_id, cycle.cycle_id), caps, fields, exhausted=exhausted,
                             extra_writes=extra_writes,
                             committed=lambda: session_created(client_id, record["vitalScanResultId"]))
    return None if taken is None else taken[0]


# --------------------------------------------------------------------------------------- sessions


def session_snapshot(client_id: str, session_id: str):
    return session_ref(client_id, session_id).get()


def read_session(client_id: str, session_id: str) -> dict | None:
    return visible(session_snapshot(client_id, session_id))


def _count(batch, snap, counts: dict[str, int] | None, moment) -> None:
    if counts:
        ACTIVITY.add(snap.get("clientId"), counts, user=snap.get("userId"), moment=moment,
                     within=batch)


def update_session_if_unchanged(snap, fields: dict, drop_token: str | None = None,
                                activity: dict[str, int] | None = None) -> bool:
    """Write `fields` to the session only if it has not changed since `snap` was read (compare-and-set);
    with `drop_token`, delete that hosted-token document, and with `activity` count the change in the rollup,
    in the same atomic batch. False on a conflict."""
    db = firebase.db()
    batch = db.batch()
    batch.update(snap.reference, fields, option=db.write_option(last_update_time=snap.update_time))
    if drop_token is not None:
        batch.delete(token_ref(drop_token))
    _count(batch, snap, activity, fields.get("updatedAt"))
    try:
        batch.commit()
    except (gexc.FailedPrecondition, gexc.NotFound, gexc.Aborted):
        return False
    return True


def read_token(token_hash: str) -> dict | None:
    snap = token_ref(token_hash).get()
    return snap.to_dict() if snap.exists else None


def session_created(client_id: str, session_id: str) -> bool:
    """Whether the session document was written by its create (not a void marker)."""
    snap = session_ref(client_id, session_id).get()
    return snap.exists and not (snap.to_dict() or {}).get("voided")


def fence_session(client_id: str, session_id: str, now) -> bool:
    """Claim a session id whose create commit has an unknown outcome.

    Writes a void marker with create(): if that succeeds, the pending create (whose atomic batch also
    create()s this document) can never commit, so no session and no point exist: returns True. If the
    document already exists, the create did commit: returns False.
    """
    try:
        session_ref(client_id, session_id).create(
            {"voided": True, "clientId": client_id, "createdAt": now, "expireAt": now + TOKEN_TTL_AFTER_EXPIRY})
    except (gexc.AlreadyExists, gexc.Conflict):
        return False
    return True


# ------------------------------------------------------------------------------------------ sweep


def unfinished_past(now, limit: int, after=None) -> list:
    """Unfinished sessions of every workspace whose expiresAt has passed (index: status, expiresAt)."""
    query = (
        firebase.db().collection_group(SESSIONS)
        .where(filter=firestore.FieldFilter("status", "in", list(UNFINISHED)))
        .where(filter=firestore.FieldFilter("expiresAt", "<=", now))
        .order_by("expiresAt")
        .limit(limit)
    )
    if after is not None:
        query = query.start_after(after)
    return list(query.stream())


def expire_if_unchanged(snap) -> bool:
    """Mark a swept session expired unless it changed since it was read (precondition on update time)."""
    data = snap.to_dict()
    db = firebase.db()
    batch = db.batch()
    batch.update(snap.reference, {"status": "expired", "updatedAt": data["expiresAt"]},
                 option=db.write_option(last_update_time=snap.update_time))
    if not data.get("deleted"):  # a deleted session left the analytics when it was deleted
        _count(batch, snap, {"expired": 1}, data["expiresAt"])
    try:
        batch.commit()
    except (gexc.FailedPrecondition, gexc.NotFound):
        return False
    return True


def latest_completed(client_id: str, user_id: str) -> dict | None:
    """The user's most recently completed session of the workspace; index (userId, status, completedAt desc)."""
    query = (tenancy.client_ref(client_id).collection(SESSIONS)
             .where(filter=firestore.FieldFilter("userId", "==", user_id))
             .where(filter=firestore.FieldFilter("status", "==", COMPLETED))
             .order_by("completedAt", direction=firestore.Query.DESCENDING).limit(5))
    return next((data for data in (snap.to_dict() for snap in query.stream()) if not data.get("deleted")), None)
