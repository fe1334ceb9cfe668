"""GET /api/client/[clientId]/analytics/engagement-insights (4.10, 2.14): activity per module over a range of UTC days
(lifetime without one), active users counted once over the whole range, and a breakdown with every day of the range
(the last 30 without one), zeros on idle days. The activity is made through the areas' own endpoints: lesson plays,
AI Move sessions, wellness-chat turns (the local assistant) and Vital Scan sessions (partner API + hosted page)."""

import datetime as dt
import itertools
import types

import pytest

from tests.analytics.conftest import (
    DAY_KEYS,
    ENGAGEMENT,
    ENGAGEMENT_KEYS,
    ENGAGEMENT_MODULES,
    ai_move_ready,
    ai_move_session,
    assert_metadata,
    at,
    back,
    chat,
    days_ago,
    live_lesson,
    midnight,
    new_tenant,
    play,
    played,
    read,
    scan,
    today,
    vital_scan_ready,
)
from wellness_api.analytics import models

IDLE = {"aiMove": 0, "aiTraining": 0, "lessons": 0, "nutrition": 0, "waterIntake": 0, "wellnessChat": 0,
        "vitalScan": 0}
ABSENT = {"aiNutrition": {"activeUsers": 0, "totalFoodLogs": 0, "totalPlans": 0, "totalChatSessions": 0},
          "waterIntake": {"activeUsers": 0, "totalLogs": 0, "totalAmountMl": 0}}


def engagement(http, caller, client_id: str, start=None, end=None) -> dict:
    body = read(http, caller, client_id, ENGAGEMENT, start, end)
    assert set(body) == ENGAGEMENT_KEYS and body["success"] is True
    for module, fields in ENGAGEMENT_MODULES.items():
        assert set(body[module]) == set(fields), module
        assert all(isinstance(v, int) and v >= 0 for v in body[module].values()), module
    for day in body["dailyBreakdown"]:
        assert set(day) == DAY_KEYS
    return body


def breakdown(body: dict) -> dict[str, dict]:
    """{date: the day's figures} of the non-idle days; and every listed day is checked to be consecutive."""
    dates = [dt.date.fromisoformat(day["date"]) for day in body["dailyBreakdown"]]
    assert all(later - earlier == dt.timedelta(days=1) for earlier, later in itertools.pairwise(dates))
    return {day["date"]: {k: v for k, v in day.items() if k != "date"} for day in body["dailyBreakdown"]
            if any(v for k, v in day.items() if k != "date")}


def totals(body: dict) -> dict:
    return {module: body[module] for module in ("lessons", "aiMove", "wellnessChat", "vitalScan")}


@pytest.fixture(scope="module")
def active(emulators, local_module_assistant):
    """A client with three players' activity on four days: 40, 10 and 3 days ago, and today; and another client
    with some of its own today."""
    tenant = new_tenant()
    tenant.configure("modules.wellnessChat=true")
    ai_move_ready(tenant)
    vital_scan_ready(tenant)
    lesson = live_lesson(tenant)
    p1, p2, p3 = tenant.player, tenant.add_member("player"), tenant.add_member("player")
    for member in (p1, p2, p3):
        assert member.token  # signed in now: an ID token is checked against the real time

    with back(40):
        played(p3, lesson)
        ai_move_session(tenant, p3, reps=7)
    with back(10):
        played(p1, lesson)
        played(p1, lesson, completed=False)
        played(p2, lesson)
        ai_move_session(tenant, p1, reps=10)
        ai_move_session(tenant, p2, status=None)
        conversation = chat(p1)
        chat(p1, conversation)
        scan(tenant, "user-a")
    with back(3):
        played(p1, lesson)
        ai_move_session(tenant, p1, reps=12)
        ai_move_session(tenant, p1, status="failed")
        chat(p2)
        scan(tenant, "user-a", finish=False)
        scan(tenant, "user-b")
    played(p2, lesson, completed=False)
    ai_move_session(tenant, p2, reps=5)
    chat(p1)
    scan(tenant, "user-c")

    other = new_tenant()
    other.configure("modules.wellnessChat=true")
    played(other.player, live_lesson(other))
    chat(other.player)
    return types.SimpleNamespace(tenant=tenant, other=other, lesson=lesson)


@pytest.fixture(scope="module")
def local_module_assistant():
    """No LLM configured for the module's chats: the local assistant answers."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
            patch.delenv(name, raising=False)
        yield


LIFETIME = {
    "lessons": {"activeUsers": 3, "totalPlays": 6, "completedPlays": 4},
    "aiMove": {"activeUsers": 3, "totalSessions": 6, "completedSessions": 4, "totalReps": 34},
    "wellnessChat": {"activeUsers": 2, "totalChats": 3, "totalMessages": 4},
    "vitalScan": {"activeUsers": 3, "totalScans": 4, "completedScans": 3},
}


def test_without_a_range_the_totals_are_lifetime(http, active):
    body = engagement(http, active.tenant.admin, active.tenant.client_id)
    assert totals(body) == LIFETIME
    assert {module: body[module] for module in ABSENT} == ABSENT
    assert_metadata(body, active.tenant.client_id, False, 3)


def test_without_a_range_the_breakdown_is_the_last_30_days(http, active):
    body = engagement(http, active.tenant.admin, active.tenant.client_id)
    dates = [day["date"] for day in body["dailyBreakdown"]]
    assert dates == models.days_of(days_ago(29), today())
    # 40 days ago is in the totals, not in the breakdown.
    assert breakdown(body) == {
        days_ago(10).isoformat(): {**IDLE, "lessons": 2, "aiMove": 2, "wellnessChat": 1, "vitalScan": 1},
        days_ago(3).isoformat(): {**IDLE, "lessons": 1, "aiMove": 1, "wellnessChat": 1, "vitalScan": 2},
        today().isoformat(): {**IDLE, "lessons": 1, "aiMove": 1, "wellnessChat": 1, "vitalScan": 1},
    }


def test_a_range_counts_only_its_days_and_each_user_once(http, active):
    start, end = days_ago(10), days_ago(3)
    body = engagement(http, active.tenant.admin, active.tenant.client_id, start, end)
    assert totals(body) == {
        "lessons": {"activeUsers": 2, "totalPlays": 4, "completedPlays": 3},
        "aiMove": {"activeUsers": 2, "totalSessions": 4, "completedSessions": 2, "totalReps": 22},
        "wellnessChat": {"activeUsers": 2, "totalChats": 2, "totalMessages": 3},
        "vitalScan": {"activeUsers": 2, "totalScans": 3, "completedScans": 2},
    }
    assert {module: body[module] for module in ABSENT} == ABSENT
    assert_metadata(body, active.tenant.client_id, False, 3, start.isoformat(), end.isoformat())


def test_the_breakdown_has_every_day_of_the_range_with_zeros_on_idle_days(http, active):
    start, end = days_ago(12), days_ago(2)
    body = engagement(http, active.tenant.admin, active.tenant.client_id, start, end)
    assert [day["date"] for day in body["dailyBreakdown"]] == models.days_of(start, end)
    assert len(body["dailyBreakdown"]) == 11
    busy = breakdown(body)
    assert busy == {
        days_ago(10).isoformat(): {**IDLE, "lessons": 2, "aiMove": 2, "wellnessChat": 1, "vitalScan": 1},
        days_ago(3).isoformat(): {**IDLE, "lessons": 1, "aiMove": 1, "wellnessChat": 1, "vitalScan": 2},
    }
    for day in body["dailyBreakdown"]:
        if day["date"] not in busy:
            assert day == {"date": day["date"], **IDLE}


def test_one_day(http, active):
    day = days_ago(3)
    body = engagement(http, active.tenant.admin, active.tenant.client_id, day, day)
    assert totals(body) == {
        "lessons": {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1},
        "aiMove": {"activeUsers": 1, "totalSessions": 2, "completedSessions": 1, "totalReps": 12},
        "wellnessChat": {"activeUsers": 1, "totalChats": 1, "totalMessages": 1},
        "vitalScan": {"activeUsers": 2, "totalScans": 2, "completedScans": 1},
    }
    assert body["dailyBreakdown"] == [{"date": day.isoformat(), **IDLE, "lessons": 1, "aiMove": 1,
                                       "wellnessChat": 1, "vitalScan": 2}]


def test_a_range_over_every_day_equals_the_lifetime_totals(http, active):
    body = engagement(http, active.tenant.admin, active.tenant.client_id, days_ago(45), today())
    assert totals(body) == LIFETIME
    assert len(body["dailyBreakdown"]) == 46


def test_a_range_without_activity_is_zeros(http, active):
    body = engagement(http, active.tenant.admin, active.tenant.client_id, days_ago(9), days_ago(4))
    assert all(value == 0 for module in ENGAGEMENT_MODULES for value in body[module].values())
    assert body["dailyBreakdown"] == [{"date": d, **IDLE} for d in models.days_of(days_ago(9), days_ago(4))]


def test_another_client_sees_only_its_own_activity(http, active):
    body = engagement(http, active.other.admin, active.other.client_id)
    assert totals(body) == {
        "lessons": {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1},
        "aiMove": {"activeUsers": 0, "totalSessions": 0, "completedSessions": 0, "totalReps": 0},
        "wellnessChat": {"activeUsers": 1, "totalChats": 1, "totalMessages": 1},
        "vitalScan": {"activeUsers": 0, "totalScans": 0, "completedScans": 0},
    }
    assert breakdown(body) == {today().isoformat(): {**IDLE, "lessons": 1, "wellnessChat": 1}}
    assert_metadata(body, active.other.client_id, False, 1)


def test_a_platform_administrator_sees_the_clients_figures(http, active, platform_admin):
    mine = engagement(http, active.tenant.admin, active.tenant.client_id, days_ago(10), today())
    theirs = engagement(http, platform_admin, active.tenant.client_id, days_ago(10), today())
    assert theirs["metadata"]["isGofaAdmin"] is True
    assert {k: v for k, v in theirs.items() if k != "metadata"} == {k: v for k, v in mine.items() if k != "metadata"}


def test_the_operator_tenants_view_takes_in_every_client(http, active, platform_admin, operator_tenant):
    start, end = days_ago(10), today()
    broad = engagement(http, platform_admin, operator_tenant.client_id, start, end)
    mine = engagement(http, active.tenant.admin, active.tenant.client_id, start, end)
    other = engagement(http, active.other.admin, active.other.client_id, start, end)
    for module, fields in ENGAGEMENT_MODULES.items():
        for field in fields:
            assert broad[module][field] >= mine[module][field] + other[module][field], (module, field)
    by_day = {day["date"]: day for day in broad["dailyBreakdown"]}
    for day in mine["dailyBreakdown"]:
        for name in IDLE:
            assert by_day[day["date"]][name] >= day[name], (day["date"], name)
    assert broad["metadata"]["linkedPlayers"] >= 4


def test_an_idle_client_reports_zeros_and_30_idle_days(http, dashboard):
    body = engagement(http, dashboard.admin, dashboard.client_id)
    assert all(value == 0 for module in ENGAGEMENT_MODULES for value in body[module].values())
    assert body["dailyBreakdown"] == [{"date": d, **IDLE} for d in models.days_of(days_ago(29), today())]
    assert_metadata(body, dashboard.client_id, False, 1)


def test_days_are_utc_calendar_days(http, dashboard):
    """A play in the last seconds of a day and one at the very start of the next fall on their own days."""
    lesson = live_lesson(dashboard)
    player = dashboard.player
    assert player.token
    day = days_ago(5)
    with at(midnight(day) - dt.timedelta(seconds=5)):  # a request takes far less than 5 seconds
        assert play(player, lesson, "completed").status_code == 201
    with at(midnight(day)):  # the clock can only be later than aimed: the day itself
        assert play(player, lesson, "started").status_code == 201
    before = engagement(http, dashboard.admin, dashboard.client_id, day - dt.timedelta(days=1), day - dt.timedelta(days=1))
    assert before["lessons"] == {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1}
    on = engagement(http, dashboard.admin, dashboard.client_id, day, day)
    assert on["lessons"] == {"activeUsers": 1, "totalPlays": 1, "completedPlays": 0}
    both = engagement(http, dashboard.admin, dashboard.client_id, day - dt.timedelta(days=1), day)
    assert both["lessons"] == {"activeUsers": 1, "totalPlays": 2, "completedPlays": 1}
    assert [d["lessons"] for d in both["dailyBreakdown"]] == [1, 1]


def test_a_play_finished_on_a_later_day_counts_its_completion_on_that_day(http, dashboard):
    lesson = live_lesson(dashboard)
    player = dashboard.player
    assert player.token
    play_id = "play-across-midnight"
    with back(2):
        assert play(player, lesson, "started", play_id).status_code == 201
    with back(1):
        assert play(player, lesson, "completed", play_id).status_code == 200
    body = engagement(http, dashboard.admin, dashboard.client_id, days_ago(2), days_ago(1))
    assert body["lessons"] == {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1}
    assert [(d["date"], d["lessons"]) for d in body["dailyBreakdown"]] == [
        (days_ago(2).isoformat(), 1), (days_ago(1).isoformat(), 1)]
    assert engagement(http, dashboard.admin, dashboard.client_id, days_ago(1), days_ago(1))["lessons"] == {
        "activeUsers": 1, "totalPlays": 0, "completedPlays": 1}
