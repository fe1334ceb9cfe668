"""HTTP routes of the identity area.

The area has two error envelopes (spec part 7): POST /api/auth/custom-token answers errors as
{code, error} (7.1) and every other identity endpoint as {error} (7.2). A Flask app has one
envelope for everything it renders (its 404, 405 and 500 included), so the area has two apps:
`custom_token_app` (coded envelope) serves /api/auth/custom-token only, and `app` (plain envelope)
serves the rest. main.py's `identity` function picks the app with app_for(path).
"""

import flask
from werkzeug.exceptions import RequestEntityTooLarge

from ..core import auth, http
from ..core import logging as log
from ..core.errors import FIELD_IS_REQUIRED, ApiError, coded_envelope
from ..core.http import BodyError
from . import client_token, custom_token, exchange, guest, models, origin, set_claims
from .models import ExternalUserGrant

CUSTOM_TOKEN_PATH = "/api/auth/custom-token"
SMALL_BODY_BYTES = 16 * 1024  # the largest identity body is an ID token of a few kilobytes

app = http.create_app("identity")
# 7.1 has no 413: a body that large matches no grant, so it is 400 invalid_request.
custom_token_app = http.create_app("identity", coded_envelope, max_body_bytes=SMALL_BODY_BYTES, oversized_status=400)


def app_for(path: str) -> flask.Flask:
    """The app that serves `path` (the full path through Hosting; the same on :5001 directly)."""
    return custom_token_app if path.rstrip("/").endswith(CUSTOM_TOKEN_PATH) else app


# ------------------------------------------------------------------------------ client token (4.2)


@app.post("/api/client/token")
def issue_client_token():
    body = http.parse_body(client_token.ClientTokenBody, missing=FIELD_IS_REQUIRED)
    return {"token": client_token.issue(body)}


# --------------------------------------------------------------------------- custom token (4.2, 7.1)


@custom_token_app.post(CUSTOM_TOKEN_PATH)
def issue_custom_token():
    grant = models.parse_grant(http.json_object())
    if isinstance(grant, ExternalUserGrant):
        issued = custom_token.external_user(auth.bearer_token(), grant.externalUserId)
    else:
        issued = custom_token.password(grant, origin.caller_address())
    return {"customToken": issued.custom_token, "user": issued.user}


# ------------------------------------------------------------------------ exchange token (4.2, 7.2)


@app.post("/api/auth/exchange-token")
def exchange_token():
    return {"customToken": exchange.exchange(auth.bearer_token())}


# ------------------------------------------------------------------ guest custom token (4.2, 7.2)


@app.post("/api/auth/guest-custom-token")
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


@app.post("/api/auth/set-claims")
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
