"""core.openapi: a declared route is a Flask route whose success bodies are checked against their models."""

from pydantic import BaseModel, ConfigDict

from wellness_api.core import http, openapi


class Thing(BaseModel):
    """A thing."""

    model_config = ConfigDict(extra="forbid")
    name: str


def _app(answer):
    app = http.create_app("scratch")
    api = openapi.Api(app, "Scratch")

    @api.get("/api/things/<thing_id>", operation_id="getThing", summary="Get a thing", responses={200: Thing})
    def get_thing(thing_id: str):
        return answer(thing_id)

    return app


def test_a_body_that_fits_its_model_is_served():
    response = _app(lambda thing_id: {"name": thing_id}).test_client().get("/api/things/t1")
    assert response.status_code == 200
    assert response.get_json() == {"name": "t1"}
    assert response.headers["x-request-id"]


def test_a_body_that_breaks_its_model_is_a_500_in_the_envelope_when_checked(monkeypatch):
    monkeypatch.setenv("WELLNESS_CHECK_RESPONSES", "1")
    response = _app(lambda thing_id: {"name": thing_id, "secret": "x"}).test_client().get("/api/things/t1")
    assert response.status_code == 500
    assert response.get_json() == {"error": "Internal server error"}


def test_an_undocumented_status_is_a_500_when_checked(monkeypatch):
    monkeypatch.setenv("WELLNESS_CHECK_RESPONSES", "1")
    response = _app(lambda thing_id: ({"name": thing_id}, 202)).test_client().get("/api/things/t1")
    assert response.status_code == 500


def test_production_serves_without_checking(monkeypatch):
    monkeypatch.delenv("WELLNESS_CHECK_RESPONSES", raising=False)
    monkeypatch.delenv("FUNCTIONS_EMULATOR", raising=False)
    response = _app(lambda thing_id: {"name": thing_id, "extra": 1}).test_client().get("/api/things/t1")
    assert response.status_code == 200


def test_flask_path_variables_become_camel_case_parameters():
    assert openapi.openapi_path("/api/clients/<client_id>/api-keys/<key_id>") == "/api/clients/{clientId}/api-keys/{keyId}"
    assert openapi.openapi_path("/api/v1/x/<vital_scan_result_id>") == "/api/v1/x/{vitalScanResultId}"
