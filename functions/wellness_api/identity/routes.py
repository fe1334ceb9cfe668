"""HTTP routes of the identity area."""

from ..core import http
from ..core.http import BodyError
from . import client_token

app = http.create_app("identity")


@app.post("/api/client/token")
def issue_client_token():
    try:
        body = http.parse_body(client_token.ClientTokenBody)
    except BodyError as err:
        if err.kind == "missing":
            err.message = f"{err.field} is required."
        raise
    return {"token": client_token.issue(body)}
