"""Server API keys: their format, hashing, and the O(1) lookup every key-authenticated area uses.

A raw key is `wsk_` + 43 URL-safe characters (256 random bits). Only its SHA-256 is stored: with that
much entropy a fast hash cannot be brute-forced, and a deterministic hash lets the key be found by
document id (`apiKeyIndex/{sha256}`) in one read, whatever the number of clients or keys.
The index document mirrors status and expiry, so authenticating reads nothing else.
"""

import dataclasses
import datetime as dt
import hashlib
import secrets

from google.cloud.firestore import DocumentReference

from . import clock, firebase

KEY_PREFIX = "wsk_"
INDEX_COLLECTION = "apiKeyIndex"
SHOWN_PREFIX_LENGTH = 8
SHOWN_SUFFIX_LENGTH = 4
# lastUsedAt is refreshed at most once per key per minute, so busy keys do not write on every call.
LAST_USED_GRANULARITY = dt.timedelta(minutes=1)
ACTIVE = "active"
REVOKED = "revoked"


def generate() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def prefix_of(raw: str) -> str:
    return raw[:SHOWN_PREFIX_LENGTH]


def suffix_of(raw: str) -> str:
    return raw[-SHOWN_SUFFIX_LENGTH:]


def masked(prefix: str, suffix: str) -> str:
    return f"{prefix}{'*' * 8}{suffix}"


def looks_like_key(raw: str) -> bool:
    return raw.startswith(KEY_PREFIX) and 20 <= len(raw) <= 128


@dataclasses.dataclass(frozen=True)
class KeyMatch:
    client_id: str
    key_id: str
    key_hash: str
    last_used_at: dt.datetime | None


def index_ref(key_hash: str) -> DocumentReference:
    return firebase.db().collection(INDEX_COLLECTION).document(key_hash)


def authenticate(raw: str | None) -> KeyMatch | None:
    """The active, unexpired key with this raw value, or None; one Firestore read."""
    if not raw or not looks_like_key(raw):
        return None
    key_hash = hash_key(raw)
    snap = index_ref(key_hash).get()
    if not snap.exists:
        return None
    data = snap.to_dict() or {}
    if data.get("status") != ACTIVE:
        return None
    expires_at = data.get("expiresAt")
    if expires_at is not None and expires_at <= clock.now():
        return None
    return KeyMatch(data["clientId"], data["keyId"], key_hash, data.get("lastUsedAt"))


def touch(match: KeyMatch) -> None:
    """Record use, at most once per LAST_USED_GRANULARITY; never fails the caller's request."""
    now = clock.now()
    if match.last_used_at is not None and now - match.last_used_at < LAST_USED_GRANULARITY:
        return
    db = firebase.db()
    batch = db.batch()
    batch.update(index_ref(match.key_hash), {"lastUsedAt": now})
    batch.update(
        db.collection("clients").document(match.client_id).collection("apiKeys").document(match.key_id),
        {"lastUsedAt": now},
    )
    try:
        batch.commit()
    except Exception as exc:  # noqa: BLE001 - usage bookkeeping must not fail an authenticated call
        from . import logging as log

        log.warning(f"lastUsedAt update failed: {type(exc).__name__}", clientId=match.client_id)
