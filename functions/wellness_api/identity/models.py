"""Request bodies of the identity endpoints and how they are told apart.

POST /api/auth/custom-token takes exactly one grant (4.2): the body decides which, and anything that
is not exactly one of them is 400 invalid_request (7.1):
- external_user: {"grantType": "external_user", "externalUserId": str}, nothing else;
- password: {"clientId", "email", "password"} and optionally "grantType": "password" (9.3).
"""

from typing import Any, Final, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..core import http, text
from ..core.http import BodyError

GRANT_EXTERNAL_USER = "external_user"
GRANT_PASSWORD: Final = "password"
MAX_EXTERNAL_USER_ID_LENGTH = 256

UNKNOWN_GRANT = "grantType must be 'external_user' or 'password'."


class ExternalUserGrant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grantType: Literal["external_user"]
    externalUserId: str = Field(min_length=1, max_length=MAX_EXTERNAL_USER_ID_LENGTH)

    @pydantic.field_validator("externalUserId")
    @classmethod
    def _opaque_but_printable(cls, value: str) -> str:
        # Stable, case-sensitive and opaque: used exactly as sent, so characters that would make two
        # spellings of one id (surrounding blanks) or break logs (control characters) are refused.
        if value != value.strip():
            raise ValueError("must not start or end with whitespace")
        return text.single_line(value)


class PasswordGrant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grantType: Literal["password"] = GRANT_PASSWORD
    clientId: str = Field(min_length=1, max_length=128)
    email: str = Field(min_length=1, max_length=320)
    password: str = Field(min_length=1, max_length=4096)


Grant = ExternalUserGrant | PasswordGrant


GRANT_FIELDS = http.field_names(ExternalUserGrant) | http.field_names(PasswordGrant)


def parse_grant(data: dict[str, Any]) -> Grant:
    # Before the grant is chosen: `grant_type` would otherwise make an external_user body a password
    # grant, and the caller would be told about a clientId it never meant to send.
    http.near_miss_error(data, GRANT_FIELDS)
    grant_type = data.get("grantType", GRANT_PASSWORD)
    if grant_type == GRANT_EXTERNAL_USER:
        return http.validate(ExternalUserGrant, data)
    if grant_type == GRANT_PASSWORD:
        return http.validate(PasswordGrant, data)
    raise BodyError(UNKNOWN_GRANT, field="grantType", kind="grant")


# ------------------------------------------------------------------------------------- set-claims

MISSING_CLIENT_ID = "Missing clientId"
MISSING_ID_TOKEN = "Missing idToken"
MAX_ID_TOKEN_LENGTH = 8192


def set_claims_error(data: dict[str, Any] | None) -> str | None:
    """The 400 message for a set-claims body, or None when it is valid.

    7.2 allows only 'Missing clientId' and 'Missing idToken', for unknown fields too: a missing or
    unusable field is named; a body whose two fields are fine but which has other fields gets
    'Missing clientId' (the first message), as does a body that is not a JSON object.

    A non-empty body (within the 16 KiB the route parses) that is not declared JSON never gets here:
    core.http.json_object answers it 415 "Content-Type must be application/json." (UnsupportedMediaType
    is not a BodyError). 7.2's two messages say which field is missing, which would be untrue for a body
    in another media type, and every JSON endpoint of the platform refuses such a body the same way."""
    if data is None:
        return MISSING_CLIENT_ID
    client_id, id_token = data.get("clientId"), data.get("idToken")
    if not isinstance(client_id, str) or not client_id.strip() or len(client_id) > 128:
        return MISSING_CLIENT_ID
    if not isinstance(id_token, str) or not id_token.strip() or len(id_token) > MAX_ID_TOKEN_LENGTH:
        return MISSING_ID_TOKEN
    if set(data) - {"clientId", "idToken"}:
        return MISSING_CLIENT_ID
    return None


class CustomTokenBody(pydantic.RootModel[ExternalUserGrant | PasswordGrant]):
    """Exactly one grant (4.2); parse_grant tells them apart by grantType."""


class SetClaimsBody(BaseModel):
    """POST /api/auth/set-claims (4.2); set_claims_error gives 7.2's messages for any other body."""

    model_config = ConfigDict(extra="forbid")

    clientId: str = Field(min_length=1, max_length=128)
    idToken: str = Field(min_length=1, max_length=MAX_ID_TOKEN_LENGTH)
