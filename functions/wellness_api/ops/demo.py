"""The demo world of `platformctl seed` (CONTRACT section 3): idempotent, emulator/demo projects only.

Area seeders: each module in AREA_SEEDERS has `seed(client: Client) -> None`, adds its demo data to
the demo client idempotently, and is called after tenants, users and keys exist.
"""

import base64
import hashlib
import importlib
import os
import urllib.request
from typing import Any

from ..api_keys import service as api_keys
from ..core import config, firebase, provisioning, server_keys, tenancy, users
from ..core.tenancy import Client

AREA_SEEDERS: list[str] = [
    "wellness_api.ai_move.demo",
    "wellness_api.fall_risk.demo",
    "wellness_api.lessons.demo",  # after fall risk, whose demo members play lessons too
    "wellness_api.content.demo",
    "wellness_api.media_generation.demo",
    "wellness_api.vital_scan.demo",
    "wellness_api.assistant.demo",
    "wellness_api.privacy.demo",  # last: the demo player's export holds what every other seeder made
]
MODULES_ON = [f"modules.{m}=true" for m in ("aiMove", "vitalScan", "mediaGeneration", "wellnessChat", "analytics")]

OPERATOR: dict[str, Any] = {
    "clientId": "operator", "name": "Wellness Platform Operator", "hostnames": ["operator.localhost"],
    "settings": MODULES_ON,
    "admin": {"email": "admin@operator.example", "password": "operator-admin-pass", "displayName": "Platform Admin"},
}
DEMO_CLIENTS: list[dict[str, Any]] = [
    {
        "clientId": "demo-fitness", "name": "Demo Fitness", "hostnames": ["demo-fitness.localhost"],
        "settings": [
            "auth.externalUser=jit", "auth.guestSignIn=true",
            *MODULES_ON,
            "vitalScan.points=500", "vitalScan.requestsPerMinute=120",
            "vitalScan.allowedReturnOrigins=https://demo-fitness.example,https://localhost",
            "wellnessChat.requestsPerMinute=120",
            # Room for the docs' media examples to run back to back while earlier jobs still render.
            "mediaGeneration.maxActiveJobs=10",
        ],
        "admin": {"email": "admin@demo-fitness.example", "password": "demo-admin-pass", "displayName": "Demo Admin"},
        "player": {"email": "player@demo-fitness.example", "password": "demo-player-pass", "displayName": "Demo Player",
                   "birthDate": "1956-03-14", "sex": "female"},
    },
]


class SeedError(Exception):
    pass


def demo_api_key(client_id: str) -> str:
    """A stable key per demo client, so that `seed` prints the same credentials every time."""
    digest = hashlib.sha256(f"{config.project_id()}:demo-key:{client_id}".encode()).digest()
    return server_keys.KEY_PREFIX + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def reset_emulators() -> None:
    project = config.project_id()
    targets = [
        f"http://{os.environ['FIRESTORE_EMULATOR_HOST']}/emulator/v1/projects/{project}/databases/(default)/documents",
        f"http://{os.environ['FIREBASE_AUTH_EMULATOR_HOST']}/emulator/v1/projects/{project}/accounts",
    ]
    for url in targets:
        urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30).close()  # noqa: S310
    for blob in firebase.bucket().list_blobs():
        blob.delete()


def _ensure_client(spec: dict, operator: bool) -> Client:
    client = tenancy.get_client(spec["clientId"])
    if client is None:
        client = provisioning.create_client(spec["clientId"], spec["name"], spec["hostnames"], operator)
    if spec.get("settings"):
        provisioning.configure_client(client.client_id, spec["settings"])
        client = provisioning.require_client(client.client_id)
    return client


def _ensure_user(client: Client, spec: dict, role: str) -> dict:
    fb_auth = firebase.auth()
    try:
        uid = fb_auth.get_user_by_email(spec["email"], app=firebase.app()).uid
    except fb_auth.UserNotFoundError:
        uid = users.create_user(client, spec["email"], spec["password"], role, spec.get("displayName"),
                                birth_date=spec.get("birthDate"), sex=spec.get("sex"))
    return {"email": spec["email"], "password": spec["password"], "uid": uid}


def _ensure_key(client: Client) -> str:
    raw = demo_api_key(client.client_id)
    if not server_keys.index_ref(server_keys.hash_key(raw)).get().exists:
        api_keys.create_key(client.client_id, "Demo server key", make_primary=True, created_by="platformctl seed", raw=raw)
    return raw


def seed(reset: bool = False) -> dict:
    if not config.project_id().startswith("demo-") or not config.using_emulators():
        raise SeedError("seed writes well-known demo credentials; it runs only against the emulators of a demo- project")
    if reset:
        reset_emulators()
    operator = _ensure_client(OPERATOR, operator=True)
    world: dict[str, Any] = {
        "baseUrl": config.base_url(),
        "projectId": config.project_id(),
        "authEmulator": f"http://{os.environ['FIREBASE_AUTH_EMULATOR_HOST']}",
        "operator": {"clientId": operator.client_id, "admin": _ensure_user(operator, OPERATOR["admin"], tenancy.ROLE_ADMIN)},
        "clients": [],
    }
    for spec in DEMO_CLIENTS:
        client = _ensure_client(spec, operator=False)
        world["clients"].append({
            "clientId": client.client_id,
            "hostname": client.hostnames[0],
            "apiKey": _ensure_key(client),
            "admin": _ensure_user(client, spec["admin"], tenancy.ROLE_ADMIN),
            "player": _ensure_user(client, spec["player"], tenancy.ROLE_PLAYER),
        })
        for name in AREA_SEEDERS:
            importlib.import_module(name).seed(client)
    return world


