"""AI Move's catalog made through the service, as the tests' fixtures and the bench need it."""

import uuid

from wellness_api.ai_move import service
from wellness_api.ai_move.models import ExerciseSpec


def make_exercise(client, kind: str = "rep", library: bool = False, **fields) -> str:
    spec = ExerciseSpec(name=fields.pop("name", f"{kind} {uuid.uuid4().hex[:6]}"), type=kind,
                        targetValue=fields.pop("targetValue", 10 if kind == "rep" else 30), **fields)
    return service.create_exercise(service.NewExercise(client, spec, library=library))
