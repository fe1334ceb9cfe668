"""GET /api/client/[clientId]/analytics/assessment-counts (4.10): the assessments created in the range (lifetime without
one) by where they stand now (completed, in progress, not started), by origin (app, clinician, partner) and by
client; cognitive and MSK assessments, which the platform does not run, are zeros. The results are made through
POST /api/fall-risk and the step PUTs, as a member (app), an admin (clinician) and a client token (partner)."""

import types

import pytest

from tests.analytics.conftest import (
    ASSESSMENT_KEYS,
    ASSESSMENTS,
    KINDS,
    ORIGINS,
    STATE_KEYS,
    assert_metadata,
    back,
    client_token,
    days_ago,
    new_tenant,
    quiz,
    read,
    states,
    today,
    zero_states,
)


def counts(http, caller, client_id: str, start=None, end=None) -> dict:
    body = read(http, caller, client_id, ASSESSMENTS, start, end)
    assert set(body) == ASSESSMENT_KEYS and body["success"] is True
    assert set(body["totals"]) == STATE_KEYS
    assert set(body["assessments"]) == set(KINDS)
    for kind in KINDS:
        assert set(body["assessments"][kind]) == STATE_KEYS | {"byOrigin"}, kind
        assert set(body["assessments"][kind]["byOrigin"]) == set(ORIGINS), kind
        for origin in ORIGINS:
            assert set(body["assessments"][kind]["byOrigin"][origin]) == STATE_KEYS, (kind, origin)
    for row in body["byClient"]:
        assert set(row) == {"clientId", "name", *KINDS}
        for kind in KINDS:
            assert set(row[kind]) == STATE_KEYS
    assert [row["clientId"] for row in body["byClient"]] == sorted(row["clientId"] for row in body["byClient"])
    return body


def fall_risk_of(body: dict) -> dict:
    """The fall-risk figures (states and byOrigin), after checking that cognitive and MSK are zeros and that the
    totals are the sum of the kinds."""
    for kind in ("cognitive", "msk"):
        assert body["assessments"][kind] == {**zero_states(), "byOrigin": dict.fromkeys(ORIGINS, zero_states())}
    fall_risk = body["assessments"]["fallRisk"]
    assert body["totals"] == {state: fall_risk[state] for state in STATE_KEYS}
    return fall_risk


def kind(total: int = 0, completed: int = 0, in_progress: int = 0, **origins) -> dict:
    return {**states(total, completed, in_progress),
            "byOrigin": {origin: origins.get(origin, zero_states()) for origin in ORIGINS}}


@pytest.fixture(scope="module")
def assessed(emulators, fall_risk):
    """Nine results of two players, created 20 and 5 days ago and today, from the three origins:

        R1 20 days ago, app, completed then      R4 5 days ago, partner, in progress      R7 today, app, completed
        R2 20 days ago, clinician, not started   R5 5 days ago, app, not started          R8 today, partner, completed
        R3 20 days ago, app, completed today     R6 5 days ago, clinician, completed      R9 today, clinician, in progress
    """
    tenant = new_tenant()
    p1, p2, admin = tenant.player, tenant.add_member("player"), tenant.admin
    partner = client_token(tenant)
    for member in (p1, p2, admin):
        assert member.token
    with back(20):
        fall_risk.complete(p1, level=1)                                         # R1
        fall_risk.create(admin, userId=p2.uid)                                  # R2
        r3 = fall_risk.create(p2)                                               # R3
    with back(5):
        r4 = fall_risk.create(partner, userId=p2.uid)                           # R4
        fall_risk.step(partner, r4, "quiz", quiz())
        fall_risk.create(p1)                                                    # R5
        fall_risk.complete(admin, for_user=p1.uid, level=2)                     # R6
    fall_risk.complete(p2, result_id=r3, level=1)                               # R3, completed today
    fall_risk.complete(p2, level=4)                                             # R7
    fall_risk.complete(partner, for_user=p1.uid, level=3)                       # R8
    r9 = fall_risk.create(admin, userId=p2.uid)                                 # R9
    fall_risk.step(admin, r9, "sitToStand", {"standCount": 11})

    other = new_tenant()
    fall_risk.complete(other.player, level=2)
    fall_risk.create(client_token(other), userId=other.player.uid)
    return types.SimpleNamespace(tenant=tenant, other=other)


def test_lifetime_counts_by_state_and_origin(http, assessed):
    body = counts(http, assessed.tenant.admin, assessed.tenant.client_id)
    assert fall_risk_of(body) == kind(9, 5, 2, app=states(4, 3, 0), clinician=states(3, 1, 1), partner=states(2, 1, 1))
    assert body["totals"] == states(9, 5, 2) == {"total": 9, "completed": 5, "inProgress": 2, "notStarted": 2}
    assert_metadata(body, assessed.tenant.client_id, False, 2)


def test_by_client_is_the_clients_own_row_only(http, assessed):
    body = counts(http, assessed.tenant.admin, assessed.tenant.client_id)
    assert body["byClient"] == [{"clientId": assessed.tenant.client_id, "name": f"Test {assessed.tenant.client_id}",
                                 "fallRisk": states(9, 5, 2), "cognitive": zero_states(), "msk": zero_states()}]


def test_a_range_counts_the_results_created_in_it_by_where_they_stand_now(http, assessed):
    tenant = assessed.tenant
    # 20 days ago: R1, R2 and R3, which was completed today.
    body = counts(http, tenant.admin, tenant.client_id, days_ago(20), days_ago(20))
    assert fall_risk_of(body) == kind(3, 2, 0, app=states(2, 2, 0), clinician=states(1, 0, 0))
    assert_metadata(body, tenant.client_id, False, 2, days_ago(20).isoformat(), days_ago(20).isoformat())
    # The last week: R4 to R9; R3 completed today but was created before the range.
    body = counts(http, tenant.admin, tenant.client_id, days_ago(7), today())
    assert fall_risk_of(body) == kind(6, 3, 2, app=states(2, 1, 0), clinician=states(2, 1, 1), partner=states(2, 1, 1))
    assert body["byClient"][0]["fallRisk"] == states(6, 3, 2)
    # 5 days ago alone.
    body = counts(http, tenant.admin, tenant.client_id, days_ago(5), days_ago(5))
    assert fall_risk_of(body) == kind(3, 1, 1, app=states(1, 0, 0), clinician=states(1, 1, 0), partner=states(1, 0, 1))
    # Today alone.
    body = counts(http, tenant.admin, tenant.client_id, today(), today())
    assert fall_risk_of(body) == kind(3, 2, 1, app=states(1, 1, 0), clinician=states(1, 0, 1), partner=states(1, 1, 0))


def test_a_range_without_results_is_zeros_with_the_clients_row(http, assessed):
    tenant = assessed.tenant
    body = counts(http, tenant.admin, tenant.client_id, days_ago(19), days_ago(6))
    assert fall_risk_of(body) == kind()
    assert body["byClient"] == [{"clientId": tenant.client_id, "name": f"Test {tenant.client_id}",
                                 "fallRisk": zero_states(), "cognitive": zero_states(), "msk": zero_states()}]


def test_a_range_over_every_day_equals_lifetime(http, assessed):
    tenant = assessed.tenant
    lifetime = counts(http, tenant.admin, tenant.client_id)
    ranged = counts(http, tenant.admin, tenant.client_id, days_ago(30), today())
    for body in (lifetime, ranged):
        body.pop("metadata")
    assert lifetime == ranged


def test_another_client_sees_only_its_own(http, assessed):
    other = assessed.other
    body = counts(http, other.admin, other.client_id)
    assert fall_risk_of(body) == kind(2, 1, 0, app=states(1, 1, 0), partner=states(1, 0, 0))
    assert [row["clientId"] for row in body["byClient"]] == [other.client_id]
    assert_metadata(body, other.client_id, False, 1)


def test_a_platform_administrator_sees_the_clients_figures(http, assessed, platform_admin):
    tenant = assessed.tenant
    mine = counts(http, tenant.admin, tenant.client_id, days_ago(7), today())
    theirs = counts(http, platform_admin, tenant.client_id, days_ago(7), today())
    assert theirs["metadata"]["isGofaAdmin"] is True
    assert {k: v for k, v in theirs.items() if k != "metadata"} == {k: v for k, v in mine.items() if k != "metadata"}


@pytest.mark.parametrize("ranged", [False, True])
def test_the_operator_tenants_view_has_every_clients_row(http, assessed, platform_admin, operator_tenant, ranged):
    window = (days_ago(20), today()) if ranged else ()
    broad = counts(http, platform_admin, operator_tenant.client_id, *window)
    rows = {row["clientId"]: row for row in broad["byClient"]}
    for client in (assessed.tenant, assessed.other):
        own = counts(http, client.admin, client.client_id, *window)
        # Per client, the broad view's row is exactly the client's own figures.
        assert rows[client.client_id] == own["byClient"][0]
    assert len(rows) >= 2
    # The totals are the sum of the rows (every client's, the shared emulator's other tests' included).
    fall_risk = fall_risk_of(broad)
    for state in STATE_KEYS:
        assert fall_risk[state] == sum(row["fallRisk"][state] for row in rows.values()), state
        assert fall_risk[state] >= rows[assessed.tenant.client_id]["fallRisk"][state] + rows[
            assessed.other.client_id]["fallRisk"][state]
    for origin in ORIGINS:
        assert sum(fall_risk["byOrigin"][origin].values()) >= 0
    assert broad["metadata"]["queryClientId"] == operator_tenant.client_id


def test_an_idle_client_has_zeros_and_its_row(http, dashboard):
    body = counts(http, dashboard.admin, dashboard.client_id)
    assert fall_risk_of(body) == kind()
    assert body["byClient"] == [{"clientId": dashboard.client_id, "name": f"Test {dashboard.client_id}",
                                 "fallRisk": zero_states(), "cognitive": zero_states(), "msk": zero_states()}]
    assert_metadata(body, dashboard.client_id, False, 1)


def test_the_counts_follow_a_result_through_its_states(http, dashboard, fall_risk):
    admin = dashboard.admin
    result_id = fall_risk.create(admin, userId=dashboard.player.uid)
    assert fall_risk_of(counts(http, admin, dashboard.client_id)) == kind(1, clinician=states(1))
    fall_risk.step(admin, result_id, "quiz", quiz())
    assert fall_risk_of(counts(http, admin, dashboard.client_id)) == kind(1, 0, 1, clinician=states(1, 0, 1))
    fall_risk.complete(admin, result_id=result_id, level=1)
    assert fall_risk_of(counts(http, admin, dashboard.client_id)) == kind(1, 1, 0, clinician=states(1, 1, 0))
    # Resending a step of the completed result counts nothing again.
    fall_risk.step(admin, result_id, "quiz", quiz())
    assert fall_risk_of(counts(http, admin, dashboard.client_id)) == kind(1, 1, 0, clinician=states(1, 1, 0))
