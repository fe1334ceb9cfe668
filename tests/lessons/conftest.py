"""Fixtures of the lessons tests: the area's Flask test client and a helper that creates lessons."""

import uuid

import pytest

from tests.conftest import bearer
from wellness_api.lessons.routes import app

CATALOG = "/api/b2b/lessons/catalog"


@pytest.fixture
def http():
    return app.test_client()


def create_lesson(http, tenant, headers=None, query: str = "", **fields) -> str:
    body = {"title": {"en": "Lesson"}, **fields}
    response = http.post(CATALOG + query, json=body, headers=headers or tenant.admin.headers)
    assert response.status_code == 201, response.json
    return response.json["lessonId"]


def catalog(http, tenant) -> dict:
    response = http.get(CATALOG, headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    return response.json


@pytest.fixture
def guest_world(http, make_tenant):
    """A client with guest sign-in on, one live and one hidden lesson, and a guest's ID token."""
    from tests.identity.conftest import redeem
    from wellness_api.identity.routes import app as identity_app

    host = f"trial-{uuid.uuid4().hex[:8]}.example.test"
    tenant = make_tenant(hostnames=[host])
    tenant.configure("auth.guestSignIn=true")
    live = create_lesson(http, tenant, title={"en": "Try me"}, isLive=True)
    hidden = create_lesson(http, tenant, title={"en": "Members only draft"})
    issued = identity_app.test_client().post("/api/auth/guest-custom-token", headers={"X-Forwarded-Host": host})
    assert issued.status_code == 200, issued.json
    return {"tenant": tenant, "live": live, "hidden": hidden, "guest": bearer(redeem(issued.json["customToken"]))}
