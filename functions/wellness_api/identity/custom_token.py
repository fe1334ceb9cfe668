"""POST /api/auth/custom-token (4.2, 7.1, part 5 rules 1-5, 9.3): a custom token for one grant.

external_user: the server API key names the client; the external id is namespaced to it by deriving
the uid from (clientId, externalUserId), so the same person always gets the same uid and another
client never does. An erasure (privacy) leaves a tombstone that moves the id to its next generation's
uid, so the same externalUserId then signs in as a new, empty user. Just-in-time provisioning writes
the client user record with a create() precondition and the Auth user with that fixed uid, treating
"already exists" as success, so racing requests create one user; when the two cannot be confirmed
the caller gets 503 provisioning_incomplete, and a retry repairs whichever half is missing.

password: the password is checked by Firebase Auth (Identity Toolkit). The call is always made, and
every refusal of the credentials waits until FAILED_SIGN_IN_FLOOR_SECONDS after the request began,
so a wrong password, an unknown email, an unknown client and an account that is not a member of
the client look and take the same.

Password guessing is limited twice: per caller (auth.passwordAttemptsPerMinute, per address or IPv6
/64 and client) and per account (auth.passwordFailuresPerAccount failures per email and client in a
fixed ACCOUNT_WINDOW_SECONDS window), so many addresses cannot share out the guesses at one account.
The account limit takes its hit before the password is checked (racing attempts cannot all slip
under it) and gives it back when the sign-in succeeds, so it counts failures. It cannot lock the
real user out for good: a refusal ends with its window, and a caller (address, IPv6 /64) that has
signed this account in successfully within KNOWN_CALLER_DAYS is not subject to it at all, only to
its own per-caller limit; an attacker cannot become such a caller without the password.

Neither grant reactivates a disabled or inactive user, and neither takes roles or claims from the
caller: claims come from the client user record.
"""

import dataclasses
import hashlib
import time

import flask

from ..core import clock, ratelimit, server_keys, settings, tenancy, transactions, users
from ..core import logging as log
from ..core.errors import ApiError
from ..core.tenancy import USER_ACTIVE, Client
from . import members, toolkit
from . import repository as repo
from .models import PasswordGrant

EXTERNAL_UID_PREFIX = "ext_"
FAILED_SIGN_IN_FLOOR_SECONDS = 0.4
ACCOUNT_WINDOW_SECONDS = 15 * 60
ACCOUNT_SCOPE = "passwordAccount"
KNOWN_CALLER_SCOPE = "passwordKnownCaller"
KNOWN_CALLER_DAYS = 90

EXTERNAL_OFF = "off"
EXTERNAL_EXISTING_ONLY = "existingOnly"
EXTERNAL_JIT = "jit"


def _error(status: int, code: str, message: str, retry_after: int | None = None) -> ApiError:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return ApiError(status, message, code=code, headers=headers)


def invalid_credentials() -> ApiError:
    return _error(401, "invalid_credentials", "Invalid credentials.")


def external_sso_disabled() -> ApiError:
    return _error(403, "external_sso_disabled", "External user sign-in is not enabled for this client.")


def jit_provisioning_disabled() -> ApiError:
    return _error(403, "jit_provisioning_disabled",
                  "The user does not exist and this client signs in existing users only.")


def user_disabled() -> ApiError:
    return _error(403, "user_disabled", "The user is disabled or inactive.")


def user_not_found() -> ApiError:
    return _error(404, "user_not_found", "The user could not be resolved.")


def rate_limited(retry_after: int) -> ApiError:
    return _error(429, "rate_limit_exceeded", f"Rate limit exceeded; retry after {retry_after} seconds.", retry_after)


def provisioning_incomplete() -> ApiError:
    return _error(503, "provisioning_incomplete",
                  "User provisioning did not reach a consistent state; retrying the request is safe.")


def internal_error() -> ApiError:
    return _error(500, "internal_error", "Internal server error")


@dataclasses.dataclass(frozen=True)
class Issued:
    custom_token: str
    user: dict


def external_uid(client_id: str, external_user_id: str, generation: int = 0) -> str:
    """The uid of an external user: stable, case-sensitive, and different in every client. `generation` counts the
    erasures of the person (the tombstone, repository.external_generation): each one makes the id a new uid."""
    # Length-prefixed, so no (client, id) pair can spell another one; a later generation's "g{n}:" cannot be spelt by
    # generation 0's digits, so generation 0 keeps the uids issued before generations existed.
    tag = f"g{generation}:" if generation else ""
    material = f"wellness-external-user:v1:{tag}{len(client_id)}:{client_id}:{external_user_id}"
    digest = hashlib.sha256(material.encode("utf-8")).hexdigest()
    return EXTERNAL_UID_PREFIX + digest[:40]


def retire_external_uid(client_id: str, external_user_id: str, uid: str, tombstone_id: str) -> None:
    """The erasure of `uid`: the next sign-in of `external_user_id` makes the next generation's uid. Run again (a
    resumed erasure) or for a uid that is not the current generation's, it changes nothing."""
    def attempt() -> None:
        seen = repo.read_tombstone(client_id, tombstone_id)
        current = int((seen.data or {}).get("generation") or 0)
        if external_uid(client_id, external_user_id, current) == uid:
            repo.write_tombstone(client_id, tombstone_id, current + 1, seen)

    transactions.optimistic(attempt)


def _limit(client: Client, scope: str, setting: str, key: str) -> None:
    decision = ratelimit.hit(ratelimit.Limit(scope, int(client.setting(setting))), key)
    if not decision.allowed:
        raise rate_limited(decision.retry_after_seconds)


UNKNOWN_CLIENT_PASSWORD_SCOPE = "passwordUnknownClient"


def _limit_unknown_client(caller: str) -> None:
    limit = int(settings.SETTINGS["auth.passwordAttemptsPerMinute"].default)
    decision = ratelimit.hit(ratelimit.Limit(UNKNOWN_CLIENT_PASSWORD_SCOPE, limit), ratelimit.caller_only_key(caller))
    if not decision.allowed:
        raise rate_limited(decision.retry_after_seconds)


def _issue(client: Client, record: dict, auth_user) -> Issued:
    """Keep the persistent claims equal to the record's, and mint the custom token with them."""
    claims = members.claims(client, record)
    if (auth_user.custom_claims or {}) != claims:
        repo.set_claims(auth_user.uid, claims)
    return Issued(repo.custom_token(auth_user.uid, claims), users.profile(auth_user))


# ------------------------------------------------------------------------------------ external_user


def external_user(raw_key: str | None, external_user_id: str) -> Issued:
    match = server_keys.authenticate(raw_key)
    if match is None:
        raise invalid_credentials()
    client = tenancy.get_client(match.client_id)
    if client is None:
        raise invalid_credentials()
    flask.g.client_id = client.client_id
    mode = client.setting("auth.externalUser")
    if mode not in (EXTERNAL_EXISTING_ONLY, EXTERNAL_JIT):
        raise external_sso_disabled()
    _limit(client, "requests", "auth.requestsPerMinute", client.client_id)
    server_keys.touch(match)

    uid = external_uid(client.client_id, external_user_id)
    record = repo.get_member(client.client_id, uid)
    if record is None:
        # Only a first sign-in (or one after an erasure) reads the tombstone: an existing user's costs nothing more.
        generation = repo.external_generation(client.client_id, external_user_id)
        if generation:
            uid = external_uid(client.client_id, external_user_id, generation)
            record = repo.get_member(client.client_id, uid)
    auth_user = repo.get_auth_user(uid)
    if record is not None and not members.usable(record):
        raise user_disabled()
    if auth_user is not None and auth_user.disabled:
        raise user_disabled()
    if record is None or auth_user is None:
        if mode != EXTERNAL_JIT:
            # Existing users only: both halves must already exist.
            raise jit_provisioning_disabled() if record is None and auth_user is None else user_not_found()
        if record is None and auth_user is None:
            _limit(client, "provisioning", "auth.provisioningPerMinute", client.client_id)
        record, auth_user = _provision(client, uid, external_user_id)
    return _issue(client, record, auth_user)


def _provision(client: Client, uid: str, external_user_id: str):
    """Make both halves of a minimum active player exist; either may exist already (a race or a
    retry after a failure), and neither is ever created twice."""
    now = clock.now()
    try:
        record = repo.create_member_once(client.client_id, uid, {
            "uid": uid,
            "clientId": client.client_id,
            "externalUserId": external_user_id,
            "email": None,
            "displayName": None,
            "role": tenancy.ROLE_PLAYER,
            "status": USER_ACTIVE,
            "source": "external_user",
            "createdAt": now,
            "updatedAt": now,
        })
        if not members.usable(record):
            raise user_disabled()
        auth_user = repo.create_auth_user_once(uid)
    except ApiError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure here leaves a state that a retry repairs
        log.warning(f"external user provisioning incomplete: {type(exc).__name__}", clientId=client.client_id)
        raise provisioning_incomplete() from None
    if auth_user.disabled:
        raise user_disabled()
    return record, auth_user


# ----------------------------------------------------------------------------------------- password


def _refuse_after_floor(started: float, error: ApiError) -> ApiError:
    remaining = FAILED_SIGN_IN_FLOOR_SECONDS - (time.monotonic() - started)
    if remaining > 0:
        time.sleep(remaining)
    return error


def _account_keys(client: Client, email: str, caller: str) -> tuple[str, str]:
    account = users.normalize_email(email) or email.strip().lower()
    return ratelimit.key_of(client.client_id, account), ratelimit.key_of(client.client_id, account, caller)


def _limit_account(client: Client, account_key: str, known_key: str) -> ratelimit.Decision | None:
    """The account's hit (None for a caller that has signed this account in before)."""
    if ratelimit.remembered(KNOWN_CALLER_SCOPE, known_key):
        return None
    limit = ratelimit.Limit(ACCOUNT_SCOPE, int(client.setting("auth.passwordFailuresPerAccount")),
                            window_seconds=ACCOUNT_WINDOW_SECONDS)
    decision = ratelimit.hit(limit, account_key)
    if not decision.allowed:
        raise rate_limited(decision.retry_after_seconds)
    return decision


def password(grant: PasswordGrant, caller: str) -> Issued:
    started = time.monotonic()
    client = tenancy.get_client(grant.clientId)
    account_hit = None
    if client is not None:
        flask.g.client_id = client.client_id
        _limit(client, "password", "auth.passwordAttemptsPerMinute", ratelimit.caller_key(client.client_id, caller))
        account_key, known_key = _account_keys(client, grant.email, caller)
        account_hit = _limit_account(client, account_key, known_key)
    else:
        # Attempts naming an unknown client still reach Identity Toolkit (same work, same answer), so they
        # are limited too: all of one caller's together, whatever clientId strings it makes up, at the
        # default per-client rate. One counter write, like a known client's.
        _limit_unknown_client(caller)
    try:
        verification = toolkit.verify_password(grant.email, grant.password)
    except toolkit.ToolkitUnavailable as exc:
        log.error(f"password verification unavailable: {exc}", clientId=grant.clientId if client else None)
        raise internal_error() from None
    outcome = verification.outcome
    if outcome is toolkit.Outcome.THROTTLED:
        raise _refuse_after_floor(started, rate_limited(60))
    if client is None:
        raise _refuse_after_floor(started, invalid_credentials())
    if outcome is toolkit.Outcome.DISABLED:
        # Firebase reports a disabled account before it checks the password; say so only to a
        # member of this client, so the answer reveals nothing about other clients' users.
        raise _refuse_after_floor(started, _disabled_member_or_invalid(client, grant.email))
    if outcome is not toolkit.Outcome.VERIFIED:
        # Wrong password, unknown email, or a second factor this grant cannot complete.
        raise _refuse_after_floor(started, invalid_credentials())

    uid = verification.uid
    assert uid is not None  # toolkit gives every VERIFIED outcome its uid
    auth_user = repo.get_auth_user(uid)
    record = members.resolve(client, uid, lambda: auth_user) if auth_user is not None else None
    if record is None:
        # Right password, but not a member of this client: answered like a wrong password, so the
        # endpoint cannot serve as an oracle for credentials of accounts elsewhere.
        raise _refuse_after_floor(started, invalid_credentials())
    # The password is right for a member of this client: not a guess to count, and this caller is
    # now one the account limit never refuses.
    if account_hit is not None:
        ratelimit.give_back(account_hit)
    ratelimit.remember(KNOWN_CALLER_SCOPE, known_key, KNOWN_CALLER_DAYS)
    _limit(client, "requests", "auth.requestsPerMinute", client.client_id)
    if not members.usable(record) or auth_user.disabled:
        raise user_disabled()
    return _issue(client, record, auth_user)


def _disabled_member_or_invalid(client: Client, email: str) -> ApiError:
    normalized = users.normalize_email(email)
    user = repo.get_auth_user_by_email(normalized) if normalized else None
    if user is None or repo.get_member(client.client_id, user.uid) is None:
        return invalid_credentials()
    return user_disabled()
