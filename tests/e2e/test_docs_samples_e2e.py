"""The curl example of every operation in /api/openapi.json (shown on /docs) runs as written after
`eval "$(bin/demo-env)"` and gets the operation's documented success status."""

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from wellness_api.core import openapi
from wellness_api.openapi import document

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = document.operations()
HOSTED = {op.operation_id for op in OPERATIONS if op.path.startswith("/api/hosted/")}
# The hosted flow moves one session through its states: each of these starts the scan of a fresh session first.
NEEDS_STARTED_SCAN = {"submitHostedVitalScanMeasurement", "failHostedVitalScan"}
SUBTITLE = "WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n"


def _sample(operation_id: str) -> str:
    return openapi.curl_sample(next(op for op in OPERATIONS if op.operation_id == operation_id))


def _demo_env() -> str:
    done = subprocess.run(["bin/demo-env"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def shared_env() -> str:
    return _demo_env()


def _with_new_scan_session(env: str, tmp_path: Path) -> str:
    """The exports with SCAN_TOKEN of a session of its own, opened by the createVitalScanSession example itself."""
    created = _run(_sample("createVitalScanSession"), env, tmp_path)
    token = json.loads(created)["data"]["vitalScanUrl"].split("#scanToken=", 1)[1]
    return f"{env}\nexport SCAN_TOKEN={shlex.quote(token)}\n"


def _run(script: str, env: str, cwd: Path) -> str:
    (cwd / "demo.env").write_text(env)
    done = subprocess.run(["bash", "-c", f"set -euo pipefail\nsource demo.env\n{script}"],
                          cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.operation_id)
def test_the_curl_sample_works_as_written(op: openapi.Operation, tmp_path: Path, shared_env: str):
    (tmp_path / "subtitles.vtt").write_text(SUBTITLE)
    # Each hosted operation gets a session of its own.
    env = _with_new_scan_session(shared_env, tmp_path) if op.operation_id in HOSTED else shared_env
    script = openapi.curl_sample(op) + " -o response.json -w '%{http_code}'"
    if op.operation_id in NEEDS_STARTED_SCAN:
        script = _sample("startHostedVitalScan") + " -o /dev/null\n" + script
    status = _run(script, env, tmp_path).strip().splitlines()[-1]
    expected = min(op.responses)
    # errors="replace": a download's body (an export's zip) is not text
    body = (tmp_path / "response.json").read_text(errors="replace") if (tmp_path / "response.json").exists() else ""
    assert int(status) == expected, f"{op.operation_id}: {status} {body[:300]}"
