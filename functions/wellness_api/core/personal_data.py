"""Where the platform keeps a person's data: the declarations that export, erasure and the write check run from.

Each area declares, in its own `personal_data.py`, a tuple of Location: a Firestore collection (path pattern
with `{placeholders}`), which fields may hold one of a person's ids, how the person's documents are found, what
kind of data they are and what erasure does to them, and which field names a Storage object that goes with the
document. `registry()` collects every area's declarations; nothing else in the platform may write a person's
uid, email or external id (tests/privacy and the suite-wide write check hold the areas to it).

A person (Subject) is known by their uid, email and external id within one client; `keys()` adds the derived
ids some areas key documents by (hashes of the uid or email used by the rate limits), so those are found too.
Paths use `{clientId}` for the client and any key name of Subject.keys() (`{uid}`, `{callerKey}`...); other
placeholders (`{sessionId}`) stand for any document id.
"""

import dataclasses
import hashlib
import importlib
from typing import Literal

from . import ratelimit

# What the data is: it decides the docs' wording and which retention setting (if any) applies.
#   identity    who the person is: profile, sign-in, external-id mapping
#   health      measurements and answers about the person's body (Vital Scan, fall risk, exercise results)
#   activity    what the person did (lesson plays, conversations, statistics, active days)
#   rollup      aggregate counters of a client: no identifier, counts kept on erasure
#   usage       metering and budget records: counts kept, the person's id dropped
#   authorship  the person as the author of a tenant's content, keys or media: the content stays, the id goes
#   ephemeral   rate-limit counters, leases, tokens that expire by themselves (TTL)
#   audit       the privacy requests about the person
# Export takes identity, health, activity, usage and audit documents whole; of authorship documents only the path
# and the fields naming the person (the content is the tenant's, and may be about someone else); ephemeral and
# rollup documents not at all.
Kind = Literal["identity", "health", "activity", "rollup", "usage", "authorship", "ephemeral", "audit"]
# What erasure does to a found document:
#   delete      the document (and its Storage object, and its sub-collections that are declared Under it)
#   anonymise   the `fields` holding the person's ids are set to null; the document and its counts stay
#   keep        nothing: it holds no identifier (rollups), declared so the docs and the write check know it
#   hash        (the audit trail only) the person's ids are replaced by their keyed hash
Erase = Literal["delete", "anonymise", "keep", "hash"]
# The ids a person is known by (Subject.keys()); an id that is None (no email, no external id) finds nothing.
IdName = Literal["uid", "email", "externalUserId", "callerKey", "accountKey", "inviteId"]
PERSON_IDS: tuple[IdName, ...] = ("uid", "email", "externalUserId")


@dataclasses.dataclass(frozen=True)
class ByDocId:
    """The document whose id is the person's `key` (`path`'s last segment is `{<key>}`)."""

    key: IdName = "uid"


@dataclasses.dataclass(frozen=True)
class ByField:
    """Documents of the collection where `field` (dotted for a map: "createdBy.uid") equals one of `ids`."""

    field: str
    ids: tuple[IdName, ...] = ("uid",)


@dataclasses.dataclass(frozen=True)
class ByIdPrefix:
    """Documents whose id starts with `prefix`, a template of the person's keys ("{uid}_", "assistant:{callerKey}:")."""

    prefix: str


@dataclasses.dataclass(frozen=True)
class InCollection:
    """Every document of the collection (its path has only the person's keys as placeholders, e.g. the
    lease collection rateLimits/slots:assistantUser:{callerKey}/slotLeases)."""


@dataclasses.dataclass(frozen=True)
class Under:
    """Every document of the sub-collection `path` under the documents found for `parent` (a location name of
    the same area): a conversation's messages, a content item's versions."""

    parent: str


@dataclasses.dataclass(frozen=True)
class Referencing:
    """Documents whose `field` equals the id of a document found for `parent` (same area): a session's token."""

    field: str
    parent: str


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """Never found per person: counters that hold no identifier (rollups)."""


Find = ByDocId | ByField | ByIdPrefix | InCollection | Under | Referencing | Aggregate


@dataclasses.dataclass(frozen=True)
class Location:
    name: str  # unique within the area ("sessions"); export's JSON names documents by it
    path: str  # document path pattern: "clients/{clientId}/aiMoveSessions/{sessionId}"
    kind: Kind
    find: Find
    erase: Erase
    # Fields that may hold one of the person's ids (dotted for nested maps). The write check allows a person's
    # id only in these fields (or as a path segment the pattern names) of documents matching `path`.
    fields: tuple[str, ...] = ()
    storage_field: str | None = None  # a field naming the Storage object that belongs to the document
    # Where `erase == "delete"` must not apply: documents whose `keep_if` field is truthy are anonymised
    # instead (a media job already attached to an exercise is the tenant's asset by then).
    keep_if: str | None = None
    retention: str | None = None  # the tenant setting that bounds how long it is kept (privacy-guard's sweep)
    # Fields left out of the person's export: ids of other people a document of theirs may hold (who recorded a
    # result for them, who attached their media).
    export_omit: tuple[str, ...] = ()
    note: str = ""  # one line for docs/privacy.md

    @property
    def collection(self) -> str:
        """The collection path pattern (the path without its last segment)."""
        return self.path.rsplit("/", 1)[0]

    @property
    def global_(self) -> bool:
        """Outside clients/{clientId}: a top-level collection shared by every client."""
        return not self.path.startswith("clients/{clientId}/")

    def collection_id(self) -> str:
        return self.collection.rsplit("/", 1)[-1]


@dataclasses.dataclass(frozen=True)
class StoragePrefix:
    """Storage objects under a prefix (a template of the person's keys) that belong to the person alone."""

    name: str
    prefix: str
    kind: Kind
    note: str = ""


@dataclasses.dataclass(frozen=True)
class AreaDeclaration:
    area: str  # the area's package name ("vital_scan"); the export's file and the report's key
    locations: tuple[Location, ...]
    storage: tuple[StoragePrefix, ...] = ()

    def location(self, name: str) -> Location:
        for location in self.locations:
            if location.name == name:
                return location
        raise KeyError(f"{self.area}: no location {name}")


@dataclasses.dataclass(frozen=True)
class Subject:
    """One person of one client, as the declarations find them."""

    client_id: str
    uid: str
    email: str | None = None
    external_user_id: str | None = None

    def keys(self) -> dict[str, str | None]:
        email = (self.email or "").strip().lower() or None
        return {
            "clientId": self.client_id,
            "uid": self.uid,
            "email": email,
            "externalUserId": self.external_user_id,
            # core.ratelimit's keys of the person: the assistant's per-user rate and slots, the password limit
            "callerKey": ratelimit.caller_key(self.client_id, self.uid),
            "accountKey": ratelimit.key_of(self.client_id, email) if email else None,
            # identity.repository.invite_id: an invitation's id, under the client's users (tests/privacy checks both
            # agree)
            "inviteId": "invite_" + hashlib.sha256(email.encode()).hexdigest()[:40] if email else None,
        }

    def ids(self) -> dict[str, str]:
        """The ids that must not survive an erasure (uid, email, external id), those that are set."""
        keys = self.keys()
        return {name: value for name in PERSON_IDS if (value := keys[name])}


def fill(template: str, keys: dict[str, str | None]) -> str | None:
    """`template` with the person's keys put in; None when it names a key the person has not got."""
    try:
        filled = template.format(**{k: v for k, v in keys.items() if v is not None})
    except KeyError:
        return None
    return filled


# Every area with personal data, in the order export and erasure visit them (identity last: the user record
# and the Auth user go once everything that hangs off them is gone, so an interrupted erasure can still
# find the person by their record when it resumes).
AREAS = (
    "vital_scan", "fall_risk", "ai_move", "lessons", "assistant", "media_generation", "content", "api_keys",
    "privacy", "identity",
)


def registry() -> tuple[AreaDeclaration, ...]:
    """Every area's declarations (imported on first use, so core does not depend on the areas)."""
    found = []
    for area in AREAS:
        module = importlib.import_module(f"wellness_api.{area}.personal_data")
        found.append(module.DECLARATION)
    return tuple(found)


def declaration(area: str) -> AreaDeclaration:
    for declared in registry():
        if declared.area == area:
            return declared
    raise KeyError(area)
