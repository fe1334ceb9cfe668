"""The public page of one content item, /ct/{contentId} (CONTRACT 6), and the retired /legal/{slug} (410).

Served through Hosting by the content function. The body is rendered by markdown-it-py (CommonMark, raw HTML
off: any HTML in an item's text is shown as text) and the result is sanitized by nh3 (ammonia) with an
explicit allow-list: no script, no event handler, no style but table alignment, links only http(s), mailto or
relative (rel="noopener noreferrer nofollow"), images only https. The page itself carries no script at all,
and its Content-Security-Policy forbids any, so even a sanitizer miss could not run code.

These routes are pages, not API operations: they answer HTML themselves, errors included (the area app's
handlers would answer JSON), and are registered with plain Flask rules, not with the OpenAPI Api.
"""

import datetime as dt
import re
from typing import Any

import flask
import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from ..core import http
from ..core import logging as log
from ..core.errors import ApiError
from . import models, service
from .models import EN, ZH_HANS, ZH_HANT

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
CACHE_OK = "public, max-age=300"  # published items change rarely; a change shows within five minutes
CACHE_GONE = "public, max-age=3600"
CACHE_ERROR = "no-store"  # a scheduled item must appear as soon as it is published
LINK_REL = "noopener noreferrer nofollow"

# ------------------------------------------------------------------------------------ rendering

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "b", "i", "s", "del", "code", "pre",
        "blockquote", "ul", "ol", "li", "a", "img", "table", "thead", "tbody", "tr", "th", "td"}
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "ol": {"start"},
              "th": {"style"}, "td": {"style"}}
URL_SCHEMES = {"http", "https", "mailto"}
_ALIGN = re.compile(r"^text-align:\s*(left|right|center);?$")


def _attribute(tag: str, name: str, value: str) -> str | None:
    if tag == "img" and name == "src":
        return value if value.lower().startswith("https://") else None  # no http, data: or relative images
    if name == "style":  # markdown-it's table column alignment, nothing else
        return value if _ALIGN.match(value.strip()) else None
    return value


def sanitize(html: str) -> str:
    """HTML reduced to the allow-list; what is not on it goes (the text of script and style with it)."""
    return nh3.clean(html, tags=TAGS, clean_content_tags={"script", "style"}, attributes=ATTRIBUTES,
                     attribute_filter=_attribute, url_schemes=URL_SCHEMES, link_rel=LINK_REL, strip_comments=True)


def render_body(text: str, text_format: str) -> str:
    """An item's body as safe HTML: markdown rendered then sanitized; plain text escaped, line breaks kept."""
    if text_format == "plain":
        paragraphs = [p for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()) if p.strip()]
        return "\n".join(f"<p>{Markup('<br>').join(escape(line) for line in p.split(chr(10)))}</p>"
                         for p in paragraphs)
    return sanitize(_MARKDOWN.render(text))


# ------------------------------------------------------------------------------------ words of the page

LANGUAGE_NAMES = {EN: "English", ZH_HANT: "繁體中文", ZH_HANS: "简体中文"}
WORDS = {
    EN: {
        "published": "Published", "languages": "Language", "action": "Open",
        "not_found": "Page not found",
        "not_found_text": "There is no content at this address. The link may be mistyped, or the item was "
                          "unpublished, has expired or is not published yet.",
        "gone": "This page has moved",
        "gone_text": "Legal documents are no longer published at /legal/ addresses. Each document now has its "
                     "own page at /ct/ followed by its content id: open the terms or privacy policy from the app "
                     "or website you use to find the current link.",
        "error": "Something went wrong", "error_text": "The page could not be shown right now. Please try again.",
    },
    ZH_HANT: {
        "published": "發佈於", "languages": "語言", "action": "開啟",
        "not_found": "找不到頁面",
        "not_found_text": "此網址沒有內容。連結可能有誤，或內容已下架、已過期或尚未發佈。",
        "gone": "此頁面已移除",
        "gone_text": "法律文件已不再以 /legal/ 網址提供。每份文件現在都有自己的頁面，網址為 /ct/ 加上內容編號："
                     "請從您使用的應用程式或網站開啟條款或私隱政策，以取得最新連結。",
        "error": "發生錯誤", "error_text": "目前無法顯示此頁面，請稍後再試。",
    },
    ZH_HANS: {
        "published": "发布于", "languages": "语言", "action": "打开",
        "not_found": "找不到页面",
        "not_found_text": "此网址没有内容。链接可能有误，或内容已下架、已过期或尚未发布。",
        "gone": "此页面已移除",
        "gone_text": "法律文件已不再以 /legal/ 网址提供。每份文件现在都有自己的页面，网址为 /ct/ 加上内容编号："
                     "请从您使用的应用或网站打开条款或隐私政策，以获取最新链接。",
        "error": "出现错误", "error_text": "目前无法显示此页面，请稍后再试。",
    },
}

STYLE = """
:root{color-scheme:light dark;--fg:#1d232a;--muted:#5b6570;--bg:#fff;--line:#dde2e7;--accent:#0b63c5;
--accent-fg:#fff;--code:#f3f5f7}
@media (prefers-color-scheme:dark){:root{--fg:#e8ecef;--muted:#a4adb6;--bg:#14181c;--line:#323a42;
--accent:#5aa6ff;--accent-fg:#0b1118;--code:#1f252b}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:17px/1.65 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans","Noto Sans CJK TC","Noto Sans CJK SC","PingFang TC","PingFang SC","Microsoft JhengHei",sans-serif}
main{max-width:44rem;margin:0 auto;padding:1.25rem 1.25rem 3rem}
nav.langs{display:flex;flex-wrap:wrap;gap:.25rem .5rem;justify-content:flex-end;font-size:.9rem;
margin-bottom:1.5rem}
nav.langs a{color:var(--muted);text-decoration:none;padding:.3rem .6rem;border:1px solid transparent;
border-radius:999px}
nav.langs a:hover{border-color:var(--line)}
nav.langs a[aria-current]{color:var(--fg);border-color:var(--line);font-weight:600}
h1{font-size:1.9rem;line-height:1.25;margin:0 0 .4rem;overflow-wrap:anywhere}
.meta{color:var(--muted);font-size:.9rem;margin:0 0 1.75rem}
.body{overflow-wrap:anywhere}
.body h1,.body h2,.body h3,.body h4{line-height:1.3;margin:1.8rem 0 .6rem}
.body h1{font-size:1.55rem}.body h2{font-size:1.35rem}.body h3{font-size:1.15rem}.body h4{font-size:1rem}
.body a,.notice a{color:var(--accent)}
.body img{max-width:100%;height:auto}
.body blockquote{margin:1rem 0;padding:.2rem 1rem;border-left:4px solid var(--line);color:var(--muted)}
.body code{background:var(--code);border-radius:4px;padding:.1rem .3rem;font-size:.9em}
.body pre{background:var(--code);border-radius:6px;padding:.8rem 1rem;overflow-x:auto}
.body pre code{padding:0;background:none}
.body table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}
.body th,.body td{border:1px solid var(--line);padding:.4rem .7rem}
.body hr{border:0;border-top:1px solid var(--line);margin:2rem 0}
.action{margin:2rem 0 0}
.button{display:inline-block;background:var(--accent);color:var(--accent-fg);text-decoration:none;
font-weight:600;padding:.7rem 1.3rem;border-radius:8px;min-height:44px}
.notice{margin-top:12vh}
.status{color:var(--muted);font-size:.9rem;letter-spacing:.05em;margin:0 0 .5rem}
@media (max-width:480px){body{font-size:16px}h1{font-size:1.6rem}main{padding:1rem 1rem 2.5rem}}
"""


def _format_date(iso: str | None, locale: str) -> tuple[str, str] | None:
    """(machine, human) forms of a publish time, the date in UTC."""
    if not iso:
        return None
    when = dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(dt.UTC)
    if locale == EN:
        human = f"{when.day} {when.strftime('%B')} {when.year}"
    else:
        human = f"{when.year}年{when.month}月{when.day}日"
    return iso, human


def _document(locale: str, title: str, main: str, alternates: str = "") -> str:
    return (f'<!doctype html>\n<html lang="{escape(locale)}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="referrer" content="no-referrer">\n'
            f"<title>{escape(title)}</title>\n{alternates}<style>{STYLE}</style>\n</head>\n"
            f"<body>\n<main>\n{main}\n</main>\n</body>\n</html>\n")


def _language_switch(locales: list[str], current: str) -> str:
    if len(locales) < 2:
        return ""
    links = "\n".join(
        f'<a href="?lang={escape(code)}" hreflang="{escape(code)}" lang="{escape(code)}"'
        f'{" aria-current=" + chr(34) + "page" + chr(34) if code == current else ""}>{LANGUAGE_NAMES[code]}</a>'
        for code in locales)
    return f'<nav class="langs" aria-label="{WORDS[current]["languages"]}">\n{links}\n</nav>\n'


def _action(metadata: dict[str, Any], locale: str) -> str:
    url = metadata.get("actionUrl")
    # Validated on write (https or a path); checked again: a link the page shows must never run anything.
    if not (isinstance(url, str) and re.fullmatch(r"https://[^\s\\]+|/(?![/\\])[^\s\\]*", url)):
        return ""
    label = metadata.get("actionLabel")
    label = label.strip() if isinstance(label, str) and label.strip() else WORDS[locale]["action"]
    rel = "" if url.startswith("/") else f' rel="{LINK_REL}"'
    return f'<p class="action"><a class="button" href="{escape(url)}"{rel}>{escape(label)}</a></p>\n'


def _lang_attribute(value: Any, requested: str, served: str) -> str:
    field = models.field_locale(value, requested)
    return "" if field == served else f' lang="{escape(field)}"'


def item_page(item: dict[str, Any], locale: str) -> str:
    view = models.public_item(item, locale)
    served = view["locale"]
    words = WORDS[served]
    published = _format_date(view["publishAt"], served)
    meta = (f'<p class="meta">{words["published"]} <time datetime="{escape(published[0])}">'
            f"{escape(published[1])}</time></p>\n" if published else "")
    locales = service.available_locales(item)
    alternates = "".join(f'<link rel="alternate" hreflang="{code}" href="?lang={code}">\n'
                         for code in locales) if len(locales) > 1 else ""
    # A field that fell back to en says so, so that screen readers and translators treat it as English.
    title_lang, body_lang = (_lang_attribute(item.get(name), locale, served) for name in ("title", "body"))
    main = (f"{_language_switch(locales, served)}<article>\n<header>\n<h1{title_lang}>{escape(view['title'])}</h1>\n"
            f'{meta}</header>\n<div class="body"{body_lang}>\n{render_body(view["body"], view["format"])}\n</div>\n'
            f"{_action(view['metadata'], served)}</article>")
    return _document(served, view["title"], main, alternates)


def notice_page(locale: str, status: int, heading: str, text: str) -> str:
    main = (f'<section class="notice">\n<p class="status">{status}</p>\n<h1>{escape(heading)}</h1>\n'
            f"<p>{escape(text)}</p>\n</section>")
    return _document(locale, heading, main)


# ------------------------------------------------------------------------------------ responses


def requested_locale() -> str:
    """lang (en, zh-Hant, zh-Hans), else Accept-Language, else en; an unknown lang is ignored, not a 400."""
    header = flask.request.headers.get("Accept-Language")
    try:
        return service.locale_for(flask.request.args.get("lang"), header)
    except ApiError:
        return service.locale_for(None, header)


def _html(body: str, status: int, cache: str, locale: str) -> flask.Response:
    response = flask.Response(body, status=status, mimetype="text/html")
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = cache
    response.headers["Vary"] = "Accept-Language"
    response.headers["Content-Language"] = locale
    return response


def _notice(locale: str, status: int, key: str, cache: str = CACHE_ERROR) -> flask.Response:
    words = WORDS[locale]
    return _html(notice_page(locale, status, words[key], words[f"{key}_text"]), status, cache, locale)


def content_page(content_id: str = ""):
    locale = requested_locale()
    try:
        item = service.public_by_id(content_id.removesuffix("/"))
        return _html(item_page(item, locale), 200, CACHE_OK, models.served_locale(item, locale))
    except ApiError as err:
        if err.status == 404:
            return _notice(locale, 404, "not_found")
        return _notice(locale, err.status, "error")
    except Exception as exc:  # noqa: BLE001 - the area's handler would answer JSON: a page answers a page
        log.error(f"content page failed: {type(exc).__name__}: {exc}", requestId=http.request_id(), area="content",
                  route=flask.request.path)
        return _notice(locale, 500, "error")


def legal_gone(slug: str = ""):
    return _notice(requested_locale(), 410, "gone", CACHE_GONE)


def register(app: flask.Flask) -> None:
    """The page routes: plain Flask rules (GET, and HEAD with it), not OpenAPI operations."""
    app.add_url_rule("/ct/", "content_page_index", content_page, methods=["GET"])
    app.add_url_rule("/ct/<path:content_id>", "content_page", content_page, methods=["GET"])
    app.add_url_rule("/legal/", "legal_gone_index", legal_gone, methods=["GET"])
    app.add_url_rule("/legal/<path:slug>", "legal_gone", legal_gone, methods=["GET"])

