"""HTTP routes of /api/clients/[clientId]/api-keys (4.7); caller: that client's admin or a platform admin."""

import flask

from ..core import auth, http, openapi
from ..core.openapi import ID_TOKEN, error
from . import service
from .models import CreateKeyBody, UpdateKeyBody
from .responses import ApiKeyList, CreatedApiKey, UpdatedApiKeys

app = http.create_app("api_keys")
api = openapi.Api(app, "API keys", errors=(
    error(401, "Missing, invalid or expired ID token, or a disabled user."),
    error(403, "Not an admin of this client nor a platform administrator."),
    error(404, "Client not found (platform administrators)."),
))
BUSY = error(503, "The client's keys were changed by too many requests at once; retry.")


def _list_response(keys: service.KeyList) -> dict:
    return {"apiKeys": keys.api_keys, "legacyPrimaryKeyId": keys.legacy_primary_key_id}


@api.get("/api/clients/<client_id>/api-keys", operation_id="listApiKeys", summary="List the client's API keys",
         description="Metadata only: raw keys are shown once, at creation.",
         security=[ID_TOKEN], responses={200: ApiKeyList})
def list_keys(client_id: str):
    auth.require_client_admin(client_id)
    return _list_response(service.list_keys(client_id))


@api.post("/api/clients/<client_id>/api-keys", operation_id="createApiKey", summary="Create an API key",
          description="Existing keys stay active. `makePrimary` makes the new key the legacy primary at once. "
                      "The body may be empty.",
          security=[ID_TOKEN], body=CreateKeyBody, example={"label": "backend-2026", "makePrimary": False},
          responses={201: CreatedApiKey},
          errors=[error(409, f"The client already has {service.MAX_ACTIVE_KEYS} active keys."), BUSY])
def create_key(client_id: str):
    principal = auth.require_client_admin(client_id)
    body = http.parse_body(CreateKeyBody, allow_empty=True)
    created = service.create_key(client_id, body.label, body.makePrimary, created_by=principal.uid)
    response = flask.jsonify(
        {"success": True, "apiKey": created.api_key, "secret": created.secret, "clientSecret": created.secret}
    )
    response.status_code = 201
    return response


@api.patch("/api/clients/<client_id>/api-keys/<key_id>", operation_id="updateApiKey",
           summary="Promote or revoke an API key",
           description="`promote` makes the key the legacy primary and revokes nothing. `revoke` disables the key "
                       "at once (and its client tokens); when it was primary, the newest remaining active key "
                       "becomes primary. The last active key cannot be revoked.",
           security=[ID_TOKEN], body=UpdateKeyBody, example={"action": "promote"},
           responses={200: UpdatedApiKeys},
           errors=[error(404, "API key not found."),
                   error(409, "The last active key cannot be revoked; only an active key can be promoted."), BUSY])
def update_key(client_id: str, key_id: str):
    auth.require_client_admin(client_id)
    body = http.parse_body(UpdateKeyBody)
    if body.action == "promote":
        keys = service.promote_key(client_id, key_id)
    else:
        keys = service.revoke_key(client_id, key_id)
    return {"success": True, **_list_response(keys)}
