"""What a request may use and what it used: the per-user rate limit, the concurrency slots (per user and per
client), the client's monthly token budget, and the usage record of every chat and proxy request (the model's own
count, or an estimate when it gave none).

The budget is reserved, not just checked: before the model is called the request adds an estimate of its cost
(its prompt, estimated, and every completion token it may be given) to one shard of the month's ledger (one
increment), reads the other shards as they were at that commit (a read at a point in time), and is admitted when
the total before its own reservation was under the budget; otherwise it gives the estimate back and is refused.
After the answer (completed, failed, cut off or abandoned) it settles its shard to the tokens it really used. The
total a request sees is exactly what one document's increment returned before the ledger was sharded: every
reservation committed before its own, none after. So concurrent requests see each other's reservations, and a
budget is overshot by at most the estimate of the last request admitted (the one that crossed it). The shards
only spread the writes: one document takes about one write per second, and each request writes twice.
"""

import calendar
import dataclasses
import datetime as dt
import threading

from ..core import clock, ratelimit, slots
from ..core import logging as log
from ..core.errors import INSUFFICIENT_QUOTA, ApiError
from ..core.tenancy import Client
from . import repository as repo
from .providers.local import MODEL as LOCAL_MODEL

RATE_SCOPE = "assistant"
USER_SLOTS = "assistantUser"
CLIENT_SLOTS = "assistantClient"
# Longer than the assistant function's timeout (300 s): a request stopped at its timeout, or an instance that
# crashed, frees its slots when the lease runs out.
LEASE_SECONDS = 330
# Slots free as requests end, which no one can foretell: a short wait, then try again.
SLOT_RETRY_SECONDS = 5
TOO_MANY_REQUESTS = "Too many assistant requests; retry in {seconds} seconds."
TOO_MANY_AT_ONCE = ("Too many assistant requests at once: {who} may have {limit} running "
                    "({setting}); retry in {seconds} seconds.")
BUDGET_USED = "The monthly token budget of this client is used up; it renews on {renews}."


def _renewal(now: dt.datetime) -> str:
    last = calendar.monthrange(now.year, now.month)[1]
    return (now.replace(day=last) + dt.timedelta(days=1)).strftime("%Y-%m-%d")


def _too_many(message: str, seconds: int) -> ApiError:
    return ApiError(429, message, code="rate_limit_exceeded", extra={"retryAfterSeconds": seconds},
                    headers={"Retry-After": str(seconds)})


def check_rate(client: Client, uid: str) -> None:
    """Count the request against the user's rate (429 rate_limit_exceeded, with Retry-After)."""
    limit = ratelimit.Limit(RATE_SCOPE, int(client.setting("wellnessChat.requestsPerMinute")))
    decision = ratelimit.hit(limit, ratelimit.caller_key(client.client_id, uid))
    if not decision.allowed:
        seconds = decision.retry_after_seconds
        raise _too_many(TOO_MANY_REQUESTS.format(seconds=seconds), seconds)


def budget_used(client: Client) -> ApiError:
    return ApiError(429, BUDGET_USED.format(renews=_renewal(clock.now())), code=INSUFFICIENT_QUOTA)


class Reservation:
    """Tokens a request holds on its month's ledger; settle() replaces them by what it used, once."""

    def __init__(self, client: Client):
        self.client = client
        self.month = repo.month_of(clock.now())  # settled in the month it was reserved in
        self.budget = int(client.setting("wellnessChat.monthlyTokenBudget"))
        self.shard = repo.ledger_shard()  # every reservation of the request, and its settlement, on one shard
        self.reserved = 0
        self.settled = False
        self._lock = threading.Lock()

    def add(self, tokens: int) -> bool:
        """Reserve `tokens` more; False (and nothing kept) when the ledger was already at the budget."""
        if self.budget <= 0:
            return False
        total = repo.reserve_on_ledger(self.client.client_id, self.month, self.shard, tokens)
        if total - tokens >= self.budget:
            repo.add_to_ledger(self.client.client_id, self.month, self.shard, -tokens)
            return False
        self.reserved += tokens
        return True

    def settle(self, used: int | None) -> None:
        """The ledger's entry for this request becomes `used` tokens (None: keep the reservation, when what was
        used is unknown)."""
        with self._lock:
            if self.settled:
                return
            self.settled = True
        if used is None or used == self.reserved:
            return
        try:
            repo.add_to_ledger(self.client.client_id, self.month, self.shard, used - self.reserved)
        except Exception as exc:  # noqa: BLE001 - the ledger keeps the reservation: it errs on the budget's side
            log.error(f"assistant budget not settled: {type(exc).__name__}: {exc}", clientId=self.client.client_id)


@dataclasses.dataclass
class Admission:
    """What an admitted request holds until it ends: its slots and its budget reservation."""

    lease: slots.Lease
    reservation: Reservation

    def close(self, used: int | None = None) -> None:
        """Settle the reservation to `used` tokens and give the slots back; later calls change nothing."""
        try:
            self.reservation.settle(used)
        finally:
            self.lease.release()


def _slot_limits(client: Client, uid: str) -> list[slots.Limit]:
    return [slots.Limit(USER_SLOTS, ratelimit.caller_key(client.client_id, uid),
                        int(client.setting("wellnessChat.maxConcurrentPerUser"))),
            slots.Limit(CLIENT_SLOTS, client.client_id, int(client.setting("wellnessChat.maxConcurrentPerClient")))]


def hold(client: Client, uid: str, estimate: int) -> Admission:
    """A slot of the user and of the client (429 rate_limit_exceeded when either has none free) and a reservation
    of `estimate` tokens (429 insufficient_quota when the budget is used up); both given back on refusal."""
    if int(client.setting("wellnessChat.monthlyTokenBudget")) <= 0:
        raise budget_used(client)
    try:
        lease = slots.acquire(_slot_limits(client, uid), LEASE_SECONDS)
    except slots.Full as full:
        who, setting = (("each user", "wellnessChat.maxConcurrentPerUser") if full.limit.scope == USER_SLOTS
                        else ("the client's users together", "wellnessChat.maxConcurrentPerClient"))
        raise _too_many(TOO_MANY_AT_ONCE.format(who=who, limit=full.limit.limit, setting=setting,
                                                seconds=SLOT_RETRY_SECONDS), SLOT_RETRY_SECONDS) from None
    try:
        reservation = Reservation(client)
        if not reservation.add(estimate):
            raise budget_used(client)
    except BaseException:
        lease.release()
        raise
    return Admission(lease, reservation)


def month_summary(client: Client, month: str | None = None) -> dict:
    """The client's tokens used in a month (default: this one) against its budget (platformctl assistant usage)."""
    month = month or repo.month_of(clock.now())
    used = repo.tokens_used(client.client_id, month)
    budget = int(client.setting("wellnessChat.monthlyTokenBudget"))
    return {"clientId": client.client_id, "month": month, "tokensUsed": used, "monthlyTokenBudget": budget,
            "remaining": max(0, budget - used)}


@dataclasses.dataclass
class Usage:
    """Tokens of one request, summed over its model calls; `estimated` once any call's count was estimated."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    def add(self, reported: dict | None, prompt_estimate: int, completion_estimate: int) -> None:
        prompt = reported.get("prompt_tokens") if isinstance(reported, dict) else None
        completion = reported.get("completion_tokens") if isinstance(reported, dict) else None
        if isinstance(prompt, int) and isinstance(completion, int) and prompt >= 0 and completion >= 0:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        else:
            self.prompt_tokens += prompt_estimate
            self.completion_tokens += completion_estimate
            self.estimated = True

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def public(self) -> dict[str, int]:
        return {"promptTokens": self.prompt_tokens, "completionTokens": self.completion_tokens}

    def record(self, request_id: str, uid: str, kind: str, model: str, outcome: str, now: dt.datetime,
               conversation_id: str | None = None) -> dict:
        """The stored usage record (assistantUsage)."""
        return {
            "requestId": request_id, "uid": uid, "kind": kind, "model": model, "outcome": outcome,
            "promptTokens": self.prompt_tokens, "completionTokens": self.completion_tokens,
            # The local assistant's counts are estimates (assistant.tokens) even when it reports them.
            "estimated": self.estimated or model == LOCAL_MODEL, "conversationId": conversation_id, "createdAt": now,
        }
