"""What a request may use and what it used: the per-user rate limit, the client's monthly token budget, and the
usage record of every chat and proxy request (the model's own count, or an estimate when it gave none)."""

import calendar
import concurrent.futures
import dataclasses
import datetime as dt

from ..core import clock, ratelimit
from ..core.errors import INSUFFICIENT_QUOTA, ApiError
from ..core.tenancy import Client
from . import repository as repo
from .providers.local import MODEL as LOCAL_MODEL

RATE_SCOPE = "assistant"
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="assistant-budget")
TOO_MANY_REQUESTS = "Too many assistant requests; retry in {seconds} seconds."
BUDGET_USED = "The monthly token budget of this client is used up; it renews on {renews}."


def _renewal(now: dt.datetime) -> str:
    last = calendar.monthrange(now.year, now.month)[1]
    return (now.replace(day=last) + dt.timedelta(days=1)).strftime("%Y-%m-%d")


def admit(client: Client, uid: str) -> None:
    """Count the request against the user's rate (429 rate_limit_exceeded) and check the client's budget (429
    insufficient_quota). The budget is checked, not reserved: the request that crosses it still finishes."""
    now = clock.now()
    limit = ratelimit.Limit(RATE_SCOPE, int(client.setting("wellnessChat.requestsPerMinute")))
    # The budget's read runs beside the rate's write: the answer's first byte waits for one round trip, not two.
    used = _POOL.submit(repo.tokens_used, client.client_id, repo.month_of(now))
    decision = ratelimit.hit(limit, ratelimit.caller_key(client.client_id, uid))
    if not decision.allowed:
        seconds = decision.retry_after_seconds
        raise ApiError(429, TOO_MANY_REQUESTS.format(seconds=seconds), code="rate_limit_exceeded",
                       extra={"retryAfterSeconds": seconds}, headers={"Retry-After": str(seconds)})
    budget = int(client.setting("wellnessChat.monthlyTokenBudget"))
    if budget <= 0 or used.result() >= budget:
        raise ApiError(429, BUDGET_USED.format(renews=_renewal(now)), code=INSUFFICIENT_QUOTA)


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
