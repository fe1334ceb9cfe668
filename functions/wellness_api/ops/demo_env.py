"""`bin/demo-env`: shell variables for trying the API against a running `make serve` stack.

    eval "$(bin/demo-env)"

seeds the demo world (the same code as `platformctl seed`: idempotent, emulators of a demo- project
only), then prints one `export NAME='value'` line per variable below, so that the README's curl
examples run as written. Ports follow the stack the way `platformctl` finds it: the emulator
variables that `firebase emulators:exec` sets (FIRESTORE_EMULATOR_HOST, ...) and PUBLIC_BASE_URL win;
without them the ports of firebase.json are used, moved by DEVSTACK_PORT_OFFSET when it is set.

Every run signs the demo users in again (ID tokens last an hour), asks Hosting for a new client
token, creates one new Vital Scan session with the demo key, which spends one demo point, and starts one
new AI Move session and one new fall-risk result (FALL_RISK_RESULT_ID, which the docs' step samples complete)
for the demo player, and one new content item of the demo client (CONTENT_ID, which the
docs' delete sample may delete). The media jobs (MEDIA_*) and the demo player's conversation
(CONVERSATION_ID) are the demo world's own: each seed restores them; so is the demo player's completed privacy
export (PRIVACY_REQUEST_ID), whose archive PRIVACY_DOWNLOAD_TOKEN opens for 15 minutes. PLAY_ID is a new play of LESSON_ID that
the demo player started, which the samples may complete.
A failure prints one line on stderr and exits 1; stdout then stays empty.
"""

import contextlib
import io
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

from .cli import EMULATOR_DEFAULTS

NAMES = (
    "BASE_URL",
    "CLIENT_ID",
    "CLIENT_HOST",
    "OPERATOR_CLIENT_ID",
    "API_KEY",
    "KEY_ID",
    "ADMIN_ID_TOKEN",
    "PLAYER_ID_TOKEN",
    "PLATFORM_ADMIN_ID_TOKEN",
    "CLIENT_TOKEN",
    "LESSON_ID",
    "VITAL_SCAN_SESSION_ID",
    "SCAN_TOKEN",
    "EXERCISE_ID",
    "AI_MOVE_SESSION_ID",
    "FALL_RISK_RESULT_ID",
    "CONTENT_KEY",
    "CONTENT_KEYS",
    "CONTENT_ID",
    "CONTENT_VERSION_ID",
    "CATEGORY_KEY",
    "MEDIA_JOB_ID",
    "MEDIA_FAILED_JOB_ID",
    "MEDIA_VIDEO_JOB_ID",
    "MEDIA_FAILED_VIDEO_JOB_ID",
    "CONVERSATION_ID",
    "PLAY_ID",
    "PLAYER_UID",
    "PRIVACY_REQUEST_ID",
    "PRIVACY_DOWNLOAD_TOKEN",
)
HEADER = ("# ID tokens and CLIENT_TOKEN expire after an hour: run eval \"$(bin/demo-env)\" again "
          "(each run also creates a new Vital Scan session, one demo point).")
DEFAULT_BASE_PORT = 5000
# The session demo-env creates: a returnUrl on an origin the demo client approves.
VITAL_SCAN_BODY = {"userId": "demo-player", "locale": "en", "returnUrl": "https://demo-fitness.example/scan/done"}
# The AI Move session demo-env starts for the demo player: a library exercise of the demo client's catalog.
EXERCISE_ID = "squat"
AI_MOVE_BODY = {"exerciseId": EXERCISE_ID, "exerciseType": "rep", "targetReps": 12}
# Content: a seeded key of the demo client, keys for the multi-key lookup, and the custom category (item-less) that
# the category samples change and delete (the seed makes it again).
CONTENT_KEY = "welcome"
CONTENT_KEYS = "welcome,terms-of-service,getting-started"
CATEGORY_KEY = "events"
TIMEOUT_S = 30
MODULES = ("aiMove", "vitalScan", "mediaGeneration", "wellnessChat", "analytics")


class DemoEnvError(Exception):
    """A failure to report as one line on stderr."""


def _shifted(host_port: str, offset: int) -> str:
    host, _, port = host_port.rpartition(":")
    return f"{host}:{int(port) + offset}"


def point_at_stack(environ=os.environ) -> None:
    """Emulator hosts and the base URL, as platformctl resolves them, shifted by DEVSTACK_PORT_OFFSET."""
    try:
        offset = int(environ.get("DEVSTACK_PORT_OFFSET") or 0)
    except ValueError:
        raise DemoEnvError("DEVSTACK_PORT_OFFSET must be an integer") from None
    environ.setdefault("GCLOUD_PROJECT", "demo-wellness")
    for name, value in EMULATOR_DEFAULTS.items():
        if value.startswith("http://"):
            environ.setdefault(name, "http://" + _shifted(value.removeprefix("http://"), offset))
        else:
            environ.setdefault(name, _shifted(value, offset))
    environ.setdefault("PUBLIC_BASE_URL", f"http://127.0.0.1:{DEFAULT_BASE_PORT + offset}")


def shell_quote(value: str) -> str:
    """'value' for any string: single quotes, with each ' written as '"'"'."""
    return "'" + value.replace("'", "'\"'\"'") + "'"


def _http(method: str, url: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {**({"Content-Type": "application/json"} if body is not None else {}), **(headers or {})}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310 - http URLs of the stack
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 - local stack URLs
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DemoEnvError(f"{method} {url.split('?')[0]} failed: {reason}") from None
    try:
        parsed = json.loads(raw) if raw else {}
    except ValueError:
        parsed = {}
    return status, parsed if isinstance(parsed, dict) else {}


def _expect(status: int, body: dict, wanted: int, what: str) -> dict:
    if status != wanted:
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        raise DemoEnvError(f"{what} answered {status}{': ' + str(message) if message else ''}")
    return body


def check_stack(base_url: str) -> None:
    try:
        status, _ = _http("GET", f"{base_url}/api/health")
    except DemoEnvError:
        status = None
    if status != 200:
        raise DemoEnvError(f"no stack answers at {base_url}/api/health: start it with `make serve` "
                           "(or set DEVSTACK_PORT_OFFSET to the offset it runs with)")


def sign_in(email: str, password: str) -> str:
    """An ID token from the Auth emulator's REST API, as an app gets one."""
    url = (f"http://{os.environ['FIREBASE_AUTH_EMULATOR_HOST']}"
           "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any")
    body = {"email": email, "password": password, "returnSecureToken": True}
    return _expect(*_http("POST", url, body), 200, f"accounts:signInWithPassword for {email}")["idToken"]


def _demo_client(world: dict) -> dict:
    """The first demo client with every module on (demo-fitness)."""
    from ..core import tenancy

    for entry in world["clients"]:
        client = tenancy.get_client(entry["clientId"])
        if client is not None and all(client.setting(f"modules.{m}") for m in MODULES):
            return entry
    raise DemoEnvError("the demo world has no client with every module on")


def _live_lesson(client_id: str) -> str:
    from ..lessons import repository as lessons

    live = lessons.live_lessons(client_id)
    if not live:
        raise DemoEnvError(f"client {client_id} has no live lesson")
    return live[0]["id"]


def collect() -> dict[str, str]:
    """Seed the demo world and gather every variable of NAMES."""
    from ..assistant import demo as assistant
    from ..core import config, server_keys
    from ..media_generation import demo as media
    from ..privacy import demo as privacy
    from . import demo

    base_url = config.base_url()
    check_stack(base_url)
    try:
        world = demo.seed()
    except demo.SeedError as exc:
        raise DemoEnvError(str(exc)) from None
    client = _demo_client(world)
    client_id, api_key = client["clientId"], client["apiKey"]
    key = server_keys.authenticate(api_key)
    if key is None:
        raise DemoEnvError(f"the demo API key of {client_id} is not active")

    status, body = _http("POST", f"{base_url}/api/client/token/", {"clientId": client_id, "clientSecret": api_key})
    client_token = _expect(status, body, 200, "POST /api/client/token/")["token"]
    status, body = _http("POST", f"{base_url}/api/v1/vital-scan/sessions", VITAL_SCAN_BODY,
                         {"Authorization": f"Bearer {api_key}"})
    session = _expect(status, body, 201, "POST /api/v1/vital-scan/sessions")["data"]
    scan_url = session["vitalScanUrl"]
    if "#scanToken=" not in scan_url:
        raise DemoEnvError("vitalScanUrl has no #scanToken= fragment")

    player_token = sign_in(client["player"]["email"], client["player"]["password"])
    status, body = _http("POST", f"{base_url}/api/ai-move/sessions", AI_MOVE_BODY,
                         {"Authorization": f"Bearer {player_token}"})
    ai_move_session = _expect(status, body, 201, "POST /api/ai-move/sessions")
    status, body = _http("POST", f"{base_url}/api/fall-risk", {"skipDeviceSetup": True},
                         {"Authorization": f"Bearer {player_token}"})
    fall_risk = _expect(status, body, 200, "POST /api/fall-risk")
    lesson_id = _live_lesson(client_id)
    status, body = _http("PUT", f"{base_url}/api/lessons/{lesson_id}/plays/{uuid.uuid4().hex}",
                         {"status": "started"}, {"Authorization": f"Bearer {player_token}"})
    play = _expect(status, body, 201, "PUT /api/lessons/{lessonId}/plays/{playId}")["play"]
    admin_token = sign_in(client["admin"]["email"], client["admin"]["password"])
    status, body = _http("POST", f"{base_url}/api/content", {
        "key": f"demo-env-{uuid.uuid4().hex[:10]}", "categoryKey": "other",
        "title": {"en": "A note from bin/demo-env", "zh-Hant": "來自 bin/demo-env 的說明"},
        "body": {"en": "Made for the **docs samples**; delete it freely."}}, {"Authorization": f"Bearer {admin_token}"})
    content = _expect(status, body, 201, "POST /api/content")["content"]

    return {
        "BASE_URL": base_url,
        "CLIENT_ID": client_id,
        "CLIENT_HOST": client["hostname"],
        "OPERATOR_CLIENT_ID": world["operator"]["clientId"],
        "API_KEY": api_key,
        "KEY_ID": key.key_id,
        "ADMIN_ID_TOKEN": admin_token,
        "PLAYER_ID_TOKEN": player_token,
        "PLATFORM_ADMIN_ID_TOKEN": sign_in(world["operator"]["admin"]["email"], world["operator"]["admin"]["password"]),
        "CLIENT_TOKEN": client_token,
        "LESSON_ID": lesson_id,
        "VITAL_SCAN_SESSION_ID": session["vitalScanResultId"],
        "SCAN_TOKEN": scan_url.split("#scanToken=", 1)[1],
        "EXERCISE_ID": EXERCISE_ID,
        "AI_MOVE_SESSION_ID": ai_move_session["sessionId"],
        "FALL_RISK_RESULT_ID": fall_risk["fallRiskResultId"],
        "CONTENT_KEY": CONTENT_KEY,
        "CONTENT_KEYS": CONTENT_KEYS,
        "CONTENT_ID": content["contentId"],
        "CONTENT_VERSION_ID": content["versionId"],
        "CATEGORY_KEY": CATEGORY_KEY,
        "MEDIA_JOB_ID": media.AVAILABLE_IMAGE,
        "MEDIA_FAILED_JOB_ID": media.FAILED_IMAGE,
        "MEDIA_VIDEO_JOB_ID": media.AVAILABLE_VIDEO,
        "MEDIA_FAILED_VIDEO_JOB_ID": media.FAILED_VIDEO,
        "CONVERSATION_ID": assistant.CONVERSATION_ID,
        "PLAY_ID": play["playId"],
        "PLAYER_UID": client["player"]["uid"],
        "PRIVACY_REQUEST_ID": privacy.EXPORT_ID,
        "PRIVACY_DOWNLOAD_TOKEN": _privacy_download_token(client_id),
    }


def _privacy_download_token(client_id: str) -> str:
    """A fresh 15-minute token of the demo player's export (the seed made it), as GET .../requests/{id} hands out."""
    from ..privacy import demo as privacy
    from ..privacy import repository, service

    link = service.download_link(repository.read(client_id, privacy.EXPORT_ID).data or {"type": "none", "status": ""})
    if link is None:
        raise DemoEnvError("the demo player's privacy export has not completed")
    return link[0].rsplit("/", 1)[1]


def render(values: dict[str, str]) -> str:
    return "\n".join([HEADER, *(f"export {name}={shell_quote(values[name])}" for name in NAMES)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(f"usage: eval \"$(bin/demo-env)\"\n\n{__doc__}")
        return 0
    try:
        if argv:
            raise DemoEnvError(f"unexpected arguments: {' '.join(argv)} (usage: eval \"$(bin/demo-env)\")")
        point_at_stack()
        # The seed and the Admin SDK may log JSON lines to stdout; stdout is for the export lines only.
        with contextlib.redirect_stdout(io.StringIO()):
            values = collect()
    except DemoEnvError as exc:
        sys.stderr.write(f"demo-env: {exc}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - any failure is one line on stderr, never a traceback
        from ..core import logging as log

        line = log.scrub(f"{type(exc).__name__}: {exc}").splitlines() or [type(exc).__name__]
        sys.stderr.write(f"demo-env: {line[0]}\n")
        return 1
    sys.stdout.write(render(values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
