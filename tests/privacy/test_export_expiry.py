"""An export's archive is deleted privacy.exportRetentionDays (default 7) after the export completed, by the hourly
retention sweep (privacy/retention.py expire_exports); its request then hands out no link, and a link handed out
before answers the download's documented 404."""

import datetime as dt

from tests.ops.test_cli import expect_failures
from tests.privacy.conftest import create, deliver, read
from wellness_api.core import clock, firebase
from wellness_api.privacy import repository as repo
from wellness_api.privacy import retention
from wellness_api.privacy.service import BAD_LINK


def _export_days_ago(http, tenant, days: int) -> str:
    with clock.shifted(-dt.timedelta(days=days)):
        request = create(http, tenant.admin.headers, "export", tenant.player.uid)
        assert deliver(tenant.client_id, request["requestId"]) == "completed"
    return request["requestId"]


def _link_path(http, tenant, request_id: str) -> str | None:
    url = read(http, tenant.admin.headers, request_id)["downloadUrl"]
    return None if url is None else "/" + url.split("/", 3)[3]


def test_the_sweep_expires_archives_past_the_clients_period_and_their_links_answer_404(http, make_tenant,
                                                                                     held_tasks):
    tenant, patient = make_tenant(), make_tenant()
    patient.configure("privacy.exportRetentionDays=30")
    old, recent = _export_days_ago(http, tenant, 8), _export_days_ago(http, tenant, 6)
    kept_longer = _export_days_ago(http, patient, 8)
    old_link = _link_path(http, tenant, old)
    assert http.get(old_link).status_code == 200
    old_archive = repo.read(tenant.client_id, old).data["archivePath"]

    report = retention.sweep(client_ids=[tenant.client_id, patient.client_id])
    assert report["exportsExpired"] == 1 and report["complete"] and not report["more"], report

    assert firebase.bucket().get_blob(old_archive) is None
    stored = repo.read(tenant.client_id, old).data
    assert stored["archiveState"] == "expired" and stored["archivePath"] is None and stored["downloadKey"] is None
    assert stored["status"] == "completed" and stored["manifest"]  # the audit record stays
    gone = http.get(old_link)
    assert gone.status_code == 404 and gone.json == {"error": BAD_LINK}
    assert _link_path(http, tenant, old) is None
    assert read(http, tenant.admin.headers, old)["archiveExpiredAt"] is not None
    assert read(http, tenant.admin.headers, recent)["archiveExpiredAt"] is None

    for client, request_id in ((tenant, recent), (patient, kept_longer)):
        assert http.get(_link_path(http, client, request_id)).status_code == 200

    again = retention.sweep(client_ids=[tenant.client_id, patient.client_id])
    assert again["exportsExpired"] == 0, again


def test_a_sweep_stopped_after_deleting_the_archive_is_finished_by_the_next(http, tenant, held_tasks):
    request_id = _export_days_ago(http, tenant, 10)
    archive = repo.read(tenant.client_id, request_id).data["archivePath"]
    repo.delete_object(archive)  # as if the run died between the object and the request
    assert retention.sweep(client_ids=[tenant.client_id])["exportsExpired"] == 1
    assert repo.read(tenant.client_id, request_id).data["archiveState"] == "expired"


def test_client_configure_refuses_export_periods_out_of_bounds(tenant):
    key = "privacy.exportRetentionDays"
    expect_failures(("client", "configure", "--client-id", tenant.client_id), [
        (["--set", f"{key}=0"], f"{key} must be at least 1"),
        (["--set", f"{key}=31"], f"{key} must be at most 30"),
    ])
