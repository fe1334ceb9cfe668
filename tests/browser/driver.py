"""What the browser tests share: where Chromium, the built pages and the screenshots are, and how a
checker script in web/ is run (it prints one JSON report as its last line; web/rules-check.mjs is one too)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("DEVSTACK_CHROMIUM") or "/usr/bin/chromium"
OFFSET = os.environ.get("DEVSTACK_PORT_OFFSET") or "0"
SHOTS = ROOT / ".devstack" / ("screenshots" if OFFSET == "0" else f"screenshots-offset{OFFSET}")


def require(*built: Path) -> None:
    """Fail (not skip) with what to do when Chromium, playwright-core or a built file is missing."""
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"no Chromium at {CHROMIUM}: devstack/install.sh installs Debian's chromium only when it runs as root "
            "(a bare CI machine). Install it (sudo apt-get install --no-install-recommends chromium) or set "
            "DEVSTACK_CHROMIUM to a Chromium/Chrome binary, then run the browser tests again.",
            pytrace=False,
        )
    for needed in (ROOT / "web" / "node_modules" / "playwright-core", *built):
        if not needed.exists():
            pytest.fail(f"{needed.relative_to(ROOT)} is missing: run `make install` (devstack/install.sh)", pytrace=False)


def run(script: str, *args: str, timeout: int, stdin: str | None = None) -> dict:
    """The report of `node web/<script> args...` (fed `stdin`); the test fails when it printed none or reports an error."""
    proc = subprocess.run(["node", str(ROOT / "web" / script), *args], input=stdin, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        pytest.fail(f"web/{script} printed nothing (exit {proc.returncode}): {proc.stderr[-2000:]}", pytrace=False)
    report = json.loads(lines[-1])
    assert not report.get("error"), (
        f"web/{script} failed: {report['error']}\n{json.dumps(report)[:4000]}\n{proc.stderr[-2000:]}")
    return report
