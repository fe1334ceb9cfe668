"""The tenancy matrix, generated from /api/openapi.json: every operation that takes a credential is called through
Hosting exactly as its curl example (on the demo world's own resources), with the credential swapped for one of
another client, of a weaker role, expired, revoked or malformed. Each is refused with the status the document gives,
and Firestore before and after the whole matrix shows that nothing was written (ALLOWED_WRITES: the caller's own
request meters only).
"""

import dataclasses
import datetime as dt
import re
import shlex
import time
import uuid
from pathlib import Path

import pytest
import requests

from tests import firestore_snapshot
from tests.conftest import BASE_URL, Tenant, bearer, new_member, with_claims
from tests.fuzz.runner import demo_env
from tests.identity.conftest import redeem
from wellness_api.api_keys import service as api_keys
from wellness_api.core import client_tokens, clock, firebase, server_keys, tenancy
from wellness_api.vital_scan import service as vital_scan

# serial: "wrote nothing" compares the whole database before and after, so it runs when no other test writes (once a
# browser test's Vital Scan session was written during the matrix).
pytestmark = [pytest.mark.e2e, pytest.mark.serial]

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = requests.get(BASE_URL + "/api/openapi.json", timeout=60).json()
SUBTITLE = "WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n"
ID_TOKEN, CLIENT_TOKEN, API_KEY, SCAN_TOKEN = "firebaseIdToken", "clientToken", "serverApiKey", "scanToken"
# The roles below an operation's, named by the variable its curl example signs in with. Guests are app users like
# players (spec part 5), so member operations have no weaker role.
WEAKER_ROLES = {"PLATFORM_ADMIN_ID_TOKEN": ("ADMIN_ID_TOKEN", "PLAYER_ID_TOKEN", "GUEST_ID_TOKEN"),
                "ADMIN_ID_TOKEN": ("PLAYER_ID_TOKEN", "GUEST_ID_TOKEN")}
# Where the example signs in with more than the operation needs: the analytics client picker lists an admin's own
# client; a privacy request about oneself is any member's to make and read (the examples' admin asks about the
# player, who may do the same; another member's requests are tests/privacy's).
MINIMUM_ROLE = {"listAnalyticsClients": "ADMIN_ID_TOKEN", "createPrivacyRequest": "PLAYER_ID_TOKEN",
                "getPrivacyRequest": "PLAYER_ID_TOKEN"}
# Where the spec gives a weaker role another status than 403: 7.5, "records: 401 admin authentication required".
WEAKER_ROLE_STATUS = {"listAiMoveRecords": 401}
# What one member owns: another member of the same client (the guest) is refused it too. (A playId is the app's
# own and kept per user, so another member's PUT with the same id reports that member's own play.)
USER_OWNED = {"AI_MOVE_SESSION_ID", "FALL_RISK_RESULT_ID", "CONVERSATION_ID"}
# 7.5: "403 user does not own the session"; fall-risk results answer 403 the same way. Conversations are 404.
ANOTHER_MEMBER_STATUS = {"getAiMoveSession": 403, "updateAiMoveSession": 403, "getFallRiskResult": 403,
                         **{f"recordFallRisk{step}": 403
                            for step in ("Quiz", "SitToStand", "TandemStance", "SingleLegStance", "TandemWalk")}}
# The demo client's own exercise: the example's is the operator's shared library exercise, which every client sees.
PATH_VALUES = {"getAiMoveExercise": {"EXERCISE_ID": "demo-chair-squat"}}
# Writes a refused request may make: its own client's request meters (a refusal still counts against the caller).
ALLOWED_WRITES = re.compile(r"^clients/{other}/(usageShards|vitalScanRate)/[^/]+$")


@dataclasses.dataclass(frozen=True)
class Call:
    operation_id: str
    method: str
    url: str  # with $VARIABLES of bin/demo-env
    headers: tuple[tuple[str, str], ...]
    body: str | None
    form: tuple[tuple[str, str], ...]
    schemes: tuple[str, ...]
    role: str  # the variable the example authorizes with
    responses: frozenset[int]

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"\$([A-Z_]+)", self.url.split("?")[0].removeprefix("$BASE_URL"))

    @property
    def minimum_role(self) -> str:
        return MINIMUM_ROLE.get(self.operation_id, self.role)


def _calls() -> list[Call]:
    """Every operation with a credential, from its curl example in the served document."""
    calls = []
    for item in DOCUMENT["paths"].values():
        for method, op in item.items():
            schemes = tuple(name for requirement in op.get("security", []) for name in requirement)
            if not schemes:
                continue
            source = op["x-codeSamples"][0]["source"].replace("\\\n", " ")
            words = shlex.split(source, posix=True)[1:]
            headers, form, body, url, role = [], [], None, None, ""
            i = 0
            while i < len(words):
                word = words[i]
                if word in ("-H", "-d", "-F", "-X"):
                    value = words[i + 1]
                    i += 2
                    if word == "-H":
                        name, _, text = value.partition(": ")
                        if name == "Authorization":
                            role = text.removeprefix("Bearer $")
                        else:
                            headers.append((name, text))
                    elif word == "-d":
                        body = value
                    elif word == "-F":
                        form.append(tuple(value.split("=", 1)))
                    continue
                if word.startswith("$BASE_URL"):
                    url = word
                i += 1
            calls.append(Call(op["operationId"], method.upper(), url, tuple(headers), body, tuple(form), schemes, role,
                              frozenset(int(code) for code in op["responses"])))
    return calls


CALLS = _calls()


def _expand(text: str, env: dict[str, str]) -> str:
    return re.sub(r"\$([A-Z_]+)", lambda m: env[m.group(1)], text)


@dataclasses.dataclass
class Cell:
    label: str
    token: str | None
    expected: int


def _emulator_client_jwt_secret() -> str:
    for line in (ROOT / "functions" / ".secret.local").read_text().splitlines():
        name, _, value = line.partition("=")
        if name.strip() == "CLIENT_JWT_SECRET":
            return value.strip()
    raise AssertionError("functions/.secret.local has no CLIENT_JWT_SECRET")


def _scan_session(api_key: str) -> tuple[str, str]:
    """(vitalScanResultId, scanToken) of a new session."""
    response = requests.post(f"{BASE_URL}/api/v1/vital-scan/sessions", json={"userId": "tenancy-matrix"},
                             headers={"Authorization": f"Bearer {api_key}"}, timeout=60)
    assert response.status_code == 201, response.text
    body = response.json()["data"]
    return body["vitalScanResultId"], body["vitalScanUrl"].split("#scanToken=", 1)[1]


def _client_token(client_id: str, secret: str) -> str:
    response = requests.post(f"{BASE_URL}/api/client/token/", json={"clientId": client_id, "clientSecret": secret},
                             timeout=60)
    assert response.status_code == 200, response.text
    return response.json()["token"]


def _guest_token(host: str) -> str:
    """A guest's ID token: the host's guest custom token redeemed at the Auth emulator, as an app does."""
    response = requests.post(f"{BASE_URL}/api/auth/guest-custom-token", headers={"Host": host}, timeout=60)
    assert response.status_code == 200, response.text
    return redeem(response.json()["customToken"])


@dataclasses.dataclass
class World:
    env: dict[str, str]  # the demo client's, as bin/demo-env exports them
    other: str  # another client's id
    refused: dict[str, dict[str, str]]  # label -> {scheme or role variable: credential}
    before: dict[str, str]  # Firestore before the matrix


@pytest.fixture(scope="module")
def world() -> World:
    env = demo_env()
    demo = tenancy.get_client(env["CLIENT_ID"])
    other = Tenant(f"t-{uuid.uuid4().hex[:12]}")
    # The other client has every module the demo client has, so its refusals are about tenancy, not modules.
    other.configure(*(f"modules.{module}=true" for module, on in demo.settings.get("modules", {}).items() if on),
                    "vitalScan.points=10")
    other_key = api_keys.create_key(other.client_id, "tenancy matrix", False, "tests").secret

    # Revoked: an admin whose sessions were revoked after sign-in, a key revoked after a client token was issued
    # with it, and a Vital Scan session the partner deleted.
    revoked_admin = new_member(demo, tenancy.ROLE_ADMIN)
    revoked_id_token = revoked_admin.token  # signed in before the revocation below
    revoked_key = api_keys.create_key(demo.client_id, "tenancy matrix, revoked", False, "tests")
    revoked_client_token = _client_token(demo.client_id, revoked_key.secret)
    deleted_session, deleted_scan_token = _scan_session(env["API_KEY"])
    time.sleep(1.1)  # revocation counts tokens issued before it, to the second
    firebase.auth().revoke_refresh_tokens(revoked_admin.uid)
    api_keys.revoke_key(demo.client_id, revoked_key.api_key["keyId"])
    response = requests.delete(f"{BASE_URL}/api/v1/vital-scan/sessions/{deleted_session}",
                               headers={"Authorization": f"Bearer {env['API_KEY']}"}, timeout=60)
    assert response.status_code == 204, response.text

    # Expired: the admin's ID token and a client token past their lifetime, a key past its expiresAt, and a scan
    # session past its expiry (swept, as the scheduled sweep does).
    expired_key = api_keys.create_key(demo.client_id, "tenancy matrix, expired", False, "tests")
    past = clock.now() - dt.timedelta(minutes=1)
    key_hash = server_keys.hash_key(expired_key.secret)
    db = firebase.db()
    db.collection("apiKeyIndex").document(key_hash).update({"expiresAt": past})
    db.collection("clients").document(demo.client_id).collection("apiKeys").document(
        expired_key.api_key["keyId"]).update({"expiresAt": past})
    # Signed by the platform's own code with the functions' secret, two hours ago: only its lifetime is wrong, as the
    # same token signed now shows.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLIENT_JWT_SECRET", _emulator_client_jwt_secret())
        live_client_token = client_tokens.sign(demo.client_id, env["KEY_ID"])
        with clock.shifted(-dt.timedelta(hours=2)):
            expired_client_token = client_tokens.sign(demo.client_id, env["KEY_ID"])
    response = requests.get(f"{BASE_URL}/api/fall-risk/rules", headers=bearer(live_client_token), timeout=60)
    assert response.status_code == 200, response.text
    expired_session, expired_scan_token = _scan_session(env["API_KEY"])
    db.collection("clients").document(demo.client_id).collection("vitalScanSessions").document(
        expired_session).update({"expiresAt": past})
    vital_scan.sweep_expired()

    guest = _guest_token(env["CLIENT_HOST"])
    refused = {
        "another client": {ID_TOKEN: other.admin.token, CLIENT_TOKEN: _client_token(other.client_id, other_key),
                           API_KEY: other_key},
        # The admin's ID token past its exp; iat and auth_time stay after any revocation, so only the lifetime refuses it.
        "expired": {ID_TOKEN: with_claims(env["ADMIN_ID_TOKEN"], exp=int(time.time()) - 60),
                    CLIENT_TOKEN: expired_client_token,
                    API_KEY: expired_key.secret, SCAN_TOKEN: expired_scan_token},
        "revoked": {ID_TOKEN: revoked_id_token, CLIENT_TOKEN: revoked_client_token, API_KEY: revoked_key.secret,
                    SCAN_TOKEN: deleted_scan_token},
        "weaker role": {role: token for role, token in (("ADMIN_ID_TOKEN", env["ADMIN_ID_TOKEN"]),
                                                        ("PLAYER_ID_TOKEN", env["PLAYER_ID_TOKEN"]),
                                                        ("GUEST_ID_TOKEN", guest))},
    }
    return World(env, other.client_id, refused, _settled_snapshot())


def _settled_snapshot() -> dict[str, str]:
    """A snapshot taken once the emulator is quiet (earlier tests' queued tasks may still be writing)."""
    previous = firestore_snapshot.versions()
    for _ in range(20):
        time.sleep(0.5)
        current = firestore_snapshot.versions()
        if current == previous:
            return current
        previous = current
    return previous


def _cells(call: Call, world: World) -> list[Cell]:
    """Every refused credential for this operation, with the status the document gives for it."""
    cells = [Cell("missing", None, 401), Cell("malformed", "not-a-credential", 401),
             Cell("malformed: a cut JWT", world.env["ADMIN_ID_TOKEN"][:-20], 401)]
    for scheme in call.schemes:
        if scheme in world.refused["expired"]:
            cells.append(Cell(f"expired {scheme}", world.refused["expired"][scheme], 410 if scheme == SCAN_TOKEN else 401))
            cells.append(Cell(f"revoked {scheme}", world.refused["revoked"][scheme], 401))
        # The operator's administrators act on every client, so a platform-level operation has no other client.
        if (scheme in world.refused["another client"] and call.path_params
                and call.minimum_role != "PLATFORM_ADMIN_ID_TOKEN"):
            expected = 403 if "CLIENT_ID" in call.path_params else 404
            cells.append(Cell(f"another client's {scheme}", world.refused["another client"][scheme], expected))
    owned = [name for name in call.path_params if name in USER_OWNED]
    if ID_TOKEN in call.schemes and call.minimum_role == "PLAYER_ID_TOKEN" and owned:
        status = ANOTHER_MEMBER_STATUS.get(call.operation_id, 404)
        cells.append(Cell("another member of the client", world.refused["weaker role"]["GUEST_ID_TOKEN"], status))
    if ID_TOKEN in call.schemes:
        for weaker in WEAKER_ROLES.get(call.minimum_role, ()):
            status = WEAKER_ROLE_STATUS.get(call.operation_id, 403)
            cells.append(Cell(f"weaker role {weaker}", world.refused["weaker role"][weaker], status))
    return cells


def _send(call: Call, world: World, token: str | None) -> requests.Response:
    env = {**world.env, **PATH_VALUES.get(call.operation_id, {})}
    headers = {name: _expand(value, env) for name, value in call.headers}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    kwargs = {}
    if call.body is not None:
        kwargs["data"] = _expand(call.body, env).encode()
    if call.form:
        kwargs["files"] = {name: ("subtitles.vtt", SUBTITLE) if value.startswith("@") else (None, value)
                           for name, value in call.form}
    # Host is the demo client's hostname where the example sends one; requests sets it from the header.
    return requests.request(call.method, _expand(call.url, env), headers=headers, timeout=60, **kwargs)


@pytest.mark.parametrize("call", CALLS, ids=lambda call: call.operation_id)
def test_refused_with_the_documented_status(call: Call, world: World, contract):
    wrong = []
    for cell in _cells(call, world):
        assert cell.expected in call.responses, f"{call.operation_id} does not document {cell.expected} ({cell.label})"
        response = _send(call, world, cell.token)
        contract.check(response)  # the refusal's body is the documented envelope
        if response.status_code != cell.expected:
            wrong.append(f"{cell.label}: {response.status_code} {response.text[:200]} (expected {cell.expected})")
    assert not wrong, "\n".join(wrong)


def test_the_matrix_wrote_nothing(world: World):
    allowed = re.compile(ALLOWED_WRITES.pattern.replace("{other}", re.escape(world.other)))
    after = _settled_snapshot()
    written = [change for change in firestore_snapshot.changes(world.before, after)
               if not allowed.match(change.split(" ", 1)[1])]
    assert written == []
