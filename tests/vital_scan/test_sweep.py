"""The scheduled sweep (main.vitalscansweep calls service.sweep_expired; the emulator runs no schedules)."""

import datetime as dt

import pytest

from tests.conftest import bearer
from tests.vital_scan.test_hosted import HOSTED, complete, new_session
from wellness_api.core import clock
from wellness_api.vital_scan import repository as repo
from wellness_api.vital_scan import service

# serial: a sweep with the clock hours ahead expires every client's unfinished sessions, so beside the browser tests it
# ended the session a page had just been sent to (a 410 on its first read, in a CI run at 516452b).
pytestmark = pytest.mark.serial


def status(partner, sid):
    return repo.session_ref(partner.client_id, sid).get().to_dict()


def test_sweep_expires_unfinished_sessions_after_two_hours(http, partner, other_partner):
    created, _ = new_session(http, partner)
    started, started_token = new_session(http, partner)
    done, done_token = new_session(http, partner)
    failed, failed_token = new_session(http, partner)
    deleted, _ = new_session(http, partner)
    foreign, _ = new_session(http, other_partner)
    http.post(f"{HOSTED}/start", headers=bearer(started_token))
    for token in (done_token, failed_token):
        http.post(f"{HOSTED}/start", headers=bearer(token))
    complete(http, bearer(done_token))
    http.post(f"{HOSTED}/fail", json={"message": "no face"}, headers=bearer(failed_token))
    http.delete(f"/api/v1/vital-scan/sessions/{deleted}", headers=partner.headers)

    clock.advance(dt.timedelta(hours=1, minutes=59))
    service.sweep_expired()
    assert status(partner, created)["status"] == "created"

    clock.advance(dt.timedelta(minutes=1))
    assert service.sweep_expired() >= 3
    for sid in (created, started):
        doc = status(partner, sid)
        assert doc["status"] == "expired" and doc["updatedAt"] == doc["expiresAt"]
    assert status(other_partner, foreign)["status"] == "expired"
    assert status(partner, done)["status"] == "completed"
    assert status(partner, failed)["status"] == "failed"
    assert status(partner, deleted)["deleted"] is True
    # Nothing left to sweep for these workspaces.
    leftovers = [s for s in repo.unfinished_past(clock.now(), 500) if s.get("clientId") in (partner.client_id,
                                                                                            other_partner.client_id)]
    assert leftovers == []


def test_sweep_pages_through_many_sessions(http, tenant):
    from tests.vital_scan.conftest import make_partner

    partner = make_partner(tenant, points=30)
    sids = [new_session(http, partner)[0] for _ in range(7)]
    clock.advance(dt.timedelta(hours=3))
    service.sweep_expired(page_size=2)
    assert {status(partner, sid)["status"] for sid in sids} == {"expired"}


def test_sweep_does_not_overwrite_a_concurrent_change(http, partner):
    sid, token = new_session(http, partner)
    http.post(f"{HOSTED}/start", headers=bearer(token))
    clock.advance(dt.timedelta(hours=2, seconds=1))
    snaps = [s for s in repo.unfinished_past(clock.now(), 500) if s.id == sid]
    assert len(snaps) == 1
    # The session changes after the sweep read it: the precondition refuses the stale update.
    repo.session_ref(partner.client_id, sid).update({"status": "completed", "metrics": None})
    assert repo.expire_if_unchanged(snaps[0]) is False
    assert status(partner, sid)["status"] == "completed"
