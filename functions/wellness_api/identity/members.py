"""Client membership: the client user behind an Auth identity, its access claims, and invitations.

Firestore is the source of truth: a member may sign in only while its record is active with a
member role, and its claims are always rebuilt from that record (core.users.claims_for), never
taken from a caller. An invitation (`platformctl user invite`) becomes the member's record the first
time that email signs in through these endpoints, provided Firebase Auth has verified the email:
an unverified address proves nothing (anyone can register any address with email and password),
and activating on it would let a stranger claim someone else's invitation.
"""

from collections.abc import Callable

from ..core import clock, tenancy, transactions, users
from ..core.tenancy import ROLE_ADMIN, ROLE_PLAYER, USER_ACTIVE, USER_DISABLED, USER_INVITED, Client
from . import repository as repo

MEMBER_ROLES = (ROLE_ADMIN, ROLE_PLAYER)


class InviteError(Exception):
    """An invitation that cannot be made (message is safe to show an operator)."""


def well_formed(record: dict) -> bool:
    return record.get("role") in MEMBER_ROLES and record.get("status") in (USER_ACTIVE, USER_DISABLED)


def usable(record: dict) -> bool:
    return well_formed(record) and record.get("status") == USER_ACTIVE


def claims(client: Client, record: dict) -> dict:
    return users.claims_for(client, record["role"])


def resolve(client: Client, uid: str, load_auth_user: Callable[[], object]) -> dict | None:
    """The client user record of `uid`, activating a pending invitation for its verified email;
    None when the identity is not a member of the client."""
    record = repo.get_member(client.client_id, uid)
    if record is not None:
        return record
    auth_user = load_auth_user()
    if auth_user is None or not getattr(auth_user, "email_verified", False):
        return None
    email = users.normalize_email(getattr(auth_user, "email", None))
    if email is None:
        return None
    return activate_invitation(client, uid, email, getattr(auth_user, "display_name", None))


def activate_invitation(client: Client, uid: str, email: str, display_name: str | None) -> dict | None:
    member_ref = tenancy.user_ref(client.client_id, uid)
    invite_ref = repo.invite_ref(client.client_id, email)

    def run(transaction) -> dict | None:
        existing = repo.read_in(transaction, member_ref)
        if existing is not None:
            return existing
        pending = repo.read_in(transaction, invite_ref)
        if pending is None or pending.get("status") != USER_INVITED or pending.get("role") not in MEMBER_ROLES:
            return None
        now = clock.now()
        record = {
            "uid": uid,
            "clientId": client.client_id,
            "email": email,
            "displayName": display_name,
            "role": pending["role"],
            "status": USER_ACTIVE,
            "source": "invitation",
            "invitedAt": pending.get("invitedAt"),
            "activatedAt": now,
            "createdAt": now,
            "updatedAt": now,
        }
        transaction.create(member_ref, record)
        transaction.delete(invite_ref)
        return record

    return transactions.run(run)


def invite(client: Client, email: str, role: str) -> dict:
    """Record an invitation (idempotent for the same role); the email's first sign-in activates it."""
    normalized = users.normalize_email(email)
    if normalized is None:
        raise InviteError(f"not an email address: {email!r}")
    if role not in MEMBER_ROLES:
        raise InviteError(f"role must be one of: {', '.join(MEMBER_ROLES)}")
    for member in repo.members_with_email(client.client_id, normalized):
        if member.get("status") != USER_INVITED:
            raise InviteError(f"{normalized} is already a member of client {client.client_id}")
    ref = repo.invite_ref(client.client_id, normalized)

    def run(transaction) -> dict:
        pending = repo.read_in(transaction, ref)
        if pending is not None:
            if pending.get("role") != role:
                raise InviteError(f"{normalized} is already invited to client {client.client_id} "
                                  f"with role {pending.get('role')}")
            return pending
        now = clock.now()
        record = {
            "uid": None,
            "clientId": client.client_id,
            "email": normalized,
            "displayName": None,
            "role": role,
            "status": USER_INVITED,
            "invitedAt": now,
            "createdAt": now,
            "updatedAt": now,
        }
        transaction.create(ref, record)
        return record

    record = transactions.run(run)
    return {"email": record["email"], "clientId": client.client_id, "role": record["role"], "status": USER_INVITED}
