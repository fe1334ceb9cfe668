"""The demo catalog of `platformctl seed`: realistic, localized, some live, some hidden, a live plan; idempotent."""

import requests

from tests.lessons.conftest import CATALOG
from wellness_api.core import firebase, tenancy
from wellness_api.lessons import demo


def test_seed_builds_a_catalog_and_a_live_plan_idempotently(http, tenant):
    demo.seed(tenant.client)
    demo.seed(tenancy.get_client(tenant.client_id))  # a second run changes nothing
    body = http.get(CATALOG, headers=tenant.admin.headers).json
    assert len(body["lessons"]) == len(demo.LESSONS)
    assert body["allTiers"] == ["Free", "Plus", "Premium"]
    live = set(body["liveLessonIds"])
    assert 0 < len(live) < len(body["lessons"])
    for lesson in body["lessons"]:
        assert {"en", "zh_Hant", "zh_Hans"} <= set(lesson["name"])
        assert lesson["duration"] > 0 and lesson["membershipTiers"]
    assert any(lesson["sessions"] for lesson in body["lessons"])
    first = body["lessons"][0]
    assert requests.get(first["subtitleUrl"]["en"], timeout=10).text.startswith("WEBVTT")
    plans = [snap.to_dict() for snap in firebase.db().collection(f"clients/{tenant.client_id}/lessonPlans").stream()]
    assert len(plans) == 1 and plans[0]["isLive"] is True and set(plans[0]["lessonIds"]) <= live
    app_list = http.get(f"/api/lessons?clientId={tenant.client_id}", headers=tenant.player.headers).json["data"]
    assert {lesson["id"] for lesson in app_list} == live
    assert any(lesson.get("relatedLessons") for lesson in app_list)
