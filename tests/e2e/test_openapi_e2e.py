"""GET /api/openapi.json through Hosting: public, JSON, this deployment's server, every area's tag."""

import pytest
import requests

from tests.conftest import BASE_URL

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


def test_a_control_character_in_a_path_segment_never_reaches_a_5xx():
    # Found by the fuzz run: the functions runtime answers this with its own HTML 404 (no x-request-id) before
    # any area runs, so the document declares ids as [A-Za-z0-9_-]{1,64}; the answer stays a 4xx.
    response = requests.get(BASE_URL + "/api/clients/%0A/api-keys", timeout=30)
    assert response.status_code == 404
