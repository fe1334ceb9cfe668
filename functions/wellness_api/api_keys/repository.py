"""Firestore access for API keys: clients/{clientId}/apiKeys/{keyId} plus the apiKeyIndex mirror."""

from google.cloud import firestore

from ..core import server_keys, tenancy

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


def read_client_in(transaction, client_id: str):
    return tenancy.client_ref(client_id).get(transaction=transaction)


def active_keys_in(transaction, client_id: str) -> list[dict]:
    query = keys_collection(client_id).where(filter=firestore.FieldFilter("status", "==", server_keys.ACTIVE))
    return [snap.to_dict() for snap in query.stream(transaction=transaction)]


def read_key_in(transaction, client_id: str, key_id: str) -> dict | None:
    snap = keys_collection(client_id).document(key_id).get(transaction=transaction)
    return snap.to_dict() if snap.exists else None


def new_key_id(client_id: str) -> str:
    return keys_collection(client_id).document().id


def write_new_key(transaction, client_id: str, record: dict) -> None:
    transaction.create(keys_collection(client_id).document(record["keyId"]), record)
    transaction.create(
        server_keys.index_ref(record["keyHash"]),
        {
            "clientId": client_id,
            "keyId": record["keyId"],
            "status": record["status"],
            "expiresAt": record["expiresAt"],
            "lastUsedAt": None,
        },
    )


def update_key(transaction, client_id: str, key_id: str, fields: dict) -> None:
    transaction.update(keys_collection(client_id).document(key_id), fields)


def update_index(transaction, key_hash: str, fields: dict) -> None:
    transaction.update(server_keys.index_ref(key_hash), fields)


def set_primary_on_client(transaction, client_id: str, key_id: str | None) -> None:
    # Every key mutation writes the client document, which it also read first: that makes all key
    # mutations of one client serialize, so invariants over the set of keys cannot race.
    transaction.update(
        tenancy.client_ref(client_id),
        {"legacyPrimaryKeyId": key_id, "keysUpdatedAt": firestore.SERVER_TIMESTAMP},
    )
