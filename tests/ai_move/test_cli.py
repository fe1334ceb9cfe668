"""`platformctl exercise create|select|list` (CONTRACT section 3) as an operator runs it."""

import json
import uuid

import pytest

from tests.ai_move.conftest import make_exercise
from tests.ops.test_cli import expect_failures, platformctl, run_json
from wellness_api.ai_move import repository as repo
from wellness_api.ai_move import service
from wellness_api.ai_move.models import ExerciseSpec
from wellness_api.core import firebase

EXERCISES = "/api/ai-move/exercises"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def stored_custom(client_id: str) -> dict:
    return {snap.id: snap.to_dict()
            for snap in firebase.db().collection(f"clients/{client_id}/{repo.EXERCISES}").stream()}


def library_exercise(operator, name: str, **fields) -> str:
    exercise_id = unique("cli-lib")
    spec = ExerciseSpec(name=name, type="rep", targetValue=10, **fields)
    return service.create_exercise(service.NewExercise(operator.client, spec, library=True, exercise_id=exercise_id))


def catalog_ids(http, member) -> list[str]:
    response = http.get(EXERCISES, headers=member.headers)
    assert response.status_code == 200, response.json
    return [e["exerciseId"] for e in response.json["exercises"]]


@pytest.fixture
def operator(operator_tenant):
    operator_tenant.configure("modules.aiMove=true")
    return operator_tenant


def test_create_custom_exercise_prints_its_id_and_stores_every_field(http, tenant):
    tenant.configure("modules.aiMove=true")
    exercise_id = unique("cli-squat")
    algorithm = {"mode": "rep-count", "joint": "knee", "downAngle": 100}
    result = platformctl("exercise", "create", "--client-id", tenant.client_id, "--name", "Squats", "--type", "rep",
                         "--target-value", "12", "--category", "strength", "--difficulty", "intermediate",
                         "--exercise-id", exercise_id, "--sort-order", "2.5", "--name-zh", "深蹲",
                         "--description", "Sit back, stand tall.", "--image-url", "https://cdn.example/squat.jpg",
                         "--estimated-calories", "4.5", "--algorithm", json.dumps(algorithm))
    assert json.loads(result.stdout) == {"exerciseId": exercise_id}
    assert result.stderr == ""
    stored = repo.get_custom(tenant.client_id, exercise_id)
    assert {k: stored[k] for k in ("name", "type", "targetValue", "category", "difficulty", "enabled", "sortOrder",
                                   "nameZh", "description", "imageUrl", "estimatedCalories", "algorithm",
                                   "clientId", "library")} == {
        "name": "Squats", "type": "rep", "targetValue": 12, "category": "strength", "difficulty": "intermediate",
        "enabled": True, "sortOrder": 2.5, "nameZh": "深蹲", "description": "Sit back, stand tall.",
        "imageUrl": "https://cdn.example/squat.jpg", "estimatedCalories": 4.5, "algorithm": algorithm,
        "clientId": tenant.client_id, "library": False}
    detail = http.get(f"{EXERCISES}/{exercise_id}", headers=tenant.player.headers)
    assert detail.status_code == 200
    assert detail.json["exercise"] == {
        "exerciseId": exercise_id, "clientId": tenant.client_id, "name": "Squats", "type": "rep", "targetValue": 12,
        "category": "strength", "difficulty": "intermediate", "enabled": True, "sortOrder": 2.5, "nameZh": "深蹲",
        "description": "Sit back, stand tall.", "imageUrl": "https://cdn.example/squat.jpg",
        "estimatedCalories": 4.5, "algorithm": algorithm}

    # the minimal form: a generated id, the defaults, after the last; --disabled hides it from the catalog
    plain = run_json("exercise", "create", "--client-id", tenant.client_id, "--name", "Plank", "--type", "timer",
                     "--target-value", "30")
    hidden = run_json("exercise", "create", "--client-id", tenant.client_id, "--name", "Later", "--type", "rep",
                      "--target-value", "5", "--disabled")
    assert set(plain) == {"exerciseId"} and set(hidden) == {"exerciseId"}
    assert plain["exerciseId"] != hidden["exerciseId"]
    plank = repo.get_custom(tenant.client_id, plain["exerciseId"])
    assert {k: plank[k] for k in ("category", "difficulty", "enabled", "sortOrder", "nameZh", "estimatedCalories",
                                  "algorithm")} == {
        "category": "general", "difficulty": "beginner", "enabled": True, "sortOrder": 3.5, "nameZh": None,
        "estimatedCalories": 0, "algorithm": {"mode": "hold"}}
    later = repo.get_custom(tenant.client_id, hidden["exerciseId"])
    assert later["enabled"] is False and later["algorithm"] == {"mode": "rep-count"} and later["sortOrder"] == 4.5
    assert catalog_ids(http, tenant.player) == [exercise_id, plain["exerciseId"]]
    off = http.get(f"{EXERCISES}/{hidden['exerciseId']}", headers=tenant.player.headers)
    assert off.status_code == 404 and off.json == {"error": service.EXERCISE_NOT_FOUND}


def test_library_exercise_select_and_list(http, tenant, operator):
    tenant.configure("modules.aiMove=true")
    library_id = unique("cli-lib")
    assert run_json("exercise", "create", "--client-id", operator.client_id, "--library", "--name", "Wall Sit",
                    "--type", "timer", "--target-value", "30", "--exercise-id", library_id, "--name-zh", "靠牆蹲",
                    "--algorithm", '{"mode": "hold", "pose": "wall-sit"}') == {"exerciseId": library_id}
    disabled_id = library_exercise(operator, "Hidden", enabled=False)
    stored = repo.get_library(library_id)
    assert stored["clientId"] == operator.client_id and stored["library"] is True and stored["nameZh"] == "靠牆蹲"
    assert repo.get_custom(operator.client_id, library_id) is None
    # the operator's catalog is the enabled library; the client's needs a selection
    assert library_id in catalog_ids(http, operator.player)
    assert catalog_ids(http, tenant.player) == []

    custom_id = make_exercise(tenant.client, "rep", name="Custom", sortOrder=100)
    selected = run_json("exercise", "select", "--client-id", tenant.client_id, "--exercise-id", library_id)
    assert selected == {"exerciseId": library_id, "selected": True}
    # selecting twice changes nothing
    assert run_json("exercise", "select", "--client-id", tenant.client_id, "--exercise-id", library_id) == selected
    service.select_exercise(tenant.client, disabled_id)
    assert repo.selected_ids(tenant.client_id) == [library_id, disabled_id]
    assert catalog_ids(http, tenant.player) == [library_id, custom_id]
    detail = http.get(f"{EXERCISES}/{library_id}", headers=tenant.player.headers)
    assert detail.status_code == 200 and detail.json["exercise"]["algorithm"] == {"mode": "hold", "pose": "wall-sit"}

    custom_off = make_exercise(tenant.client, "timer", name="Custom off", enabled=False)
    listing = run_json("exercise", "list", "--client-id", tenant.client_id)
    assert set(listing) == {"clientId", "exercises"} and listing["clientId"] == tenant.client_id
    by_id = {e["exerciseId"]: e for e in listing["exercises"]}
    assert set(by_id) == {custom_id, custom_off, library_id, disabled_id}
    assert by_id[custom_off]["enabled"] is False and by_id[custom_off]["library"] is False
    assert by_id[disabled_id]["enabled"] is False and by_id[disabled_id]["library"] is True
    assert by_id[custom_id]["library"] is False and by_id[custom_id]["clientId"] == tenant.client_id
    assert by_id[library_id] == {
        "exerciseId": library_id, "clientId": operator.client_id, "name": "Wall Sit", "type": "timer",
        "targetValue": 30, "category": "general", "difficulty": "beginner", "enabled": True,
        "sortOrder": stored["sortOrder"], "nameZh": "靠牆蹲", "description": None, "imageUrl": None,
        "estimatedCalories": 0, "algorithm": {"mode": "hold", "pose": "wall-sit"}, "library": True}


def test_create_failures_are_one_line_and_change_nothing(tenant, operator):
    library_id = library_exercise(operator, "Taken")
    custom_id = make_exercise(tenant.client, "rep", name="Mine")
    custom_before = stored_custom(tenant.client_id)
    library_before = repo.get_library(library_id)
    fresh = unique("cli-never")
    mine = ["--client-id", tenant.client_id, "--name", "N", "--exercise-id", fresh, "--type"]
    expect_failures(("exercise", "create"), [
        (["--client-id", "no-such-client", "--name", "N", "--type", "rep", "--target-value", "5"],
         "client no-such-client not found"),
        ([*mine, "rep", "--target-value", "5", "--library"], service.LIBRARY_IS_OPERATORS),
        (["--client-id", operator.client_id, "--name", "N", "--type", "rep", "--target-value", "5",
          "--exercise-id", fresh], service.OPERATOR_NEEDS_LIBRARY),
        ([*mine, "jump", "--target-value", "5"], "argument --type: invalid choice"),
        ([*mine, "rep", "--target-value", "0"], "targetValue: Input should be greater than 0"),
        ([*mine, "rep", "--target-value", "5", "--algorithm", "{not json"], "argument --algorithm"),
        ([*mine, "rep", "--target-value", "5", "--algorithm", '{"joint": "knee"}'],
         "algorithm needs a non-empty string mode"),
        ([*mine, "rep", "--target-value", "5", "--image-url", "http://cdn.example/x.jpg"], "imageUrl: "),
        (["--client-id", tenant.client_id, "--name", "N", "--type", "rep", "--target-value", "5",
          "--exercise-id", custom_id], f"exercise {custom_id} already exists"),
        (["--client-id", tenant.client_id, "--name", "N", "--type", "rep", "--target-value", "5",
          "--exercise-id", library_id], f"exercise {library_id} already exists"),
    ])
    assert stored_custom(tenant.client_id) == custom_before
    assert repo.get_library(library_id) == library_before
    assert repo.get_library(fresh) is None and repo.get_custom(operator.client_id, fresh) is None


def test_select_failures_are_one_line_and_change_nothing(tenant, operator):
    library_id = library_exercise(operator, "Pick")
    custom_id = make_exercise(tenant.client, "rep", name="Mine")
    expect_failures(("exercise", "select"), [
        (["--client-id", operator.client_id, "--exercise-id", library_id],
         "the operator tenant's catalog is the whole library; nothing to select"),
        (["--client-id", tenant.client_id, "--exercise-id", "no-such-exercise"],
         "exercise no-such-exercise is not a library exercise"),
        (["--client-id", tenant.client_id, "--exercise-id", custom_id], f"exercise {custom_id} is not a library exercise"),
    ])
    assert repo.selected_ids(tenant.client_id) == []
    assert not repo.selection_ref(operator.client_id).get().exists


def test_non_finite_numbers_are_refused(tenant):
    before = stored_custom(tenant.client_id)
    base = ["--client-id", tenant.client_id, "--name", "N", "--type", "rep", "--target-value", "5"]
    expect_failures(("exercise", "create"), [
        ([*base, "--sort-order", "nan"], "--sort-order"),
        ([*base, "--sort-order", "inf"], "--sort-order"),
        ([*base, "--algorithm", '{"mode": "rep-count", "downAngle": NaN}'], "--algorithm"),
    ])
    assert stored_custom(tenant.client_id) == before
