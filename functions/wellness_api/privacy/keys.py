"""The audit trail's keyed hashes of a person's ids, and the signed, expiring tokens of export downloads.

The hash key is derived from CLIENT_JWT_SECRET with HKDF-SHA256 (RFC 5869) and the label "privacy-audit", so the
privacy area needs no secret of its own, and the key says nothing about the secret (or the client tokens it signs).
A download link is signed with a random key of its export, kept in the request document.
"""

import base64
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from ..core import config

AUDIT_LABEL = b"privacy-audit"
HASH_HEX = 32  # 128 bits of the HMAC: collisions among a client's members are out of reach


class TokenInvalid(Exception):
    pass


def _secret() -> bytes:
    secret = os.environ.get("CLIENT_JWT_SECRET") or _local_secret()
    if not secret:
        return config.client_jwt_secret().encode()  # raises the platform's own "missing secret" error
    if len(secret) < 32:
        raise RuntimeError("CLIENT_JWT_SECRET is missing or shorter than 32 characters")
    return secret.encode()


def _local_secret() -> str | None:
    """platformctl against the local emulators: the Functions emulator's secret file, so that the hashes and links the
    CLI makes match the ones the emulated functions make and check."""
    if not config.using_emulators():
        return None
    path = Path(__file__).resolve().parents[2] / ".secret.local"
    if not path.is_file():
        return None
    for line in path.read_text().splitlines():
        name, _, value = line.partition("=")
        if name.strip() == "CLIENT_JWT_SECRET":
            return value.strip().strip('"')
    return None


def hkdf(secret: bytes, label: bytes, length: int = 32) -> bytes:
    prk = hmac.new(b"\x00" * 32, secret, hashlib.sha256).digest()  # extract, no salt (RFC 5869 2.2)
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + label + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def subject_hash(client_id: str, value: str | None) -> str | None:
    """The keyed hash of one of a person's ids (uid, email) within a client: the same id always hashes alike, so an
    admin can ask "was this person erased?", and nobody without the secret can go back from it."""
    if not value:
        return None
    key = hkdf(_secret(), AUDIT_LABEL)
    material = f"{len(client_id)}:{client_id}:{value}".encode()
    return hmac.new(key, material, hashlib.sha256).hexdigest()[:HASH_HEX]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_download_key() -> str:
    """A completed export's own signing key, kept in its request document (server-only), so that every process that
    reads the request can check its links, whatever secrets it was started with."""
    return secrets.token_hex(32)


def download_token(key: str, client_id: str, request_id: str, expires_at: int) -> str:
    """`payload.signature`: which archive, and until when (seconds since the epoch), signed with the export's key."""
    payload = _b64(json.dumps({"c": client_id, "r": request_id, "e": expires_at}, separators=(",", ":")).encode())
    signature = hmac.new(bytes.fromhex(key), payload.encode(), hashlib.sha256).digest()
    return f"{payload}.{_b64(signature)}"


def parse_download_token(token: str) -> tuple[str, str, int]:
    """(clientId, requestId, expiresAt) a token claims, not yet verified; TokenInvalid when it is not a token."""
    payload, dot, signature = token.partition(".")
    if not dot or not payload or not signature:
        raise TokenInvalid()
    try:
        fields = json.loads(_unb64(payload))
    except (ValueError, TypeError):
        raise TokenInvalid() from None
    if not isinstance(fields, dict):
        raise TokenInvalid()
    client_id, request_id, expires = fields.get("c"), fields.get("r"), fields.get("e")
    if not isinstance(client_id, str) or not isinstance(request_id, str) or not isinstance(expires, int):
        raise TokenInvalid()
    return client_id, request_id, expires


def check_download_token(key: str | None, token: str, now: float) -> None:
    """TokenInvalid unless the token was signed with this export's key and has not expired."""
    payload, _, signature = token.partition(".")
    _, _, expires = parse_download_token(token)
    if not key:
        raise TokenInvalid()
    expected = hmac.new(bytes.fromhex(key), payload.encode(), hashlib.sha256).digest()
    try:
        genuine = hmac.compare_digest(expected, _unb64(signature))
    except ValueError:
        raise TokenInvalid() from None
    if not genuine or expires <= now:
        raise TokenInvalid()
