"""GET /api/health and GET /api/openapi.json: the platform's own two routes."""

import flask
from pydantic import BaseModel, ConfigDict, Field

from ..core import http, openapi
from ..core.errors import ApiError

app = http.create_app("platform")
api = openapi.Api(app, "Platform")

# Hosting rewrites every path under /api/ that no area claims to this app (firebase.json's last rewrite), so a
# mistyped path is a JSON 404 a program can read, not Hosting's HTML page.
NO_SUCH_OPERATION = "Not found: no operation of the API at this path. Every operation is listed at /api/openapi.json and /docs."


@app.errorhandler(404)
def _no_such_operation(_exc):
    return http.error_response(ApiError(404, NO_SUCH_OPERATION))


class Health(openapi.Closed):
    """The stack can serve."""

    status: str = Field(description='Always "ok".')


class OpenApiDocument(BaseModel):
    """This OpenAPI 3.1 document."""

    model_config = ConfigDict(extra="allow")
    openapi: str
    info: dict
    paths: dict


@api.get("/api/health", operation_id="getHealth", summary="Health check", responses={200: Health})
def health():
    return {"status": "ok"}


@api.get("/api/openapi.json", operation_id="getOpenApiDocument", summary="This OpenAPI document",
         description="Generated from the pydantic models the handlers parse and answer with.",
         responses={200: OpenApiDocument})
def openapi_document():
    from . import document

    response = flask.jsonify(document.build())
    response.headers["Cache-Control"] = "public, max-age=60"
    return response

