"""What a fall-risk result writes for analytics: the cohort counters (cohortStarted, cohortCompleted and their
_<origin> twins) on the day the result was CREATED, exactly once however the steps are resent or raced; the member's
latest outcome on the member document (`fallRisk`); and members' birthOrdinal (core.users.create_user).
"""

import datetime as dt
import uuid

import pytest

from tests.conftest import bearer
from tests.fall_risk.conftest import HEALTHY, complete, create, record
from tests.fall_risk.test_steps import ORDER, parallel, partner, settle, step_call, with_steps
from wellness_api.core import activity, clock, tenancy, users
from wellness_api.core.rollups import day_of

AGE_70_TO_79 = {"age70to79_results": 1, "age70to79_chairStands": 15, "age70to79_tandemSeconds": 10,
                "age70to79_singleLegSeconds": 10, "age70to79_walkSteps": 10}


def cohort(origin: str, started: int = 1, completed: int = 1) -> dict:
    counts = {"cohortStarted": started, f"cohortStarted_{origin}": started}
    if completed:
        counts.update({"cohortCompleted": completed, f"cohortCompleted_{origin}": completed})
    return counts


def days(client_id: str, first: str, last: str) -> dict:
    return activity.FALL_RISK.daily(client_id, first, last)


def today_counts(client_id: str) -> dict:
    return days(client_id, day_of(), day_of()).get(day_of(), {})


def member_doc(client_id: str, uid: str) -> dict | None:
    snap = tenancy.user_ref(client_id, uid).get()
    return snap.to_dict() if snap.exists else None


# ------------------------------------------------------------------------------------ cohort counters


def created_days_ago(days: int, http, recorder, **body) -> tuple[str, str]:
    """(fallRiskResultId, its creation day) of a result created `days` days ago."""
    with clock.shifted(dt.timedelta(days=-days)):
        return create(http, recorder, **body)["fallRiskResultId"], day_of()


def test_cohort_counters_land_on_the_creation_day_when_the_steps_come_days_later(http, assessed):
    senior = assessed.senior
    result_id, created_day = created_days_ago(3, http, senior)
    with clock.shifted(dt.timedelta(days=-2)):
        assert record(http, senior, result_id, "quiz", HEALTHY["quiz"]).status_code == 200
        first_step_day = day_of()
    assert days(assessed.client_id, created_day, day_of()) == {
        created_day: {"created": 1, "created_app": 1, **cohort("app", completed=0)},
    }
    assert days(assessed.client_id, first_step_day, first_step_day) == {}  # nothing on the day of the step

    complete(http, senior, result_id)
    today = day_of()
    assert days(assessed.client_id, created_day, today) == {
        created_day: {"created": 1, "created_app": 1, **cohort("app")},
        today: {"completed": 1, "completed_app": 1, "riskLevel1": 1, "urgent": 0, **AGE_70_TO_79},
    }
    lifetime = activity.FALL_RISK.counters.all_time(assessed.client_id)
    assert lifetime.counts[activity.FALL_RISK.group] == {"created": 1, "created_app": 1, **cohort("app"),
                                                         "completed": 1, "completed_app": 1, "riskLevel1": 1,
                                                         "urgent": 0, **AGE_70_TO_79}
    assert lifetime.active_users(activity.FALL_RISK.group) == 1


def test_a_result_only_started_counts_started_not_completed(http, assessed):
    senior = assessed.senior
    result_id, created_day = created_days_ago(1, http, senior)
    for step in ORDER[:4]:
        assert record(http, senior, result_id, step, HEALTHY[step]).status_code == 200
    assert days(assessed.client_id, created_day, day_of()) == {
        created_day: {"created": 1, "created_app": 1, **cohort("app", completed=0)}}


@pytest.mark.parametrize("origin", ["clinician", "partner"])
def test_cohort_counters_carry_the_origin(http, assessed, origin):
    recorder = assessed.admin if origin == "clinician" else partner(assessed)
    result_id, created_day = created_days_ago(5, http, recorder, userId=assessed.senior.uid)
    complete(http, recorder, result_id)
    assert days(assessed.client_id, created_day, created_day)[created_day] == {
        "created": 1, f"created_{origin}": 1, **cohort(origin)}
    assert today_counts(assessed.client_id)[f"completed_{origin}"] == 1


def test_results_created_on_different_days_count_in_their_own_cohorts(http, assessed):
    senior = assessed.senior
    old, old_day = created_days_ago(7, http, senior)
    recent, recent_day = created_days_ago(2, http, senior)
    complete(http, senior, recent)
    record(http, senior, old, "quiz", HEALTHY["quiz"])
    counts = days(assessed.client_id, old_day, day_of())
    assert {key: value for key, value in counts[old_day].items() if key.startswith("cohort")} == cohort(
        "app", completed=0)
    assert {key: value for key, value in counts[recent_day].items() if key.startswith("cohort")} == cohort("app")


def test_the_first_step_sent_twice_counts_started_once(http, assessed):
    senior = assessed.senior
    result_id = create(http, senior)["fallRiskResultId"]
    for _ in range(2):
        assert record(http, senior, result_id, "quiz", HEALTHY["quiz"]).status_code == 200
    assert record(http, senior, result_id, "sitToStand", HEALTHY["sitToStand"]).status_code == 200
    assert today_counts(assessed.client_id) == {"created": 1, "created_app": 1, **cohort("app", completed=0)}


def test_the_first_step_sent_at_once_counts_started_once(http, assessed):
    senior = assessed.senior
    result_id = with_steps(http, senior, ())
    calls = [step_call(senior, result_id, "quiz", HEALTHY["quiz"])] * 3 + [
        step_call(senior, result_id, "sitToStand", HEALTHY["sitToStand"])] * 3
    statuses = settle(http, parallel(calls), calls)
    print(f"\nthe first steps 6 times at once: {dict(statuses)}")
    assert today_counts(assessed.client_id) == {"created": 1, "created_app": 1, **cohort("app", completed=0)}


def test_the_completing_step_sent_twice_counts_completed_once(http, assessed):
    senior = assessed.senior
    result_id = with_steps(http, senior, ORDER[:4])
    for _ in range(2):
        assert record(http, senior, result_id, "tandemWalk", HEALTHY["tandemWalk"]).status_code == 200
    counts = today_counts(assessed.client_id)
    assert {key: counts[key] for key in counts if key.startswith("cohort")} == cohort("app")
    assert counts["completed"] == 1


def test_the_completing_step_sent_at_once_counts_completed_once(http, assessed):
    senior = assessed.senior
    result_id = with_steps(http, senior, ORDER[:4])
    calls = [step_call(senior, result_id, "tandemWalk", HEALTHY["tandemWalk"])] * 6
    statuses = settle(http, parallel(calls), calls)
    print(f"\nthe completing step 6 times at once: {dict(statuses)}")
    counts = today_counts(assessed.client_id)
    assert counts == {"created": 1, "created_app": 1, **cohort("app"), "completed": 1, "completed_app": 1,
                      "riskLevel1": 1, "urgent": 0, **AGE_70_TO_79}


# ------------------------------------------------------------------------------------ the member's latest outcome


def test_the_member_document_holds_the_latest_completed_result(http, assessed):
    senior = assessed.senior
    before = member_doc(assessed.client_id, senior.uid)
    assert "fallRisk" not in before
    first = complete(http, senior)
    stored = member_doc(assessed.client_id, senior.uid)
    assert stored["fallRisk"]["completedAt"] is not None
    assert {**stored["fallRisk"], "completedAt": clock.iso(stored["fallRisk"]["completedAt"])} == {
        "fallRiskResultId": first["fallRiskResultId"], "riskLevel": 1, "urgentAttention": False,
        "completedAt": first["completedAt"]}
    assert {key: value for key, value in stored.items() if key != "fallRisk"} == before  # the rest is untouched

    # A result in progress changes nothing; a later completion replaces the outcome.
    in_progress = create(http, senior)["fallRiskResultId"]
    record(http, senior, in_progress, "quiz", HEALTHY["quiz"])
    assert member_doc(assessed.client_id, senior.uid)["fallRisk"]["fallRiskResultId"] == first["fallRiskResultId"]
    clock.advance(dt.timedelta(days=1))
    later = complete(http, senior, sitToStand={"standCount": 9})  # below average for her age: level 2
    outcome = member_doc(assessed.client_id, senior.uid)["fallRisk"]
    assert (outcome["fallRiskResultId"], outcome["riskLevel"], outcome["urgentAttention"]) == (
        later["fallRiskResultId"], 2, False)
    assert clock.iso(outcome["completedAt"]) == later["completedAt"]


def test_an_urgent_outcome_is_recorded_as_such(http, assessed):
    from tests.fall_risk.conftest import quiz

    result = complete(http, assessed.senior, quiz=quiz(("fallenPastYear",), fallsPastYear=2, injuredInFall=True))
    assert result["urgentAttention"] is True
    outcome = member_doc(assessed.client_id, assessed.senior.uid)["fallRisk"]
    assert (outcome["riskLevel"], outcome["urgentAttention"]) == (result["riskLevel"], True)


def test_a_completion_resent_after_it_leaves_the_outcome_as_it_was(http, assessed):
    senior = assessed.senior
    result = complete(http, senior)
    outcome = member_doc(assessed.client_id, senior.uid)["fallRisk"]
    clock.advance(dt.timedelta(minutes=5))
    assert record(http, senior, result["fallRiskResultId"], "tandemWalk", HEALTHY["tandemWalk"]).status_code == 200
    assert member_doc(assessed.client_id, senior.uid)["fallRisk"] == outcome


def test_a_clinicians_completion_is_the_members_outcome_not_the_admins(http, assessed):
    result_id = create(http, assessed.admin, userId=assessed.senior.uid)["fallRiskResultId"]
    result = complete(http, assessed.admin, result_id)
    assert member_doc(assessed.client_id, assessed.senior.uid)["fallRisk"]["fallRiskResultId"] == result_id
    assert result["userId"] == assessed.senior.uid
    assert "fallRisk" not in member_doc(assessed.client_id, assessed.admin.uid)


@pytest.fixture
def guest(http, make_tenant):
    """A client with guest sign-in on, and a guest's ID token (a guest has no member record)."""
    from tests.identity.conftest import redeem
    from wellness_api.identity.routes import app as identity_app

    host = f"trial-{uuid.uuid4().hex[:8]}.example.test"
    tenant = make_tenant(hostnames=[host])
    tenant.configure("auth.guestSignIn=true")
    issued = identity_app.test_client().post("/api/auth/guest-custom-token", headers={"X-Forwarded-Host": host})
    assert issued.status_code == 200, issued.json
    headers = bearer(redeem(issued.json["customToken"]))

    class Guest:
        client_id = tenant.client_id

    Guest.headers = headers
    return Guest


def test_a_guests_completion_creates_no_member_record(http, guest):
    result = complete(http, guest, quiz={**HEALTHY["quiz"], "birthDate": "1950-05-01", "sex": "male"})
    assert result["status"] == "completed"
    assert member_doc(guest.client_id, result["userId"]) is None


# ------------------------------------------------------------------------------------ birthOrdinal


def test_create_user_stores_the_birth_ordinal(tenant):
    born = tenant.add_member("player", birth_date="1951-07-30", sex="female")
    stored = member_doc(tenant.client_id, born.uid)
    assert stored["birthDate"] == "1951-07-30"
    assert stored["birthOrdinal"] == dt.date(1951, 7, 30).toordinal()
    assert dt.date.fromordinal(stored["birthOrdinal"]) == dt.date(1951, 7, 30)
    for uid in (tenant.player.uid, tenant.admin.uid):  # made without a date of birth
        stored = member_doc(tenant.client_id, uid)
        assert "birthOrdinal" in stored and stored["birthOrdinal"] is None and stored["birthDate"] is None


def test_a_refused_birth_date_creates_no_member(tenant):
    with pytest.raises(users.UserError):
        users.create_user(tenant.client, f"late-{uuid.uuid4().hex[:8]}@x.test", "pw-123456789", "player",
                          birth_date=(clock.now().date() + dt.timedelta(days=1)).isoformat())
    assert len(users.member_uids(tenant.client_id, "player")) == 1
