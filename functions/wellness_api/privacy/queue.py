"""Handing a request to its worker: one Cloud Tasks task per request on the queue of the `privacyworker` task-queue
function (main.py). The task carries the client and request ids only: no person's ids ride in Cloud Tasks."""

from ..core import firebase
from ..core import logging as log

WORKER = "privacyworker"
LOCATION = "us-central1"
DISPATCH_DEADLINE_SECONDS = 540  # the worker's timeout (main.py)


class QueueError(Exception):
    pass


def enqueue(client_id: str, request_id: str) -> None:
    from firebase_admin import exceptions, functions

    queue = functions.task_queue(f"locations/{LOCATION}/functions/{WORKER}", app=firebase.app())
    options = functions.TaskOptions(dispatch_deadline_seconds=DISPATCH_DEADLINE_SECONDS)
    try:
        queue.enqueue({"data": {"clientId": client_id, "requestId": request_id}}, options)
    except (exceptions.FirebaseError, ValueError, OSError) as exc:
        log.warning(f"privacy request not queued: {type(exc).__name__}", clientId=client_id, requestId=request_id)
        raise QueueError(str(exc)) from None
    log.info("privacy request queued", clientId=client_id, requestId=request_id)
