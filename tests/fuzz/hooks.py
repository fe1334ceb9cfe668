"""Schemathesis hooks of the fuzz pass (SCHEMATHESIS_HOOKS=tests.fuzz.hooks, set by the runner).

The Functions emulator's pool sometimes hands a request to a Python worker that has gone away; Hosting then
answers 500 `{"code": "ECONNRESET"}` ("Request to function failed: Error: socket hang up" in the emulators'
log). No function of the platform answers that body: it is the emulator's, not a server error of ours. Such
an answer is sent again once, reported on stderr, and the second answer is what the checks see.
"""

import json
import sys

import requests
import schemathesis
from schemathesis.core.transport import Response

HANGUP_BODY = {"code": "ECONNRESET"}


def is_emulator_hangup(status: int, body: bytes) -> bool:
    if status != 500 or len(body) > 200:
        return False
    try:
        return json.loads(body) == HANGUP_BODY
    except ValueError:
        return False


@schemathesis.hook
def after_call(ctx, case, response):
    if not is_emulator_hangup(response.status_code, response.content):
        return
    with requests.Session() as session:
        again = session.send(response.request, timeout=30)
    print(f"[fuzz] the emulator dropped {response.request.method} {response.request.url} (socket hang up); "
          f"sent again once: {again.status_code}", file=sys.stderr, flush=True)
    fresh = Response.from_requests(again, response.verify)
    for slot in Response.__slots__:
        if slot != "request":
            setattr(response, slot, getattr(fresh, slot))
