"""The docs site (mkdocs.yml over docs/) builds without a broken link, lists every page, and runs under its CSP.

devstack/install.sh builds it into public/guide/ without --strict, so that a broken link never stops the stack;
here it is built --strict into a temporary folder, and every warning (a link to a missing page or anchor, a page
left out of the navigation) fails with MkDocs' own words.
"""

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("guide")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                             "-d", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    problems = [line for line in result.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert result.returncode == 0 and not problems, "mkdocs build --strict:\n" + "\n".join(problems or
                                                                                        [result.stderr[-3000:]])
    return out


def _nav_pages(nav) -> list[str]:
    pages = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_navigation_once():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = _nav_pages(config["nav"])
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(set(listed)) == sorted(listed), "a page is listed twice in mkdocs.yml's nav"
    assert sorted(listed) == pages, (f"not in mkdocs.yml's nav: {sorted(set(pages) - set(listed))}; "
                                     f"in the nav but missing: {sorted(set(listed) - set(pages))}")


def test_the_site_builds_strict_and_loads_nothing_from_another_site(site):
    assert (site / "index.html").is_file() and (site / "search" / "search_index.json").is_file()
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        loaded = re.findall(r'<(?:script|img|iframe)[^>]+src="(https?:[^"]+)"|<link[^>]+href="(https?:[^"]+)"[^>]*'
                            r'rel="(?:stylesheet|preload|preconnect|icon)', html)
        assert not loaded, f"{page.relative_to(site)} loads {loaded} from another site"
    # Search runs in the browser over the built index: every page of the nav is in it.
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert {doc["location"].split("#")[0] for doc in index["docs"]} >= {"", "identity/", "vital-scan/", "limits/"}


def test_every_inline_script_is_allowed_by_the_sites_csp(site):
    """Material for MkDocs writes a few inline scripts; firebase.json's /guide/** CSP allows exactly those by hash."""
    firebase = json.loads((ROOT / "firebase.json").read_text(encoding="utf-8"))
    rule = next(r for r in firebase["hosting"]["headers"] if r["source"] == "/guide/**")
    csp = next(h["value"] for h in rule["headers"] if h["key"] == "Content-Security-Policy")
    script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src")).split()
    assert "'unsafe-inline'" not in script_src
    missing = set()
    for page in site.rglob("*.html"):
        for script in re.findall(r"<script>(.*?)</script>", page.read_text(encoding="utf-8"), re.S):
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            if f"'sha256-{digest}'" not in script_src:
                missing.add(f"'sha256-{digest}' ({page.relative_to(site)}: {script[:60]}...)")
    assert not missing, "add to the /guide/** script-src in firebase.json:\n" + "\n".join(sorted(missing))
