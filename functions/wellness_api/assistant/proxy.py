"""The OpenAI-compatible proxy: chat completions (streamed or not), embeddings and the model list, for signed-in
members of a client with the wellness chat on.

The caller's body goes to the provider as it is (its parameters are an allow-list: models.ChatCompletionsBody and
models.EmbeddingsBody refuse any other; `n` and the max tokens within the client's caps, and max_completion_tokens
set to the client's cap when the caller gives no max), with the platform's key (the caller's credential is their ID
token, never forwarded). A streamed answer is relayed event by event, each the moment it is complete; the final
usage chunk is always requested (stream_options.include_usage) so that usage is metered, and it is passed on only
when the caller asked for it. Every request records its usage, estimated when the provider gave none.
"""

import json
import time
from collections.abc import Iterator
from typing import Any

from ..core import clock
from ..core import logging as log
from ..core.errors import ApiError
from ..core.http import BodyError
from ..core.tenancy import Client
from . import metering, models, sse, tokens
from . import repository as repo
from .providers import registry
from .providers.base import ChatModel, Stream, StreamCut, UpstreamError

OWNER = "wellness-platform"
BUSY = "The model provider is busy; retry shortly."
UNAVAILABLE = "The model provider failed to answer; retry shortly."
CUT_OFF = "The model's stream was cut off."
# Statuses of the provider that judge the caller's own request (a bad parameter, a context too long): passed on.
CALLER_FAULTS = (400, 404, 413, 422)


def model_not_found(name: str) -> ApiError:
    return ApiError(404, f"The model `{name}` does not exist or you do not have access to it.",
                    code="model_not_found")


def _allow_list(client: Client) -> list[str]:
    """The client's allow-list (wellnessChat.models), or the platform's model."""
    return client.setting("wellnessChat.models") or [registry.default_model()]


def allowed_models(client: Client) -> list[str]:
    """The allow-list's models that a provider serves."""
    return [name for name in _allow_list(client) if registry.model_for(name) is not None]


def model_for(client: Client, name: str) -> ChatModel:
    if name not in _allow_list(client):
        raise model_not_found(name)
    model = registry.model_for(name)
    if model is None:
        raise model_not_found(name)
    return model


def models_list(client: Client) -> dict[str, Any]:
    return {"object": "list", "data": [{"id": name, "object": "model", "created": 0, "owned_by": OWNER}
                                       for name in allowed_models(client)]}


ABOVE_CAP = ("Invalid '{name}': integer above maximum value. Expected a value <= {cap} (the client's {setting}), "
             "but got {value} instead.")


def bounded(client: Client, body: dict[str, Any]) -> dict[str, Any]:
    """The chat-completions body to forward: `n` and the max tokens within the client's caps (else a 400 naming
    the parameter, as OpenAI refuses a value above its maximum), and max_completion_tokens at the cap when the
    caller set no max, so that every answer, and the request's reservation, is bounded."""
    max_n = int(client.setting("wellnessChat.maxN"))
    cap = int(client.setting("wellnessChat.maxCompletionTokens"))
    if body.get("n") is not None and body["n"] > max_n:
        raise BodyError(ABOVE_CAP.format(name="n", cap=max_n, setting="wellnessChat.maxN", value=body["n"]), field="n")
    for name in ("max_tokens", "max_completion_tokens"):
        if body.get(name) is not None and body[name] > cap:
            raise BodyError(ABOVE_CAP.format(name=name, cap=cap, setting="wellnessChat.maxCompletionTokens",
                                             value=body[name]), field=name)
    if body.get("max_tokens") is None and body.get("max_completion_tokens") is None:
        return {**body, "max_completion_tokens": cap}
    return body


def chat_estimate(body: dict[str, Any]) -> int:
    """What a bounded chat-completions request may cost: its prompt (estimated) and every completion token of
    every choice."""
    most = max(body.get("max_tokens") or 0, body.get("max_completion_tokens") or 0)
    return tokens.estimate_messages(body["messages"], body.get("tools")) + (body.get("n") or 1) * most


def embeddings_estimate(body: dict[str, Any]) -> int:
    value = body["input"]
    items = [value] if isinstance(value, str) or isinstance(value[0], int) else value
    return sum(models.input_size(item) or 0 for item in items)  # EmbeddingsBody let through inputs only: never None


class ProviderFault(ApiError):
    """A fault of the caller's own request as the provider judged it, in the provider's words (its code and param)."""

    def __init__(self, status: int, message: str, code: str | None, param: str | None):
        super().__init__(status, message, code=code)
        self.field = param  # openai_envelope's `param`


def provider_failure(exc: UpstreamError) -> ApiError:
    """The caller's answer to a provider refusal: its own request's faults as the provider worded them."""
    if exc.status in CALLER_FAULTS:
        detail = exc.body.get("error") if isinstance(exc.body, dict) else None
        detail = detail if isinstance(detail, dict) else {}
        code = detail.get("code") if isinstance(detail.get("code"), str) else None
        param = detail.get("param") if isinstance(detail.get("param"), str) else None
        return ProviderFault(exc.status, exc.message, code or ("invalid_request" if exc.status == 400 else None), param)
    if exc.status == 429:
        return ApiError(503, BUSY, headers={"Retry-After": exc.retry_after} if exc.retry_after else None)
    log.error(f"assistant proxy upstream failed: status {exc.status}: {exc.message}")
    return ApiError(502, UNAVAILABLE)


def _reported(answer: dict[str, Any]) -> dict | None:
    usage = answer.get("usage")
    return usage if isinstance(usage, dict) else None


def _record(client: Client, uid: str, request_id: str, kind: str, model: str, usage: metering.Usage,
            outcome: str) -> None:
    now = clock.now()
    try:
        repo.record_usage(client.client_id, usage.record(request_id, uid, kind, model, outcome, now), now)
    except Exception as exc:  # noqa: BLE001 - the answer is already given; the failure is logged for the operator
        log.error(f"assistant proxy usage not recorded: {type(exc).__name__}: {exc}", requestId=request_id)


def complete(client: Client, uid: str, request_id: str, model: ChatModel, body: dict[str, Any],
             admission: metering.Admission) -> dict:
    try:
        answer = model.complete(body)
    except UpstreamError as exc:
        admission.close(0)
        raise provider_failure(exc) from None
    usage = metering.Usage()
    message_text = json.dumps([c.get("message") for c in answer.get("choices") or [] if isinstance(c, dict)],
                              ensure_ascii=False)
    usage.add(_reported(answer), tokens.estimate_messages(body["messages"], body.get("tools")),
              tokens.estimate(message_text))
    admission.close(usage.total)
    _record(client, uid, request_id, "proxy.chat", model.name, usage, "completed")
    return answer


def embed(client: Client, uid: str, request_id: str, model: ChatModel, body: dict[str, Any],
          admission: metering.Admission) -> dict:
    try:
        answer = model.embed(body)
    except UpstreamError as exc:
        admission.close(0)
        raise provider_failure(exc) from None
    usage = metering.Usage()
    text = body["input"] if isinstance(body["input"], str) else json.dumps(body["input"], ensure_ascii=False)
    reported = _reported(answer)
    usage.add({"completion_tokens": 0, **reported} if reported else None, tokens.estimate(text), 0)
    admission.close(usage.total)
    _record(client, uid, request_id, "proxy.embeddings", model.name, usage, "completed")
    return answer


def open_stream(model: ChatModel, body: dict[str, Any]) -> tuple[Stream, bool]:
    """Open the provider's stream before the response starts (a refusal is the request's error status)."""
    sent = body.get("stream_options")
    options: dict[str, Any] = sent if isinstance(sent, dict) else {}
    wants_usage = options.get("include_usage") is True
    try:
        stream = model.open_stream({**body, "stream_options": {**options, "include_usage": True}})
    except UpstreamError as exc:
        raise provider_failure(exc) from None
    return stream, wants_usage


def relay(client: Client, uid: str, request_id: str, body: dict[str, Any], model: ChatModel, stream: Stream,
          wants_usage: bool, admission: metering.Admission) -> Iterator[bytes]:
    """The provider's events as they complete; usage recorded at the end, however the stream ended."""
    splitter = sse.EventSplitter()
    reported: dict | None = None
    produced: list[str] = []
    ended = False  # [DONE] or a finish_reason came: a stream that closes before either was cut off
    outcome = "cancelled"  # a generator closed before its end: the caller went away
    started = time.perf_counter()
    try:
        try:
            for chunk in stream:
                for raw in splitter.feed(chunk):
                    data = sse.data_of(raw)
                    ended = ended or (data is not None and data.strip() == sse.DONE)
                    payload = _payload(data)
                    if payload is not None:
                        if isinstance(payload.get("usage"), dict):
                            reported = payload["usage"]
                            if not payload.get("choices") and not wants_usage:
                                continue
                        for choice in payload.get("choices") or []:
                            delta = choice.get("delta") if isinstance(choice, dict) else None
                            ended = ended or bool(isinstance(choice, dict) and choice.get("finish_reason"))
                            if isinstance(delta, dict):
                                produced.append(str(delta.get("content") or ""))
                                produced.extend(json.dumps(call, ensure_ascii=False)
                                                for call in delta.get("tool_calls") or [])
                    yield raw
            rest = splitter.rest()
            if rest:
                yield rest
            if not ended:
                raise StreamCut("the stream closed before its end")
            outcome = "completed"
        except (StreamCut, ValueError) as exc:
            log.warning(f"assistant proxy stream cut: {exc}", requestId=request_id)
            outcome = "cut"
            yield sse.data_event({"error": {"message": CUT_OFF, "type": "server_error", "param": None, "code": None}})
    finally:
        stream.close()
        usage = metering.Usage()
        usage.add(reported, tokens.estimate_messages(body["messages"], body.get("tools")),
                  tokens.estimate("".join(produced)))
        admission.close(usage.total)
        _record(client, uid, request_id, "proxy.chat", model.name, usage, outcome)
        log.info("assistant proxy stream", requestId=request_id, clientId=client.client_id, outcome=outcome,
                 promptTokens=usage.prompt_tokens, completionTokens=usage.completion_tokens,
                 estimated=usage.estimated, durationMs=round((time.perf_counter() - started) * 1000, 2))


def _payload(data: str | None) -> dict[str, Any] | None:
    if data is None or data.strip() == sse.DONE:
        return None
    try:
        payload = json.loads(data)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None
