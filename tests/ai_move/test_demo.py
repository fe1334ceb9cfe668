"""The AI Move part of the demo world (`platformctl seed`, CONTRACT section 3): a localized library, the demo client's
catalog, two weeks of the demo player's sessions with statistics and records; seeding again changes nothing."""

import pytest

from tests.ai_move.conftest import SESSIONS
from tests.conftest import bearer, sign_in
from wellness_api.ai_move import demo
from wellness_api.ai_move import repository as repo
from wellness_api.core import tenancy
from wellness_api.ops import demo as world_demo

EXERCISES = "/api/ai-move/exercises"
MODULES = ("aiMove", "vitalScan", "mediaGeneration", "wellnessChat", "analytics")
SPECS = dict(demo.LIBRARY + demo.CUSTOM)


@pytest.fixture(scope="module")
def world(emulators) -> dict:
    """The demo world, seeded in-process without a reset (the run's other tenants stay)."""
    seeded = world_demo.seed()
    client = next(c for c in seeded["clients"] if c["clientId"] == "demo-fitness")
    return {
        "clientId": client["clientId"],
        "operatorId": seeded["operator"]["clientId"],
        "player": bearer(sign_in(client["player"]["email"], client["player"]["password"])),
        "playerUid": client["player"]["uid"],
        "admin": bearer(sign_in(client["admin"]["email"], client["admin"]["password"])),
        "operator": bearer(sign_in(seeded["operator"]["admin"]["email"], seeded["operator"]["admin"]["password"])),
    }


def ok(http, url: str, headers: dict) -> dict:
    response = http.get(url, headers=headers)
    assert response.status_code == 200, (url, response.json)
    return response.json


def snapshot(http, world) -> dict:
    return {
        "catalog": ok(http, EXERCISES, world["player"]),
        "sessions": ok(http, f"{SESSIONS}?limit=100", world["player"]),
        "statistics": ok(http, "/api/ai-move/statistics", world["player"]),
        "records": ok(http, "/api/ai-move/records?limit=500", world["admin"]),
        "library": {exercise_id: repo.get_library(exercise_id) for exercise_id, _ in demo.LIBRARY},
        "custom": {exercise_id: repo.get_custom(world["clientId"], exercise_id) for exercise_id, _ in demo.CUSTOM},
        "selection": repo.selected_ids(world["clientId"]),
    }


def test_every_module_is_on_for_the_operator_and_the_demo_client(world):
    for client_id in (world["operatorId"], world["clientId"]):
        client = tenancy.get_client(client_id)
        for module in MODULES:
            assert client.setting(f"modules.{module}") is True, (client_id, module)
    assert tenancy.get_client(world["operatorId"]).is_operator


def test_demo_catalog_is_the_selection_and_the_enabled_custom_exercise(http, world):
    exercises = ok(http, EXERCISES, world["player"])["exercises"]
    shown = [e["exerciseId"] for e in exercises]
    assert sorted(shown) == sorted([*demo.SELECTED, "demo-chair-squat"])
    assert "demo-march-in-place" not in shown
    # merged by sortOrder then name; the library keeps its own order
    assert [e["sortOrder"] for e in exercises] == sorted(e["sortOrder"] for e in exercises)
    assert [i for i in shown if i in demo.SELECTED] == [i for i, _ in demo.LIBRARY if i in demo.SELECTED]
    by_id = {e["exerciseId"]: e for e in exercises}
    assert by_id["demo-chair-squat"]["clientId"] == world["clientId"] and by_id["demo-chair-squat"]["sortOrder"] == 0.5
    for exercise_id in demo.SELECTED:
        assert by_id[exercise_id]["clientId"] == world["operatorId"]
        assert by_id[exercise_id]["name"] == SPECS[exercise_id].name
        assert by_id[exercise_id]["type"] == SPECS[exercise_id].type


def test_demo_exercises_are_localized_with_algorithms(http, world):
    for exercise_id in [*demo.SELECTED, "demo-chair-squat"]:
        exercise = ok(http, f"{EXERCISES}/{exercise_id}", world["player"])["exercise"]
        assert exercise["nameZh"] == SPECS[exercise_id].nameZh and exercise["nameZh"], exercise_id
        assert exercise["algorithm"]["mode"] == ("rep-count" if exercise["type"] == "rep" else "hold")
        assert exercise["imageUrl"].startswith("https://") and exercise["estimatedCalories"] > 0
        assert exercise["description"]
    for hidden in ("demo-march-in-place", *(i for i, _ in demo.LIBRARY if i not in demo.SELECTED)):
        response = http.get(f"{EXERCISES}/{hidden}", headers=world["player"])
        assert response.status_code == 404, hidden
    # the operator tenant's catalog is the whole (enabled) library, every entry with a Chinese name
    operator_ids = [e["exerciseId"] for e in ok(http, EXERCISES, world["operator"])["exercises"]]
    library_ids = [i for i, _ in demo.LIBRARY]
    assert [i for i in operator_ids if i in library_ids] == library_ids
    for exercise_id in library_ids:
        exercise = ok(http, f"{EXERCISES}/{exercise_id}", world["operator"])["exercise"]
        assert exercise["nameZh"] and isinstance(exercise["algorithm"]["mode"], str) and exercise["algorithm"]["mode"]


def test_demo_player_has_sessions_statistics_and_records(http, world):
    sessions = ok(http, f"{SESSIONS}?limit=100", world["player"])
    assert sessions["nextStartAfter"] is None
    listed = sessions["sessions"]
    assert len(listed) == len(demo.HISTORY)
    assert sorted(s["status"] for s in listed) == sorted(entry[3] for entry in demo.HISTORY)
    assert [s["status"] for s in listed].count("in-progress") == 1
    # newest first: today's squat is still going
    assert listed[0]["status"] == "in-progress" and listed[0]["exerciseId"] == "squat"
    assert [s["exerciseId"] for s in listed] == [entry[1] for entry in sorted(demo.HISTORY, key=lambda e: e[0])]

    completed = [entry for entry in demo.HISTORY if entry[3] == "completed"]
    statistics = ok(http, "/api/ai-move/statistics", world["player"])["statistics"]
    assert statistics["userId"] == world["playerUid"] and statistics["clientId"] == world["clientId"]
    assert statistics["sessionsCompleted"] == len(completed)
    assert statistics["totalReps"] == sum(int(e[4]) for e in completed if SPECS[e[1]].type == "rep")
    assert statistics["totalHoldTimeSeconds"] == sum(e[4] for e in completed if SPECS[e[1]].type == "timer")
    assert statistics["bestFormScore"] == max(e[5] for e in completed)
    assert {e["exerciseId"] for e in statistics["exercises"]} == {e[1] for e in completed}
    assert sum(e["sessionsCompleted"] for e in statistics["exercises"]) == len(completed)

    records = ok(http, "/api/ai-move/records", world["admin"])
    assert records["count"] == len(demo.HISTORY) and records["nextStartAfter"] is None
    assert {r["clientId"] for r in records["data"]} == {world["clientId"]}
    assert {r["userId"] for r in records["data"]} == {world["playerUid"]}
    assert [r["id"] for r in records["data"]] == [s["sessionId"] for s in listed]


def test_seeding_again_changes_nothing(http, world):
    before = snapshot(http, world)
    world_demo.seed()
    demo.seed(tenancy.get_client(world["clientId"]))
    assert snapshot(http, world) == before
