"""Fixtures of the identity tests: the two Flask apps, server keys, the Auth emulator's REST calls."""

import datetime as dt
import http.server
import threading
import uuid

import pytest
import requests

from tests.conftest import AUTH_HOST, PROJECT
from wellness_api.api_keys import service as api_keys
from wellness_api.core import auth, clock, firebase
from wellness_api.identity.routes import app, custom_token_app

TOOLKIT = f"http://{AUTH_HOST}/identitytoolkit.googleapis.com/v1"


@pytest.fixture
def ct():
    """Test client of POST /api/auth/custom-token ({code, error} envelope)."""
    return custom_token_app.test_client()


@pytest.fixture
def idp():
    """Test client of the other identity endpoints ({error} envelope)."""
    return app.test_client()


def server_key(tenant) -> str:
    return api_keys.create_key(tenant.client_id, "partner backend", False, "test").secret


def key_headers(raw: str) -> dict:
    return {"Authorization": f"Bearer {raw}"}


def external(external_user_id: str) -> dict:
    return {"grantType": "external_user", "externalUserId": external_user_id}


def new_external_id() -> str:
    return f"Partner-User-{uuid.uuid4().hex[:10]}"


def redeem(custom_token: str) -> str:
    """Sign in at the Auth emulator with a custom token, as an app's SDK does; returns the ID token."""
    response = requests.post(f"{TOOLKIT}/accounts:signInWithCustomToken?key=any",
                             json={"token": custom_token, "returnSecureToken": True}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["idToken"]


def claims_of(id_token: str) -> dict:
    decoded = auth.verify_id_token(id_token)
    assert decoded is not None
    return decoded


def sign_up(email: str, password: str) -> str:
    response = requests.post(f"{TOOLKIT}/accounts:signUp?key=any",
                             json={"email": email, "password": password, "returnSecureToken": True}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["idToken"]


def verify_email(id_token: str) -> None:
    """The email verification an invitee completes: send the code, read it from the emulator, apply it."""
    response = requests.post(f"{TOOLKIT}/accounts:sendOobCode?key=any",
                             json={"requestType": "VERIFY_EMAIL", "idToken": id_token}, timeout=10)
    assert response.status_code == 200, response.text
    email = response.json()["email"]
    codes = requests.get(f"http://{AUTH_HOST}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=10).json()["oobCodes"]
    code = [c["oobCode"] for c in codes if c["email"] == email and c["requestType"] == "VERIFY_EMAIL"][-1]
    applied = requests.post(f"{TOOLKIT}/accounts:update?key=any", json={"oobCode": code}, timeout=10)
    assert applied.status_code == 200, applied.text


def fresh_window(seconds: int = 60) -> None:
    """Move the clock to just after the start of the next rate window, so a test cannot straddle two."""
    now = clock.now().timestamp()
    clock.advance(dt.timedelta(seconds=seconds - now % seconds + 0.05))


def auth_users_with_uid(uid: str) -> int:
    fb_auth = firebase.auth()
    try:
        fb_auth.get_user(uid, app=firebase.app())
        return 1
    except fb_auth.UserNotFoundError:
        return 0


class RecordingToolkit:
    """A pass-through proxy in front of the Auth emulator's Identity Toolkit (the third party's HTTP
    boundary), recording which endpoints the platform calls."""

    def __init__(self):
        self.calls: list[str] = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.calls.append(self.path.split("?")[0])
                upstream = requests.post(f"http://{AUTH_HOST}{self.path}", data=body,
                                         headers={"Content-Type": "application/json"}, timeout=10)
                self.send_response(upstream.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(upstream.content)))
                self.end_headers()
                self.wfile.write(upstream.content)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/identitytoolkit.googleapis.com"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recording_toolkit(monkeypatch):
    proxy = RecordingToolkit()
    monkeypatch.setenv("IDENTITY_TOOLKIT_URL", proxy.url)
    yield proxy
    proxy.close()
