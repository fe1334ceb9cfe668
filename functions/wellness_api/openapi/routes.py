"""GET /api/health and GET /api/openapi.json: the platform's own two routes."""

import flask
from pydantic import BaseModel, ConfigDict, Field

from ..core import http, openapi

app = http.create_app("platform")
api = openapi.Api(app, "Platform")


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

