"""Handing a job to its worker: one Cloud Tasks task per execution, on the queue of the `mediajobworker`
task-queue function (main.py), through the Admin SDK (the Tasks emulator under `make serve` and the tests)."""

import secrets

from ..core import firebase
from ..core import logging as log

WORKER = "mediajobworker"
PROCESSOR = f"cloud-tasks/{WORKER}"
LOCATION = "us-central1"
# Cloud Tasks waits this long for the worker before it counts the attempt failed; the worker's own timeout
# (main.py) is the same, and a job's lease (worker.LEASE) a little longer.
DISPATCH_DEADLINE_SECONDS = 900


class QueueError(Exception):
    """The task could not be queued; the job is saved but will not run until it is retried."""


def new_event_id() -> str:
    """A queueEventId: names one execution of a job (a retry gets a new one)."""
    return secrets.token_hex(16)


def enqueue(client_id: str, job_id: str, queue_event_id: str) -> None:
    from firebase_admin import exceptions, functions

    queue = functions.task_queue(f"locations/{LOCATION}/functions/{WORKER}", app=firebase.app())
    # No task_id: the worker needs no de-duplication (it skips an execution that is not the job's current one),
    # and with one the Admin SDK misreads the Tasks emulator's answer (it drops a character of the task name).
    options = functions.TaskOptions(dispatch_deadline_seconds=DISPATCH_DEADLINE_SECONDS)
    try:
        queue.enqueue({"data": {"clientId": client_id, "jobId": job_id, "queueEventId": queue_event_id}},
                      options)
    except (exceptions.FirebaseError, ValueError, OSError) as exc:
        log.warning(f"media job not queued: {type(exc).__name__}: {exc}", clientId=client_id, jobId=job_id,
                    queueEventId=queue_event_id)
        raise QueueError(str(exc)) from None
    log.info("media job queued", clientId=client_id, jobId=job_id, queueEventId=queue_event_id)

