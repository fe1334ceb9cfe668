"""Shared fixtures: the emulators (started by `make test`), tenants, users and their ID tokens.

Every test makes its own tenant with a unique id, so tests never see each other's data and the
emulators are reset only once per run.
"""

import os
import secrets
import urllib.request
import uuid

import pytest

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

# Tenants, members and tokens live in support/ (bench/ uses them too); imported here for the tests.
from support.tenants import BASE_URL, OPERATOR_CLIENT_ID, Member, Tenant, new_member  # noqa: E402, F401
from support.tokens import SECRETS, bearer, sign_in, with_claims  # noqa: E402, F401
from wellness_api.core import clock  # noqa: E402

AUTH_HOST = os.environ["FIREBASE_AUTH_EMULATOR_HOST"]

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


def pytest_collection_modifyitems(items):
    # The fuzz run changes the demo world at random (keys, live lessons, points): it goes last, but for the tests
    # that read what the whole run left behind (the emulator log, the collections written).
    items.sort(key=lambda item: (item.get_closest_marker("after_all") is not None,
                                 item.get_closest_marker("fuzz") is not None))


def reset_emulators() -> None:
    for url in (
        f"http://{os.environ['FIRESTORE_EMULATOR_HOST']}/emulator/v1/projects/{PROJECT}/databases/(default)/documents",
        f"http://{AUTH_HOST}/emulator/v1/projects/{PROJECT}/accounts",
    ):
        urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30).close()


@pytest.fixture(scope="session", autouse=True)
def emulators():
    # devstack/test_suite.sh resets them once for the processes it runs side by side.
    if not os.environ.get("TESTS_EMULATORS_RESET"):
        reset_emulators()
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


@pytest.fixture
def scratch_collection(emulators):
    """Fresh top-level collections for tests of the Firestore plumbing itself, emptied afterwards: the security-rules
    test and the privacy proof list every collection of the database, and no area declares these."""
    from wellness_api.core import firebase

    made = []

    def collection(prefix: str):
        ref = firebase.db().collection(f"{prefix}{uuid.uuid4().hex[:12]}")
        made.append(ref)
        return ref

    yield collection
    for ref in made:
        for document in ref.list_documents():
            document.delete()
