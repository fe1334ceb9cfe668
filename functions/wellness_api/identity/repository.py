"""Firestore and Firebase Auth access of the identity area.

Client users live at clients/{clientId}/users/{uid} (core.tenancy). An invitation is a client user
record awaiting activation: its uid is not known until the invited person signs in, so it is kept
at clients/{clientId}/users/invite_{sha256(email)[:40]} with status "invited" and uid null, and is
replaced by the real users/{uid} record in one transaction when it is activated.
An erased external user leaves a tombstone, clients/{clientId}/externalUserTombstones/{keyed hash of the
external id}, holding only the generation of the uid that id signs in as next (custom_token.external_uid).
"""

import hashlib

from google.api_core import exceptions as gexc
from google.cloud import firestore

from ..core import firebase, tenancy, transactions

INVITE_PREFIX = "invite_"
# clients/{clientId}/externalUserTombstones/{keyed hash of the external id}: {generation, updatedAt}
EXTERNAL_TOMBSTONES = "externalUserTombstones"


# ---------------------------------------------------------------------------------------- Firestore


def get_member(client_id: str, uid: str) -> dict | None:
    if not tenancy.valid_id(uid):
        return None
    snap = tenancy.user_ref(client_id, uid).get()
    return (snap.to_dict() or {}) if snap.exists else None


def create_member_once(client_id: str, uid: str, record: dict) -> dict:
    """Create the record unless it exists (a precondition on the write, so exactly once under races);
    returns the stored record either way."""
    ref = tenancy.user_ref(client_id, uid)
    try:
        ref.create(record)
        return record
    except gexc.AlreadyExists:
        snap = ref.get()
        return snap.to_dict() or {}


def tombstone_id(client_id: str, external_user_id: str) -> str:
    """A tombstone's id: the privacy audit trail's keyed hash of the external id, so the collection names nobody."""
    from ..privacy import keys

    return keys.subject_hash(client_id, external_user_id) or ""


def _tombstone_ref(client_id: str, tombstone: str):
    return tenancy.client_ref(client_id).collection(EXTERNAL_TOMBSTONES).document(tombstone)


def external_generation(client_id: str, external_user_id: str) -> int:
    """How many times the external id's user was erased (0: never): the generation of its uid today."""
    snap = _tombstone_ref(client_id, tombstone_id(client_id, external_user_id)).get(["generation"])
    return int((snap.to_dict() or {}).get("generation") or 0) if snap.exists else 0


def read_tombstone(client_id: str, tombstone: str) -> transactions.Seen:
    return transactions.read(_tombstone_ref(client_id, tombstone))


def write_tombstone(client_id: str, tombstone: str, generation: int, seen: transactions.Seen) -> None:
    """Only the generation and when: nothing that names the person (the id is a keyed hash)."""
    ref = _tombstone_ref(client_id, tombstone)
    fields = {"generation": generation, "updatedAt": firestore.SERVER_TIMESTAMP}
    if seen.data is None:
        ref.create(fields)
    else:
        ref.update(fields, option=transactions.unchanged(seen))


def invite_id(email: str) -> str:
    return INVITE_PREFIX + hashlib.sha256(email.encode("utf-8")).hexdigest()[:40]


def invite_ref(client_id: str, email: str):
    return tenancy.user_ref(client_id, invite_id(email))


def members_with_email(client_id: str, email: str, limit: int = 5) -> list[dict]:
    query = (
        tenancy.client_ref(client_id).collection(tenancy.USERS)
        .where(filter=firestore.FieldFilter("email", "==", email))
        .limit(limit)
    )
    return [snap.to_dict() for snap in query.stream()]


def read_in(transaction, ref) -> dict | None:
    snap = ref.get(transaction=transaction)
    return (snap.to_dict() or {}) if snap.exists else None


# --------------------------------------------------------------------------------------------- Auth


def get_auth_user(uid: str):
    """The Auth UserRecord, or None when there is no such user."""
    fb_auth = firebase.auth()
    try:
        return fb_auth.get_user(uid, app=firebase.app())
    except fb_auth.UserNotFoundError:
        return None


def get_auth_user_by_email(email: str):
    fb_auth = firebase.auth()
    try:
        return fb_auth.get_user_by_email(email, app=firebase.app())
    except (fb_auth.UserNotFoundError, ValueError):
        return None


def create_auth_user_once(uid: str):
    """Create an Auth user with this uid (no email, no password); an existing one is returned as is."""
    fb_auth = firebase.auth()
    try:
        return fb_auth.create_user(uid=uid, app=firebase.app())
    except fb_auth.UidAlreadyExistsError:
        return fb_auth.get_user(uid, app=firebase.app())


def set_claims(uid: str, claims: dict) -> None:
    firebase.auth().set_custom_user_claims(uid, claims or None, app=firebase.app())


def custom_token(uid: str, claims: dict | None) -> str:
    token = firebase.auth().create_custom_token(uid, claims or None, app=firebase.app())
    return token.decode("ascii") if isinstance(token, bytes) else token
