"""Points, polls and rate limits under concurrency: exact counts, never negative, never a session without
its point. Each thread uses its own Flask test client, as separate requests of separate instances would."""

import collections
import concurrent.futures
import datetime as dt

import pytest

from tests.vital_scan.conftest import make_partner
from tests.vital_scan.test_routes import BASE, assert_error, spent, stored_sessions
from wellness_api.core import clock
from wellness_api.vital_scan import points, ratelimit, service
from wellness_api.vital_scan import repository as repo
from wellness_api.vital_scan.routes import app


def parallel(n: int, call):
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda i: call(app.test_client(), i), range(n)))


def shard_docs(client_id: str) -> list[dict]:
    cycle = points.cycle_of(clock.now()).cycle_id
    return [s.to_dict() for s in repo.tenancy.client_ref(client_id).collection(repo.POINTS).stream()
            if s.get("cycleId") == cycle]


def test_parallel_creates_spend_exactly_the_balance(tenant):
    partner = make_partner(tenant, points=10)
    responses = parallel(30, lambda http, i: http.post(BASE, json={"userId": f"u{i}"}, headers=partner.headers))
    statuses = collections.Counter(r.status_code for r in responses)
    created = [r.json["data"] for r in responses if r.status_code == 201]
    print(f"\n30 parallel creates against 10 points: {dict(statuses)}")
    assert set(statuses) <= {201, 402, 503}
    for response in responses:
        if response.status_code == 402:
            assert_error(response, 402, "insufficient_credits")
            assert response.json["remaining"] == 0
        elif response.status_code == 503:
            assert_error(response, 503, "vital_scan_creation_unavailable")
    sessions = stored_sessions(partner.client_id)
    # Exactly-once: every session has its point, every point its session, nothing beyond the balance.
    assert len(sessions) == len(created) == spent(partner.client_id)
    assert statuses[201] == 10, "with 10 points and 30 callers every point is spent"
    assert {s["vitalScanResultId"] for s in sessions} == {c["vitalScanResultId"] for c in created}
    by_shard = collections.Counter((s["cycleId"], s["pointShard"]) for s in sessions)
    for doc in shard_docs(partner.client_id):
        assert 0 < doc["used"] <= points.slice_of(10, doc["shard"])
        assert by_shard[(doc["cycleId"], doc["shard"])] == doc["used"]
    assert service.point_account(partner.tenant.client)["remaining"] == 0


def test_parallel_creates_with_points_to_spare_all_succeed(tenant):
    partner = make_partner(tenant, points=100)
    responses = parallel(20, lambda http, i: http.post(BASE, json={"userId": f"u{i}"}, headers=partner.headers))
    assert [r.status_code for r in responses].count(201) == 20
    assert len(stored_sessions(partner.client_id)) == 20 == spent(partner.client_id)
    assert service.point_account(partner.tenant.client)["remaining"] == 80


def test_parallel_polls_of_one_session_admit_one(tenant):
    partner = make_partner(tenant)
    sid = app.test_client().post(BASE, json={"userId": "u"}, headers=partner.headers).json["data"]["vitalScanResultId"]
    responses = parallel(6, lambda http, i: http.get(f"{BASE}/{sid}", headers=partner.headers))
    statuses = collections.Counter(r.status_code for r in responses)
    assert statuses[200] == 1 and set(statuses) <= {200, 429, 503}


def test_parallel_requests_never_exceed_requests_per_minute(tenant):
    partner = make_partner(tenant, rpm=8)
    window = ratelimit.window_of(clock.now())
    clock.advance(window.ends_at - clock.now() + dt.timedelta(milliseconds=1))
    responses = parallel(20, lambda http, i: http.get(f"{BASE}/none-{i}", headers=partner.headers))
    statuses = collections.Counter(r.status_code for r in responses)
    assert statuses[404] <= 8 and statuses[404] + statuses[429] == 20
    print(f"\n20 parallel calls against 8 per minute: {dict(statuses)}")
    assert statuses[404] >= 1  # a burst does not starve the calls that came first


def test_unknown_commit_outcome_is_settled(partner):
    """After a commit whose outcome is unknown: an existing session counts as created; a missing one is
    fenced, so the pending commit can never land and the caller gets a clean 503 with nothing charged."""
    http = app.test_client()
    sid = http.post(BASE, json={"userId": "u"}, headers=partner.headers).json["data"]["vitalScanResultId"]
    now = clock.now()
    assert service.settle_unknown_commit(partner.client_id, sid, now) is True

    pending = repo.new_session_id(partner.client_id)
    try:
        service.settle_unknown_commit(partner.client_id, pending, now)
        raise AssertionError("expected 503")
    except service.ApiError as err:
        assert (err.status, err.code) == (503, "vital_scan_creation_unavailable")
    # The late commit of that create fails as a whole: no session and no point.
    before = spent(partner.client_id)
    record = {"vitalScanResultId": pending, "clientId": partner.client_id, "userId": "u", "status": "created",
              "createdAt": now, "expiresAt": now + dt.timedelta(hours=2)}
    with pytest.raises(repo.Contended):
        repo.spend_point_and_create(record, "0" * 64, points.cycle_of(now), 20, now, set())
    assert spent(partner.client_id) == before
    assert not repo.token_ref("0" * 64).get().exists
    clock.advance(dt.timedelta(seconds=6))
    assert_error(http.get(f"{BASE}/{pending}", headers=partner.headers), 404, None)
