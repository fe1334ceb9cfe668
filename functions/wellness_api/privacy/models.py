"""Request bodies, queries, statuses and caps of the privacy requests (every cap is checked before any work)."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.bounds import QueryRange

EXPORT, ERASE = "export", "erase"
QUEUED, RUNNING, COMPLETED, FAILED = "queued", "running", "completed", "failed"
OPEN = (QUEUED, RUNNING)
TYPES = (EXPORT, ERASE)
STATUSES = (QUEUED, RUNNING, COMPLETED, FAILED)

MAX_ID = 64  # core.tenancy.valid_id: uids, request ids
MAX_UID = 128  # Firebase Auth's own cap on a uid
PAGE_DEFAULT, PAGE_MAX = 20, 100
MAX_OPEN_PER_CLIENT = 20  # requests queued or running at once per client
MAX_TOKEN = 512  # a download token is about 150 characters
DOWNLOAD_MINUTES = 15

Id = Annotated[str, Field(min_length=1, max_length=MAX_ID, pattern=r"^[A-Za-z0-9_-]+$")]
Uid = Annotated[str, Field(min_length=1, max_length=MAX_UID)]


class CreateRequestBody(BaseModel):
    """POST /api/privacy/requests."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["export", "erase"] = Field(description="export: an archive of everything the platform holds "
                                                         "about the person; erase: all of it deleted or anonymised.")
    uid: Uid = Field(description="The person: a member of the caller's client (an admin), or the caller themself.")


class RequestsQuery(BaseModel):
    """GET /api/privacy/requests: the client's audit trail, newest first."""

    limit: Annotated[int, QueryRange(ge=1, le=PAGE_MAX)] = Field(default=PAGE_DEFAULT, description=f"Page size, 1 to {PAGE_MAX}.")
    startAfter: Id | None = Field(default=None, description="The requestId of the last request of the previous page.")
    type: Literal["export", "erase"] | None = None
    status: Literal["queued", "running", "completed", "failed"] | None = None
    uid: Uid | None = Field(default=None, description="Only the requests about this uid, matched by its keyed hash: "
                                                      "answers \"was this person erased?\" after the erasure too.")
