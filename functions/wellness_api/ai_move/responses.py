"""What AI Move answers with (4.6, 2.9, 2.10); the handlers' bodies are checked against these."""

from typing import Any, Literal

from pydantic import Field

from ..core.openapi import Closed

ExerciseType = Literal["rep", "timer"]
Status = Literal["created", "in-progress", "completed", "failed", "abandoned"]
Timestamp = str


class AiMoveExercise(Closed):
    """An exercise, list form (2.9)."""

    exerciseId: str
    clientId: str = Field(description="The owner: the client of a custom exercise, the operator tenant for a "
                                      "library exercise.")
    name: str
    type: ExerciseType
    targetValue: float = Field(description="Reps for a rep exercise, seconds for a timer exercise.")
    category: str
    difficulty: str
    enabled: bool
    sortOrder: float


class AiMoveExerciseDetail(AiMoveExercise):
    """An exercise, detail form (2.9)."""

    nameZh: str | None
    description: str | None
    imageUrl: str | None
    estimatedCalories: float = Field(description="kcal of one session at targetValue; 0 when not set.")
    algorithm: dict[str, Any] = Field(description="How the app measures the exercise; always has mode "
                                                  "(rep-count, hold, ...).")


class AiMoveExerciseList(Closed):
    exercises: list[AiMoveExercise]


class OneAiMoveExercise(Closed):
    exercise: AiMoveExerciseDetail


class AiMoveFormViolation(Closed):
    key: str
    label: str
    labelZh: str | None = None
    weight: float
    totalChecks: int
    violationCount: int
    violationRate: float


class AiMoveSession(Closed):
    """An AI Move session (2.10)."""

    sessionId: str
    clientId: str
    userId: str
    exerciseId: str
    exerciseType: ExerciseType
    targetReps: int | None = Field(default=None, description="Rep sessions only.")
    targetDurationSeconds: float | None = Field(default=None, description="Timer sessions only.")
    repsCompleted: int
    durationSeconds: float
    caloriesBurned: float
    holdTimeSeconds: float
    retryCountUsed: int
    poseAccuracy: float
    formScore: float | None
    retryCountRemaining: int | None
    failureReason: str | None
    formViolations: list[AiMoveFormViolation]
    completionOutcome: Literal["success", "failed"] | None
    status: Status
    createdAt: Timestamp
    completedAt: Timestamp | None


class AiMoveSessionSummary(Closed):
    sessionId: str
    exerciseId: str
    exerciseType: ExerciseType
    status: Status
    repsCompleted: int
    durationSeconds: float
    caloriesBurned: float
    poseAccuracy: float
    formScore: float | None
    createdAt: Timestamp
    completedAt: Timestamp | None


class AiMoveSessionList(Closed):
    sessions: list[AiMoveSessionSummary] = Field(description="The caller's sessions, newest first.")
    nextStartAfter: str | None = Field(description="Pass as startAfter for the next page; null on the last page.")


class OneAiMoveSession(Closed):
    session: AiMoveSession


class Success(Closed):
    success: Literal[True]


class AiMoveTotals(Closed):
    sessionsCompleted: int
    totalReps: int
    totalDurationSeconds: float
    totalHoldTimeSeconds: float
    totalCaloriesBurned: float
    bestFormScore: float | None = Field(description="The best formScore of a completed session; null before one.")
    lastCompletedAt: Timestamp | None


class AiMoveExerciseTotals(AiMoveTotals):
    exerciseId: str
    exerciseType: ExerciseType


class AiMoveStatistics(AiMoveTotals):
    """The caller's completed sessions, overall and per exercise."""

    userId: str
    clientId: str
    exercises: list[AiMoveExerciseTotals] = Field(description="One entry per exercise completed at least once, the most "
                                                        "recently completed first.")


class AiMoveStatisticsResult(Closed):
    statistics: AiMoveStatistics


class AiMoveRecord(Closed):
    id: str
    clientId: str
    userId: str
    exerciseId: str
    exerciseType: ExerciseType
    status: Status
    repsCompleted: int
    durationSeconds: float
    caloriesBurned: float
    createdAt: Timestamp
    completedAt: Timestamp | None


class AiMoveRecords(Closed):
    data: list[AiMoveRecord] = Field(description="Newest first (createdAt descending).")
    count: int = Field(description="The number of records in data.")
    nextStartAfter: str | None = Field(description="Pass as startAfter for the next page; null on the last page.")
