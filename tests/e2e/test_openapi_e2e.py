"""GET /api/openapi.json through Hosting: public, JSON, this deployment's server, every area's tag."""

import pytest

pytestmark = pytest.mark.e2e


def test_the_document_is_public_and_relative_to_its_origin(api):
    response = api("GET", "/api/openapi.json")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    doc = response.json()
    assert doc["openapi"] == "3.1.0"
    assert doc["servers"] == [{"url": "/", "description": "The origin that serves this document"}]
    assert {t["name"] for t in doc["tags"]} >= {"API keys", "Identity", "Lessons", "Vital Scan"}
    assert "/api/v1/vital-scan/sessions" in doc["paths"]


def test_health_is_documented_and_carries_a_request_id(api):
    response = api("GET", "/api/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.parametrize("path", ["/api/clients/%0A/api-keys", "/api/v1/vital-scan/sessions/%F0%9C%85%B0%0A%06%01%C3%B4"])
def test_a_line_break_in_a_path_segment_is_answered_by_its_area(api, path):
    # Found by the fuzz run: the functions runtime's own router refused these with an HTML 404 before any
    # area ran. main.py hands them to the area, which answers in its envelope (checked by `api`).
    response = api("GET", path)
    assert response.status_code in (401, 404)
    assert response.headers["Content-Type"].startswith("application/json")
