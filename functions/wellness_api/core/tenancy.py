"""Clients (tenants), their users, and the host -> client map; all Firestore paths of tenancy.

Layout: clients/{clientId}, clients/{clientId}/users/{uid}, hostnames/{hostname} -> {clientId}.
"""

import dataclasses
import re
from typing import Any, TypeGuard

from google.cloud.firestore import DocumentReference, DocumentSnapshot

from . import firebase, reads, settings

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
    def from_snapshot(cls, snap: DocumentSnapshot[DocumentReference]) -> "Client":
        return cls.from_data(snap.id, snap.to_dict() or {})

    @classmethod
    def from_data(cls, client_id: str, data: dict[str, Any]) -> "Client":
        return cls(
            client_id=client_id,
            name=data.get("name") or client_id,
            is_operator=bool(data.get("isOperator")),
            hostnames=tuple(data.get("hostnames") or ()),
            settings=data.get("settings") or {},
            legacy_primary_key_id=data.get("legacyPrimaryKeyId"),
        )

    def setting(self, key: str) -> Any:
        return settings.get(self.settings, key)


def client_ref(client_id: str) -> DocumentReference:
    return firebase.db().collection(CLIENTS).document(client_id)


def user_ref(client_id: str, uid: str) -> DocumentReference:
    return firebase.db().collection(CLIENTS, client_id, USERS).document(uid)


def hostname_ref(hostname: str) -> DocumentReference:
    return firebase.db().collection(HOSTNAMES).document(hostname)


def valid_id(doc_id: str | None) -> TypeGuard[str]:
    # Ids we mint or accept as path segments: no "/", not "." or "..", not __x__; we keep ids short and plain.
    if not doc_id or len(doc_id) > 64 or not all(c.isalnum() or c in "-_" for c in doc_id):
        return False
    return not (len(doc_id) >= 4 and doc_id.startswith("__") and doc_id.endswith("__"))  # Firestore reserves __x__


def get_client(client_id: str | None) -> Client | None:
    if not valid_id(client_id):
        return None
    # Every request of every area reads its client: decoded once, in one unary read (core.reads).
    data = reads.document(client_ref(client_id))
    return None if data is None else Client.from_data(client_id, data)


MAX_HOSTNAME_LENGTH = 253
# A DNS name (RFC 1123): dot-separated labels of 1-63 letters, digits or hyphens, no label starting or
# ending with a hyphen. It is also a safe Firestore document id: no "/", no "..", no reserved __x__.
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
# A header this long is not a host at all; it is cut before any parsing so that no work grows with it.
_MAX_HOST_HEADER = 1024


def valid_hostname(host: str) -> bool:
    if not host or len(host) > MAX_HOSTNAME_LENGTH:
        return False
    return all(_LABEL.fullmatch(label) for label in host.split("."))


def normalize_host(host: str | None) -> str | None:
    """Lower-case host without port and trailing dot; None for an empty or malformed one.

    Every host taken from a request header goes through here before it is looked up, so a host that
    no client could have registered (`__x__`, `a..b`, 300 characters) is simply an unknown host."""
    if not host or len(host) > _MAX_HOST_HEADER:
        return None
    host = host.split(",")[0].strip().lower()  # proxies may append hosts; the first is the caller's
    if host.startswith("["):
        return None
    name, colon, port = host.partition(":")
    if colon and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return None
    name = name[:-1] if name.endswith(".") else name
    return name if valid_hostname(name) else None


def client_for_host(host: str | None) -> Client | None:
    host = normalize_host(host)
    if host is None:
        return None
    snap = hostname_ref(host).get()
    if not snap.exists:
        return None
    return get_client(snap.get("clientId"))
