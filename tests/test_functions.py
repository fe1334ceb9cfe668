"""functions/main.py against firebase.json and the OpenAPI document: every operation reaches a function that
can verify its credentials once deployed."""

import json
import pathlib
import re

from wellness_api.openapi import document

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _function_of(path: str) -> str:
    """The function Hosting rewrites `path` to (the first matching rewrite, as Hosting picks it)."""
    rewrites = json.loads((ROOT / "firebase.json").read_text())["hosting"]["rewrites"]
    concrete = re.sub(r"{[^}]+}", "x", path)
    for rewrite in rewrites:
        pattern = re.escape(rewrite["source"]).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
        if "function" in rewrite and re.fullmatch(pattern, concrete):
            return rewrite["function"]["functionId"]
    raise AssertionError(f"no rewrite reaches {path}")


def test_every_function_that_accepts_client_tokens_is_given_their_secret():
    # Deployed, a function sees only the secrets it declares (the emulator hides a missing one: it loads all of
    # functions/.secret.local into every function), and verifying a client token needs CLIENT_JWT_SECRET.
    import main

    for op in document.operations():
        if "clientToken" not in op.security:
            continue
        function = getattr(main, _function_of(op.path))
        declared = {s["key"] for s in function.__firebase_endpoint__.secretEnvironmentVariables or []}
        assert "CLIENT_JWT_SECRET" in declared, f"{op.method} {op.path} -> {_function_of(op.path)}"
