"""retention commands: the health-data retention sweep now (what the hourly schedule runs), for every client or one.

An operator needs it after lowering a client's period (privacy.retentionDays.*) to see the data go at once, or to
catch up after the schedule was paused; it prints what was deleted.
"""

from ..cli import existing_client


def sweep(args) -> dict:
    from ...privacy import retention

    if args.client_id:
        client = existing_client(args.client_id)
        return retention.sweep(client_ids=[client.client_id])
    return retention.run_scheduled()


def register(groups) -> None:
    group = groups.add_parser("retention", help="health-data retention").add_subparsers(dest="command", required=True)
    p = group.add_parser("sweep", help="delete health data older than each client's privacy.retentionDays.* now "
                                       "(one bounded run, as the schedule's; run again until complete is true)")
    p.add_argument("--client-id", help="only this client (default: every client, from where the last run stopped)")
    p.set_defaults(handler=sweep)
