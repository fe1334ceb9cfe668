"""Client users: the Firebase Auth identity, its custom claims, and the Firestore record behind them.

Firestore (clients/{clientId}/users/{uid}) is the source of truth for role and status; claims are
always rebuilt from it with claims_for(), never taken from a caller.
"""

from typing import Any

from google.cloud import firestore

from . import clock, firebase, tenancy
from .tenancy import ROLE_ADMIN, USER_ACTIVE, USER_DISABLED, Client

ROLES = (tenancy.ROLE_ADMIN, tenancy.ROLE_PLAYER)


class UserError(Exception):
    """A provisioning request that cannot be honoured (message is safe to show an operator)."""


def claims_for(client: Client, role: str) -> dict[str, Any]:
    claims: dict[str, Any] = {"clientId": client.client_id, "role": role}
    if client.is_operator and role == ROLE_ADMIN:
        claims["platformAdmin"] = True
    return claims


def profile(user) -> dict[str, Any]:
    """The 2.6 authentication profile of a firebase_admin UserRecord."""
    return {
        "uid": user.uid,
        "email": user.email,
        "displayName": user.display_name,
        "photoURL": user.photo_url,
        "emailVerified": bool(user.email_verified),
        "disabled": bool(user.disabled),
    }


def create_user(client: Client, email: str, password: str, role: str, display_name: str | None = None) -> str:
    """Create an active member with a password; the first ID token already carries the claims."""
    if role not in ROLES:
        raise UserError(f"role must be one of: {', '.join(ROLES)}")
    fb_auth = firebase.auth()
    try:
        user = fb_auth.create_user(email=email, password=password, display_name=display_name, app=firebase.app())
    except fb_auth.EmailAlreadyExistsError:
        raise UserError(f"a user with email {email} already exists") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        fb_auth.set_custom_user_claims(user.uid, claims_for(client, role), app=firebase.app())
        now = clock.now()
        tenancy.user_ref(client.client_id, user.uid).create({
            "uid": user.uid,
            "clientId": client.client_id,
            "email": email.lower(),
            "displayName": display_name,
            "role": role,
            "status": USER_ACTIVE,
            "createdAt": now,
            "updatedAt": now,
        })
    except Exception:
        # Nothing half-made: an Auth user without its client record would be unusable.
        fb_auth.delete_user(user.uid, app=firebase.app())
        raise
    return user.uid


def disable_user(client: Client, uid: str) -> None:
    """Disable the member everywhere: Firestore record, Auth account, and outstanding sessions."""
    ref = tenancy.user_ref(client.client_id, uid)
    if not tenancy.valid_id(uid) or not ref.get().exists:
        raise UserError(f"user {uid} is not a member of client {client.client_id}")
    fb_auth = firebase.auth()
    ref.update({"status": USER_DISABLED, "updatedAt": firestore.SERVER_TIMESTAMP})
    fb_auth.update_user(uid, disabled=True, app=firebase.app())
    fb_auth.revoke_refresh_tokens(uid, app=firebase.app())
