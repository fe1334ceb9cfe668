"""Where a request comes from: the host the caller used (CONTRACT 5) and the caller's address.

Hosting forwards the host the caller used as X-Forwarded-Host and sends its own Host to the
function, so X-Forwarded-Host is read first and Host only when it is absent (a direct call).

The caller's address keys per-caller rate limits. Proxies in front of the function append the
address they saw to X-Forwarded-For, and a caller can put anything in front of that, so the address
is the entry IDENTITY_TRUSTED_PROXY_HOPS places from the right (1 by default: the entry appended by
the proxy in front of the function); without enough entries it is the socket's peer address.
"""

import flask
from firebase_functions import params

from ..core import tenancy
from ..core.tenancy import Client

TRUSTED_PROXY_HOPS = params.IntParam(
    "IDENTITY_TRUSTED_PROXY_HOPS",
    default=1,
    description="How many proxies in front of the identity function append to X-Forwarded-For "
    "(the caller's address for per-caller rate limits is that many entries from the right).",
)


def request_host() -> str | None:
    headers = flask.request.headers
    return (headers.get("X-Forwarded-Host") or "").strip() or headers.get("Host")


def client_from_host() -> Client | None:
    client = tenancy.client_for_host(request_host())
    if client is not None:
        flask.g.client_id = client.client_id
    return client


def caller_address() -> str:
    entries = [part.strip() for part in flask.request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
    hops = TRUSTED_PROXY_HOPS.value
    if hops > 0 and len(entries) >= hops:
        return entries[-hops][:64]
    return flask.request.remote_addr or "unknown"
