"""content commands: put an item (CONTRACT section 3)."""

from ..cli import CliError, existing_client


def _languages(pairs: list[str], flag: str) -> dict[str, str]:
    texts: dict[str, str] = {}
    for pair in pairs:
        lang, sep, text = pair.partition("=")
        if not sep:
            raise CliError(f"{flag} takes LANG=TEXT (e.g. {flag} en=Hello), got {pair!r}")
        if lang.strip() in texts:
            raise CliError(f"{flag} gives {lang.strip()} twice")
        texts[lang.strip()] = text
    return texts


def content_put(args) -> dict:
    import pydantic

    from ...content import service
    from ...content.models import CreateContentBody
    from ...core.errors import ApiError
    from ...core.http import strict_json

    client = existing_client(args.client_id)
    fields = {"key": args.key, "categoryKey": args.category, "title": _languages(args.title, "--title"),
              "body": _languages(args.body, "--body"), "format": args.format, "visibility": args.visibility,
              "publishAt": args.publish_at, "expiresAt": args.expires_at}
    if args.metadata is not None:
        try:
            fields["metadata"] = strict_json(args.metadata)
        except ValueError as exc:
            raise CliError(f"--metadata is not a JSON object: {exc}") from None
    try:
        body = CreateContentBody.model_validate({k: v for k, v in fields.items() if v is not None}, strict=True)
        item = service.put_item(client, body, "platformctl")
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CliError(f"{where}: {first['msg']}" if where else first["msg"]) from None
    except ApiError as exc:
        raise CliError(exc.message) from None
    return {"contentId": item["contentId"], "version": item["version"], "versionId": item["versionId"]}


def register(groups) -> None:
    content = groups.add_parser("content", help="content items").add_subparsers(dest="command", required=True)
    p = content.add_parser("put", help="create an item, or publish a new version of the item with that key")
    p.add_argument("--client-id", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--category", required=True, help="legal, announcements, help, other or a custom category")
    p.add_argument("--title", action="append", required=True, metavar="LANG=TEXT",
                   help="once per language: en (required), zh-Hant, zh-Hans")
    p.add_argument("--body", action="append", required=True, metavar="LANG=TEXT", help="once per language")
    p.add_argument("--format", choices=("markdown", "plain"), default=None, help="default markdown")
    p.add_argument("--visibility", choices=("private", "shared"), default=None,
                   help="shared: the operator tenant's items only (default private)")
    p.add_argument("--publish-at", help="ISO 8601 with a time zone (default: now)")
    p.add_argument("--expires-at", help="ISO 8601 with a time zone")
    p.add_argument("--metadata", help='a JSON object, e.g. {"actionUrl": "https://...", "actionLabel": "Open"}')
    p.set_defaults(handler=content_put)
