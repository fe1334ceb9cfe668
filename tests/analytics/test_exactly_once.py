"""The rollups analytics reads move exactly once per event, however the apps retry: the same fall-risk step sent
twice or at once, the same lesson play reported twice or at once, a Vital Scan measurement retried, an AI Move
completion sent again. Each thread has its own Flask test client, as separate requests to separate instances would;
a 503 (the documented "retry shortly" under contention) is resent until it gets another answer."""

import collections
import concurrent.futures

import pytest

from tests.analytics.conftest import (
    ASSESSMENTS,
    ENGAGEMENT,
    FUNCTIONAL,
    LEVEL_STEPS,
    ai_move_ready,
    ai_move_session,
    born,
    live_lesson,
    measure,
    measure_until_done,
    new_tenant,
    play,
    quiz,
    read,
    scan,
    today,
    vital_scan_ready,
)
from wellness_api.ai_move.routes import app as ai_move_app
from wellness_api.fall_risk.routes import app as fall_risk_app
from wellness_api.lessons.routes import app as lessons_app
from wellness_api.vital_scan.routes import app as vital_scan_app

BURST = 6
RESENDS = 20


def parallel(calls: list, app) -> list:
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(app.test_client()), calls))


def settled(responses: list, calls: list, app, ok: set[int]) -> collections.Counter:
    """The answers' statuses once every 503 is resent until it gets another answer; all must be in `ok`."""
    final = []
    for response, call in zip(responses, calls, strict=True):
        for _ in range(RESENDS):
            if response.status_code != 503:
                break
            response = call(app.test_client())
        final.append(response.status_code)
    statuses = collections.Counter(final)
    assert set(statuses) <= ok, statuses
    return statuses


def change(before, after):
    """What moved between two answers (numbers subtracted, recursively; unchanged numbers left out)."""
    if isinstance(before, dict):
        moved = {key: change(before[key], after[key]) for key in after if key not in ("metadata", "dailyBreakdown")}
        return {key: value for key, value in moved.items() if value not in ({}, 0)}
    if isinstance(before, list):
        moved = [change(b, a) for b, a in zip(before, after, strict=True)]
        return {index: value for index, value in enumerate(moved) if value not in ({}, 0)}
    if isinstance(before, (int, float)) and not isinstance(before, bool):
        return after - before
    return 0


class Figures:
    """Today's figures of the shared client, read before and after what a test does."""

    def __init__(self, http, tenant):
        self.http, self.tenant = http, tenant

    def read(self) -> dict:
        tenant, day = self.tenant, today()
        return {"assessments": read(self.http, tenant.admin, tenant.client_id, ASSESSMENTS, day, day)["assessments"],
                "functional": read(self.http, tenant.admin, tenant.client_id, FUNCTIONAL, day, day),
                "engagement": read(self.http, tenant.admin, tenant.client_id, ENGAGEMENT, day, day),
                "overview": read(self.http, tenant.admin, tenant.client_id, "overview")}

    def __enter__(self):
        self.before = self.read()
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.moved = change(self.before, self.read())


@pytest.fixture(scope="module")
def shared(emulators):
    """One client with every module the rollups count on, shared by the module: each test reads what it moved."""
    tenant = new_tenant()
    ai_move_ready(tenant)
    vital_scan_ready(tenant)
    tenant.lesson = live_lesson(tenant)
    assert tenant.admin.token
    return tenant


@pytest.fixture
def figures(http, shared) -> Figures:
    return Figures(http, shared)


@pytest.fixture
def member(shared):
    """A new player of the shared client (so that active users move by one), signed in."""
    player = shared.add_member("player", birth_date=born(72, 40), sex="female")
    assert player.token
    return player


# ------------------------------------------------------------------------------------ fall risk

LEVEL_1_SUMS = {"chairStands": 15.0, "tandemStanceSeconds": 10.0, "singleLegStanceSeconds": 10.0, "tandemWalkSteps": 10.0}


def seventies(functional: dict) -> dict:
    return next(group for group in functional["ageGroups"] if group["ageGroup"] == "70-79")


def test_a_step_sent_twice_starts_the_result_once(figures, member, fall_risk):
    with figures:
        result_id = fall_risk.create(member)
        for _ in range(2):
            fall_risk.step(member, result_id, "quiz", quiz())
    started = {"total": 1, "inProgress": 1}
    assert figures.moved["assessments"] == {"fallRisk": {**started, "byOrigin": {"app": started}}}


def test_the_first_step_sent_at_once_starts_the_result_once(figures, member, fall_risk):
    result_id = fall_risk.create(member)
    with figures:
        calls = [lambda client: fall_risk.record(member, result_id, "quiz", quiz(), http=client)] * BURST
        settled(parallel(calls, fall_risk_app), calls, fall_risk_app, {200})
    moved = {"inProgress": 1, "notStarted": -1}
    assert figures.moved["assessments"] == {"fallRisk": {**moved, "byOrigin": {"app": moved}}}


def test_the_final_step_sent_twice_and_at_once_completes_once(figures, member, fall_risk):
    result_ids = []
    for _ in range(2):
        result_id = fall_risk.create(member)
        for step in ("quiz", "sitToStand", "tandemStance", "singleLegStance"):
            fall_risk.step(member, result_id, step, LEVEL_STEPS[1][step])
        result_ids.append(result_id)
    with figures:
        # The first result: its last step sent twice, one after the other.
        for _ in range(2):
            fall_risk.step(member, result_ids[0], "tandemWalk", LEVEL_STEPS[1]["tandemWalk"])
        # The second: its last step sent 6 times at once.
        calls = [lambda client: fall_risk.record(member, result_ids[1], "tandemWalk", LEVEL_STEPS[1]["tandemWalk"],
                                                 http=client)] * BURST
        settled(parallel(calls, fall_risk_app), calls, fall_risk_app, {200})
    moved = {"completed": 2, "inProgress": -2}
    assert figures.moved["assessments"] == {"fallRisk": {**moved, "byOrigin": {"app": moved}}}
    group = seventies(figures.before["functional"])
    after = seventies(figures.read()["functional"])
    assert after["results"] == group["results"] + 2
    assert figures.moved["functional"]["overall"]["results"] == 2 and "ungroupedResults" not in figures.moved["functional"]
    # The member's latest result: level 1, once.
    assert figures.moved["overview"]["riskDistribution"] == {"level1": 1}


def test_the_last_two_steps_sent_at_once_complete_once(shared, figures, member, fall_risk):
    admin = shared.admin
    result_id = fall_risk.create(admin, userId=member.uid)
    for step in ("quiz", "sitToStand", "tandemStance"):
        fall_risk.step(admin, result_id, step, LEVEL_STEPS[1][step])
    with figures:
        calls = [lambda client, step=step: fall_risk.record(admin, result_id, step, LEVEL_STEPS[1][step], http=client)
                 for step in ("singleLegStance", "tandemWalk") for _ in range(3)]
        settled(parallel(calls, fall_risk_app), calls, fall_risk_app, {200})
    moved = {"completed": 1, "inProgress": -1}
    assert figures.moved["assessments"] == {"fallRisk": {**moved, "byOrigin": {"clinician": moved}}}
    assert figures.moved["functional"]["overall"]["results"] == 1
    assert figures.moved["overview"]["riskDistribution"] == {"level1": 1}


# ------------------------------------------------------------------------------------ lessons


def test_a_play_reported_twice_counts_once(shared, figures, member):
    lesson = shared.lesson
    with figures:
        assert [play(member, lesson, "started", "play-0001").status_code for _ in range(2)] == [201, 200]
        assert [play(member, lesson, "completed", "play-0001").status_code for _ in range(2)] == [200, 200]
        # Reported started again after its completion: it stays completed, nothing counts.
        assert play(member, lesson, "started", "play-0001").json["play"]["status"] == "completed"
    assert figures.moved["engagement"] == {"lessons": {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1}}


def test_the_same_playid_of_two_users_is_two_plays(shared, figures, member):
    second = shared.add_member("player")
    assert second.token
    with figures:
        for who in (member, second):
            assert play(who, shared.lesson, "completed", "shared-play-id").status_code == 201
    assert figures.moved["engagement"] == {"lessons": {"activeUsers": 2, "totalPlays": 2, "completedPlays": 2}}


def test_a_play_reported_at_once_counts_once(shared, figures, member):
    with figures:
        # Both reports of one play, at the same moment.
        calls = [lambda client, status=status: play(member, shared.lesson, status, "burst-play-1", http=client)
                 for status in ("started", "completed")]
        statuses = settled(parallel(calls, lessons_app), calls, lessons_app, {200, 201})
        assert statuses[201] == 1, statuses
    assert figures.moved["engagement"] == {"lessons": {"activeUsers": 1, "totalPlays": 1, "completedPlays": 1}}


# ------------------------------------------------------------------------------------ Vital Scan


def test_a_measurement_retried_completes_the_scan_once(shared, figures):
    with figures:
        _, token = scan(shared, "retrying-user")
        retried = measure(token)
        assert retried.status_code == 410, retried.json  # the session has ended: nothing more is counted
    assert figures.moved["engagement"] == {"vitalScan": {"activeUsers": 1, "totalScans": 1, "completedScans": 1}}


def test_a_measurement_sent_at_once_completes_the_scan_once(shared, figures):
    with figures:
        _, token = scan(shared, "hasty-user", finish=False)
        calls = [lambda client: measure(token, http=client)] * 4
        statuses = settled(parallel(calls, vital_scan_app), calls, vital_scan_app, {200, 409, 410})
        # 200s are "try again" answers (the trace supports nothing) and at most one completion; whatever the burst
        # left unfinished, the page's next sends complete it.
        assert statuses[200] >= 1, statuses
        assert measure_until_done(token).status_code in (200, 410)
        assert measure(token).status_code == 410
    assert figures.moved["engagement"] == {"vitalScan": {"activeUsers": 1, "totalScans": 1, "completedScans": 1}}


# ------------------------------------------------------------------------------------ AI Move


def test_an_ai_move_completion_sent_again_counts_once(shared, figures, member):
    with figures:
        session_id = ai_move_session(shared, member, reps=9)
        again = ai_move_app.test_client().patch(f"/api/ai-move/sessions/{session_id}", headers=member.headers,
                                                json={"status": "completed", "repsCompleted": 9, "durationSeconds": 30})
        assert again.status_code == 200, again.json
        second = ai_move_session(shared, member, status=None)
        body = {"status": "completed", "repsCompleted": 4, "durationSeconds": 12}
        calls = [lambda client: client.patch(f"/api/ai-move/sessions/{second}", json=body,
                                             headers=member.headers)] * BURST
        settled(parallel(calls, ai_move_app), calls, ai_move_app, {200})
    assert figures.moved["engagement"] == {"aiMove": {"activeUsers": 1, "totalSessions": 2, "completedSessions": 2,
                                                      "totalReps": 13}}
