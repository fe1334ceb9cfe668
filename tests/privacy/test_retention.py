"""Retention (issue 28 item 5): privacy.retentionDays.* per client, enforced by privacy/retention.py (the schedule
privacyretention runs it every hour; the emulator runs no schedules, so the tests call it).

Data is made through each area's API, dated in the past by moving the clock back while it is made.
"""

import datetime as dt
import uuid

import pytest

from support.ai_move import make_exercise
from support.vital_scan import make_partner
from tests.fall_risk.conftest import born_aged, complete
from tests.ops.test_cli import expect_failures, run_json
from wellness_api.ai_move.routes import app as ai_move_app
from wellness_api.assistant import repository as assistant_repo
from wellness_api.assistant.routes import app as assistant_app
from wellness_api.core import clock, firebase, personal_data, settings, tenancy
from wellness_api.fall_risk.routes import app as fall_risk_app
from wellness_api.privacy import retention
from wellness_api.vital_scan.routes import app as vital_scan_app

ROLLUPS = ("vitalScanActivity", "fallRiskActivity", "aiMoveActivity", "assistantActivity")
ALL_KINDS = ("vitalScan", "fallRisk", "aiMove", "assistant")


def periods(tenant, days: int | None = None, **by_kind: int) -> None:
    values = {kind: days for kind in ALL_KINDS} | by_kind
    tenant.configure(*(f"privacy.retentionDays.{kind}={n}" for kind, n in values.items() if n is not None))


def enable(tenant) -> None:
    """Every area with health data on, as a client using them has it."""
    tenant.partner = make_partner(tenant, points=50)
    tenant.configure("modules.aiMove=true", "modules.wellnessChat=true")
    tenant.exercise = make_exercise(tenant.client, "rep", name="Squats")


def populate(tenant, senior=None) -> dict[str, str]:
    """One of each kind of health data at the clock's now, made through the APIs: {kind: document id}."""
    session = vital_scan_app.test_client().post(
        "/api/v1/vital-scan/sessions", json={"userId": f"ext-{uuid.uuid4().hex[:8]}"}, headers=tenant.partner.headers)
    assert session.status_code == 201, session.json
    senior = senior or tenant.add_member("player", birth_date=born_aged(72), sex="female")
    result = complete(fall_risk_app.test_client(), senior)
    move = ai_move_app.test_client().post("/api/ai-move/sessions", headers=tenant.player.headers, json={
        "exerciseId": tenant.exercise, "exerciseType": "rep", "targetReps": 10})
    assert move.status_code == 201, move.json
    chat = assistant_app.test_client().post("/api/wellness-chat", json={"message": "What can you do?"},
                                            headers=tenant.player.headers)
    assert chat.status_code == 200, chat.json
    conversation_id = _conversation_of(chat.get_data())
    return {"vitalScan": session.json["data"]["vitalScanResultId"], "fallRisk": result["fallRiskResultId"],
            "aiMove": move.json["sessionId"], "assistant": conversation_id, "senior": senior}


def _conversation_of(stream: bytes) -> str:
    import json

    last = [block for block in stream.decode().split("\n\n") if block.strip()][-1]
    data = json.loads(next(line[6:] for line in last.splitlines() if line.startswith("data: ")))
    return data["conversationId"]


def populate_days_ago(tenant, days: int, senior=None) -> dict[str, str]:
    with clock.shifted(-dt.timedelta(days=days)):
        return populate(tenant, senior)


COLLECTION = {kind.name: kind.collection for kind in retention.KINDS}


def exists(tenant, kind: str, doc_id: str) -> bool:
    return tenancy.client_ref(tenant.client_id).collection(COLLECTION[kind]).document(doc_id).get().exists


def kept(tenant, made: dict[str, str]) -> dict[str, bool]:
    return {kind: exists(tenant, kind, made[kind]) for kind in ALL_KINDS}


def rollups(tenant) -> dict[str, dict]:
    client = tenancy.client_ref(tenant.client_id)
    return {f"{name}/{snap.id}": snap.to_dict() for name in ROLLUPS for snap in client.collection(name).stream()}


def fall_risk_summary(tenant, member) -> dict | None:
    return (tenancy.user_ref(tenant.client_id, member.uid).get().to_dict() or {}).get("fallRisk")


@pytest.fixture
def clinic(make_tenant):
    tenant = make_tenant()
    enable(tenant)
    return tenant


@pytest.fixture
def other_clinic(make_tenant):
    tenant = make_tenant()
    enable(tenant)
    return tenant


def test_each_client_keeps_its_data_for_its_own_period(clinic, other_clinic):
    periods(clinic, 30)
    periods(other_clinic, 60)
    old = populate_days_ago(clinic, 40)
    young = populate_days_ago(clinic, 20)
    others = populate_days_ago(other_clinic, 40)
    counts_before = rollups(clinic)
    conversation_messages = list(tenancy.client_ref(clinic.client_id).collection(COLLECTION["assistant"])
                                 .document(old["assistant"]).collection(assistant_repo.MESSAGES).stream())
    assert conversation_messages

    report = retention.sweep(client_ids=[clinic.client_id, other_clinic.client_id])

    assert report["deleted"] == {kind: 1 for kind in ALL_KINDS} and report["complete"], report
    assert kept(clinic, old) == {kind: False for kind in ALL_KINDS}
    assert kept(clinic, young) == {kind: True for kind in ALL_KINDS}
    # The other client's data is as old, but its period is longer.
    assert kept(other_clinic, others) == {kind: True for kind in ALL_KINDS}
    # The conversation's messages went with it.
    assert not list(tenancy.client_ref(clinic.client_id).collection(COLLECTION["assistant"]).document(old["assistant"])
                    .collection(assistant_repo.MESSAGES).stream())
    # The rollups keep every count: analytics' history does not change.
    assert rollups(clinic) == counts_before
    # The member's latest-result summary named the deleted result: gone with it; the younger one's stays.
    assert fall_risk_summary(clinic, old["senior"]) is None
    assert fall_risk_summary(clinic, young["senior"])["fallRiskResultId"] == young["fallRisk"]
    assert fall_risk_summary(other_clinic, others["senior"])["fallRiskResultId"] == others["fallRisk"]
    # What the APIs answer: the deleted session is not found, the young one is.
    vital = vital_scan_app.test_client()
    assert vital.get(f"/api/v1/vital-scan/sessions/{old['vitalScan']}", headers=clinic.partner.headers).status_code == 404
    clock.advance(dt.timedelta(seconds=5))  # the poll limit
    assert vital.get(f"/api/v1/vital-scan/sessions/{young['vitalScan']}",
                     headers=clinic.partner.headers).status_code == 200


def test_periods_are_per_kind_and_zero_keeps_everything(clinic):
    periods(clinic, 0, assistant=7)
    old = populate_days_ago(clinic, 3000)
    report = retention.sweep(client_ids=[clinic.client_id])
    assert report["deleted"] == {"vitalScan": 0, "fallRisk": 0, "aiMove": 0, "assistant": 1}
    assert kept(clinic, old) == {"vitalScan": True, "fallRisk": True, "aiMove": True, "assistant": False}


def test_the_defaults_apply_to_a_client_that_set_nothing(clinic):
    defaults = {kind: settings.SETTINGS[f"privacy.retentionDays.{kind}"].default for kind in ALL_KINDS}
    assert defaults == {"vitalScan": 730, "fallRisk": 730, "aiMove": 730, "assistant": 90}
    within = populate_days_ago(clinic, 80)
    past_chat = populate_days_ago(clinic, 100)
    report = retention.sweep(client_ids=[clinic.client_id])
    assert report["deleted"] == {"vitalScan": 0, "fallRisk": 0, "aiMove": 0, "assistant": 1}
    assert kept(clinic, within) == {kind: True for kind in ALL_KINDS}
    assert kept(clinic, past_chat) == {"vitalScan": True, "fallRisk": True, "aiMove": True, "assistant": False}


def test_a_run_is_bounded_per_client_and_the_next_runs_finish_the_job(clinic, other_clinic):
    periods(clinic, 10)
    periods(other_clinic, 10)
    senior = clinic.add_member("player", birth_date=born_aged(72), sex="female")
    big = [populate_days_ago(clinic, 20 + i, senior) for i in range(3)]
    small = populate_days_ago(other_clinic, 20)
    ids = [clinic.client_id, other_clinic.client_id]

    # Two documents of a kind per client and run: the big client has more left, the other one is served all the same.
    first = retention.sweep(client_ids=ids, per_client=2, page=2)
    assert first["complete"] and first["more"] == [clinic.client_id]
    assert kept(other_clinic, small) == {kind: False for kind in ALL_KINDS}
    assert first["deleted"] == {kind: 3 for kind in ALL_KINDS}  # 2 of the big client's 3, the small one's 1
    # A run cut short by its budget (none at all here: one page of the first client) resumes where it stopped.
    runs = 0
    while True:
        runs += 1
        report = retention.sweep(client_ids=[clinic.client_id], per_client=1, page=1, budget_seconds=0)
        if report["complete"] and not report["more"]:
            break
        assert report["resumeAfter"] is None and runs < 20, report
    assert runs > 1
    assert all(kept(clinic, made) == {kind: False for kind in ALL_KINDS} for made in big)
    # Idempotent: nothing left, nothing deleted, no error.
    again = retention.sweep(client_ids=ids)
    assert again["deleted"] == {kind: 0 for kind in ALL_KINDS} and again["complete"] and not again["more"]


def test_a_run_stopped_by_its_budget_resumes_at_the_next_client(make_tenant):
    tenants = sorted((make_tenant() for _ in range(3)), key=lambda t: t.client_id)
    ids = [t.client_id for t in tenants]
    after, visited = None, []
    for _ in range(3):
        report = retention.sweep(client_ids=ids, after=after, budget_seconds=0)
        visited.append(report["clients"])
        after = report["resumeAfter"]
        if report["complete"]:
            break
    # One client per run (the first is always swept, then the budget is out), in id order, then done.
    assert visited == [1, 1, 1] and report["complete"]


def test_a_conversation_whose_messages_went_in_an_interrupted_run_is_finished(clinic):
    periods(clinic, 10)
    made = populate_days_ago(clinic, 20)
    messages = (tenancy.client_ref(clinic.client_id).collection(COLLECTION["assistant"]).document(made["assistant"])
                .collection(assistant_repo.MESSAGES))
    for snap in list(messages.stream())[:1]:
        snap.reference.delete()  # what a run that died midway leaves: some messages gone, the conversation there
    report = retention.sweep(client_ids=[clinic.client_id])
    assert report["deleted"]["assistant"] == 1
    assert not exists(clinic, "assistant", made["assistant"]) and not list(messages.stream())


def test_the_operator_cli_sweeps_one_client_now(clinic):
    periods(clinic, 10)
    made = populate_days_ago(clinic, 20)
    report = run_json("retention", "sweep", "--client-id", clinic.client_id)
    assert report["deleted"] == {kind: 1 for kind in ALL_KINDS} and report["complete"]
    assert kept(clinic, made) == {kind: False for kind in ALL_KINDS}


def test_the_schedule_resumes_after_the_client_where_its_last_run_stopped(monkeypatch, make_tenant):
    make_tenant(), make_tenant(), make_tenant()  # three clients after the cursor at least, whatever else ran
    cursor = firebase.db().collection(retention.CURSOR[0]).document(retention.CURSOR[1])
    # From the tests' own clients (t-...), past the demo world's (demo-..., operator).
    cursor.set({"resumeAfter": "t-"})
    monkeypatch.setattr(retention, "BUDGET_SECONDS", 0)  # one client per run
    first = retention.run_scheduled()
    second = retention.run_scheduled()
    assert first["clients"] == second["clients"] == 1
    assert "t-" < first["resumeAfter"] < second["resumeAfter"] == cursor.get().get("resumeAfter")


def test_client_configure_refuses_bad_periods(tenant):
    key = "privacy.retentionDays.vitalScan"
    expect_failures(("client", "configure", "--client-id", tenant.client_id), [
        (["--set", f"{key}=-1"], f"{key} must be at least 0"),
        (["--set", f"{key}=3651"], f"{key} must be at most 3650"),
        (["--set", f"{key}=30d"], f"{key} must be an integer"),
        (["--set", "privacy.retentionDays.weight=30"], "unknown setting 'privacy.retentionDays.weight'"),
    ])
    assert tenancy.get_client(tenant.client_id).setting(key) == 730  # nothing was written
    configured = run_json("client", "configure", "--client-id", tenant.client_id, "--set", f"{key}=3650",
                          "--set", "privacy.retentionDays.assistant=0")
    assert configured["settings"][key] == 3650 and configured["settings"]["privacy.retentionDays.assistant"] == 0


def test_the_declarations_name_the_retention_settings_the_sweep_enforces():
    """core/personal_data.py's Location.retention is the docs' word for how long data is kept: it must name the
    setting that retention.py enforces on that collection, and nothing else; what hangs off a swept document (its
    declared sub-collections, its Storage objects) must go with it."""
    declared: dict[str, list] = {}
    for decl in personal_data.registry():
        for loc in decl.locations:
            if loc.path.startswith("clients/{clientId}/") and loc.path.count("/") == 3:
                declared.setdefault(loc.collection_id(), []).append((decl.area, loc))
    by_setting = {kind.setting: (kind.collection, *kind.children) for kind in retention.KINDS}
    wrong = []
    for kind in retention.KINDS:
        locations = declared.get(kind.collection, [])
        if not locations:
            wrong.append(f"no area declares clients/{{clientId}}/{kind.collection}, which the sweep deletes from")
        elif not any(location.retention == kind.setting for _, location in locations):
            area, location = next(((a, loc) for a, loc in locations if loc.kind == "health"), locations[0])
            wrong.append(f"functions/wellness_api/{area}/personal_data.py: Location {location.name!r} "
                         f"({location.path}) has retention={location.retention!r}; the sweep enforces "
                         f"{kind.setting!r} there")
        for area, location in locations:
            file = f"functions/wellness_api/{area}/personal_data.py"
            if location.storage_field:
                wrong.append(f"{file}: Location {location.name!r} names Storage objects ({location.storage_field}) the "
                             f"sweep does not delete: privacy/retention.py must delete them with the documents")
            declared_area = personal_data.declaration(area)
            for child in declared_area.locations:
                if (isinstance(child.find, personal_data.Under) and child.find.parent == location.name
                        and child.collection_id() not in kind.children):
                    wrong.append(f"{file}: {child.path} hangs off {location.name!r}, and privacy/retention.py's kind "
                                 f"{kind.name!r} does not delete it with its parent (Kind.children)")
    for decl in personal_data.registry():
        for location in decl.locations:
            file = f"functions/wellness_api/{decl.area}/personal_data.py"
            if location.retention and location.retention not in settings.SETTINGS:
                wrong.append(f"{file}: Location {location.name!r} names retention={location.retention!r}, which is no "
                             "tenant setting")
            elif location.retention and location.collection_id() not in by_setting.get(location.retention, ()):
                wrong.append(f"{file}: Location {location.name!r} ({location.path}) names retention="
                             f"{location.retention!r}, which privacy/retention.py does not enforce there (only on "
                             f"{sorted(by_setting.get(location.retention, ()))})")
    assert not wrong, "\n".join(sorted(set(wrong)))
