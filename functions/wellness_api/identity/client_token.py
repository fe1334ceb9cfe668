"""POST /api/client/token/: a client id and any active API key of that client -> a client JWT."""

from pydantic import BaseModel, ConfigDict, Field

from ..core import client_tokens, server_keys
from ..core.errors import ApiError

INVALID_CLIENT_CREDENTIALS = "Invalid client credentials"


class ClientTokenBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    clientId: str = Field(min_length=1, max_length=64)
    clientSecret: str = Field(min_length=1, max_length=256)


def issue(body: ClientTokenBody) -> str:
    match = server_keys.authenticate(body.clientSecret)
    # A key of another client is refused exactly like an unknown one.
    if match is None or match.client_id != body.clientId:
        raise ApiError(401, INVALID_CLIENT_CREDENTIALS)
    server_keys.touch(match)
    return client_tokens.sign(match.client_id, match.key_id)
