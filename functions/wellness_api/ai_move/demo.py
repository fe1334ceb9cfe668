"""Demo AI Move data for `platformctl seed`: the operator's exercise library (with Chinese names, algorithms and
calories), the demo client's catalog (library selections and two custom exercises, one disabled), and two
weeks of the demo player's sessions, so that statistics, records and the daily activity answer with data.

Idempotent: exercises have fixed ids and are created only when missing, selecting again changes nothing,
and sessions are made only while the player has none.
"""

import datetime as dt
from typing import Literal

from ..core import clock, provisioning, tenancy, users
from ..core.tenancy import Client
from . import repository as repo
from . import service
from .models import CreateAiMoveSessionBody, ExerciseSpec, UpdateAiMoveSessionBody

MEDIA = "https://media.demo-fitness.example/ai-move"


def _exercise(exercise_id: str, name: str, name_zh: str, kind: Literal["rep", "timer"], target: float, category: str,
              difficulty: str, calories: float, description: str, algorithm: dict) -> tuple[str, ExerciseSpec]:
    return exercise_id, ExerciseSpec(
        name=name, nameZh=name_zh, type=kind, targetValue=target, category=category, difficulty=difficulty,
        estimatedCalories=calories, description=description, imageUrl=f"{MEDIA}/{exercise_id}.jpg",
        algorithm=algorithm)


def _reps(joint: str, down: int, up: int, **extra) -> dict:
    return {"mode": "rep-count", "joint": joint, "downAngle": down, "upAngle": up, "minRepSeconds": 0.8, **extra}


def _hold(pose: str, tolerance: int, **extra) -> dict:
    return {"mode": "hold", "pose": pose, "toleranceDegrees": tolerance, "graceSeconds": 2, **extra}


LIBRARY = [
    _exercise("squat", "Squats", "深蹲", "rep", 12, "strength", "beginner", 6,
              "Feet shoulder-width apart; sit back until the thighs are level, then stand tall.",
              _reps("knee", 100, 160, formChecks=["kneesOverToes", "backStraight"])),
    _exercise("lunge", "Alternating Lunges", "交替弓步", "rep", 10, "strength", "intermediate", 7,
              "Step forward and lower the back knee toward the floor; alternate legs.",
              _reps("knee", 95, 165, alternating=True, formChecks=["frontKneeAligned"])),
    _exercise("sit-to-stand", "Sit-to-Stand", "坐站起立", "rep", 10, "strength", "beginner", 4,
              "From a sturdy chair, stand up without using the hands, then sit down slowly.",
              _reps("hip", 95, 170, formChecks=["noHandSupport"])),
    _exercise("heel-raise", "Heel Raises", "提踵", "rep", 15, "balance", "beginner", 3,
              "Rise onto the balls of the feet, hold a moment, lower with control.",
              _reps("ankle", 90, 115, formChecks=["kneesStraight"])),
    _exercise("glute-bridge", "Glute Bridge", "臀橋", "rep", 12, "strength", "beginner", 5,
              "Lying on the back, knees bent, lift the hips until the body is a straight line.",
              _reps("hip", 130, 170, view="side")),
    _exercise("arm-raise", "Overhead Arm Raises", "雙臂上舉", "rep", 15, "mobility", "beginner", 3,
              "Raise both arms overhead and lower them slowly.",
              _reps("shoulder", 30, 160, bilateral=True)),
    _exercise("wall-sit", "Wall Sit", "靠牆蹲", "timer", 30, "strength", "intermediate", 5,
              "Back against a wall, slide down until the knees are bent to about 90 degrees, and hold.",
              _hold("wall-sit", 15, joint="knee", targetAngle=90)),
    _exercise("plank", "Plank", "平板支撐", "timer", 30, "core", "intermediate", 4,
              "Forearms on the floor, body straight from head to heels; hold.",
              _hold("plank", 12, view="side", formChecks=["hipsLevel"])),
    _exercise("single-leg-stance", "Single-Leg Stance", "單腳站立", "timer", 20, "balance", "beginner", 2,
              "Stand on one leg near a support; switch legs halfway.",
              _hold("single-leg", 20, switchSidesAt=0.5)),
    _exercise("tree-pose", "Tree Pose", "樹式", "timer", 30, "balance", "advanced", 3,
              "Foot against the inner thigh or calf, hands together; hold steady.",
              _hold("tree", 15)),
]
SELECTED = ["squat", "sit-to-stand", "heel-raise", "glute-bridge", "wall-sit", "plank", "single-leg-stance"]
CUSTOM = [
    ("demo-chair-squat", ExerciseSpec(
        name="Chair Squats", nameZh="椅子深蹲", type="rep", targetValue=8, category="strength", difficulty="beginner",
        estimatedCalories=3, sortOrder=0.5, description="Squat until you touch the chair, then stand up.",
        imageUrl=f"{MEDIA}/demo-chair-squat.jpg", algorithm=_reps("knee", 100, 165, seatTouch=True))),
    ("demo-march-in-place", ExerciseSpec(
        name="March in Place", nameZh="原地踏步", type="timer", targetValue=60, category="cardio",
        difficulty="beginner", estimatedCalories=5, enabled=False, description="Coming soon.",
        algorithm=_hold("march", 25, cadence=True))),
]

# The demo player's history: (days ago, exercise, target, outcome, reps or seconds, formScore).
HISTORY = [
    (13, "squat", 12, "completed", 12, 0.78), (12, "plank", 30, "completed", 30, 0.84),
    (10, "sit-to-stand", 10, "completed", 9, 0.71), (9, "squat", 12, "completed", 12, 0.83),
    (8, "wall-sit", 30, "failed", 18, 0.62), (6, "heel-raise", 15, "completed", 15, 0.9),
    (5, "demo-chair-squat", 8, "completed", 8, 0.88), (4, "plank", 30, "abandoned", 12, None),
    (3, "glute-bridge", 12, "completed", 12, 0.81), (2, "squat", 12, "completed", 11, 0.86),
    (1, "single-leg-stance", 20, "completed", 20, 0.93), (0, "squat", 12, "in-progress", 5, None),
]


def _seed_library(operator: Client) -> None:
    for exercise_id, spec in LIBRARY:
        if repo.get_library(exercise_id) is None:
            service.create_exercise(service.NewExercise(operator, spec, library=True, exercise_id=exercise_id))


def _play(client: Client, uid: str, days_ago: int, exercise_id: str, target: float, outcome: str, amount: float,
          score: float | None) -> None:
    exercise = service.find_exercise(client, exercise_id)
    rep = exercise["type"] == "rep"
    start = dt.timedelta(days=-days_ago, hours=-3)
    with clock.shifted(start):
        created = service.create_session(client, uid, CreateAiMoveSessionBody(
            exerciseId=exercise_id, exerciseType=exercise["type"],
            targetReps=int(target) if rep else None, targetDurationSeconds=None if rep else target))
    duration = amount * 3.2 if rep else amount
    progress = {"repsCompleted": int(amount) if rep else 0, "durationSeconds": round(duration, 1),
                "holdTimeSeconds": 0 if rep else amount, "poseAccuracy": score or 0.55,
                "caloriesBurned": round(exercise["estimatedCalories"] * amount / target, 1)}
    if outcome == "in-progress":
        finish = {"status": "in-progress", **progress}
    else:
        finish = {"status": outcome, **progress, "formScore": score,
                  "completionOutcome": "success" if amount >= target else "failed",
                  "formViolations": [{"key": "backStraight", "label": "Keep your back straight", "labelZh": "背部挺直",
                                      "weight": 0.5, "totalChecks": int(duration * 2),
                                      "violationCount": int(duration * 2 * (1 - (score or 0.5)) / 2),
                                      "violationRate": round((1 - (score or 0.5)) / 2, 3)}]}
        if outcome == "failed":
            finish["failureReason"] = "Lost balance before the target time."
    with clock.shifted(start + dt.timedelta(seconds=int(duration) + 60)):
        service.update_session(client, uid, created["sessionId"], UpdateAiMoveSessionBody.model_validate(finish))


def seed(client: Client) -> None:
    operator = provisioning.operator_client()
    if operator is not None:
        _seed_library(operator)
    for exercise_id, spec in CUSTOM:
        if repo.get_custom(client.client_id, exercise_id) is None:
            service.create_exercise(service.NewExercise(client, spec, library=False, exercise_id=exercise_id))
    for exercise_id in SELECTED:
        if repo.get_library(exercise_id) is not None:
            service.select_exercise(client, exercise_id)
    uid = users.first_member(client.client_id, tenancy.ROLE_PLAYER)
    if uid is None or repo.user_sessions(client.client_id, uid, 1, None)[0]:
        return
    for entry in HISTORY:
        _play(client, uid, *entry)
