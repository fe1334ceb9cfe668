"""One turn of the wellness chat, streamed as Server-Sent Events while the model produces it.

prepare() does everything that can refuse the request (identity, module, rate, conversation, concurrency slots, the
budget's reservation for the first answer, the model's first answer) before the response starts, so those errors
are plain JSON with their status. The stream then relays the model's text as `delta` events the moment each chunk
arrives, runs the tools the model calls (`tool` events, started and finished), and ends with `done`
(conversationId, usage) or `error`. Whatever way it ends (done, an upstream failure, a cut stream, the client
gone), the turn is saved with what was said and its usage is recorded: the model's count from the final usage chunk
(stream_options.include_usage), else an estimate. A client that disconnects closes the response, which closes the
upstream request.
"""

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

from ..core import clock
from ..core import logging as log
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import metering, models, prompts, sse, tokens, tools
from . import repository as repo
from .providers import registry
from .providers.base import ChatModel, Stream, StreamCut, UpstreamError
from .service import own_conversation

# The model may call tools this many times in a row; then it must answer with what it has.
MAX_TOOL_ROUNDS = 3
# Earlier messages the model sees (the most recent ones); the conversation keeps them all.
HISTORY_MESSAGES = 20
MAX_CONVERSATION_MESSAGES = 200

CONVERSATION_FULL = (f"This conversation has reached {MAX_CONVERSATION_MESSAGES} messages; start a new one "
                     "(send no conversationId).")
UNAVAILABLE = "The assistant is unavailable right now; try again shortly."
BUSY = "The assistant is busy right now; try again shortly."
CUT_OFF = "The answer was cut off; ask again."
NOT_SAVED = "The answer could not be saved to the conversation."


def upstream_failure(exc: UpstreamError) -> ApiError:
    """What the chat's caller hears of a provider failure: never the provider's own words (a prompt fault is ours)."""
    if exc.status == 429:
        return ApiError(503, BUSY, headers={"Retry-After": exc.retry_after} if exc.retry_after else None)
    log.error(f"assistant upstream failed: status {exc.status}: {exc.message}")
    return ApiError(502, UNAVAILABLE)


@dataclasses.dataclass
class Turn:
    """What the stream needs, settled before it starts."""

    client: Client
    uid: str
    locale: str
    conversation_id: str
    new_conversation: dict[str, Any] | None  # the conversation document when this turn starts it
    question: str
    messages: list[dict[str, Any]]
    model: ChatModel
    offered: list[tools.Tool]
    request_id: str
    admission: metering.Admission | None = None  # slots and budget reservation, held until the turn ends

    @property
    def held(self) -> metering.Admission:
        """The admission prepare() took: every turn it returns has one."""
        if self.admission is None:
            raise RuntimeError("the turn was not admitted")
        return self.admission


def prepare(principal, client: Client, body: models.WellnessChatBody, request_id: str,
            new_conversation_id: str | None = None) -> Turn:
    """The turn, once the caller is admitted (rate, budget) and the conversation is theirs and has room.
    `new_conversation_id`: the id of a new conversation (the demo seeder's fixed one), else a random one."""
    metering.check_rate(client, principal.uid)
    if body.conversationId is not None:
        stored = own_conversation(client, principal.uid, body.conversationId)
        if stored.get("messageCount", 0) + 2 > MAX_CONVERSATION_MESSAGES:
            raise ApiError(409, CONVERSATION_FULL)
        conversation_id, new = body.conversationId, None
        locale = body.locale or stored.get("locale") or prompts.DEFAULT_LOCALE
        history = repo.recent_messages(client.client_id, conversation_id, HISTORY_MESSAGES)
    else:
        conversation_id = new_conversation_id or repo.new_conversation_id()
        locale, history = body.locale or prompts.DEFAULT_LOCALE, []
        now = clock.now()
        new = {"conversationId": conversation_id, "clientId": client.client_id, "uid": principal.uid,
               "title": models.title_of(body.message), "createdAt": now}
    messages = [{"role": "system", "content": prompts.system_prompt(locale, client.name)}]
    messages += [{"role": m["role"], "content": m.get("content") or ""} for m in history]
    messages.append({"role": "user", "content": body.message})
    model = registry.model_for(registry.default_model())
    assert model is not None  # the default model is always served
    turn = Turn(client, principal.uid, locale, conversation_id, new, body.message, messages, model,
                tools.offered(client), request_id)
    turn.admission = metering.hold(client, principal.uid, estimate(_request(turn, with_tools=True)))
    return turn


def _request(turn: Turn, with_tools: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": turn.model.name, "messages": turn.messages, "stream": True,
                            "stream_options": {"include_usage": True},
                            "max_completion_tokens": int(turn.client.setting("wellnessChat.maxCompletionTokens"))}
    if with_tools and turn.offered:
        body["tools"] = [tool.definition() for tool in turn.offered]
    return body


def estimate(request: dict[str, Any]) -> int:
    """The most one model answer may cost: its prompt (estimated) and every completion token it may produce."""
    return tokens.estimate_messages(request["messages"], request.get("tools")) + request["max_completion_tokens"]


def open_first(turn: Turn) -> tuple[Stream, dict[str, Any]]:
    """The model's first answer, opened before the response starts; a refusal is the request's error."""
    request = _request(turn, with_tools=True)
    try:
        return turn.model.open_stream(request), request
    except UpstreamError as exc:
        turn.held.close(0)
        raise upstream_failure(exc) from None
    except BaseException:
        turn.held.close(0)
        raise


@dataclasses.dataclass
class _Round:
    text: list[str] = dataclasses.field(default_factory=list)
    calls: dict[int, dict[str, str]] = dataclasses.field(default_factory=dict)
    usage: dict | None = None
    finish: str | None = None
    done: bool = False


class Run:
    """The stream of one turn; events() yields its bytes, finish() saves the turn once, however it ended."""

    def __init__(self, turn: Turn, stream: Stream, request: dict[str, Any]):
        self.turn = turn
        self.stream: Stream | None = stream
        self.request = request
        self.usage = metering.Usage()
        self.answer: list[str] = []
        self.tools_used: list[str] = []
        self.current: _Round | None = None
        self.outcome = "cancelled"  # until the stream says otherwise: a generator closed early was cancelled
        self.saved = False
        self.started = time.perf_counter()

    def events(self) -> Iterator[bytes]:
        try:
            yield from self._rounds()
        finally:
            self.finish()

    def _rounds(self) -> Iterator[bytes]:
        ctx = tools.Context(self.turn.client, self.turn.uid, self.turn.locale)
        offered = {tool.name for tool in self.turn.offered}
        for round_number in range(MAX_TOOL_ROUNDS + 1):
            broke = False
            try:
                yield from self._relay()
            except (StreamCut, UpstreamError) as exc:
                log.warning(f"assistant stream ended early: {type(exc).__name__}: {exc}",
                            requestId=self.turn.request_id)
                broke = True
            current = self._close_round()
            # Broken off, or closed before [DONE] and without a finish reason: cut.
            if broke or (not current.done and current.finish is None):
                self.outcome = "cut"
                yield from self._save_then(sse.event("error", {"error": CUT_OFF}))
                return
            # Calls in the round without tools are not run: the model had its rounds.
            if not current.calls or round_number == MAX_TOOL_ROUNDS:
                break
            calls = [current.calls[index] for index in sorted(current.calls)]
            self.turn.messages.append({"role": "assistant", "content": "".join(current.text) or None, "tool_calls": [
                {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}
                for call in calls]})
            for call in calls:
                # A name the model made up is answered with an error, and not shown to the app.
                known = call["name"] in offered
                if known:
                    yield sse.event("tool", {"name": call["name"], "status": "started"})
                result = tools.call(ctx, offered, call["name"], call["arguments"])
                self.turn.messages.append({"role": "tool", "tool_call_id": call["id"],
                                           "content": json.dumps(result, ensure_ascii=False)})
                if known:
                    self.tools_used.append(call["name"])
                    yield sse.event("tool", {"name": call["name"], "status": "finished"})
            # The last round offers no tools: the model answers with what it has read.
            self.request = _request(self.turn, with_tools=round_number + 1 < MAX_TOOL_ROUNDS)
            # Each further answer reserves its own cost: a turn never runs past a used-up budget.
            if not self.turn.held.reservation.add(estimate(self.request)):
                self.outcome = "failed"
                yield from self._save_then(sse.event("error", {"error": metering.budget_used(self.turn.client).message}))
                return
            try:
                self.stream = self.turn.model.open_stream(self.request)
            except UpstreamError as exc:
                self.stream = None
                self.outcome = "failed"
                yield from self._save_then(sse.event("error", {"error": upstream_failure(exc).message}))
                return
        self.outcome = "completed"
        yield from self._save_then(None)

    def _relay(self) -> Iterator[bytes]:
        """Relay one model answer: its text as delta events the moment each chunk arrives."""
        self.current = current = _Round()
        splitter = sse.EventSplitter()
        assert self.stream is not None  # opened by the caller
        for chunk in self.stream:
            for raw in splitter.feed(chunk):
                data = sse.data_of(raw)
                if data is None:
                    continue
                if data.strip() == sse.DONE:
                    current.done = True
                    return
                try:
                    payload = json.loads(data)
                except ValueError:
                    continue
                if not isinstance(payload, dict):
                    continue
                if payload.get("error"):
                    raise UpstreamError(0, f"error event: {str(payload['error'])[:300]}")
                if payload.get("usage"):
                    current.usage = payload["usage"]
                for choice in payload.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if isinstance(delta.get("content"), str) and delta["content"]:
                        current.text.append(delta["content"])
                        self.answer.append(delta["content"])
                        yield sse.event("delta", {"text": delta["content"]})
                    for call in delta.get("tool_calls") or []:
                        slot = current.calls.setdefault(call.get("index", 0), {"id": "", "name": "", "arguments": ""})
                        slot["id"] = call.get("id") or slot["id"]
                        function = call.get("function") or {}
                        slot["name"] += function.get("name") or ""
                        slot["arguments"] += function.get("arguments") or ""
                    current.finish = choice.get("finish_reason") or current.finish

    def _close_round(self) -> _Round:
        """Count the current answer's tokens (the model's figure, else an estimate) and close its stream."""
        current, self.current = self.current or _Round(), None
        if self.stream is not None:
            self.stream.close()
            self.stream = None
        completion = "".join(current.text) + "".join(c["name"] + c["arguments"] for c in current.calls.values())
        self.usage.add(current.usage, tokens.estimate_messages(self.request["messages"], self.request.get("tools")),
                       tokens.estimate(completion))
        return current

    def _save_then(self, last_event: bytes | None) -> Iterator[bytes]:
        """Save the turn before the last event, so a client that reads `done` finds the conversation saved."""
        saved = self._save()
        if last_event is not None:
            yield last_event
        elif saved:
            yield sse.event("done", {"conversationId": self.turn.conversation_id, "usage": self.usage.public()})
        else:
            yield sse.event("error", {"error": NOT_SAVED})

    def finish(self) -> None:
        """After the stream, however it ended: a client gone mid-answer still has its turn saved and its usage
        recorded (estimated for the answer in progress)."""
        if self.current is not None:
            self._close_round()
        if self.stream is not None:
            self.stream.close()
            self.stream = None
        if not self.saved:
            self._save()
        self.turn.held.close(self.usage.total)
        log.info("assistant turn", requestId=self.turn.request_id, clientId=self.turn.client.client_id,
                 outcome=self.outcome, tools=self.tools_used, promptTokens=self.usage.prompt_tokens,
                 completionTokens=self.usage.completion_tokens, estimated=self.usage.estimated,
                 durationMs=round((time.perf_counter() - self.started) * 1000, 2))

    def _save(self) -> bool:
        self.saved = True
        turn, now = self.turn, clock.now()
        record = self.usage.record(turn.request_id, turn.uid, "chat", turn.model.name, self.outcome, now,
                                   turn.conversation_id)
        messages = [
            {"role": "user", "content": turn.question, "createdAt": now},
            {"role": "assistant", "content": "".join(self.answer), "createdAt": now, "tools": self.tools_used,
             "interrupted": self.outcome != "completed", "usage": self.usage.public()},
        ]
        try:
            # False: the conversation was deleted, or filled by concurrent turns, meanwhile (the usage still counts).
            return repo.commit_turn(turn.client.client_id, turn.uid, turn.conversation_id, turn.new_conversation,
                                    messages, {"locale": turn.locale}, record, now, MAX_CONVERSATION_MESSAGES)
        except Exception as exc:  # noqa: BLE001 - the usage must still be recorded; the caller hears NOT_SAVED
            log.error(f"assistant turn not saved: {type(exc).__name__}: {exc}", requestId=turn.request_id)
        try:
            repo.record_usage(turn.client.client_id, record, now)
        except Exception as exc:  # noqa: BLE001
            log.error(f"assistant usage not recorded: {type(exc).__name__}: {exc}", requestId=turn.request_id)
        return False
