"""Where API keys keep a person's data (core.personal_data): only which admin created a key."""

from ..core.personal_data import AreaDeclaration, ByField, Location

DECLARATION = AreaDeclaration("api_keys", (
    Location("keys", "clients/{clientId}/apiKeys/{keyId}", "authorship", ByField("createdBy", ("uid",)),
             "anonymise", fields=("createdBy",), note="server API keys the person created: the key stays"),
))
