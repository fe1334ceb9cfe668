"""vitalscan commands: a workspace's point account, and the expiry sweep on demand."""

from ..cli import existing_client


def points_show(args) -> dict:
    from ...vital_scan import service

    client = existing_client(args.client_id)
    return service.point_account(client)


def sweep(args) -> dict:
    from ...vital_scan import service

    return {"expired": service.sweep_expired()}


def register(groups) -> None:
    vital = groups.add_parser("vitalscan", help="Vital Scan").add_subparsers(dest="command", required=True)
    p = vital.add_parser("points", help="the current cycle's points: granted, spent, remaining, resetsAt")
    p.add_argument("--client-id", required=True)
    p.set_defaults(handler=points_show)
    p = vital.add_parser("sweep", help="mark unfinished sessions past their two hours expired (what the schedule runs)")
    p.set_defaults(handler=sweep)
