"""Which exceptions are infrastructure failures (7.6's 503 rows), and the 503 errors of the area."""

from google.api_core import exceptions as gexc
from google.auth import exceptions as auth_exc

from ..core.errors import ApiError

ENTITLEMENT_UNAVAILABLE = "entitlement_unavailable"
RATE_LIMIT_UNAVAILABLE = "rate_limit_unavailable"
CREATION_UNAVAILABLE = "vital_scan_creation_unavailable"
COMMIT_OUTCOME_UNKNOWN = "commit_outcome_unknown"
# Not in 7.6's list: a 503 of GET, DELETE or the hosted endpoints (the session store could not be read or
# written, or a session kept changing under the request). 7.6 exempts only 404, the per-session polling
# 429 and 500 from carrying a code, so every 503 carries one; none of the listed codes names this.
VITAL_SCAN_UNAVAILABLE = "vital_scan_unavailable"

UNAVAILABLE_MESSAGE = "Vital Scan is temporarily unavailable; retry later."
ACCESS_UNAVAILABLE_MESSAGE = "Workspace access to Vital Scan could not be checked; retry later."
RATE_LIMIT_UNAVAILABLE_MESSAGE = "The request rate could not be checked; retry later."
CREATION_UNAVAILABLE_MESSAGE = "The session could not be created right now; no point was used. Retry later."
COMMIT_UNKNOWN_MESSAGE = (
    "The session may or may not have been created. Do not retry automatically; a new request creates "
    "another session."
)

# Client-side errors of our own making are bugs (500), not unavailability.
_NOT_INFRASTRUCTURE = (gexc.InvalidArgument, gexc.NotFound, gexc.AlreadyExists, gexc.Conflict)


def is_infrastructure(exc: BaseException) -> bool:
    """A Firestore/transport failure: the dependency is unavailable, not our logic broken."""
    if isinstance(exc, _NOT_INFRASTRUCTURE):
        return False
    return isinstance(exc, gexc.GoogleAPIError | auth_exc.TransportError | ConnectionError | TimeoutError)


def is_ambiguous_commit(exc: BaseException) -> bool:
    """A failure after which a commit may or may not have been applied."""
    return isinstance(exc, gexc.DeadlineExceeded | gexc.ServiceUnavailable | gexc.InternalServerError
                      | gexc.Unknown | gexc.RetryError | gexc.GatewayTimeout | ConnectionError | TimeoutError)


def unavailable(code: str | None = VITAL_SCAN_UNAVAILABLE, message: str = UNAVAILABLE_MESSAGE) -> ApiError:
    """A 503 that always carries a code (7.6); without a more specific one it is vital_scan_unavailable."""
    # No Retry-After: partners must not retry a create automatically after a 5xx (4.8 rule 1).
    return ApiError(503, message, code=code or VITAL_SCAN_UNAVAILABLE)
