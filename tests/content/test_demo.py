"""The Content part of the demo world (`platformctl seed`, CONTRACT section 3): the demo client's content in every
built-in category in en, zh-Hant and zh-Hans, the operator's shared and private items, a scheduled and an expired
item, two custom categories; seeding again changes nothing."""

import pytest

from tests.conftest import bearer, sign_in
from wellness_api.content import demo
from wellness_api.content import repository as repo
from wellness_api.content.models import BUILT_IN_CATEGORIES, LOCALES
from wellness_api.core import firebase, tenancy
from wellness_api.ops import demo as world_demo

DEMO_CLIENT = "demo-fitness"
CLIENT_SPECS = dict(demo.CLIENT_ITEMS)
OPERATOR_SPECS = dict(demo.OPERATOR_ITEMS)
INACTIVE = {"new-year-challenge", "autumn-promo"}
ACTIVE_CLIENT_ITEMS = {spec["key"]: (content_id, spec) for content_id, spec in demo.CLIENT_ITEMS
                       if spec["key"] not in INACTIVE}


@pytest.fixture(scope="module")
def world(emulators) -> dict:
    """The demo world, seeded in-process without a reset (the run's other tenants stay)."""
    seeded = world_demo.seed()
    client = next(c for c in seeded["clients"] if c["clientId"] == DEMO_CLIENT)
    return {
        "operatorId": seeded["operator"]["clientId"],
        "admin": bearer(sign_in(client["admin"]["email"], client["admin"]["password"])),
        "operator": bearer(sign_in(seeded["operator"]["admin"]["email"], seeded["operator"]["admin"]["password"])),
    }


def ok(http, url: str, headers: dict | None = None) -> dict:
    response = http.get(url, headers=headers or {})
    assert response.status_code == 200, (url, response.json)
    return response.json


def by_key(http, client_id: str, key: str, lang: str = "en") -> list[dict]:
    return ok(http, f"/api/client/{client_id}/content/public/{key}?lang={lang}")["data"]


def test_demo_client_has_content_in_every_built_in_category_in_three_languages(http, world):
    assert {spec["categoryKey"] for _, spec in ACTIVE_CLIENT_ITEMS.values()} >= set(BUILT_IN_CATEGORIES)
    for key, (content_id, spec) in ACTIVE_CLIENT_ITEMS.items():
        for lang in LOCALES:
            [item] = by_key(http, DEMO_CLIENT, key, lang)
            assert (item["contentId"], item["ownerClientId"], item["clientId"], item["key"]) == (
                content_id, DEMO_CLIENT, DEMO_CLIENT, key)
            assert item["categoryKey"] == spec["categoryKey"] and item["locale"] == lang
            assert item["title"] == spec["title"][lang] and item["body"] == spec["body"][lang]
            assert item["version"] == 1 and item["format"] == spec.get("format", "markdown")
            assert item["expiresAt"] is None and item["metadata"] == spec.get("metadata", {})
            by_id = ok(http, f"/api/content/{content_id}/public?lang={lang}")
            assert by_id["locale"] == lang and by_id["data"]["title"] == spec["title"][lang]
    # the lookup of several keys at once, in Simplified Chinese
    keys = sorted(ACTIVE_CLIENT_ITEMS)
    found = ok(http, f"/api/client/{DEMO_CLIENT}/content/public?keys={','.join(keys)}&lang=zh-Hans")
    assert found["locale"] == "zh-Hans" and sorted(found["data"]) == keys
    for key in keys:
        assert [i["title"] for i in found["data"][key]] == [ACTIVE_CLIENT_ITEMS[key][1]["title"]["zh-Hans"]]
    # Accept-Language picks the language when lang is absent
    [item] = ok(http, f"/api/client/{DEMO_CLIENT}/content/public/welcome",
                {"Accept-Language": "zh-TW,zh;q=0.8"})["data"]
    assert item["locale"] == "zh-Hant" and item["title"] == "歡迎來到 Demo Fitness"


def test_operator_shared_items_are_visible_to_the_demo_client_and_private_ones_are_not(http, world):
    operator = world["operatorId"]
    [terms] = by_key(http, DEMO_CLIENT, "terms-of-service", "zh-Hant")
    spec = OPERATOR_SPECS["demo-operator-terms"]
    assert (terms["contentId"], terms["ownerClientId"], terms["clientId"], terms["categoryKey"]) == (
        "demo-operator-terms", operator, DEMO_CLIENT, "legal")
    assert terms["title"] == "服務條款" and terms["body"] == spec["body"]["zh-Hant"]
    assert terms["metadata"] == spec["metadata"]
    for key, content_id in (("platform-maintenance", "demo-operator-maintenance"),
                            ("hydration-tip", "demo-operator-hydration")):
        assert [i["contentId"] for i in by_key(http, DEMO_CLIENT, key, "zh-Hans")] == [content_id]
    assert by_key(http, DEMO_CLIENT, "operator-release-notes") == []
    # the operator sees its own private note
    assert [i["contentId"] for i in by_key(http, operator, "operator-release-notes")] == ["demo-operator-internal"]
    stored = repo.get_item("demo-operator-internal")
    assert stored["visibility"] == "private" and stored["ownerClientId"] == operator


def test_scheduled_and_expired_items_are_not_active(http, world):
    for key in INACTIVE:
        assert by_key(http, DEMO_CLIENT, key) == [], key
    listing = ok(http, "/api/content?limit=100", world["admin"])["data"]
    by_listed_key = {i["key"]: i for i in listing}
    assert set(by_listed_key) >= {spec["key"] for _, spec in demo.CLIENT_ITEMS}
    for key in INACTIVE:
        assert by_listed_key[key]["status"] == "published" and by_listed_key[key]["active"] is False, key
    assert by_listed_key["new-year-challenge"]["expiresAt"] is None
    assert by_listed_key["autumn-promo"]["expiresAt"] < by_listed_key["autumn-promo"]["updatedAt"]
    assert by_listed_key["new-year-challenge"]["publishAt"] > by_listed_key["new-year-challenge"]["updatedAt"]
    for key in ACTIVE_CLIENT_ITEMS:
        assert by_listed_key[key]["active"] is True, key
        assert set(by_listed_key[key]["title"]) == set(LOCALES), key
    for content_id in ("demo-fitness-new-year", "demo-fitness-autumn"):
        assert http.get(f"/api/content/{content_id}/public").status_code == 404


def test_custom_categories_are_listed(http, world):
    listed = ok(http, f"/api/client/{DEMO_CLIENT}/content-categories?lang=zh-Hant")["data"]
    by_category = {c["key"]: c for c in listed}
    assert [c["key"] for c in listed[:4]] == list(BUILT_IN_CATEGORIES)
    assert {"wellness-tips", "events"} <= set(by_category)
    assert all(by_category[k]["builtIn"] for k in BUILT_IN_CATEGORIES)
    assert by_category["wellness-tips"]["builtIn"] is False and by_category["events"]["builtIn"] is False
    assert by_category["wellness-tips"]["name"] == "健康小貼士" and by_category["events"]["name"] == "活動"
    operator_listed = ok(http, f"/api/client/{world['operatorId']}/content-categories")["data"]
    assert {"wellness-tips", "events"} <= {c["key"] for c in operator_listed}


def _snapshot() -> dict:
    ids = [content_id for content_id, _ in demo.OPERATOR_ITEMS + demo.CLIENT_ITEMS]
    items = {content_id: repo.get_item(content_id) for content_id in ids}
    versions = {content_id: {snap.id: snap.to_dict() for snap in
                             firebase.db().collection(f"{repo.ITEMS}/{content_id}/{repo.VERSIONS}").stream()}
                for content_id in ids}
    stored = repo.stored_categories()
    return {"items": items, "versions": versions,
            "categories": {c["key"]: stored.get(c["key"]) for c in demo.CATEGORIES},
            "keys": {client_id: {snap.id: snap.to_dict() for snap in
                                 firebase.db().collection(f"clients/{client_id}/{repo.KEYS}").stream()}
                     for client_id in (DEMO_CLIENT,)}}


def test_seeding_again_changes_nothing(world):
    before = _snapshot()
    assert all(before["items"].values()) and all(len(v) == 1 for v in before["versions"].values())
    assert all(before["categories"].values())
    world_demo.seed()
    demo.seed(tenancy.get_client(DEMO_CLIENT))
    assert _snapshot() == before
