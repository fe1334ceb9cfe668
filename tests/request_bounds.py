"""The request fields of an OpenAPI document that have no documented bound (issue 25): a string without maxLength
(an enum, a const or a date-time format is bounded), a number without maximum, an array without maxItems, a
map (additionalProperties) without maxProperties. Parameters and bodies, nested objects and items included."""

from typing import Any


def _walk(doc: dict, schema: dict, where: str, found: list[str], seen: frozenset = frozenset()) -> None:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        if name in seen:
            return
        seen = seen | {name}
        schema = doc["components"]["schemas"][name]
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            _walk(doc, sub, where, found, seen)
    kind = schema.get("type")
    bounded_text = any(key in schema for key in ("maxLength", "enum", "const", "format"))
    if kind == "string" and not bounded_text:
        found.append(f"{where}: string without maxLength")
    if kind in ("integer", "number") and not ({"maximum", "exclusiveMaximum", "enum", "const"} & set(schema)):
        found.append(f"{where}: number without maximum")
    if kind == "array":
        if "maxItems" not in schema:
            found.append(f"{where}: array without maxItems")
        _walk(doc, schema.get("items", {}), f"{where}[]", found, seen)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) or extra is True:
        if "maxProperties" not in schema:
            found.append(f"{where}: map without maxProperties")
        if isinstance(extra, dict):
            _walk(doc, extra, f"{where}{{}}", found, seen)
    for name, sub in schema.get("properties", {}).items():
        _walk(doc, sub, f"{where}.{name}", found, seen)


def unbounded_request_fields(doc: dict[str, Any], *path_prefixes: str) -> list[str]:
    """'METHOD path where: what is missing' for each unbounded request field of the operations under the prefixes."""
    found: list[str] = []
    for path, item in doc["paths"].items():
        if not path.startswith(path_prefixes):
            continue
        for method, operation in item.items():
            here: list[str] = []
            for param in operation.get("parameters", []):
                _walk(doc, param["schema"], f"{param['in']} {param['name']}", here)
            for content in (operation.get("requestBody") or {}).get("content", {}).values():
                _walk(doc, content["schema"], "body", here)
            found.extend(f"{method.upper()} {path} {entry}" for entry in here)
    return found
