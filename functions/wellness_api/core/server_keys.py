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
import threading

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


class _Claims:
    """When this process last set out to record each key's use. An instance serves many requests of one key at
    once; every one of them read the same stale lastUsedAt, and each wrote the two documents, once a minute."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._at: dict[str, dt.datetime] = {}

    def claim(self, key_hash: str, now: dt.datetime) -> bool:
        with self._lock:
            last = self._at.get(key_hash)
            if last is not None and dt.timedelta(0) <= now - last < LAST_USED_GRANULARITY:
                return False
            if len(self._at) >= MAX_CLAIMS:
                self._at.clear()
            self._at[key_hash] = now
            return True


MAX_CLAIMS = 10_000  # keys in use on one instance within a minute; a few hundred kB at most
_claims = _Claims()


def touch(match: KeyMatch) -> None:
    """Record use, at most once per LAST_USED_GRANULARITY (and per instance, whatever the requests in flight);
    never fails the caller's request."""
    now = clock.now()
    if match.last_used_at is not None and now - match.last_used_at < LAST_USED_GRANULARITY:
        return
    if not _claims.claim(match.key_hash, now):
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
