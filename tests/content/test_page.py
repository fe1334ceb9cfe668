"""The public page /ct/{contentId} (CONTRACT 6) and the retired /legal/{slug}, through the area's Flask app.

The body is markdown rendered by markdown-it-py and sanitized by nh3: these tests feed it the usual
injections and read the HTML back structurally (html.parser), not only as text. tests/browser/
test_content_page.py shows the same page in headless Chromium.
"""

import datetime as dt
import re
import uuid
from html.parser import HTMLParser

import pytest

from tests.content.conftest import create_item
from wellness_api.content import page as page_module
from wellness_api.core import clock

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
MARKDOWN = """Intro with *emphasis*, **strong** and ~~old~~ text.

## Opening hours

- Monday to Friday
- Saturday

1. First
2. Second

Visit [our site](https://gym.example/hours "Hours") or [mail us](mailto:desk@gym.example) or [the terms](/ct/terms).

> Quoted

| Day | Opens |
|:----|------:|
| Mon | 07:00 |

`inline code`

![logo](https://cdn.example/logo.png)
"""
INJECTION = """Harmless text survives.

<script>window.__injected = 'script'; alert(1)</script>

<img src=x onerror="window.__injected = 'onerror'">

[click me](javascript:window.__injected='link') [vb](vbscript:msgbox(1)) [data](data:text/html,<script>alert(1)</script>)

<iframe src="https://evil.example/"></iframe>

<a href="javascript:alert(1)" onclick="alert(2)">raw link</a>

<svg onload="alert(1)"></svg> <style>body{display:none}</style> <!-- comment -->

![pixel](javascript:alert(1)) ![http](http://insecure.example/a.png) ![tracker](/relative.png)

<javascript:alert(1)> [tab](java\tscript:alert(1))
"""


class Page(HTMLParser):
    """Every start tag with its attributes, and the visible text, of an HTML document."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text_parts: list[str] = []
        self._skip = 0
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("style", "title"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("style", "title"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text_parts.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text_parts)).strip()

    def find(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]

    def lang(self) -> str | None:
        return self.find("html")[0].get("lang")


def _iso(delta: dt.timedelta) -> str:
    return (clock.now() + delta).isoformat().replace("+00:00", "Z")


def _get(http, path: str, **headers):
    return http.get(path, headers=headers)


def _assert_page_headers(response, cache: str):
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Content-Security-Policy"] == CSP
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == cache
    assert response.headers["Vary"] == "Accept-Language"


def _assert_nothing_runs(html: str):
    page = Page(html)
    assert "<script" not in html.lower()
    assert not re.search(r"<[^>]*\son[a-z]+\s*=", html, re.IGNORECASE), "an event handler attribute"
    for tag, attrs in page.tags:
        assert tag not in ("script", "iframe", "object", "embed", "svg", "form", "base", "meta") or (
            tag == "meta" and set(attrs) <= {"charset", "name", "content"}), tag
        if tag == "style":
            continue
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("href", "src", "action", "formaction", "xlink:href"):
            value = (attrs.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "vbscript:", "data:")), (tag, name, value)
    # One style element: the page's own; no style attribute but table alignment.
    assert len(page.find("style")) == 1
    for tag, attrs in page.tags:
        if "style" in attrs:
            assert tag in ("th", "td") and re.fullmatch(r"text-align:(left|right|center)", attrs["style"]), attrs
    return page


# ------------------------------------------------------------------------------------ rendering


def test_markdown_is_rendered_with_title_date_and_action(http, tenant):
    item = create_item(http, tenant.admin, key="hours", title={"en": "Opening hours"}, body={"en": MARKDOWN},
                       metadata={"actionUrl": "https://gym.example/book", "actionLabel": "Book a class"})
    response = http.get(f"/ct/{item['contentId']}")
    assert response.status_code == 200
    _assert_page_headers(response, "public, max-age=300")
    html = response.get_data(as_text=True)
    assert html.startswith("<!doctype html>")
    page = _assert_nothing_runs(html)
    assert page.lang() == "en"
    assert "<title>Opening hours</title>" in html and "<h1>Opening hours</h1>" in html
    for fragment in ("<em>emphasis</em>", "<strong>strong</strong>", "<s>old</s>", "<h2>Opening hours</h2>",
                     "<li>Monday to Friday</li>", "<ol>", "<blockquote>", "<code>inline code</code>", "<table>",
                     '<th style="text-align:left">Day</th>', '<td style="text-align:right">07:00</td>'):
        assert fragment in html, fragment
    links = {a["href"]: a for a in page.find("a")}
    assert links["https://gym.example/hours"] == {"href": "https://gym.example/hours", "title": "Hours",
                                                   "rel": "noopener noreferrer nofollow"}
    assert links["mailto:desk@gym.example"]["rel"] == "noopener noreferrer nofollow"
    assert "/ct/terms" in links
    assert page.find("img") == [{"src": "https://cdn.example/logo.png", "alt": "logo"}]
    # The action button: the item's https link with its label.
    assert links["https://gym.example/book"] == {"class": "button", "href": "https://gym.example/book",
                                                  "rel": "noopener noreferrer nofollow"}
    assert "Book a class" in page.text
    (time,) = page.find("time")
    assert time["datetime"] == item["publishAt"]
    published = dt.datetime.fromisoformat(item["publishAt"].replace("Z", "+00:00"))
    assert f"Published {published.day} {published.strftime('%B')} {published.year}" in page.text
    # Mobile: the viewport is set and the page is one column.
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html


def test_an_injected_body_is_shown_as_text_and_nothing_can_run(http, tenant):
    item = create_item(http, tenant.admin, key="evil", title={"en": "<script>alert('title')</script>Notice"},
                       body={"en": INJECTION},
                       metadata={"actionUrl": "/ct/next?a=1&b=\"2\"", "actionLabel": "\"><script>alert(1)</script>"})
    response = http.get(f"/ct/{item['contentId']}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    page = _assert_nothing_runs(html)
    # Raw HTML in the markdown is escaped, so a reader sees it as text; the markdown around it still renders.
    assert "Harmless text survives." in page.text
    assert "<script>window.__injected = 'script'; alert(1)</script>" in page.text
    assert "<h1>&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;Notice</h1>" in html
    assert "<title>&lt;script&gt;" in html
    assert not page.find("iframe") and not page.find("svg")
    # Links with a script scheme are not links at all (markdown-it refuses them; nh3 would strip them too).
    hrefs = [a.get("href") for a in page.find("a")]
    assert hrefs == ["/ct/next?a=1&b=\"2\""], hrefs
    assert page.find("a")[0]["class"] == "button" and "rel" not in page.find("a")[0]
    # Images: https only; others keep their alt text but lose their source (a javascript: one is no image).
    assert [(img.get("alt"), img.get("src")) for img in page.find("img")] == [("http", None), ("tracker", None)]
    assert "\"><script>alert(1)</script>" in page.text  # the label, as text


def test_script_scheme_action_urls_are_refused_on_write(http, tenant):
    for url in ("javascript:alert(1)", "JavaScript:alert(1)", "http://plain.example", "data:text/html,x", "x"):
        response = http.post("/api/content", headers=tenant.admin.headers, json={
            "key": f"a-{uuid.uuid4().hex[:6]}", "categoryKey": "announcements", "title": {"en": "T"},
            "body": {"en": "B"}, "metadata": {"actionUrl": url}})
        assert response.status_code == 400, url


def test_a_protocol_relative_action_url_is_refused_on_write(http, tenant):
    response = http.post("/api/content", headers=tenant.admin.headers, json={
        "key": "proto", "categoryKey": "announcements", "title": {"en": "T"}, "body": {"en": "B"},
        "metadata": {"actionUrl": "//evil.example/x"}})
    assert response.status_code == 400


@pytest.mark.parametrize("url", ["javascript:alert(1)", "//evil.example/x", "/\\evil.example", "http://plain.example",
                                 "data:text/html,x", " https://x.example"])
def test_stored_action_urls_that_are_not_https_or_a_path_show_no_button(url):
    # Whatever reached the store (a legacy record, a write check that let it through), the page links no such URL.
    stored = {"contentId": "c1", "ownerClientId": "t", "key": "k", "categoryKey": "legal", "title": {"en": "T"},
              "body": {"en": "B"}, "format": "markdown", "publishAt": clock.now(),
              "metadata": {"actionUrl": url, "actionLabel": "Go"}}
    html = page_module.item_page(stored, "en")
    assert Page(html).find("a") == [] and "Go" not in Page(html).text
    ok = page_module.item_page({**stored, "body": {"en": "B", "zh-Hant": "乙"},
                                "metadata": {"actionUrl": "https://x.example/a"}}, "zh-Hant")
    assert [a for a in Page(ok).find("a") if "hreflang" not in a] == [{"class": "button", "href": "https://x.example/a",
                                   "rel": "noopener noreferrer nofollow"}]
    assert "開啟" in Page(ok).text  # the default label, in the page's language


def test_plain_text_is_escaped_and_keeps_its_line_breaks(http, tenant):
    body = "First line\n<b>not bold</b> & *not emphasis*\n\nSecond paragraph"
    item = create_item(http, tenant.admin, key="plain", body={"en": body}, format="plain")
    html = http.get(f"/ct/{item['contentId']}").get_data(as_text=True)
    _assert_nothing_runs(html)
    assert "<p>First line<br>&lt;b&gt;not bold&lt;/b&gt; &amp; *not emphasis*</p>\n<p>Second paragraph</p>" in html


# ------------------------------------------------------------------------------------ languages

BILINGUAL = {"title": {"en": "Welcome", "zh-Hant": "歡迎"},
             "body": {"en": "Classes start **Monday**.", "zh-Hant": "課程於**星期一**開始。"}}


@pytest.mark.parametrize(("query", "accept", "lang", "title"), [
    ("", None, "en", "Welcome"),
    ("?lang=zh-Hant", None, "zh-Hant", "歡迎"),
    ("?lang=ZH-hant", "en", "zh-Hant", "歡迎"),
    ("?lang=en", "zh-TW", "en", "Welcome"),
    ("", "zh-TW,zh;q=0.9,en;q=0.8", "zh-Hant", "歡迎"),
    ("", "fr-FR, zh-Hant;q=0.5", "zh-Hant", "歡迎"),
    ("?lang=zh-Hans", None, "en", "Welcome"),  # no Simplified Chinese translation: English
    ("", "zh-CN", "en", "Welcome"),
    ("?lang=klingon", "zh-HK", "zh-Hant", "歡迎"),  # an unknown lang is ignored, never a 400 on a page
    ("?lang=", None, "en", "Welcome"),
])
def test_language_follows_lang_then_accept_language_then_en(http, tenant, query, accept, lang, title):
    item = create_item(http, tenant.admin, key="welcome", **BILINGUAL)
    response = http.get(f"/ct/{item['contentId']}{query}", headers={"Accept-Language": accept} if accept else {})
    assert response.status_code == 200
    page = Page(response.get_data(as_text=True))
    assert page.lang() == lang and response.headers["Content-Language"] == lang
    assert f"<h1>{title}</h1>" in response.get_data(as_text=True)
    assert ("課程於<strong>星期一</strong>開始。" if lang == "zh-Hant" else "Classes start <strong>Monday</strong>.") \
        in response.get_data(as_text=True)
    assert ("發佈於" if lang == "zh-Hant" else "Published") in page.text


def test_the_language_switch_links_the_items_languages(http, tenant):
    item = create_item(http, tenant.admin, key="three", title={"en": "Hi", "zh-Hant": "嗨", "zh-Hans": "嗨"},
                       body={"en": "Hello", "zh-Hant": "你好", "zh-Hans": "你好"})
    page = Page(http.get(f"/ct/{item['contentId']}?lang=zh-Hans").get_data(as_text=True))
    assert page.lang() == "zh-Hans"
    (nav,) = page.find("nav")
    assert nav["aria-label"] == "语言"
    links = [a for a in page.find("a") if a.get("hreflang")]
    assert [(a["href"], a["lang"], a.get("aria-current")) for a in links] == [
        ("?lang=en", "en", None), ("?lang=zh-Hant", "zh-Hant", None), ("?lang=zh-Hans", "zh-Hans", "page")]
    assert "English 繁體中文 简体中文" in page.text
    alternates = [link["hreflang"] for link in page.find("link") if link.get("rel") == "alternate"]
    assert alternates == ["en", "zh-Hant", "zh-Hans"]

    # Where the item has two languages the switch shows two.
    two = create_item(http, tenant.admin, key="two", **BILINGUAL)
    page = Page(http.get(f"/ct/{two['contentId']}", headers={"Accept-Language": "zh-Hans"}).get_data(as_text=True))
    assert page.lang() == "en"  # asked for zh-Hans, which it lacks
    assert [(a["href"], a.get("aria-current")) for a in page.find("a") if a.get("hreflang")] == [
        ("?lang=en", "page"), ("?lang=zh-Hant", None)]

    # One language: no switch at all.
    single = create_item(http, tenant.admin, key="one", title={"en": "Only"}, body={"en": "English"})
    page = Page(http.get(f"/ct/{single['contentId']}?lang=zh-Hant").get_data(as_text=True))
    assert page.find("nav") == [] and page.lang() == "en" and "<h1>Only</h1>" in http.get(
        f"/ct/{single['contentId']}?lang=zh-Hant").get_data(as_text=True)


# ------------------------------------------------------------------------------------ headers and methods


def test_head_answers_the_headers_without_a_body(http, tenant):
    item = create_item(http, tenant.admin, key="head")
    response = http.head(f"/ct/{item['contentId']}")
    assert response.status_code == 200 and response.get_data() == b""
    _assert_page_headers(response, "public, max-age=300")
    missing = http.head("/ct/does-not-exist")
    assert missing.status_code == 404 and missing.get_data() == b""
    _assert_page_headers(missing, "no-store")


def test_a_shared_operator_item_and_another_clients_item_have_pages(http, tenant, operator_tenant):
    shared = create_item(http, operator_tenant.admin, key=f"shared-{uuid.uuid4().hex[:8]}", visibility="shared",
                         title={"en": "Platform terms"}, categoryKey="legal")
    own = create_item(http, tenant.admin, key="own", title={"en": "Client news"})
    assert "<h1>Platform terms</h1>" in http.get(f"/ct/{shared['contentId']}").get_data(as_text=True)
    assert "<h1>Client news</h1>" in http.get(f"/ct/{own['contentId']}/").get_data(as_text=True)


# ------------------------------------------------------------------------------------ 404 and 410


def _assert_not_found(response, lang: str = "en"):
    assert response.status_code == 404
    _assert_page_headers(response, "no-store")
    html = response.get_data(as_text=True)
    page = _assert_nothing_runs(html)
    assert page.lang() == lang
    if lang == "en":
        assert "Page not found" in page.text and "unpublished, has expired or is not published yet" in page.text
    assert "success" not in html and "{" not in page.text  # HTML, not the API's JSON error


@pytest.mark.parametrize("path", [
    "/ct/nope", "/ct/does-not-exist-0000000000", "/ct/__reserved__", "/ct/" + "a" * 65, "/ct/a.b", "/ct/a%20b",
    "/ct/%3Cscript%3E", "/ct/x/y/z", "/ct/", "/ct",
])
def test_unknown_and_malformed_ids_are_an_html_404(http, path):
    _assert_not_found(http.get(path))


def test_the_404_page_speaks_the_readers_language(http):
    response = http.get("/ct/nope", headers={"Accept-Language": "zh-TW"})
    _assert_not_found(response, "zh-Hant")
    assert "找不到頁面" in response.get_data(as_text=True)
    _assert_not_found(http.get("/ct/nope?lang=zh-Hans"), "zh-Hans")


def test_items_that_are_not_active_have_no_page(http, tenant):
    admin = tenant.admin.headers
    draft = create_item(http, tenant.admin, key="draft", publish=False)
    scheduled = create_item(http, tenant.admin, key="scheduled", publishAt=_iso(dt.timedelta(hours=1)))
    expired = create_item(http, tenant.admin, key="expired", publishAt=_iso(-dt.timedelta(hours=2)),
                          expiresAt=_iso(-dt.timedelta(hours=1)))
    unpublished = create_item(http, tenant.admin, key="unpublished")
    deleted = create_item(http, tenant.admin, key="deleted")
    expiring = create_item(http, tenant.admin, key="expiring", expiresAt=_iso(dt.timedelta(hours=1)))
    assert http.get(f"/ct/{unpublished['contentId']}").status_code == 200
    assert http.get(f"/ct/{deleted['contentId']}").status_code == 200
    assert http.post(f"/api/content/{unpublished['contentId']}/unpublish", headers=admin).status_code == 200
    assert http.delete(f"/api/content/{deleted['contentId']}", headers=admin).status_code == 200
    for item in (draft, scheduled, expired, unpublished, deleted):
        _assert_not_found(http.get(f"/ct/{item['contentId']}"))
    assert http.get(f"/ct/{expiring['contentId']}").status_code == 200

    # Two hours later the scheduled item is live and the expiring one gone.
    clock.advance(dt.timedelta(hours=2))
    assert http.get(f"/ct/{scheduled['contentId']}").status_code == 200
    _assert_not_found(http.get(f"/ct/{expiring['contentId']}"))

    # Publishing the draft gives it its page.
    assert http.post(f"/api/content/{draft['contentId']}/publish", headers=admin).status_code == 200
    assert http.get(f"/ct/{draft['contentId']}").status_code == 200


@pytest.mark.parametrize("path", ["/legal/terms", "/legal/privacy-policy", "/legal/a/b/c", "/legal/", "/legal",
                                  "/legal/%3Cscript%3E?lang=zh-Hant"])
def test_legal_urls_are_gone(http, path):
    response = http.get(path)
    assert response.status_code == 410
    _assert_page_headers(response, "public, max-age=3600")
    html = response.get_data(as_text=True)
    page = _assert_nothing_runs(html)
    assert "<script" not in html.lower() and "%3C" not in html  # the slug is not echoed
    if "zh-Hant" in path:
        assert page.lang() == "zh-Hant" and "/ct/" in page.text
    else:
        assert page.lang() == "en"
        assert "This page has moved" in page.text and "/legal/" in page.text and "/ct/" in page.text
    assert http.head(path).status_code == 410
