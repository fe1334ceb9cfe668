"""Retention: each client's health data older than its period (settings `privacy.retentionDays.*`) is deleted.

The scheduled function `privacyretention` (functions/main.py) calls `run_scheduled()` every hour; operators run
`platformctl retention sweep` for the same now. One run is bounded: a time budget (BUDGET_SECONDS) checked between
pages, and at most PER_CLIENT documents of each kind per client, so a client with a huge backlog takes its share
and the run moves on to the next client. Clients are visited in id order from where the last run stopped (the
cursor in privacyRetention/cursor); a client the budget cut off is visited first next time. Every step is a
query for what is still too old and a delete of it, so a run interrupted anywhere, or run twice, leaves nothing
half done that the next run does not finish.

Deleted: the documents below, with what hangs off them (a conversation's messages; the member's fall-risk summary
when it describes a deleted result). Kept: the daily activity rollups (their counts are the analytics' history),
AI Move statistics (totals per user), usage and billing records; erasure (privacy requests) removes a person's.
Export archives are deleted privacy.exportRetentionDays after their export completed (expire_exports).

Why a sweep and not Firestore TTL policies (a per-document expiry written at creation): the period is the
client's setting and can change; a TTL expiry is fixed when the document is written, so shortening a period
would rewrite every document of the client and lengthening it would not save what TTL already took. TTL deletes
one document, never its subcollection (a conversation's messages) nor the summary that points at it; and TTL
policies are per collection group, with the vitalScanSessions `expireAt` policy already taken by void markers.
Each query here is an inequality on one field of one client's collection: Firestore's automatic single-field
index serves it, no composite index; the export archives' query (state and age) has its composite index.
"""

import contextlib
import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Iterator
from typing import Any

from google.api_core import exceptions as gexc
from google.cloud import firestore

from ..core import clock, firebase, tenancy
from . import repository as requests_repo

PER_CLIENT = 2000  # documents of one kind deleted for one client per run, before the others get their turn
PAGE = 200  # documents read and deleted per query
BUDGET_SECONDS = 420.0  # the scheduled function's timeout is 540 s
CLIENT_PAGE = 100
MAX_WRITES_PER_COMMIT = 450  # Firestore allows 500 writes per commit
CURSOR = ("privacyRetention", "cursor")
EXPORT_SETTING = "privacy.exportRetentionDays"


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str  # the setting is privacy.retentionDays.<name>; also the report's key
    collection: str  # under clients/{clientId}
    age_field: str  # the timestamp the period runs from
    read: tuple[str, ...]  # the fields the deletion needs (nothing else of the health data is read)
    delete: Callable[[str, list], int]  # (client id, snapshots) -> documents deleted
    children: tuple[str, ...] = ()  # sub-collections `delete` removes with each document

    @property
    def setting(self) -> str:
        return f"privacy.retentionDays.{self.name}"


def _delete_plain(client_id: str, snaps: list) -> int:
    _commit_deletes([snap.reference for snap in snaps])
    return len(snaps)


def _commit_deletes(refs: list) -> None:
    for start in range(0, len(refs), MAX_WRITES_PER_COMMIT):
        batch = firebase.db().batch()
        for ref in refs[start:start + MAX_WRITES_PER_COMMIT]:
            batch.delete(ref)
        batch.commit()


def _delete_conversations(client_id: str, snaps: list) -> int:
    """Messages first (their refs are known from messageCount: no read), then the conversation, unless a turn
    continued it since it was read: then it stays, without the messages that were past the period."""
    from ..assistant import repository as assistant

    deleted = 0
    for snap in snaps:
        count = int((snap.to_dict() or {}).get("messageCount") or 0)
        _commit_deletes([assistant.message_ref(client_id, snap.id, n) for n in range(1, count + 1)])
        try:
            snap.reference.delete(option=firebase.db().write_option(last_update_time=snap.update_time))
            deleted += 1
        except (gexc.FailedPrecondition, gexc.NotFound):
            pass
    return deleted


def _delete_fall_risk(client_id: str, snaps: list) -> int:
    """The results, after clearing each member's latest-result summary that names one of them (the summary holds
    the same risk level; a summary naming a newer result is left alone)."""
    doomed: dict[str, set[str]] = {}
    for snap in snaps:
        uid = (snap.to_dict() or {}).get("userId")
        if isinstance(uid, str) and tenancy.valid_id(uid):
            doomed.setdefault(uid, set()).add(snap.id)
    for uid, result_ids in doomed.items():
        _clear_summary(client_id, uid, result_ids)
    return _delete_plain(client_id, snaps)


def _clear_summary(client_id: str, uid: str, result_ids: set[str], attempts: int = 5) -> None:
    ref = tenancy.user_ref(client_id, uid)
    for _ in range(attempts):
        snap = ref.get(field_paths=["fallRisk"])
        summary = snap.get("fallRisk") if snap.exists and "fallRisk" in (snap.to_dict() or {}) else None
        if not isinstance(summary, dict) or summary.get("fallRiskResultId") not in result_ids:
            return
        try:
            # update, never set: the member record is the identity area's; only this field is fall risk's.
            ref.update({"fallRisk": firestore.DELETE_FIELD},
                       option=firebase.db().write_option(last_update_time=snap.update_time))
            return
        except gexc.FailedPrecondition:
            continue  # the record changed since read (perhaps a newer result): look again
    raise RuntimeError(f"the member record {client_id}/{uid} kept changing; the next run tries again")


KINDS: tuple[Kind, ...] = (
    Kind("vitalScan", "vitalScanSessions", "createdAt", (), _delete_plain),
    Kind("fallRisk", "fallRiskResults", "createdAt", ("userId",), _delete_fall_risk),
    Kind("aiMove", "aiMoveSessions", "createdAt", (), _delete_plain),
    Kind("assistant", "assistantConversations", "updatedAt", ("messageCount",), _delete_conversations,
         children=("messages",)),
)


def _too_old(client_id: str, kind: Kind, cutoff: dt.datetime, limit: int) -> list:
    query = (tenancy.client_ref(client_id).collection(kind.collection)
             .where(filter=firestore.FieldFilter(kind.age_field, "<", cutoff))
             .order_by(kind.age_field).limit(limit))
    # Only what the deletion needs: the health data itself is never read (an empty projection would read all).
    return list(query.select(list(kind.read) or ["__name__"]).stream())


class _Clock:
    def __init__(self, budget_seconds: float):
        self.deadline = time.monotonic() + budget_seconds

    def out(self) -> bool:
        return time.monotonic() >= self.deadline


def sweep_client(client: tenancy.Client, now: dt.datetime, per_client: int = PER_CLIENT, page: int = PAGE,
                 budget: _Clock | None = None) -> tuple[dict[str, int], bool]:
    """(documents deleted per kind, whether the client is done: nothing past its periods remains, as far as
    this pass could tell). Stops after `per_client` of a kind, or when the budget runs out between pages."""
    deleted = {kind.name: 0 for kind in KINDS}
    done = True
    for kind in KINDS:
        days = int(client.setting(kind.setting))
        if days <= 0:
            continue
        cutoff = now - dt.timedelta(days=days)
        while True:
            room = per_client - deleted[kind.name]
            if room <= 0:
                done = False
                break
            snaps = _too_old(client.client_id, kind, cutoff, min(page, room))
            if snaps:
                deleted[kind.name] += kind.delete(client.client_id, snaps)
            if len(snaps) < min(page, room):
                break
            if budget is not None and budget.out():
                return deleted, False
    return deleted, done


def expire_exports(client: tenancy.Client, now: dt.datetime, limit: int = PAGE) -> tuple[int, bool]:
    """(archives expired, whether none past the period is left as far as this pass could tell): the export archives
    older than the client's privacy.exportRetentionDays are deleted from Storage and their requests marked expired,
    so their download answers 404. The object goes first: a run stopped between the two finds the request again,
    and deleting an object already gone is no error."""
    cutoff = now - dt.timedelta(days=int(client.setting(EXPORT_SETTING)))
    snaps = requests_repo.stored_archives_before(client.client_id, cutoff, limit)
    for snap in snaps:
        path = (snap.to_dict() or {}).get("archivePath")
        if isinstance(path, str) and path:
            requests_repo.delete_object(path)
        # The download key goes too: links already handed out stop at once, archive or not.
        with contextlib.suppress(gexc.NotFound):
            snap.reference.update({"archiveState": requests_repo.ARCHIVE_EXPIRED, "archivePath": None,
                                   "downloadKey": None, "archiveExpiredAt": now, "updatedAt": clock.now()})
    return len(snaps), len(snaps) < limit


def _clients_after(after: str | None) -> Iterator[tenancy.Client]:
    """Every client in id order, starting after `after`, read a page at a time (settings only)."""
    while True:
        query = firebase.db().collection(tenancy.CLIENTS).order_by("__name__").limit(CLIENT_PAGE)
        if after is not None:
            query = query.start_after({"__name__": tenancy.client_ref(after)})
        snaps = list(query.select(["settings"]).stream())
        for snap in snaps:
            yield tenancy.Client.from_snapshot(snap)
        if len(snaps) < CLIENT_PAGE:
            return
        after = snaps[-1].id


def _given_clients(client_ids: list[str], after: str | None) -> Iterator[tenancy.Client]:
    for client_id in sorted(set(client_ids)):
        if after is None or client_id > after:
            client = tenancy.get_client(client_id)
            if client is not None:
                yield client


def sweep(now: dt.datetime | None = None, *, client_ids: list[str] | None = None, after: str | None = None,
          per_client: int = PER_CLIENT, page: int = PAGE, budget_seconds: float = BUDGET_SECONDS) -> dict[str, Any]:
    """One bounded run over the clients after `after` (all, or those of `client_ids`), in id order.

    The report: documents deleted per kind, clients visited, those left with more to delete (their per-run share
    was used up), `complete` when the run reached the last client, else `resumeAfter`: the client after which the
    next run starts (None: from the first). The first client is always swept: a run progresses whatever its budget.
    """
    now = now or clock.now()
    budget = _Clock(budget_seconds)
    report: dict[str, Any] = {"deleted": {kind.name: 0 for kind in KINDS}, "exportsExpired": 0, "clients": 0,
                              "more": [], "complete": False, "resumeAfter": None}
    last_done = after or None
    clients = _clients_after(last_done) if client_ids is None else _given_clients(client_ids, last_done)
    for client in clients:
        if report["clients"] and budget.out():
            report["resumeAfter"] = last_done
            return report
        deleted, done = sweep_client(client, now, per_client, page, budget)
        expired, exports_done = expire_exports(client, now, page)
        report["exportsExpired"] += expired
        done = done and exports_done
        report["clients"] += 1
        for name, n in deleted.items():
            report["deleted"][name] += n
        if not done:
            report["more"].append(client.client_id)
            if budget.out():
                # Cut off by the budget, maybe midway: this client comes first next time.
                report["resumeAfter"] = last_done
                return report
        last_done = client.client_id
    report["complete"] = True
    return report


def run_scheduled(now: dt.datetime | None = None) -> dict[str, Any]:
    """What the schedule runs: one sweep from where the last one stopped; the cursor is saved for the next."""
    cursor = firebase.db().collection(CURSOR[0]).document(CURSOR[1])
    snap = cursor.get()
    after = (snap.to_dict() or {}).get("resumeAfter") if snap.exists else None
    report = sweep(now, after=after, budget_seconds=BUDGET_SECONDS)
    cursor.set({"resumeAfter": report["resumeAfter"], "updatedAt": clock.now(), "lastRun": {
        "deleted": report["deleted"], "exportsExpired": report["exportsExpired"], "clients": report["clients"],
        "more": len(report["more"]),
        "complete": report["complete"]}})
    return report
