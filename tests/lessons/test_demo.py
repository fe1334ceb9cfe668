"""The demo catalog of `platformctl seed`: realistic, localized, some live, some hidden, a live plan; idempotent."""

import datetime as dt
import uuid

import pytest
import requests

from tests.conftest import Tenant
from tests.lessons.conftest import CATALOG
from wellness_api.core import activity, clock, firebase, rollups, tenancy
from wellness_api.lessons import demo


def test_seed_builds_a_catalog_and_a_live_plan_idempotently(http, tenant):
    demo.seed(tenant.client)
    demo.seed(tenancy.get_client(tenant.client_id))  # a second run changes nothing
    body = http.get(CATALOG, headers=tenant.admin.headers).json
    assert len(body["lessons"]) == len(demo.LESSONS)
    assert body["allTiers"] == ["Free", "Plus", "Premium"]
    live = set(body["liveLessonIds"])
    assert 0 < len(live) < len(body["lessons"])
    for lesson in body["lessons"]:
        assert {"en", "zh_Hant", "zh_Hans"} <= set(lesson["name"])
        assert lesson["duration"] > 0 and lesson["membershipTiers"]
    assert any(lesson["sessions"] for lesson in body["lessons"])
    first = body["lessons"][0]
    assert requests.get(first["subtitleUrl"]["en"], timeout=10).text.startswith("WEBVTT")
    plans = [snap.to_dict() for snap in firebase.db().collection(f"clients/{tenant.client_id}/lessonPlans").stream()]
    assert len(plans) == 1 and plans[0]["isLive"] is True and set(plans[0]["lessonIds"]) <= live
    app_list = http.get(f"/api/lessons?clientId={tenant.client_id}", headers=tenant.player.headers).json["data"]
    assert {lesson["id"] for lesson in app_list} == live
    assert any(lesson.get("relatedLessons") for lesson in app_list)


# ------------------------------------------------------------------------------------ demo plays


def _plays(client_id: str) -> list[dict]:
    return [snap.to_dict() for snap in firebase.db().collection(f"clients/{client_id}/lessonPlays").stream()]


def _rollup(client_id: str) -> tuple[dict, dict]:
    start = rollups.day_of(clock.now() - dt.timedelta(days=demo.PLAY_DAYS + 1))
    return (activity.LESSONS.daily(client_id, start, rollups.day_of()),
            activity.LESSONS.counters.all_time(client_id).counts)


@pytest.fixture(scope="module")
def seeded_with_players(emulators):
    """A demo catalog seeded for a client with four players (the seed's plays are theirs)."""
    tenant = Tenant(f"t-{uuid.uuid4().hex[:12]}")
    for _ in range(3):
        tenant.add_member(tenancy.ROLE_PLAYER)
    demo.seed(tenant.client)
    return tenant


@pytest.mark.parametrize("days_on", range(7))
def test_the_demo_plays_begin_four_weeks_back_on_any_weekday(days_on):
    """The plays' first day has a play whatever weekday it is (on 2026-11-28 no one else played on the two first)."""
    with clock.shifted(dt.timedelta(days=days_on)):
        for players in range(1, 13):
            days = [d for d in range(demo.PLAY_DAYS + 1) if any(demo._plays_on(d, n) for n in range(players))]
            assert max(days) == demo.PLAY_DAYS and min(days) == 0


def test_the_demo_world_has_four_weeks_of_plays_by_several_players(seeded_with_players):
    client_id = seeded_with_players.client_id
    plays = _plays(client_id)
    daily, lifetime = _rollup(client_id)
    assert len({play["userId"] for play in plays}) >= 3
    started = sorted(play["startedAt"] for play in plays)
    assert clock.now() - started[0] >= dt.timedelta(days=demo.PLAY_DAYS - 1)
    assert clock.now() - started[-1] <= dt.timedelta(days=1)
    assert len(daily) >= 15  # spread over the weeks, not a single day
    live = {lesson["id"] for lesson in demo.LESSONS if lesson["body"]["isLive"]}
    assert {play["lessonId"] for play in plays} <= live and len({play["lessonId"] for play in plays}) > 1
    completed = [play for play in plays if play["status"] == "completed"]
    assert 0 < len(completed) < len(plays)  # most, not all, watched to the end
    # The rollup agrees with the plays, per day and in all.
    assert sum(day.get("plays", 0) for day in daily.values()) == len(plays)
    assert sum(day.get("completedPlays", 0) for day in daily.values()) == len(completed)
    assert lifetime == {activity.LESSONS.group: {"plays": len(plays), "completedPlays": len(completed)}}
    for play in plays:
        assert rollups.day_of(play["startedAt"]) in daily
    totals = activity.LESSONS.counters.all_time(client_id)
    assert totals.active_users(activity.LESSONS.group) == len({play["userId"] for play in plays})


def test_seeding_again_adds_no_plays(seeded_with_players):
    client_id = seeded_with_players.client_id
    before = (sorted(play["playId"] + play["userId"] for play in _plays(client_id)), _rollup(client_id))
    demo.seed(tenancy.get_client(client_id))
    after = (sorted(play["playId"] + play["userId"] for play in _plays(client_id)), _rollup(client_id))
    assert after == before
