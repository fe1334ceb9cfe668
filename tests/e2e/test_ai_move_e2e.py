"""AI Move through Hosting: an app's whole exercise session, the statistics it feeds, and the admin records."""

from tests.ai_move.conftest import make_exercise
from tests.conftest import bearer, sign_in
from wellness_api.ai_move import service
from wellness_api.core.rollups import day_of

SESSIONS = "/api/ai-move/sessions"


def test_an_app_runs_a_session_to_completion_and_the_admin_sees_it(api, tenant, other_tenant):
    tenant.configure("modules.aiMove=true")
    squat = make_exercise(tenant.client, "rep", name="Squats", nameZh="深蹲", estimatedCalories=6)
    make_exercise(tenant.client, "timer", name="Hidden hold", enabled=False)
    player = bearer(sign_in(tenant.player.email, tenant.player.password))
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))

    catalog = api("GET", "/api/ai-move/exercises", headers=player)
    assert catalog.status_code == 200 and [e["name"] for e in catalog.json()["exercises"]] == ["Squats"]
    detail = api("GET", f"/api/ai-move/exercises/{squat}", headers=player).json()["exercise"]
    assert detail["nameZh"] == "深蹲" and detail["algorithm"] == {"mode": "rep-count"}

    created = api("POST", SESSIONS, headers=player, json={"exerciseId": squat, "exerciseType": "rep", "targetReps": 12})
    assert created.status_code == 201 and created.headers["x-request-id"]
    session_id = created.json()["sessionId"]
    assert created.json()["status"] == "created" and created.json()["formScore"] is None

    progress = {"status": "in-progress", "repsCompleted": 5, "poseAccuracy": 0.8, "durationSeconds": 20}
    assert api("PATCH", f"{SESSIONS}/{session_id}", headers=player, json=progress).json() == {"success": True}
    done = {"status": "completed", "completionOutcome": "success", "repsCompleted": 12, "durationSeconds": 44.5,
            "caloriesBurned": 6.2, "formScore": 0.86,
            "formViolations": [{"key": "kneesOverToes", "label": "Knees over toes", "labelZh": "膝蓋過腳尖",
                                "weight": 0.4, "totalChecks": 90, "violationCount": 9, "violationRate": 0.1}]}
    assert api("PATCH", f"{SESSIONS}/{session_id}", headers=player, json=done).status_code == 200
    assert api("PATCH", f"{SESSIONS}/{session_id}", headers=player, json=done).status_code == 200  # a retry
    assert api("PATCH", f"{SESSIONS}/{session_id}", headers=player,
               json={"status": "in-progress"}).status_code == 409

    session = api("GET", f"{SESSIONS}/{session_id}", headers=player).json()["session"]
    assert session["status"] == "completed" and session["completedAt"] and session["repsCompleted"] == 12
    listed = api("GET", f"{SESSIONS}?limit=5", headers=player).json()
    assert [s["sessionId"] for s in listed["sessions"]] == [session_id] and listed["nextStartAfter"] is None
    stats = api("GET", "/api/ai-move/statistics", headers=player).json()["statistics"]
    assert (stats["sessionsCompleted"], stats["totalReps"], stats["bestFormScore"]) == (1, 12, 0.86)
    assert service.daily_activity(tenant.client_id, day_of(), day_of())[day_of()]["sessionsCompleted"] == 1

    records = api("GET", "/api/ai-move/records?limit=10", headers=admin).json()
    assert records["count"] == 1 and records["data"][0]["id"] == session_id
    assert api("GET", "/api/ai-move/records", headers=player).json() == {"error": "Admin authentication required."}

    # Another tenant's user neither sees nor changes the session; the module gate answers 403.
    other_tenant.configure("modules.aiMove=true")
    stranger = bearer(sign_in(other_tenant.player.email, other_tenant.player.password))
    assert api("GET", f"{SESSIONS}/{session_id}", headers=stranger).status_code == 404
    assert api("PATCH", f"{SESSIONS}/{session_id}", headers=stranger, json=progress).status_code == 404
    other_tenant.configure("modules.aiMove=false")
    assert api("GET", "/api/ai-move/exercises", headers=stranger).json() == {
        "error": "The AI Move module is not enabled for this client."}
    assert api("GET", "/api/ai-move/exercises").status_code == 401


def test_caps_through_hosting(api, tenant):
    """Issue 25: inputs over their caps are 400s naming the field, refused before any work."""
    tenant.configure("modules.aiMove=true")
    timer = make_exercise(tenant.client, "timer", name="Plank")
    player = bearer(sign_in(tenant.player.email, tenant.player.password))
    admin = bearer(sign_in(tenant.admin.email, tenant.admin.password))
    over = api("POST", SESSIONS, headers=player, json={"exerciseId": timer, "exerciseType": "timer",
                                                       "targetDurationSeconds": 86_401})
    assert (over.status_code, over.json()) == (400, {"error": "Invalid field targetDurationSeconds: Input should be "
                                                              "less than or equal to 86400."})
    for path, headers in ((f"{SESSIONS}?startAfter={'0' * 65}", player),
                          (f"/api/ai-move/records?startAfter={'0' * 65}", admin)):
        answer = api("GET", path, headers=headers)
        assert (answer.status_code, answer.json()) == (
            400, {"error": "Invalid field startAfter: String should have at most 64 characters."}), path
