"""Who is calling: Firebase ID tokens (with role claims) and client tokens, as a Principal.

Custom claims carried by ID tokens: clientId, role ("admin", "player" or "guest") and
platformAdmin (true only for admins of the operator tenant). Firestore is the source of truth;
the claims are written from it by platformctl and by set-claims.
"""

import dataclasses
import time
from typing import Any

import flask

from . import client_tokens, firebase, revocation, tenancy
from .errors import ApiError
from .tenancy import ROLE_ADMIN, Client

CLAIM_CLIENT_ID = "clientId"
CLAIM_ROLE = "role"
CLAIM_PLATFORM_ADMIN = "platformAdmin"

MISSING_AUTH = "Missing or invalid Authorization header"
INVALID_TOKEN = "Invalid or expired token"
FORBIDDEN = "You do not have access to this client."
CLIENT_NOT_FOUND = "Client not found."


@dataclasses.dataclass(frozen=True)
class Principal:
    kind: str  # "user" (Firebase ID token) or "client" (client token)
    client_id: str | None
    uid: str | None = None
    role: str | None = None
    platform_admin: bool = False
    email: str | None = None
    key_id: str | None = None

    @property
    def is_admin(self) -> bool:
        return self.kind == "user" and self.role == ROLE_ADMIN

    def can_administer(self, client_id: str) -> bool:
        """Admin of that client, or a platform administrator (who may act on any client)."""
        return self.is_admin and (self.platform_admin or self.client_id == client_id)


def bearer_token() -> str | None:
    header = flask.request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


def principal_from_claims(claims: dict[str, Any]) -> Principal:
    role = claims.get(CLAIM_ROLE)
    return Principal(
        kind="user",
        client_id=claims.get(CLAIM_CLIENT_ID),
        uid=claims.get("uid") or claims.get("sub"),
        role=role,
        platform_admin=bool(claims.get(CLAIM_PLATFORM_ADMIN)) and role == ROLE_ADMIN,
        email=claims.get("email"),
    )


def verify_id_token(token: str) -> dict[str, Any] | None:
    """Decoded claims of a valid Firebase ID token, or None (expired, forged, revoked, disabled or deleted user).

    Revocation is always checked, as the SDK's check_revoked does (tokens issued before the user's
    tokensValidAfter, disabled or deleted accounts), but from core.revocation's per-instance cache: one Auth
    lookup per user per revocation.TTL instead of one per request, so a revocation or disable made outside this
    process takes effect here within revocation.TTL. The expiry is checked here too: against the Auth emulator
    the SDK checks neither signature nor lifetime, and the emulators must refuse what production refuses."""
    fb_auth = firebase.auth()
    try:
        claims: dict[str, Any] = fb_auth.verify_id_token(token, app=firebase.app())
    except (ValueError, fb_auth.InvalidIdTokenError, fb_auth.CertificateFetchError):
        return None
    # Real time, as Google's verifier uses: the platform clock may be moved in tests, a token's lifetime is not.
    expires = claims.get("exp")
    if not isinstance(expires, int | float) or expires <= time.time():
        return None
    uid, issued_at = claims.get("uid"), claims.get("iat")
    if not isinstance(uid, str) or not uid or not isinstance(issued_at, int | float):
        return None
    if not revocation.standing(uid).admits(issued_at):
        return None
    return claims


def require_user() -> Principal:
    """The caller's Firebase identity from `Authorization: Bearer <ID token>`, or 401."""
    token = bearer_token()
    if token is None:
        raise ApiError(401, MISSING_AUTH)
    claims = verify_id_token(token)
    if claims is None:
        raise ApiError(401, INVALID_TOKEN)
    principal = principal_from_claims(claims)
    flask.g.client_id = principal.client_id
    return principal


def require_jwt() -> Principal:
    """A Firebase ID token or a client token (spec part 5, "Bearer <JWT>"), or 401."""
    token = bearer_token()
    if token is None:
        raise ApiError(401, MISSING_AUTH)
    if client_tokens.is_client_token(token):
        claims = client_tokens.verify(token)
        if claims is None:
            raise ApiError(401, INVALID_TOKEN)
        flask.g.client_id = claims.client_id
        return Principal(kind="client", client_id=claims.client_id, key_id=claims.key_id)
    return require_user()


def require_client_admin(client_id: str) -> Principal:
    """An admin of `client_id` or a platform administrator; 401 without identity, 403 otherwise."""
    principal = require_user()
    if not principal.can_administer(client_id):
        raise ApiError(403, FORBIDDEN)
    return principal


def module_client(principal: Principal, module_setting: str, module_off: str) -> Client:
    """The caller's own client with a module on; 403 `module_off` when it is off (or the client is gone)."""
    client = tenancy.get_client(principal.client_id)
    if client is None or not client.setting(module_setting):
        raise ApiError(403, module_off)
    return client


def administered_client(principal: Principal, requested: str | None) -> Client:
    """The client an admin acts on: its own, or with `requested` any client for platform administrators.

    403 when the caller may not administer it, 404 when a platform administrator names an unknown client.
    """
    target = requested or principal.client_id
    if not target or not principal.can_administer(target):
        raise ApiError(403, FORBIDDEN)
    client = tenancy.get_client(target)
    if client is None:
        raise ApiError(404, CLIENT_NOT_FOUND)
    return client
