"""Content's caps (issue 25): every input that sizes work is bounded in the OpenAPI document and refused past its
bound with a 400 naming it; one item's texts and metadata together stay under Firestore's 1 MiB document limit."""

import json
import uuid

import pytest

from support import caps
from tests.content.conftest import ADMIN, create_item
from wellness_api.content import models, page, service
from wellness_api.openapi import document

EMOJI = "\U0001f600"  # 4 bytes in UTF-8: the most bytes a character of a text can take


def unique(prefix: str = "lim") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def refused(response, message: str) -> None:
    assert response.status_code == 400, response.json
    assert response.json == {"error": message}


def test_the_openapi_document_bounds_every_content_input():
    found = [row for row in caps.violations(document.build()) if row[0] == "Content"]
    assert found == []


# ------------------------------------------------------------------------------------ query strings


def test_lang_is_at_most_35_characters(http, tenant):
    base = f"/api/client/{tenant.client_id}/content-categories"
    refused(http.get(base, query_string={"lang": "x" * 36}),
            "Invalid field lang: String should have at most 35 characters.")
    # At the cap the value is read, and refused only because it is no supported language.
    refused(http.get(base, query_string={"lang": "x" * 35}), service.UNKNOWN_LANG)


def test_keys_is_at_most_ten_keys_of_100_characters(http, tenant):
    base = f"/api/client/{tenant.client_id}/content/public"
    longest = ",".join(f"{i}" + "k" * 99 for i in range(models.MAX_KEYS))
    assert len(longest) == models.MAX_KEYS_TEXT - 1
    response = http.get(base, query_string={"keys": longest + " "})
    assert response.status_code == 200, response.json
    assert len(response.json["data"]) == models.MAX_KEYS
    refused(http.get(base, query_string={"keys": longest + "  "}),
            f"Invalid field keys: String should have at most {models.MAX_KEYS_TEXT} characters.")


@pytest.mark.parametrize(("name", "cap"), [("categoryKey", models.MAX_CATEGORY_KEY), ("startAfter", models.MAX_KEY)])
def test_admin_list_query_strings_are_bounded(http, tenant, name, cap):
    assert http.get(ADMIN, query_string={name: "a" * cap}, headers=tenant.admin.headers).status_code == 200
    refused(http.get(ADMIN, query_string={name: "a" * (cap + 1)}, headers=tenant.admin.headers),
            f"Invalid field {name}: String should have at most {cap} characters.")


def test_versions_start_after_has_a_maximum(http, tenant):
    item = create_item(http, tenant.admin, key=unique())
    url = f"{ADMIN}/{item['contentId']}/versions"
    response = http.get(url, query_string={"startAfter": str(models.MAX_VERSION)}, headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    assert [v["version"] for v in response.json["data"]] == [1]
    refused(http.get(url, query_string={"startAfter": str(models.MAX_VERSION + 1)}, headers=tenant.admin.headers),
            f"Invalid field startAfter: Input should be less than or equal to {models.MAX_VERSION}.")


# ------------------------------------------------------------------------------------ bodies


def test_times_are_at_most_40_characters(http, tenant):
    padded = "2030-01-01T09:00:00Z".center(models.MAX_TIMESTAMP)
    item = create_item(http, tenant.admin, key=unique(), publishAt=padded)
    assert item["publishAt"].startswith("2030-01-01T09:00:00")
    response = http.post(f"{ADMIN}/{item['contentId']}/publish", json={"expiresAt": padded + " "},
                         headers=tenant.admin.headers)
    refused(response, f"Invalid field expiresAt: String should have at most {models.MAX_TIMESTAMP} characters.")


def test_metadata_numbers_are_bounded(http, tenant):
    item = create_item(http, tenant.admin, key=unique(), metadata={"big": 10**15, "small": -1e15})
    assert item["metadata"] == {"big": 10**15, "small": -1e15}
    response = http.patch(f"{ADMIN}/{item['contentId']}", json={"metadata": {"big": 10**15 + 1}},
                          headers=tenant.admin.headers)
    refused(response, "Invalid field metadata: big must be a number from -1e15 to 1e15.")


def send(http, method: str, url: str, body: dict, member):
    """A JSON body in raw UTF-8 (the test client's json= escapes non-ASCII, three times the bytes)."""
    return http.open(url, method=method, data=json.dumps(body, ensure_ascii=False).encode(),
                     content_type="application/json", headers=member.headers)


def create_big(http, member, **fields) -> dict:
    body = {"key": unique(), "categoryKey": "help", "title": {"en": "T"}, **fields}
    response = send(http, "POST", ADMIN, body, member)
    assert response.status_code == 201, response.json
    return response.json["content"]


def texts_of(size: int) -> dict[str, str]:
    """A body of exactly `size` UTF-8 bytes over the three languages, each within MAX_BODY characters."""
    per, rest = divmod(size, 3)
    out = {}
    for lang, share in zip(models.LOCALES, (per + rest, per, per), strict=True):
        emojis, ascii_ = divmod(share, 4)
        out[lang] = EMOJI * emojis + "a" * ascii_
        assert len(out[lang]) <= models.MAX_BODY and len(out[lang].encode()) == share
    return out


def test_an_item_at_the_size_cap_is_stored_and_one_byte_more_is_refused(http, tenant):
    at_cap = create_big(http, tenant.admin, body=texts_of(models.MAX_ITEM_BYTES - 1))
    assert models.stored_bytes(at_cap) == models.MAX_ITEM_BYTES
    response = send(http, "POST", ADMIN, {"key": unique(), "categoryKey": "help", "title": {"en": "TT"},
                                          "body": texts_of(models.MAX_ITEM_BYTES - 1)}, tenant.admin)
    refused(response, service.ITEM_TOO_LARGE.format(n=f"{models.MAX_ITEM_BYTES + 1:,}"))


def test_a_change_that_would_pass_firestores_document_limit_is_a_400_not_a_500(http, tenant):
    # Every field within its own cap, but the item near the cap plus 20 metadata texts of 2,000 four-byte
    # characters (160 KB) passed 1 MiB: Firestore refused the write and the caller got a 500.
    item = create_big(http, tenant.admin, body=texts_of(models.MAX_ITEM_BYTES - 100))
    metadata = {f"m{i}": EMOJI * models.MAX_METADATA_TEXT for i in range(models.MAX_METADATA_ENTRIES)}
    response = send(http, "PATCH", f"{ADMIN}/{item['contentId']}", {"metadata": metadata}, tenant.admin)
    assert response.status_code == 400, response.json
    assert response.json["error"].startswith("The item is too large:")
    # Nothing was written: the item is still version 1.
    assert http.get(f"{ADMIN}/{item['contentId']}", headers=tenant.admin.headers).json["content"]["version"] == 1


# ------------------------------------------------------------------------------------ the public page


def test_markdown_tables_cannot_multiply_the_page():
    # An eight-column header followed by rows of one cell each: markdown-it fills the missing cells, so 2 bytes of
    # body became about 70 bytes of page. markdown-it-py (>= 4) fills at most 65,536 cells in all; this pins it.
    body = "|a|b|c|d|e|f|g|h|\n|-|-|-|-|-|-|-|-|\n" + "x\n" * (models.MAX_BODY // 2 - 20)
    html = page.render_body(body, "markdown")
    assert len(html) < 10 * len(body) + 65_536 * len("<td></td>\n")
