"""POST /api/auth/set-claims (4.2, 7.2): rebuild an identity's access claims from its client data.

The ID token is verified (revocation and disabled accounts included), the client user is resolved
(an invitation for the token's verified email is activated here), and the claims are written from
the record: {clientId, role[, platformAdmin]} for an active member; none at all for a disabled
member of that client (its access ends with its next token). The response shows the claims written.
"""

import dataclasses

from ..core import auth, tenancy, users
from ..core.errors import ApiError
from . import members
from . import repository as repo

INVALID_ID_TOKEN = "Invalid idToken"
CLIENT_USER_NOT_FOUND = "Client user not found"
CLIENT_USER_DATA_MISSING = "Client user data missing"


@dataclasses.dataclass(frozen=True)
class Result:
    claims: dict
    user: dict


def set_claims(client_id: str, id_token: str) -> Result:
    decoded = auth.verify_id_token(id_token)
    if decoded is None:
        raise ApiError(401, INVALID_ID_TOKEN)
    uid = decoded.get("uid") or decoded.get("sub")
    client = tenancy.get_client(client_id)
    if client is None or not uid:
        raise ApiError(404, CLIENT_USER_NOT_FOUND)
    auth_user = repo.get_auth_user(uid)
    if auth_user is None:
        raise ApiError(401, INVALID_ID_TOKEN)
    record = members.resolve(client, uid, lambda: auth_user)
    if record is None:
        raise ApiError(404, CLIENT_USER_NOT_FOUND)
    if not members.well_formed(record):
        raise ApiError(404, CLIENT_USER_DATA_MISSING)
    if members.usable(record):
        claims = members.claims(client, record)
        repo.set_claims(uid, claims)
        return Result(claims, users.profile(auth_user))
    # A disabled member loses this client's claims; claims of another client are left alone.
    if (auth_user.custom_claims or {}).get(auth.CLAIM_CLIENT_ID) in (None, client.client_id):
        repo.set_claims(uid, {})
    return Result({}, users.profile(auth_user))
