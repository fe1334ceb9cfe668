"""The API reference page at {base_url}/docs, rendered by a real browser.

Headless Chromium (Debian's /usr/bin/chromium, or DEVSTACK_CHROMIUM) loads the page through
web/page-check.mjs (playwright-core) and reports what a reader sees: the page's visible text, its code
examples, every request it made, CSP violations and errors. The page must render the OpenAPI document
that the stack serves at /api/openapi.json without any request leaving this machine.

The full-page screenshot lands in .devstack/screenshots[-offsetN]/docs.png (the first screenful beside
it, docs-top.png); the test prints both paths.
"""

from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from tests.browser import driver
from tests.browser.driver import ROOT, SHOTS
from tests.conftest import BASE_URL

pytestmark = pytest.mark.e2e

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def _operations(document: dict) -> list[dict]:
    return [op for item in document.get("paths", {}).values() for method, op in item.items() if method in HTTP_METHODS]


@pytest.fixture(scope="module")
def document() -> dict:
    response = requests.get(BASE_URL + "/api/openapi.json", timeout=60)
    assert response.status_code == 200, f"GET /api/openapi.json answered {response.status_code}: {response.text[:300]}"
    return response.json()


@pytest.fixture(scope="module")
def page(document) -> dict:
    """The report of web/page-check.mjs for {base_url}/docs, once rendered."""
    driver.require(ROOT / "public" / "docs" / "docs.js")
    tags = [tag["name"] for tag in document.get("tags", [])]
    shot, top = SHOTS / "docs.png", SHOTS / "docs-top.png"
    # --scroll: Scalar renders an operation only when it comes near the viewport.
    args = ["--url", BASE_URL + "/docs", "--scroll", "--screenshot", str(shot), "--top-screenshot", str(top),
            "--timeout-ms", "120000"]
    for tag in tags:
        args += ["--wait-text", tag]
    return driver.run("page-check.mjs", *args, timeout=240)


def test_docs_without_a_trailing_slash_serves_the_page():
    response = requests.get(BASE_URL + "/docs", timeout=30)
    assert response.status_code == 200
    assert response.url == BASE_URL + "/docs/"  # Hosting adds the slash of a folder's index.html (301)
    assert '<div id="app">' in response.text and "/docs/docs.js" in response.text


def test_the_page_and_its_bundle_carry_their_headers():
    index = requests.get(BASE_URL + "/docs/", timeout=30)
    csp = index.headers.get("Content-Security-Policy", "")
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "unsafe-eval" not in csp and "frame-ancestors 'none'" in csp
    assert index.headers.get("Cache-Control") == "no-cache"
    assert index.headers.get("X-Content-Type-Options") == "nosniff"
    chunk = next((ROOT / "public" / "docs" / "chunks").glob("*.js"))
    cached = requests.get(f"{BASE_URL}/docs/chunks/{chunk.name}", timeout=30)
    assert cached.status_code == 200
    assert cached.headers.get("Cache-Control") == "public, max-age=31536000, immutable"
    assert cached.headers.get("Content-Type", "").startswith(("application/javascript", "text/javascript"))


def test_every_tag_and_operation_of_the_document_is_rendered(document, page):
    assert page["status"] == 200 and page["finalUrl"] == BASE_URL + "/docs/"
    tags = [tag["name"] for tag in document.get("tags", [])]
    assert tags, "the document has no tags"
    missing_tags = [tag for tag in tags if tag not in page["text"]]
    assert not missing_tags, f"tags not on the page: {missing_tags}"
    summaries = [op["summary"] for op in _operations(document) if op.get("summary")]
    assert len(summaries) >= 3
    missing = [summary for summary in summaries if summary not in page["text"]]
    assert not missing, f"operation summaries not on the page: {missing}"
    assert document["info"]["title"] in page["text"]


def test_code_examples_are_the_documents_curl_samples(document, page):
    assert "curl" in page["codeText"], "no curl in any code example on the page"
    # Each operation shows its first x-codeSamples entry by default (Scalar's own curl otherwise).
    firsts = [op["x-codeSamples"][0]["source"] for op in _operations(document) if op.get("x-codeSamples")]
    assert firsts, "the document has no x-codeSamples"
    not_shown = [s.splitlines()[0] for s in firsts if s.splitlines()[0] not in page["codeText"]]
    assert not not_shown, f"x-codeSamples not shown as code examples: {not_shown}"


def test_nothing_leaves_the_machine(page):
    assert page["offHost"] == [], f"requests to other hosts: {page['offHost']}"
    hosts = {urlsplit(line.split(" ", 1)[1]).hostname for line in page["requests"]}
    assert hosts <= LOOPBACK, f"requests to {hosts - LOOPBACK}"
    assert any(line.endswith("/api/openapi.json") for line in page["requests"])
    fonts = [line for line in page["requests"] if "fonts." in line or line.endswith((".woff", ".woff2"))]
    assert fonts == [], f"font requests: {fonts}"
    assert page["cspViolations"] == [], f"Content-Security-Policy violations: {page['cspViolations']}"
    assert page["pageErrors"] == [], f"errors on the page: {page['pageErrors']}"
    assert page["failed"] == [], f"failed requests: {page['failed']}"
    # Links are not requests, but none may lead to Scalar's hosted client or proxy.
    hosted = [u for u in page["offHostLinks"] if "client.scalar.com" in u or "proxy.scalar.com" in u]
    assert hosted == [], f"links to Scalar's hosted services: {hosted}"


def test_screenshot_is_saved(page, capsys):
    shot, top = Path(page["screenshot"]), Path(page["topScreenshot"])
    assert shot.stat().st_size > 20_000 and top.stat().st_size > 20_000
    with capsys.disabled():
        print(f"\n[docs page] rendered in {page['renderMs']} ms ({page['scrolledMs']} ms scrolled through); "
              f"screenshot {shot} (first screen: {top})")
