"""Responses against the OpenAPI document the stack serves: status documented, body fits its schema."""

import re
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import requests


class Contract:
    def __init__(self, document: dict[str, Any]):
        self.document = document
        self.operations: list[tuple[str, re.Pattern, str]] = []
        for path, item in document["paths"].items():
            # Trailing slashes are optional on every route (the apps do not redirect).
            pattern = re.compile("^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(path.rstrip("/"))) + "/?$")
            for method in item:
                self.operations.append((method.upper(), pattern, path))
        self.checked: set[tuple[str, str, str]] = set()

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        for op_method, pattern, template in self.operations:
            if op_method == method.upper() and pattern.match(path):
                return template, self.document["paths"][template][method.lower()]
        return None

    def check(self, response: requests.Response) -> None:
        """AssertionError when the answer is not one the document gives for that operation."""
        request = response.request
        path = urlsplit(request.url).path
        if not path.startswith("/api/"):
            return  # hosted pages and Storage URLs are not API operations
        found = self.operation(request.method, path)
        if found is None:
            # Only unknown paths and methods (the framework's 404/405) are outside the document.
            assert response.status_code in (404, 405), f"{request.method} {path} is not in the document"
            return
        template, op = found
        status = str(response.status_code)
        where = f"{request.method} {template} -> {status}"
        assert status in op["responses"], f"{where}: status not documented"
        documented = op["responses"][status]
        assert response.headers.get("x-request-id"), f"{where}: no x-request-id"
        content = documented.get("content")
        if content is None:
            assert not response.content, f"{where}: documented without a body"
            return
        assert response.headers.get("Content-Type", "").startswith("application/json"), f"{where}: not JSON"
        schema = {**content["application/json"]["schema"], "components": self.document["components"]}
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(response.json()), key=str)
        assert not errors, f"{where}: body breaks its schema: {errors[0].message} at {list(errors[0].absolute_path)}"
        self.checked.add((request.method, template, status))
