"""Vital Scan rules (4.8, 3.2, CONTRACT 4): sessions, points, polling, the hosted flow and the sweep.

Raises ApiError with the nested envelope's codes; the routes only shape responses.
"""

import dataclasses
import datetime as dt
import hashlib
import math
import secrets
import threading
from typing import Any, TypeGuard

from ..core import clock, config, tenancy
from ..core.errors import ApiError
from . import engine, failures, points, scan_on
from . import metrics as metrics_mod
from . import repository as repo
from .access import Workspace
from .models import (
    COMPLETED,
    CREATED,
    EXPIRED,
    FAILED,
    IN_PROGRESS,
    MAX_RETRIES,
    TERMINAL,
    UNFINISHED,
    CreateSessionBody,
    MeasurementBody,
    check_fail_message,
    check_locale,
    check_return_url,
    check_trace,
    check_user_id,
    hosted_view,
    return_navigation,
    session_view,
)

SESSION_LIFETIME = dt.timedelta(hours=2)
POLL_INTERVAL = dt.timedelta(seconds=5)

INSUFFICIENT_CREDITS = "insufficient_credits"
INSUFFICIENT_CREDITS_MESSAGE = "No Vital Scan points remain in the current cycle."
NOT_FOUND = "Vital Scan session not found."
POLL_TOO_SOON = "A session can be polled at most once every 5 seconds. Retry after {seconds} seconds."
INVALID_SCAN_TOKEN = "Missing or invalid scan token."
SESSION_ENDED = "This Vital Scan session has ended."
NOT_STARTED = "The scan has not been started."


def vital_scan_url(token: str) -> str:
    return f"{config.base_url()}/vital-scan/#scanToken={token}"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------------------ create


class _ExhaustedShards:
    """Shards this process has seen used up, per (workspace, cycle, grant): a spent slice stays spent."""

    def __init__(self):
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str, int], set[int]] = {}

    def get(self, key) -> set[int]:
        with self._lock:
            return set(self._seen.get(key, ()))

    def add(self, key, shards) -> None:
        with self._lock:
            if len(self._seen) > 10_000:
                self._seen.clear()
            self._seen.setdefault(key, set()).update(shards)


exhausted_shards = _ExhaustedShards()


def create_session(ws: Workspace, body: CreateSessionBody) -> dict:
    """Validate, then spend one point and write the session in one atomic write; the 201 view with vitalScanUrl."""
    user_id = check_user_id(body.userId)
    locale = check_locale(body.locale)
    return_url = check_return_url(body.returnUrl, ws.client.setting("vitalScan.allowedReturnOrigins"))
    now = clock.now()
    token = secrets.token_urlsafe(32)
    record = {
        "vitalScanResultId": repo.new_session_id(ws.client_id),
        "clientId": ws.client_id,
        "userId": user_id,
        "locale": locale,
        "returnUrl": return_url,
        "status": CREATED,
        "createdAt": now,
        "updatedAt": now,
        "expiresAt": now + SESSION_LIFETIME,
        "startedAt": None,
        "completedAt": None,
        "failedAt": None,
        "error": None,
        "metrics": None,
        "deleted": False,
        "deletedAt": None,
        "lastPolledAt": None,
        "scanTokenHash": hash_token(token),
        "keyId": ws.key.key_id,
    }
    _spend_point_and_create(ws.client_id, int(ws.client.setting("vitalScan.points")), record, now)
    return session_view(record, vital_scan_url(token))


def _insufficient(cycle: points.Cycle) -> ApiError:
    return ApiError(402, INSUFFICIENT_CREDITS_MESSAGE, code=INSUFFICIENT_CREDITS,
                    extra={"remaining": 0, "cycleId": cycle.cycle_id, "resetsAt": clock.iso(cycle.resets_at)})


def _spend_point_and_create(client_id: str, point_total: int, record: dict, now) -> None:
    """One point and the session, atomically; 402 once every funded shard of the cycle is used up."""
    cycle = points.cycle_of(now)
    seen_key = (client_id, cycle.cycle_id, point_total)
    exhausted = exhausted_shards.get(seen_key)
    attempted = {"commit": False}

    def staged() -> None:
        attempted["commit"] = True

    try:
        shard = repo.spend_point_and_create(record, record["scanTokenHash"], cycle, point_total, now, exhausted,
                                            before_commit=staged)
    except repo.Contended:
        raise failures.unavailable(failures.CREATION_UNAVAILABLE, failures.CREATION_UNAVAILABLE_MESSAGE) from None
    except Exception as exc:
        if not failures.is_infrastructure(exc):
            raise
        if attempted["commit"] and failures.is_ambiguous_commit(exc):
            settle_unknown_commit(client_id, record["vitalScanResultId"], now)
            return
        raise failures.unavailable(failures.CREATION_UNAVAILABLE, failures.CREATION_UNAVAILABLE_MESSAGE) from exc
    finally:
        exhausted_shards.add(seen_key, exhausted)
    if shard is None:
        raise _insufficient(cycle)


def settle_unknown_commit(client_id: str, session_id: str, now) -> bool:
    """After a commit with an unknown outcome: True when the session (and its point) exist, else 503.

    When it does not exist yet, the id is fenced with a void marker so the pending commit can never
    land: the caller then gets a clean 503 with nothing written. If even that cannot be done, the
    outcome stays unknown: 503 commit_outcome_unknown.
    """
    try:
        if repo.session_created(client_id, session_id):
            return True
        if not repo.fence_session(client_id, session_id, now):
            return True
    except Exception as exc:
        raise failures.unavailable(failures.COMMIT_OUTCOME_UNKNOWN, failures.COMMIT_UNKNOWN_MESSAGE) from exc
    raise failures.unavailable(failures.CREATION_UNAVAILABLE, failures.CREATION_UNAVAILABLE_MESSAGE)


# ------------------------------------------------------------------------------- session changes


@dataclasses.dataclass(frozen=True)
class Change:
    """What a decision over a session's current state writes (nothing when `fields` is empty) and returns."""

    result: Any  # the answer: a view, None, or _ENDED
    fields: dict = dataclasses.field(default_factory=dict)
    drop_token: str | None = None
    activity: dict[str, int] | None = None  # what the change adds to the daily rollup


def _change_session(client_id: str, session_id: str, decide) -> Any:
    """Read the session, `decide(data, now)`, write with compare-and-set; on a concurrent change, decide
    again on the new state. `data` is None for a missing, voided or deleted session."""
    for _ in range(repo.MAX_CONFLICTS):
        now = clock.now()
        snap = repo.session_snapshot(client_id, session_id)
        change = decide(repo.visible(snap), now)
        if not change.fields:
            return change.result
        if repo.update_session_if_unchanged(snap, change.fields, change.drop_token, change.activity):
            return change.result
    raise failures.unavailable(None)


def _expiry_fields(data: dict, now) -> dict:
    if data["status"] in UNFINISHED and now >= data["expiresAt"]:
        return {"status": EXPIRED, "updatedAt": data["expiresAt"]}
    return {}


def _expiry_activity(fields: dict) -> dict[str, int] | None:
    return {"expired": 1} if fields.get("status") == EXPIRED else None


# ---------------------------------------------------------------------------------- GET and DELETE


def get_session(ws: Workspace, session_id: str) -> dict:
    """The session (2.12, no vitalScanUrl); at most one GET per session per five seconds."""
    if not tenancy.valid_id(session_id):
        raise ApiError(404, NOT_FOUND)

    def decide(data, now) -> Change:
        if data is None or data.get("clientId") != ws.client_id:
            raise ApiError(404, NOT_FOUND)
        last = data.get("lastPolledAt")
        if last is not None and now - last < POLL_INTERVAL:
            wait = min(POLL_INTERVAL.total_seconds(), (POLL_INTERVAL - (now - last)).total_seconds())
            seconds = max(1, math.ceil(wait))
            raise ApiError(429, POLL_TOO_SOON.format(seconds=seconds), headers={"Retry-After": str(seconds)})
        fields = {"lastPolledAt": now, **_expiry_fields(data, now)}
        return Change(session_view({**data, **fields}), fields, activity=_expiry_activity(fields))

    return _change_session(ws.client_id, session_id, decide)


def delete_session(ws: Workspace, session_id: str) -> None:
    """Soft delete: the session and its hosted token are gone for every later access; no refund."""
    if not tenancy.valid_id(session_id):
        raise ApiError(404, NOT_FOUND)

    def decide(data, now) -> Change:
        if data is None or data.get("clientId") != ws.client_id:
            raise ApiError(404, NOT_FOUND)
        return Change(None, {"deleted": True, "deletedAt": now}, drop_token=data["scanTokenHash"])

    _change_session(ws.client_id, session_id, decide)


# ------------------------------------------------------------------------------------- hosted flow


@dataclasses.dataclass(frozen=True)
class HostedRef:
    client_id: str
    session_id: str
    token_hash: str


def _looks_like_token(token: str | None) -> TypeGuard[str]:
    return token is not None and 20 <= len(token) <= 128 and all(c.isalnum() or c in "-_" for c in token)


def resolve_token(token: str | None) -> HostedRef:
    """The session a scanToken belongs to; 401 for a missing, malformed or unknown token."""
    if not _looks_like_token(token):
        raise ApiError(401, INVALID_SCAN_TOKEN)
    token_hash = hash_token(token)
    found = repo.read_token(token_hash)
    if found is None:
        raise ApiError(401, INVALID_SCAN_TOKEN)
    return HostedRef(found["clientId"], found["sessionId"], token_hash)


_ENDED = object()


def _hosted(ref: HostedRef, action) -> Any:
    """Run `action(data, now) -> Change` on the token's session while it is not terminal.

    A session past its expiresAt is marked expired (written) and answered 410, like any ended one.
    """

    def decide(data, now) -> Change:
        if data is None or data.get("scanTokenHash") != ref.token_hash:
            raise ApiError(401, INVALID_SCAN_TOKEN)
        if data["status"] in TERMINAL:
            raise ApiError(410, SESSION_ENDED)
        expiry = _expiry_fields(data, now)
        if expiry:
            return Change(_ENDED, expiry, activity=_expiry_activity(expiry))
        return action(data, now)

    result = _change_session(ref.client_id, ref.session_id, decide)
    if result is _ENDED:
        raise ApiError(410, SESSION_ENDED)
    return result


def hosted_get(ref: HostedRef) -> dict:
    return _hosted(ref, lambda data, now: Change(hosted_view(data)))


def hosted_start(ref: HostedRef) -> dict:
    """created -> in_progress (startedAt set); while in_progress (a resumed scan): no change."""

    def action(data, now) -> Change:
        if data["status"] == CREATED:
            fields = {"status": IN_PROGRESS, "startedAt": now, "updatedAt": now}
            return Change(hosted_view({**data, **fields}), fields, activity={"started": 1})
        return Change(hosted_view(data))

    return _hosted(ref, action)


def _require_in_progress(data: dict) -> Change:
    """409 unless the session is in progress; else no change (what the check alone decides)."""
    if data["status"] != IN_PROGRESS:
        raise ApiError(409, NOT_STARTED)
    return Change(None)


def hosted_measurement(ref: HostedRef, body: MeasurementBody) -> dict:
    """in_progress -> completed with the metrics the engine finds in the trace (none is legal); or, while the
    page records on, in_progress with `scanOn` (scan_on) or, when a new scan would help, with `retry`."""
    check_trace(body)
    _hosted(ref, lambda data, now: _require_in_progress(data))  # refuse early, before the engine runs
    raw, quality = _assess(engine.Trace(body.fps, body.t, body.rgb))
    result = metrics_mod.public_metrics(raw)
    more = scan_on.wanted(result, body.t) if body.recording else None

    def action(data, now) -> Change:
        _require_in_progress(data)
        scan_ons = int(data.get("scanOns", 0))
        if more and scan_ons < scan_on.MAX_SCAN_ONS:
            part = scan_on.first_part(body.t, body.rgb, result, quality)
            return Change({"status": IN_PROGRESS, "scanOn": more}, {"scanOns": scan_ons + 1, "scanOnFirst": part})
        first = scan_on.carried(data.get("scanOnFirst"), body.t, body.rgb)
        merged = scan_on.merge(first["metrics"], result) if first else result
        # The engine gives a reason when the scan has no heart rate, even if it holds a breathing rate: a retry may
        # still get the heart rate, and only the last scan completes with the breathing rate alone.
        reason = quality.get("reason") if merged is None or "hr" not in merged else None
        retries = int(data.get("retries", 0))
        if reason in RETRY_REASONS and retries < MAX_RETRIES:
            # Trying again would help (too dark, too much movement, a weak pulse): the session stays
            # in_progress (a retry costs no point, 3.2) and the page says what to change. After MAX_RETRIES
            # such scans the next one completes with what it supports: null, or rr alone. retriesLeft tells the
            # page when its next trace is the last, so that it records a long one.
            return Change({"status": IN_PROGRESS, "retry": reason, "retriesLeft": MAX_RETRIES - retries - 1},
                          {"retries": retries + 1, "retryQuality": quality})
        # quality is internal (2.12): stored with the measurement as evidence, never part of the metrics or
        # of any view (session_view and hosted_view list their fields). A first part's goes with it.
        fields = {"status": COMPLETED, "completedAt": now, "updatedAt": now, "metrics": merged,
                  "quality": {**quality, "firstPart": first["quality"]} if first else quality}
        if "scanOnFirst" in data:
            fields["scanOnFirst"] = repo.REMOVE
        return Change({
            "status": COMPLETED,
            "metrics": merged,
            "redirectUrl": return_navigation(data.get("returnUrl"), ref.session_id, "completed"),
        }, fields, activity={"completed": 1})

    return _hosted(ref, action)


RETRY_REASONS = ("dark", "motion", "weak", "short")  # vital_scan.rppg.pipeline's reasons a retry may fix


def _assess(trace: engine.Trace) -> tuple[dict | None, dict]:
    """(raw metrics, internal quality) from the installed engine; an engine without `assess` has no quality."""
    current = engine.current()
    if hasattr(current, "assess"):
        return current.assess(trace)
    return current.estimate(trace), {}


def hosted_fail(ref: HostedRef, message: str) -> dict:
    """in_progress -> failed (failedAt, error.message); the point is not refunded."""
    message = check_fail_message(message)

    def action(data, now) -> Change:
        _require_in_progress(data)
        fields = {"status": FAILED, "failedAt": now, "updatedAt": now, "error": {"message": message}}
        return Change({"status": FAILED}, fields, activity={"failed": 1})

    return _hosted(ref, action)


def hosted_exit(ref: HostedRef) -> dict:
    """No state change: where the page navigates (returnUrl with status=exited), or null."""
    return _hosted(ref, lambda data, now: Change(
        {"redirectUrl": return_navigation(data.get("returnUrl"), ref.session_id, "exited")}))


# -------------------------------------------------------------------------------- sweep and account


def sweep_expired(now: dt.datetime | None = None, page_size: int = 200) -> int:
    """Mark every unfinished session past its expiresAt expired (the scheduled sweep); returns the count."""
    now = now or clock.now()
    swept, after = 0, None
    while True:
        page = repo.unfinished_past(now, page_size, after)
        swept += sum(repo.expire_if_unchanged(snap) for snap in page)
        if len(page) < page_size:
            return swept
        after = page[-1]


def point_account(client: tenancy.Client, now: dt.datetime | None = None) -> dict:
    """The workspace's current cycle: granted, spent, remaining, resetsAt (platformctl, docs)."""
    cycle = points.cycle_of(now or clock.now())
    granted = int(client.setting("vitalScan.points"))
    spent = repo.spent_by_shard(client.client_id, cycle.cycle_id, list(range(points.SHARDS)))
    return {
        "clientId": client.client_id,
        "cycleId": cycle.cycle_id,
        "points": granted,
        "spent": sum(spent.values()),
        "remaining": points.remaining_in(granted, spent),
        "resetsAt": clock.iso(cycle.resets_at),
    }


def latest_metrics(client_id: str, user_id: str) -> tuple[dt.datetime, dict] | None:
    """(completedAt, metrics) of the user's latest completed scan in the workspace, or None."""
    data = repo.latest_completed(client_id, user_id)
    return (data["completedAt"], data.get("metrics") or {}) if data else None
