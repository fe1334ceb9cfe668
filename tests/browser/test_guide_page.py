"""The docs site at {base_url}/guide/, read by a real browser: its navigation, and search finding an endpoint.

web/guide-check.mjs drives Debian's Chromium headless: it opens /guide/, reads the navigation a person sees, clicks
the search field, types an endpoint's path and follows the first result. Nothing may come from another site, and
the page must run under the CSP Hosting sends for /guide/** (firebase.json). The screenshots land in
.devstack/screenshots[-offsetN]/guide.png and guide-search.png.
"""

import pytest
import requests

from tests.browser import driver
from tests.browser.driver import ROOT, SHOTS
from tests.conftest import BASE_URL

pytestmark = pytest.mark.e2e


def _check(path: str, query: str) -> dict:
    driver.require(ROOT / "public" / "guide" / "index.html")
    stem = query.strip("/").replace("/", "-")
    return driver.run("guide-check.mjs", "--url", BASE_URL + path, "--query", query,
                      "--screenshot", str(SHOTS / "guide.png"), "--search-screenshot", str(SHOTS / f"guide-{stem}.png"),
                      "--timeout-ms", "60000", timeout=180)


def _clean(report: dict) -> None:
    assert report["status"] == 200
    assert not report["offHost"], f"requests to other sites: {report['offHost']}"
    assert not report["cspViolations"], report["cspViolations"]
    assert not report["pageErrors"], report["pageErrors"]
    assert not report["notFound"], report["notFound"]


def test_the_guide_shows_every_area_in_its_navigation_and_search_finds_an_endpoint():
    report = _check("/guide/", "custom-token")
    _clean(report)
    print("screenshots:", report["screenshot"], report["searchScreenshot"])
    nav = report["navText"]
    for area in ("API keys", "Identity", "Lessons", "Vital Scan", "AI Move", "Content", "Fall risk", "Media generation",
                 "AI assistant", "Analytics", "Limits", "Deploying", "Security"):
        assert area in nav, f"{area!r} is not in the navigation a reader sees:\n{nav}"
    # What the reader sees after typing: results, among them the identity page, which documents the endpoint.
    assert "matching document" in report["resultsText"], report["resultsText"]
    assert any("/guide/identity/" in r["href"] for r in report["results"]), report["results"]
    assert report["opened"]["title"] != "Not found" and "/guide/" in report["opened"]["url"]


def test_search_finds_a_vital_scan_endpoint_from_a_page_deep_in_the_site():
    report = _check("/guide/vital-scan/", "/api/v1/vital-scan/sessions")
    _clean(report)
    assert any("/guide/vital-scan/" in r["href"] for r in report["results"]), report["results"]


def test_the_guide_carries_its_headers_and_the_api_reference_links_it():
    response = requests.get(BASE_URL + "/guide/", timeout=30)
    assert response.status_code == 200 and "Wellness Platform guide" in response.text
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert requests.get(BASE_URL + "/guide", timeout=30, allow_redirects=False).status_code == 301
    # /docs renders this description of the OpenAPI document at its top.
    document = requests.get(BASE_URL + "/api/openapi.json", timeout=60).json()
    assert "[/guide/](/guide/)" in document["info"]["description"]
