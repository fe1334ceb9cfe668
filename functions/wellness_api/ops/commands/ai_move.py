"""exercise commands: the AI Move catalog (CONTRACT section 3); catalog management is not in the public API."""

import math

from ..cli import CliError, existing_client


def _spec(args):
    import pydantic

    from ...ai_move.models import ExerciseSpec

    fields = {
        "name": args.name, "type": args.type, "targetValue": args.target_value, "category": args.category,
        "difficulty": args.difficulty, "enabled": not args.disabled, "sortOrder": args.sort_order,
        "nameZh": args.name_zh, "description": args.description, "imageUrl": args.image_url,
        "estimatedCalories": args.estimated_calories, "algorithm": args.algorithm,
    }
    try:
        return ExerciseSpec.model_validate({k: v for k, v in fields.items() if v is not None})
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CliError(f"{where}: {first['msg']}" if where else first["msg"]) from None


def exercise_create(args) -> dict:
    from ...ai_move import service

    new = service.NewExercise(existing_client(args.client_id), _spec(args), args.library, args.exercise_id)
    try:
        return {"exerciseId": service.create_exercise(new)}
    except service.CatalogError as exc:
        raise CliError(str(exc)) from None


def exercise_select(args) -> dict:
    from ...ai_move import service

    try:
        service.select_exercise(existing_client(args.client_id), args.exercise_id)
    except service.CatalogError as exc:
        raise CliError(str(exc)) from None
    return {"exerciseId": args.exercise_id, "selected": True}


def exercise_list(args) -> dict:
    from ...ai_move import service

    return service.operator_catalog(existing_client(args.client_id))


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text!r}")
    return int(value) if value.is_integer() else value


def _algorithm(text: str) -> dict:
    from ...core.http import strict_json

    value = strict_json(text)
    if not isinstance(value, dict):
        raise ValueError("--algorithm must be a JSON object")
    return value


def register(groups) -> None:
    exercise = groups.add_parser("exercise", help="the AI Move exercise catalog").add_subparsers(
        dest="command", required=True)
    p = exercise.add_parser("create", help="create a library exercise (operator tenant, --library) or a custom "
                                           "exercise of a client")
    p.add_argument("--client-id", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--type", required=True, choices=("rep", "timer"))
    p.add_argument("--target-value", required=True, type=_number, help="reps (rep) or seconds (timer)")
    p.add_argument("--category", help="default: general")
    p.add_argument("--difficulty", help="default: beginner")
    p.add_argument("--library", action="store_true", help="a library exercise (only with the operator tenant)")
    p.add_argument("--disabled", action="store_true", help="create it disabled (hidden from the catalog)")
    p.add_argument("--exercise-id", help="a fixed id (default: generated)")
    p.add_argument("--sort-order", type=_number, help="position in the catalog (default: after the last)")
    p.add_argument("--name-zh", help="the Chinese name")
    p.add_argument("--description")
    p.add_argument("--image-url", help="an https URL")
    p.add_argument("--estimated-calories", type=_number, help="kcal of one session at the target value (default 0)")
    p.add_argument("--algorithm", type=_algorithm, help='a JSON object with at least "mode" '
                                                        '(default {"mode": "rep-count"} or {"mode": "hold"})')
    p.set_defaults(handler=exercise_create)
    p = exercise.add_parser("select", help="put a library exercise in a client's catalog")
    p.add_argument("--client-id", required=True)
    p.add_argument("--exercise-id", required=True)
    p.set_defaults(handler=exercise_select)
    p = exercise.add_parser("list", help="a client's exercises as operators see them, disabled ones included")
    p.add_argument("--client-id", required=True)
    p.set_defaults(handler=exercise_list)
