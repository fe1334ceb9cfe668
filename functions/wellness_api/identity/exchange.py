"""POST /api/auth/exchange-token (4.2, 7.2): a valid ID token -> a custom token with full claims.

The client is the one of the request's host (CONTRACT 5), and the identity must be an active member
of it; the claims are rebuilt from that membership, not copied from the presented token.
"""

from ..core import auth
from ..core.errors import ApiError
from . import members, origin
from . import repository as repo

CLIENT_USER_NOT_FOUND = "Client user not found"


def exchange(raw_token: str | None) -> str:
    if raw_token is None:
        raise ApiError(401, auth.MISSING_AUTH)
    decoded = auth.verify_id_token(raw_token)
    if decoded is None:
        raise ApiError(401, auth.INVALID_TOKEN)
    uid = decoded.get("uid") or decoded.get("sub")
    client = origin.client_from_host()
    if client is None or not uid:
        raise ApiError(404, CLIENT_USER_NOT_FOUND)
    record = members.resolve(client, uid, lambda: repo.get_auth_user(uid))
    if record is None or not members.well_formed(record):
        raise ApiError(404, CLIENT_USER_NOT_FOUND)
    if not members.usable(record):
        # A disabled member's identity no longer counts, exactly like a disabled Auth account.
        raise ApiError(401, auth.INVALID_TOKEN)
    return repo.custom_token(uid, members.claims(client, record))
