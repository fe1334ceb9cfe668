"""Where identity keeps a person's data (core.personal_data).

The user record is the person (profile, role, birth date, sex, the latest fall-risk outcome) and, for a partner's
user, the external-id mapping: an external user's uid is derived from (clientId, externalUserId), so the record
(`externalUserId`) is the only place the mapping is written down. An invitation is kept under a hash of the email
until it is accepted. The Auth user (outside Firestore) goes with the record. The password limit counts failures
per account under a hash of (client, email).
"""

from ..core.personal_data import AreaDeclaration, ByDocId, ByIdPrefix, Location

DECLARATION = AreaDeclaration("identity", (
    Location("user", "clients/{clientId}/users/{uid}", "identity", ByDocId("uid"), "delete",
             fields=("uid", "email", "externalUserId"),
             note="the member: email, name, role, status, birth date, sex, external id, latest fall-risk outcome"),
    Location("invite", "clients/{clientId}/users/{inviteId}", "identity", ByDocId("inviteId"), "delete",
             fields=("email",), note="an invitation awaiting its first sign-in (its id: a hash of the email)"),
    Location("passwordLimit", "rateLimits/{counterId}", "ephemeral", ByIdPrefix("passwordAccount:{accountKey}:"),
             "delete", note="failed password sign-ins per account and window (TTL an hour after the window)"),
))
