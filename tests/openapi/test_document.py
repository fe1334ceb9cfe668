"""The OpenAPI document against the code: every route has its entry, every entry a route, and the parts fit."""

import re

import pytest
from werkzeug.routing import Rule

from wellness_api.core import http, openapi
from wellness_api.openapi import document

DOC = document.build()


def _served() -> set[tuple[str, str]]:
    """(METHOD, OpenAPI path) of every API rule every area app serves (HEAD/OPTIONS are Flask's own; pages such as
    /ct/{contentId} are HTML, not API operations)."""
    served = set()
    for app in document.apps():
        for rule in app.url_map.iter_rules():
            rule: Rule
            if rule.endpoint == "static" or not rule.rule.startswith("/api/"):
                continue
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                served.add((method, openapi.openapi_path(rule.rule)))
    return served


def _documented() -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, item in DOC["paths"].items() for method in item}


def test_every_route_is_documented_and_every_operation_served():
    served, documented = _served(), _documented()
    assert served - documented == set(), "routes without an OpenAPI entry (declare them with the area's Api)"
    assert documented - served == set(), "documented operations that no route serves"


def test_a_bare_flask_route_is_caught():
    app = http.create_app("scratch")
    api = openapi.Api(app, "Scratch")

    @api.get("/api/scratch", operation_id="scratch", summary="s", responses={200: None})
    def declared():
        return "", 200

    @app.get("/api/undeclared")
    def undeclared():
        return {}

    declared_rules = {op.rule for op in openapi.operations_of(app)}
    served_rules = {r.rule for r in app.url_map.iter_rules() if r.endpoint != "static"}
    assert served_rules - declared_rules == {"/api/undeclared"}


def test_operation_ids_are_unique_and_every_operation_is_complete():
    ids = [op["operationId"] for item in DOC["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))
    tags = {tag["name"] for tag in DOC["tags"]}
    for path, item in DOC["paths"].items():
        for method, op in item.items():
            where = f"{method.upper()} {path}"
            assert op["summary"] and op["tags"][0] in tags, where
            assert any(code.startswith("2") for code in op["responses"]), where
            assert "500" in op["responses"], where
            for code, answer in op["responses"].items():
                assert "x-request-id" in answer["headers"], f"{where} {code}"
            if "requestBody" in op:
                (content,) = op["requestBody"]["content"].values()
                assert "example" in content, f"{where} has no request example"
            assert op["x-codeSamples"][0]["source"].startswith("curl "), where
            for name in re.findall(r"{([^}]+)}", path):
                assert name in openapi.SAMPLE_PATH_VALUES, f"{where}: no demo value for {{{name}}} in curl samples"


def test_the_document_has_tags_per_area_and_security_schemes():
    assert DOC["openapi"] == "3.1.0"
    assert [t["name"] for t in DOC["tags"]] == ["Platform", "API keys", "Identity", "Lessons", "Vital Scan",
                                                  "AI Move", "Fall risk", "Content",
                                                  "Media generation", "AI assistant", "OpenAI-compatible proxy",
                                                  "Analytics", "Privacy"]
    assert set(DOC["components"]["securitySchemes"]) == {"serverApiKey", "firebaseIdToken", "clientToken", "scanToken"}
    for name in ("x-request-id", "Retry-After", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"):
        assert name in DOC["components"]["headers"]


def test_strict_bodies_are_closed_and_bounds_are_documented():
    schemas = DOC["components"]["schemas"]
    assert schemas["CreateSessionBody"]["additionalProperties"] is False
    assert schemas["CreateKeyBody"]["properties"]["label"]["maxLength"] == 100
    (listing,) = DOC["paths"]["/api/lessons"]["get"]["parameters"]
    assert (listing["in"], listing["required"], listing["schema"]) == ("query", True, {"type": "string", "maxLength": 64})
    key_id = DOC["paths"]["/api/clients/{clientId}/api-keys/{keyId}"]["patch"]["parameters"][1]
    assert key_id["schema"] == {"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "minLength": 1, "maxLength": 64}


def test_examples_name_the_demo_client():
    from wellness_api.ops import demo

    assert demo.DEMO_CLIENTS[0]["clientId"] == document.DEMO_CLIENT_ID


def test_each_area_answers_errors_in_its_own_envelope():
    def schema_of(path, method, status):
        return DOC["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]

    assert schema_of("/api/clients/{clientId}/api-keys", "get", "403") == {"$ref": "#/components/schemas/PlainError"}
    coded = schema_of("/api/auth/custom-token", "post", "403")
    assert coded["allOf"] == [{"$ref": "#/components/schemas/CodedError"}]
    assert coded["properties"]["code"]["enum"] == ["external_sso_disabled", "jit_provisioning_disabled", "user_disabled"]
    nested = schema_of("/api/v1/vital-scan/sessions", "post", "402")
    assert nested["allOf"] == [{"$ref": "#/components/schemas/InsufficientCredits"}]
    polling = schema_of("/api/v1/vital-scan/sessions/{vitalScanResultId}", "get", "429")
    assert "required" not in polling["properties"]["error"], "the polling 429 has no code"
    headers = DOC["paths"]["/api/v1/vital-scan/sessions/{vitalScanResultId}"]["get"]["responses"]["429"]["headers"]
    assert "Retry-After" in headers


@pytest.mark.parametrize("op", document.operations(), ids=lambda op: op.operation_id)
def test_every_request_example_is_accepted_by_its_model(op: openapi.Operation):
    if op.body is None:
        return
    assert op.example is not None
    if op.form:
        assert set(op.example) == set(op.body.model_fields)
        return
    http.validate(op.body, op.example)


def test_curl_samples_quote_json_and_use_the_demo_variables():
    sample = next(op for op in document.operations() if op.operation_id == "setClaims")
    assert openapi.curl_sample(sample) == (
        'curl -sS -X POST "$BASE_URL/api/auth/set-claims" \\\n'
        '  -H "Content-Type: application/json" \\\n'
        '  -d "{\\"clientId\\": \\"$CLIENT_ID\\", \\"idToken\\": \\"$PLAYER_ID_TOKEN\\"}"'
    )
    create = next(op for op in document.operations() if op.operation_id == "createApiKey")
    assert openapi.curl_sample(create).endswith("""-d '{"label": "backend-2026", "makePrimary": false}'""")
