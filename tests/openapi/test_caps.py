"""Issue 25: every request input that can size work has a documented bound in the OpenAPI document (the one
/api/openapi.json serves): maxLength, maxItems, maxProperties, maximum. The rules are support/caps.py's;
`python -m support.caps` prints the current findings grouped by area."""

from support import caps
from wellness_api.openapi import document

DOC = document.build()


def test_every_input_that_sizes_work_has_a_documented_bound():
    found = caps.violations(DOC)
    assert not found, f"{len(found)} unbounded inputs:\n" + "\n".join(
        f"{operation}: {field} ({missing})" for _, operation, field, missing in found)


def _schema(properties: dict, **extra) -> dict:
    return {"openapi": "3.1.0", "components": {"schemas": {
        "Body": {"type": "object", "properties": properties, **extra},
        "Node": {"type": "object", "properties": {"children": {"type": "array", "maxItems": 3,
                                                               "items": {"$ref": "#/components/schemas/Node"}},
                                                  "name": {"type": "string"}}}}},
            "paths": {"/api/x/{id}": {"post": {
                "operationId": "x", "tags": ["X"],
                "parameters": [{"name": "id", "in": "path", "schema": {"type": "string", "pattern": "^[a-z]{1,8}$"}},
                               {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1}}],
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Body"}}}}}}}}


def test_the_check_finds_each_kind_of_unbounded_input():
    doc = _schema({
        "name": {"type": "string"}, "capped": {"type": "string", "maxLength": 10},
        "kind": {"type": "string", "enum": ["a", "b"]}, "at": {"type": "string", "format": "date-time"},
        "slug": {"type": "string", "pattern": "^[a-z]+$"},
        "t": {"type": "array", "items": {"type": "number", "maximum": 1}},
        "rgb": {"type": "array", "maxItems": 4, "items": {"type": "array", "maxItems": 3, "items": {"type": "integer"}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 5}},
        "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "tree": {"$ref": "#/components/schemas/Node"},
    })
    assert [(field, missing) for _, _, field, missing in caps.violations(doc)] == [
        ("query.limit", "number without maximum"),
        ("body.name", "string without maxLength"),
        ("body.slug", "string without maxLength"),  # + is unbounded: the pattern bounds nothing
        ("body.t", "array without maxItems"),
        ("body.rgb[][]", "number without maximum"),
        ("body.labels", "map (additionalProperties) without maxProperties"),
        ("body.maybe", "string without maxLength"),
        ("body.tree.name", "string without maxLength"),  # once: the recursive Node is walked one level
    ]
