"""`user invite`: an invitation that the invited email's first sign-in activates (identity area)."""

import argparse

from ..cli import CliError, existing_client


def user_invite(args) -> dict:
    from ...identity import members

    client = existing_client(args.client_id)
    try:
        return members.invite(client, args.email, args.role)
    except members.InviteError as exc:
        raise CliError(str(exc)) from None


def _user_commands(groups):
    """The `user` group's subcommands (made by commands.tenants), or a new group when it is absent."""
    parser = groups.choices.get("user")
    if parser is None:
        return groups.add_parser("user", help="client users").add_subparsers(dest="command", required=True)
    for action in parser._actions:  # argparse keeps a group's subcommands in a private action
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("the user command group has no subcommands")


def register(groups) -> None:
    p = _user_commands(groups).add_parser(
        "invite", help="invite an email to a client; its first sign-in with a verified email activates it")
    p.add_argument("--client-id", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--role", required=True, choices=("admin", "player"))
    p.set_defaults(handler=user_invite)
