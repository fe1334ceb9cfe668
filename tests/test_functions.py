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


def test_the_rppg_measurement_has_its_own_function_and_the_rest_of_vital_scan_the_io_bound_one():
    import main

    assert _function_of("/api/hosted/vital-scan/measurement") == "vitalscanmeasure"
    for path in ("/api/hosted/vital-scan/session", "/api/hosted/vital-scan/start", "/api/v1/vital-scan/sessions"):
        assert _function_of(path) == "vitalscan", path
    measure, rest = main.SIZES["vitalscanmeasure"], main.SIZES["vitalscan"]
    assert measure.concurrency < rest.concurrency


def test_every_https_function_sets_its_cpu_and_concurrency_and_the_framework_a_thread_for_each():
    """Left unset, firebase-tools picks the cpu and concurrency, and the functions framework serves 4 requests per CPU
    at once whatever the concurrency: the others wait in gunicorn's queue."""
    import subprocess
    import sys

    import main

    https = {name for name, fn in vars(main).items()
             if getattr(getattr(fn, "__firebase_endpoint__", None), "httpsTrigger", None) is not None}
    assert https == set(main.SIZES)
    for name in https:
        endpoint = getattr(main, name).__firebase_endpoint__
        assert (endpoint.cpu, endpoint.concurrency) == (main.SIZES[name].cpu, main.SIZES[name].concurrency), name
    # The framework's own start-up, as the runtime runs it: import main.py for a target, then build the server.
    probe = ("import functions_framework\n"
             "from functions_framework._http.gunicorn import GunicornApplication\n"
             "app = functions_framework.create_app('lessons', 'main.py')\n"
             "print(GunicornApplication(app, '127.0.0.1', 0, False).cfg.threads)\n")
    env = {k: v for k, v in __import__("os").environ.items() if k != "THREADS"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT / "functions", capture_output=True, text=True,
                         check=True, env={**env, "FUNCTION_TARGET": "lessons"})
    assert out.stdout.split()[-1] == str(main.SIZES["lessons"].concurrency)
