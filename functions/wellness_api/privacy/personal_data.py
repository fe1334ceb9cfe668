"""Where the privacy area keeps a person's data (core.personal_data): the requests about them, and the archive of
an export. After an erasure the requests stay as the audit trail, naming the person only by a keyed hash."""

from ..core.personal_data import AreaDeclaration, ByField, Location

_SUBJECT = ("subject.uid", "subject.email", "subject.externalUserId", "requestedBy.uid")

DECLARATION = AreaDeclaration("privacy", (
    Location("requests", "clients/{clientId}/privacyRequests/{requestId}", "audit", ByField("subject.uid", ("uid",)),
             "hash", fields=_SUBJECT, storage_field="archivePath", export_omit=("requestedBy.uid",),
             note="export and erasure requests about the person; an export's archive (deleted on erasure)"),
    Location("requested", "clients/{clientId}/privacyRequests/{requestId}", "authorship",
             ByField("requestedBy.uid", ("uid",)), "hash", fields=_SUBJECT,
             note="requests the person made as an admin: their id is replaced by its keyed hash"),
))
