"""Secrets and health data stay out of the emulators' log of the whole run: every test's traffic, the fuzz run's too.

devstack writes everything the emulators print (each function's log lines, Hosting's access log, the Auth and Cloud
Tasks emulators) to one file and names it in DEVSTACK_EMULATOR_LOG; this module runs after every other test and
searches it for passwords, API keys, scanTokens, custom, client and ID tokens, and Vital Scan metric values.
"""

import os
import re
from pathlib import Path

import pytest

from tests.conftest import SECRETS
from wellness_api.ops import demo
from wellness_api.vital_scan import metrics

pytestmark = pytest.mark.after_all


def _metric_names(schema: dict) -> set[str]:
    names = set()
    for name, kind in schema.items():
        names.add(name)
        if isinstance(kind, dict):
            names |= _metric_names(kind)
    return names


METRIC_NAMES = "|".join(sorted(map(re.escape, _metric_names(metrics.SCHEMA)), key=len, reverse=True))
# Each kind by its form, wherever a test or the fuzz run made it: custom, client and ID tokens are all JWTs.
FORMS = {
    "a JWT (custom, client or ID token)": re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."),
    "an API key": re.compile(r"wsk_[A-Za-z0-9_-]{16,}"),
    "a scanToken": re.compile(r"scanToken[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9_-]{16,}"),
    "a password": re.compile(r"[\"']?password[\"']?\s*[:=]\s*[\"'][^\"']+[\"']", re.IGNORECASE),
    "a Vital Scan metric value": re.compile(rf"(?<![A-Za-z0-9_])[\"']?(?:{METRIC_NAMES})[\"']?\s*[:=]\s*-?\d"),
}


def _demo_passwords() -> set[str]:
    specs = [demo.OPERATOR["admin"], *(client[role] for client in demo.DEMO_CLIENTS for role in ("admin", "player"))]
    return {spec["password"] for spec in specs}


def _findings(text: str, secrets: set[str]) -> list[str]:
    found = [f"{kind}: ...{match.group(0)[:24]}..." for kind, form in FORMS.items() for match in form.finditer(text)]
    found += [f"a secret the run handed out: {secret[:4]}..." for secret in secrets if secret in text]
    return found


def test_the_forms_catch_each_kind():
    line = ('{"severity": "INFO", "message": "request", "route": "/api/health", "status": 200, "latencyMs": 0.3, '
            '"requestId": "f8424ae173ba4f8e9b21d7727b7a120c"}')
    assert _findings(line, set()) == []
    leaks = {
        "a JWT (custom, client or ID token)": "Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJjbGllbnRJZCI6ImRlbW8ifQ.",
        "an API key": "key=wsk_CaUn4zVBQZbsn71kzC6PMpGeJrawpcPFJLg",
        "a scanToken": "/vital-scan/#scanToken=o4opCbgLuSTsv7eGmNCG2kqJ4",
        "a password": '{"email": "a@b.test", "password": "hunter2"}',
        "a Vital Scan metric value": '{"metrics": {"hr": 72.4, "spo2": 98}}',
    }
    for kind, leak in leaks.items():
        assert any(finding.startswith(kind) for finding in _findings(line + leak, set())), kind
    assert _findings("... Tr0ub4dor&3 ...", {"Tr0ub4dor&3"}) == ["a secret the run handed out: Tr0u..."]


def test_no_secret_or_health_data_in_the_emulator_log():
    name = os.environ.get("DEVSTACK_EMULATOR_LOG")
    if not name or not Path(name).is_file():
        pytest.skip("no emulator log to search: run the suite with `make test`, which captures it")
    text = Path(name).read_text(errors="replace")
    assert "us-central1" in text, "the log holds no function output: is it the emulators' log?"
    found = _findings(text, SECRETS | _demo_passwords())
    assert found == [], f"{len(found)} findings in {name}:\n" + "\n".join(found[:20])
