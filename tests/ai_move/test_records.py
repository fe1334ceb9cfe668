"""GET /api/ai-move/records (4.6, 7.5, 8): every user's sessions of a client for its admins, newest first."""

import pytest

from tests.ai_move.conftest import SESSIONS, start
from wellness_api.ai_move import models, service
from wellness_api.core import auth

RECORDS = "/api/ai-move/records"


def records(http, member, query: str = "") -> dict:
    response = http.get(f"{RECORDS}{query}", headers=member.headers)
    assert response.status_code == 200, response.json
    assert set(response.json) == {"data", "count", "nextStartAfter"}
    assert response.json["count"] == len(response.json["data"])
    return response.json


@pytest.fixture
def played(http, mover):
    """Four sessions of two players (oldest first in mover.sessions); one completed."""
    mover.second = mover.add_member("player")
    mover.sessions = [
        start(http, mover.player, mover.rep),
        start(http, mover.second, mover.timer, "timer"),
        start(http, mover.player, mover.timer, "timer", targetDurationSeconds=45),
        start(http, mover.second, mover.rep, targetReps=8),
    ]
    done = http.patch(f"{SESSIONS}/{mover.sessions[0]['sessionId']}", headers=mover.player.headers,
                      json={"status": "completed", "repsCompleted": 10, "durationSeconds": 31.5,
                            "caloriesBurned": 4.2})
    assert done.status_code == 200, done.json
    return mover


def test_admin_reads_every_users_records_newest_first(http, played, other_tenant):
    other_tenant.configure("modules.aiMove=true")  # another client's sessions never show
    body = records(http, played.admin)
    newest_first = list(reversed(played.sessions))
    assert [r["id"] for r in body["data"]] == [s["sessionId"] for s in newest_first]
    assert body["count"] == 4 and body["nextStartAfter"] is None
    created = [r["createdAt"] for r in body["data"]]
    assert created == sorted(created, reverse=True)
    for record in body["data"]:
        assert tuple(record) == models.RECORD_FIELDS
    completed = played.sessions[0]
    stored = http.get(f"{SESSIONS}/{completed['sessionId']}", headers=played.player.headers).json["session"]
    assert body["data"][-1] == {
        "id": completed["sessionId"], "clientId": played.client_id, "userId": played.player.uid,
        "exerciseId": played.rep, "exerciseType": "rep", "status": "completed", "repsCompleted": 10,
        "durationSeconds": 31.5, "caloriesBurned": 4.2, "createdAt": completed["createdAt"],
        "completedAt": stored["completedAt"],
    }
    assert stored["completedAt"] is not None
    latest = played.sessions[3]
    assert body["data"][0] == {
        "id": latest["sessionId"], "clientId": played.client_id, "userId": played.second.uid,
        "exerciseId": played.rep, "exerciseType": "rep", "status": "created", "repsCompleted": 0,
        "durationSeconds": 0, "caloriesBurned": 0, "createdAt": latest["createdAt"], "completedAt": None,
    }
    assert {r["userId"] for r in body["data"]} == {played.player.uid, played.second.uid}


def test_no_sessions_is_an_empty_page(http, mover):
    assert records(http, mover.admin) == {"data": [], "count": 0, "nextStartAfter": None}


def test_pages_with_limit_and_start_after(http, played):
    expected = [s["sessionId"] for s in reversed(played.sessions)]
    first = records(http, played.admin, "?limit=3")
    assert [r["id"] for r in first["data"]] == expected[:3]
    assert first["count"] == 3 and first["nextStartAfter"] == expected[2]
    # a session started meanwhile sorts before the cursor: the next page neither shifts nor repeats
    newer = start(http, played.player, played.rep)
    second = records(http, played.admin, f"?limit=3&startAfter={first['nextStartAfter']}")
    assert [r["id"] for r in second["data"]] == expected[3:]
    assert second["count"] == 1 and second["nextStartAfter"] is None
    # exactly a page left: no next page
    exact = records(http, played.admin, f"?limit=1&startAfter={expected[2]}")
    assert [r["id"] for r in exact["data"]] == expected[3:] and exact["nextStartAfter"] is None
    assert records(http, played.admin, "?limit=1")["data"][0]["id"] == newer["sessionId"]
    # an unknown but well-formed cursor is a position, not an error
    assert records(http, played.admin, f"?startAfter={expected[-1]}") == {"data": [], "count": 0,
                                                                         "nextStartAfter": None}


def test_limit_default_and_bounds(http, mover):
    sessions = [start(http, mover.player, mover.rep) for _ in range(3)]
    assert records(http, mover.admin, "?limit=500")["count"] == 3
    assert records(http, mover.admin, "?limit=1")["count"] == 1
    assert records(http, mover.admin)["count"] == 3
    assert models.RECORDS_PAGE_DEFAULT == 50 and models.RECORDS_PAGE_MAX == 500
    for bad, message in [
        ("0", "Invalid field limit: Input should be greater than or equal to 1."),
        ("501", "Invalid field limit: Input should be less than or equal to 500."),
        ("x", "Invalid field limit: Input should be a valid integer."),
        ("1.5", "Invalid field limit: Input should be a valid integer."),
        ("-1", "Invalid field limit: Input should be greater than or equal to 1."),
    ]:
        response = http.get(f"{RECORDS}?limit={bad}", headers=mover.admin.headers)
        assert response.status_code == 400, bad
        assert response.json == {"error": message}, bad
    response = http.get(f"{RECORDS}?startAfter=not%2Fan-id", headers=mover.admin.headers)
    assert response.status_code == 400
    assert response.json == {"error": "Invalid field startAfter: not a record id."}
    assert len(sessions) == 3


def test_default_limit_is_fifty(http, mover, monkeypatch):
    seen = []
    real = service.repo.client_sessions

    def spy(client_id, limit, start_after):
        seen.append(limit)
        return real(client_id, limit, start_after)

    monkeypatch.setattr(service.repo, "client_sessions", spy)
    records(http, mover.admin)
    records(http, mover.admin, "?limit=7")
    assert seen == [50, 7]


def test_players_and_anonymous_callers_are_401(http, played):
    player = http.get(RECORDS, headers=played.player.headers)
    assert player.status_code == 401 and player.json == {"error": service.ADMIN_REQUIRED}
    own = http.get(f"{RECORDS}?clientId={played.client_id}", headers=played.player.headers)
    assert own.status_code == 401 and own.json == {"error": service.ADMIN_REQUIRED}
    anonymous = http.get(RECORDS)
    assert anonymous.status_code == 401 and anonymous.json == {"error": auth.MISSING_AUTH}
    forged = http.get(RECORDS, headers={"Authorization": "Bearer forged"})
    assert forged.status_code == 401 and forged.json == {"error": auth.INVALID_TOKEN}


def test_admin_naming_another_client_is_403(http, played, other_tenant):
    other_tenant.configure("modules.aiMove=true")
    for client_id in (other_tenant.client_id, "no-such-client"):
        response = http.get(f"{RECORDS}?clientId={client_id}", headers=played.admin.headers)
        assert response.status_code == 403, client_id
        assert response.json == {"error": auth.FORBIDDEN}
    # naming its own client is the default
    assert records(http, played.admin, f"?clientId={played.client_id}") == records(http, played.admin)


def test_platform_admin_reads_any_client(http, played, platform_admin, operator_tenant):
    operator_tenant.configure("modules.aiMove=true")
    body = records(http, platform_admin, f"?clientId={played.client_id}")
    assert [r["id"] for r in body["data"]] == [s["sessionId"] for s in reversed(played.sessions)]
    assert {r["clientId"] for r in body["data"]} == {played.client_id}
    assert records(http, platform_admin, f"?clientId={played.client_id}&limit=2")["count"] == 2
    unknown = http.get(f"{RECORDS}?clientId=no-such-client", headers=platform_admin.headers)
    assert unknown.status_code == 404 and unknown.json == {"error": service.CLIENT_NOT_FOUND}
    # without clientId: the operator tenant's own records
    own = records(http, platform_admin)
    assert all(r["clientId"] == operator_tenant.client_id for r in own["data"])
    # an operator player is not an admin
    player = http.get(f"{RECORDS}?clientId={played.client_id}", headers=operator_tenant.player.headers)
    assert player.status_code == 401 and player.json == {"error": service.ADMIN_REQUIRED}


def test_module_off_for_the_target_client_is_403(http, played, other_tenant, platform_admin):
    # other_tenant never turned AI Move on
    response = http.get(f"{RECORDS}?clientId={other_tenant.client_id}", headers=platform_admin.headers)
    assert response.status_code == 403 and response.json == {"error": service.MODULE_OFF}
    response = http.get(RECORDS, headers=other_tenant.admin.headers)
    assert response.status_code == 403 and response.json == {"error": service.MODULE_OFF}
    played.configure("modules.aiMove=false")
    for headers, query in [(played.admin.headers, ""), (platform_admin.headers, f"?clientId={played.client_id}")]:
        response = http.get(f"{RECORDS}{query}", headers=headers)
        assert response.status_code == 403 and response.json == {"error": service.MODULE_OFF}
