"""The Vital Scan activity rollup (core.activity.VITAL_SCAN): sessions created, started, completed, failed and
expired, each counted exactly once in the commit of the change it counts, and the day's scanned users.

Retries and races of the same hosted request must not count twice; each thread of a race has its own Flask test
client, as separate requests of separate instances would.
"""

import collections
import concurrent.futures
import datetime as dt

import pytest

from tests.conftest import bearer
from tests.vital_scan.conftest import make_partner
from tests.vital_scan.test_hosted import HOSTED, ScriptedEngine, complete, new_session, partner_view, trace
from tests.vital_scan.test_routes import BASE, assert_error, spent
from wellness_api.core import activity, clock
from wellness_api.core.rollups import day_of
from wellness_api.vital_scan import engine, ratelimit, service
from wellness_api.vital_scan import repository as repo
from wellness_api.vital_scan.routes import app

GROUP = activity.VITAL_SCAN.group


def lifetime(client_id: str) -> dict:
    return activity.VITAL_SCAN.counters.all_time(client_id).counts.get(GROUP, {})


def on_day(client_id: str, day: str) -> dict:
    return activity.VITAL_SCAN.daily(client_id, day, day).get(day, {})


def active_users(client_id: str, day: str) -> int:
    totals = activity.VITAL_SCAN.counters.days(client_id, day, day).get(day)
    return 0 if totals is None else totals.active_users(GROUP)


def stored(partner, sid: str) -> dict:
    return repo.session_ref(partner.client_id, sid).get().to_dict()


def parallel(n: int, call) -> list:
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda i: call(app.test_client(), i), range(n)))


# A sweep past the clock's two hours expires every client's unfinished sessions, the browser tests' too (a page's
# session ended under it in a CI run at 7756c4b): such tests run serial, never beside the others.
SWEEPS_EVERY_CLIENT = pytest.mark.serial


def past_expiry(partner, sid: str) -> None:
    clock.advance(stored(partner, sid)["expiresAt"] - clock.now() + dt.timedelta(seconds=1))


# ------------------------------------------------------------------------------------ created


def test_a_create_counts_created_with_its_point_and_the_user(http, partner):
    for user in ("member-1", "member-2", "member-1"):
        new_session(http, partner, userId=user)
    today = day_of()
    assert on_day(partner.client_id, today) == {"created": 3}
    assert lifetime(partner.client_id) == {"created": 3} and spent(partner.client_id) == 3
    assert active_users(partner.client_id, today) == 2  # member-1 twice is one user


def test_a_refused_create_counts_nothing(http, make_tenant):
    poor = make_partner(make_tenant(), points=1)
    new_session(http, poor)
    assert_error(http.post(BASE, json={"userId": "u"}, headers=poor.headers), 402, "insufficient_credits")
    assert_error(http.post(BASE, json={"userId": "u", "extra": 1}, headers=poor.headers), 400, "invalid_request")
    assert lifetime(poor.client_id) == {"created": 1} and spent(poor.client_id) == 1

    busy = make_partner(make_tenant(), rpm=1)
    window = ratelimit.window_of(clock.now())
    clock.advance(window.ends_at - clock.now() + dt.timedelta(milliseconds=1))  # a fresh window
    new_session(http, busy)
    assert_error(http.post(BASE, json={"userId": "u"}, headers=busy.headers), 429, "rate_limit_exceeded")
    assert lifetime(busy.client_id) == {"created": 1} and spent(busy.client_id) == 1


def test_parallel_creates_count_exactly_the_sessions_made(make_tenant):
    partner = make_partner(make_tenant(), points=5)
    responses = parallel(10, lambda http, i: http.post(BASE, json={"userId": f"u{i}"}, headers=partner.headers))
    made = [r for r in responses if r.status_code == 201]
    assert 1 <= len(made) <= 5 and set(collections.Counter(r.status_code for r in responses)) <= {201, 402, 503}
    # Every session made is counted, and nothing else (a refused or failed create counts nothing).
    assert lifetime(partner.client_id) == {"created": len(made)} and spent(partner.client_id) == len(made)
    assert active_users(partner.client_id, day_of()) == len(made)


# ------------------------------------------------------------------------------------ started, completed, failed


def test_started_counts_the_first_start_only(http, partner):
    sid, token = new_session(http, partner)
    scan = bearer(token)
    assert http.get(f"{HOSTED}/session", headers=scan).status_code == 200  # looking counts nothing
    assert http.post(f"{HOSTED}/start", headers=scan).status_code == 200
    clock.advance(dt.timedelta(minutes=10))  # the user leaves and comes back: a resumed start
    assert http.post(f"{HOSTED}/start", headers=scan).json["status"] == "in_progress"
    assert http.post(f"{HOSTED}/exit", headers=scan).status_code == 200
    assert lifetime(partner.client_id) == {"created": 1, "started": 1}
    assert on_day(partner.client_id, day_of(stored(partner, sid)["startedAt"]))["started"] == 1


def test_the_same_start_sent_at_once_counts_once(http, partner):
    _, token = new_session(http, partner)
    responses = parallel(6, lambda client, i: client.post(f"{HOSTED}/start", headers=bearer(token)))
    assert [r.status_code for r in responses] == [200] * 6
    assert {r.json["status"] for r in responses} == {"in_progress"}
    assert lifetime(partner.client_id) == {"created": 1, "started": 1}


def test_a_completion_sent_twice_counts_once(http, partner):
    sid, token = new_session(http, partner, userId="member-9")
    scan = bearer(token)
    http.post(f"{HOSTED}/start", headers=scan)
    assert complete(http, scan).status_code == 200
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=scan), 410, None)
    assert lifetime(partner.client_id) == {"created": 1, "started": 1, "completed": 1}
    completed_day = day_of(stored(partner, sid)["completedAt"])
    assert on_day(partner.client_id, completed_day)["completed"] == 1
    assert active_users(partner.client_id, completed_day) == 1


def test_a_failure_sent_twice_counts_once(http, partner):
    _, token = new_session(http, partner)
    scan = bearer(token)
    http.post(f"{HOSTED}/start", headers=scan)
    assert http.post(f"{HOSTED}/fail", json={"message": "no face"}, headers=scan).status_code == 200
    assert_error(http.post(f"{HOSTED}/fail", json={"message": "no face"}, headers=scan), 410, None)
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=scan), 410, None)
    assert lifetime(partner.client_id) == {"created": 1, "started": 1, "failed": 1}


def test_a_measurement_or_failure_before_the_start_counts_nothing(http, partner):
    _, token = new_session(http, partner)
    scan = bearer(token)
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=scan), 409, None)
    assert_error(http.post(f"{HOSTED}/fail", json={"message": "x"}, headers=scan), 409, None)
    assert lifetime(partner.client_id) == {"created": 1}


@pytest.mark.parametrize(("path", "body", "counter"), [
    ("measurement", trace(), "completed"),
    ("fail", {"message": "camera lost"}, "failed"),
])
def test_the_same_ending_sent_at_once_counts_once(http, partner, path, body, counter):
    _, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    with engine.installed(ScriptedEngine({"hr": 70})):
        responses = parallel(6, lambda client, i: client.post(f"{HOSTED}/{path}", json=body, headers=bearer(token)))
    statuses = collections.Counter(r.status_code for r in responses)
    print(f"\nthe same {path} 6 times at once: {dict(statuses)}")
    assert statuses[200] == 1 and set(statuses) <= {200, 410, 503}
    assert lifetime(partner.client_id) == {"created": 1, "started": 1, counter: 1}


def test_completed_and_failed_sent_at_once_count_one_ending(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))

    def end(client, i):
        if i % 2:
            return client.post(f"{HOSTED}/fail", json={"message": "gave up"}, headers=bearer(token))
        return client.post(f"{HOSTED}/measurement", json=trace(), headers=bearer(token))

    with engine.installed(ScriptedEngine({})):
        responses = parallel(6, end)
    assert [r.status_code for r in responses].count(200) == 1
    counts = lifetime(partner.client_id)
    assert counts.get("completed", 0) + counts.get("failed", 0) == 1
    assert stored(partner, sid)["status"] in ("completed", "failed")


# ------------------------------------------------------------------------------------ expired


@SWEEPS_EVERY_CLIENT
def test_the_sweep_counts_expired_once_on_the_expiry_day(http, partner):
    waiting, _ = new_session(http, partner)
    started, started_token = new_session(http, partner)
    done, done_token = new_session(http, partner)
    for token in (started_token, done_token):
        http.post(f"{HOSTED}/start", headers=bearer(token))
    complete(http, bearer(done_token))
    expiry_day = day_of(stored(partner, waiting)["expiresAt"])
    past_expiry(partner, started)
    service.sweep_expired()
    service.sweep_expired()  # a second run finds nothing left
    assert {stored(partner, sid)["status"] for sid in (waiting, started)} == {"expired"}
    assert stored(partner, done)["status"] == "completed"
    assert lifetime(partner.client_id) == {"created": 3, "started": 2, "completed": 1, "expired": 2}
    assert on_day(partner.client_id, expiry_day)["expired"] == 2


def test_a_stale_sweep_counts_nothing(http, partner):
    sid, _ = new_session(http, partner)
    past_expiry(partner, sid)
    snaps = [s for s in repo.unfinished_past(clock.now(), 500) if s.id == sid]
    assert http.get(f"{BASE}/{sid}", headers=partner.headers).json["data"]["status"] == "expired"
    assert repo.expire_if_unchanged(snaps[0]) is False  # the GET expired it after the sweep read it
    assert lifetime(partner.client_id) == {"created": 1, "expired": 1}


@SWEEPS_EVERY_CLIENT
def test_a_get_past_expiry_counts_expired_once(http, partner):
    sid, _ = new_session(http, partner)
    past_expiry(partner, sid)
    assert partner_view(http, partner, sid)["status"] == "expired"
    assert partner_view(http, partner, sid)["status"] == "expired"
    assert service.sweep_expired() >= 0
    assert lifetime(partner.client_id) == {"created": 1, "expired": 1}
    assert on_day(partner.client_id, day_of(stored(partner, sid)["expiresAt"]))["expired"] == 1


@SWEEPS_EVERY_CLIENT
def test_a_hosted_call_past_expiry_counts_expired_once(http, partner):
    sid, token = new_session(http, partner)
    scan = bearer(token)
    http.post(f"{HOSTED}/start", headers=scan)
    past_expiry(partner, sid)
    assert_error(http.get(f"{HOSTED}/session", headers=scan), 410, None)
    assert_error(http.post(f"{HOSTED}/start", headers=scan), 410, None)
    assert_error(http.post(f"{HOSTED}/measurement", json=trace(), headers=scan), 410, None)
    assert_error(http.post(f"{HOSTED}/fail", json={"message": "late"}, headers=scan), 410, None)
    service.sweep_expired()
    assert partner_view(http, partner, sid)["status"] == "expired"
    assert lifetime(partner.client_id) == {"created": 1, "started": 1, "expired": 1}


def test_hosted_calls_past_expiry_sent_at_once_count_expired_once(http, partner):
    sid, token = new_session(http, partner)
    past_expiry(partner, sid)
    calls = [("get", "session"), ("post", "start"), ("post", "exit")] * 2
    responses = parallel(len(calls), lambda client, i: getattr(client, calls[i][0])(f"{HOSTED}/{calls[i][1]}",
                                                                                   headers=bearer(token)))
    assert set(collections.Counter(r.status_code for r in responses)) <= {410, 503}
    assert stored(partner, sid)["status"] == "expired"
    assert lifetime(partner.client_id) == {"created": 1, "expired": 1}


def test_deleting_a_session_counts_nothing(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    assert http.delete(f"{BASE}/{sid}", headers=partner.headers).status_code == 204
    assert lifetime(partner.client_id) == {"created": 1, "started": 1}


# ------------------------------------------------------------------------------------ active users


def test_the_days_active_users_are_the_scanned_users(http, partner, other_partner):
    ann, ann_token = new_session(http, partner, userId="ann")
    _, bob_token = new_session(http, partner, userId="bob")
    http.post(f"{HOSTED}/start", headers=bearer(ann_token))
    http.post(f"{HOSTED}/start", headers=bearer(bob_token))
    http.post(f"{HOSTED}/measurement", json=trace(), headers=bearer(ann_token))
    new_session(http, partner, userId="ann")
    new_session(http, other_partner, userId="ann")  # another workspace's ann: not this one's
    today = day_of(stored(partner, ann)["createdAt"])
    assert active_users(partner.client_id, today) == 2
    assert activity.VITAL_SCAN.counters.all_time(partner.client_id).active_users(GROUP) == 2
    assert active_users(other_partner.client_id, today) == 1
    clock.advance(dt.timedelta(days=1))
    new_session(http, partner, userId="cy")
    tomorrow = day_of()
    assert active_users(partner.client_id, tomorrow) == 1
    week = activity.VITAL_SCAN.counters.days(partner.client_id, today, tomorrow)
    assert sum(totals.count(GROUP, "created") for totals in week.values()) == 4
    assert activity.VITAL_SCAN.counters.all_time(partner.client_id).active_users(GROUP) == 3
