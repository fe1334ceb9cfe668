"""Content categories (4.4, 2.8): the public list with the client's effective permissions, the platform
administrators' category management, per-client overrides and the publish permission they control.

Categories are global (platform/contentCategories) and the operator tenant is shared by the whole session: the
tests never change a built-in category, make their own custom ones under unique keys, and remove them afterwards.
"""

import contextlib
import uuid

import pytest
from google.cloud import firestore

from tests.content.conftest import create_item
from wellness_api.content import repository, service
from wellness_api.core import firebase, tenancy
from wellness_api.core.errors import ApiError

CATEGORIES = "/api/content-categories"
BUILT_INS = ["legal", "announcements", "help", "other"]
MISSING_AUTH = {"error": "Missing or invalid Authorization header"}


def unique_key(prefix: str = "k") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def list_url(client_id: str, lang: str | None = None) -> str:
    return f"/api/client/{client_id}/content-categories" + (f"?lang={lang}" if lang else "")


def remove_category(key: str) -> None:
    """Delete what is left of a test's custom category: its items (through the service), then the category."""
    query = firebase.db().collection(repository.ITEMS).where(filter=firestore.FieldFilter("categoryKey", "==", key))
    for snap in query.stream():
        item = snap.to_dict()
        if not item.get("deleted"):
            service.delete_item(tenancy.get_client(item["ownerClientId"]), item["contentId"], "test-cleanup")
    with contextlib.suppress(ApiError):  # the test may have deleted it already
        service.delete_category(key)


@pytest.fixture
def make_category(http, platform_admin):
    """Create a custom category (a unique key) as a platform administrator; removed after the test."""
    made = []

    def make(**fields) -> dict:
        body = {"key": fields.pop("key", f"t{uuid.uuid4().hex[:8]}"),
                "name": fields.pop("name", {"en": "Test category"}), **fields}
        response = http.post(CATEGORIES, json=body, headers=platform_admin.headers)
        assert response.status_code == 201, response.json
        made.append(body["key"])
        return response.json["category"]

    yield make
    for key in made:
        remove_category(key)


def categories_of(http, client_id: str, lang: str | None = None) -> dict[str, dict]:
    response = http.get(list_url(client_id, lang))
    assert response.status_code == 200, response.json
    return {c["key"]: c for c in response.json["data"]}


def set_override(http, platform_admin, key: str, client_id: str, **changes):
    return http.patch(f"{CATEGORIES}/{key}/clients/{client_id}", json=changes, headers=platform_admin.headers)


# ------------------------------------------------------------------------------------ the public list


def test_built_ins_come_first_in_order_then_custom_ones(http, tenant, make_category):
    first = make_category(key=f"z{uuid.uuid4().hex[:8]}", name={"en": "Zeta"})
    second = make_category(key=f"a{uuid.uuid4().hex[:8]}", name={"en": "Alpha"},
                           description={"en": "Alpha things", "zh-Hant": "阿爾法"})
    response = http.get(list_url(tenant.client_id))
    assert response.status_code == 200
    assert response.json["success"] is True and response.json["locale"] == "en"
    keys = [c["key"] for c in response.json["data"]]
    assert keys[:4] == BUILT_INS
    assert first["key"] in keys[4:] and second["key"] in keys[4:]
    # Custom categories follow the built-ins by key.
    assert keys[4:] == sorted(keys[4:])
    data = {c["key"]: c for c in response.json["data"]}
    assert data["legal"] == {"key": "legal", "builtIn": True, "name": "Legal",
                             "description": "Terms, privacy and other legal documents.",
                             "defaultPermissions": {"viewShared": True, "publish": True},
                             "permissions": {"viewShared": True, "publish": True}}
    # A new category's default: clients see shared items but do not publish their own.
    assert data[second["key"]] == {"key": second["key"], "builtIn": False, "name": "Alpha",
                                   "description": "Alpha things",
                                   "defaultPermissions": {"viewShared": True, "publish": False},
                                   "permissions": {"viewShared": True, "publish": False}}
    assert data[first["key"]]["description"] is None


@pytest.mark.parametrize("lang", ["en", "zh-Hant", "zh-Hans"])
def test_names_and_descriptions_are_resolved_to_the_locale(http, tenant, make_category, lang):
    custom = make_category(name={"en": "Nutrition", "zh-Hant": "營養"},
                           description={"en": "Eat well", "zh-Hans": "好好吃饭"})
    response = http.get(list_url(tenant.client_id, lang))
    assert response.status_code == 200 and response.json["locale"] == lang
    data = {c["key"]: c for c in response.json["data"]}
    for key in BUILT_INS:
        names, descriptions = service.BUILT_IN_NAMES[key]
        assert data[key]["name"] == names[lang]
        assert data[key]["description"] == descriptions["en"]  # only en: falls back
    assert data[custom["key"]]["name"] == {"en": "Nutrition", "zh-Hant": "營養", "zh-Hans": "Nutrition"}[lang]
    assert data[custom["key"]]["description"] == {"en": "Eat well", "zh-Hant": "Eat well",
                                                  "zh-Hans": "好好吃饭"}[lang]


def test_built_in_zh_hant_names_follow_accept_language(http, tenant):
    response = http.get(list_url(tenant.client_id), headers={"Accept-Language": "zh-TW,zh;q=0.9"})
    assert response.status_code == 200 and response.json["locale"] == "zh-Hant"
    assert [c["name"] for c in response.json["data"][:4]] == ["法律條款", "公告", "說明", "其他"]
    assert response.headers["Cache-Control"] == "public, max-age=60"
    assert response.headers["Vary"] == "Accept-Language"


def test_permissions_are_the_clients_effective_ones(http, tenant, other_tenant, platform_admin, make_category):
    custom = make_category(defaultPermissions={"viewShared": False, "publish": False})
    key = custom["key"]
    assert custom["defaultPermissions"] == {"viewShared": False, "publish": False}
    response = set_override(http, platform_admin, key, tenant.client_id, publish=True)
    assert response.status_code == 200
    assert response.json == {"success": True, "clientId": tenant.client_id, "categoryKey": key,
                             "overrides": {"publish": True}, "permissions": {"viewShared": False, "publish": True}}
    mine = categories_of(http, tenant.client_id)[key]
    assert mine["permissions"] == {"viewShared": False, "publish": True}
    assert mine["defaultPermissions"] == {"viewShared": False, "publish": False}
    # Another client keeps the defaults.
    assert categories_of(http, other_tenant.client_id)[key]["permissions"] == {"viewShared": False, "publish": False}
    # An override can also restrict a built-in category for one client, without touching its defaults.
    response = set_override(http, platform_admin, "help", tenant.client_id, viewShared=False)
    assert response.status_code == 200
    assert response.json["permissions"] == {"viewShared": False, "publish": True}
    helps = categories_of(http, tenant.client_id)["help"]
    assert helps["permissions"] == {"viewShared": False, "publish": True}
    assert helps["defaultPermissions"] == {"viewShared": True, "publish": True}
    assert categories_of(http, other_tenant.client_id)["help"]["permissions"] == {"viewShared": True, "publish": True}


@pytest.mark.parametrize("client_id", ["no-such-client", "bad..id", "__x__", "a%20b"])
def test_unknown_or_malformed_client_is_404(http, client_id):
    response = http.get(list_url(client_id))
    assert response.status_code == 404
    assert response.json == {"error": "Client not found."}
    assert response.headers["Cache-Control"] != "public, max-age=60"
    assert "Vary" not in response.headers


def test_bad_lang_is_400(http, tenant):
    response = http.get(list_url(tenant.client_id, "fr"))
    assert response.status_code == 400
    assert response.json == {"error": service.UNKNOWN_LANG}


# ------------------------------------------------------------------------------------ who manages categories


def test_only_platform_administrators_manage_categories(http, tenant, operator_tenant, make_category):
    custom = make_category()
    key = custom["key"]
    requests_ = [
        ("post", CATEGORIES, {"key": unique_key("x"), "name": {"en": "X"}}),
        ("patch", f"{CATEGORIES}/{key}", {"name": {"en": "Renamed"}}),
        ("delete", f"{CATEGORIES}/{key}", None),
        ("patch", f"{CATEGORIES}/{key}/clients/{tenant.client_id}", {"publish": True}),
        ("patch", f"{CATEGORIES}/legal", {"name": {"en": "Hacked"}}),
        ("delete", f"{CATEGORIES}/legal", None),
    ]
    # A client's admin and player, and the operator tenant's own player, are not platform administrators.
    for member in (tenant.admin, tenant.player, operator_tenant.player):
        for method, url, body in requests_:
            response = getattr(http, method)(url, json=body, headers=member.headers)
            assert response.status_code == 403, (member.role, method, url)
            assert response.json == {"error": service.PLATFORM_ADMIN_REQUIRED}
    for headers in ({}, {"Authorization": "Bearer garbage"}):
        for method, url, body in requests_:
            response = getattr(http, method)(url, json=body, headers=headers)
            assert response.status_code == 401, (method, url)
    response = http.post(CATEGORIES, json={"key": unique_key("x"), "name": {"en": "X"}})
    assert response.json == MISSING_AUTH
    response = http.post(CATEGORIES, json={"key": unique_key("x"), "name": {"en": "X"}},
                         headers={"Authorization": "Bearer garbage"})
    assert response.json == {"error": "Invalid or expired token"}
    # Nothing changed.
    after = categories_of(http, tenant.client_id)
    assert after[key]["name"] == "Test category" and after[key]["permissions"]["publish"] is False
    assert after["legal"]["name"] == "Legal"


def test_create_a_category(http, platform_admin, tenant, make_category):
    key = f"t{uuid.uuid4().hex[:8]}"
    created = make_category(key=key, name={"en": "Recipes", "zh-Hans": "食谱"}, description={"en": "Cook"},
                            defaultPermissions={"viewShared": False, "publish": True})
    assert created == {"key": key, "builtIn": False, "name": {"en": "Recipes", "zh-Hans": "食谱"},
                       "description": {"en": "Cook"}, "defaultPermissions": {"viewShared": False, "publish": True}}
    listed = categories_of(http, tenant.client_id, "zh-Hans")[key]
    assert listed["name"] == "食谱" and listed["permissions"] == {"viewShared": False, "publish": True}
    assert make_category(defaultPermissions={"viewShared": True, "publish": False})["defaultPermissions"] == \
        {"viewShared": True, "publish": False}


def test_partial_default_permissions_at_creation_keep_the_new_category_defaults(make_category):
    partial = make_category(defaultPermissions={"viewShared": False})
    assert partial["defaultPermissions"] == {"viewShared": False, "publish": False}
    partial = make_category(defaultPermissions={})
    assert partial["defaultPermissions"] == {"viewShared": True, "publish": False}


def test_create_with_a_taken_key_is_409(http, platform_admin, make_category):
    existing = make_category()
    for key in (existing["key"], "legal", "announcements", "help", "other"):
        response = http.post(CATEGORIES, json={"key": key, "name": {"en": "Again"}}, headers=platform_admin.headers)
        assert response.status_code == 409, key
        assert response.json == {"error": service.CATEGORY_EXISTS}


@pytest.mark.parametrize("body, message", [
    ({"key": "Bad Key", "name": {"en": "X"}}, "Invalid field key:"),
    ({"key": "1abc", "name": {"en": "X"}}, "Invalid field key:"),
    ({"key": "a" * 41, "name": {"en": "X"}}, "Invalid field key:"),
    ({"key": "under_score", "name": {"en": "X"}}, "Invalid field key:"),
    ({"name": {"en": "X"}}, "Missing required field: key."),
    ({"key": "GOODKEY", "name": {"en": "X"}}, "Invalid field key:"),
    ({"key": "{key}"}, "Missing required field: name."),
    ({"key": "{key}", "name": {"zh-Hant": "只有中文"}}, "Invalid field name: en is required."),
    ({"key": "{key}", "name": {"en": "   "}}, "Invalid field name: en is required."),
    ({"key": "{key}", "name": {"en": "X", "fr": "Y"}}, "Invalid field name:"),
    ({"key": "{key}", "name": {"en": "X"}, "colour": "red"}, "Unknown field: colour."),
    ({"key": "{key}", "name": {"en": "X"}, "defaultPermissions": {"viewShared": "yes"}},
     "Invalid field defaultPermissions.viewShared:"),
    ({"key": "{key}", "name": {"en": "X"}, "defaultPermissions": {"edit": True}},
     "Unknown field: defaultPermissions.edit."),
])
def test_invalid_category_bodies_are_400(http, platform_admin, operator_tenant, body, message):
    key = f"t{uuid.uuid4().hex[:8]}"
    body = {k: (key if v == "{key}" else v) for k, v in body.items()}
    response = http.post(CATEGORIES, json=body, headers=platform_admin.headers)
    assert response.status_code == 400, response.json
    assert set(response.json) == {"error"} and response.json["error"].startswith(message), response.json
    assert key not in categories_of(http, operator_tenant.client_id)


def test_patch_a_category(http, platform_admin, tenant, make_category):
    key = make_category(name={"en": "Before"}, description={"en": "Old"})["key"]
    url = f"{CATEGORIES}/{key}"
    response = http.patch(url, json={"name": {"en": "After", "zh-Hant": "之後"}}, headers=platform_admin.headers)
    assert response.status_code == 200
    assert response.json == {"success": True, "category": {
        "key": key, "builtIn": False, "name": {"en": "After", "zh-Hant": "之後"}, "description": {"en": "Old"},
        "defaultPermissions": {"viewShared": True, "publish": False}}}
    response = http.patch(url, json={"description": {"en": "New"}}, headers=platform_admin.headers)
    assert response.status_code == 200 and response.json["category"]["description"] == {"en": "New"}
    assert response.json["category"]["name"] == {"en": "After", "zh-Hant": "之後"}
    # Only publish: viewShared keeps its value.
    response = http.patch(url, json={"defaultPermissions": {"publish": True}}, headers=platform_admin.headers)
    assert response.status_code == 200
    assert response.json["category"]["defaultPermissions"] == {"viewShared": True, "publish": True}
    response = http.patch(url, json={"defaultPermissions": {"viewShared": False}}, headers=platform_admin.headers)
    assert response.json["category"]["defaultPermissions"] == {"viewShared": False, "publish": True}
    listed = categories_of(http, tenant.client_id, "zh-Hant")[key]
    assert listed == {"key": key, "builtIn": False, "name": "之後", "description": "New",
                      "defaultPermissions": {"viewShared": False, "publish": True},
                      "permissions": {"viewShared": False, "publish": True}}


def test_patch_errors(http, platform_admin, make_category):
    key = make_category()["key"]
    response = http.patch(f"{CATEGORIES}/no-such-category", json={"name": {"en": "X"}},
                          headers=platform_admin.headers)
    assert response.status_code == 404 and response.json == {"error": service.CATEGORY_NOT_FOUND}
    response = http.patch(f"{CATEGORIES}/{key}", json={}, headers=platform_admin.headers)
    assert response.status_code == 400
    assert response.json == {"error": "The body must contain at least one category field."}
    response = http.patch(f"{CATEGORIES}/{key}", json={"key": "other-key"}, headers=platform_admin.headers)
    assert response.status_code == 400 and response.json == {"error": "Unknown field: key."}
    response = http.patch(f"{CATEGORIES}/{key}", json={"name": {"zh-Hant": "只有中文"}},
                          headers=platform_admin.headers)
    assert response.status_code == 400 and response.json == {"error": "Invalid field name: en is required."}


def test_delete_categories(http, platform_admin, operator_tenant, tenant, make_category):
    for key in BUILT_INS:
        response = http.delete(f"{CATEGORIES}/{key}", headers=platform_admin.headers)
        assert response.status_code == 409
        assert response.json == {"error": service.BUILT_IN_NOT_DELETABLE}
    response = http.delete(f"{CATEGORIES}/no-such-category", headers=platform_admin.headers)
    assert response.status_code == 404 and response.json == {"error": service.CATEGORY_NOT_FOUND}

    key = make_category()["key"]
    item = create_item(http, operator_tenant.admin, key=unique_key(), categoryKey=key)
    response = http.delete(f"{CATEGORIES}/{key}", headers=platform_admin.headers)
    assert response.status_code == 409 and response.json == {"error": service.CATEGORY_IN_USE}
    assert key in categories_of(http, tenant.client_id)
    assert http.delete(f"/api/content/{item['contentId']}", headers=operator_tenant.admin.headers).status_code == 200
    response = http.delete(f"{CATEGORIES}/{key}", headers=platform_admin.headers)
    assert response.status_code == 200 and response.json == {"success": True}
    assert key not in categories_of(http, tenant.client_id)
    response = http.delete(f"{CATEGORIES}/{key}", headers=platform_admin.headers)
    assert response.status_code == 404 and response.json == {"error": service.CATEGORY_NOT_FOUND}


def test_an_unpublished_item_still_keeps_its_category_in_use(http, platform_admin, tenant, make_category):
    key = make_category(defaultPermissions={"viewShared": True, "publish": True})["key"]
    item = create_item(http, tenant.admin, key=unique_key(), categoryKey=key, publish=False)
    response = http.delete(f"{CATEGORIES}/{key}", headers=platform_admin.headers)
    assert response.status_code == 409 and response.json == {"error": service.CATEGORY_IN_USE}
    assert http.delete(f"/api/content/{item['contentId']}", headers=tenant.admin.headers).status_code == 200
    assert http.delete(f"{CATEGORIES}/{key}", headers=platform_admin.headers).status_code == 200


# ------------------------------------------------------------------------------------ per-client overrides


def test_override_errors(http, platform_admin, tenant, make_category):
    key = make_category()["key"]
    response = set_override(http, platform_admin, key, "no-such-client", publish=True)
    assert response.status_code == 404 and response.json == {"error": "Client not found."}
    response = set_override(http, platform_admin, key, "bad..id", publish=True)
    assert response.status_code == 404 and response.json == {"error": "Client not found."}
    response = set_override(http, platform_admin, "no-such-category", tenant.client_id, publish=True)
    assert response.status_code == 404 and response.json == {"error": service.CATEGORY_NOT_FOUND}
    response = set_override(http, platform_admin, key, tenant.client_id, edit=True)
    assert response.status_code == 400 and response.json == {"error": "Unknown field: edit."}
    response = set_override(http, platform_admin, key, tenant.client_id, publish="yes")
    assert response.status_code == 400 and response.json["error"].startswith("Invalid field publish:")


def test_null_removes_an_override(http, platform_admin, tenant, make_category):
    key = make_category(defaultPermissions={"viewShared": False, "publish": False})["key"]
    response = set_override(http, platform_admin, key, tenant.client_id, viewShared=True, publish=True)
    assert response.status_code == 200
    assert response.json["overrides"] == {"viewShared": True, "publish": True}
    assert response.json["permissions"] == {"viewShared": True, "publish": True}
    # One at a time: the other override stays.
    response = set_override(http, platform_admin, key, tenant.client_id, publish=None)
    assert response.status_code == 200
    assert response.json == {"success": True, "clientId": tenant.client_id, "categoryKey": key,
                             "overrides": {"viewShared": True}, "permissions": {"viewShared": True, "publish": False}}
    assert categories_of(http, tenant.client_id)[key]["permissions"] == {"viewShared": True, "publish": False}
    response = set_override(http, platform_admin, key, tenant.client_id, viewShared=None)
    assert response.json["overrides"] == {}
    assert response.json["permissions"] == {"viewShared": False, "publish": False}
    # With no override the client follows the default, also when the default changes.
    response = http.patch(f"{CATEGORIES}/{key}", json={"defaultPermissions": {"viewShared": True}},
                          headers=platform_admin.headers)
    assert response.status_code == 200
    assert categories_of(http, tenant.client_id)[key]["permissions"] == {"viewShared": True, "publish": False}


# ------------------------------------------------------------------------------------ the publish permission


def test_publish_permission_controls_client_admins(http, platform_admin, operator_tenant, tenant, other_tenant,
                                                   make_category):
    key = make_category()["key"]  # default: publish false
    response = http.post("/api/content", json={"key": unique_key(), "categoryKey": key, "title": {"en": "T"},
                                               "body": {"en": "B"}}, headers=tenant.admin.headers)
    assert response.status_code == 403 and response.json == {"error": service.PUBLISH_NOT_ALLOWED}
    # Not even as a draft.
    response = http.post("/api/content", json={"key": unique_key(), "categoryKey": key, "title": {"en": "T"},
                                               "body": {"en": "B"}, "publish": False}, headers=tenant.admin.headers)
    assert response.status_code == 403 and response.json == {"error": service.PUBLISH_NOT_ALLOWED}
    assert set_override(http, platform_admin, key, tenant.client_id, publish=True).status_code == 200
    created = create_item(http, tenant.admin, key=unique_key(), categoryKey=key)
    assert created["categoryKey"] == key and created["ownerClientId"] == tenant.client_id
    # The override is the tenant's only.
    response = http.post("/api/content", json={"key": unique_key(), "categoryKey": key, "title": {"en": "T"},
                                               "body": {"en": "B"}}, headers=other_tenant.admin.headers)
    assert response.status_code == 403 and response.json == {"error": service.PUBLISH_NOT_ALLOWED}
    # The operator's admins publish everywhere.
    operator_item = create_item(http, operator_tenant.admin, key=unique_key(), categoryKey=key, visibility="shared")
    assert operator_item["ownerClientId"] == operator_tenant.client_id


def test_an_override_false_stops_publishing_in_a_built_in_category(http, platform_admin, tenant):
    assert set_override(http, platform_admin, "other", tenant.client_id, publish=False).status_code == 200
    response = http.post("/api/content", json={"key": unique_key(), "categoryKey": "other", "title": {"en": "T"},
                                               "body": {"en": "B"}}, headers=tenant.admin.headers)
    assert response.status_code == 403 and response.json == {"error": service.PUBLISH_NOT_ALLOWED}
    assert set_override(http, platform_admin, "other", tenant.client_id, publish=None).status_code == 200
    create_item(http, tenant.admin, key=unique_key(), categoryKey="other")


@pytest.mark.parametrize("member", ["tenant", "operator"])
def test_unknown_category_key_is_400(http, tenant, operator_tenant, member):
    who = tenant.admin if member == "tenant" else operator_tenant.admin
    response = http.post("/api/content", json={"key": unique_key(), "categoryKey": "no-such-category",
                                               "title": {"en": "T"}, "body": {"en": "B"}}, headers=who.headers)
    assert response.status_code == 400 and response.json == {"error": service.UNKNOWN_CATEGORY}
