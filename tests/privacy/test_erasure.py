"""The erasure task: idempotent (a redelivered task does nothing more), resumable (a worker stopped midway is finished
by the next delivery with the same report as an uninterrupted run), leased, and failed after MAX_ATTEMPTS."""

import datetime as dt

import pytest
from google.cloud.firestore import FieldFilter

from tests.privacy.conftest import REQUESTS, create, deliver, read
from wellness_api.core import clock, firebase, personal_data, tenancy
from wellness_api.identity import repository as identity
from wellness_api.privacy import engine, worker
from wellness_api.privacy import repository as repo


def _active(activity, name: str, hr: float):
    person = activity.person(f"{name}-{activity.tenant.client_id}", hr)
    for step in (activity.lesson_play, activity.fall_risk, activity.ai_move, activity.chat, activity.content):
        step(person)
    return person


def test_a_stopped_erasure_is_finished_by_the_next_delivery_with_the_same_report(http, activity, held_tasks,
                                                                               monkeypatch):
    tenant = activity.tenant
    twin, stopped = _active(activity, "twin", 61.0), _active(activity, "stopped", 62.0)

    whole = create(http, tenant.admin.headers, "erase", twin.uid)
    assert deliver(tenant.client_id, whole["requestId"]) == "completed"
    expected = read(http, tenant.admin.headers, whole["requestId"])["report"]
    assert expected["ai_move"] == {"deleted": 3, "anonymised": 0}  # the session, the statistics, the active day
    assert expected["content"]["anonymised"] >= 1 and expected["identity"]["deleted"] == 2  # record, Auth user

    real_erase, real_batch = engine.erase_area, engine._erase_snaps
    calls = {"batches": 0}

    def stop_after_ai_move(area, subject, counter, skip=frozenset()):
        real_erase(area, subject, counter, skip)
        if area.area == "ai_move":
            raise RuntimeError("the worker was stopped")

    def stop_in_the_middle_of_an_area(location, snaps, *args):
        calls["batches"] += 1
        if location.name == "messages":  # the conversation's messages are gone, the conversation not yet
            raise RuntimeError("the worker was stopped")
        return real_batch(location, snaps, *args)

    request = create(http, tenant.admin.headers, "erase", stopped.uid)
    monkeypatch.setattr(engine, "erase_area", stop_after_ai_move)
    with pytest.raises(RuntimeError):
        deliver(tenant.client_id, request["requestId"])
    monkeypatch.setattr(engine, "erase_area", real_erase)
    monkeypatch.setattr(engine, "_erase_snaps", stop_in_the_middle_of_an_area)
    with pytest.raises(RuntimeError):
        deliver(tenant.client_id, request["requestId"])
    halfway = read(http, tenant.admin.headers, request["requestId"])
    assert halfway["status"] == "running" and halfway["progress"]["vital_scan"]["status"] == "done"
    assert halfway["progress"]["ai_move"]["status"] == "done" and halfway["error"] is None
    assert halfway["subject"]["uid"] == stopped.uid  # still known: the next delivery needs it

    monkeypatch.setattr(engine, "_erase_snaps", real_batch)
    assert deliver(tenant.client_id, request["requestId"]) == "completed"
    done = read(http, tenant.admin.headers, request["requestId"])
    assert done["report"] == expected and done["subject"] is None
    assert deliver(tenant.client_id, request["requestId"]) == "finished"  # redelivered: nothing more
    assert read(http, tenant.admin.headers, request["requestId"])["report"] == expected
    assert repo.read(tenant.client_id, request["requestId"]).data["attemptCount"] == 3


def test_the_erased_person_is_gone_from_auth_and_their_external_id_makes_a_new_identity(http, activity,
                                                                                        held_tasks):
    from wellness_api.ai_move.routes import app as ai_move
    from wellness_api.identity.routes import custom_token_app

    tenant = activity.tenant
    person = activity.person(f"ext-{tenant.client_id}", 70.0)
    activity.ai_move(person)
    request = create(http, tenant.admin.headers, "erase", person.uid)
    deliver(tenant.client_id, request["requestId"])
    assert identity.get_auth_user(person.uid) is None and identity.get_member(tenant.client_id, person.uid) is None
    # Their old token is refused at once by this process (the erasure disabled, then deleted the Auth user).
    assert ai_move.test_client().get("/api/ai-move/sessions", headers=person.headers).status_code == 401

    again = custom_token_app.test_client().post("/api/auth/custom-token", headers=activity.partner.headers,
                                                json={"grantType": "external_user", "externalUserId": person.external_id})
    assert again.status_code == 200, again.json
    record = identity.get_member(tenant.client_id, again.json["user"]["uid"])
    assert record["status"] == "active" and record["createdAt"] > clock.now() - dt.timedelta(minutes=1)
    assert firebase.db().collection(f"clients/{tenant.client_id}/aiMoveSessions").where(
        filter=FieldFilter("userId", "==", again.json["user"]["uid"])).get() == []
    # Nothing about the person can be asked for any more.
    assert http.post(REQUESTS, json={"type": "export", "uid": "no-one"}, headers=tenant.admin.headers).status_code == 404


def test_a_delivery_while_another_holds_the_lease_is_told_to_come_back(http, tenant, held_tasks):
    request = create(http, tenant.admin.headers, "erase", tenant.player.uid)
    repo.update(tenant.client_id, request["requestId"], {"status": "running", "leaseId": "other",
                                                         "leaseUntil": clock.now() + dt.timedelta(minutes=5)})
    with pytest.raises(worker.LeaseHeld):
        deliver(tenant.client_id, request["requestId"])
    # Once the lease has run out (its worker died), the next delivery takes over and finishes.
    repo.update(tenant.client_id, request["requestId"], {"leaseUntil": clock.now() - dt.timedelta(seconds=1)})
    assert deliver(tenant.client_id, request["requestId"]) == "completed"


def test_the_fifth_failure_marks_the_request_failed(http, tenant, held_tasks, monkeypatch):
    request = create(http, tenant.admin.headers, "export", tenant.player.uid)

    def broken(*args, **kwargs):
        raise RuntimeError(f"cannot read {tenant.player.email}")  # an error quoting a document

    monkeypatch.setattr(engine, "collect", broken)
    for _ in range(worker.MAX_ATTEMPTS):
        with pytest.raises(RuntimeError):
            deliver(tenant.client_id, request["requestId"])
    failed = read(http, tenant.admin.headers, request["requestId"])
    assert failed["status"] == "failed" and failed["error"] == f"RuntimeError after {worker.MAX_ATTEMPTS} attempts"
    assert deliver(tenant.client_id, request["requestId"]) == "finished"
    assert http.post(REQUESTS, json={"type": "export", "uid": tenant.player.uid},
                     headers=tenant.admin.headers).status_code == 202  # a new one may be asked for


@pytest.mark.parametrize("payload", [None, [], {}, {"clientId": "c"}, {"clientId": "a/b", "requestId": "r"},
                                     {"clientId": "c", "requestId": 7}])
def test_a_malformed_task_is_dropped(payload):
    assert worker.handle(payload) == "malformed"


def test_a_task_for_a_missing_request_does_nothing(tenant):
    assert deliver(tenant.client_id, "pr-gone") == "missing"


def test_the_invitation_id_is_the_identity_areas(tenant):
    keys = personal_data.Subject(tenant.client_id, "u", "Someone@Example.com").keys()
    assert keys["inviteId"] == identity.invite_id("someone@example.com")
    assert tenancy.valid_id(keys["inviteId"])


def test_erasure_pages_through_more_documents_than_a_batch(http, activity, held_tasks, monkeypatch):
    monkeypatch.setattr(engine, "BATCH", 2)
    tenant = activity.tenant
    person = activity.person(f"many-{tenant.client_id}", 66.0)
    for _ in range(5):
        activity.lesson_play(person)
    request = create(http, tenant.admin.headers, "erase", person.uid)
    assert deliver(tenant.client_id, request["requestId"]) == "completed"
    assert read(http, tenant.admin.headers, request["requestId"])["report"]["lessons"] == {"deleted": 5,
                                                                                          "anonymised": 0}
    assert firebase.db().collection(f"clients/{tenant.client_id}/lessonPlays").where(
        filter=FieldFilter("userId", "==", person.uid)).get() == []


def test_an_export_past_its_per_area_cap_says_so(http, activity, held_tasks, monkeypatch):
    monkeypatch.setattr(engine, "MAX_EXPORT_DOCUMENTS_PER_AREA", 3)
    tenant = activity.tenant
    person = activity.person(f"capped-{tenant.client_id}", 67.0)
    for _ in range(4):
        activity.lesson_play(person)
    request = create(http, tenant.admin.headers, "export", person.uid)
    assert deliver(tenant.client_id, request["requestId"]) == "completed"
    done = read(http, tenant.admin.headers, request["requestId"])
    assert done["truncated"] == ["lessons"] and done["manifest"]["lessons"] == 3
