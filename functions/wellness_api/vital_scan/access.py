"""The common access boundary of the partner API, run before every handler (7.6):
API key -> workspace (401), product access (403), workspace request rate (429), in that order.
"""

import dataclasses

import flask

from ..core import auth, clock, server_keys, tenancy
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import failures, ratelimit
from . import repository as repo

INVALID_API_KEY = "invalid_api_key"
INVALID_API_KEY_MESSAGE = "Missing or invalid API key."
RATE_LIMIT_EXCEEDED = "rate_limit_exceeded"

# vitalScan.access (CONTRACT 3) -> (error.code, message). modules.vitalScan false is product_not_available.
PRODUCT_NOT_AVAILABLE = ("product_not_available", "Vital Scan is not available for this workspace.")
ACCESS_DENIALS = {
    "productNotAvailable": PRODUCT_NOT_AVAILABLE,
    "notEntitled": ("product_not_entitled", "This API key is not entitled to Vital Scan."),
    "entitlementInactive": ("entitlement_inactive", "The Vital Scan entitlement of this workspace is not active."),
    "entitlementExpired": ("entitlement_expired", "The Vital Scan entitlement of this workspace has expired."),
    "freeMembershipRequired": ("free_membership_required",
                               "An active free membership is required to use Vital Scan."),
}


@dataclasses.dataclass(frozen=True)
class Workspace:
    client: Client
    key: server_keys.KeyMatch

    @property
    def client_id(self) -> str:
        return self.client.client_id


def rate_limit_message(limit: int, retry_after: int) -> str:
    return (f"Rate limit exceeded: this workspace may make {limit} Vital Scan requests per minute. "
            f"Retry after {retry_after} seconds.")


def open_workspace() -> Workspace:
    """Authenticate the bearer API key, check access and count the call; raises the boundary's errors."""
    try:
        match = server_keys.authenticate(auth.bearer_token())
        client = tenancy.get_client(match.client_id) if match else None
    except Exception as exc:
        if failures.is_infrastructure(exc):
            raise failures.unavailable(failures.ENTITLEMENT_UNAVAILABLE, failures.ACCESS_UNAVAILABLE_MESSAGE) from exc
        raise
    if match is None or client is None:
        raise ApiError(401, INVALID_API_KEY_MESSAGE, code=INVALID_API_KEY)
    flask.g.client_id = client.client_id
    check_access(client)
    enforce_rate(client)
    server_keys.touch(match)
    return Workspace(client, match)


def check_access(client: Client) -> None:
    if not client.setting("modules.vitalScan"):
        raise ApiError(403, PRODUCT_NOT_AVAILABLE[1], code=PRODUCT_NOT_AVAILABLE[0])
    denial = ACCESS_DENIALS.get(client.setting("vitalScan.access"))
    if denial is not None:
        raise ApiError(403, denial[1], code=denial[0])


def enforce_rate(client: Client) -> ratelimit.Verdict:
    """Count this call in the workspace's window; 429 rate_limit_exceeded past requestsPerMinute."""
    limit = int(client.setting("vitalScan.requestsPerMinute"))
    now = clock.now()
    window = ratelimit.window_of(now)
    if ratelimit.full_windows.is_full(client.client_id, window, limit):
        result = ratelimit.Verdict(limit, 0, window.reset_seconds(now), False)
    else:
        try:
            left = repo.take_request(client.client_id, window, limit)
        except repo.Contended:
            raise failures.unavailable(failures.RATE_LIMIT_UNAVAILABLE, failures.RATE_LIMIT_UNAVAILABLE_MESSAGE) from None
        except Exception as exc:
            if failures.is_infrastructure(exc):
                raise failures.unavailable(failures.RATE_LIMIT_UNAVAILABLE,
                                           failures.RATE_LIMIT_UNAVAILABLE_MESSAGE) from exc
            raise
        result = ratelimit.Verdict(limit, max(0, left or 0), window.reset_seconds(now), left is not None)
        if not result.allowed:
            ratelimit.full_windows.mark_full(client.client_id, window, limit)
    flask.g.vital_scan_rate = result
    if not result.allowed:
        raise ApiError(429, rate_limit_message(limit, result.reset_seconds), code=RATE_LIMIT_EXCEEDED,
                       headers={"Retry-After": str(result.reset_seconds)})
    return result


def rate_headers() -> dict[str, str]:
    """ratelimit-limit / -remaining / -reset of this request, once it has been counted."""
    result: ratelimit.Verdict | None = flask.g.get("vital_scan_rate")
    if result is None:
        return {}
    return {
        "ratelimit-limit": str(result.limit),
        "ratelimit-remaining": str(result.remaining),
        "ratelimit-reset": str(result.reset_seconds),
    }
