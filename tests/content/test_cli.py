"""`platformctl content put` (CONTRACT section 3) as an operator runs it: creates the item, or publishes a new
version of the item with that key; prints {contentId, version, versionId}; a failure is one line and changes
nothing."""

import json
import uuid

from google.cloud.firestore import FieldFilter

from tests.ops.test_cli import expect_failures, platformctl, run_json
from wellness_api.content import repository as repo
from wellness_api.content import service
from wellness_api.content.models import PUBLISHED, UNPUBLISHED
from wellness_api.core import clock, firebase

PUT = ("content", "put")


def put(client_id: str, key: str, *extra: str, category: str = "announcements") -> dict:
    result = run_json(*PUT, "--client-id", client_id, "--key", key, "--category", category, *extra)
    assert set(result) == {"contentId", "version", "versionId"}, result
    return result


def stored_versions(content_id: str) -> dict[int, dict]:
    return {v["version"]: v for v in (snap.to_dict() for snap in
                                      firebase.db().collection(f"{repo.ITEMS}/{content_id}/{repo.VERSIONS}").stream())}


def by_key(http, client_id: str, key: str, lang: str = "en") -> list[dict]:
    response = http.get(f"/api/client/{client_id}/content/public/{key}?lang={lang}")
    assert response.status_code == 200, response.json
    return response.json["data"]


def owned_keys(client_id: str) -> dict:
    return {snap.id: snap.to_dict() for snap in
            firebase.db().collection(f"clients/{client_id}/{repo.KEYS}").stream()}


def test_put_creates_then_publishes_new_versions(http, tenant):
    metadata = {"actionUrl": "https://demo.example/classes", "actionLabel": "See classes", "order": 2}
    result = platformctl(*PUT, "--client-id", tenant.client_id, "--key", "welcome", "--category", "announcements",
                         "--title", "en=Hello", "--title", "zh-Hant=你好", "--title", "zh-Hans=你好呀",
                         "--body", "en=Welcome **in**", "--body", "zh-Hant=歡迎=光臨", "--format", "plain",
                         "--expires-at", "2099-01-01T00:00:00Z", "--metadata", json.dumps(metadata))
    assert result.stderr == ""
    first = json.loads(result.stdout)
    assert set(first) == {"contentId", "version", "versionId"} and first["version"] == 1
    stored = repo.get_item(first["contentId"])
    assert {k: stored[k] for k in ("ownerClientId", "key", "categoryKey", "visibility", "status", "title", "body",
                                   "format", "metadata", "version", "versionId", "createdBy")} == {
        "ownerClientId": tenant.client_id, "key": "welcome", "categoryKey": "announcements", "visibility": "private",
        "status": PUBLISHED, "title": {"en": "Hello", "zh-Hant": "你好", "zh-Hans": "你好呀"},
        "body": {"en": "Welcome **in**", "zh-Hant": "歡迎=光臨"}, "format": "plain", "metadata": metadata,
        "version": 1, "versionId": first["versionId"], "createdBy": "platformctl"}
    assert clock.iso(stored["expiresAt"]) == "2099-01-01T00:00:00.000Z"
    [item] = by_key(http, tenant.client_id, "welcome", "zh-Hant")
    assert (item["contentId"], item["version"], item["versionId"], item["locale"], item["title"], item["body"]) == (
        first["contentId"], 1, first["versionId"], "zh-Hant", "你好", "歡迎=光臨")
    [item] = by_key(http, tenant.client_id, "welcome", "zh-Hans")
    # the zh-Hans title; the body has no zh-Hans, so it alone falls back to en
    assert (item["locale"], item["title"], item["body"]) == ("zh-Hans", "你好呀", "Welcome **in**")

    # the same key again: version 2 of the same item, with the new texts
    second = put(tenant.client_id, "welcome", "--title", "en=Hello again", "--body", "en=New body")
    assert second["contentId"] == first["contentId"] and second["version"] == 2
    assert second["versionId"] != first["versionId"]
    [item] = by_key(http, tenant.client_id, "welcome")
    assert (item["version"], item["versionId"], item["title"], item["body"]) == (
        2, second["versionId"], "Hello again", "New body")
    stored = repo.get_item(first["contentId"])
    assert stored["title"] == {"en": "Hello again"} and stored["updatedBy"] == "platformctl"
    assert stored["format"] == "plain" and stored["metadata"] == metadata  # options not given are kept

    # an unpublished item is published again by the next put
    service.set_status(tenant.client, first["contentId"], UNPUBLISHED, "test")
    assert by_key(http, tenant.client_id, "welcome") == []
    third = put(tenant.client_id, "welcome", "--title", "en=Back", "--body", "en=Again", category="help")
    assert third["contentId"] == first["contentId"] and third["version"] == 4
    [item] = by_key(http, tenant.client_id, "welcome")
    assert (item["version"], item["title"], item["categoryKey"]) == (4, "Back", "help")
    versions = stored_versions(first["contentId"])
    assert sorted(versions) == [1, 2, 3, 4]
    assert [versions[n]["status"] for n in (1, 2, 3, 4)] == [PUBLISHED, PUBLISHED, UNPUBLISHED, PUBLISHED]
    assert [versions[n]["versionId"] for n in (1, 2, 4)] == [first["versionId"], second["versionId"],
                                                             third["versionId"]]
    assert owned_keys(tenant.client_id) == {"welcome": {"contentId": first["contentId"]}}


def test_put_schedules_and_the_operator_shares(http, operator_tenant, tenant):
    later = put(tenant.client_id, "later", "--title", "en=Soon", "--body", "en=Soon", "--publish-at",
                "2099-06-01T09:00:00+02:00")
    assert later["version"] == 1
    assert clock.iso(repo.get_item(later["contentId"])["publishAt"]) == "2099-06-01T07:00:00.000Z"
    assert by_key(http, tenant.client_id, "later") == []

    key = f"cli-shared-{uuid.uuid4().hex[:10]}"
    shared = put(operator_tenant.client_id, key, "--title", "en=For everyone", "--body", "en=Hi", "--visibility",
                 "shared", category="legal")
    stored = repo.get_item(shared["contentId"])
    assert stored["ownerClientId"] == operator_tenant.client_id and stored["visibility"] == "shared"
    [item] = by_key(http, tenant.client_id, key)
    assert (item["contentId"], item["ownerClientId"], item["clientId"]) == (
        shared["contentId"], operator_tenant.client_id, tenant.client_id)


def test_put_failures_are_one_line_and_change_nothing(tenant):
    existing = put(tenant.client_id, "existing", "--title", "en=Kept", "--body", "en=Kept")
    before, history = repo.get_item(existing["contentId"]), stored_versions(existing["contentId"])

    def args(key: str, *extra: str, category: str = "legal", client_id: str = tenant.client_id,
             title: tuple[str, ...] = ("--title", "en=T"), body: tuple[str, ...] = ("--body", "en=B")) -> list[str]:
        return ["--client-id", client_id, "--key", key, "--category", category, *title, *body, *extra]

    iso_error = "Invalid field publishAt: must be an ISO 8601 time with a time zone."
    expect_failures(PUT, [
        # a new key
        (args("fresh", client_id="no-such-client"), "client no-such-client not found"),
        (args("fresh", category="no-such-category"), service.UNKNOWN_CATEGORY),
        (args("fresh", title=("--title", "Hello")), "--title takes LANG=TEXT (e.g. --title en=Hello), got 'Hello'"),
        (args("fresh", title=("--title", "zh-Hant=你好")), "title: en is required"),
        (args("fresh", title=("--title", "en=One", "--title", "en=Two")), "--title gives en twice"),
        (args("fresh", "--visibility", "shared"), service.ONLY_OPERATOR_SHARES),
        (args("fresh", "--metadata", "{not json"), "--metadata is not a JSON object"),
        (args("fresh", "--metadata", '{"score": NaN}'), "--metadata is not a JSON object: NaN is not JSON"),
        (args("fresh", "--publish-at", "2030-01-01T09:00:00"), iso_error),
        # a new version of an existing item
        (args("existing", category="no-such-category"), service.UNKNOWN_CATEGORY),
        (args("existing", "--visibility", "shared"), service.ONLY_OPERATOR_SHARES),
        (args("existing", "--publish-at", "soon"), iso_error),
        (args("existing", "--publish-at", "2030-01-02T00:00:00Z", "--expires-at", "2030-01-01T00:00:00Z"),
         service.EXPIRES_BEFORE_PUBLISH),
    ])
    assert repo.get_item(existing["contentId"]) == before
    assert stored_versions(existing["contentId"]) == history
    assert owned_keys(tenant.client_id) == {"existing": {"contentId": existing["contentId"]}}
    items = firebase.db().collection(repo.ITEMS).where(
        filter=FieldFilter("ownerClientId", "==", tenant.client_id)).stream()
    assert [snap.id for snap in items] == [existing["contentId"]]
