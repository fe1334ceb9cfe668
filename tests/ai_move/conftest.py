"""Fixtures of the AI Move tests: the area's Flask test client, a client with the module on and a catalog."""

import pytest

from support.ai_move import make_exercise
from wellness_api.ai_move.routes import app

SESSIONS = "/api/ai-move/sessions"


@pytest.fixture
def http():
    return app.test_client()


@pytest.fixture
def mover(tenant):
    """A client with AI Move on, one custom rep exercise and one custom timer exercise."""
    tenant.configure("modules.aiMove=true")
    tenant.rep = make_exercise(tenant.client, "rep", name="Squats", nameZh="深蹲", estimatedCalories=5)
    tenant.timer = make_exercise(tenant.client, "timer", name="Plank")
    return tenant


def start(http, member, exercise_id: str, kind: str = "rep", **fields) -> dict:
    body = {"exerciseId": exercise_id, "exerciseType": kind,
            **({"targetReps": 10} if kind == "rep" else {"targetDurationSeconds": 30}), **fields}
    response = http.post(SESSIONS, json=body, headers=member.headers)
    assert response.status_code == 201, response.json
    return response.json
