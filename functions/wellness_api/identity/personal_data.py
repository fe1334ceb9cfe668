"""Where identity keeps a person's data (core.personal_data).

The user record is the person (profile, role, birth date, sex, the latest fall-risk outcome) and, for a partner's
user, the external-id mapping: an external user's uid is derived from (clientId, externalUserId), so the record
(`externalUserId`) is the only place the mapping is written down. An invitation is kept under a hash of the email
until it is accepted. The Auth user (outside Firestore) goes with the record. The password limit counts failures
per account under a hash of (client, email). An erasure of a partner's user leaves a tombstone that holds no
personal data in the clear: its id is the privacy audit trail's keyed hash of the external id, its only field the
generation of the uid that id signs in as next, so it is never found per person, exported or erased (a second
erasure moves it on).
"""

from ..core.personal_data import Aggregate, AreaDeclaration, ByDocId, ByIdPrefix, Location

DECLARATION = AreaDeclaration("identity", (
    Location("user", "clients/{clientId}/users/{uid}", "identity", ByDocId("uid"), "delete",
             fields=("uid", "email", "externalUserId"),
             note="the member: email, name, role, status, birth date, sex, external id, latest fall-risk outcome"),
    Location("invite", "clients/{clientId}/users/{inviteId}", "identity", ByDocId("inviteId"), "delete",
             fields=("email",), note="an invitation awaiting its first sign-in (its id: a hash of the email)"),
    Location("passwordLimit", "rateLimits/{counterId}", "ephemeral", ByIdPrefix("passwordAccount:{accountKey}:"),
             "delete", note="failed password sign-ins per account and window (TTL an hour after the window)"),
    Location("externalTombstone", "clients/{clientId}/externalUserTombstones/{tombstoneId}", "identity", Aggregate(),
             "keep", note="an erased partner's user: a keyed hash of the external id (no id in the clear) and the "
                          "generation of its next uid; kept, so the id never signs in as the erased uid again"),
))
