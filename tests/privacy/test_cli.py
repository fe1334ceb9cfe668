"""`platformctl user export` and `user erase` (CONTRACT section 3): one JSON document on stdout, failures a one-line
message on stderr and a non-zero exit; without --wait the request is left to the real Tasks emulator's worker."""

import io
import json
import time
import urllib.parse
import zipfile

import pytest

from tests.privacy.conftest import http  # noqa: F401 - the area's test client
from wellness_api.core import firebase
from wellness_api.ops import cli
from wellness_api.privacy import repository as repo


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_user_export_wait_prints_the_finished_request_with_its_link(capsys, tenant, http):  # noqa: F811
    code, out, err = run(capsys, "user", "export", "--client-id", tenant.client_id, "--uid", tenant.player.uid,
                         "--wait")
    assert code == 0, err
    printed = json.loads(out)
    assert list(printed) == ["requestId", "status", "downloadUrl", "manifest"] and printed["status"] == "completed"
    assert printed["manifest"]["identity"] == 2 and printed["manifest"]["vital_scan"] == 0
    response = http.get(urllib.parse.urlsplit(printed["downloadUrl"]).path)
    assert response.status_code == 200
    assert json.loads(zipfile.ZipFile(io.BytesIO(response.get_data())).read("manifest.json")) == printed["manifest"]
    stored = repo.read(tenant.client_id, printed["requestId"]).data
    assert stored["requestedBy"] == {"kind": "operator", "uid": None, "role": None, "uidHash": None}


def test_user_erase_wait_prints_the_report(capsys, tenant):
    code, out, err = run(capsys, "user", "erase", "--client-id", tenant.client_id, "--uid", tenant.player.uid, "--wait")
    assert code == 0, err
    printed = json.loads(out)
    assert list(printed) == ["requestId", "status", "report"] and printed["status"] == "completed"
    assert printed["report"]["identity"] == {"deleted": 2, "anonymised": 0}
    assert all(set(counts) == {"deleted", "anonymised"} for counts in printed["report"].values())
    assert tenant.player.uid not in out and tenant.player.email not in out
    assert not firebase.db().document(f"clients/{tenant.client_id}/users/{tenant.player.uid}").get().exists


def test_without_wait_the_task_queue_runs_it(capsys, tenant):
    code, out, err = run(capsys, "user", "export", "--client-id", tenant.client_id, "--uid", tenant.admin.uid)
    assert code == 0, err
    printed = json.loads(out)
    assert printed["status"] == "queued" and printed["manifest"] == {} and "downloadUrl" not in printed
    deadline = time.monotonic() + 120
    while repo.read(tenant.client_id, printed["requestId"]).data["status"] != "completed":
        assert time.monotonic() < deadline, "the Tasks emulator's privacyworker did not finish the export"
        time.sleep(0.5)


@pytest.mark.parametrize("argv, message", [
    (["--uid", "nobody"], "platformctl: User not found.\n"),
    (["--uid", "u" * 129], "platformctl: --uid: at most 128 characters\n"),
])
def test_failures_are_one_line_and_non_zero(capsys, tenant, argv, message):
    for command in ("export", "erase"):
        code, out, err = run(capsys, "user", command, "--client-id", tenant.client_id, *argv)
        assert (code, out, err) == (1, "", message)


def test_an_unknown_client_is_refused(capsys):
    code, out, err = run(capsys, "user", "erase", "--client-id", "no-such-client", "--uid", "u1")
    assert code == 1 and out == "" and err.count("\n") == 1
