"""ID tokens from the Auth emulator, as an app gets them, and the headers that carry them.

Every password and token handed out is added to SECRETS, which tests/test_logs.py searches the logs for.
"""

import base64
import json
import os

import requests

# Passwords and ID tokens the run handed out, for tests/test_logs.py (which also catches any token or key by form).
SECRETS: set[str] = set()


def auth_host() -> str:
    return os.environ["FIREBASE_AUTH_EMULATOR_HOST"]


def sign_in(email: str, password: str) -> str:
    """An ID token from the Auth emulator, as an app would get one."""
    response = requests.post(
        f"http://{auth_host()}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any",
        json={"email": email, "password": password, "returnSecureToken": True},
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["idToken"]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def with_claims(id_token: str, **changes) -> str:
    """The ID token with some claims changed, unsigned as the Auth emulator's own tokens are (alg none)."""
    header, payload, _ = id_token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims.update(changes)
    return f"{header}.{base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip('=')}."
