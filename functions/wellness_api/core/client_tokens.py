"""Client tokens (spec 4.2, POST /api/client/token/): HS256 JWTs for client API access.

Claims: iss, aud, sub (= clientId), clientId, keyId (the API key that obtained it), typ "client",
iat, exp (one hour), jti. A token stops working as soon as its key is revoked, because verify()
checks that the key is still active.
"""

import base64
import binascii
import dataclasses
import datetime as dt
import json
import uuid

import jwt

from . import clock, config, firebase

ISSUER = "wellness-platform"
AUDIENCE = "wellness-platform/client-api"
TOKEN_TYPE = "client"
LIFETIME = dt.timedelta(hours=1)
ALGORITHM = "HS256"
MAX_HEADER_SEGMENT = 512  # a JWT header is a few dozen characters; anything longer is not one to decode


@dataclasses.dataclass(frozen=True)
class ClientClaims:
    client_id: str
    key_id: str
    expires_at: dt.datetime


def sign(client_id: str, key_id: str) -> str:
    issued = clock.now()
    claims = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": client_id,
        "clientId": client_id,
        "keyId": key_id,
        "typ": TOKEN_TYPE,
        "iat": int(issued.timestamp()),
        "exp": int((issued + LIFETIME).timestamp()),
        "jti": uuid.uuid4().hex,
    }
    return jwt.encode(claims, config.client_jwt_secret(), algorithm=ALGORITHM)


def is_client_token(token: str) -> bool:
    """Whether a bearer JWT goes to verify() rather than Firebase's verifier: its header says HS256.

    Every ID-token request pays this routing, so it decodes the header segment alone (PyJWT's unverified decode
    checked every character of the whole token, twice). An HS256 token that is not ours is refused by verify(),
    as Firebase's verifier (RS256 only) would refuse it: the same 401."""
    head = token.split(".", 1)[0]
    if not head or len(head) > MAX_HEADER_SEGMENT:
        return False
    try:
        header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (ValueError, binascii.Error):
        return False
    return isinstance(header, dict) and header.get("alg") == ALGORITHM


def verify(token: str) -> ClientClaims | None:
    """Verified claims of a live client token whose key is still active, else None."""
    try:
        claims = jwt.decode(
            token,
            config.client_jwt_secret(),
            algorithms=[ALGORITHM],
            audience=AUDIENCE,
            issuer=ISSUER,
            options={"require": ["exp", "iat", "sub", "clientId", "keyId"]},
        )
    except jwt.PyJWTError:
        return None
    if claims.get("typ") != TOKEN_TYPE or claims["clientId"] != claims["sub"]:
        return None
    if claims["exp"] <= clock.now().timestamp():
        return None  # the app clock may be moved forward in tests; PyJWT uses the real one
    key = (
        firebase.db().collection("clients").document(claims["clientId"])
        .collection("apiKeys").document(claims["keyId"]).get(["status"])
    )
    if not key.exists or key.get("status") != "active":
        return None
    return ClientClaims(claims["clientId"], claims["keyId"], dt.datetime.fromtimestamp(claims["exp"], dt.UTC))
