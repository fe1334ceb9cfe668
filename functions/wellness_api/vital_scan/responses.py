"""What Vital Scan answers with (2.12, 4.8, 7.6, CONTRACT 4); the handlers' bodies are checked against these.

The metrics model is generated from metrics.SCHEMA, the whitelist every stored result passes through,
so the document and the stored results cannot disagree about a name or a type.
"""

from typing import Any, Literal

import pydantic
from pydantic import ConfigDict, Field

from ..core.openapi import Closed, NestedError
from . import metrics


def _metric_type(kind: Any, name: str) -> Any:
    if isinstance(kind, dict):
        fields: dict[str, Any] = {member: (_metric_type(sub, f"{name}_{member}"), None) for member, sub in kind.items()}
        return pydantic.create_model(f"Metrics_{name}", __config__=ConfigDict(extra="forbid"), **fields)
    return {metrics.NUMBER: float, metrics.STRING: str, metrics.NUMBERS_OR_STRING: list[float] | str}[kind]


_METRIC_FIELDS: dict[str, Any] = {name: (_metric_type(kind, name), None) for name, kind in metrics.SCHEMA.items()}
VitalScanMetrics = pydantic.create_model(
    "VitalScanMetrics",
    __config__=ConfigDict(extra="forbid"),
    __doc__="Every measurement is optional: an unavailable one is absent, never zero or null (2.12).",
    **_METRIC_FIELDS,
)


class SessionError(Closed):
    message: str


class VitalScanSession(Closed):
    """A Vital Scan session (2.12)."""

    vitalScanResultId: str
    userId: str | None
    status: Literal["created", "in_progress", "completed", "failed", "expired"]
    createdAt: str
    updatedAt: str
    expiresAt: str = Field(description="Two hours after createdAt.")
    startedAt: str | None
    completedAt: str | None
    failedAt: str | None
    returnUrl: str | None
    error: SessionError | None = Field(description="Only when failed.")
    metrics: VitalScanMetrics | None = Field(description="Only when completed with a stored result; may be "
                                                         "empty or partial.")


class NewVitalScanSession(VitalScanSession):
    """A new session (2.12) with its vitalScanUrl; one point was used."""

    vitalScanUrl: str = Field(description="Give it only to the intended user, in a top-level window or WebView, "
                                          "with the fragment (the scanToken) intact. Never log or store it.")


class CreatedSession(Closed):
    """The new session, with its vitalScanUrl; one point was used."""

    data: NewVitalScanSession


class SessionResult(Closed):
    """The session, without vitalScanUrl; no point is used."""

    data: VitalScanSession


class InsufficientCredits(NestedError):
    """No point remains in the current cycle."""

    remaining: int
    cycleId: str
    resetsAt: str


RETRIES_LEFT = "How many more scans may still be answered \"try again\"; at 0 the next measurement completes the session."


class HostedSession(Closed):
    """The token's session as the hosted page may see it: no user id, no health data."""

    status: Literal["created", "in_progress", "completed", "failed", "expired"]
    locale: str
    expiresAt: str
    returnUrl: str | None
    retriesLeft: int = Field(ge=0, description=RETRIES_LEFT)


class MeasurementResult(Closed):
    """The session is completed with the metrics the trace supports (omitted where the signal is too poor);
    or, when the trace supports nothing and a new scan would help, it stays in_progress with `retry` saying
    what to change (dark, motion, weak, short) and costs no point; or, when the page is still recording
    (`recording: true`) and the trace has a heart rate but no breathing rate, it stays in_progress with
    `scanOn`: the page sends the whole, longer trace of the same capture next."""

    status: Literal["completed", "in_progress"]
    metrics: VitalScanMetrics | None = None
    redirectUrl: str | None = Field(default=None,
                                    description="returnUrl with vital_scan_session_id and status=completed.")
    retry: Literal["dark", "motion", "weak", "short"] | None = Field(
        default=None, description="Only with status in_progress: why the scan gave nothing and should be repeated.")
    retriesLeft: int | None = Field(default=None, ge=0, description="Only with status in_progress. " + RETRIES_LEFT)
    scanOn: Literal["rr"] | None = Field(
        default=None, description="Only with status in_progress: the metric a longer trace of the same capture may "
                                  "add; the first part's metrics are kept for the session.")


class FailResult(Closed):
    """The session is failed; the point is not refunded."""

    status: Literal["failed"]


class ExitResult(Closed):
    """Where the page navigates: returnUrl with status=exited, or null without returnUrl."""

    redirectUrl: str | None
