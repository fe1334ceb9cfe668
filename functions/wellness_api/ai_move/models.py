"""What AI Move parses (4.6, 2.9, 2.10, 8) and how stored exercises and sessions read in the API."""

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator
from pydantic_core import PydanticCustomError

from ..core import clock
from ..core.bounds import Number, NumberRange, QueryRange
from ..core.text import MultiLine, SingleLine

# Exercise types (2.9) and session states (3.1).
REP = "rep"
CREATED = "created"
IN_PROGRESS = "in-progress"
COMPLETED = "completed"
FAILED = "failed"
ABANDONED = "abandoned"
STATES = (CREATED, IN_PROGRESS, COMPLETED, FAILED, ABANDONED)
TERMINAL = (COMPLETED, FAILED, ABANDONED)
# The allowed moves (3.1 leaves them open). A session may be reported finished straight from created (an
# app that only reports at the end); nothing leaves a terminal state, and nothing returns to created.
NEXT_STATES: dict[str, tuple[str, ...]] = {
    CREATED: (CREATED, IN_PROGRESS, COMPLETED, FAILED, ABANDONED),
    IN_PROGRESS: (IN_PROGRESS, COMPLETED, FAILED, ABANDONED),
    COMPLETED: (), FAILED: (), ABANDONED: (),
}

# Limits: the spec's minimums (8) and upper bounds chosen here, so that nonsense cannot reach the statistics.
MAX_TARGET_REPS = 10_000
MAX_SECONDS = 86_400  # a day: targets, durations and hold times
MAX_REPS = 100_000
MAX_CALORIES = 100_000
MAX_RETRIES = 1_000
MAX_FAILURE_REASON = 500
MAX_VIOLATIONS = 50
MAX_CHECKS = 10_000_000
MAX_WEIGHT = 1000
MAX_ID = 64  # core.tenancy.valid_id
SESSIONS_PAGE_DEFAULT, SESSIONS_PAGE_MAX = 20, 100
RECORDS_PAGE_DEFAULT, RECORDS_PAGE_MAX = 50, 500
# An exercise's algorithm is read with every catalog listing (up to 500 exercises): kept small.
MAX_ALGORITHM_BYTES = 4096
MAX_ALGORITHM_KEYS = 50



Id = Annotated[str, Field(max_length=MAX_ID)]
Seconds = Annotated[Number, NumberRange(ge=0, le=MAX_SECONDS)]
Fraction = Annotated[Number, NumberRange(ge=0, le=1)]


# ------------------------------------------------------------------------------------ request bodies


class CreateAiMoveSessionBody(BaseModel):
    """POST /api/ai-move/sessions. A rep exercise needs targetReps, a timer exercise targetDurationSeconds."""

    model_config = ConfigDict(extra="forbid")

    exerciseId: Annotated[SingleLine, Field(min_length=1, max_length=64)]
    exerciseType: Literal["rep", "timer"] = Field(description="Must be the exercise's type.")
    targetReps: Annotated[StrictInt, Field(ge=1, le=MAX_TARGET_REPS)] | None = Field(
        default=None, description="Required for rep exercises, refused for timer exercises.")
    targetDurationSeconds: Annotated[Number, NumberRange(ge=1, le=MAX_SECONDS)] | None = Field(
        default=None, description="Required for timer exercises, refused for rep exercises.")


class AiMoveFormViolationBody(BaseModel):
    """A form violation record (2.10): how often one form check failed during the session."""

    model_config = ConfigDict(extra="forbid")

    key: Annotated[SingleLine, Field(min_length=1, max_length=64)]
    label: Annotated[SingleLine, Field(min_length=1, max_length=200)]
    labelZh: Annotated[SingleLine, Field(max_length=200)] | None = None
    weight: Annotated[Number, NumberRange(ge=0, le=MAX_WEIGHT)]
    totalChecks: Annotated[StrictInt, Field(ge=0, le=MAX_CHECKS)]
    violationCount: Annotated[StrictInt, Field(ge=0, le=MAX_CHECKS)]
    violationRate: Fraction

    @model_validator(mode="after")
    def _counts_agree(self) -> "AiMoveFormViolationBody":
        if self.violationCount > self.totalChecks:
            raise PydanticCustomError("violation_count", "violationCount cannot exceed totalChecks")
        return self


class UpdateAiMoveSessionBody(BaseModel):
    """PATCH /api/ai-move/sessions/[sessionId]: any subset; null clears the fields that may be null."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["created", "in-progress", "completed", "failed", "abandoned"] | None = Field(
        default=None, description="created -> in-progress, completed, failed or abandoned; in-progress -> "
                                  "completed, failed or abandoned. Terminal states are final.")
    completionOutcome: Literal["success", "failed"] | None = None
    repsCompleted: Annotated[StrictInt, Field(ge=0, le=MAX_REPS)] | None = None
    durationSeconds: Seconds | None = None
    caloriesBurned: Annotated[Number, NumberRange(ge=0, le=MAX_CALORIES)] | None = None
    poseAccuracy: Fraction | None = None
    formScore: Fraction | None = None
    holdTimeSeconds: Seconds | None = None
    retryCountRemaining: Annotated[StrictInt, Field(ge=0, le=MAX_RETRIES)] | None = None
    retryCountUsed: Annotated[StrictInt, Field(ge=0, le=MAX_RETRIES)] | None = None
    failureReason: Annotated[MultiLine, Field(max_length=MAX_FAILURE_REASON)] | None = None
    formViolations: Annotated[list[AiMoveFormViolationBody], Field(max_length=MAX_VIOLATIONS)] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "UpdateAiMoveSessionBody":
        for name in NOT_NULL:
            if name in self.model_fields_set and getattr(self, name) is None:
                raise PydanticCustomError("not_null", "{field} must not be null", {"field": name})
        keys = [v.key for v in self.formViolations or []]
        if len(keys) != len(set(keys)):
            raise PydanticCustomError("unique_keys", "formViolations keys must be unique")
        return self


# Fields that are never null in a session (2.10): null is refused for them.
NOT_NULL = ("status", "repsCompleted", "durationSeconds", "caloriesBurned", "poseAccuracy", "holdTimeSeconds",
            "retryCountUsed", "formViolations")


def changes(body: UpdateAiMoveSessionBody) -> dict[str, Any]:
    """The fields the caller sent, as stored (violations as plain dicts)."""
    sent = body.model_dump(include=body.model_fields_set, exclude_none=False)
    if sent.get("formViolations") is not None:
        sent["formViolations"] = [
            {k: v for k, v in violation.items() if v is not None or k != "labelZh"}
            for violation in sent["formViolations"]
        ]
    return sent


class AiMoveSessionsQuery(BaseModel):
    limit: Annotated[int, QueryRange(ge=1, le=SESSIONS_PAGE_MAX)] = Field(
        default=SESSIONS_PAGE_DEFAULT, description=f"Page size, 1 to {SESSIONS_PAGE_MAX}.")
    startAfter: Id | None = Field(default=None, description="The sessionId of the last session of the previous "
                                                             "page (nextStartAfter); newer sessions added meanwhile "
                                                             "do not shift the pages.")


class AiMoveRecordsQuery(BaseModel):
    clientId: Id | None = Field(default=None, description="Defaults to the caller's own client; only platform "
                                                          "administrators may name another client.")
    limit: Annotated[int, QueryRange(ge=1, le=RECORDS_PAGE_MAX)] = Field(
        default=RECORDS_PAGE_DEFAULT, description=f"Number of records, 1 to {RECORDS_PAGE_MAX}.")
    startAfter: Id | None = Field(default=None, description="The id of the last record of the previous page.")


# ------------------------------------------------------------------------------------ exercises (platformctl)


class ExerciseSpec(BaseModel):
    """An exercise as `platformctl exercise create` writes it (catalog management is not in the public API)."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[SingleLine, Field(min_length=1, max_length=100)]
    type: Literal["rep", "timer"]
    targetValue: Annotated[Number, Field(gt=0, le=MAX_SECONDS)]
    category: Annotated[SingleLine, Field(min_length=1, max_length=40)] = "general"
    difficulty: Annotated[SingleLine, Field(min_length=1, max_length=40)] = "beginner"
    enabled: bool = True
    sortOrder: Annotated[Number, Field(allow_inf_nan=False, ge=-1e9, le=1e9)] | None = None
    nameZh: Annotated[SingleLine, Field(max_length=100)] | None = None
    description: Annotated[MultiLine, Field(max_length=2000)] | None = None
    imageUrl: Annotated[str, Field(max_length=2048, pattern=r"^https://\S+$")] | None = None
    estimatedCalories: Annotated[Number, Field(ge=0, le=10_000)] = 0
    algorithm: Annotated[dict[str, Any], Field(max_length=MAX_ALGORITHM_KEYS)] | None = None

    @model_validator(mode="after")
    def _algorithm_has_mode(self) -> "ExerciseSpec":
        if self.algorithm is None:
            self.algorithm = {"mode": "rep-count" if self.type == REP else "hold"}
        mode = self.algorithm.get("mode")
        if not isinstance(mode, str) or not mode.strip():
            raise PydanticCustomError("algorithm_mode", "algorithm needs a non-empty string mode")
        try:
            size = len(json.dumps(self.algorithm, ensure_ascii=False, separators=(",", ":")).encode())
        except (TypeError, ValueError, RecursionError):
            raise PydanticCustomError("algorithm_json", "algorithm must be plain JSON") from None
        if size > MAX_ALGORITHM_BYTES:
            raise PydanticCustomError("algorithm_size", "algorithm must be at most {cap} bytes of JSON, not {size}",
                                      {"cap": MAX_ALGORITHM_BYTES, "size": size})
        return self


# ------------------------------------------------------------------------------------ read forms

LIST_FIELDS = ("exerciseId", "clientId", "name", "type", "targetValue", "category", "difficulty", "enabled",
               "sortOrder")
DETAIL_FIELDS = (*LIST_FIELDS, "nameZh", "description", "imageUrl", "estimatedCalories", "algorithm")
SUMMARY_FIELDS = ("sessionId", "exerciseId", "exerciseType", "status", "repsCompleted", "durationSeconds",
                  "caloriesBurned", "poseAccuracy", "formScore", "createdAt", "completedAt")
SESSION_FIELDS = ("sessionId", "clientId", "userId", "exerciseId", "exerciseType", "targetReps",
                  "targetDurationSeconds", "repsCompleted", "durationSeconds", "caloriesBurned", "holdTimeSeconds",
                  "retryCountUsed", "poseAccuracy", "formScore", "retryCountRemaining", "failureReason",
                  "formViolations", "completionOutcome", "status", "createdAt", "completedAt")
RECORD_FIELDS = ("id", "clientId", "userId", "exerciseId", "exerciseType", "status", "repsCompleted",
                 "durationSeconds", "caloriesBurned", "createdAt", "completedAt")


def exercise_list_form(exercise: dict[str, Any]) -> dict[str, Any]:
    return {name: exercise.get(name) for name in LIST_FIELDS}


def exercise_detail(exercise: dict[str, Any]) -> dict[str, Any]:
    return {name: exercise.get(name) for name in DETAIL_FIELDS}


def _with_times(stored: dict[str, Any]) -> dict[str, Any]:
    return {**stored, "createdAt": clock.iso(stored.get("createdAt")),
            "completedAt": clock.iso(stored.get("completedAt"))}


def session_view(stored: dict[str, Any]) -> dict[str, Any]:
    """The full session (2.10); the target of the other exercise type is absent."""
    shown = _with_times(stored)
    view = {name: shown.get(name) for name in SESSION_FIELDS}
    for target in ("targetReps", "targetDurationSeconds"):
        if view[target] is None:
            del view[target]
    return view


def session_summary(stored: dict[str, Any]) -> dict[str, Any]:
    shown = _with_times(stored)
    return {name: shown.get(name) for name in SUMMARY_FIELDS}


def record(stored: dict[str, Any]) -> dict[str, Any]:
    shown = {**_with_times(stored), "id": stored["sessionId"]}
    return {name: shown.get(name) for name in RECORD_FIELDS}
