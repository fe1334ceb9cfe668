"""Client tokens (spec 4.2, POST /api/client/token/): HS256 JWTs for client API access.

Claims: iss, aud, sub (= clientId), clientId, keyId (the API key that obtained it), typ "client",
iat, exp (one hour), jti. A token stops working as soon as its key is revoked, because verify()
checks that the key is still active.
"""

import dataclasses
import datetime as dt
import uuid

import jwt

from . import clock, config, firebase

ISSUER = "wellness-platform"
AUDIENCE = "wellness-platform/client-api"
TOKEN_TYPE = "client"
LIFETIME = dt.timedelta(hours=1)
ALGORITHM = "HS256"


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
    """Cheap check of the unverified header/claims, to route a bearer JWT to the right verifier."""
    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") != ALGORITHM:
            return False
        return jwt.decode(token, options={"verify_signature": False}).get("iss") == ISSUER
    except jwt.PyJWTError:
        return False


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
