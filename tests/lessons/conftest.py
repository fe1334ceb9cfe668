"""Fixtures of the lessons tests: the area's Flask test client and a helper that creates lessons."""

import pytest

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
