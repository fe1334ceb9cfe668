"""client, user and apikey commands."""

import argparse

from ...core import provisioning, tenancy, users
from .. import listing, settings_help
from ..cli import CliError, existing_client


def client_create(args) -> dict:
    try:
        client = provisioning.create_client(args.client_id, args.name, args.hostname or [], args.operator)
    except provisioning.ProvisioningError as exc:
        raise CliError(str(exc)) from None
    return {"clientId": client.client_id}


def client_configure(args) -> dict:
    try:
        effective = provisioning.configure_client(args.client_id, args.set)
    except provisioning.ProvisioningError as exc:
        raise CliError(str(exc)) from None
    return {"clientId": args.client_id, "settings": effective}


def user_create(args) -> dict:
    client = existing_client(args.client_id)
    try:
        uid = users.create_user(client, args.email, args.password, args.role, args.display_name,
                               birth_date=args.birth_date, sex=args.sex)
    except users.UserError as exc:
        raise CliError(str(exc)) from None
    return {"uid": uid}


def user_disable(args) -> dict:
    client = existing_client(args.client_id)
    try:
        users.disable_user(client, args.uid)
    except users.UserError as exc:
        raise CliError(str(exc)) from None
    return {"uid": args.uid, "disabled": True}


def apikey_create(args) -> dict:
    from ...api_keys import service
    from ...core.errors import ApiError

    existing_client(args.client_id)
    try:
        created = service.create_key(args.client_id, args.label or "", make_primary=False, created_by="platformctl")
    except ApiError as exc:
        raise CliError(exc.message) from None
    return {"keyId": created.api_key["keyId"], "secret": created.secret}


def _limit(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = 0
    if not 1 <= value <= listing.MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to {listing.MAX_LIMIT}, got {text!r}")
    return value


def _start_after(text: str) -> str:
    if not tenancy.valid_id(text):
        raise argparse.ArgumentTypeError(f"not an id (take it from nextStartAfter): {text!r}")
    return text


def _paged(parser) -> None:
    parser.add_argument("--limit", type=_limit, default=listing.DEFAULT_LIMIT, metavar="N",
                        help=f"at most N records (default {listing.DEFAULT_LIMIT}, max {listing.MAX_LIMIT})")
    parser.add_argument("--start-after", type=_start_after, metavar="ID",
                        help="the page after this id: the previous page's nextStartAfter")


def client_list(args) -> dict:
    return listing.clients(args.limit, args.start_after)


def user_list(args) -> dict:
    client = existing_client(args.client_id)
    return listing.users(client.client_id, args.limit, args.start_after)


def apikey_list(args) -> dict:
    from ...api_keys import service
    from ...core.errors import ApiError

    existing_client(args.client_id)
    try:
        keys = service.list_keys(args.client_id)
    except ApiError as exc:
        raise CliError(exc.message) from None
    # The same body as GET /api/clients/{clientId}/api-keys, without the HTTP `success` flag.
    return {"apiKeys": keys.api_keys, "legacyPrimaryKeyId": keys.legacy_primary_key_id}


def apikey_revoke(args) -> dict:
    # The service behind PATCH /api/clients/{clientId}/api-keys/{keyId} {"action": "revoke"}: the same rules.
    from ...api_keys import repository, service
    from ...api_keys.models import key_record
    from ...core.errors import ApiError

    existing_client(args.client_id)
    try:
        service.revoke_key(args.client_id, args.key_id)
    except ApiError as exc:
        if exc.message == service.KEY_NOT_FOUND:
            raise CliError(f"API key {args.key_id} not found in client {args.client_id}") from None
        raise CliError(exc.message) from None
    # Read by id: a key revoked long ago (a repeated revoke) may be past the list's bound of revoked keys.
    snap = repository.keys_collection(args.client_id).document(args.key_id).get()
    return key_record(snap.to_dict())


def register(groups) -> None:
    client = groups.add_parser("client", help="tenants").add_subparsers(dest="command", required=True)
    p = client.add_parser("create", help="create a client")
    p.add_argument("--client-id", required=True)
    p.add_argument("--name")
    p.add_argument("--hostname", action="append", help="a hostname that maps to this client (repeatable)")
    p.add_argument("--operator", action="store_true", help="mark the operator tenant")
    p.set_defaults(handler=client_create)
    p = client.add_parser("configure", help="set typed tenant settings", epilog=settings_help.epilog(),
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--client-id", required=True)
    p.add_argument("--set", action="append", required=True, metavar="KEY=VALUE",
                   help="one setting (repeatable); the keys and their values are listed below")
    p.set_defaults(handler=client_configure)
    p = client.add_parser("list", help="list clients in client-id order, a page at a time")
    _paged(p)
    p.set_defaults(handler=client_list)

    user = groups.add_parser("user", help="client users").add_subparsers(dest="command", required=True)
    p = user.add_parser("create", help="create a user who can sign in at once")
    p.add_argument("--client-id", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--role", required=True, choices=users.ROLES)
    p.add_argument("--display-name")
    p.add_argument("--birth-date", metavar="YYYY-MM-DD", help="date of birth (fall-risk thresholds, age groups)")
    p.add_argument("--sex", choices=users.SEXES, help="female or male (fall-risk chair-stand norms)")
    p.set_defaults(handler=user_create)
    p = user.add_parser("disable", help="disable a user everywhere")
    p.add_argument("--client-id", required=True)
    p.add_argument("--uid", required=True)
    p.set_defaults(handler=user_disable)
    p = user.add_parser("list", help="list a client's members and invitations in id order, a page at a time")
    p.add_argument("--client-id", required=True)
    _paged(p)
    p.set_defaults(handler=user_list)

    apikey = groups.add_parser("apikey", help="server API keys").add_subparsers(dest="command", required=True)
    p = apikey.add_parser("create", help="create a server API key (the secret is shown once)")
    p.add_argument("--client-id", required=True)
    p.add_argument("--label")
    p.set_defaults(handler=apikey_create)
    p = apikey.add_parser("list", help="every active key and the 100 most recently revoked (masked, never secrets)")
    p.add_argument("--client-id", required=True)
    p.set_defaults(handler=apikey_list)
    p = apikey.add_parser("revoke", help="revoke a key, as PATCH .../api-keys/{keyId} {action: revoke} does")
    p.add_argument("--client-id", required=True)
    p.add_argument("--key-id", required=True)
    p.set_defaults(handler=apikey_revoke)
