"""HTTP routes of /api/clients/[clientId]/api-keys (4.7); caller: that client's admin or a platform admin."""

import flask

from ..core import auth, http
from . import service
from .models import CreateKeyBody, UpdateKeyBody

app = http.create_app("api_keys")


def _list_response(keys: service.KeyList) -> dict:
    return {"apiKeys": keys.api_keys, "legacyPrimaryKeyId": keys.legacy_primary_key_id}


@app.get("/api/clients/<client_id>/api-keys")
def list_keys(client_id: str):
    auth.require_client_admin(client_id)
    return _list_response(service.list_keys(client_id))


@app.post("/api/clients/<client_id>/api-keys")
def create_key(client_id: str):
    principal = auth.require_client_admin(client_id)
    body = http.parse_body(CreateKeyBody, allow_empty=True)
    created = service.create_key(client_id, body.label, body.makePrimary, created_by=principal.uid)
    response = flask.jsonify(
        {"success": True, "apiKey": created.api_key, "secret": created.secret, "clientSecret": created.secret}
    )
    response.status_code = 201
    return response


@app.patch("/api/clients/<client_id>/api-keys/<key_id>")
def update_key(client_id: str, key_id: str):
    auth.require_client_admin(client_id)
    body = http.parse_body(UpdateKeyBody)
    if body.action == "promote":
        keys = service.promote_key(client_id, key_id)
    else:
        keys = service.revoke_key(client_id, key_id)
    return {"success": True, **_list_response(keys)}
