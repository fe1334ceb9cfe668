"""The public content page /ct/{contentId} through Hosting, in a real browser (CONTRACT 6).

An administrator publishes an item whose body tries every usual way to run a script (a script element,
event handlers, javascript: links, an iframe, svg). Headless Chromium (Debian's /usr/bin/chromium, or
DEVSTACK_CHROMIUM) opens the page through web/content-check.mjs (playwright-core), clicks every link of the
body, and reports dialogs, console messages, page errors, CSP violations and the window marker the injected
code would set: none may appear, and the reader sees the title and the harmless text, the attempts shown as
text. The 404 and 410 pages render their text too.

Screenshots land in .devstack/screenshots[-offsetN]/content-page.png (desktop), content-page-phone.png
(zh-Hant on a phone-sized screen), content-404.png and content-legal-410.png; the tests print the paths.
"""

from pathlib import Path

import pytest
import requests

from tests.browser import driver
from tests.browser.driver import SHOTS
from tests.conftest import BASE_URL

pytestmark = pytest.mark.e2e

MARKER = "__injected"
TITLE = "Studio notice"
INJECTION = f"""Harmless text survives: the studio opens at **7:00**.

<script>window.{MARKER} = 'script'; alert('script')</script>

<img src=x onerror="window.{MARKER} = 'onerror'; alert('onerror')">

[Click me](javascript:window.{MARKER}='link';alert('link')) and ![pixel](x" onerror="window.{MARKER}='img')

<a href="javascript:window.{MARKER}='raw'">raw link</a> <iframe srcdoc="<script>parent.{MARKER}='iframe'</script>"></iframe>

<svg onload="window.{MARKER}='svg'"></svg> <details open ontoggle="window.{MARKER}='toggle'">x</details>

A [real link](/ct/elsewhere) stays a link.
"""


def _publish(tenant, **fields) -> dict:
    body = {"key": "notice", "categoryKey": "announcements", "title": {"en": TITLE, "zh-Hant": "工作室公告"},
            "body": {"en": INJECTION, "zh-Hant": "無害的文字。\n\n<script>window.__injected = 'zh'</script>"},
            "metadata": {"actionUrl": "/ct/next", "actionLabel": "See the timetable"}, **fields}
    response = requests.post(BASE_URL + "/api/content", json=body, headers=tenant.admin.headers, timeout=60)
    assert response.status_code == 201, response.text
    return response.json()["content"]


def _check(url: str, shot: str, *extra: str) -> dict:
    driver.require()
    return driver.run("content-check.mjs", "--url", url, "--screenshot", str(SHOTS / shot), "--marker", MARKER,
                      *extra, timeout=120)


def _nothing_ran(report: dict) -> None:
    assert report["dialogs"] == [], f"dialogs opened: {report['dialogs']}"
    # Chromium logs the status of a document that is not a 200; nothing else may be logged.
    status = f"error: Failed to load resource: the server responded with a status of {report['status']} "
    console = [line for line in report["console"] if not (report["status"] >= 400 and line.startswith(status))]
    assert console == [], f"console messages: {report['console']}"
    assert report["pageErrors"] == [], f"page errors: {report['pageErrors']}"
    # Nothing reached the CSP either: the sanitizer had already removed it.
    assert report["cspViolations"] == [], f"CSP violations: {report['cspViolations']}"
    assert report["markers"] == {MARKER: None}
    assert report["scripts"] == 0 and report["handlers"] == []
    assert report["offHost"] == [] and report["failed"] == []
    for link in report["links"]:
        assert not (link["href"] or "").strip().lower().startswith(("javascript:", "data:", "vbscript:")), link


def test_an_injected_body_runs_nothing_in_chromium(tenant, capsys):
    item = _publish(tenant)
    report = _check(f"{BASE_URL}/ct/{item['contentId']}", "content-page.png", "--click-links")
    assert report["status"] == 200 and report["lang"] == "en"
    assert report["headers"]["content-security-policy"].startswith("default-src 'none'")
    _nothing_ran(report)
    assert report["markersAfterClicks"] == {MARKER: None}
    assert report["title"] == TITLE and report["h1"] == [TITLE]
    text = report["text"]
    assert "Harmless text survives: the studio opens at 7:00." in text
    assert f"<script>window.{MARKER} = 'script'; alert('script')</script>" in text  # shown, not run
    assert "A real link stays a link." in text and "See the timetable" in text
    assert "English" in text and "繁體中文" in text  # the language switch
    # The links left: the switch, the body's real link and the button; clicking went nowhere else.
    assert [link["href"] for link in report["links"]] == ["?lang=en", "?lang=zh-Hant", "/ct/elsewhere", "/ct/next"]
    assert report["navAttempts"] == [f"{BASE_URL}/ct/elsewhere", f"{BASE_URL}/ct/next"]
    assert report["images"] == []  # the quote ends the destination: no image, only text
    with capsys.disabled():
        print(f"\n[content page] screenshot {report['screenshot']}")


def test_the_page_reads_on_a_phone_in_the_readers_language(tenant, capsys):
    item = _publish(tenant)
    report = _check(f"{BASE_URL}/ct/{item['contentId']}", "content-page-phone.png", "--width", "390",
                    "--height", "844", "--accept-language", "zh-TW,zh;q=0.9")
    assert report["status"] == 200 and report["lang"] == "zh-Hant"
    _nothing_ran(report)
    assert report["h1"] == ["工作室公告"] and "無害的文字。" in report["text"] and "發佈於" in report["text"]
    assert "<script>window.__injected = 'zh'</script>" in report["text"]
    assert report["pageWidth"] <= report["viewportWidth"] == 390  # nothing wider than the screen
    with capsys.disabled():
        print(f"\n[content page, phone] screenshot {report['screenshot']}")


RICH = """Our studio is open **every day**; _bring a towel_ and ~~a mat~~ (we have mats now).

## Opening hours

| Day | Opens | Closes |
|:----|------:|-------:|
| Monday to Friday | 07:00 | 22:00 |
| Weekends | 09:00 | 18:00 |

### Before your first class

1. Book in the app
2. Arrive ten minutes early
   - change in the locker room
   - tell the coach about injuries

> Questions? Write to [the front desk](mailto:desk@gym.example) or read [the FAQ](/ct/faq).

Use the code `WELCOME10` at the desk.

---

Small print: prices may change.
"""


def test_a_rich_item_renders_like_a_document(tenant, capsys):
    item = _publish(tenant, key="rich", title={"en": "Welcome to the studio"}, body={"en": RICH},
                    metadata={"actionUrl": "https://gym.example/book", "actionLabel": "Book a class"})
    report = _check(f"{BASE_URL}/ct/{item['contentId']}", "content-rich.png")
    assert report["status"] == 200
    _nothing_ran(report)
    assert report["h1"] == ["Welcome to the studio"]
    for text in ("Opening hours", "Monday to Friday\t07:00\t22:00", "Arrive ten minutes early", "WELCOME10",
                 "Book a class"):
        assert text in report["text"], text
    assert [link["href"] for link in report["links"]] == [
        "mailto:desk@gym.example", "/ct/faq", "https://gym.example/book"]
    assert {link["rel"] for link in report["links"]} == {"noopener noreferrer nofollow"}
    with capsys.disabled():
        print(f"\n[content page, rich] screenshot {report['screenshot']}")


@pytest.mark.parametrize(("path", "status", "shot", "heading"), [
    ("/ct/no-such-item", 404, "content-404.png", "Page not found"),
    ("/legal/terms-of-service", 410, "content-legal-410.png", "This page has moved"),
])
def test_the_404_and_410_pages_render_their_text(path, status, shot, heading, capsys):
    report = _check(BASE_URL + path, shot)
    assert report["status"] == status and report["lang"] == "en"
    _nothing_ran(report)
    assert report["h1"] == [heading] and report["title"] == heading
    assert str(status) in report["text"]
    assert Path(report["screenshot"]).stat().st_size > 5_000
    with capsys.disabled():
        print(f"\n[{status} page] screenshot {report['screenshot']}")
