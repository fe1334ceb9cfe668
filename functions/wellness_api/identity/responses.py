"""What the identity endpoints answer with (4.2, 2.6, 7.2); the handlers' bodies are checked against these."""

from typing import Literal

from pydantic import Field

from ..core.openapi import Closed, PlainError


class UserProfile(Closed):
    """The authentication user profile (2.6)."""

    uid: str
    email: str | None
    displayName: str | None
    photoURL: str | None
    emailVerified: bool
    disabled: bool


class CustomTokenIssued(Closed):
    """A custom token for immediate sign-in with the Firebase client SDK, and the user's profile."""

    customToken: str = Field(description="Redeem at once with signInWithCustomToken; not a bearer token here.")
    user: UserProfile


class CustomToken(Closed):
    """A custom token for immediate sign-in with the Firebase client SDK."""

    customToken: str


class ClaimsSet(Closed):
    """The claims now on the user, rebuilt from the client's records ({} for a disabled member)."""

    success: Literal[True]
    claims: dict[str, str | bool] = Field(description="clientId, role and, for platform administrators, "
                                                      "platformAdmin.")
    user: UserProfile


class ClientToken(Closed):
    """A client token: an HS256 JWT valid for one hour."""

    token: str


class GuestRateLimited(PlainError):
    """Too many guest sign-ins from this caller."""

    retryAfterSeconds: int
