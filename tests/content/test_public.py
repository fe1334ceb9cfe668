"""The public content reads (4.4, 2.8, 8, 9.5): by key, by several keys and by id, without credentials.

Who sees what: a client its own active items, plus the operator tenant's active shared items in the categories
whose effective viewShared permission is true for it; the operator tenant its own items, private and shared.
The operator tenant is shared by the session, so every item key here is unique to its test.
"""

import datetime as dt
import uuid

import pytest

from tests.content.conftest import create_item
from tests.content.test_categories import CATEGORIES, remove_category, unique_key
from wellness_api.content import repository, service
from wellness_api.core import clock

PUBLIC_FIELDS = {"contentId", "ownerClientId", "key", "categoryKey", "version", "versionId", "locale", "title",
                 "body", "format", "publishAt", "expiresAt", "metadata"}
CACHED = "public, max-age=60"
NOT_FOUND = {"error": "Content not found."}
CLIENT_NOT_FOUND = {"error": "Client not found."}


def by_key(http, client_id: str, key: str, **kwargs):
    return http.get(f"/api/client/{client_id}/content/public/{key}", **kwargs)


def by_keys(http, client_id: str, keys: str, query_string: dict | None = None, **kwargs):
    return http.get(f"/api/client/{client_id}/content/public", query_string={"keys": keys, **(query_string or {})},
                    **kwargs)


def by_id(http, content_id: str, **kwargs):
    return http.get(f"/api/content/{content_id}/public", **kwargs)


def ids(response) -> list[str]:
    assert response.status_code == 200, response.json
    return [item["contentId"] for item in response.json["data"]]


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@pytest.fixture
def make_category(http, platform_admin):
    """A custom category under a unique key (platform administrator), removed after the test."""
    made = []

    def make(**fields) -> str:
        key = f"t{uuid.uuid4().hex[:8]}"
        response = http.post(CATEGORIES, json={"key": key, "name": {"en": "Test"}, **fields},
                             headers=platform_admin.headers)
        assert response.status_code == 201, response.json
        made.append(key)
        return key

    yield make
    for key in made:
        remove_category(key)


def override(http, platform_admin, key: str, client_id: str, **changes) -> None:
    response = http.patch(f"{CATEGORIES}/{key}/clients/{client_id}", json=changes, headers=platform_admin.headers)
    assert response.status_code == 200, response.json


# ------------------------------------------------------------------------------------ the public form


def test_owner_reads_its_item_by_key_keys_and_id_in_the_public_form(http, tenant):
    key = unique_key()
    created = create_item(http, tenant.admin, key=key, categoryKey="help", format="plain",
                          title={"en": "How to"}, body={"en": "Step one."},
                          publishAt="2020-01-02T03:04:05Z", expiresAt="2099-12-31T00:00:00+08:00",
                          metadata={"actionUrl": "https://example.test/go", "actionLabel": "Go", "order": 2})
    expected = {"contentId": created["contentId"], "ownerClientId": tenant.client_id, "clientId": tenant.client_id,
                "key": key, "categoryKey": "help", "version": 1, "versionId": created["versionId"], "locale": "en",
                "title": "How to", "body": "Step one.", "format": "plain", "publishAt": "2020-01-02T03:04:05.000Z",
                "expiresAt": "2099-12-30T16:00:00.000Z",
                "metadata": {"actionUrl": "https://example.test/go", "actionLabel": "Go", "order": 2}}
    response = by_key(http, tenant.client_id, key)
    assert response.status_code == 200
    assert response.json == {"success": True, "locale": "en", "data": [expected]}
    assert set(response.json["data"][0]) == PUBLIC_FIELDS | {"clientId"}

    response = by_keys(http, tenant.client_id, key)
    assert response.status_code == 200
    assert response.json == {"success": True, "locale": "en", "data": {key: [expected]}}

    response = by_id(http, created["contentId"])
    assert response.status_code == 200
    without_client = {k: v for k, v in expected.items() if k != "clientId"}
    assert response.json == {"success": True, "locale": "en", "data": without_client}
    assert set(response.json["data"]) == PUBLIC_FIELDS


def test_defaults_of_the_public_form(http, tenant):
    key = unique_key()
    created = create_item(http, tenant.admin, key=key)
    item = by_key(http, tenant.client_id, key).json["data"][0]
    assert item["format"] == "markdown" and item["metadata"] == {} and item["expiresAt"] is None
    assert item["publishAt"] == created["publishAt"] and item["publishAt"].endswith("Z")
    assert isinstance(item["version"], int) and isinstance(item["versionId"], str) and item["versionId"]


def test_a_new_version_is_what_the_public_reads_serve(http, tenant):
    key = unique_key()
    created = create_item(http, tenant.admin, key=key, title={"en": "One"})
    response = http.patch(f"/api/content/{created['contentId']}", json={"title": {"en": "Two"}},
                          headers=tenant.admin.headers)
    assert response.status_code == 200
    changed = response.json["content"]
    for item in (by_key(http, tenant.client_id, key).json["data"][0], by_id(http, created["contentId"]).json["data"]):
        assert item["title"] == "Two" and item["version"] == 2 and item["versionId"] == changed["versionId"]
        assert item["versionId"] != created["versionId"]


# ------------------------------------------------------------------------------------ the visibility matrix


def test_another_client_never_sees_a_clients_items(http, tenant, other_tenant):
    key = unique_key()
    mine = create_item(http, tenant.admin, key=key, categoryKey="announcements")
    assert ids(by_key(http, other_tenant.client_id, key)) == []
    assert by_keys(http, other_tenant.client_id, key).json["data"] == {key: []}
    # The other client's own item with the same key is all it sees; the first client sees only its own.
    theirs = create_item(http, other_tenant.admin, key=key, categoryKey="announcements")
    assert ids(by_key(http, other_tenant.client_id, key)) == [theirs["contentId"]]
    assert ids(by_key(http, tenant.client_id, key)) == [mine["contentId"]]
    data = by_keys(http, other_tenant.client_id, key).json["data"]
    assert [i["contentId"] for i in data[key]] == [theirs["contentId"]]
    # Client items are never shared, even in a category whose viewShared is true.
    assert http.get(f"/api/content/{mine['contentId']}", headers=tenant.admin.headers).json["content"][
        "visibility"] == "private"


def test_operator_private_items_stay_with_the_operator(http, tenant, operator_tenant):
    key = unique_key()
    private = create_item(http, operator_tenant.admin, key=key, categoryKey="announcements")
    assert ids(by_key(http, tenant.client_id, key)) == []
    assert by_keys(http, tenant.client_id, key).json["data"] == {key: []}
    # The operator tenant's own lookups see it.
    response = by_key(http, operator_tenant.client_id, key)
    assert ids(response) == [private["contentId"]]
    item = response.json["data"][0]
    assert item["clientId"] == operator_tenant.client_id and item["ownerClientId"] == operator_tenant.client_id
    assert [i["contentId"] for i in by_keys(http, operator_tenant.client_id, key).json["data"][key]] == \
        [private["contentId"]]
    # By id, any active item is public (it backs /ct/{contentId}).
    assert by_id(http, private["contentId"]).status_code == 200


def test_operator_shared_items_follow_the_clients_own_item(http, tenant, other_tenant, operator_tenant):
    key = unique_key()
    shared = create_item(http, operator_tenant.admin, key=key, categoryKey="announcements", visibility="shared",
                         title={"en": "From the operator"})
    own = create_item(http, tenant.admin, key=key, categoryKey="announcements", title={"en": "Our own"})
    response = by_key(http, tenant.client_id, key)
    assert ids(response) == [own["contentId"], shared["contentId"]]
    first, second = response.json["data"]
    assert first["ownerClientId"] == tenant.client_id and first["title"] == "Our own"
    assert second["ownerClientId"] == operator_tenant.client_id and second["title"] == "From the operator"
    assert first["clientId"] == second["clientId"] == tenant.client_id
    data = by_keys(http, tenant.client_id, key).json["data"]
    assert [i["contentId"] for i in data[key]] == [own["contentId"], shared["contentId"]]
    assert {i["clientId"] for i in data[key]} == {tenant.client_id}
    # A client without an own item sees the shared one alone, labelled with its own clientId.
    response = by_key(http, other_tenant.client_id, key)
    assert ids(response) == [shared["contentId"]]
    assert response.json["data"][0]["clientId"] == other_tenant.client_id
    # The operator's lookup: its item once.
    assert ids(by_key(http, operator_tenant.client_id, key)) == [shared["contentId"]]


@pytest.mark.parametrize("category", ["legal", "announcements", "help", "other"])
def test_shared_items_of_every_built_in_category_are_visible(http, tenant, operator_tenant, category):
    key = unique_key()
    shared = create_item(http, operator_tenant.admin, key=key, categoryKey=category, visibility="shared")
    assert ids(by_key(http, tenant.client_id, key)) == [shared["contentId"]]


def test_view_shared_false_by_default_hides_until_an_override(http, platform_admin, tenant, other_tenant,
                                                             operator_tenant, make_category):
    category = make_category(defaultPermissions={"viewShared": False, "publish": False})
    key = unique_key()
    shared = create_item(http, operator_tenant.admin, key=key, categoryKey=category, visibility="shared")
    assert ids(by_key(http, tenant.client_id, key)) == []
    assert by_keys(http, tenant.client_id, key).json["data"] == {key: []}
    # The operator still sees its own item; by id it is public.
    assert ids(by_key(http, operator_tenant.client_id, key)) == [shared["contentId"]]
    assert by_id(http, shared["contentId"]).status_code == 200

    override(http, platform_admin, category, tenant.client_id, viewShared=True)
    assert ids(by_key(http, tenant.client_id, key)) == [shared["contentId"]]
    assert [i["contentId"] for i in by_keys(http, tenant.client_id, key).json["data"][key]] == [shared["contentId"]]
    assert ids(by_key(http, other_tenant.client_id, key)) == []

    override(http, platform_admin, category, tenant.client_id, viewShared=None)
    assert ids(by_key(http, tenant.client_id, key)) == []


def test_view_shared_true_by_default_and_an_override_false_hides(http, platform_admin, tenant, other_tenant,
                                                                operator_tenant, make_category):
    category = make_category(defaultPermissions={"viewShared": True, "publish": False})
    key = unique_key()
    shared = create_item(http, operator_tenant.admin, key=key, categoryKey=category, visibility="shared")
    assert ids(by_key(http, tenant.client_id, key)) == [shared["contentId"]]
    override(http, platform_admin, category, tenant.client_id, viewShared=False)
    assert ids(by_key(http, tenant.client_id, key)) == []
    assert by_keys(http, tenant.client_id, key).json["data"] == {key: []}
    assert ids(by_key(http, other_tenant.client_id, key)) == [shared["contentId"]]
    # The default changing to false hides it from everyone without an override.
    response = http.patch(f"{CATEGORIES}/{category}", json={"defaultPermissions": {"viewShared": False}},
                          headers=platform_admin.headers)
    assert response.status_code == 200
    assert ids(by_key(http, other_tenant.client_id, key)) == []


def test_the_clients_own_items_ignore_view_shared(http, platform_admin, tenant, make_category):
    category = make_category(defaultPermissions={"viewShared": False, "publish": True})
    key = unique_key()
    own = create_item(http, tenant.admin, key=key, categoryKey=category)
    assert ids(by_key(http, tenant.client_id, key)) == [own["contentId"]]


def test_sharing_an_item_later_makes_it_visible_and_private_again_hides_it(http, tenant, operator_tenant):
    key = unique_key()
    item = create_item(http, operator_tenant.admin, key=key, categoryKey="help")
    assert ids(by_key(http, tenant.client_id, key)) == []
    url = f"/api/content/{item['contentId']}"
    assert http.patch(url, json={"visibility": "shared"}, headers=operator_tenant.admin.headers).status_code == 200
    assert ids(by_key(http, tenant.client_id, key)) == [item["contentId"]]
    assert http.patch(url, json={"visibility": "private"}, headers=operator_tenant.admin.headers).status_code == 200
    assert ids(by_key(http, tenant.client_id, key)) == []


# ------------------------------------------------------------------------------------ the active rule


def inactive_items(http, owner, **extra) -> dict[str, dict]:
    """A draft, an unpublished, a scheduled, an expired and a deleted item of `owner`, each with its own key."""
    now = clock.now()
    made = {
        "draft": create_item(http, owner, key=unique_key("draft"), publish=False, **extra),
        "unpublished": create_item(http, owner, key=unique_key("unpub"), **extra),
        "scheduled": create_item(http, owner, key=unique_key("sched"), publishAt=iso(now + dt.timedelta(days=1)),
                                 **extra),
        "expired": create_item(http, owner, key=unique_key("exp"), publishAt=iso(now - dt.timedelta(days=60)),
                               expiresAt=iso(now - dt.timedelta(days=30)), **extra),
        "deleted": create_item(http, owner, key=unique_key("del"), **extra),
    }
    response = http.post(f"/api/content/{made['unpublished']['contentId']}/unpublish", headers=owner.headers)
    assert response.status_code == 200 and response.json["content"]["status"] == "unpublished"
    assert http.delete(f"/api/content/{made['deleted']['contentId']}", headers=owner.headers).status_code == 200
    for name in ("draft", "scheduled", "expired"):
        assert made[name]["active"] is False, name
    return made


def test_inactive_items_are_absent_everywhere(http, tenant):
    made = inactive_items(http, tenant.admin)
    keys = [item["key"] for item in made.values()]
    for name, item in made.items():
        assert ids(by_key(http, tenant.client_id, item["key"])) == [], name
        response = by_id(http, item["contentId"])
        assert response.status_code == 404, name
        assert response.json == NOT_FOUND
    response = by_keys(http, tenant.client_id, ",".join(keys))
    assert response.status_code == 200
    assert response.json["data"] == {key: [] for key in keys}


def test_inactive_operator_shared_items_are_absent_for_clients_and_the_operator(http, tenant, operator_tenant):
    made = inactive_items(http, operator_tenant.admin, visibility="shared")
    for name, item in made.items():
        assert ids(by_key(http, tenant.client_id, item["key"])) == [], name
        assert ids(by_key(http, operator_tenant.client_id, item["key"])) == [], name
        assert by_id(http, item["contentId"]).status_code == 404, name


def test_a_deleted_key_can_be_reused_and_only_the_new_item_is_served(http, tenant):
    key = unique_key()
    old = create_item(http, tenant.admin, key=key, title={"en": "Old"})
    assert http.delete(f"/api/content/{old['contentId']}", headers=tenant.admin.headers).status_code == 200
    new = create_item(http, tenant.admin, key=key, title={"en": "New"})
    response = by_key(http, tenant.client_id, key)
    assert ids(response) == [new["contentId"]] and response.json["data"][0]["title"] == "New"
    assert by_id(http, old["contentId"]).json == NOT_FOUND


def test_republishing_an_unpublished_item_shows_it_again(http, tenant):
    key = unique_key()
    item = create_item(http, tenant.admin, key=key)
    url = f"/api/content/{item['contentId']}"
    assert http.post(f"{url}/unpublish", headers=tenant.admin.headers).status_code == 200
    assert by_id(http, item["contentId"]).status_code == 404
    assert http.post(f"{url}/publish", headers=tenant.admin.headers).status_code == 200
    assert ids(by_key(http, tenant.client_id, key)) == [item["contentId"]]
    assert by_id(http, item["contentId"]).json["data"]["version"] == 3


def test_a_scheduled_item_appears_at_publish_at_and_disappears_at_expires_at(http, tenant, other_tenant,
                                                                            operator_tenant):
    now = clock.now()
    window = {"publishAt": iso(now + dt.timedelta(hours=1)), "expiresAt": iso(now + dt.timedelta(hours=3))}
    key = unique_key()
    own = create_item(http, tenant.admin, key=key, **window)
    shared = create_item(http, operator_tenant.admin, key=key, visibility="shared", **window)
    assert ids(by_key(http, tenant.client_id, key)) == []
    assert by_id(http, own["contentId"]).status_code == 404

    clock.advance(dt.timedelta(hours=2))
    assert ids(by_key(http, tenant.client_id, key)) == [own["contentId"], shared["contentId"]]
    assert ids(by_key(http, other_tenant.client_id, key)) == [shared["contentId"]]
    response = by_id(http, own["contentId"])
    assert response.status_code == 200
    assert response.json["data"]["publishAt"] == window["publishAt"].replace("Z", ".000Z")
    assert response.json["data"]["expiresAt"] == window["expiresAt"].replace("Z", ".000Z")

    clock.advance(dt.timedelta(hours=2))
    assert ids(by_key(http, tenant.client_id, key)) == []
    assert by_keys(http, tenant.client_id, key).json["data"] == {key: []}
    assert by_id(http, own["contentId"]).json == NOT_FOUND
    assert by_id(http, shared["contentId"]).status_code == 404


# ------------------------------------------------------------------------------------ several keys (8)


def test_every_requested_key_is_in_the_map_in_order(http, tenant):
    first, second, missing = unique_key("a"), unique_key("b"), unique_key("c")
    one = create_item(http, tenant.admin, key=first)
    two = create_item(http, tenant.admin, key=second)
    response = by_keys(http, tenant.client_id, f" {second} ,{missing},{first},{second}, {first} ,")
    assert response.status_code == 200
    assert response.json["success"] is True and response.json["locale"] == "en"
    data = response.json["data"]
    assert list(data) == [second, missing, first]  # trimmed, duplicates collapsed, empty entries dropped
    assert [i["contentId"] for i in data[first]] == [one["contentId"]]
    assert [i["contentId"] for i in data[second]] == [two["contentId"]]
    assert data[missing] == []


def test_ten_keys_are_allowed_eleven_are_not(http, tenant):
    keys = [unique_key(str(n)) for n in range(11)]
    item = create_item(http, tenant.admin, key=keys[9])
    response = by_keys(http, tenant.client_id, ",".join(keys[:10]))
    assert response.status_code == 200
    assert list(response.json["data"]) == keys[:10]
    assert [i["contentId"] for i in response.json["data"][keys[9]]] == [item["contentId"]]
    # Duplicates count once.
    response = by_keys(http, tenant.client_id, ",".join(keys[:10] + keys[:5]))
    assert response.status_code == 200 and len(response.json["data"]) == 10
    response = by_keys(http, tenant.client_id, ",".join(keys))
    assert response.status_code == 400
    assert response.json == {"error": service.TOO_MANY_KEYS}
    assert response.headers["Cache-Control"] != CACHED and "Vary" not in response.headers


@pytest.mark.parametrize("keys", ["", " ", ",", " , ,, "])
def test_empty_keys_are_400(http, tenant, keys):
    response = by_keys(http, tenant.client_id, keys)
    assert response.status_code == 400
    assert response.json == {"error": service.KEYS_REQUIRED}


def test_missing_keys_is_400_keys_required(http, tenant):
    response = http.get(f"/api/client/{tenant.client_id}/content/public")
    assert response.status_code == 400
    assert response.json == {"error": service.KEYS_REQUIRED}


def test_missing_keys_is_400(http, tenant):
    response = http.get(f"/api/client/{tenant.client_id}/content/public")
    assert response.status_code == 400 and set(response.json) == {"error"}
    assert "keys" in response.json["error"]


def test_a_very_long_key_is_in_the_map_with_no_items(http, tenant):
    long_key = "k" * 150
    response = by_keys(http, tenant.client_id, f"{long_key},short")
    assert response.status_code == 200
    assert response.json["data"] == {long_key: [], "short": []}


# ------------------------------------------------------------------------------------ unknown things


@pytest.mark.parametrize("client_id", ["no-such-client", "bad..id", "__x__", "a%20b", "x" * 65])
def test_unknown_or_malformed_client_is_404(http, client_id):
    for response in (by_key(http, client_id, "welcome"), by_keys(http, client_id, "welcome,terms")):
        assert response.status_code == 404
        assert response.json == CLIENT_NOT_FOUND
        assert response.headers["Cache-Control"] != CACHED
        assert "Vary" not in response.headers


@pytest.mark.parametrize("content_id", ["no-such-content", "bad..id", "__x__", "a%20b"])
def test_unknown_or_malformed_content_id_is_404(http, content_id):
    response = by_id(http, content_id)
    assert response.status_code == 404
    assert response.json == NOT_FOUND
    assert response.headers["Cache-Control"] != CACHED and "Vary" not in response.headers


def test_unknown_key_of_a_known_client_is_an_empty_list(http, tenant):
    response = by_key(http, tenant.client_id, unique_key())
    assert response.status_code == 200
    assert response.json == {"success": True, "locale": "en", "data": []}


# ------------------------------------------------------------------------------------ credentials and caching


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer garbage"}, {"Authorization": "Basic Zm9vOmJhcg=="}])
def test_no_credentials_are_needed(http, tenant, other_tenant, headers):
    key = unique_key()
    item = create_item(http, tenant.admin, key=key)
    assert ids(by_key(http, tenant.client_id, key, headers=headers)) == [item["contentId"]]
    assert by_keys(http, tenant.client_id, key, headers=headers).status_code == 200
    assert by_id(http, item["contentId"], headers=headers).status_code == 200
    # Another client's member's token changes nothing either.
    assert ids(by_key(http, tenant.client_id, key, headers=other_tenant.player.headers)) == [item["contentId"]]


def test_public_reads_are_cacheable_and_vary_by_language(http, tenant):
    key = unique_key()
    item = create_item(http, tenant.admin, key=key)
    for response in (by_key(http, tenant.client_id, key), by_keys(http, tenant.client_id, key),
                     by_id(http, item["contentId"]), by_key(http, tenant.client_id, unique_key())):
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == CACHED
        assert response.headers["Vary"] == "Accept-Language"
        assert response.headers["x-request-id"]
    # Errors are not cached.
    for response in (by_key(http, tenant.client_id, key, query_string={"lang": "fr"}),
                     by_keys(http, tenant.client_id, ""), by_id(http, "no-such-content"),
                     by_key(http, "no-such-client", key)):
        assert response.status_code in (400, 404)
        assert response.headers["Cache-Control"] == "no-store"
        assert "Vary" not in response.headers


def test_admin_reads_are_not_publicly_cacheable(http, tenant):
    item = create_item(http, tenant.admin, key=unique_key())
    response = http.get(f"/api/content/{item['contentId']}", headers=tenant.admin.headers)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store" and "Vary" not in response.headers


# ------------------------------------------------------------------------------------ legacy items (9.5)


def write_legacy(owner_client_id: str, key: str, **fields) -> str:
    content_id = repository.new_content_id()
    published = clock.now() - dt.timedelta(days=400)
    repository.item_ref(content_id).set({
        "contentId": content_id, "ownerClientId": owner_client_id, "key": key, "categoryKey": "legal",
        "visibility": "private", "status": "published", "deleted": False, "title": "Terms of Service",
        "body": "# Terms\n\nBe nice.", "publishAt": published, "expiresAt": None, **fields})
    return content_id


@pytest.mark.parametrize("lang", [None, "en", "zh-Hant", "zh-Hans"])
def test_legacy_single_string_fields_read_as_en(http, tenant, lang):
    key = unique_key("terms")
    content_id = write_legacy(tenant.client_id, key)
    query = {"lang": lang} if lang else {}
    response = by_id(http, content_id, query_string=query)
    assert response.status_code == 200, response.json
    assert response.json["locale"] == (lang or "en")
    item = response.json["data"]
    assert set(item) == PUBLIC_FIELDS
    assert item["locale"] == "en"
    assert item["title"] == "Terms of Service" and item["body"] == "# Terms\n\nBe nice."
    assert item["version"] == 1
    assert isinstance(item["versionId"], str) and item["versionId"]
    assert item["format"] == "markdown" and item["metadata"] == {} and item["expiresAt"] is None
    response = by_key(http, tenant.client_id, key, query_string=query)
    assert response.status_code == 200
    assert [i["title"] for i in response.json["data"]] == ["Terms of Service"]
    assert response.json["data"][0]["clientId"] == tenant.client_id
    assert response.json["data"][0]["version"] == 1
    response = by_keys(http, tenant.client_id, key, query_string=query)
    assert response.status_code == 200 and response.json["data"][key][0]["body"] == "# Terms\n\nBe nice."


def test_legacy_item_without_publish_at_reads_its_creation_time(http, tenant):
    key = unique_key("legacy")
    created = dt.datetime(2023, 5, 6, 7, 8, 9, tzinfo=dt.UTC)
    content_id = write_legacy(tenant.client_id, key, publishAt=None, createdAt=created, version=4,
                              versionId="legacy-v4", format="plain")
    item = by_id(http, content_id).json["data"]
    assert item["publishAt"] == "2023-05-06T07:08:09.000Z"
    assert item["version"] == 4 and item["versionId"] == "legacy-v4" and item["format"] == "plain"
    assert ids(by_key(http, tenant.client_id, key)) == [content_id]


def test_legacy_operator_shared_item_reaches_clients(http, tenant, operator_tenant):
    key = unique_key("legacy")
    content_id = write_legacy(operator_tenant.client_id, key, visibility="shared",
                              title={"en": "Mixed", "zh-Hant": "混合"}, body="Only English")
    response = by_key(http, tenant.client_id, key, query_string={"lang": "zh-Hant"})
    assert response.status_code == 200
    item = response.json["data"][0]
    assert item["contentId"] == content_id
    # The zh-Hant title, and the legacy body (en) as it is: each field falls back on its own.
    assert item["locale"] == "zh-Hant" and item["title"] == "混合" and item["body"] == "Only English"
