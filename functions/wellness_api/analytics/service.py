"""The dashboard's figures (4.10, 2.14): who may see which client, and each endpoint's shape from the reads."""

import dataclasses
import datetime as dt
import functools
from collections.abc import Callable
from typing import Any

from google.cloud.firestore_v1.base_query import FieldFilter

from ..core import activity, auth, clock, config, users
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.rollups import LIFETIME, Totals
from ..core.tenancy import Client
from . import models
from . import repository as repo
from .models import Window

ADMIN_REQUIRED = "Admin access required."
MODULE_OFF = "Analytics is not enabled for this client."
MODULE_SETTING = "modules.analytics"

RISK_LEVELS = (1, 2, 3, 4)
HIGH_RISK_LEVEL = 4  # "high" in the fall-risk scale (low, mild, moderate, high)
ORIGINS = ("app", "clinician", "partner")
ASSESSMENT_KINDS = ("fallRisk", "cognitive", "msk")  # the platform runs fall-risk assessments only
DAYS_PER_YEAR = 365.2425


@dataclasses.dataclass(frozen=True)
class Scope:
    """The client a caller looks at, and whose data that means: one client's, or (operator tenant) every one's."""

    client: Client
    platform_admin: bool

    @property
    def data_client_id(self) -> str | None:
        return None if self.client.is_operator else self.client.client_id


def scope(principal: Principal, client_id: str) -> Scope:
    """401 without an ID token (the route asks), 403 for a member who is no admin, an admin of another client or a
    client with analytics off (platform administrators see every client), 404 for an unknown client."""
    if not principal.is_admin:
        raise ApiError(403, ADMIN_REQUIRED)
    client = auth.administered_client(principal, client_id)
    if not principal.platform_admin and not client.setting(MODULE_SETTING):
        raise ApiError(403, MODULE_OFF)
    return Scope(client, principal.platform_admin)


def _metadata(scope: Scope, linked: int, window: Window) -> dict[str, Any]:
    start, end = window.iso()
    return {"generatedAt": clock.iso(clock.now()), "queryClientId": scope.client.client_id,
            "isGofaAdmin": scope.platform_admin, "linkedPlayers": linked, "startDate": start, "endDate": end}


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


# --------------------------------------------------------------------------------------------- overview


def _years_before(day: dt.date, years: int) -> dt.date:
    """The day `years` before `day`; 29 February falls back to the 28th."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def _age_band(group: str, today: dt.date) -> tuple[dt.date | None, dt.date]:
    """(born after, born on or before) for the members whose age today is in a 2.14 group."""
    low, _, high = group.rstrip("+").partition("-")
    until = _years_before(today, int(low))
    return (None if not high else _years_before(today, int(high) + 1)), until


def overview(scope: Scope) -> dict[str, Any]:
    """Linked players now: their latest fall-risk outcome and their ages (2.14 Overview)."""
    data_client = scope.data_client_id
    today = clock.now().date()
    jobs: dict[str, Callable[[], Any]] = {"total": lambda: repo.count_players(data_client),
            "urgent": lambda: repo.count_players(data_client, FieldFilter("fallRisk.urgentAttention", "==", True)),
            "birth": lambda: repo.average_birth_ordinal(data_client)}
    for level in RISK_LEVELS:
        jobs[f"level{level}"] = functools.partial(
            repo.count_players, data_client, FieldFilter("fallRisk.riskLevel", "==", level))
    for group in users.AGE_GROUPS:
        jobs[group] = functools.partial(repo.count_players, data_client, *repo.born_between(*_age_band(group, today)))
    found = repo.gather(jobs)
    total = found["total"]
    risk = {f"level{level}": found[f"level{level}"] for level in RISK_LEVELS}
    assessed = sum(risk.values())
    birth = found["birth"]
    return {
        "totalLinkedPlayers": total,
        "highRiskCount": risk[f"level{HIGH_RISK_LEVEL}"],
        "averageAge": round((today.toordinal() - birth) / DAYS_PER_YEAR, 1) if birth is not None else 0.0,
        "urgentAttentionCount": found["urgent"],
        "riskDistribution": risk,
        "ageDistribution": {group: found[group] for group in users.AGE_GROUPS},
        "assessmentCompletionRate": _percent(assessed, total),
        "metadata": _metadata(scope, total, Window()),
    }


# ------------------------------------------------------------------------------------ engagement insights

# The modules of 2.14's engagement object the platform has, each from its rollup: {field: counter}.
ENGAGED = {
    "lessons": (activity.LESSONS, {"totalPlays": "plays", "completedPlays": "completedPlays"}),
    "aiMove": (activity.AI_MOVE, {"totalSessions": "sessionsStarted", "completedSessions": "sessionsCompleted",
                                  "totalReps": "reps"}),
    "wellnessChat": (activity.WELLNESS_CHAT, {"totalChats": "chats", "totalMessages": "messages"}),
    "vitalScan": (activity.VITAL_SCAN, {"totalScans": "created", "completedScans": "completed"}),
}
# ... and those it does not have, which report zeros (2.14 keeps them in the shape).
ABSENT = {
    "aiNutrition": ("activeUsers", "totalFoodLogs", "totalPlans", "totalChatSessions"),
    "waterIntake": ("activeUsers", "totalLogs", "totalAmountMl"),
}
# dailyBreakdown: active users of each module that day, under 2.14's names.
BREAKDOWN = {"aiMove": "aiMove", "aiTraining": None, "lessons": "lessons", "nutrition": None, "waterIntake": None,
             "wellnessChat": "wellnessChat", "vitalScan": "vitalScan"}


def _number(value: int | float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def _sum(buckets) -> Totals:
    """Several buckets (days, clients) as one; active users are the union of their sketches."""
    totals = Totals()
    for bucket in buckets:
        totals.merge(bucket)
    return totals


def _breakdown_window(window: Window) -> tuple[dt.date, dt.date]:
    if window.start is not None and window.end is not None:  # ranged
        return window.start, window.end
    today = clock.now().date()
    return today - dt.timedelta(days=models.LIFETIME_BREAKDOWN_DAYS - 1), today


@dataclasses.dataclass
class _Days:
    """A module's activity over a range: each day's active users, and the range's totals (one union sketch)."""

    active: dict[str, int] = dataclasses.field(default_factory=dict)
    totals: Totals = dataclasses.field(default_factory=Totals)


def _fold_days(rollup: activity.Rollup, data_client: str | None, start: dt.date, end: dt.date) -> _Days:
    """The range's days folded one at a time, in day order: a day's sketch (up to 2^14 registers) is estimated,
    merged into the range's and dropped, so memory does not grow with the span times the daily users."""
    found, day, current = _Days(), None, None

    def finish() -> None:
        if current is not None:
            found.active[day] = current.active_users(rollup.group)
            found.totals.merge(current)

    for data in repo.day_documents(rollup.counters, data_client, start.isoformat(), end.isoformat()):
        if current is None or data.get("day") != day:
            finish()
            day, current = data.get("day"), Totals()
        current.add_shard(data)
    finish()
    return found


def engagement(scope: Scope, window: Window) -> dict[str, Any]:
    data_client = scope.data_client_id
    start, end = _breakdown_window(window)
    jobs: dict[str, Callable[[], Any]] = {"linked": lambda: repo.count_players(data_client)}
    for module, (rollup, _) in ENGAGED.items():
        jobs[module] = functools.partial(_fold_days, rollup, data_client, start, end)
        if not window.ranged:
            jobs[f"{module}:all"] = functools.partial(rollup.counters.all_time, data_client)
    found = repo.gather(jobs)
    body: dict[str, Any] = {"success": True}
    for module, (rollup, fields) in ENGAGED.items():
        totals = found[module].totals if window.ranged else found[f"{module}:all"]
        body[module] = {"activeUsers": totals.active_users(rollup.group),
                        **{field: _number(totals.count(rollup.group, counter)) for field, counter in fields.items()}}
    for module, absent in ABSENT.items():
        body[module] = dict.fromkeys(absent, 0)
    body = {key: body[key] for key in ("success", "lessons", "aiMove", "aiNutrition", "waterIntake", "wellnessChat",
                                       "vitalScan")}
    body["dailyBreakdown"] = [
        {"date": day, **{name: (found[module].active.get(day, 0) if module else 0)
                         for name, module in BREAKDOWN.items()}}
        for day in models.days_of(start, end)
    ]
    body["metadata"] = _metadata(scope, found["linked"], window)
    return body


# ------------------------------------------------------------------------------------ assessment counts


def _fall_risk_rows(window: Window, data_client: str | None) -> dict[str, Totals]:
    """The fall-risk rollup over the window (lifetime: the lifetime bucket), summed per client."""
    start, end = LIFETIME, LIFETIME
    if window.start is not None and window.end is not None:  # ranged
        start, end = window.start.isoformat(), window.end.isoformat()
    per_client: dict[str, Totals] = {}
    for shard in activity.FALL_RISK.counters.documents(data_client, start, end):
        # Counts only: these figures use no active users, and a sketch per client would grow with the clients.
        per_client.setdefault(shard.get("clientId", ""), Totals()).add_shard({"counts": shard.get("counts")})
    return per_client


def _states(totals: Totals, suffix: str = "") -> dict[str, int]:
    """Assessments created in the window by where they stand now: completed, in progress, not started."""
    group = activity.FALL_RISK.group
    created = int(totals.count(group, f"created{suffix}"))
    started = int(totals.count(group, f"cohortStarted{suffix}"))
    completed = int(totals.count(group, f"cohortCompleted{suffix}"))
    return {"total": created, "completed": completed, "inProgress": started - completed,
            "notStarted": created - started}


def _kinds(totals: Totals | None, with_origins: bool) -> dict[str, Any]:
    empty = Totals()
    kinds = {}
    for kind in ASSESSMENT_KINDS:
        source = totals if (kind == "fallRisk" and totals is not None) else empty
        counts: dict[str, Any] = _states(source)
        if with_origins:
            counts["byOrigin"] = {origin: _states(source, f"_{origin}") for origin in ORIGINS}
        kinds[kind] = counts
    return kinds


def assessment_counts(scope: Scope, window: Window) -> dict[str, Any]:
    data_client = scope.data_client_id
    found = repo.gather({"rows": lambda: _fall_risk_rows(window, data_client),
                         "linked": lambda: repo.count_players(data_client)})
    rows: dict[str, Totals] = found["rows"]
    if data_client is not None:
        rows.setdefault(data_client, Totals())
    assessments = _kinds(_sum(rows.values()), with_origins=True)
    names = repo.client_names(set(rows))
    return {
        "success": True,
        "totals": {state: sum(assessments[kind][state] for kind in ASSESSMENT_KINDS)
                   for state in ("total", "completed", "inProgress", "notStarted")},
        "assessments": assessments,
        "byClient": [{"clientId": client_id, "name": names.get(client_id, client_id),
                      **_kinds(totals, with_origins=False)} for client_id, totals in sorted(rows.items())],
        "metadata": _metadata(scope, found["linked"], window),
    }


# ------------------------------------------------------------------------------------ functional tests

# The averaged measurements: {response field: rollup counter suffix}.
MEASURES = {"chairStands": "chairStands", "tandemStanceSeconds": "tandemSeconds",
            "singleLegStanceSeconds": "singleLegSeconds", "tandemWalkSteps": "walkSteps"}


def _averages(sums: dict[str, float], results: int) -> dict[str, float | None]:
    return {field: (round(sums[field] / results, 1) if results else None) for field in MEASURES}


def functional_tests(scope: Scope, window: Window) -> dict[str, Any]:
    data_client = scope.data_client_id
    found = repo.gather({"rows": lambda: _fall_risk_rows(window, data_client),
                         "linked": lambda: repo.count_players(data_client)})
    group_name = activity.FALL_RISK.group
    totals = _sum(found["rows"].values())
    groups, overall_sums, overall_results = [], dict.fromkeys(MEASURES, 0.0), 0
    for age_group in users.AGE_GROUPS:
        prefix = activity.age_prefix(age_group)
        results = int(totals.count(group_name, f"{prefix}_results"))
        sums = {field: float(totals.count(group_name, f"{prefix}_{suffix}")) for field, suffix in MEASURES.items()}
        groups.append({"ageGroup": age_group, "results": results, "averages": _averages(sums, results)})
        overall_results += results
        for field in MEASURES:
            overall_sums[field] += sums[field]
    completed = int(totals.count(group_name, "completed"))
    return {
        "success": True,
        "ageGroups": groups,
        "overall": {"results": overall_results, "averages": _averages(overall_sums, overall_results)},
        "ungroupedResults": completed - overall_results,
        "metadata": _metadata(scope, found["linked"], window),
    }


# ------------------------------------------------------------------------------------ the dashboard page


def viewable_clients(principal: Principal) -> dict[str, Any]:
    """The clients the dashboard's picker offers: every one (up to models.MAX_PICKER_CLIENTS, by id) to platform
    administrators, else the caller's; `truncated` when there are more."""
    if not principal.is_admin:
        raise ApiError(403, ADMIN_REQUIRED)
    truncated = False
    if principal.platform_admin:
        clients = repo.first_clients(models.MAX_PICKER_CLIENTS + 1)  # one more tells whether the list is whole
        truncated = len(clients) > models.MAX_PICKER_CLIENTS
        clients = clients[:models.MAX_PICKER_CLIENTS]
    else:
        clients = [auth.administered_client(principal, None)]
    return {"clients": [{"clientId": c.client_id, "name": c.name, "isOperator": c.is_operator,
                         "analytics": bool(c.setting(MODULE_SETTING))} for c in clients],
            "truncated": truncated}


def page_config() -> dict[str, Any]:
    """What the dashboard page needs to sign in with the Firebase JS SDK (public values, no secret)."""
    return {"firebase": config.firebase_web_config(), "authEmulatorUrl": config.auth_emulator_url()}
