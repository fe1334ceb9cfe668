"""platformctl vitalscan points / sweep, as an operator runs them."""

import datetime as dt

from tests.ops.test_cli import platformctl, run_json
from tests.vital_scan.conftest import make_partner
from wellness_api.core import clock
from wellness_api.vital_scan import points
from wellness_api.vital_scan import repository as repo


def test_points_shows_the_cycle_account(http, tenant):
    partner = make_partner(tenant, points=5)
    for _ in range(2):
        assert http.post("/api/v1/vital-scan/sessions", json={"userId": "u"}, headers=partner.headers).status_code == 201
    account = run_json("vitalscan", "points", "--client-id", partner.client_id)
    cycle = points.cycle_of(clock.now())
    assert account == {"clientId": partner.client_id, "cycleId": cycle.cycle_id, "points": 5, "spent": 2,
                       "remaining": 3, "resetsAt": clock.iso(cycle.resets_at)}
    failed = platformctl("vitalscan", "points", "--client-id", "no-such-client", check=False)
    assert failed.returncode == 1 and failed.stdout == "" and "not found" in failed.stderr


def test_sweep_command_expires_old_sessions(http, partner):
    clock.advance(-dt.timedelta(hours=3))  # a session made three hours ago (the CLI runs on the real clock)
    sid = http.post("/api/v1/vital-scan/sessions", json={"userId": "u"}, headers=partner.headers).json["data"][
        "vitalScanResultId"]
    clock.reset()
    assert run_json("vitalscan", "sweep")["expired"] >= 1
    assert repo.session_ref(partner.client_id, sid).get().get("status") == "expired"
