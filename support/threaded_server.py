"""main.py's HTTPS functions served from this process by a threaded WSGI server, as Cloud Run serves a function
whose concurrency is above 1: one process, the functions framework's Flask app around the function (the same
routes, error handler and after-request body read as functions_framework.create_app), a thread per request in
flight (gunicorn's gthread worker in production, werkzeug's threaded server here).

Used by tests/test_threaded_serving.py (safety under concurrent mixed traffic) and bench/concurrency.py
(throughput per function at concurrency 1, 8, 32).
"""

import contextlib
import json
import pathlib
import re
import threading

import flask
import functions_framework
import werkzeug.serving
import werkzeug.wsgi
from functions_framework import execution_id

ROOT = pathlib.Path(__file__).resolve().parents[1]


def function_app(function) -> flask.Flask:
    """What functions_framework.create_app builds around an HTTPS function, for a function already imported."""
    app = flask.Flask(function.__name__)
    app.register_error_handler(500, functions_framework.crash_handler)
    functions_framework._configure_app(app, function, "http")
    app.wsgi_app = execution_id.WsgiMiddleware(app.wsgi_app)
    return app


class Rewrites:
    """firebase.json's Hosting rewrites: the function Hosting hands a path to (the first match wins)."""

    def __init__(self):
        rewrites = json.loads((ROOT / "firebase.json").read_text())["hosting"]["rewrites"]
        self.rules = [(re.compile(re.escape(r["source"]).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")),
                       r["function"]["functionId"]) for r in rewrites if "function" in r]

    def function_of(self, path: str) -> str | None:
        return next((fid for pattern, fid in self.rules if pattern.fullmatch(path)), None)


def hosting_app(names: list[str] | None = None):
    """One WSGI app that routes each request as Hosting would to its function's app (all functions, or `names`)."""
    import main

    rewrites = Rewrites()
    apps = {name: function_app(getattr(main, name)) for name in {fid for _, fid in rewrites.rules}
            if names is None or name in names}

    def wsgi(environ, start_response):
        app = apps.get(rewrites.function_of(environ.get("PATH_INFO", "")))
        if app is None:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"no function serves this path here"]
        return app(environ, start_response)

    return wsgi


def _bounded_body(app):
    """The request body as gunicorn hands it over: a stream that ends at Content-Length, shared by every reader.

    The functions framework reads the body again after the function's answer (read_request), through its own Request
    over the same wsgi.input; on werkzeug's raw socket stream that second read waited for bytes that never come."""

    def wsgi(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        environ["wsgi.input"] = werkzeug.wsgi.LimitedStream(environ["wsgi.input"], length)
        environ["wsgi.input_terminated"] = True
        return app(environ, start_response)

    return wsgi


class _Quiet(werkzeug.serving.WSGIRequestHandler):
    def log_request(self, *args, **kwargs):  # the platform writes its own access log line
        pass


@contextlib.contextmanager
def serving(wsgi_app):
    """The app behind werkzeug's threaded server on a free local port; yields its base URL."""
    server = werkzeug.serving.make_server("127.0.0.1", 0, _bounded_body(wsgi_app), threaded=True, request_handler=_Quiet)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="threaded-functions", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
