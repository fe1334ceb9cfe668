"""Secrets never reach the logs (pure)."""

import json

from wellness_api.core import logging as log
from wellness_api.core import server_keys

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"


def test_scrub_removes_every_kind_of_secret():
    key = server_keys.generate()
    text = log.scrub(f"Authorization: Bearer {JWT} key={key} password=hunter2 token {JWT} {key}")
    assert JWT not in text and key not in text and "hunter2" not in text


def test_structured_fields_are_redacted(capsys):
    key = server_keys.generate()
    log.info("probe", requestId="r1", password="hunter2", nested={"clientSecret": key, "ok": "fine"}, note=f"k {key}")
    line = json.loads(capsys.readouterr().out.strip())
    assert line["severity"] == "INFO" and line["requestId"] == "r1"
    assert line["password"] == "[REDACTED]"
    assert line["nested"] == {"clientSecret": "[REDACTED]", "ok": "fine"}
    assert key not in line["note"]


def test_error_lines_go_to_stderr(capsys):
    log.error("boom", requestId="r2")
    captured = capsys.readouterr()
    assert captured.out == "" and json.loads(captured.err)["severity"] == "ERROR"
