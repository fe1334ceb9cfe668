"""GET /api/ai-move/exercises and /api/ai-move/exercises/[exerciseId] (4.6, 2.9, 7.5): the catalog per tenant kind.

The library (aiMoveLibrary) is global and belongs to the operator tenant, which every test of a run shares:
tests of the operator's catalog assert the presence and relative order of their own exercises only.
"""

import uuid

import pytest

from tests.ai_move.conftest import make_exercise
from tests.identity.conftest import redeem
from wellness_api.ai_move import models, service
from wellness_api.ai_move.models import ExerciseSpec
from wellness_api.core import auth
from wellness_api.identity.routes import app as identity_app

EXERCISES = "/api/ai-move/exercises"


def exercise_url(exercise_id: str) -> str:
    return f"{EXERCISES}/{exercise_id}"


def library_exercise(operator, kind: str = "rep", **fields) -> str:
    """A library exercise with a fixed, unique id (the library is shared by the whole run)."""
    exercise_id = f"lib-{uuid.uuid4().hex[:10]}"
    spec = ExerciseSpec(name=fields.pop("name", f"Library {exercise_id}"), type=kind,
                        targetValue=fields.pop("targetValue", 12 if kind == "rep" else 30), **fields)
    return service.create_exercise(service.NewExercise(operator.client, spec, library=True, exercise_id=exercise_id))


def listed(http, member) -> list[dict]:
    response = http.get(EXERCISES, headers=member.headers)
    assert response.status_code == 200, response.json
    assert set(response.json) == {"exercises"}
    return response.json["exercises"]


def ids(exercises: list[dict]) -> list[str]:
    return [e["exerciseId"] for e in exercises]


@pytest.fixture
def operator(operator_tenant):
    operator_tenant.configure("modules.aiMove=true")
    return operator_tenant


# ------------------------------------------------------------------------------------ list


def test_custom_exercises_list_form_with_defaults(http, mover):
    exercises = listed(http, mover.player)
    assert exercises == [
        {"exerciseId": mover.rep, "clientId": mover.client_id, "name": "Squats", "type": "rep", "targetValue": 10,
         "category": "general", "difficulty": "beginner", "enabled": True, "sortOrder": 1},
        {"exerciseId": mover.timer, "clientId": mover.client_id, "name": "Plank", "type": "timer", "targetValue": 30,
         "category": "general", "difficulty": "beginner", "enabled": True, "sortOrder": 2},
    ]
    for exercise in exercises:
        assert tuple(exercise) == models.LIST_FIELDS


def test_operator_lists_the_enabled_library_in_library_order(http, operator):
    first = library_exercise(operator, name="Zebra crawl")
    second = library_exercise(operator, "timer", name="Alpha hold")  # default sortOrder: after the last
    hidden = library_exercise(operator, enabled=False)
    early = library_exercise(operator, name="Early", sortOrder=-1000)
    exercises = listed(http, operator.player)
    shown = ids(exercises)
    assert hidden not in shown
    assert shown.index(early) < shown.index(first) < shown.index(second)
    by_id = {e["exerciseId"]: e for e in exercises}
    assert by_id[second]["sortOrder"] == by_id[first]["sortOrder"] + 1
    assert by_id[first] == {"exerciseId": first, "clientId": operator.client_id, "name": "Zebra crawl",
                            "type": "rep", "targetValue": 12, "category": "general", "difficulty": "beginner",
                            "enabled": True, "sortOrder": by_id[first]["sortOrder"]}
    for exercise in exercises:
        assert tuple(exercise) == models.LIST_FIELDS and exercise["enabled"] is True
    # library order is sortOrder, whatever else the run put in the library
    orders = [e["sortOrder"] for e in exercises]
    assert orders == sorted(orders)


def test_client_catalog_merges_custom_and_selected_library_by_sort_order_then_name(
        http, tenant, other_tenant, operator):
    tenant.configure("modules.aiMove=true")
    other_tenant.configure("modules.aiMove=true")
    lib_b = library_exercise(operator, name="Bravo", sortOrder=2)
    lib_a = library_exercise(operator, "timer", name="alpha", sortOrder=2)
    lib_first = library_exercise(operator, name="First", sortOrder=0.5)
    unselected = library_exercise(operator, name="Not selected", sortOrder=1)
    lib_disabled = library_exercise(operator, name="Disabled selected", sortOrder=1, enabled=False)
    custom_c = make_exercise(tenant.client, name="Charlie", sortOrder=2)
    custom_1 = make_exercise(tenant.client, name="Zulu", sortOrder=1)
    custom_off = make_exercise(tenant.client, name="Off", sortOrder=1, enabled=False)
    foreign = make_exercise(other_tenant.client, name="Foreign", sortOrder=1)
    for exercise_id in (lib_b, lib_a, lib_first, lib_disabled):
        service.select_exercise(tenant.client, exercise_id)

    exercises = listed(http, tenant.player)
    assert ids(exercises) == [lib_first, custom_1, lib_a, lib_b, custom_c]
    for absent in (unselected, lib_disabled, custom_off, foreign):
        assert absent not in ids(exercises)
    by_id = {e["exerciseId"]: e for e in exercises}
    assert by_id[lib_a] == {"exerciseId": lib_a, "clientId": operator.client_id, "name": "alpha", "type": "timer",
                            "targetValue": 30, "category": "general", "difficulty": "beginner", "enabled": True,
                            "sortOrder": 2}
    assert by_id[custom_1]["clientId"] == tenant.client_id
    for exercise in exercises:
        assert tuple(exercise) == models.LIST_FIELDS
    # the other client sees only its own exercise
    assert ids(listed(http, other_tenant.player)) == [foreign]


def test_client_without_exercises_has_an_empty_catalog(http, tenant):
    tenant.configure("modules.aiMove=true")
    assert listed(http, tenant.player) == []


def test_list_needs_a_token_and_the_module(http, tenant):
    no_token = http.get(EXERCISES)
    assert no_token.status_code == 401 and no_token.json == {"error": auth.MISSING_AUTH}
    bad_token = http.get(EXERCISES, headers={"Authorization": "Bearer not-a-token"})
    assert bad_token.status_code == 401 and bad_token.json == {"error": auth.INVALID_TOKEN}
    off = http.get(EXERCISES, headers=tenant.player.headers)  # modules.aiMove defaults to off
    assert off.status_code == 403 and off.json == {"error": service.MODULE_OFF}
    tenant.configure("modules.aiMove=true")
    assert http.get(EXERCISES, headers=tenant.admin.headers).status_code == 200
    tenant.configure("modules.aiMove=false")
    off = http.get(EXERCISES, headers=tenant.admin.headers)
    assert off.status_code == 403 and off.json == {"error": service.MODULE_OFF}


# ------------------------------------------------------------------------------------ detail


def test_detail_form_of_a_custom_exercise(http, tenant):
    tenant.configure("modules.aiMove=true")
    algorithm = {"mode": "rep-count", "joint": "knee", "downAngle": 100, "formChecks": ["backStraight"]}
    exercise_id = make_exercise(tenant.client, "rep", name="Squats", nameZh="深蹲", description="Sit back.\nStand.",
                                imageUrl="https://cdn.example/squat.jpg", estimatedCalories=5.5, category="strength",
                                difficulty="intermediate", targetValue=12, sortOrder=3, algorithm=algorithm)
    response = http.get(exercise_url(exercise_id), headers=tenant.player.headers)
    assert response.status_code == 200
    assert response.json == {"exercise": {
        "exerciseId": exercise_id, "clientId": tenant.client_id, "name": "Squats", "type": "rep", "targetValue": 12,
        "category": "strength", "difficulty": "intermediate", "enabled": True, "sortOrder": 3,
        "nameZh": "深蹲", "description": "Sit back.\nStand.", "imageUrl": "https://cdn.example/squat.jpg",
        "estimatedCalories": 5.5, "algorithm": algorithm,
    }}
    assert tuple(response.json["exercise"]) == models.DETAIL_FIELDS


@pytest.mark.parametrize(("kind", "mode"), [("rep", "rep-count"), ("timer", "hold")])
def test_detail_defaults(http, tenant, kind, mode):
    tenant.configure("modules.aiMove=true")
    exercise_id = make_exercise(tenant.client, kind, name="Plain")
    exercise = http.get(exercise_url(exercise_id), headers=tenant.player.headers).json["exercise"]
    assert {k: exercise[k] for k in ("nameZh", "description", "imageUrl", "estimatedCalories", "algorithm")} == {
        "nameZh": None, "description": None, "imageUrl": None, "estimatedCalories": 0, "algorithm": {"mode": mode}}
    assert exercise["type"] == kind and exercise["targetValue"] == (10 if kind == "rep" else 30)


def test_selected_library_exercise_detail(http, tenant, operator):
    tenant.configure("modules.aiMove=true")
    exercise_id = library_exercise(operator, "timer", name="Wall Sit", nameZh="靠牆蹲", estimatedCalories=4,
                                   algorithm={"mode": "hold", "pose": "wall-sit"}, sortOrder=7)
    service.select_exercise(tenant.client, exercise_id)
    response = http.get(exercise_url(exercise_id), headers=tenant.player.headers)
    assert response.status_code == 200
    assert response.json == {"exercise": {
        "exerciseId": exercise_id, "clientId": operator.client_id, "name": "Wall Sit", "type": "timer",
        "targetValue": 30, "category": "general", "difficulty": "beginner", "enabled": True, "sortOrder": 7,
        "nameZh": "靠牆蹲", "description": None, "imageUrl": None, "estimatedCalories": 4,
        "algorithm": {"mode": "hold", "pose": "wall-sit"},
    }}
    # the operator tenant sees the whole enabled library without selecting
    mine = http.get(exercise_url(exercise_id), headers=operator.player.headers)
    assert mine.status_code == 200 and mine.json == response.json


def test_detail_is_404_outside_the_catalog(http, tenant, other_tenant, operator):
    tenant.configure("modules.aiMove=true")
    other_tenant.configure("modules.aiMove=true")
    disabled = make_exercise(tenant.client, name="Off", enabled=False)
    foreign = make_exercise(other_tenant.client, name="Foreign")
    unselected = library_exercise(operator)
    disabled_library = library_exercise(operator, enabled=False)
    service.select_exercise(tenant.client, disabled_library)
    for exercise_id in ("no-such-exercise", disabled, foreign, unselected, disabled_library, "bad$id", "a.b",
                        "x" * 65, "%E6%B7%B1"):
        response = http.get(exercise_url(exercise_id), headers=tenant.player.headers)
        assert response.status_code == 404, exercise_id
        assert response.json == {"error": service.EXERCISE_NOT_FOUND}, exercise_id
    # the owner sees its own exercise; the operator does not see a disabled library exercise
    assert http.get(exercise_url(foreign), headers=other_tenant.player.headers).status_code == 200
    response = http.get(exercise_url(disabled_library), headers=operator.player.headers)
    assert response.status_code == 404 and response.json == {"error": service.EXERCISE_NOT_FOUND}
    # a client's custom exercise is not in the operator's catalog either
    response = http.get(exercise_url(foreign), headers=operator.admin.headers)
    assert response.status_code == 404 and response.json == {"error": service.EXERCISE_NOT_FOUND}


def guest_of(http_identity, tenant) -> dict:
    """The headers of a guest of the tenant (guest-custom-token, then sign-in with the custom token)."""
    response = http_identity.post("/api/auth/guest-custom-token", headers={"X-Forwarded-Host": tenant.host})
    assert response.status_code == 200, response.json
    return {"Authorization": f"Bearer {redeem(response.json['customToken'])}"}


def test_players_admins_and_guests_see_the_same(http, make_tenant):
    host = f"move-{uuid.uuid4().hex[:8]}.example.test"
    tenant = make_tenant(hostnames=[host])
    tenant.host = host
    tenant.configure("modules.aiMove=true", "auth.guestSignIn=true")
    exercise_id = make_exercise(tenant.client, "timer", name="Plank", nameZh="平板支撐")
    make_exercise(tenant.client, "rep", name="Squats")
    guest = guest_of(identity_app.test_client(), tenant)
    callers = [tenant.player.headers, tenant.admin.headers, tenant.add_member("player").headers, guest]
    lists = [http.get(EXERCISES, headers=h) for h in callers]
    details = [http.get(exercise_url(exercise_id), headers=h) for h in callers]
    assert [r.status_code for r in lists + details] == [200] * 8
    assert all(r.json == lists[0].json for r in lists) and len(lists[0].json["exercises"]) == 2
    assert all(r.json == details[0].json for r in details) and details[0].json["exercise"]["nameZh"] == "平板支撐"


def test_detail_needs_a_token_and_the_module(http, mover):
    no_token = http.get(exercise_url(mover.rep))
    assert no_token.status_code == 401 and no_token.json == {"error": auth.MISSING_AUTH}
    mover.configure("modules.aiMove=false")
    off = http.get(exercise_url(mover.rep), headers=mover.player.headers)
    assert off.status_code == 403 and off.json == {"error": service.MODULE_OFF}
    # module off answers 403 before looking the exercise up
    off = http.get(exercise_url("no-such-exercise"), headers=mover.admin.headers)
    assert off.status_code == 403 and off.json == {"error": service.MODULE_OFF}


def test_an_exercise_id_is_listed_once_in_a_catalog(http, tenant, operator):
    tenant.configure("modules.aiMove=true")
    exercise_id = f"clash-{uuid.uuid4().hex[:10]}"
    custom = ExerciseSpec(name="Custom clash", type="rep", targetValue=10)
    service.create_exercise(service.NewExercise(tenant.client, custom, library=False, exercise_id=exercise_id))
    # the operator later adds a library exercise with the same id and selects it for the client; either step
    # may be refused, but the catalog must not show two exercises under one id
    library = ExerciseSpec(name="Library clash", type="timer", targetValue=30)
    try:
        service.create_exercise(service.NewExercise(operator.client, library, library=True, exercise_id=exercise_id))
        service.select_exercise(tenant.client, exercise_id)
    except service.CatalogError:
        pass
    assert ids(listed(http, tenant.player)).count(exercise_id) == 1
