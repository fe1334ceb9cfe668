"""analytics commands: the rollups' compaction on demand (the emulators run no schedules)."""


def compact(args) -> dict:
    from ...core import activity

    return {"folded": activity.compact_all()}


def register(groups) -> None:
    analytics = groups.add_parser("analytics", help="analytics").add_subparsers(dest="command", required=True)
    p = analytics.add_parser("compact", help="fold the activity rollups' shards into one document per client and "
                                             "day (what the analyticscompact schedule runs)")
    p.set_defaults(handler=compact)
