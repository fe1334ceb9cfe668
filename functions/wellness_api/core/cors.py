"""CORS for areas that browsers call cross-origin with a bearer token (fall risk, spec 4.3).

Credentials travel in the Authorization header, never in cookies, so any origin may call: the answer is
`Access-Control-Allow-Origin: *` without Allow-Credentials, and a page on another origin still needs a
valid token to do anything. Every answer carries the headers, errors included, so a browser app can read
the `{error}` of a 400 or 401 instead of seeing an opaque network failure.
"""

import flask

ALLOWED_HEADERS = "Authorization, Content-Type"
EXPOSED_HEADERS = "x-request-id"
PREFLIGHT_MAX_AGE_SECONDS = 600  # browsers cap it at 2 h (Chromium) or 24 h (Firefox); 10 min keeps changes quick


def enable(app: flask.Flask) -> None:
    """Answer preflights (OPTIONS) of the app's routes with 204, and add the CORS headers to every answer."""

    @app.before_request
    def _preflight() -> flask.Response | None:
        if flask.request.method != "OPTIONS":
            return None
        adapter = flask.current_app.create_url_adapter(flask.request)
        methods = sorted(set(adapter.allowed_methods()) - {"OPTIONS", "HEAD"}) if adapter else []
        if not methods:
            return None  # an unknown path: the area's 404
        response = flask.current_app.make_response(("", 204))
        del response.headers["Content-Type"]  # no body
        response.headers["Access-Control-Allow-Methods"] = ", ".join(methods)
        response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
        response.headers["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE_SECONDS)
        return response

    @app.after_request
    def _headers(response: flask.Response) -> flask.Response:
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response
