"""Locale resolution of the public content reads (4.4): lang, else Accept-Language (q-values), else en. Each of an
item's title and body is served in the requested language when it has it, else in en, on its own; the item's
`locale` is the requested language when either of them is served in it, else en."""

import uuid

import pytest

from tests.conftest import Tenant
from tests.content.conftest import create_item
from tests.content.test_categories import unique_key
from wellness_api.content import models, service
from wellness_api.content.routes import app

FULL = {"title": {"en": "Welcome", "zh-Hant": "歡迎", "zh-Hans": "欢迎"},
        "body": {"en": "Hello.", "zh-Hant": "你好（繁）。", "zh-Hans": "你好（简）。"}}
# The body in zh-Hant only; the title in en only.
PARTIAL = {"title": {"en": "Classes"}, "body": {"en": "New classes.", "zh-Hant": "新課程。"}}
# A zh-Hans title but no zh-Hans body: the title is served in zh-Hans, the body in en.
TITLE_ONLY = {"title": {"en": "Hours", "zh-Hans": "时间"}, "body": {"en": "Open daily."}}
ENGLISH = {"title": {"en": "Terms"}, "body": {"en": "Be nice."}}

# (served locale, title, body) of each item for each requested locale.
EXPECTED = {
    "en": {"full": ("en", "Welcome", "Hello."), "partial": ("en", "Classes", "New classes."),
           "title_only": ("en", "Hours", "Open daily."), "english": ("en", "Terms", "Be nice.")},
    "zh-Hant": {"full": ("zh-Hant", "歡迎", "你好（繁）。"), "partial": ("zh-Hant", "Classes", "新課程。"),
                "title_only": ("en", "Hours", "Open daily."), "english": ("en", "Terms", "Be nice.")},
    "zh-Hans": {"full": ("zh-Hans", "欢迎", "你好（简）。"), "partial": ("en", "Classes", "New classes."),
                "title_only": ("zh-Hans", "时间", "Open daily."), "english": ("en", "Terms", "Be nice.")},
}


@pytest.fixture(scope="module")
def world(emulators):
    """One client with the four items, shared by the read-only tests of this module."""
    owner = Tenant(f"t-{uuid.uuid4().hex[:12]}")
    client = app.test_client()
    made = {}
    for name, fields in (("full", FULL), ("partial", PARTIAL), ("title_only", TITLE_ONLY), ("english", ENGLISH)):
        made[name] = create_item(client, owner.admin, key=unique_key(name.replace("_", "-")), **fields)
    return owner, made


@pytest.fixture
def tenant(world):
    return world[0]


@pytest.fixture
def items(world):
    return world[1]


def read_all(http, tenant, items, query: dict | None = None, headers: dict | None = None):
    """The three public reads of the items: by each key, by all keys at once, by each id."""
    query, headers = query or {}, headers or {}
    responses = {"by_key": {}, "by_id": {}}
    for name, item in items.items():
        responses["by_key"][name] = http.get(f"/api/client/{tenant.client_id}/content/public/{item['key']}",
                                             query_string=query, headers=headers)
        responses["by_id"][name] = http.get(f"/api/content/{item['contentId']}/public", query_string=query,
                                            headers=headers)
    keys = ",".join(item["key"] for item in items.values())
    responses["by_keys"] = http.get(f"/api/client/{tenant.client_id}/content/public",
                                    query_string={"keys": keys, **query}, headers=headers)
    return responses


def assert_served(http, tenant, items, locale: str, query: dict | None = None, headers: dict | None = None):
    responses = read_all(http, tenant, items, query, headers)
    for name, item in items.items():
        expected = EXPECTED[locale][name]
        for kind in ("by_key", "by_id"):
            response = responses[kind][name]
            assert response.status_code == 200, (kind, name, response.json)
            assert response.json["locale"] == locale, (kind, name)
            data = response.json["data"][0] if kind == "by_key" else response.json["data"]
            assert (data["locale"], data["title"], data["body"]) == expected, (kind, name)
        by_keys = responses["by_keys"]
        assert by_keys.status_code == 200 and by_keys.json["locale"] == locale
        data = by_keys.json["data"][item["key"]][0]
        assert (data["locale"], data["title"], data["body"]) == expected, ("by_keys", name)


@pytest.mark.parametrize("lang, locale", [
    ("en", "en"), ("zh-Hant", "zh-Hant"), ("zh-Hans", "zh-Hans"),
    ("zh-hant", "zh-Hant"), ("ZH-HANS", "zh-Hans"), ("EN", "en"), (" zh-Hant ", "zh-Hant"),
])
def test_lang_chooses_the_locale(http, tenant, items, lang, locale):
    assert_served(http, tenant, items, locale, query={"lang": lang})


def test_lang_wins_over_accept_language(http, tenant, items):
    assert_served(http, tenant, items, "en", query={"lang": "en"}, headers={"Accept-Language": "zh-Hant"})
    assert_served(http, tenant, items, "zh-Hans", query={"lang": "zh-Hans"}, headers={"Accept-Language": "zh-TW"})


@pytest.mark.parametrize("lang", ["fr", "zh", "zh_Hant", "zh-TW", "en-US", "", " ", "*"])
def test_an_unsupported_lang_is_400(http, tenant, items, lang):
    item = items["full"]
    query = {"lang": lang}
    urls = (f"/api/client/{tenant.client_id}/content/public/{item['key']}",
            f"/api/content/{item['contentId']}/public",
            f"/api/client/{tenant.client_id}/content-categories")
    for url in urls:
        response = http.get(url, query_string=query, headers={"Accept-Language": "zh-Hant"})
        assert response.status_code == 400, url
        assert response.json == {"error": service.UNKNOWN_LANG}
    response = http.get(f"/api/client/{tenant.client_id}/content/public", query_string={"keys": item["key"], **query})
    assert response.status_code == 400
    assert response.json == {"error": service.UNKNOWN_LANG}


@pytest.mark.parametrize("header, locale", [
    (None, "en"),
    ("zh-TW", "zh-Hant"),
    ("zh-HK", "zh-Hant"),
    ("zh-Hant", "zh-Hant"),
    ("zh-CN", "zh-Hans"),
    ("zh", "zh-Hans"),
    ("zh-Hans-CN", "zh-Hans"),
    ("fr, zh-Hant;q=0.5, en;q=0.4", "zh-Hant"),
    ("en;q=0.1, zh-Hans;q=0.9", "zh-Hans"),
    ("zh-TW;q=0.8, zh-CN", "zh-Hans"),
    ("fr", "en"),
    ("fr-CA, de;q=0.9", "en"),
    ("*", "en"),
    ("zh-Hant;q=0, en;q=0.2", "en"),
    ("zh-Hant;q=0", "en"),
    ("en-GB,en;q=0.9,zh-TW;q=0.8", "en"),
    (";;;,,=,q=", "en"),
    ("\u00ff\u00fe garbage", "en"),
])
def test_accept_language_chooses_the_locale_without_lang(http, tenant, items, header, locale):
    headers = {"Accept-Language": header} if header is not None else {}
    assert_served(http, tenant, items, locale, headers=headers)


def test_categories_follow_the_same_locale_rules(http, tenant):
    url = f"/api/client/{tenant.client_id}/content-categories"
    for query, headers, locale in (({}, {}, "en"), ({"lang": "zh-hans"}, {}, "zh-Hans"),
                                   ({}, {"Accept-Language": "zh-HK"}, "zh-Hant"),
                                   ({}, {"Accept-Language": "fr, zh;q=0.3"}, "zh-Hans")):
        response = http.get(url, query_string=query, headers=headers)
        assert response.status_code == 200 and response.json["locale"] == locale
        assert response.json["data"][0]["name"] == service.BUILT_IN_NAMES["legal"][0][locale]


def test_unknown_key_still_reports_the_locale(http, tenant):
    response = http.get(f"/api/client/{tenant.client_id}/content/public/{unique_key()}",
                        headers={"Accept-Language": "zh-TW"})
    assert response.status_code == 200
    assert response.json == {"success": True, "locale": "zh-Hant", "data": []}


# ------------------------------------------------------------------------------------ units


@pytest.mark.parametrize("header, expected", [
    (None, None),
    ("", None),
    ("   ", None),
    ("fr", None),
    ("fr, de;q=0.5", None),
    ("*", "en"),
    ("en", "en"),
    ("EN-us", "en"),
    ("en-GB", "en"),
    ("zh-TW", "zh-Hant"),
    ("zh-hk", "zh-Hant"),
    ("zh-MO", "zh-Hant"),
    ("zh-Hant", "zh-Hant"),
    ("zh-Hant-TW", "zh-Hant"),
    ("zh", "zh-Hans"),
    ("zh-CN", "zh-Hans"),
    ("zh-SG", "zh-Hans"),
    ("zh-Hans", "zh-Hans"),
    ("zh-Hans-CN", "zh-Hans"),
    ("fr, zh-Hant;q=0.5, en;q=0.4", "zh-Hant"),
    ("en;q=0.1, zh-Hans;q=0.9", "zh-Hans"),
    ("en;q=0.5, zh-Hant;q=0.5", "en"),  # a tie keeps the header's order
    ("zh-Hant;q=0.5, en;q=0.5", "zh-Hant"),
    ("zh-Hant, en", "zh-Hant"),
    ("zh-Hant;q=0", None),
    ("zh-Hant;q=0.0, zh-CN;q=0.001", "zh-Hans"),
    ("zh-Hant; q = 0.7, en;q=0.6", "zh-Hant"),
    ("zh-Hant;q=1.2.3, en;q=0.1", "en"),  # an unreadable q-value drops its entry
    (";;;,,=,q=", None),
    ("zh-TW;q=0.8, zh-CN", "zh-Hans"),
])
def test_from_accept_language(header, expected):
    assert models.from_accept_language(header) == expected


@pytest.mark.parametrize("lang, expected", [
    ("en", "en"), ("EN", "en"), ("zh-Hant", "zh-Hant"), ("zh-hant", "zh-Hant"), ("ZH-HANT", "zh-Hant"),
    ("zh-Hans", "zh-Hans"), ("zh-hans", "zh-Hans"), (" zh-Hans\t", "zh-Hans"),
    ("zh", None), ("zh_Hant", None), ("zh-TW", None), ("en-US", None), ("", None), ("*", None), ("fr", None),
])
def test_lang_value(lang, expected):
    assert models.lang_value(lang) == expected


@pytest.mark.parametrize("lang, header, expected", [
    (None, None, "en"), (None, "zh-TW", "zh-Hant"), ("en", "zh-TW", "en"), ("zh-hans", None, "zh-Hans"),
])
def test_locale_for(lang, header, expected):
    assert service.locale_for(lang, header) == expected


def test_locale_for_refuses_an_unsupported_lang():
    from wellness_api.core.errors import ApiError

    with pytest.raises(ApiError) as caught:
        service.locale_for("fr", "zh-TW")
    assert caught.value.status == 400 and caught.value.message == service.UNKNOWN_LANG


def test_public_item_resolution_per_field():
    stored = {"contentId": "c1", "ownerClientId": "o", "key": "k", "categoryKey": "help",
              "title": {"en": "T", "zh-Hans": "标题"}, "body": {"en": "B", "zh-Hant": "內文"}}
    assert {k: models.public_item(stored, "zh-Hant")[k] for k in ("locale", "title", "body")} == \
        {"locale": "zh-Hant", "title": "T", "body": "內文"}
    assert {k: models.public_item(stored, "zh-Hans")[k] for k in ("locale", "title", "body")} == \
        {"locale": "zh-Hans", "title": "标题", "body": "B"}
    assert {k: models.public_item(stored, "en")[k] for k in ("locale", "title", "body")} == \
        {"locale": "en", "title": "T", "body": "B"}
    assert models.resolve("Legacy", "zh-Hant") == "Legacy"
    assert models.localized("Legacy") == {"en": "Legacy"}


# ------------------------------------------------------------------------------------ per-field fallback (issue 29)

TITLE_ZH_HANT = {"title": {"en": "Opening hours", "zh-Hant": "營業時間"}, "body": {"en": "Open **daily**."}}


def test_a_zh_hant_title_with_an_en_only_body_is_served_per_field(http, tenant):
    item = create_item(http, tenant.admin, key=unique_key("hours"), **TITLE_ZH_HANT)
    served = ("zh-Hant", "營業時間", "Open **daily**.")
    for query, headers in (({"lang": "zh-Hant"}, {}), ({}, {"Accept-Language": "zh-TW"})):
        by_id = http.get(f"/api/content/{item['contentId']}/public", query_string=query, headers=headers)
        by_key = http.get(f"/api/client/{tenant.client_id}/content/public/{item['key']}", query_string=query,
                          headers=headers)
        by_keys = http.get(f"/api/client/{tenant.client_id}/content/public", query_string={"keys": item["key"], **query},
                           headers=headers)
        for response, data in ((by_id, by_id.json["data"]), (by_key, by_key.json["data"][0]),
                               (by_keys, by_keys.json["data"][item["key"]][0])):
            assert response.status_code == 200 and response.json["locale"] == "zh-Hant"
            assert (data["locale"], data["title"], data["body"]) == served
    # Asked for a language neither field has: all en, and `locale` says en.
    data = http.get(f"/api/content/{item['contentId']}/public", query_string={"lang": "zh-Hans"}).json["data"]
    assert (data["locale"], data["title"], data["body"]) == ("en", "Opening hours", "Open **daily**.")


def _page(http, content_id: str, query: str):
    from tests.content.test_page import Page

    response = http.get(f"/ct/{content_id}{query}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    return response, Page(html), html


def test_the_public_page_falls_back_per_field(http, tenant):
    item = create_item(http, tenant.admin, key=unique_key("hours"), **TITLE_ZH_HANT)
    response, page, html = _page(http, item["contentId"], "?lang=zh-Hant")
    assert page.lang() == "zh-Hant" and response.headers["Content-Language"] == "zh-Hant"
    # The title in zh-Hant; the body, which has only en, in en and marked as such.
    assert "<h1>營業時間</h1>" in html
    assert page.find("div") == [{"class": "body", "lang": "en"}]
    assert "Open <strong>daily</strong>." in html
    assert "發佈於" in page.text
    # Both languages the item has (the title's zh-Hant counts) are in the switch.
    assert [(a["href"], a.get("aria-current")) for a in page.find("a") if a.get("hreflang")] == [
        ("?lang=en", None), ("?lang=zh-Hant", "page")]

    response, page, html = _page(http, item["contentId"], "?lang=en")
    assert page.lang() == "en" and "<h1>Opening hours</h1>" in html and page.find("div") == [{"class": "body"}]

    # The mirror case: the body in zh-Hant, the title only in en, which is marked.
    partial = create_item(http, tenant.admin, key=unique_key("classes"), **PARTIAL)
    response, page, html = _page(http, partial["contentId"], "?lang=zh-Hant")
    assert page.lang() == "zh-Hant" and '<h1 lang="en">Classes</h1>' in html and "新課程。" in html
    assert page.find("div") == [{"class": "body"}]
