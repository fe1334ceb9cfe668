"""Client users: the Firebase Auth identity, its custom claims, and the Firestore record behind them.

Firestore (clients/{clientId}/users/{uid}) is the source of truth for role and status; claims are
always rebuilt from it with claims_for(), never taken from a caller.
"""

import datetime as dt
import re
from typing import Any

from google.cloud import firestore

from . import clock, firebase, revocation, tenancy
from .tenancy import ROLE_ADMIN, USER_ACTIVE, USER_DISABLED, Client

ROLES = (tenancy.ROLE_ADMIN, tenancy.ROLE_PLAYER)
SEXES = ("female", "male")  # as the published norms the fall-risk thresholds come from are split
MAX_EMAIL_LENGTH = 254
MAX_AGE_YEARS = 130
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class UserError(Exception):
    """A provisioning request that cannot be honoured (message is safe to show an operator)."""


def claims_for(client: Client, role: str) -> dict[str, Any]:
    claims: dict[str, Any] = {"clientId": client.client_id, "role": role}
    if client.is_operator and role == ROLE_ADMIN:
        claims["platformAdmin"] = True
    return claims


def profile(user: Any) -> dict[str, Any]:
    """The 2.6 authentication profile of a firebase_admin UserRecord (a class without type information)."""
    return {
        "uid": user.uid,
        "email": user.email,
        "displayName": user.display_name,
        "photoURL": user.photo_url,
        "emailVerified": bool(user.email_verified),
        "disabled": bool(user.disabled),
    }


def normalize_email(email: str | None) -> str | None:
    """The address in lower case, or None when it is not one (no @, spaces, an empty part, too long)."""
    if not isinstance(email, str):
        return None
    email = email.strip().lower()
    local, at, domain = email.partition("@")
    if not at or not local or not domain or "@" in domain or len(email) > MAX_EMAIL_LENGTH:
        return None
    if any(c.isspace() for c in email) or domain.startswith(".") or domain.endswith("."):
        return None
    return email


def parse_birth_date(text: str, today: dt.date | None = None) -> dt.date | None:
    """A YYYY-MM-DD date of birth that is a real date, not in the future and at most 130 years ago; else None."""
    if not isinstance(text, str) or not _DATE.match(text):
        return None
    try:
        born = dt.date.fromisoformat(text)
    except ValueError:
        return None
    today = today or clock.now().date()
    earliest = dt.date(today.year - MAX_AGE_YEARS, today.month, min(today.day, 28))  # 29 February has no twin
    return born if earliest <= born <= today else None


def age_on(born: dt.date, day: dt.date) -> int:
    """Completed years of age on `day`."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


AGE_GROUPS = ("30-39", "40-49", "50-59", "60-69", "70-79", "80-89", "90+")  # the analytics age groups (2.14)


def age_group(age: int | None) -> str | None:
    """The 2.14 age group of an age; None under 30 or unknown."""
    if age is None or age < 30:
        return None
    return "90+" if age >= 90 else f"{age // 10 * 10}-{age // 10 * 10 + 9}"


def create_user(client: Client, email: str, password: str, role: str, display_name: str | None = None,
                birth_date: str | None = None, sex: str | None = None) -> str:
    """Create an active member with a password; the first ID token already carries the claims.

    The date of birth and sex, where given, feed the fall-risk thresholds and the analytics age groups."""
    if role not in ROLES:
        raise UserError(f"role must be one of: {', '.join(ROLES)}")
    if birth_date is not None and parse_birth_date(birth_date) is None:
        raise UserError("birth date must be a YYYY-MM-DD date, not in the future and at most 130 years ago")
    if sex is not None and sex not in SEXES:
        raise UserError(f"sex must be one of: {', '.join(SEXES)}")
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
            "birthDate": birth_date,
            # the date as a number, so analytics can average ages with one aggregation query
            "birthOrdinal": dt.date.fromisoformat(birth_date).toordinal() if birth_date else None,
            "sex": sex,
            "createdAt": now,
            "updatedAt": now,
        })
    except Exception:
        # Nothing half-made: an Auth user without its client record would be unusable.
        fb_auth.delete_user(user.uid, app=firebase.app())
        raise
    uid: str = user.uid
    return uid


def member_uids(client_id: str, role: str, limit: int = 50) -> list[str]:
    """The uids of the client's earliest members of `role` (the demo world's), oldest first."""
    query = (tenancy.client_ref(client_id).collection(tenancy.USERS)
             .where(filter=firestore.FieldFilter("role", "==", role)).order_by("createdAt").limit(limit))
    return [snap.id for snap in query.stream()]


def first_member(client_id: str, role: str) -> str | None:
    """The uid of the client's earliest member of `role` (the demo world's admin or player), or None."""
    return next(iter(member_uids(client_id, role, limit=1)), None)


def disable_user(client: Client, uid: str) -> None:
    """Disable the member everywhere: Firestore record, Auth account, and outstanding sessions."""
    ref = tenancy.user_ref(client.client_id, uid)
    if not tenancy.valid_id(uid) or not ref.get().exists:
        raise UserError(f"user {uid} is not a member of client {client.client_id}")
    fb_auth = firebase.auth()
    ref.update({"status": USER_DISABLED, "updatedAt": firestore.SERVER_TIMESTAMP})
    fb_auth.update_user(uid, disabled=True, app=firebase.app())
    fb_auth.revoke_refresh_tokens(uid, app=firebase.app())
    # After Auth has it, so no request of this process can cache the old standing again; other instances see it
    # within revocation.TTL.
    revocation.forget(uid)
