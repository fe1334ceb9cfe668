"""Usage metering (4.1 rule 7): core/usage.py's sharded per-day rollup, and every lessons request counted."""

import concurrent.futures
import datetime as dt

import pytest
from google.cloud.firestore_v1 import document

from tests.lessons.conftest import CATALOG, create_lesson
from wellness_api.core import clock, firebase, usage


def test_increments_spread_over_shards_and_sum_exactly(tenant):
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda _: usage.increment(tenant.client_id, "lessons", "list"), range(48)))
    usage.increment(tenant.client_id, "lessons", "get", count=2)
    today = usage.day_of()
    assert usage.day_totals(tenant.client_id, today) == {"lessons": {"total": 50, "list": 48, "get": 2}}
    shards = list(firebase.db().collection(f"clients/{tenant.client_id}/usageShards").stream())
    assert 1 < len(shards) <= usage.SHARDS
    assert {snap.get("day") for snap in shards} == {today}
    assert all(snap.id.startswith(today + "_") for snap in shards)


def test_days_are_separate_and_read_as_a_range(tenant, other_tenant):
    usage.increment(tenant.client_id, "lessons", "list")
    clock.advance(dt.timedelta(days=1))
    usage.increment(tenant.client_id, "lessons", "list")
    usage.increment(tenant.client_id, "analytics", "overview")
    usage.increment(other_tenant.client_id, "lessons", "list")
    yesterday, today = usage.day_of(clock.now() - dt.timedelta(days=1)), usage.day_of()
    assert usage.daily(tenant.client_id, yesterday, today) == {
        yesterday: {"lessons": {"total": 1, "list": 1}},
        today: {"lessons": {"total": 1, "list": 1}, "analytics": {"total": 1, "overview": 1}},
    }
    assert usage.daily(tenant.client_id, "2000-01-01", "2000-01-31") == {}


@pytest.mark.parametrize(("area", "operation"), [("", "x"), ("lessons", "total"), ("a.b", "x"), ("lessons", "x y")])
def test_counter_names_are_checked(tenant, area, operation):
    with pytest.raises(ValueError):
        usage.increment(tenant.client_id, area, operation)


def test_every_authenticated_lessons_request_is_counted(http, tenant, other_tenant):
    lesson = create_lesson(http, tenant, isLive=True)  # lessonCreate
    http.get(f"/api/lessons?clientId={tenant.client_id}", headers=tenant.player.headers)  # list
    http.get(f"/api/lessons?clientId={tenant.client_id}", headers=tenant.player.headers)  # list
    http.get(f"/api/lessons/{lesson}", headers=tenant.player.headers)  # get
    http.get("/api/lessons/missing", headers=tenant.player.headers)  # get (404 still counts)
    http.get(CATALOG, headers=tenant.admin.headers)  # catalogGet
    http.patch(CATALOG, json={"liveLessonIds": [lesson]}, headers=tenant.admin.headers)  # catalogPatch
    http.patch(f"{CATALOG}/{lesson}", json={"MET": 2}, headers=tenant.admin.headers)  # lessonPatch
    # Not counted for this client: no credentials, another client's token, a player on B2B routes.
    http.get(f"/api/lessons?clientId={tenant.client_id}")
    http.get(f"/api/lessons?clientId={tenant.client_id}", headers=other_tenant.player.headers)
    http.get(CATALOG, headers=tenant.player.headers)
    assert usage.day_totals(tenant.client_id, usage.day_of()) == {"lessons": {
        "total": 8, "lessonCreate": 1, "list": 2, "get": 2, "catalogGet": 1, "catalogPatch": 1, "lessonPatch": 1}}
    assert usage.day_totals(other_tenant.client_id, usage.day_of()) == {}


def test_a_metering_failure_never_fails_the_request(http, tenant, monkeypatch):
    def refuse(self, *args, **kwargs):  # Firestore refuses the write (a fake at its boundary)
        raise RuntimeError("firestore unavailable")

    monkeypatch.setattr(document.DocumentReference, "set", refuse)
    response = http.get(f"/api/lessons?clientId={tenant.client_id}", headers=tenant.player.headers)
    monkeypatch.undo()
    assert response.status_code == 200 and response.json == {"data": []}
    assert usage.day_totals(tenant.client_id, usage.day_of()) == {}
