"""Shared fixtures: the emulators (started by `make test`), tenants, users and their ID tokens.

Every test makes its own tenant with a unique id, so tests never see each other's data and the
emulators are reset only once per run.
"""

import base64
import json
import os
import secrets
import urllib.request
import uuid

import pytest
import requests

PROJECT = os.environ.setdefault("GCLOUD_PROJECT", "demo-wellness")
os.environ.setdefault("CLIENT_JWT_SECRET", secrets.token_hex(32))
# Every success body a handler returns is checked against its documented model (core.openapi).
os.environ.setdefault("WELLNESS_CHECK_RESPONSES", "1")

REQUIRED_ENV = ("FIRESTORE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST")
if not all(os.environ.get(name) for name in REQUIRED_ENV):
    raise pytest.UsageError(
        "the tests need the Firebase emulators: run them with `make test` "
        f"(missing {', '.join(n for n in REQUIRED_ENV if not os.environ.get(n))})"
    )

from wellness_api.core import clock, provisioning, tenancy, users  # noqa: E402

AUTH_HOST = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
OPERATOR_CLIENT_ID = "operator"
BASE_URL = os.environ.get("E2E_BASE_URL", "http://127.0.0.1:5000")


def sign_in(email: str, password: str) -> str:
    """An ID token from the Auth emulator, as an app would get one."""
    response = requests.post(
        f"http://{AUTH_HOST}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any",
        json={"email": email, "password": password, "returnSecureToken": True},
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["idToken"]


# Passwords and ID tokens the run handed out, for tests/test_logs.py (which also catches any token or key by form).
SECRETS: set[str] = set()

RESENDS = 20


def until_done(send):
    """Resend a request answered 503 (the documented "retry shortly") until it gets another answer."""
    for _ in range(RESENDS):
        response = send()
        if response.status_code != 503:
            return response
    raise AssertionError(f"still 503 after {RESENDS} resends")


def assert_error(response, status: int, message: str) -> None:
    """A Flask test-client answer of `status` with the plain envelope `{"error": message}`."""
    assert response.status_code == status, response.json
    assert response.json == {"error": message}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def with_claims(id_token: str, **changes) -> str:
    """The ID token with some claims changed, unsigned as the Auth emulator's own tokens are (alg none)."""
    header, payload, _ = id_token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims.update(changes)
    return f"{header}.{base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip('=')}."


class Member:
    def __init__(self, client_id: str, role: str, email: str, password: str, uid: str):
        self.client_id, self.role, self.email, self.password, self.uid = client_id, role, email, password, uid
        self._token = None

    @property
    def token(self) -> str:
        if self._token is None:
            self._token = sign_in(self.email, self.password)
            SECRETS.add(self._token)
        return self._token

    @property
    def headers(self) -> dict:
        return bearer(self.token)


def new_member(client: tenancy.Client, role: str, birth_date: str | None = None, sex: str | None = None) -> Member:
    """A new member of an existing client, made as platformctl makes one; its password is registered in SECRETS."""
    email = f"{role}-{uuid.uuid4().hex[:10]}@{client.client_id}.test"
    password = secrets.token_urlsafe(12)
    SECRETS.add(password)
    uid = users.create_user(client, email, password, role, display_name=f"{role} of {client.client_id}",
                            birth_date=birth_date, sex=sex)
    return Member(client.client_id, role, email, password, uid)


class Tenant:
    """A client with an admin and a player, created through the same code platformctl uses."""

    def __init__(self, client_id: str, operator: bool = False, hostnames: list[str] | None = None):
        self.client_id = client_id
        # The operator tenant may already exist (the seed makes it); tests then add members to it.
        self.client = tenancy.get_client(client_id) or provisioning.create_client(
            client_id, f"Test {client_id}", hostnames or [], operator)
        self.admin = self.add_member(tenancy.ROLE_ADMIN)
        self.player = self.add_member(tenancy.ROLE_PLAYER)

    def add_member(self, role: str, birth_date: str | None = None, sex: str | None = None) -> Member:
        return new_member(self.client, role, birth_date, sex)

    def configure(self, *assignments: str) -> None:
        provisioning.configure_client(self.client_id, list(assignments))
        self.client = tenancy.get_client(self.client_id)


def pytest_collection_modifyitems(items):
    # The fuzz run changes the demo world at random (keys, live lessons, points): it goes last, but for the tests
    # that read what the whole run left behind (the emulator log, the collections written).
    items.sort(key=lambda item: (item.get_closest_marker("after_all") is not None,
                                 item.get_closest_marker("fuzz") is not None))


def _reset_emulators() -> None:
    for url in (
        f"http://{os.environ['FIRESTORE_EMULATOR_HOST']}/emulator/v1/projects/{PROJECT}/databases/(default)/documents",
        f"http://{AUTH_HOST}/emulator/v1/projects/{PROJECT}/accounts",
    ):
        urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30).close()


@pytest.fixture(scope="session", autouse=True)
def emulators():
    _reset_emulators()
    yield


@pytest.fixture(autouse=True)
def _real_clock():
    clock.reset()
    yield
    clock.reset()


@pytest.fixture(scope="session")
def operator_tenant(emulators) -> Tenant:
    # The same operator tenant as the demo world's (ops/demo.py), host included, whichever makes it first.
    return Tenant(OPERATOR_CLIENT_ID, operator=True, hostnames=["operator.localhost"])


@pytest.fixture
def make_tenant(emulators):
    def make(**kwargs) -> Tenant:
        return Tenant(f"t-{uuid.uuid4().hex[:12]}", **kwargs)

    return make


@pytest.fixture
def tenant(make_tenant) -> Tenant:
    return make_tenant()


@pytest.fixture
def other_tenant(make_tenant) -> Tenant:
    return make_tenant()


@pytest.fixture
def platform_admin(operator_tenant) -> Member:
    return operator_tenant.admin
