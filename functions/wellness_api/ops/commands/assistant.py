"""`assistant usage`: a client's wellness-chat and proxy tokens of a month against its budget, and its models."""

import re

from ..cli import CliError, existing_client


def assistant_usage(args) -> dict:
    from ...assistant import metering, proxy
    from ...assistant.providers import registry

    if args.month is not None and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", args.month):
        raise CliError("--month must be YYYY-MM")
    client = existing_client(args.client_id)
    return {**metering.month_summary(client, args.month), "model": registry.default_model(),
            "allowedModels": proxy.allowed_models(client)}


def register(groups) -> None:
    assistant = groups.add_parser("assistant", help="the AI assistant").add_subparsers(dest="command", required=True)
    p = assistant.add_parser("usage", help="tokens used in a month against the client's budget, and its models")
    p.add_argument("--client-id", required=True)
    p.add_argument("--month", help="YYYY-MM (default: this month, UTC)")
    p.set_defaults(handler=assistant_usage)
