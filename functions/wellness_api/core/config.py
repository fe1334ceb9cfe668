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

# Media generation: which image provider runs jobs ("local": offline, the default; "openai": the OpenAI Images API
# through the official SDK, at MEDIA_IMAGE_BASE_URL with MEDIA_IMAGE_MODEL and the MEDIA_IMAGE_API_KEY secret).
MEDIA_IMAGE_PROVIDER = params.StringParam("MEDIA_IMAGE_PROVIDER", default="local",
                                          description="Image provider of media generation: local or openai.")
MEDIA_IMAGE_BASE_URL = params.StringParam("MEDIA_IMAGE_BASE_URL", default="https://api.openai.com/v1",
                                          description="Base URL of the OpenAI-compatible Images API.")
MEDIA_IMAGE_MODEL = params.StringParam("MEDIA_IMAGE_MODEL", default="gpt-image-1",
                                       description="Image model of the openai provider.")
MEDIA_IMAGE_API_KEY = params.SecretParam("MEDIA_IMAGE_API_KEY")
# Which video provider runs jobs ("local": offline, the default; "runway": Runway's API through the official runwayml
# SDK, at MEDIA_VIDEO_BASE_URL with MEDIA_VIDEO_MODEL and the MEDIA_VIDEO_API_KEY secret). gen4.5 is the default
# model because it is Runway's current one that both text_to_video and image_to_video accept: jobs without a
# reference image still render (gen4_turbo animates images only), and it takes a seed and 2 to 10 seconds.
MEDIA_VIDEO_PROVIDER = params.StringParam("MEDIA_VIDEO_PROVIDER", default="local",
                                          description="Video provider of media generation: local or runway.")
MEDIA_VIDEO_BASE_URL = params.StringParam("MEDIA_VIDEO_BASE_URL", default="https://api.dev.runwayml.com",
                                          description="Base URL of Runway's API.")
MEDIA_VIDEO_MODEL = params.StringParam("MEDIA_VIDEO_MODEL", default="gen4.5",
                                       description="Video model of the runway provider: gen4.5, gen4_turbo, veo3.1 "
                                                   "or veo3.1_fast.")
MEDIA_VIDEO_API_KEY = params.SecretParam("MEDIA_VIDEO_API_KEY")

# The assistant's LLM: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp server) through the official openai
# SDK. With LLM_BASE_URL or LLM_MODEL empty (the default) the local assistant answers, as model `local`.
LLM_BASE_URL = params.StringParam("LLM_BASE_URL", default="",
                                  description="Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1; "
                                              "empty: the local assistant.")
LLM_MODEL = params.StringParam("LLM_MODEL", default="",
                               description="The model of the wellness chat and the proxy's default model.")
LLM_API_KEY = params.SecretParam("LLM_API_KEY")

# The project's Web API key (public: it identifies the project, it grants nothing): the password grant verifies
# passwords with it, and the analytics dashboard's Firebase JS SDK signs in with it. Against the Auth emulator
# neither needs a real one.
WEB_API_KEY = params.StringParam(
    "IDENTITY_WEB_API_KEY",
    default="",
    description="Web API key of the Firebase project: the password grant and the analytics dashboard's sign-in "
    "(not needed against the Auth emulator).",
)
EMULATOR_WEB_API_KEY = "demo-api-key"


def project_id() -> str:
    return (
        os.environ.get("GCLOUD_PROJECT")
        or os.environ.get("GOOGLE_CLOUD_PROJECT")
        or DEFAULT_PROJECT_ID
    )


def using_emulators() -> bool:
    return bool(os.environ.get("FIRESTORE_EMULATOR_HOST"))


def auth_emulator_url() -> str | None:
    """The Auth emulator's URL when the functions run against it (browsers on this machine reach it there)."""
    host = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    return f"http://{host}" if host else None


def firebase_web_config() -> dict[str, str]:
    """The Firebase JS SDK's config of this project: public values."""
    api_key = WEB_API_KEY.value or (EMULATOR_WEB_API_KEY if auth_emulator_url() else "")
    return {"apiKey": api_key, "authDomain": f"{project_id()}.firebaseapp.com", "projectId": project_id()}


def base_url() -> str:
    return PUBLIC_BASE_URL.value.rstrip("/")


def client_jwt_secret() -> str:
    secret = CLIENT_JWT_SECRET.value
    if len(secret) < 32:
        # A short or missing secret would make client tokens forgeable; refuse to sign with it.
        raise RuntimeError("CLIENT_JWT_SECRET is missing or shorter than 32 characters")
    return secret
