"""Password verification with the Identity Toolkit REST API (accounts:signInWithPassword).

Firebase Auth keeps the password hashes; the Admin SDK cannot check a password, so the password
grant asks the same endpoint an app's SDK would. In production that is
https://identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=<Web API key>; against the
emulators it is http://$FIREBASE_AUTH_EMULATOR_HOST/identitytoolkit.googleapis.com/v1/..., which takes
any key. Neither the URL (it holds the key), the request nor the response is ever logged: errors
carry only the Identity Toolkit error code or the exception type.
"""

import dataclasses
import enum
import os

import requests
from firebase_functions import params

from ..core import config

TOOLKIT_URL = params.StringParam(
    "IDENTITY_TOOLKIT_URL",
    default="",
    description="Base URL of the Identity Toolkit API; empty means the Auth emulator when "
    "FIREBASE_AUTH_EMULATOR_HOST is set, else https://identitytoolkit.googleapis.com.",
)

PRODUCTION_URL = "https://identitytoolkit.googleapis.com"
TIMEOUT_SECONDS = 10

# Every way of saying "these are not valid credentials"; all become the same 401.
_INVALID = {
    "EMAIL_NOT_FOUND", "INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS", "INVALID_EMAIL",
    "MISSING_PASSWORD", "MISSING_EMAIL", "INVALID_IDENTIFIER",
}

_session = requests.Session()


class Outcome(enum.Enum):
    VERIFIED = "verified"
    INVALID = "invalid"
    DISABLED = "disabled"  # the account exists and is disabled (reported before the password is checked)
    SECOND_FACTOR = "second_factor"  # the password is right but the account needs a second factor
    THROTTLED = "throttled"  # Identity Toolkit's own brute-force protection


@dataclasses.dataclass(frozen=True)
class Verification:
    outcome: Outcome
    uid: str | None = None


class ToolkitUnavailable(Exception):
    """The Identity Toolkit could not answer (network, configuration); the message holds no secret."""


def base_url() -> str:
    override = TOOLKIT_URL.value.strip()
    if override:
        return override.rstrip("/")
    emulator = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    if emulator:
        return f"http://{emulator}/identitytoolkit.googleapis.com"
    return PRODUCTION_URL


def _api_key() -> str:
    key = config.WEB_API_KEY.value.strip()
    if key:
        return key
    if os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
        return "emulator"  # the Auth emulator accepts any key
    raise ToolkitUnavailable("IDENTITY_WEB_API_KEY is not set")


def _error_code(response: requests.Response) -> str:
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"
    # Messages look like "INVALID_PASSWORD" or "TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account ..."
    return str(message).split(":")[0].strip().split(" ")[0]


def verify_password(email: str, password: str) -> Verification:
    url = f"{base_url()}/v1/accounts:signInWithPassword"
    try:
        response = _session.post(
            url,
            params={"key": _api_key()},
            json={"email": email, "password": password, "returnSecureToken": True},
            timeout=TIMEOUT_SECONDS,
        )
    except requests.RequestException as exc:
        raise ToolkitUnavailable(f"request failed: {type(exc).__name__}") from None
    if response.status_code == 200:
        try:
            data = response.json()
        except ValueError:
            raise ToolkitUnavailable("unreadable response") from None
        if data.get("mfaPendingCredential"):
            return Verification(Outcome.SECOND_FACTOR, data.get("localId"))
        uid = data.get("localId")
        if not isinstance(uid, str) or not uid:
            raise ToolkitUnavailable("response without localId")
        return Verification(Outcome.VERIFIED, uid)
    code = _error_code(response)
    if code in _INVALID:
        return Verification(Outcome.INVALID)
    if code == "USER_DISABLED":
        return Verification(Outcome.DISABLED)
    if code.startswith("TOO_MANY_ATTEMPTS"):
        return Verification(Outcome.THROTTLED)
    raise ToolkitUnavailable(f"Identity Toolkit error {code}")
