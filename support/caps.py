"""Which request inputs of the OpenAPI document can size work without a documented bound (issue 25).

Each operation's path and query parameters and its request body are walked through $ref, allOf/anyOf/oneOf, items,
properties and additionalProperties. A finding is "<where>: <field path> (<what is missing>)".

What counts as bounded:
- a string: maxLength; or an enum/const; or a format whose length is fixed by its grammar (FIXED_FORMATS: a
  date-time, date, time, uuid has nowhere to put a megabyte); or a pattern anchored at both ends with no unbounded
  repeat (`^[a-z]{1,40}$` bounds the length as surely as maxLength does).
- an array: maxItems. An object used as a map (additionalProperties other than false): maxProperties.
- an integer or number: maximum (or exclusiveMaximum), unless NUMBER_ALLOWED names it.
"""

import re
from collections.abc import Iterator
from typing import Any

FIXED_FORMATS = frozenset({"date-time", "date", "time", "uuid"})
# (operationId, field path) of numbers that size no work; empty: every number has a maximum so far.
NUMBER_ALLOWED: frozenset[tuple[str, str]] = frozenset()
_UNBOUNDED_REPEAT = re.compile(r"(?<!\\)[*+]|(?<!\\)\{\d*,\}")


def _bounded_pattern(pattern: str) -> bool:
    return pattern.startswith("^") and pattern.endswith("$") and not _UNBOUNDED_REPEAT.search(pattern)


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    ref = schema.get("$ref")
    if ref is None:
        return schema, None
    name = ref.rsplit("/", 1)[1]
    merged = {**components[name], **{k: v for k, v in schema.items() if k != "$ref"}}
    return merged, name


def unbounded(schema: dict[str, Any], components: dict[str, Any], where: str,
              seen: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
    """(field path, what is missing) for every unbounded input under schema."""
    schema, name = _resolve(schema, components)
    if name is not None:
        if name in seen:
            return  # a recursive model: its fields were walked once already on this path
        seen = seen | {name}
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key, []):
            yield from unbounded(part, components, where, seen)
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types} if types else set()
    if "enum" in schema or "const" in schema:
        return
    if "string" in types and "maxLength" not in schema and schema.get("format") not in FIXED_FORMATS \
            and not _bounded_pattern(schema.get("pattern", "")):
        yield where, "string without maxLength"
    if ("integer" in types or "number" in types) and "maximum" not in schema and "exclusiveMaximum" not in schema:
        yield where, "number without maximum"  # an int | float union is one finding, not two
    if "array" in types or "items" in schema or "prefixItems" in schema:
        if "maxItems" not in schema and "prefixItems" not in schema:
            yield where, "array without maxItems"
        for i, part in enumerate(schema.get("prefixItems", [])):
            yield from unbounded(part, components, f"{where}[{i}]", seen)
        if isinstance(schema.get("items"), dict):
            yield from unbounded(schema["items"], components, f"{where}[]", seen)
    for prop, sub in schema.get("properties", {}).items():
        yield from unbounded(sub, components, f"{where}.{prop}" if where else prop, seen)
    extra = schema.get("additionalProperties")
    if extra not in (None, False):
        if "maxProperties" not in schema:
            yield where or "(body)", "map (additionalProperties) without maxProperties"
        if isinstance(extra, dict):
            yield from unbounded(extra, components, f"{where}{{*}}", seen)


def violations(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(tag, "METHOD path", field path, what is missing) of every unbounded input of every operation."""
    components = document["components"]["schemas"]
    found = []
    for path, item in document["paths"].items():
        for method, op in item.items():
            operation = f"{method.upper()} {path}"
            tag = op["tags"][0]
            for param in op.get("parameters", []):
                for field, missing in unbounded(param["schema"], components, f"{param['in']}.{param['name']}"):
                    if (op["operationId"], field) not in NUMBER_ALLOWED:
                        found.append((tag, operation, field, missing))
            for content in op.get("requestBody", {}).get("content", {}).values():
                for field, missing in unbounded(content["schema"], components, "body"):
                    if (op["operationId"], field) not in NUMBER_ALLOWED:
                        found.append((tag, operation, field, missing))
    return list(dict.fromkeys(found))


def markdown(document: dict[str, Any]) -> str:
    """The violations grouped by area (the operation's tag, one Cloud Function each), for the engineers who fix them."""
    found = violations(document)
    lines = [f"# Unbounded request inputs: {len(found)} (python -m support.caps)", ""]
    for tag in dict.fromkeys(tag for tag, *_ in found):
        rows = [row for row in found if row[0] == tag]
        lines += [f"## {tag} ({len(rows)})", ""]
        lines += [f"- {operation}: {field} ({missing})" for _, operation, field, missing in rows]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    import pathlib
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "functions"))
    from wellness_api.openapi import document as openapi_document

    sys.stdout.write(markdown(openapi_document.build()))
