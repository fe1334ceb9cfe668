"""Creating and configuring clients (tenants): platformctl, the demo world and area demo data use it."""

from typing import Any

from google.cloud import firestore

from . import clock, firebase, settings, tenancy, transactions
from .tenancy import Client

PLATFORM = "platform"
PLATFORM_DOC = "config"


class ProvisioningError(Exception):
    pass


def create_client(client_id: str, name: str | None, hostnames: list[str], operator: bool) -> Client:
    """Create the client and claim its hostnames atomically; nothing is written if any part is taken."""
    if not tenancy.valid_id(client_id):
        raise ProvisioningError("client id must be 1-64 letters, digits, '-' or '_'")
    normalized: list[str] = []
    for host in hostnames:
        value = tenancy.normalize_host(host)
        if value is None:
            raise ProvisioningError(f"invalid hostname {host!r}")
        normalized.append(value)
    db = firebase.db()
    platform_ref = db.collection(PLATFORM).document(PLATFORM_DOC)

    def run(transaction: firestore.Transaction) -> None:
        if tenancy.client_ref(client_id).get(transaction=transaction).exists:
            raise ProvisioningError(f"client {client_id} already exists")
        for host in normalized:
            if tenancy.hostname_ref(host).get(transaction=transaction).exists:
                raise ProvisioningError(f"hostname {host} is already registered")
        if operator:
            platform = platform_ref.get(transaction=transaction)
            if platform.exists and platform.get("operatorClientId"):
                raise ProvisioningError(f"the operator tenant is already {platform.get('operatorClientId')}")
            transaction.set(platform_ref, {"operatorClientId": client_id}, merge=True)
        transaction.create(tenancy.client_ref(client_id), {
            "clientId": client_id,
            "name": name or client_id,
            "isOperator": operator,
            "hostnames": normalized,
            "settings": {},
            "legacyPrimaryKeyId": None,
            "createdAt": clock.now(),
        })
        for host in normalized:
            transaction.create(tenancy.hostname_ref(host), {"clientId": client_id})

    transactions.run(run)
    return require_client(client_id)


def operator_client() -> Client | None:
    """The operator tenant (platform/config), or None before one is made."""
    snap = firebase.db().collection(PLATFORM).document(PLATFORM_DOC).get()
    return tenancy.get_client(snap.get("operatorClientId")) if snap.exists else None


def require_client(client_id: str) -> Client:
    client = tenancy.get_client(client_id)
    if client is None:
        raise ProvisioningError(f"client {client_id} not found")
    return client


def configure_client(client_id: str, assignments: list[str]) -> dict[str, Any]:
    """Apply typed KEY=VALUE settings in one write; returns every effective setting."""
    try:
        parsed = [settings.parse_assignment(a) for a in assignments]
    except settings.SettingError as exc:
        raise ProvisioningError(str(exc)) from None
    def run(transaction: firestore.Transaction) -> dict[str, Any]:
        snap = tenancy.client_ref(client_id).get(transaction=transaction)
        if not snap.exists:
            raise ProvisioningError(f"client {client_id} not found")
        stored = snap.get("settings") or {}
        for key, value in parsed:
            settings.put(stored, key, value)
        transaction.update(tenancy.client_ref(client_id), {"settings": stored})
        return stored

    if not tenancy.valid_id(client_id):
        raise ProvisioningError(f"client {client_id} not found")
    return settings.flatten(transactions.run(run))
