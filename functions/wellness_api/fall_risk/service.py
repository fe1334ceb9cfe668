"""Fall-risk rules (4.3, 7.4): who may create, read and record, the step flow, and scoring on completion.

Who is who:
- an ID token of a member (app): creates and reads their own results and records their steps (origin app);
- an ID token of an admin of the client (clinician): all of the above for any member of the client; a result
  an admin starts for another member has origin clinician; platform administrators act on any client;
- a client token (partner backend, 4.2): acts for a userId of its client (origin partner).
"""

import datetime as dt
import re
from typing import Any

from ..core import activity, auth, clock, tenancy, transactions
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.tenancy import USER_ACTIVE, Client
from ..core.transactions import Seen
from . import models, rules
from . import repository as repo
from .models import APP, CLINICIAN, COMPLETED, CREATED, IN_PROGRESS, PARTNER, STEPS, CreateFallRiskBody
from .repository import Filters

# The 7.4 messages, exactly.
INVALID_EMAIL = "Invalid email"
INVALID_PHOTO_URL = "Invalid photoURL"
USER_DOES_NOT_EXIST = "User does not exist"
CLIENT_ID_NOT_FOUND = "Client ID not found"

USER_ID_REQUIRED = "userId is required with a client token."
ONLY_YOURSELF = "Only an admin of the client can act for another user."
RESULT_NOT_FOUND = "Fall risk result not found."
NOT_YOURS = "You do not have access to this fall risk result."
ADMIN_REQUIRED = "Admin authentication or a client token required."
INVALID_CURSOR = "Invalid field startAfter: not a fall risk result id."
INVALID_DATE = "Invalid field {field}: must be a YYYY-MM-DD date."
INVERTED_RANGE = "startDate must not be after endDate."
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
CONTENTION = ApiError(503, "The result is being changed by another request; retry shortly.")


def _completed_step_changed(step: str) -> str:
    return f"The result is completed; its {step} step cannot change."


# ------------------------------------------------------------------------------------ who may call


def caller_client(principal: Principal) -> Client:
    """The client of the caller's token; 500 'Client ID not found' when it no longer exists (7.4)."""
    client = tenancy.get_client(principal.client_id)
    if client is None:
        raise ApiError(500, CLIENT_ID_NOT_FOUND)
    return client


def _acts_for_anyone(principal: Principal, client: Client) -> bool:
    return principal.kind == "client" or principal.can_administer(client.client_id)


def _subject(principal: Principal, client: Client, user_id: str | None) -> tuple[str, dict[str, Any] | None]:
    """The member a request is about: `user_id` (which must be an active member) or the caller; 403 when a member
    names someone else. With the member record when it was read to check (another member), else None."""
    if user_id is None or (principal.kind == "user" and user_id == principal.uid):
        if principal.kind == "client":
            raise ApiError(400, USER_ID_REQUIRED)
        assert principal.uid is not None  # a user principal's uid is verified (core.auth)
        return principal.uid, None  # naming oneself is the same as naming no one (guests have no member record)
    if not tenancy.valid_id(user_id):
        raise ApiError(400, USER_DOES_NOT_EXIST)
    if not _acts_for_anyone(principal, client):
        raise ApiError(403, ONLY_YOURSELF)
    member = repo.get_member(client.client_id, user_id)
    if member is None or member.get("status") != USER_ACTIVE:
        raise ApiError(400, USER_DOES_NOT_EXIST)
    return user_id, member


def _origin(principal: Principal, subject: str) -> str:
    if principal.kind == "client":
        return PARTNER
    return APP if subject == principal.uid else CLINICIAN


# ------------------------------------------------------------------------------------ create


def create(principal: Principal, client: Client, body: CreateFallRiskBody) -> dict[str, Any]:
    """A new empty result (2.7); the member's date of birth and sex are copied for the chair-stand norm."""
    subject, checked = _subject(principal, client, body.userId)
    # Another member's record was just read to check them: not read again.
    member = (checked if checked is not None else repo.get_member(client.client_id, subject)) or {}
    now = clock.now()
    origin = _origin(principal, subject)
    result = {
        "fallRiskResultId": repo.new_result_id(now), "clientId": client.client_id, "userId": subject,
        "origin": origin,
        "createdBy": {"kind": principal.kind, "uid": principal.uid, "keyId": principal.key_id},
        "email": body.email or member.get("email"), "photoURL": body.photoURL,
        "skipDeviceSetup": bool(body.skipDeviceSetup),
        "participant": {"birthDate": member.get("birthDate"), "sex": member.get("sex")},
        "status": CREATED, "steps": {step: None for step in STEPS},
        "scoring": None, "riskLevel": None, "urgentAttention": None, "rulesVersion": None,
        "createdAt": now, "updatedAt": now, "completedAt": None,
    }
    repo.create(result, {"created": 1, f"created_{origin}": 1})
    return models.created_view(result)


# ------------------------------------------------------------------------------------ read


def _readable(principal: Principal, client: Client, result: dict | None) -> dict[str, Any]:
    if result is None:
        raise ApiError(404, RESULT_NOT_FOUND)
    if result["userId"] != principal.uid and not _acts_for_anyone(principal, client):
        raise ApiError(403, NOT_YOURS)
    return result


def _seen(principal: Principal, client: Client, result_id: str) -> Seen:
    seen = repo.seen_result(client.client_id, result_id) if tenancy.valid_id(result_id) else transactions.NOT_SEEN
    _readable(principal, client, seen.data)
    return seen


def get(principal: Principal, client: Client, result_id: str) -> dict[str, Any]:
    return models.result_view(_seen(principal, client, result_id).existing())


def _check_cursor(start_after: str | None) -> None:
    if start_after is not None and not tenancy.valid_id(start_after):
        raise ApiError(400, INVALID_CURSOR)


def _listing(client: Client, filters: Filters, limit: int, start_after: str | None) -> dict[str, Any]:
    _check_cursor(start_after)
    results, more = repo.page(client.client_id, filters, limit, start_after)
    return {"results": [models.result_view(r) for r in results],
            "nextStartAfter": results[-1]["fallRiskResultId"] if more else None}


def user_results(principal: Principal, client: Client, query: models.FallRiskResultsQuery) -> dict[str, Any]:
    """A member's results, newest first: the caller's, or a named member's for admins and client tokens."""
    subject, _ = _subject(principal, client, query.userId)
    return _listing(client, Filters(user_id=subject, status=query.status), query.limit, query.startAfter)


def records_client(principal: Principal, requested: str | None) -> Client:
    """The client whose results a dashboard lists: an admin's own (any for platform administrators), or the
    client token's own."""
    if principal.kind == "client":
        if requested not in (None, principal.client_id):
            raise ApiError(403, auth.FORBIDDEN)
        return caller_client(principal)
    if not principal.is_admin:
        raise ApiError(403, ADMIN_REQUIRED)
    if requested in (None, principal.client_id):
        return caller_client(principal)  # the token's own client: 500 'Client ID not found' when it is gone (7.4)
    return auth.administered_client(principal, requested)


def _day(value: str | None, field: str) -> dt.date | None:
    if value is None:
        return None
    try:
        if not DAY.fullmatch(value):  # fromisoformat alone also takes week dates (2024-W01-1)
            raise ValueError(value)
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ApiError(400, INVALID_DATE.format(field=field)) from None


def _date_range(start: str | None, end: str | None) -> tuple[str | None, str | None]:
    """The id bounds of results created from the start of `start` to the end of `end` (UTC days, inclusive)."""
    first, last = _day(start, "startDate"), _day(end, "endDate")
    if first and last and first > last:
        raise ApiError(400, INVERTED_RANGE)
    newest = repo.id_bound(dt.datetime.combine(last, dt.time.max, dt.UTC)) if last else None
    oldest = repo.id_bound(dt.datetime.combine(first, dt.time(), dt.UTC)) if first else None
    return newest, oldest


def records(client: Client, query: models.FallRiskRecordsQuery) -> dict[str, Any]:
    """Every result of the client, newest first, filtered."""
    _check_cursor(query.startAfter)
    newest, oldest = _date_range(query.startDate, query.endDate)
    if query.userId is not None and not tenancy.valid_id(query.userId):
        return {"results": [], "nextStartAfter": None}
    urgent = None if query.urgentAttention is None else query.urgentAttention == "true"
    filters = Filters(user_id=query.userId, status=query.status, risk_level=query.riskLevel, urgent=urgent,
                      origin=query.origin, newest_id=newest, oldest_id=oldest)
    return _listing(client, filters, query.limit, query.startAfter)


# ------------------------------------------------------------------------------------ steps


def _stored_step(step: str, body) -> dict[str, Any]:
    recorded = body.model_dump()
    if step == "quiz":
        for name in ("birthDate", "sex"):  # kept on the participant, not in the step
            recorded.pop(name)
    return recorded


def _participant(stored: dict[str, Any], step: str, body) -> dict[str, Any]:
    participant = dict(stored.get("participant") or {})
    if step == "quiz":
        participant.update({k: v for k, v in (("birthDate", body.birthDate), ("sex", body.sex)) if v is not None})
    return participant


def _same_step(stored: dict[str, Any], step: str, body) -> bool:
    """Whether `body` is what the step recorded (a retry), the participant details of a quiz included."""
    recorded = stored["steps"].get(step)
    if recorded is None or {k: v for k, v in recorded.items() if k != "recordedAt"} != _stored_step(step, body):
        return False
    return _participant(stored, step, body) == (stored.get("participant") or {})


def record_step(principal: Principal, client: Client, result_id: str, step: str, body) -> dict[str, Any]:
    """Record (or record again) one step's outcome; the fifth step scores and completes the result, in the
    same commit. A completed result is final: the same step sent again is answered as it stands, a change is
    409."""
    outcome: dict[str, Any] = {}

    def attempt():
        seen = _seen(principal, client, result_id)
        stored = seen.data
        if stored["status"] == COMPLETED:
            if not _same_step(stored, step, body):
                raise ApiError(409, _completed_step_changed(STEPS[step]))
            outcome["result"] = stored
            return
        now = clock.now()
        steps = {**stored["steps"], step: {**_stored_step(step, body), "recordedAt": now}}
        updated = {**stored, "steps": steps, "participant": _participant(stored, step, body), "status": IN_PROGRESS,
                   "updatedAt": now}
        origin = stored["origin"]
        cohort = {"cohortStarted": 1, f"cohortStarted_{origin}": 1} if stored["status"] == CREATED else {}
        completion, member = None, False
        if all(steps.get(name) is not None for name in STEPS):
            updated, completion = _complete(updated, now)
            cohort.update({"cohortCompleted": 1, f"cohortCompleted_{origin}": 1})
            member = repo.member_exists(client.client_id, stored["userId"])
        repo.commit_step(seen, updated, cohort, completion, member=member)
        outcome["result"] = updated

    transactions.optimistic(attempt, contention_error=CONTENTION)
    return models.result_view(outcome["result"])


def _complete(result: dict[str, Any], now: dt.datetime) -> tuple[dict[str, Any], dict[str, int | float]]:
    scoring = rules.score(result["steps"], result["participant"], now.date())
    completed = {**result, "status": COMPLETED, "completedAt": now, "scoring": scoring,
                 "riskLevel": scoring["riskLevel"], "urgentAttention": scoring["urgentAttention"],
                 "rulesVersion": scoring["rulesVersion"]}
    return completed, completion_activity(result, scoring)


def completion_activity(result: dict[str, Any], scoring: dict[str, Any]) -> dict[str, int | float]:
    """What a completion adds to the day's rollup: counts by origin and level, and the functional-test sums of
    the participant's age group (analytics averages them: sum / results)."""
    counts: dict[str, int | float] = {"completed": 1, f"completed_{result['origin']}": 1,
                                      f"riskLevel{scoring['riskLevel']}": 1, "urgent": int(scoring["urgentAttention"])}
    group = scoring["ageGroup"]
    if group is not None:
        prefix = activity.age_prefix(group)
        steps = result["steps"]
        counts.update({
            f"{prefix}_results": 1,
            f"{prefix}_chairStands": scoring["chairStand"]["score"],
            f"{prefix}_tandemSeconds": steps["tandemStance"]["tandemSeconds"] or 0,
            f"{prefix}_singleLegSeconds": steps["singleLegStance"]["singleLegSeconds"] or 0,
            f"{prefix}_walkSteps": steps["tandemWalk"]["stepsCompleted"],
        })
    return counts


def daily_activity(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, float]]:
    """{day: {created, created_<origin>, completed, completed_<origin>, riskLevel1..4, urgent, age<group>_...,
    cohortStarted[_<origin>], cohortCompleted[_<origin>]}} for the days with fall-risk activity."""
    return repo.ACTIVITY.daily(client_id, start_day, end_day)
