"""What `client list` and `user list` print: one bounded page at a time, in document-id order.

A page is at most `limit` records (DEFAULT_LIMIT unless given, never more than MAX_LIMIT), read with one query
of limit + 1 documents; the extra one only says whether another page follows, and `nextStartAfter` names the
id to pass as `--start-after` for it. No password, secret or key hash is ever read into a listing.
"""

from typing import Any

from google.cloud.firestore_v1.field_path import FieldPath

from ..core import clock, firebase, settings, tenancy

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
# A module is "on" for a client when its boolean setting is true; the names follow the settings table.
MODULE_PREFIX = "modules."


def _page(collection, limit: int, start_after: str | None) -> tuple[list, str | None]:
    by_id = FieldPath.document_id()
    query = collection.order_by(by_id).limit(limit + 1)
    if start_after:
        query = query.start_after({by_id: start_after})
    snaps = list(query.stream())
    more = len(snaps) > limit
    snaps = snaps[:limit]
    return snaps, snaps[-1].id if more else None


def modules_on(stored_settings: dict[str, Any] | None) -> list[str]:
    return [key.removeprefix(MODULE_PREFIX) for key, value in settings.flatten(stored_settings).items()
            if key.startswith(MODULE_PREFIX) and value is True]


def client_item(snap) -> dict[str, Any]:
    client = tenancy.Client.from_snapshot(snap)
    data = snap.to_dict() or {}
    return {
        "clientId": client.client_id,
        "name": client.name,
        "hostnames": list(client.hostnames),
        "isOperator": client.is_operator,
        "modules": modules_on(client.settings),
        "createdAt": clock.iso(data.get("createdAt")),
    }


def clients(limit: int, start_after: str | None) -> dict[str, Any]:
    snaps, next_id = _page(firebase.db().collection(tenancy.CLIENTS), limit, start_after)
    return {"clients": [client_item(snap) for snap in snaps], "nextStartAfter": next_id}


def user_item(data: dict[str, Any]) -> dict[str, Any]:
    """A member as an operator sees it: never a password (Firestore holds none) or a birth date."""
    status = data.get("status")
    return {
        "uid": data.get("uid"),  # None for an invitation not yet activated by its first sign-in
        "email": data.get("email"),
        "role": data.get("role"),
        "displayName": data.get("displayName"),
        "status": status,
        "disabled": status == tenancy.USER_DISABLED,
        "createdAt": clock.iso(data.get("createdAt")),
    }


def users(client_id: str, limit: int, start_after: str | None) -> dict[str, Any]:
    collection = tenancy.client_ref(client_id).collection(tenancy.USERS)
    snaps, next_id = _page(collection, limit, start_after)
    return {"users": [user_item(snap.to_dict() or {}) for snap in snaps], "nextStartAfter": next_id}
