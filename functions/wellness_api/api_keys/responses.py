"""What the API-key endpoints answer with (4.7, 2.11); the handlers' bodies are checked against these."""

from typing import Literal

from pydantic import Field

from ..core.openapi import Closed


class ApiKeyRecord(Closed):
    """An API key record (2.11); never the raw key or its hash."""

    keyId: str
    label: str
    maskedKey: str = Field(description="The prefix and suffix with the middle hidden, for display.")
    prefix: str
    suffix: str
    status: Literal["active", "revoked"]
    isPrimary: bool = Field(description="The legacy-compatible primary key (exactly one active key is primary).")
    createdAt: str | None = Field(description="ISO 8601.")
    createdBy: str | None = Field(description="The uid of the administrator who created it.")
    expiresAt: str | None
    revokedAt: str | None
    lastUsedAt: str | None = Field(description="Updated at most once a minute per key.")


class ApiKeyList(Closed):
    """Every active key of the client, then the most recently revoked ones."""

    apiKeys: list[ApiKeyRecord]
    legacyPrimaryKeyId: str | None


class CreatedApiKey(Closed):
    """The new key; `secret` and `clientSecret` hold the same raw key, shown only in this response."""

    success: Literal[True]
    apiKey: ApiKeyRecord
    secret: str
    clientSecret: str


class UpdatedApiKeys(ApiKeyList):
    """The client's keys after the change."""

    success: Literal[True]
