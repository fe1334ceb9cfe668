"""Demo privacy data (ops.demo): a completed export of the demo player, asked for by the demo admin, run by the real
worker, so that GET /api/privacy/requests and the export's download answer right after `make serve`."""

from ..core import users
from ..core.tenancy import ROLE_ADMIN, ROLE_PLAYER, Client
from . import models, service, worker
from . import repository as repo

EXPORT_ID = "demo-privacy-export"


def seed(client: Client) -> None:
    admin, player = users.first_member(client.client_id, ROLE_ADMIN), users.first_member(client.client_id, ROLE_PLAYER)
    if admin is None or player is None:
        return
    stored = repo.read(client.client_id, EXPORT_ID).data
    if stored is not None and stored["status"] == models.COMPLETED and stored.get("subject") and stored.get("archivePath"):
        return  # an archive the retention sweep expired is made again
    if stored is not None:
        repo.request_ref(client.client_id, EXPORT_ID).delete()
    subject = service.subject_of(client, player)
    record = service.new_record(client, service.Requester("user", admin, ROLE_ADMIN), models.EXPORT, subject,
                                request_id=EXPORT_ID)
    repo.create(record)
    worker.handle({"clientId": client.client_id, "requestId": EXPORT_ID})
