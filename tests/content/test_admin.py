"""The administrators' content API (designed here; the spec's 4.4 shows only the reads): create, change, version
history, publish and unpublish, delete, list; who may do what; concurrent changes of one item."""

import datetime as dt
import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from google.cloud.firestore import FieldFilter

from tests.content.conftest import ADMIN, create_item
from wellness_api.content import repository as repo
from wellness_api.content import service
from wellness_api.content.models import CATEGORY_KEY_PATTERN, KEY_PATTERN
from wellness_api.content.routes import app
from wellness_api.core import auth, clock, firebase
from wellness_api.core.errors import MALFORMED_JSON

TEXTS = {"en": "Hello", "zh-Hant": "你好", "zh-Hans": "你好呀"}
ADMIN_FIELDS = {"contentId", "ownerClientId", "key", "categoryKey", "visibility", "status", "active", "version",
                "versionId", "name", "description", "title", "body", "format", "publishAt", "expiresAt", "metadata",
                "createdAt", "updatedAt", "createdBy", "updatedBy"}


def unique(prefix: str = "k") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def iso(delta: dt.timedelta = dt.timedelta(0)) -> str:
    return clock.iso(clock.now() + delta)


def stored_versions(content_id: str) -> list[dict]:
    return [snap.to_dict() for snap in firebase.db().collection(f"{repo.ITEMS}/{content_id}/{repo.VERSIONS}").stream()]


def public_keys(http, client_id: str, key: str) -> list[dict]:
    response = http.get(f"/api/client/{client_id}/content/public/{key}")
    assert response.status_code == 200, response.json
    return response.json["data"]


def get(http, member, content_id: str) -> dict:
    response = http.get(f"{ADMIN}/{content_id}", headers=member.headers)
    assert response.status_code == 200, response.json
    return response.json["content"]


def error(response, status: int, message: str) -> None:
    assert response.status_code == status, response.json
    assert response.json == {"error": message}


# ------------------------------------------------------------------------------------ create


def test_create_answers_the_admin_form_with_every_language(http, tenant):
    body = {"key": "welcome.2027_v-1", "categoryKey": "announcements", "title": TEXTS,
            "body": {"en": "Line one\n\nLine **two**", "zh-Hans": "第一行"},
            "name": {"en": "Welcome", "zh-Hant": "歡迎"}, "description": {"en": "Shown on the home screen.\nTwice."},
            "format": "plain", "expiresAt": "2099-01-01T00:00:00+08:00",
            "metadata": {"actionUrl": "https://demo.example/classes", "actionLabel": "See classes", "priority": 2,
                         "pinned": True, "weight": 0.5, "note": None}}
    response = http.post(ADMIN, json=body, headers=tenant.admin.headers)
    assert response.status_code == 201, response.json
    assert set(response.json) == {"success", "content"} and response.json["success"] is True
    content = response.json["content"]
    assert set(content) == ADMIN_FIELDS
    # every language in the stored order (en, zh-Hant, zh-Hans), whatever order they were sent in
    assert list(content["title"]) == ["en", "zh-Hant", "zh-Hans"]
    assert {k: content[k] for k in ADMIN_FIELDS - {"contentId", "versionId", "publishAt", "createdAt",
                                                   "updatedAt"}} == {
        "ownerClientId": tenant.client_id, "key": "welcome.2027_v-1", "categoryKey": "announcements",
        "visibility": "private", "status": "published", "active": True, "version": 1,
        "name": {"en": "Welcome", "zh-Hant": "歡迎"}, "description": {"en": "Shown on the home screen.\nTwice."},
        "title": TEXTS, "body": {"en": "Line one\n\nLine **two**", "zh-Hans": "第一行"}, "format": "plain",
        "expiresAt": "2098-12-31T16:00:00.000Z", "metadata": body["metadata"],
        "createdBy": tenant.admin.uid, "updatedBy": tenant.admin.uid}
    assert content["versionId"] and content["versionId"] != content["contentId"]
    assert content["publishAt"] == content["createdAt"] == content["updatedAt"]
    assert content["publishAt"].endswith("Z")
    assert get(http, tenant.admin, content["contentId"]) == content
    # what apps read: resolved to one language
    seen = public_keys(http, tenant.client_id, "welcome.2027_v-1")
    assert [(i["contentId"], i["versionId"], i["title"]) for i in seen] == [
        (content["contentId"], content["versionId"], "Hello")]
    # the item and its first version are stored
    versions = stored_versions(content["contentId"])
    assert [(v["version"], v["versionId"]) for v in versions] == [(1, content["versionId"])]


def test_create_defaults_and_draft(http, tenant):
    content = create_item(http, tenant.admin, key="draft", publish=False)
    assert content["status"] == "draft" and content["active"] is False and content["version"] == 1
    assert content["visibility"] == "private" and content["format"] == "markdown"
    assert content["name"] is None and content["description"] is None and content["metadata"] == {}
    assert content["expiresAt"] is None
    assert public_keys(http, tenant.client_id, "draft") == []
    assert http.get(f"/api/content/{content['contentId']}/public").status_code == 404


INVALID = [
    ({"title": {"zh-Hant": "你好"}}, "Invalid field title: en is required."),
    ({"title": {"en": "Hello", "fr": "Bonjour"}}, "Invalid field title: unknown language fr: use en, zh-Hant or "
                                                  "zh-Hans."),
    ({"body": {"en": "   "}}, "Invalid field body: en is required."),
    ({"body": {"en": "Body", "zh-Hant": ""}}, "Invalid field body: zh-Hant must be 1 to 100000 characters."),
    ({"title": {"en": "x" * 201}}, "Invalid field title: en must be 1 to 200 characters."),
    ({"title": {"en": "two\nlines"}}, "Invalid field title: must be one line without control characters."),
    ({"title": "Hello"}, "Invalid field title: Input should be a valid dictionary."),
    ({"key": "-starts-with-dash"}, f"Invalid field key: String should match pattern '{KEY_PATTERN}'."),
    ({"key": "a/b"}, f"Invalid field key: String should match pattern '{KEY_PATTERN}'."),
    ({"key": "k" * 101}, f"Invalid field key: String should match pattern '{KEY_PATTERN}'."),
    ({"categoryKey": "Legal"}, f"Invalid field categoryKey: String should match pattern '{CATEGORY_KEY_PATTERN}'."),
    ({"categoryKey": "no-such-category"}, service.UNKNOWN_CATEGORY),
    ({"colour": "red"}, "Unknown field: colour."),
    ({"key": None}, "Invalid field key: Input should be a valid string."),
    ({"metadata": {"actionUrl": "javascript:alert(1)"}},
     "Invalid field metadata: actionUrl must be an https URL or a path starting with /."),
    ({"metadata": {"actionUrl": "http://demo.example/x"}},
     "Invalid field metadata: actionUrl must be an https URL or a path starting with /."),
    ({"metadata": {f"m{i}": i for i in range(21)}}, "Invalid field metadata: at most 20 entries."),
    ({"metadata": {"1st": "x"}}, "Invalid field metadata: 1st is not a metadata name (letters, digits, _)."),
    ({"format": "html"}, "Invalid field format: Input should be 'markdown' or 'plain'."),
    ({"publish": "yes"}, "Invalid field publish: Input should be a valid boolean."),
    ({"publishAt": "2030-01-01T09:00:00"}, "Invalid field publishAt: must be an ISO 8601 time with a time zone."),
    ({"publishAt": "next tuesday"}, "Invalid field publishAt: must be an ISO 8601 time with a time zone."),
    ({"expiresAt": "2030-01-01"}, "Invalid field expiresAt: must be an ISO 8601 time with a time zone."),
    ({"publishAt": "2030-01-01T09:00:00Z", "expiresAt": "2030-01-01T09:00:00Z"}, service.EXPIRES_BEFORE_PUBLISH),
    ({"publishAt": "2030-01-01T09:00:00Z", "expiresAt": "2030-01-01T10:00:00+02:00"},
     service.EXPIRES_BEFORE_PUBLISH),
    ({"expiresAt": "2001-01-01T00:00:00Z"}, service.EXPIRES_BEFORE_PUBLISH),
]


def test_invalid_bodies_are_400_and_create_nothing(http, tenant):
    base = {"key": "bad", "categoryKey": "legal", "title": {"en": "T"}, "body": {"en": "B"}}
    for change, message in INVALID:
        response = http.post(ADMIN, json={**base, **change}, headers=tenant.admin.headers)
        assert response.status_code == 400, (change, response.json)
        assert response.json == {"error": message}, change
    missing = {k: v for k, v in base.items() if k != "title"}
    error(http.post(ADMIN, json=missing, headers=tenant.admin.headers), 400, "Missing required field: title.")
    # NaN is not JSON
    raw = json.dumps(base)[:-1] + ', "metadata": {"score": NaN}}'
    error(http.post(ADMIN, data=raw, content_type="application/json", headers=tenant.admin.headers), 400,
          MALFORMED_JSON)
    listing = http.get(ADMIN, headers=tenant.admin.headers)
    assert listing.status_code == 200 and listing.json["data"] == []
    assert repo.read(None, repo.key_ref(tenant.client_id, "bad")) is None


def test_only_the_operator_shares(http, tenant, operator_tenant, make_tenant):
    error(http.post(ADMIN, json={"key": "s", "categoryKey": "legal", "title": {"en": "T"}, "body": {"en": "B"},
                                 "visibility": "shared"}, headers=tenant.admin.headers), 400,
          service.ONLY_OPERATOR_SHARES)
    assert http.get(ADMIN, headers=tenant.admin.headers).json["data"] == []
    mine = create_item(http, tenant.admin, key="s")
    before = repo.get_item(mine["contentId"])
    error(http.patch(f"{ADMIN}/{mine['contentId']}", json={"visibility": "shared"}, headers=tenant.admin.headers),
          400, service.ONLY_OPERATOR_SHARES)
    assert repo.get_item(mine["contentId"]) == before

    # the operator's shared item reaches other clients; its private one does not
    key = unique("op-shared")
    shared = create_item(http, operator_tenant.admin, key=key, visibility="shared", title={"en": "For all"})
    assert shared["visibility"] == "shared" and shared["ownerClientId"] == operator_tenant.client_id
    reader = make_tenant()
    seen = public_keys(http, reader.client_id, key)
    assert [(i["contentId"], i["ownerClientId"], i["clientId"]) for i in seen] == [
        (shared["contentId"], operator_tenant.client_id, reader.client_id)]
    hidden = http.patch(f"{ADMIN}/{shared['contentId']}", json={"visibility": "private"},
                        headers=operator_tenant.admin.headers)
    assert hidden.status_code == 200 and hidden.json["content"]["visibility"] == "private"
    assert public_keys(http, reader.client_id, key) == []
    assert [i["contentId"] for i in public_keys(http, operator_tenant.client_id, key)] == [shared["contentId"]]


def test_keys_are_unique_per_client(http, tenant, other_tenant):
    first = create_item(http, tenant.admin, key="faq", categoryKey="help")
    error(http.post(ADMIN, json={"key": "faq", "categoryKey": "legal", "title": {"en": "Again"}, "body": {"en": "B"}},
                    headers=tenant.admin.headers), 409, service.KEY_TAKEN)
    assert [i["contentId"] for i in http.get(ADMIN, headers=tenant.admin.headers).json["data"]] == [
        first["contentId"]]
    theirs = create_item(http, other_tenant.admin, key="faq", categoryKey="help")
    assert theirs["contentId"] != first["contentId"] and theirs["ownerClientId"] == other_tenant.client_id
    assert [i["contentId"] for i in public_keys(http, tenant.client_id, "faq")] == [first["contentId"]]
    assert [i["contentId"] for i in public_keys(http, other_tenant.client_id, "faq")] == [theirs["contentId"]]


# ------------------------------------------------------------------------------------ change and history


def test_patch_publishes_a_new_version_with_the_fields_replaced(http, tenant):
    item = create_item(http, tenant.admin, key="news", title=TEXTS, body={"en": "Old", "zh-Hant": "舊"},
                       name={"en": "News"}, description={"en": "About"}, expiresAt="2099-01-01T00:00:00Z",
                       metadata={"actionLabel": "Open"})
    url = f"{ADMIN}/{item['contentId']}"
    changed = http.patch(url, json={"title": {"en": "New title"}, "format": "plain", "categoryKey": "help",
                                    "metadata": {"actionUrl": "/lessons/x"}}, headers=tenant.admin.headers)
    assert changed.status_code == 200, changed.json
    second = changed.json["content"]
    assert second["version"] == 2 and second["versionId"] not in (item["versionId"], None)
    assert second["contentId"] == item["contentId"] and second["key"] == "news"
    # a multilingual field is replaced as a whole; the fields not sent are kept
    assert second["title"] == {"en": "New title"} and second["body"] == {"en": "Old", "zh-Hant": "舊"}
    assert second["format"] == "plain" and second["categoryKey"] == "help"
    assert second["metadata"] == {"actionUrl": "/lessons/x"}
    assert second["name"] == {"en": "News"} and second["expiresAt"] == "2099-01-01T00:00:00.000Z"
    assert second["createdAt"] == item["createdAt"] and second["publishAt"] == item["publishAt"]
    assert second["createdBy"] == second["updatedBy"] == tenant.admin.uid
    assert second["status"] == "published" and second["active"] is True
    assert public_keys(http, tenant.client_id, "news")[0]["title"] == "New title"

    cleared = http.patch(url, json={"name": None, "description": None, "expiresAt": None, "metadata": None},
                         headers=tenant.admin.headers)
    assert cleared.status_code == 200, cleared.json
    third = cleared.json["content"]
    assert third["version"] == 3 and len({item["versionId"], second["versionId"], third["versionId"]}) == 3
    assert (third["name"], third["description"], third["expiresAt"], third["metadata"]) == (None, None, None, {})
    assert third["title"] == {"en": "New title"}
    assert get(http, tenant.admin, item["contentId"]) == third

    before = repo.get_item(item["contentId"])
    for field in ("title", "body", "categoryKey", "format", "visibility", "publishAt"):
        error(http.patch(url, json={field: None}, headers=tenant.admin.headers), 400,
              f"Invalid field {field}: must not be null.")
    error(http.patch(url, json={}, headers=tenant.admin.headers), 400, service.NOTHING_TO_UPDATE)
    error(http.patch(url, json={"key": "renamed"}, headers=tenant.admin.headers), 400, "Unknown field: key.")
    error(http.patch(url, json={"categoryKey": "no-such-category"}, headers=tenant.admin.headers), 400,
          service.UNKNOWN_CATEGORY)
    error(http.patch(url, json={"expiresAt": "2001-01-01T00:00:00Z"}, headers=tenant.admin.headers), 400,
          service.EXPIRES_BEFORE_PUBLISH)
    error(http.patch(url, json={"title": {"fr": "Bonjour"}}, headers=tenant.admin.headers), 400,
          "Invalid field title: unknown language fr: use en, zh-Hant or zh-Hans.")
    assert repo.get_item(item["contentId"]) == before
    assert len(stored_versions(item["contentId"])) == 3


def test_versions_newest_first_with_pages_and_past_states(http, tenant):
    item = create_item(http, tenant.admin, key="policy", categoryKey="legal", title={"en": "v1"})
    url = f"{ADMIN}/{item['contentId']}"
    ids = [item["versionId"]]
    for n in range(2, 6):
        response = http.patch(url, json={"title": {"en": f"v{n}"}}, headers=tenant.admin.headers)
        assert response.status_code == 200 and response.json["content"]["version"] == n
        ids.append(response.json["content"]["versionId"])
    assert len(set(ids)) == 5

    everything = http.get(f"{url}/versions", headers=tenant.admin.headers)
    assert everything.status_code == 200 and everything.json["nextStartAfter"] is None
    assert [v["version"] for v in everything.json["data"]] == [5, 4, 3, 2, 1]
    assert [v["versionId"] for v in everything.json["data"]] == ids[::-1]
    first = everything.json["data"][-1]
    assert first == {"version": 1, "versionId": ids[0], "status": "published", "title": {"en": "v1"},
                     "createdAt": item["createdAt"], "createdBy": tenant.admin.uid}

    pages, cursor = [], ""
    while True:
        page = http.get(f"{url}/versions?limit=2{cursor}", headers=tenant.admin.headers)
        assert page.status_code == 200, page.json
        pages.append([v["version"] for v in page.json["data"]])
        if page.json["nextStartAfter"] is None:
            break
        assert page.json["nextStartAfter"] == pages[-1][-1]
        cursor = f"&startAfter={page.json['nextStartAfter']}"
    assert pages == [[5, 4], [3, 2], [1]]
    for query in ("limit=0", "limit=101", "startAfter=0", "limit=two"):
        assert http.get(f"{url}/versions?{query}", headers=tenant.admin.headers).status_code == 400, query

    past = http.get(f"{url}/versions/{ids[1]}", headers=tenant.admin.headers)
    assert past.status_code == 200, past.json
    assert past.json["content"]["version"] == 2 and past.json["content"]["title"] == {"en": "v2"}
    assert past.json["content"]["versionId"] == ids[1] and set(past.json["content"]) == ADMIN_FIELDS
    assert get(http, tenant.admin, item["contentId"])["title"] == {"en": "v5"}
    error(http.get(f"{url}/versions/no-such-version", headers=tenant.admin.headers), 404, service.VERSION_NOT_FOUND)
    other = create_item(http, tenant.admin, key="other")
    error(http.get(f"{url}/versions/{other['versionId']}", headers=tenant.admin.headers), 404,
          service.VERSION_NOT_FOUND)


def test_publish_schedule_and_unpublish(http, tenant):
    item = create_item(http, tenant.admin, key="promo", publish=False)
    url = f"{ADMIN}/{item['contentId']}"
    at = iso(dt.timedelta(hours=1))
    scheduled = http.post(f"{url}/publish", json={"publishAt": at}, headers=tenant.admin.headers)
    assert scheduled.status_code == 200, scheduled.json
    content = scheduled.json["content"]
    assert (content["status"], content["active"], content["version"], content["publishAt"]) == (
        "published", False, 2, at)
    assert content["versionId"] != item["versionId"]
    assert public_keys(http, tenant.client_id, "promo") == []
    assert http.get(f"/api/content/{item['contentId']}/public").status_code == 404

    clock.advance(dt.timedelta(hours=1, seconds=1))
    assert get(http, tenant.admin, item["contentId"])["active"] is True
    assert [i["version"] for i in public_keys(http, tenant.client_id, "promo")] == [2]

    error(http.post(f"{url}/publish", json={"publishAt": iso(), "expiresAt": iso(-dt.timedelta(hours=1))},
                    headers=tenant.admin.headers), 400, service.EXPIRES_BEFORE_PUBLISH)
    error(http.post(f"{url}/publish", json={"when": "now"}, headers=tenant.admin.headers), 400,
          "Unknown field: when.")

    down = http.post(f"{url}/unpublish", headers=tenant.admin.headers)
    assert down.status_code == 200, down.json
    assert (down.json["content"]["status"], down.json["content"]["active"], down.json["content"]["version"]) == (
        "unpublished", False, 3)
    assert public_keys(http, tenant.client_id, "promo") == []
    assert http.get(f"/api/content/{item['contentId']}/public").status_code == 404
    # still the admin's: listed, and can be published again, now (an empty body)
    assert [i["status"] for i in http.get(ADMIN, headers=tenant.admin.headers).json["data"]] == ["unpublished"]
    up = http.post(f"{url}/publish", headers=tenant.admin.headers)
    assert up.status_code == 200, up.json
    content = up.json["content"]
    assert (content["status"], content["active"], content["version"]) == ("published", True, 4)
    assert content["publishAt"] == content["updatedAt"]
    assert [i["version"] for i in public_keys(http, tenant.client_id, "promo")] == [4]
    versions = http.get(f"{url}/versions", headers=tenant.admin.headers).json["data"]
    assert [(v["version"], v["status"]) for v in versions] == [
        (4, "published"), (3, "unpublished"), (2, "published"), (1, "draft")]


def test_publish_a_draft_now_with_an_empty_body(http, tenant):
    item = create_item(http, tenant.admin, key="later", publish=False)
    up = http.post(f"{ADMIN}/{item['contentId']}/publish", json={}, headers=tenant.admin.headers)
    assert up.status_code == 200, up.json
    assert (up.json["content"]["status"], up.json["content"]["active"], up.json["content"]["version"]) == (
        "published", True, 2)
    assert [i["contentId"] for i in public_keys(http, tenant.client_id, "later")] == [item["contentId"]]


def test_delete_frees_the_key_and_keeps_the_history(http, tenant):
    item = create_item(http, tenant.admin, key="gone", title={"en": "v1"})
    url = f"{ADMIN}/{item['contentId']}"
    assert http.patch(url, json={"title": {"en": "v2"}}, headers=tenant.admin.headers).status_code == 200
    deleted = http.delete(url, headers=tenant.admin.headers)
    assert deleted.status_code == 200 and deleted.json == {"success": True}
    for response in (http.get(url, headers=tenant.admin.headers),
                     http.get(f"{url}/versions", headers=tenant.admin.headers),
                     http.patch(url, json={"title": {"en": "v3"}}, headers=tenant.admin.headers),
                     http.post(f"{url}/publish", headers=tenant.admin.headers),
                     http.delete(url, headers=tenant.admin.headers)):
        error(response, 404, service.CONTENT_NOT_FOUND)
    assert public_keys(http, tenant.client_id, "gone") == []
    assert http.get(f"/api/content/{item['contentId']}/public").status_code == 404
    assert http.get(ADMIN, headers=tenant.admin.headers).json["data"] == []
    # the history stays in Firestore
    assert sorted((v["version"], v["title"]["en"]) for v in stored_versions(item["contentId"])) == [
        (1, "v1"), (2, "v2")]
    stored = repo.get_item(item["contentId"])
    assert stored["deleted"] is True and stored["status"] == "deleted"
    # the key is free again: a new item
    again = create_item(http, tenant.admin, key="gone", title={"en": "new"})
    assert again["contentId"] != item["contentId"] and again["version"] == 1
    assert [i["title"] for i in public_keys(http, tenant.client_id, "gone")] == ["new"]


def test_list_own_items_by_key_with_filter_and_pages(http, tenant, other_tenant):
    made = {key: create_item(http, tenant.admin, key=key, categoryKey=category, publish=key != "d-draft")
            for key, category in [("c-help", "help"), ("a-legal", "legal"), ("e-legal", "legal"),
                                  ("d-draft", "legal"), ("b-gone", "legal")]}
    assert http.delete(f"{ADMIN}/{made['b-gone']['contentId']}", headers=tenant.admin.headers).status_code == 200
    create_item(http, other_tenant.admin, key="a-theirs")

    listing = http.get(ADMIN, headers=tenant.admin.headers)
    assert listing.status_code == 200 and listing.json["nextStartAfter"] is None
    assert [i["key"] for i in listing.json["data"]] == ["a-legal", "c-help", "d-draft", "e-legal"]
    assert all(set(i) == ADMIN_FIELDS and i["ownerClientId"] == tenant.client_id for i in listing.json["data"])
    assert listing.json["data"][2]["status"] == "draft"
    legal = http.get(f"{ADMIN}?categoryKey=legal", headers=tenant.admin.headers).json
    assert [i["key"] for i in legal["data"]] == ["a-legal", "d-draft", "e-legal"]

    page1 = http.get(f"{ADMIN}?limit=2", headers=tenant.admin.headers).json
    assert [i["key"] for i in page1["data"]] == ["a-legal", "c-help"] and page1["nextStartAfter"] == "c-help"
    page2 = http.get(f"{ADMIN}?limit=2&startAfter=c-help", headers=tenant.admin.headers).json
    assert [i["key"] for i in page2["data"]] == ["d-draft", "e-legal"] and page2["nextStartAfter"] is None
    page = http.get(f"{ADMIN}?limit=1&categoryKey=legal&startAfter=a-legal", headers=tenant.admin.headers).json
    assert [i["key"] for i in page["data"]] == ["d-draft"] and page["nextStartAfter"] == "d-draft"
    assert http.get(f"{ADMIN}?limit=100", headers=tenant.admin.headers).status_code == 200
    error(http.get(f"{ADMIN}?limit=0", headers=tenant.admin.headers), 400,
          "Invalid field limit: Input should be greater than or equal to 1.")
    error(http.get(f"{ADMIN}?limit=101", headers=tenant.admin.headers), 400,
          "Invalid field limit: Input should be less than or equal to 100.")
    assert [i["key"] for i in http.get(ADMIN, headers=other_tenant.admin.headers).json["data"]] == ["a-theirs"]


# ------------------------------------------------------------------------------------ who


def test_admin_endpoints_need_an_admin(http, tenant):
    item = create_item(http, tenant.admin, key="guarded")
    url = f"{ADMIN}/{item['contentId']}"
    calls = [("get", ADMIN, None), ("post", ADMIN, {"key": "x", "categoryKey": "legal", "title": {"en": "T"},
                                                    "body": {"en": "B"}}),
             ("get", url, None), ("patch", url, {"title": {"en": "X"}}), ("delete", url, None),
             ("post", f"{url}/publish", {}), ("post", f"{url}/unpublish", None), ("get", f"{url}/versions", None),
             ("get", f"{url}/versions/{item['versionId']}", None)]
    for method, path, body in calls:
        error(getattr(http, method)(path, json=body), 401, auth.MISSING_AUTH)
        error(getattr(http, method)(path, json=body, headers={"Authorization": "Bearer not-a-token"}), 401,
              auth.INVALID_TOKEN)
        error(getattr(http, method)(path, json=body, headers=tenant.player.headers), 403, service.ADMIN_REQUIRED)
    assert get(http, tenant.admin, item["contentId"]) == item


def test_another_clients_admin_cannot_see_or_change_an_item(http, tenant, other_tenant, platform_admin):
    item = create_item(http, tenant.admin, key="mine", title={"en": "Mine"})
    url = f"{ADMIN}/{item['contentId']}"
    before, history = repo.get_item(item["contentId"]), stored_versions(item["contentId"])
    for intruder in (other_tenant.admin, platform_admin):
        for response in (http.get(url, headers=intruder.headers),
                         http.patch(url, json={"title": {"en": "Theirs"}}, headers=intruder.headers),
                         http.post(f"{url}/publish", json={"publishAt": iso(dt.timedelta(days=1))},
                                   headers=intruder.headers),
                         http.post(f"{url}/unpublish", headers=intruder.headers),
                         http.get(f"{url}/versions", headers=intruder.headers),
                         http.get(f"{url}/versions/{item['versionId']}", headers=intruder.headers),
                         http.delete(url, headers=intruder.headers)):
            error(response, 404, service.CONTENT_NOT_FOUND)
        keys = [i["key"] for i in http.get(ADMIN, headers=intruder.headers).json["data"]]
        assert "mine" not in keys
    assert repo.get_item(item["contentId"]) == before
    assert stored_versions(item["contentId"]) == history
    assert get(http, tenant.admin, item["contentId"]) == item
    assert [i["title"] for i in public_keys(http, tenant.client_id, "mine")] == ["Mine"]


def test_platform_admin_manages_only_operator_items(http, operator_tenant, tenant):
    key = unique("op")
    item = create_item(http, operator_tenant.admin, key=key, categoryKey="other")
    assert item["ownerClientId"] == operator_tenant.client_id and item["createdBy"] == operator_tenant.admin.uid
    url = f"{ADMIN}/{item['contentId']}"
    changed = http.patch(url, json={"visibility": "shared"}, headers=operator_tenant.admin.headers)
    assert changed.status_code == 200 and changed.json["content"]["version"] == 2
    listing = http.get(f"{ADMIN}?limit=100&startAfter={key[:-1]}", headers=operator_tenant.admin.headers).json
    assert listing["data"][0]["contentId"] == item["contentId"]
    assert {i["ownerClientId"] for i in listing["data"]} == {operator_tenant.client_id}
    # a client's admin cannot reach the operator's item either, shared or not
    error(http.get(url, headers=tenant.admin.headers), 404, service.CONTENT_NOT_FOUND)
    assert http.delete(url, headers=operator_tenant.admin.headers).status_code == 200


# ------------------------------------------------------------------------------------ concurrency


def test_concurrent_patches_make_one_version_each(http, tenant):
    item = create_item(http, tenant.admin, key="busy", title={"en": "v1"})
    url = f"{ADMIN}/{item['contentId']}"
    headers = tenant.admin.headers  # the token is fetched once, before the threads

    def patch(n: int) -> int:
        return app.test_client().patch(url, json={"title": {"en": f"change {n}"}}, headers=headers).status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(patch, range(10)))
    assert set(statuses) <= {200, 503}, statuses
    done = statuses.count(200)
    assert done >= 1
    final = get(http, tenant.admin, item["contentId"])
    assert final["version"] == 1 + done
    versions = sorted(v["version"] for v in stored_versions(item["contentId"]))
    assert versions == list(range(1, done + 2))
    titles = {v["version"]: v["title"]["en"] for v in stored_versions(item["contentId"])}
    assert titles[1] == "v1" and final["title"]["en"] == titles[done + 1]
    assert len({titles[n] for n in range(2, done + 2)}) == done  # each change is its own version


def test_concurrent_creates_with_one_key_make_one_item(tenant):
    headers = tenant.admin.headers

    def post(n: int) -> int:
        body = {"key": "race", "categoryKey": "legal", "title": {"en": f"try {n}"}, "body": {"en": "B"}}
        return app.test_client().post(ADMIN, json=body, headers=headers).status_code

    with ThreadPoolExecutor(max_workers=5) as pool:
        statuses = list(pool.map(post, range(5)))
    assert statuses.count(201) == 1 and set(statuses) <= {201, 409, 503}, statuses
    owned = firebase.db().collection(repo.ITEMS).where(
        filter=FieldFilter("ownerClientId", "==", tenant.client_id)).stream()
    [item] = [snap.to_dict() for snap in owned]
    assert repo.read(None, repo.key_ref(tenant.client_id, "race")) == {"contentId": item["contentId"]}
    assert len(stored_versions(item["contentId"])) == 1


@pytest.mark.parametrize("path", ["no-such-item", "__bad__", "a" * 65])
def test_unknown_ids_are_404(http, tenant, path):
    error(http.get(f"{ADMIN}/{path}", headers=tenant.admin.headers), 404, service.CONTENT_NOT_FOUND)
    error(http.patch(f"{ADMIN}/{path}", json={"title": {"en": "X"}}, headers=tenant.admin.headers), 404,
          service.CONTENT_NOT_FOUND)


def _legacy_item(tenant, key: str) -> str:
    """An item stored before versions and translations (9.5): single-string name, title and body, no version."""
    content_id = repo.new_content_id()
    now = clock.now()
    firebase.db().collection(repo.ITEMS).document(content_id).set({
        "contentId": content_id, "ownerClientId": tenant.client_id, "key": key, "categoryKey": "legal",
        "visibility": "private", "status": "published", "deleted": False, "name": "Terms", "title": "Old terms",
        "body": "Old body", "format": "markdown", "publishAt": now - dt.timedelta(days=1), "expiresAt": None,
        "metadata": {}, "createdAt": now - dt.timedelta(days=1), "updatedAt": now - dt.timedelta(days=1)})
    repo.key_ref(tenant.client_id, key).set({"contentId": content_id})
    return content_id


def test_a_legacy_item_reads_and_changes_as_version_one(http, tenant):
    content_id = _legacy_item(tenant, "legacy-terms")
    [public] = public_keys(http, tenant.client_id, "legacy-terms")
    assert (public["title"], public["version"], public["versionId"]) == ("Old terms", 1, content_id)
    # the admin form converts the single strings to {en: ...} (9.5) and agrees with the public form's version
    admin = get(http, tenant.admin, content_id)
    assert (admin["title"], admin["body"], admin["name"]) == ({"en": "Old terms"}, {"en": "Old body"}, {"en": "Terms"})
    assert (admin["version"], admin["versionId"]) == (1, content_id)
    # its first change is version 2
    changed = http.patch(f"{ADMIN}/{content_id}", json={"body": {"en": "New body"}}, headers=tenant.admin.headers)
    assert changed.status_code == 200, changed.json
    assert changed.json["content"]["version"] == 2 and changed.json["content"]["title"] == {"en": "Old terms"}
    [public] = public_keys(http, tenant.client_id, "legacy-terms")
    assert (public["version"], public["body"]) == (2, "New body")
