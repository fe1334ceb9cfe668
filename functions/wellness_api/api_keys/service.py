"""API key rules (4.7, 3.4): overlapping keys, one legacy primary, no client without an active key.

Every mutation reads the client document, then its active keys, and commits one batch that writes the
client document on the condition that it is unchanged since read (core.transactions.optimistic). Every
mutation writes that document, so of concurrent creates, promotes and revokes of one client only one
commits on what it read; the others re-read and decide again. There is never a moment with two
primaries or with no active key, and no request waits on another's lock.
"""

import dataclasses

from ..core import clock, server_keys, tenancy, transactions
from ..core.errors import ApiError
from ..core.transactions import Seen
from . import repository as repo
from .models import key_record

MAX_ACTIVE_KEYS = 10

CLIENT_NOT_FOUND = "Client not found."
KEY_NOT_FOUND = "API key not found."
LAST_ACTIVE_KEY = "The last active API key cannot be revoked."
ONLY_ACTIVE_PROMOTED = "Only an active API key can be promoted."
TOO_MANY_KEYS = f"A client can have at most {MAX_ACTIVE_KEYS} active API keys; revoke one first."


@dataclasses.dataclass(frozen=True)
class KeyList:
    api_keys: list[dict]
    legacy_primary_key_id: str | None


@dataclasses.dataclass(frozen=True)
class CreatedKey:
    api_key: dict
    secret: str


def _usable(key: dict) -> bool:
    expires_at = key.get("expiresAt")
    return key["status"] == server_keys.ACTIVE and (expires_at is None or expires_at > clock.now())


def _require_client(client_id: str) -> Seen:
    if not tenancy.valid_id(client_id):
        raise ApiError(404, CLIENT_NOT_FOUND)
    client = repo.read_client(client_id)
    if client.data is None:
        raise ApiError(404, CLIENT_NOT_FOUND)
    return client


def list_keys(client_id: str) -> KeyList:
    client = tenancy.get_client(client_id)
    if client is None:
        raise ApiError(404, CLIENT_NOT_FOUND)
    return KeyList([key_record(k) for k in repo.list_keys(client_id)], client.legacy_primary_key_id)


def create_key(client_id: str, label: str, make_primary: bool, created_by: str | None,
               raw: str | None = None) -> CreatedKey:
    """Create an active key; `raw` is supplied only by the demo seed, which needs a stable demo key."""
    raw = raw or server_keys.generate()
    key_id = repo.new_key_id(client_id)

    def attempt() -> dict:
        client = _require_client(client_id)
        # Every key whose status is active counts, expired ones too (an operator may set expiresAt), so no
        # client ever holds more than MAX_ACTIVE_KEYS of them: the active-key reads stay that small.
        stored = repo.active_keys(client_id)
        if len(stored) >= MAX_ACTIVE_KEYS:
            raise ApiError(409, TOO_MANY_KEYS)
        active = [k for k in stored if _usable(k)]
        current_primary = next((k for k in active if k.get("isPrimary")), None)
        # The first key of a client, or one created while no usable primary exists, becomes primary.
        becomes_primary = make_primary or current_primary is None
        prefix, suffix = server_keys.prefix_of(raw), server_keys.suffix_of(raw)
        record = {
            "keyId": key_id,
            "label": label.strip(),
            "prefix": prefix,
            "suffix": suffix,
            "maskedKey": server_keys.masked(prefix, suffix),
            "keyHash": server_keys.hash_key(raw),
            "status": server_keys.ACTIVE,
            "isPrimary": becomes_primary,
            "createdAt": clock.now(),
            "createdBy": created_by,
            "expiresAt": None,
            "revokedAt": None,
            "lastUsedAt": None,
        }
        batch = repo.batch()
        repo.write_new_key(batch, client_id, record)
        if becomes_primary:
            if current_primary is not None:
                repo.update_key(batch, client_id, current_primary["keyId"], {"isPrimary": False})
            repo.set_primary_on_client(batch, client_id, key_id, client)
        else:
            assert current_primary is not None  # without a usable primary the new key becomes primary
            repo.set_primary_on_client(batch, client_id, current_primary["keyId"], client)
        batch.commit()
        return record

    record = transactions.optimistic(attempt)
    return CreatedKey(key_record(record), raw)


def promote_key(client_id: str, key_id: str) -> KeyList:
    def attempt() -> None:
        client = _require_client(client_id)
        active = repo.active_keys(client_id)
        key = repo.read_key(client_id, key_id) if tenancy.valid_id(key_id) else None
        if key is None:
            raise ApiError(404, KEY_NOT_FOUND)
        if not _usable(key):
            raise ApiError(409, ONLY_ACTIVE_PROMOTED)
        batch = repo.batch()
        for other in active:
            if other.get("isPrimary") and other["keyId"] != key_id:
                repo.update_key(batch, client_id, other["keyId"], {"isPrimary": False})
        repo.update_key(batch, client_id, key_id, {"isPrimary": True})
        repo.set_primary_on_client(batch, client_id, key_id, client)
        batch.commit()

    transactions.optimistic(attempt)
    return list_keys(client_id)


def revoke_key(client_id: str, key_id: str) -> KeyList:
    def attempt() -> None:
        client = _require_client(client_id)
        active = [k for k in repo.active_keys(client_id) if _usable(k)]
        key = repo.read_key(client_id, key_id) if tenancy.valid_id(key_id) else None
        if key is None:
            raise ApiError(404, KEY_NOT_FOUND)
        if key["status"] == server_keys.REVOKED:
            return  # revoking twice is a no-op, so a retried request is safe
        others = [k for k in active if k["keyId"] != key_id]
        if not others and _usable(key):  # an expired key can always go: it authenticates nothing
            raise ApiError(409, LAST_ACTIVE_KEY)
        now = clock.now()
        batch = repo.batch()
        repo.update_key(batch, client_id, key_id, {"status": server_keys.REVOKED, "revokedAt": now, "isPrimary": False})
        repo.update_index(batch, key["keyHash"], {"status": server_keys.REVOKED})
        if not others:
            repo.set_primary_on_client(batch, client_id, None, client)  # no usable key is left to be primary
        else:
            primary = next((k for k in others if k.get("isPrimary")), None)
            if primary is None:
                # The revoked key was primary (or none was): the newest remaining active key takes over.
                primary = max(others, key=lambda k: k["createdAt"])
                repo.update_key(batch, client_id, primary["keyId"], {"isPrimary": True})
            repo.set_primary_on_client(batch, client_id, primary["keyId"], client)
        batch.commit()

    transactions.optimistic(attempt)
    return list_keys(client_id)
