"""HTTP routes of the identity area.

The area has two error envelopes (spec part 7): POST /api/auth/custom-token answers errors as
{code, error} (7.1) and every other identity endpoint as {error} (7.2). A Flask app has one
envelope for everything it renders (its 404, 405 and 500 included), so the area has two apps:
`custom_token_app` (coded envelope) serves /api/auth/custom-token only, and `app` (plain envelope)
serves the rest. main.py's `identity` function picks the app with app_for(path).
"""

import flask
from werkzeug.exceptions import RequestEntityTooLarge

from ..core import auth, http, openapi
from ..core import logging as log
from ..core.errors import FIELD_IS_REQUIRED, ApiError, coded_envelope
from ..core.http import BodyError
from ..core.openapi import API_KEY, RETRY_AFTER, error
from . import client_token, custom_token, exchange, guest, models, origin, set_claims
from .models import CustomTokenBody, ExternalUserGrant, SetClaimsBody
from .responses import ClaimsSet, ClientToken, CustomToken, CustomTokenIssued, GuestRateLimited

CUSTOM_TOKEN_PATH = "/api/auth/custom-token"
SMALL_BODY_BYTES = 16 * 1024  # the largest identity body is an ID token of a few kilobytes

app = http.create_app("identity")
# 7.1 has no 413: a body that large matches no grant, so it is 400 invalid_request.
custom_token_app = http.create_app("identity", coded_envelope, max_body_bytes=SMALL_BODY_BYTES, oversized_status=400)
api = openapi.Api(app, "Identity")
custom_token_api = openapi.Api(custom_token_app, "Identity")
# Exchange and guest sign-in name the client by the host the caller used (CONTRACT 5).
HOST_SAMPLE = ("Host: $CLIENT_HOST",)


def app_for(path: str) -> flask.Flask:
    """The app that serves `path` (the full path through Hosting; the same on :5001 directly)."""
    return custom_token_app if path.rstrip("/").endswith(CUSTOM_TOKEN_PATH) else app


# ------------------------------------------------------------------------------ client token (4.2)


@api.post("/api/client/token/", operation_id="issueClientToken", summary="Get a client token",
          description="clientSecret accepts any active API key of the client. The trailing slash of "
                      "`/api/client/token/` is optional. Revoking the key ends its client tokens.",
          body=client_token.ClientTokenBody, example={"clientId": "$CLIENT_ID", "clientSecret": "$API_KEY"},
          responses={200: ClientToken},
          errors=[error(401, "Invalid client credentials (unknown client, wrong, revoked or foreign key).")])
def issue_client_token():
    body = http.parse_body(client_token.ClientTokenBody, missing=FIELD_IS_REQUIRED)
    return {"token": client_token.issue(body)}


# --------------------------------------------------------------------------- custom token (4.2, 7.1)


@custom_token_api.post(
    CUSTOM_TOKEN_PATH, operation_id="issueCustomToken", summary="Get a custom token for a user",
    description="Exactly one grant per request. **external_user** (recommended, server-to-server): "
                "`Authorization: Bearer <server API key>` and only grantType and externalUserId; the key names "
                "the client and the id is namespaced to it. **password** (compatibility): no header; clientId, "
                "email and password, grantType optional. Sign-in never reactivates a disabled user. Errors never "
                "reveal whether an external id exists.",
    security=[API_KEY, ""], body=CustomTokenBody,
    example={"grantType": "external_user", "externalUserId": "partner-user-42"},
    responses={200: CustomTokenIssued},
    errors=[error(400, "The body does not match exactly one supported grant.", "invalid_request"),
            error(401, "Invalid password credentials or server API key.", "invalid_credentials"),
            error(403, "External-user SSO is off for the client, the user is missing and the client is "
                       "existing-users-only, or the user is disabled.",
                  "external_sso_disabled", "jit_provisioning_disabled", "user_disabled"),
            error(404, "A required existing user cannot be resolved.", "user_not_found"),
            error(429, "Request, provisioning or password-attempt rate exceeded (per caller, or failures per "
                       "account within 15 minutes); honour Retry-After.",
                  "rate_limit_exceeded", headers=[RETRY_AFTER]),
            error(503, "Provisioning did not reach a consistent state; a retry is safe.",
                  "provisioning_incomplete")],
)
def issue_custom_token():
    grant = models.parse_grant(http.json_object())
    if isinstance(grant, ExternalUserGrant):
        issued = custom_token.external_user(auth.bearer_token(), grant.externalUserId)
    else:
        issued = custom_token.password(grant, origin.caller_address())
    return {"customToken": issued.custom_token, "user": issued.user}


# ------------------------------------------------------------------------ exchange token (4.2, 7.2)


@api.post("/api/auth/exchange-token", operation_id="exchangeToken",
          summary="Exchange an ID token for a custom token with full claims",
          description="The client is the one whose registered hostname the caller used. No body.",
          security=[openapi.ID_TOKEN], sample_as="PLAYER_ID_TOKEN", sample_headers=HOST_SAMPLE,
          responses={200: CustomToken},
          errors=[error(401, "Missing or invalid Authorization header; invalid or expired token."),
                  error(404, "Client user not found (also for a host no client registered).")])
def exchange_token():
    return {"customToken": exchange.exchange(auth.bearer_token())}


# ------------------------------------------------------------------ guest custom token (4.2, 7.2)


@api.post("/api/auth/guest-custom-token", operation_id="issueGuestToken", summary="Get a guest sign-in token",
          description="For public trial flows: a temporary guest identity (role guest) of the client whose "
                      "registered hostname the caller used, when the client allows guest sign-in. No body.",
          sample_headers=HOST_SAMPLE, responses={200: CustomToken},
          errors=[error(403, "Public guest sign-in is not allowed for the client."),
                  error(429, "Too many guest sign-ins from this caller (auth.guestAttemptsPerMinute) or for the "
                             "client (auth.guestSignInsPerMinute).", model=GuestRateLimited),
                  error(500, "'Client ID not found' for a host no client registered; 'Internal Server Error'.")])
def guest_custom_token():
    try:
        token = guest.issue()
    except ApiError:
        raise
    except Exception as exc:  # noqa: BLE001 - 7.2 spells this endpoint's 500 differently
        log.error(f"guest sign-in failed: {type(exc).__name__}", requestId=http.request_id())
        raise ApiError(500, "Internal Server Error") from None
    return {"customToken": token}


# --------------------------------------------------------------------------- set-claims (4.2, 7.2)


@api.post("/api/auth/set-claims", operation_id="setClaims", summary="Rebuild a user's claims",
          description="Verifies the ID token, resolves the client user and writes the claims from the user's "
                      "current client data. Signing in with an invited email activates the invitation.",
          body=SetClaimsBody, example={"clientId": "$CLIENT_ID", "idToken": "$PLAYER_ID_TOKEN"},
          responses={200: ClaimsSet},
          errors=[error(400, "'Missing clientId' or 'Missing idToken' (also for unknown body fields)."),
                  error(401, "Invalid idToken."),
                  error(404, "Client user not found, or client user data missing.")])
def set_custom_claims():
    data = None
    if (flask.request.content_length or 0) <= SMALL_BODY_BYTES:
        try:
            data = http.json_object()
        except (BodyError, RequestEntityTooLarge):
            data = None
    message = models.set_claims_error(data)
    if message is not None:
        raise ApiError(400, message)
    result = set_claims.set_claims(data["clientId"], data["idToken"])
    return {"success": True, "claims": result.claims, "user": result.user}
