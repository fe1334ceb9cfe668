"""Request bodies and the API key record (2.11) as the API shows it."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core import clock
from ..core.text import SingleLine

MAX_LABEL_LENGTH = 100


class CreateKeyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: SingleLine = Field(default="", max_length=MAX_LABEL_LENGTH)
    makePrimary: bool = False


class UpdateKeyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["promote", "revoke"]


def key_record(data: dict) -> dict:
    """The public 2.11 record of a stored key; never the hash or the raw value."""
    return {
        "keyId": data["keyId"],
        "label": data.get("label", ""),
        "maskedKey": data["maskedKey"],
        "prefix": data["prefix"],
        "suffix": data["suffix"],
        "status": data["status"],
        "isPrimary": bool(data.get("isPrimary")),
        "createdAt": clock.iso(data.get("createdAt")),
        "createdBy": data.get("createdBy"),
        "expiresAt": clock.iso(data.get("expiresAt")),
        "revokedAt": clock.iso(data.get("revokedAt")),
        "lastUsedAt": clock.iso(data.get("lastUsedAt")),
    }
