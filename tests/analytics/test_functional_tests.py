"""GET /api/client/[clientId]/analytics/functional-tests (4.10): the fall-risk results completed in the range (lifetime
without one), averaged per age group of the participant at completion (chair stands, tandem and single-leg stance
seconds, tandem-walk steps); null averages for empty groups; results of participants under 30 or without a date
of birth in no group (ungroupedResults)."""

import types

import pytest

from tests.analytics.conftest import (
    AGE_GROUPS,
    FUNCTIONAL,
    FUNCTIONAL_KEYS,
    MEASURE_KEYS,
    assert_metadata,
    back,
    born,
    days_ago,
    new_tenant,
    quiz,
    read,
    steps,
    today,
)

NONE = dict.fromkeys(("chairStands", "tandemStanceSeconds", "singleLegStanceSeconds", "tandemWalkSteps"))


def functional(http, caller, client_id: str, start=None, end=None) -> dict:
    body = read(http, caller, client_id, FUNCTIONAL, start, end)
    assert set(body) == FUNCTIONAL_KEYS and body["success"] is True
    assert [group["ageGroup"] for group in body["ageGroups"]] == list(AGE_GROUPS)
    for group in body["ageGroups"]:
        assert set(group) == {"ageGroup", "results", "averages"} and set(group["averages"]) == MEASURE_KEYS
    assert set(body["overall"]) == {"results", "averages"} and set(body["overall"]["averages"]) == MEASURE_KEYS
    assert body["overall"]["results"] == sum(group["results"] for group in body["ageGroups"])
    return body


def groups(body: dict) -> dict:
    """{ageGroup: (results, averages)} of the groups with results; and the empty ones are checked to be null."""
    found = {}
    for group in body["ageGroups"]:
        if group["results"]:
            found[group["ageGroup"]] = (group["results"], group["averages"])
        else:
            assert group["averages"] == NONE, group
    return found


def averages(stands, tandem, single, walk) -> dict:
    return {"chairStands": stands, "tandemStanceSeconds": tandem, "singleLegStanceSeconds": single,
            "tandemWalkSteps": walk}


@pytest.fixture(scope="module")
def measured(emulators, fall_risk):
    """Completed results with known measurements:

        today: 72 and 75 (70-79), 65 (60-69), 25 (ungrouped), no date of birth (ungrouped), and the 25-year-old
               again with the quiz giving 85 years (80-89); one more result of the 72-year-old left in progress;
        10 days ago: someone who turns 70 today, then 69 (60-69).
    """
    tenant = new_tenant()
    admin = tenant.admin

    def member(years: int, days_later: int, sex: str):
        return tenant.add_member("player", birth_date=born(years, days_later), sex=sex)

    m72, m75, m65, m25 = member(72, 40, "female"), member(75, 10, "male"), member(65, 20, "female"), member(25, 0, "male")
    turning70 = member(70, 0, "female")

    def done(who, **values):
        return fall_risk.complete(admin, for_user=who.uid, **steps(**values))

    with back(10):
        done(turning70, stands=13, tandem=10, single=10, walk=10)
    done(m72, stands=12, tandem=10, single=8, walk=10)
    done(m75, stands=8, tandem=10, single=4, walk=7)
    done(m65, stands=11, tandem=10, single=3, walk=9)
    done(m25, stands=20, tandem=10, single=10, walk=10)
    done(tenant.player, stands=16, tandem=10, single=10, walk=10)
    done(m25, stands=10, tandem=10, single=10, walk=10, quiz=quiz(birthDate=born(85, 3)))
    unfinished = fall_risk.create(admin, userId=m72.uid)
    fall_risk.step(admin, unfinished, "sitToStand", {"standCount": 1})

    other = new_tenant()
    stranger = other.add_member("player", birth_date=born(77), sex="male")
    fall_risk.complete(other.admin, for_user=stranger.uid, **steps(stands=2, tandem=3, single=1, walk=1))
    return types.SimpleNamespace(tenant=tenant, other=other)


def test_lifetime_averages_per_age_group(http, measured):
    body = functional(http, measured.tenant.admin, measured.tenant.client_id)
    assert groups(body) == {
        "60-69": (2, averages(12.0, 10.0, 6.5, 9.5)),   # 65 today; 69 when completed 10 days ago
        "70-79": (2, averages(10.0, 10.0, 6.0, 8.5)),
        "80-89": (1, averages(10.0, 10.0, 10.0, 10.0)),  # the quiz's date of birth
    }
    assert body["overall"] == {"results": 5, "averages": averages(10.8, 10.0, 7.0, 9.2)}
    assert body["ungroupedResults"] == 2  # the 25-year-old's own, and the player without a date of birth
    assert_metadata(body, measured.tenant.client_id, False, 6)


def test_a_range_uses_the_results_completed_in_it(http, measured):
    tenant = measured.tenant
    body = functional(http, tenant.admin, tenant.client_id, today(), today())
    assert groups(body) == {
        "60-69": (1, averages(11.0, 10.0, 3.0, 9.0)),
        "70-79": (2, averages(10.0, 10.0, 6.0, 8.5)),
        "80-89": (1, averages(10.0, 10.0, 10.0, 10.0)),
    }
    assert (body["overall"]["results"], body["ungroupedResults"]) == (4, 2)
    assert_metadata(body, tenant.client_id, False, 6, today().isoformat(), today().isoformat())
    # The age is the one at completion: 69, ten days before their 70th birthday.
    body = functional(http, tenant.admin, tenant.client_id, days_ago(10), days_ago(10))
    assert groups(body) == {"60-69": (1, averages(13.0, 10.0, 10.0, 10.0))}
    assert body["overall"] == {"results": 1, "averages": averages(13.0, 10.0, 10.0, 10.0)}
    assert body["ungroupedResults"] == 0


def test_a_range_without_completions_has_null_averages(http, measured):
    body = functional(http, measured.tenant.admin, measured.tenant.client_id, days_ago(9), days_ago(1))
    assert groups(body) == {}
    assert body["overall"] == {"results": 0, "averages": NONE}
    assert body["ungroupedResults"] == 0


def test_another_client_sees_only_its_own(http, measured):
    body = functional(http, measured.other.admin, measured.other.client_id)
    assert groups(body) == {"70-79": (1, averages(2.0, 3.0, 1.0, 1.0))}
    assert body["ungroupedResults"] == 0


def test_the_operator_tenants_view_takes_in_every_client(http, measured, platform_admin, operator_tenant):
    broad = functional(http, platform_admin, operator_tenant.client_id)
    mine = functional(http, measured.tenant.admin, measured.tenant.client_id)
    other = functional(http, measured.other.admin, measured.other.client_id)
    for theirs, own, stranger in zip(broad["ageGroups"], mine["ageGroups"], other["ageGroups"], strict=True):
        assert theirs["results"] >= own["results"] + stranger["results"], theirs["ageGroup"]
    assert broad["ungroupedResults"] >= mine["ungroupedResults"] + other["ungroupedResults"]
    assert broad["metadata"]["isGofaAdmin"] is True


def test_an_idle_client_has_every_group_empty(http, dashboard):
    body = functional(http, dashboard.admin, dashboard.client_id)
    assert groups(body) == {}
    assert body["overall"] == {"results": 0, "averages": NONE} and body["ungroupedResults"] == 0
    assert_metadata(body, dashboard.client_id, False, 1)


def test_a_chair_stand_with_the_arms_scores_0(http, dashboard, fall_risk):
    member = dashboard.add_member("player", birth_date=born(91), sex="female")
    fall_risk.complete(dashboard.admin, for_user=member.uid, **steps(stands=14, tandem=10, single=10, walk=10))
    fall_risk.complete(dashboard.admin, for_user=member.uid, sitToStand={"standCount": 14, "usedArms": True})
    body = functional(http, dashboard.admin, dashboard.client_id)
    assert groups(body) == {"90+": (2, averages(7.0, 10.0, 10.0, 10.0))}


def test_averages_have_one_decimal(http, dashboard, fall_risk):
    member = dashboard.add_member("player", birth_date=born(55), sex="male")
    for stands, single in ((10, 1), (10, 1), (11, 2)):
        fall_risk.complete(dashboard.admin, for_user=member.uid, **steps(stands=stands, single=single))
    body = functional(http, dashboard.admin, dashboard.client_id)
    assert groups(body) == {"50-59": (3, averages(10.3, 10.0, 1.3, 10.0))}
