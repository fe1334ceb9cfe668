"""plan commands: lesson plans (CONTRACT section 3)."""

from ..cli import CliError


def plan_create(args) -> dict:
    from ...core.errors import ApiError
    from ...lessons import service

    try:
        plan_id = service.create_plan(args.client_id, {"en": args.title_en}, args.lesson_id, args.live)
    except ApiError as exc:
        raise CliError(exc.message) from None
    return {"planId": plan_id}


def register(groups) -> None:
    plan = groups.add_parser("plan", help="lesson plans").add_subparsers(dest="command", required=True)
    p = plan.add_parser("create", help="create a lesson plan (a live plan holds only live lessons)")
    p.add_argument("--client-id", required=True)
    p.add_argument("--title-en", required=True, help="the plan's English title")
    p.add_argument("--lesson-id", action="append", required=True, help="a lesson of the plan (repeatable, in order)")
    p.add_argument("--live", action="store_true", help="make the plan live")
    p.set_defaults(handler=plan_create)
