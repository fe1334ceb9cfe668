"""GET /api/client/[clientId]/analytics/overview (4.10, 2.14): the client's linked players now (active players: no
admins, disabled members or invitations), by the level of their latest completed fall-risk result, needing urgent
attention, by age group at the exact birthdays, their average age and the share who completed an assessment.

The population is made through the platform's own code: members with core.users.create_user (as platformctl),
results through POST /api/fall-risk and the step PUTs."""

import collections
import datetime as dt
import types

import pytest

from tests.analytics.conftest import (
    AGE_GROUPS,
    METADATA_KEYS,
    NO_ANSWERS,
    OVERVIEW,
    OVERVIEW_KEYS,
    age_group_of,
    ages_today,
    assert_metadata,
    at,
    born,
    client_token,
    new_tenant,
    quiz,
    read,
)
from wellness_api.core import users
from wellness_api.identity import members

# Players at the boundaries of the age groups: "40" turns 40 today, "40-" tomorrow (so is 39).
BOUNDARIES = {"30": (30, 0), "30-": (30, 1), "40": (40, 0), "40-": (40, 1), "60": (60, 0), "60-": (60, 1),
              "90": (90, 0), "90-": (90, 1)}
EXPECTED_GROUPS = {"30": "30-39", "30-": None, "40": "40-49", "40-": "30-39", "60": "60-69", "60-": "50-59",
                   "90": "90+", "90-": "80-89"}


def overview(http, caller, client_id: str) -> dict:
    body = read(http, caller, client_id, OVERVIEW)
    assert set(body) == OVERVIEW_KEYS
    assert set(body["riskDistribution"]) == {"level1", "level2", "level3", "level4"}
    assert set(body["ageDistribution"]) == set(AGE_GROUPS)
    assert set(body["metadata"]) == METADATA_KEYS
    return body


@pytest.fixture(scope="module")
def population(emulators, http, fall_risk):
    """A client of 15 linked players (the tenant's own player without a date of birth, 8 at the age boundaries, 6
    assessed seniors), and people who must not count: an assessed admin, an assessed player who was then
    disabled, a pending invitation, and another client's assessed players."""
    world = types.SimpleNamespace(tenant=new_tenant(), birth_dates=[])
    tenant = world.tenant
    clinician = tenant.admin

    def player(birth_date):
        member = tenant.add_member("player", birth_date=birth_date, sex="female")
        world.birth_dates.append(birth_date)
        return member

    world.boundary = {name: born(*age) for name, age in BOUNDARIES.items()}
    for birth_date in world.boundary.values():
        player(birth_date)
    seniors = [player(born(72, 40)) for _ in range(6)]  # the assessed players: 72, in 70-79
    # a1: level 1, then level 4 (the latest counts); a2: level 4, then level 1.
    fall_risk.complete(clinician, for_user=seniors[0].uid, level=1)
    fall_risk.complete(clinician, for_user=seniors[0].uid, level=4)
    fall_risk.complete(clinician, for_user=seniors[1].uid, level=4)
    fall_risk.complete(clinician, for_user=seniors[1].uid, level=1)
    # ... an unfinished result after a completed one changes nothing.
    started = fall_risk.create(clinician, userId=seniors[1].uid)
    fall_risk.step(clinician, started, "quiz", quiz(tuple(NO_ANSWERS), fallsPastYear=3))
    fall_risk.complete(clinician, for_user=seniors[2].uid, level="2u")  # level 2, urgent
    fall_risk.complete(clinician, for_user=seniors[3].uid, level=3)
    fall_risk.complete(clinician, for_user=seniors[5].uid, level=2)
    # a5: a result created, and one in progress: not assessed.
    fall_risk.create(clinician, userId=seniors[4].uid)
    in_progress = fall_risk.create(clinician, userId=seniors[4].uid)
    fall_risk.step(clinician, in_progress, "sitToStand", {"standCount": 12})

    # Not linked players: an admin assessed (by themselves), a player assessed then disabled, an invitation.
    admin = tenant.add_member("admin", birth_date=born(50), sex="male")
    fall_risk.complete(admin, level=4)
    gone = tenant.add_member("player", birth_date=born(45), sex="male")
    fall_risk.complete(clinician, for_user=gone.uid, level=4)
    users.disable_user(tenant.client, gone.uid)
    members.invite(tenant.client, f"invited-{tenant.client_id}@example.test", "player")

    # Another client: its assessed players count only there.
    world.other = new_tenant()
    for level in (4, 4, 3):
        stranger = world.other.add_member("player", birth_date=born(35), sex="male")
        fall_risk.complete(world.other.admin, for_user=stranger.uid, level=level)

    world.seniors = seniors
    world.body = overview(http, tenant.admin, tenant.client_id)
    return world


def test_the_linked_players_are_the_active_players_only(population):
    body = population.body
    assert body["totalLinkedPlayers"] == 1 + len(BOUNDARIES) + 6 == 15
    assert body["metadata"]["linkedPlayers"] == 15
    assert_metadata(body, population.tenant.client_id, False, 15)


def test_risk_levels_are_those_of_each_members_latest_completed_result(population):
    assert population.body["riskDistribution"] == {"level1": 1, "level2": 2, "level3": 1, "level4": 1}


def test_urgent_attention_and_high_risk(population):
    body = population.body
    assert body["urgentAttentionCount"] == 2  # the latest level 4, and the level 2 with the feet not held together
    assert body["highRiskCount"] == body["riskDistribution"]["level4"] == 1


def test_ages_are_grouped_at_the_exact_birthdays(population):
    expected = dict.fromkeys(AGE_GROUPS, 0)
    for name, group in EXPECTED_GROUPS.items():
        assert age_group_of(population.boundary[name]) == group, name  # the test's own arithmetic agrees
        if group is not None:
            expected[group] += 1
    expected["70-79"] += 6
    assert population.body["ageDistribution"] == expected
    # The tenant's own player (no date of birth) and the 29-year-old are in no group.
    assert sum(population.body["ageDistribution"].values()) == 15 - 2


def test_the_average_age_is_of_the_linked_players_with_a_date_of_birth(population):
    assert len(population.birth_dates) == 14
    assert population.body["averageAge"] == ages_today(population.birth_dates)
    assert isinstance(population.body["averageAge"], float)


def test_the_completion_rate_is_the_percent_of_linked_players_with_a_completed_assessment(population):
    assert population.body["assessmentCompletionRate"] == round(100 * 5 / 15, 1) == 33.3


def test_a_platform_administrator_sees_the_same_figures(http, population, platform_admin):
    theirs = overview(http, platform_admin, population.tenant.client_id)
    assert theirs["metadata"]["isGofaAdmin"] is True
    assert {k: v for k, v in theirs.items() if k != "metadata"} == {
        k: v for k, v in population.body.items() if k != "metadata"}


def test_another_client_sees_only_its_own_players(http, population):
    other = overview(http, population.other.admin, population.other.client_id)
    assert other["totalLinkedPlayers"] == 4
    assert other["riskDistribution"] == {"level1": 0, "level2": 0, "level3": 1, "level4": 2}
    assert (other["highRiskCount"], other["urgentAttentionCount"]) == (2, 2)
    assert other["ageDistribution"] == {**dict.fromkeys(AGE_GROUPS, 0), "30-39": 3}
    assert other["assessmentCompletionRate"] == 75.0
    assert other["averageAge"] == ages_today([born(35)] * 3)


def test_the_operator_tenants_view_takes_in_every_client(http, population, platform_admin, operator_tenant):
    broad = overview(http, platform_admin, operator_tenant.client_id)
    mine = population.body
    other = overview(http, population.other.admin, population.other.client_id)
    assert broad["totalLinkedPlayers"] >= mine["totalLinkedPlayers"] + other["totalLinkedPlayers"]
    assert broad["metadata"]["linkedPlayers"] == broad["totalLinkedPlayers"]
    for level, count in mine["riskDistribution"].items():
        assert broad["riskDistribution"][level] >= count + other["riskDistribution"][level], level
    for group, count in mine["ageDistribution"].items():
        assert broad["ageDistribution"][group] >= count + other["ageDistribution"][group], group
    assert broad["highRiskCount"] >= 3 and broad["urgentAttentionCount"] >= 4
    assert broad["metadata"]["queryClientId"] == operator_tenant.client_id


# ------------------------------------------------------------------------------------ the figures move


def zeros_but_the_average_age(body: dict, linked: int) -> None:
    assert {k: v for k, v in body.items() if k not in ("metadata", "averageAge")} == {
        "totalLinkedPlayers": linked, "highRiskCount": 0, "urgentAttentionCount": 0,
        "riskDistribution": {"level1": 0, "level2": 0, "level3": 0, "level4": 0},
        "ageDistribution": dict.fromkeys(AGE_GROUPS, 0), "assessmentCompletionRate": 0.0,
    }


def test_an_empty_client_reports_zeros(http, dashboard):
    body = overview(http, dashboard.admin, dashboard.client_id)
    zeros_but_the_average_age(body, 1)
    assert_metadata(body, dashboard.client_id, False, 1)


def test_the_average_age_is_0_when_no_linked_player_has_a_date_of_birth(http, dashboard, platform_admin):
    # The tenant's player has no date of birth; an admin with one does not count.
    dashboard.add_member("admin", birth_date=born(50))
    assert overview(http, dashboard.admin, dashboard.client_id)["averageAge"] == 0.0
    # A client without any player at all.
    users.disable_user(dashboard.client, dashboard.player.uid)
    body = overview(http, platform_admin, dashboard.client_id)
    assert (body["totalLinkedPlayers"], body["averageAge"]) == (0, 0.0)


def test_each_new_completion_moves_the_member_to_its_level(http, dashboard, fall_risk):
    member = dashboard.add_member("player", birth_date=born(66), sex="male")
    fall_risk.complete(member, level=1)  # the member's own (origin app)
    body = overview(http, dashboard.admin, dashboard.client_id)
    assert body["riskDistribution"] == {"level1": 1, "level2": 0, "level3": 0, "level4": 0}
    assert (body["assessmentCompletionRate"], body["highRiskCount"], body["urgentAttentionCount"]) == (50.0, 0, 0)
    fall_risk.complete(member, level=4)
    body = overview(http, dashboard.admin, dashboard.client_id)
    assert body["riskDistribution"] == {"level1": 0, "level2": 0, "level3": 0, "level4": 1}
    assert (body["assessmentCompletionRate"], body["highRiskCount"], body["urgentAttentionCount"]) == (50.0, 1, 1)
    # A partner backend's result for the tenant's other player counts the same.
    fall_risk.complete(client_token(dashboard), for_user=dashboard.player.uid, level=3)
    body = overview(http, dashboard.admin, dashboard.client_id)
    assert body["riskDistribution"] == {"level1": 0, "level2": 0, "level3": 1, "level4": 1}
    assert body["assessmentCompletionRate"] == 100.0
    assert body["ageDistribution"] == {**dict.fromkeys(AGE_GROUPS, 0), "60-69": 1}
    assert body["averageAge"] == ages_today([born(66)])


def test_the_completion_rate_has_one_decimal(http, dashboard, fall_risk):
    extra = [dashboard.add_member("player") for _ in range(2)]  # three linked players
    fall_risk.complete(dashboard.admin, for_user=extra[0].uid, level=2)
    assert overview(http, dashboard.admin, dashboard.client_id)["assessmentCompletionRate"] == 33.3
    fall_risk.complete(dashboard.admin, for_user=extra[1].uid, level=2)
    assert overview(http, dashboard.admin, dashboard.client_id)["assessmentCompletionRate"] == 66.7


def test_a_disabled_player_leaves_every_figure_at_once(http, dashboard, fall_risk):
    dashboard.add_member("player", birth_date=born(40), sex="male")
    member = dashboard.add_member("player", birth_date=born(81), sex="female")
    fall_risk.complete(dashboard.admin, for_user=member.uid, level=4)
    before = overview(http, dashboard.admin, dashboard.client_id)
    assert (before["totalLinkedPlayers"], before["highRiskCount"], before["urgentAttentionCount"]) == (3, 1, 1)
    assert before["ageDistribution"] == {**dict.fromkeys(AGE_GROUPS, 0), "40-49": 1, "80-89": 1}
    assert before["averageAge"] == ages_today([born(40), born(81)])
    assert before["assessmentCompletionRate"] == 33.3
    users.disable_user(dashboard.client, member.uid)
    after = overview(http, dashboard.admin, dashboard.client_id)
    assert {k: v for k, v in after.items() if k != "metadata"} == {
        "totalLinkedPlayers": 2, "highRiskCount": 0, "averageAge": ages_today([born(40)]), "urgentAttentionCount": 0,
        "riskDistribution": {"level1": 0, "level2": 0, "level3": 0, "level4": 0},
        "ageDistribution": {**dict.fromkeys(AGE_GROUPS, 0), "40-49": 1}, "assessmentCompletionRate": 0.0,
    }
    assert after["metadata"]["linkedPlayers"] == 2


LEAP_BIRTHS = ("1988-02-29", "1988-03-01", "1998-02-28", "1998-03-01", "1938-02-28", "1938-03-01")


@pytest.mark.parametrize(("day", "expected"), [
    # A leap day: born on 29 February 40 years ago is 40 today; 28 February is the 30th birthday of a non-leap year.
    ("2028-02-29", {"30-39": 2, "40-49": 1, "80-89": 1, "90+": 1}),
    # 28 February of a common year: born on 29 February is not a year older before 1 March.
    ("2027-02-28", {"30-39": 2, "80-89": 2}),
])
def test_age_groups_around_29_february(http, dashboard, day, expected):
    for birth_date in LEAP_BIRTHS:
        dashboard.add_member("player", birth_date=birth_date)
    today = dt.date.fromisoformat(day)
    oracle = collections.Counter(users.age_group(users.age_on(dt.date.fromisoformat(b), today)) for b in LEAP_BIRTHS)
    oracle.pop(None, None)
    assert dict(oracle) == expected  # the test's own arithmetic agrees
    with at(dt.datetime.combine(today, dt.time(12), dt.UTC)):
        body = overview(http, dashboard.admin, dashboard.client_id)
    assert body["ageDistribution"] == {**dict.fromkeys(AGE_GROUPS, 0), **expected}
    mean_days = sum((today - dt.date.fromisoformat(b)).days for b in LEAP_BIRTHS) / len(LEAP_BIRTHS)
    assert body["averageAge"] == round(mean_days / 365.2425, 1)
