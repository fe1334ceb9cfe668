"""Deployment configuration: Firebase params and secrets, read lazily at request time.

Params resolve from environment variables, which is how the Functions runtime, the emulator
(functions/.env*, functions/.secret.local) and the tests all provide them.
"""

import os

from firebase_functions import params

DEFAULT_PROJECT_ID = "demo-wellness"

# The public origin partners and browsers use; Hosting serves every spec path under it.
PUBLIC_BASE_URL = params.StringParam(
    "PUBLIC_BASE_URL",
    default="http://127.0.0.1:5000",
    description="Public base URL of the API and hosted pages (Hosting origin).",
)
# HS256 key for client tokens (POST /api/client/token/).
CLIENT_JWT_SECRET = params.SecretParam("CLIENT_JWT_SECRET")


def project_id() -> str:
    return (
        os.environ.get("GCLOUD_PROJECT")
        or os.environ.get("GOOGLE_CLOUD_PROJECT")
        or DEFAULT_PROJECT_ID
    )


def using_emulators() -> bool:
    return bool(os.environ.get("FIRESTORE_EMULATOR_HOST"))


def base_url() -> str:
    return PUBLIC_BASE_URL.value.rstrip("/")


def client_jwt_secret() -> str:
    secret = CLIENT_JWT_SECRET.value
    if len(secret) < 32:
        # A short or missing secret would make client tokens forgeable; refuse to sign with it.
        raise RuntimeError("CLIENT_JWT_SECRET is missing or shorter than 32 characters")
    return secret
