"""Where a request comes from: the host the caller used (CONTRACT 5) and the caller's address.

Hosting forwards the host the caller used as X-Forwarded-Host and sends its own Host to the
function, so X-Forwarded-Host is read first and Host only when it is absent (a direct call). Either
is validated as a hostname (core.tenancy.normalize_host) before it is looked up.

The caller's address keys per-caller rate limits. Every proxy in front of the function APPENDS the
address it received the request from to X-Forwarded-For, and whatever the caller sent stays in front
of those entries, so only entries counted from the right can be trusted:

    X-Forwarded-For: <anything the caller sent>, <client, appended by Hosting>, ... <appended by the last proxy>

Sources: Google Cloud's request-header reference for Cloud Functions
(https://cloud.google.com/functions/docs/reference/headers: "X-Forwarded-For: clientIp, proxy1Ip,
proxy2Ip", the client first, then each proxy that handled the request) and Fastly, the CDN that
serves Firebase Hosting, whose default is to append the address of the connecting client to the
header (`set req.http.X-Forwarded-For = req.http.X-Forwarded-For ", " client.ip`). The caller is the
entry IDENTITY_TRUSTED_PROXY_HOPS places from the right (default 1: the entry appended by the proxy
directly in front of the function); a header with fewer entries leaves the socket's peer address.

Firebase does not document how many proxies sit between Hosting's edge and a function, so the count
is a deployment parameter. If it is too small the limits count a proxy's address (callers behind one
edge share their budget: too strict, never bypassed); if it is too large they count an entry the
caller wrote (bypassed). Under the emulators no proxy appends anything (firebase-tools'
lib/hosting/proxy.js copies the caller's headers to the function, X-Forwarded-For included, and the
Functions emulator passes them on unchanged), so there every entry is the caller's own and none is
trusted: the count is 0 and every caller of the local stack is its socket peer.
"""

import os

import flask
from firebase_functions import params

from ..core import ratelimit, tenancy
from ..core.tenancy import Client

TRUSTED_PROXY_HOPS = params.IntParam(
    "IDENTITY_TRUSTED_PROXY_HOPS",
    default=1,
    description="How many proxies in front of the identity function append to X-Forwarded-For "
    "(the caller's address for per-caller rate limits is that many entries from the right).",
)
# No deployment has more proxies than this; a larger value is a mistake, not a reason to split more.
MAX_TRUSTED_PROXY_HOPS = 8


def request_host() -> str | None:
    headers = flask.request.headers
    return (headers.get("X-Forwarded-Host") or "").strip() or headers.get("Host")


def client_from_host() -> Client | None:
    client = tenancy.client_for_host(request_host())
    if client is not None:
        flask.g.client_id = client.client_id
    return client


def trusted_hops() -> int:
    if os.environ.get("FUNCTIONS_EMULATOR") == "true":
        return 0  # nothing in the local stack appends to X-Forwarded-For (see above)
    return max(0, min(TRUSTED_PROXY_HOPS.value, MAX_TRUSTED_PROXY_HOPS))


def caller_address() -> str:
    """The caller as per-caller limits count it (core.ratelimit.caller_network: an IPv4 address or an
    IPv6 /64)."""
    hops = trusted_hops()
    header = flask.request.headers.get("X-Forwarded-For", "")
    # Only the last `hops` entries matter: split from the right, so a long forged prefix costs nothing.
    entries = [part.strip() for part in header.rsplit(",", hops)[-hops:]] if hops else []
    if hops > 0 and len(entries) == hops and all(entries):
        return ratelimit.caller_network(entries[0])
    return ratelimit.caller_network(flask.request.remote_addr or "unknown")
