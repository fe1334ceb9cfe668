"""The fall-risk demo data (`platformctl seed`): on a fresh tenant it covers every risk level, both sexes, ages under
60 to over 90, every origin and completion state and an urgent case; seeding again adds nothing."""

import pytest

from wellness_api.core import tenancy
from wellness_api.fall_risk import demo
from wellness_api.fall_risk import repository as repo
from wellness_api.fall_risk.repository import Filters

EVERYTHING = 500  # more than the demo makes: one page holds them all


def results(client_id: str) -> list[dict]:
    found, more = repo.page(client_id, Filters(), EVERYTHING, None)
    assert not more
    return found


def member_ids(client_id: str) -> set[str]:
    return {snap.id for snap in tenancy.client_ref(client_id).collection(tenancy.USERS).stream()}


@pytest.fixture
def seeded(tenant) -> list[dict]:
    demo.seed(tenant.client)
    return results(tenant.client_id)


def test_every_demo_result_is_made(tenant, seeded):
    assert len(seeded) == len(demo.RESULTS)
    assert {r["clientId"] for r in seeded} == {tenant.client_id}
    # The tenant's player, its admin and the eleven demo members.
    assert len(member_ids(tenant.client_id)) == 2 + len(demo.MEMBERS)
    assert tenant.player.uid in {r["userId"] for r in seeded}


def test_completed_results_cover_every_risk_level_and_an_urgent_case(seeded):
    done = [r for r in seeded if r["status"] == "completed"]
    assert {r["riskLevel"] for r in done} == {1, 2, 3, 4}
    assert any(r["urgentAttention"] is True for r in done)
    for result in done:
        # Scored through the service: the summary fields are the scoring's.
        scoring = result["scoring"]
        assert (result["riskLevel"], result["urgentAttention"], result["rulesVersion"]) == (
            scoring["riskLevel"], scoring["urgentAttention"], "steadi-v1")
        assert result["completedAt"] is not None and all(result["steps"].values())
    # Level 4 is always urgent (STEADI's high risk).
    assert all(r["urgentAttention"] for r in done if r["riskLevel"] == 4)


def test_results_cover_both_sexes_and_ages_from_under_60_to_over_90(seeded):
    scored = [r["scoring"] for r in seeded if r["status"] == "completed"]
    assert {s["sex"] for s in scored} >= {"female", "male"}
    ages = [s["ageYears"] for s in scored if s["ageYears"] is not None]
    assert min(ages) < 60 and max(ages) > 90
    # The participants as created, completed or not.
    assert {r["participant"]["sex"] for r in seeded} >= {"female", "male"}


def test_results_cover_every_origin_and_state(seeded):
    assert {r["origin"] for r in seeded} == {"app", "clinician", "partner"}
    assert {r["status"] for r in seeded} == {"created", "in-progress", "completed"}
    for result in seeded:
        recorded = sum(step is not None for step in result["steps"].values())
        expected = {"created": (0,), "in-progress": (1, 2, 3, 4), "completed": (5,)}[result["status"]]
        assert recorded in expected, result
        assert (result["scoring"] is None) is (result["status"] != "completed")


def test_results_are_spread_over_past_days_newest_first(seeded):
    created = [r["createdAt"] for r in seeded]
    assert created == sorted(created, reverse=True)
    assert len({c.date() for c in created}) > 10


def test_seeding_again_adds_nothing(tenant, seeded):
    members = member_ids(tenant.client_id)
    demo.seed(tenant.client)
    demo.seed(tenant.client)
    assert results(tenant.client_id) == seeded
    assert member_ids(tenant.client_id) == members
