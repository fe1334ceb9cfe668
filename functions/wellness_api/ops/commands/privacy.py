"""`user export` and `user erase` (CONTRACT section 3): a privacy request about one member, as an operator.

The request is queued for the `privacyworker` task as the API's are; `--wait` then runs it here unless a worker has
already taken it (the worker's lease decides), and waits for it to finish either way.
"""

import time

from ..cli import CliError, existing_client
from .identity import _user_commands

WAIT_SECONDS = 900  # the longest a --wait waits: more than the worker's own timeout
POLL_SECONDS = 1.0


def _request(args, kind: str) -> dict:
    from ...core.errors import ApiError
    from ...privacy import models, service, worker
    from ...privacy import repository as repo

    client = existing_client(args.client_id)
    if len(args.uid) > models.MAX_UID:
        raise CliError(f"--uid: at most {models.MAX_UID} characters")
    try:
        record, _ = service.create(client, service.OPERATOR, kind, args.uid)
    except ApiError as exc:
        raise CliError(exc.message) from None
    if args.wait:
        deadline = time.monotonic() + WAIT_SECONDS
        while record["status"] in models.OPEN:
            try:
                worker.handle({"clientId": client.client_id, "requestId": record["requestId"]})
            except worker.LeaseHeld:
                time.sleep(POLL_SECONDS)  # a worker of the task queue is on it
            except Exception as exc:  # noqa: BLE001 - the attempt is recorded; the task queue retries it
                raise CliError(f"privacy request {record['requestId']} attempt failed: {type(exc).__name__}") from None
            record = repo.read(client.client_id, record["requestId"]).existing()  # requests are never deleted
            if time.monotonic() > deadline:
                raise CliError(f"privacy request {record['requestId']} still {record['status']} after "
                               f"{WAIT_SECONDS} s")
        if record["status"] == models.FAILED:
            raise CliError(f"privacy request {record['requestId']} failed: {record.get('error')}")
    out = {"requestId": record["requestId"], "status": record["status"]}
    if kind == models.EXPORT:
        link = service.download_link(record)
        if link is not None:
            out["downloadUrl"] = link[0]
        out["manifest"] = record.get("manifest") or {}
    else:
        out["report"] = record.get("report") or {}
    return out


def user_export(args) -> dict:
    return _request(args, "export")


def user_erase(args) -> dict:
    return _request(args, "erase")


def register(groups) -> None:
    users = _user_commands(groups)
    p = users.add_parser("export", help="export everything the platform holds about a member into one archive "
                                        "(prints the request; --wait: once it has finished, with a 15-minute link)")
    p.add_argument("--client-id", required=True)
    p.add_argument("--uid", required=True)
    p.add_argument("--wait", action="store_true", help="return once the export has finished")
    p.set_defaults(handler=user_export)
    p = users.add_parser("erase", help="erase a member: every document and file about them deleted or anonymised, "
                                       "then their Auth user (prints the request; --wait: with its report)")
    p.add_argument("--client-id", required=True)
    p.add_argument("--uid", required=True)
    p.add_argument("--wait", action="store_true", help="return once the erasure has finished")
    p.set_defaults(handler=user_erase)
