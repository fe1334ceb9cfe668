"""Firestore access for API keys: clients/{clientId}/apiKeys/{keyId} plus the apiKeyIndex mirror."""

from google.cloud import firestore

from ..core import firebase, server_keys, tenancy, transactions
from ..core.transactions import Seen

KEYS = "apiKeys"
# The list shows every active key (at most service.MAX_ACTIVE_KEYS exist) and the most recently revoked
# keys up to this bound; older revoked keys stay stored but are not listed.
REVOKED_LIST_LIMIT = 100


def keys_collection(client_id: str):
    return tenancy.client_ref(client_id).collection(KEYS)


def list_keys(client_id: str) -> list[dict]:
    """Every active key plus the REVOKED_LIST_LIMIT most recently revoked ones, newest created first.

    Two bounded queries: status == active (a single-field index; the service never lets a client hold
    more than MAX_ACTIVE_KEYS), and status == revoked ordered by revokedAt (composite index in
    firestore.indexes.json), so no number of rotations can push an active key out of the list."""
    active = keys_collection(client_id).where(filter=firestore.FieldFilter("status", "==", server_keys.ACTIVE))
    revoked = (
        keys_collection(client_id)
        .where(filter=firestore.FieldFilter("status", "==", server_keys.REVOKED))
        .order_by("revokedAt", direction=firestore.Query.DESCENDING)
        .limit(REVOKED_LIST_LIMIT)
    )
    keys = [snap.to_dict() for snap in active.stream()] + [snap.to_dict() for snap in revoked.stream()]
    keys.sort(key=lambda k: (k["createdAt"], k["keyId"]), reverse=True)
    return keys


def read_client(client_id: str) -> Seen:
    return transactions.read(tenancy.client_ref(client_id))


def active_keys(client_id: str) -> list[dict]:
    query = keys_collection(client_id).where(filter=firestore.FieldFilter("status", "==", server_keys.ACTIVE))
    return [snap.to_dict() for snap in query.stream()]


def read_key(client_id: str, key_id: str) -> dict | None:
    snap = keys_collection(client_id).document(key_id).get()
    return snap.to_dict() if snap.exists else None


def batch() -> firestore.WriteBatch:
    return firebase.db().batch()


def new_key_id(client_id: str) -> str:
    return keys_collection(client_id).document().id


def write_new_key(batch, client_id: str, record: dict) -> None:
    batch.create(keys_collection(client_id).document(record["keyId"]), record)
    batch.create(
        server_keys.index_ref(record["keyHash"]),
        {
            "clientId": client_id,
            "keyId": record["keyId"],
            "status": record["status"],
            "expiresAt": record["expiresAt"],
            "lastUsedAt": None,
        },
    )


def update_key(batch, client_id: str, key_id: str, fields: dict) -> None:
    batch.update(keys_collection(client_id).document(key_id), fields)


def update_index(batch, key_hash: str, fields: dict) -> None:
    batch.update(server_keys.index_ref(key_hash), fields)


def set_primary_on_client(batch, client_id: str, key_id: str | None, client: Seen) -> None:
    # Every key mutation writes the client document, on the condition that it is unchanged since it was read
    # before the keys: a batch commits only if no other key mutation of the client committed meanwhile, so
    # invariants over the set of keys cannot race (the loser re-reads and decides again).
    batch.update(
        tenancy.client_ref(client_id),
        {"legacyPrimaryKeyId": key_id, "keysUpdatedAt": firestore.SERVER_TIMESTAMP},
        option=transactions.unchanged(client),
    )
