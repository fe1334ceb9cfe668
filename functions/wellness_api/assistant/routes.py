"""HTTP routes of the assistant: the wellness chat and its conversations ({error} envelope), and the
OpenAI-compatible proxy (OpenAI's error format). A Firebase ID token of a member of a client with
`modules.wellnessChat` on is required everywhere."""

import flask

from ..core import auth, http, openapi
from ..core.errors import openai_envelope
from ..core.openapi import ID_TOKEN, error
from . import chat, metering, proxy, service
from .models import ChatCompletionsBody, ConversationsQuery, EmbeddingsBody, WellnessChatBody
from .responses import (
    ChatCompletion,
    ChatRefused,
    ConversationDeleted,
    ConversationDetail,
    ConversationList,
    EmbeddingList,
    ModelList,
)

app = http.create_app("assistant")
api = openapi.Api(app, "AI assistant")
# Long conversations travel whole in every chat-completions request.
proxy_app = http.create_app("assistant_proxy", envelope=openai_envelope, max_body_bytes=4 << 20)
proxy_api = openapi.Api(proxy_app, "OpenAI-compatible proxy")

PROXY_PREFIX = "/api/openai/"
STREAM_HEADERS = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"}

UNAUTHORIZED = error(401, "Missing, invalid or expired ID token, or a disabled user.")
MODULE_OFF = error(403, "The wellness chat is not enabled for the caller's client.")
RATE_LIMITED = error(429, "Too many requests of the user (wellnessChat.requestsPerMinute), or too many running at "
                          "once for the user or the client (wellnessChat.maxConcurrentPerUser, "
                          "wellnessChat.maxConcurrentPerClient); Retry-After and retryAfterSeconds say when to retry; "
                          "or the client's monthly token budget is used up "
                          "(wellnessChat.monthlyTokenBudget).", model=ChatRefused, headers=[openapi.RETRY_AFTER])
PROXY_RATE_LIMITED = error(429, "Too many requests of the user, or too many running at once for the user or the "
                                "client (rate_limit_exceeded, with Retry-After), or the client's monthly token budget "
                                "is used up (insufficient_quota).",
                           "rate_limit_exceeded", "insufficient_quota", headers=[openapi.RETRY_AFTER])
USER_ERRORS = (UNAUTHORIZED, MODULE_OFF)
NOT_FOUND = error(404, "Conversation not found: unknown, or another user's.")
PROVIDER_ERRORS = (error(502, "The model provider failed."),
                   error(503, "The model provider is busy; retry after Retry-After.", headers=[openapi.RETRY_AFTER]))

CHAT_EVENTS = (
    "Server-Sent Events (text/event-stream), each flushed as the model produces it: `event: delta` with "
    "`{\"text\"}` (the next piece of the answer), `event: tool` with `{\"name\", \"status\": \"started\"|\"finished\"}` "
    "around each tool the model calls, and last either `event: done` with `{\"conversationId\", \"usage\": "
    "{\"promptTokens\", \"completionTokens\"}}` or `event: error` with `{\"error\"}`. The turn is saved before the "
    "last event."
)


def app_for(path: str) -> flask.Flask:
    """The app that serves `path` (the full path through Hosting; the same on :5001 directly)."""
    return proxy_app if path.startswith(PROXY_PREFIX) else app


def _member():
    principal = auth.require_user()
    return principal, service.member_client(principal)


def event_stream(events) -> flask.Response:
    return flask.Response(events, status=200, mimetype="text/event-stream", headers=STREAM_HEADERS)


# ------------------------------------------------------------------------------------------ the wellness chat


@api.post("/api/wellness-chat", operation_id="wellnessChat", summary="Chat with the wellness assistant",
          description="One turn of a conversation: the answer streams as Server-Sent Events. The assistant gives "
                      "wellness guidance, not diagnoses, and may read the caller's own AI Move record, latest Vital "
                      "Scan, the client's lessons and help articles through tools. Errors before the stream starts "
                      "are JSON `{error}` with their status; the caller's rate (wellnessChat.requestsPerMinute) and "
                      "the client's monthly token budget (wellnessChat.monthlyTokenBudget) apply.",
          security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", body=WellnessChatBody,
          example={"message": "How did my workouts go this week?", "locale": "en"},
          responses={200: None}, events=CHAT_EVENTS,
          errors=[*USER_ERRORS, error(404, "conversationId names no conversation of the caller."),
                  error(409, "The conversation is full (200 messages); start a new one."), RATE_LIMITED,
                  *PROVIDER_ERRORS])
def wellness_chat():
    principal, client = _member()
    body = http.parse_body(WellnessChatBody)
    turn = chat.prepare(principal, client, body, http.request_id())
    stream, request = chat.open_first(turn)
    return _streamed(chat.Run(turn, stream, request).events(), turn.admission, stream)


@api.get("/api/wellness-chat/conversations", operation_id="listWellnessChatConversations",
         summary="List your conversations", description="The caller's own conversations, most recently active first.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", query=ConversationsQuery,
         responses={200: ConversationList}, errors=USER_ERRORS)
def list_conversations():
    principal, client = _member()
    query = http.parse_query(ConversationsQuery)
    return service.list_conversations(client, principal.uid, query.limit, query.startAfter)


@api.get("/api/wellness-chat/conversations/<conversation_id>", operation_id="getWellnessChatConversation",
         summary="Read a conversation", description="One of the caller's conversations with every message.",
         security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: ConversationDetail},
         errors=[*USER_ERRORS, NOT_FOUND])
def get_conversation(conversation_id: str):
    principal, client = _member()
    return service.get_conversation(client, principal.uid, conversation_id)


@api.delete("/api/wellness-chat/conversations/<conversation_id>", operation_id="deleteWellnessChatConversation",
            summary="Delete a conversation", description="Deletes one of the caller's conversations and its "
                                                         "messages (usage records stay).",
            security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: ConversationDeleted},
            errors=[*USER_ERRORS, NOT_FOUND])
def delete_conversation(conversation_id: str):
    principal, client = _member()
    service.delete_conversation(client, principal.uid, conversation_id)
    return {"success": True, "conversationId": conversation_id}


# ------------------------------------------------------------------------------------------ the proxy

PROXY_ERRORS = (UNAUTHORIZED, MODULE_OFF, error(404, "The model is not one the client may use (model_not_found).",
                                                "model_not_found"), PROXY_RATE_LIMITED, *PROVIDER_ERRORS)


def _proxied(body_model, bound, estimate):
    """The member, their client, the model they name (404 unless allowed) and the body to forward (the caller's,
    bounded by the client's caps); then the request counts against the user's rate, takes its slots and reserves
    its estimated cost."""
    principal, client = _member()
    body = http.json_object()
    http.validate(body_model, body)  # checked, not rebuilt: the body goes to the provider as sent
    body = bound(client, body)
    model = proxy.model_for(client, body["model"])
    metering.check_rate(client, principal.uid)
    admission = metering.hold(client, principal.uid, estimate(body))
    return principal, client, model, body, admission


def _streamed(events, admission: metering.Admission, stream) -> flask.Response:
    """The event stream; its slots and reservation are given back when the response closes, even if it was never
    read (a generator that never started runs no `finally`)."""
    response = event_stream(events)
    response.call_on_close(stream.close)
    response.call_on_close(admission.close)
    return response


@proxy_api.post("/api/openai/v1/chat/completions", operation_id="openaiChatCompletions",
                summary="Chat completions (OpenAI-compatible)",
                description="OpenAI's chat-completions API: point the openai SDK at `{base_url}/api/openai/v1` with "
                            "the user's ID token as its api_key. With `stream: true` the answer is OpenAI's event "
                            "stream, relayed as it arrives. Only the parameters of the schema are accepted; `n` and "
                            "the max tokens are capped per client (wellnessChat.maxN, "
                            "wellnessChat.maxCompletionTokens). The request reserves its estimated cost on the "
                            "client's budget and holds a slot of the user's and the client's concurrent requests "
                            "while it runs; usage is metered.",
                security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", body=ChatCompletionsBody,
                example={"model": "local", "messages": [{"role": "user", "content": "What can you do?"}]},
                responses={200: ChatCompletion}, events="With `stream: true`: OpenAI's chat.completion.chunk events "
                                                        "(`data: {...}`), then `data: [DONE]`.",
                errors=PROXY_ERRORS)
def openai_chat_completions():
    principal, client, model, body, admission = _proxied(ChatCompletionsBody, proxy.bounded, proxy.chat_estimate)
    try:
        if body.get("stream") is not True:
            return proxy.complete(client, principal.uid, http.request_id(), model, body, admission)
        stream, wants_usage = proxy.open_stream(model, body)
    except BaseException:
        admission.close(0)
        raise
    return _streamed(proxy.relay(client, principal.uid, http.request_id(), body, model, stream, wants_usage,
                                 admission), admission, stream)


@proxy_api.post("/api/openai/v1/embeddings", operation_id="openaiEmbeddings", summary="Embeddings (OpenAI-compatible)",
                description="OpenAI's embeddings API, with OpenAI's limits: at most 2,048 inputs, each at most 8,192 "
                            "tokens, 300,000 tokens in all. The local model is a feature-hashing embedding (256 "
                            "dimensions unless `dimensions` says otherwise; inputs x dimensions at most 262,144).",
                security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", body=EmbeddingsBody,
                example={"model": "local", "input": "balance exercises"},
                responses={200: EmbeddingList}, errors=PROXY_ERRORS)
def openai_embeddings():
    principal, client, model, body, admission = _proxied(EmbeddingsBody, lambda _, sent: sent,
                                                         proxy.embeddings_estimate)
    try:
        return proxy.embed(client, principal.uid, http.request_id(), model, body, admission)
    except BaseException:
        admission.close(0)
        raise


@proxy_api.get("/api/openai/v1/models", operation_id="openaiModels", summary="List models (OpenAI-compatible)",
               description="The models the caller's client may use: wellnessChat.models, or the platform's model.",
               security=[ID_TOKEN], sample_as="PLAYER_ID_TOKEN", responses={200: ModelList},
               errors=USER_ERRORS)
def openai_models():
    _, client = _member()
    return proxy.models_list(client)
