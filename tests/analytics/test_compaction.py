"""The rollups' compaction (analyticscompact: a day's shards folded into one `{day}_all` document) changes no figure
of the endpoints that read the rollups, and a late write to a compacted day (a step of a result created that day, a
play reported late) still counts exactly once, before and after the next compaction."""

import collections

from google.cloud.firestore_v1.base_query import FieldFilter

from tests.analytics.conftest import (
    ASSESSMENTS,
    ENGAGEMENT,
    RANGED,
    ai_move_ready,
    ai_move_session,
    back,
    days_ago,
    live_lesson,
    play,
    played,
    quiz,
    read,
    scan,
    today,
    vital_scan_ready,
)
from wellness_api.core import activity


def compact(client_id: str) -> int:
    """Fold the client's pending shards of every rollup, day by day, with the code analyticscompact runs."""
    folded = 0
    for rollup in activity.ALL:
        counters = rollup.counters
        days = collections.defaultdict(list)
        for snap in counters.shards_collection(client_id).where(filter=FieldFilter("pending", "==", True)).stream():
            days[snap.get("day")].append(snap.reference)
        for day, refs in days.items():
            counters.compact(client_id, day, refs)
            folded += len(refs)
    return folded


def day_documents(client_id: str, day: str) -> dict[str, list[str]]:
    """The ids of each rollup's documents of a day."""
    found = {}
    for rollup in activity.ALL:
        query = rollup.counters.shards_collection(client_id).where(filter=FieldFilter("day", "==", day))
        found[rollup.counters.collection] = sorted(snap.id for snap in query.stream())
    return found


def figures(http, tenant) -> dict:
    """The answers read from the rollups, lifetime and over the last week, without the moment they were made."""
    answers = {}
    for endpoint in RANGED:
        for window in ((), (days_ago(6), today())):
            body = read(http, tenant.admin, tenant.client_id, endpoint, *window)
            body["metadata"].pop("generatedAt")
            answers[(endpoint, bool(window))] = body
    return answers


def test_compaction_changes_no_figure_and_late_writes_count_once(http, dashboard, fall_risk):
    ai_move_ready(dashboard)
    vital_scan_ready(dashboard)
    lesson = live_lesson(dashboard)
    player, admin = dashboard.player, dashboard.admin
    second = dashboard.add_member("player")
    for member in (player, admin, second):
        assert member.token
    three_days_ago = days_ago(3).isoformat()
    with back(3):
        fall_risk.complete(admin, for_user=player.uid, level=3)
        unstarted = fall_risk.create(admin, userId=second.uid)
        played(player, lesson)
        played(second, lesson, completed=False)
        ai_move_session(dashboard, player, reps=6)
        scan(dashboard, "scanner-1")
    played(player, lesson)
    fall_risk.complete(second, level=1)

    before = figures(http, dashboard)
    assert compact(dashboard.client_id) > 0
    # Three days ago is now one document per rollup.
    assert day_documents(dashboard.client_id, three_days_ago) == {
        rollup.counters.collection: [] if rollup is activity.WELLNESS_CHAT else [f"{three_days_ago}_all"]
        for rollup in activity.ALL}
    assert figures(http, dashboard) == before
    assert compact(dashboard.client_id) == 0  # nothing left to fold

    # Late writes to the compacted day: the unstarted result's first step (its cohort is that day's), and a play.
    with back(3):
        fall_risk.step(admin, unstarted, "quiz", quiz())
        assert play(second, lesson, "completed").status_code == 201
    day = (days_ago(3), days_ago(3))
    counted = read(http, admin, dashboard.client_id, ASSESSMENTS, *day)["assessments"]["fallRisk"]
    assert {k: counted[k] for k in ("total", "completed", "inProgress", "notStarted")} == {
        "total": 2, "completed": 1, "inProgress": 1, "notStarted": 0}
    engaged = read(http, admin, dashboard.client_id, ENGAGEMENT, *day)
    assert engaged["lessons"] == {"activeUsers": 2, "totalPlays": 3, "completedPlays": 2}
    after_late = figures(http, dashboard)
    # Folded again: the same figures, and the day is one document again.
    assert compact(dashboard.client_id) > 0
    assert figures(http, dashboard) == after_late
    assert day_documents(dashboard.client_id, three_days_ago)["lessonActivity"] == [f"{three_days_ago}_all"]
