"""What the privacy endpoints answer with; the handlers' bodies are checked against these."""

from typing import Literal

from pydantic import Field

from ..core.openapi import Closed


class Subject(Closed):
    uid: str | None
    email: str | None
    externalUserId: str | None


class RequestedBy(Closed):
    kind: Literal["user", "operator"] = Field(description="user: an ID token (the person or an admin); operator: "
                                                          "platformctl.")
    uid: str | None = Field(description="null for the operator, and once the requester was erased.")
    role: str | None


class AreaProgress(Closed):
    status: Literal["running", "done"]
    count: int | None = Field(default=None, description="export: documents of the area in the archive.")
    deleted: int | None = Field(default=None, description="erase: documents (and files) deleted so far.")
    anonymised: int | None = Field(default=None, description="erase: documents whose ids of the person were removed.")


class AreaReport(Closed):
    deleted: int
    anonymised: int


class PrivacyRequest(Closed):
    """An export or erasure request: its progress, and its outcome."""

    requestId: str
    type: Literal["export", "erase"]
    status: Literal["queued", "running", "completed", "failed"]
    subject: Subject | None = Field(description="Who the request is about; null once they are erased.")
    subjectHash: str = Field(description="The keyed hash (HMAC-SHA256, 128 bits) of the person's uid: the same uid "
                                         "always hashes alike within the client; it cannot be turned back into the uid.")
    requestedBy: RequestedBy
    createdAt: str
    updatedAt: str
    startedAt: str | None
    completedAt: str | None
    progress: dict[str, AreaProgress] = Field(description="Per area, as the task goes.")
    manifest: dict[str, int] | None = Field(description="export, once completed: documents per area in the archive.")
    report: dict[str, AreaReport] | None = Field(description="erase, once completed: counts per area, no personal data.")
    truncated: list[str] = Field(description="export: areas whose documents went past the per-area cap.")
    archiveBytes: int | None
    downloadUrl: str | None = Field(description="export, completed: a link to the archive that works without "
                                                "credentials for 15 minutes (a fresh one with every read).")
    downloadExpiresAt: str | None
    archiveExpiredAt: str | None = Field(description="export: when the retention sweep deleted the archive "
                                                     "(privacy.exportRetentionDays after it completed); from then on "
                                                     "no downloadUrl, and links handed out before answer 404.")
    error: str | None


class PrivacyRequestAnswer(Closed):
    request: PrivacyRequest


class PrivacyRequestList(Closed):
    """The client's privacy requests, newest first (the audit trail)."""

    requests: list[PrivacyRequest]
    nextStartAfter: str | None
