"""seed: the demo world."""

from .. import demo
from ..cli import CliError


def seed(args) -> dict:
    try:
        return demo.seed(reset=args.reset)
    except demo.SeedError as exc:
        raise CliError(str(exc)) from None


def register(groups) -> None:
    p = groups.add_parser("seed", help="create (or re-print) the demo world")
    p.add_argument("--reset", action="store_true", help="empty the emulators first")
    p.set_defaults(handler=seed)
