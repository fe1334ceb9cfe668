"""Which exceptions are infrastructure failures (7.6's 503 rows), and the 503 errors of the area."""

from google.api_core import exceptions as gexc
from google.auth import exceptions as auth_exc

from ..core.errors import ApiError

ENTITLEMENT_UNAVAILABLE = "entitlement_unavailable"
RATE_LIMIT_UNAVAILABLE = "rate_limit_unavailable"
CREATION_UNAVAILABLE = "vital_scan_creation_unavailable"
COMMIT_OUTCOME_UNKNOWN = "commit_outcome_unknown"

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


def unavailable(code: str | None, message: str = UNAVAILABLE_MESSAGE) -> ApiError:
    # No Retry-After: partners must not retry a create automatically after a 5xx (4.8 rule 1).
    return ApiError(503, message, code=code)
