"""POST /api/auth/guest-custom-token (4.2, 7.2, 8): a temporary guest identity for public trial flows.

The client comes from the request's host (CONTRACT 5) and must allow guests (auth.guestSignIn).
Each token is for a new uid `guest_<random>` with the claims {clientId, role: "guest"}; nothing is
stored: Firebase Auth creates the account when the token is redeemed. Attempts are limited per
caller (IP address, IPv6 by /64) and client: auth.guestAttemptsPerMinute; and the sign-ins of all
callers of the client together: auth.guestSignInsPerMinute, a ceiling so that many addresses cannot
turn one client's trial page into a stream of Auth accounts in the project every tenant shares.
"""

import secrets

from ..core import ratelimit, users
from ..core.errors import ApiError
from ..core.tenancy import ROLE_GUEST
from . import origin
from . import repository as repo

GUEST_UID_PREFIX = "guest_"
CLIENT_NOT_FOUND = "Client ID not found"
GUEST_NOT_ALLOWED = "Public guest sign-in is not allowed for this client"
TOO_MANY_ATTEMPTS = "Too many guest sign-in attempts; retry later"


def issue() -> str:
    client = origin.client_from_host()
    if client is None:
        raise ApiError(500, CLIENT_NOT_FOUND)
    if not client.setting("auth.guestSignIn"):
        raise ApiError(403, GUEST_NOT_ALLOWED)
    # The caller's own limit first, so one caller's refused attempts do not use up the client's ceiling.
    _limit(ratelimit.Limit("guest", int(client.setting("auth.guestAttemptsPerMinute"))),
           ratelimit.caller_key(client.client_id, origin.caller_address()))
    _limit(ratelimit.Limit("guestClient", int(client.setting("auth.guestSignInsPerMinute"))), client.client_id)
    uid = GUEST_UID_PREFIX + secrets.token_hex(14)
    return repo.custom_token(uid, users.claims_for(client, ROLE_GUEST))


def _limit(limit: ratelimit.Limit, key: str) -> None:
    decision = ratelimit.hit(limit, key)
    if not decision.allowed:
        raise ApiError(429, TOO_MANY_ATTEMPTS, extra={"retryAfterSeconds": decision.retry_after_seconds},
                       headers={"Retry-After": str(decision.retry_after_seconds)})
