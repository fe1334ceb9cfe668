"""client, user and apikey commands."""

from ...core import provisioning, users
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


def register(groups) -> None:
    client = groups.add_parser("client", help="tenants").add_subparsers(dest="command", required=True)
    p = client.add_parser("create", help="create a client")
    p.add_argument("--client-id", required=True)
    p.add_argument("--name")
    p.add_argument("--hostname", action="append", help="a hostname that maps to this client (repeatable)")
    p.add_argument("--operator", action="store_true", help="mark the operator tenant")
    p.set_defaults(handler=client_create)
    p = client.add_parser("configure", help="set typed tenant settings")
    p.add_argument("--client-id", required=True)
    p.add_argument("--set", action="append", required=True, metavar="KEY=VALUE")
    p.set_defaults(handler=client_configure)

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

    apikey = groups.add_parser("apikey", help="server API keys").add_subparsers(dest="command", required=True)
    p = apikey.add_parser("create", help="create a server API key (the secret is shown once)")
    p.add_argument("--client-id", required=True)
    p.add_argument("--label")
    p.set_defaults(handler=apikey_create)
