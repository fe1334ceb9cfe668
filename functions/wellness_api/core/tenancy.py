"""Clients (tenants), their users, and the host -> client map; all Firestore paths of tenancy.

Layout: clients/{clientId}, clients/{clientId}/users/{uid}, hostnames/{hostname} -> {clientId}.
"""

import dataclasses
from typing import Any

from . import firebase, settings

CLIENTS = "clients"
USERS = "users"
HOSTNAMES = "hostnames"

ROLE_ADMIN = "admin"
ROLE_PLAYER = "player"
ROLE_GUEST = "guest"

USER_ACTIVE = "active"
USER_DISABLED = "disabled"
USER_INVITED = "invited"


@dataclasses.dataclass(frozen=True)
class Client:
    client_id: str
    name: str
    is_operator: bool
    hostnames: tuple[str, ...]
    settings: dict[str, Any]
    legacy_primary_key_id: str | None

    @classmethod
    def from_snapshot(cls, snap) -> "Client":
        data = snap.to_dict() or {}
        return cls(
            client_id=snap.id,
            name=data.get("name") or snap.id,
            is_operator=bool(data.get("isOperator")),
            hostnames=tuple(data.get("hostnames") or ()),
            settings=data.get("settings") or {},
            legacy_primary_key_id=data.get("legacyPrimaryKeyId"),
        )

    def setting(self, key: str) -> Any:
        return settings.get(self.settings, key)


def client_ref(client_id: str):
    return firebase.db().collection(CLIENTS).document(client_id)


def user_ref(client_id: str, uid: str):
    return client_ref(client_id).collection(USERS).document(uid)


def hostname_ref(hostname: str):
    return firebase.db().collection(HOSTNAMES).document(hostname)


def valid_id(doc_id: str | None) -> bool:
    # Ids we mint or accept as path segments: no "/", not "." or "..", not __x__; we keep ids short and plain.
    if not doc_id or len(doc_id) > 64 or not all(c.isalnum() or c in "-_" for c in doc_id):
        return False
    return not (len(doc_id) >= 4 and doc_id.startswith("__") and doc_id.endswith("__"))  # Firestore reserves __x__


def get_client(client_id: str | None) -> Client | None:
    if not valid_id(client_id):
        return None
    snap = client_ref(client_id).get()
    return Client.from_snapshot(snap) if snap.exists else None


def normalize_host(host: str | None) -> str | None:
    """Lower-case host without port; None for an empty or malformed one."""
    if not host:
        return None
    host = host.split(",")[0].strip().lower()  # proxies may append hosts; the first is the caller's
    if host.startswith("["):
        return None
    host = host.rsplit(":", 1)[0] if ":" in host else host
    if not host or len(host) > 253 or "/" in host:
        return None
    return host


def client_for_host(host: str | None) -> Client | None:
    host = normalize_host(host)
    if host is None:
        return None
    snap = hostname_ref(host).get()
    if not snap.exists:
        return None
    return get_client(snap.get("clientId"))
