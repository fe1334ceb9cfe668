"""Fixtures of the Content tests: the area's Flask test client and helpers that create items."""

import pytest

from wellness_api.content.routes import app

ADMIN = "/api/content"


@pytest.fixture
def http():
    return app.test_client()


def create_item(http, member, **fields) -> dict:
    body = {"key": fields.pop("key", "welcome"), "categoryKey": fields.pop("categoryKey", "announcements"),
            "title": fields.pop("title", {"en": "Hello"}), "body": fields.pop("body", {"en": "Body"}), **fields}
    response = http.post(ADMIN, json=body, headers=member.headers)
    assert response.status_code == 201, response.json
    return response.json["content"]
