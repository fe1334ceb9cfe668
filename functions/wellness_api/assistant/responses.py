"""Response shapes of the assistant (OpenAPI components; checked against every answer on the emulators)."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.openapi import Closed, PlainError


class ChatRefused(PlainError):
    """Too many requests of the user (with retryAfterSeconds), or the client's monthly token budget is used up."""

    retryAfterSeconds: int | None = Field(default=None, description="The rate limit's: seconds until the next "
                                                                    "request may be made (as Retry-After).")


class TokenUsage(Closed):
    promptTokens: int
    completionTokens: int


class Conversation(Closed):
    conversationId: str
    title: str = Field(description="The conversation's first message, on one line, at most 80 characters.")
    locale: Literal["en", "zh-Hant", "zh-Hans"] | None = Field(description="The language of the latest answer.")
    messageCount: int
    usage: TokenUsage = Field(description="Tokens of every turn of the conversation, summed.")
    createdAt: str
    updatedAt: str = Field(description="When the latest turn was saved.")


class ConversationMessage(Closed):
    index: int = Field(description="1, 2, ... in the order the messages were said.")
    role: Literal["user", "assistant"]
    content: str
    createdAt: str
    tools: list[str] | None = Field(default=None, description="Assistant messages: the tools the model called for "
                                                              "this answer, in order.")
    interrupted: bool | None = Field(default=None, description="Assistant messages: true when the answer did not "
                                                               "finish (cut off, the provider failed, or the app "
                                                               "disconnected); content is what was streamed.")


class ConversationList(Closed):
    """The caller's conversations, most recently active first."""

    conversations: list[Conversation]
    nextStartAfter: str | None = Field(description="startAfter of the next page; null on the last page.")


class ConversationDetail(Closed):
    """One of the caller's conversations with all its messages."""

    conversation: Conversation
    messages: list[ConversationMessage]


class ConversationDeleted(Closed):
    """The conversation and its messages are deleted."""

    success: Literal[True]
    conversationId: str


class _Open(BaseModel):
    """Provider answers pass through: fields beyond these are kept."""

    model_config = ConfigDict(extra="allow")


class ChatCompletion(_Open):
    """A chat completion (OpenAI's chat.completion object), as the provider answered it."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[dict[str, Any]]
    usage: dict[str, Any] | None = None


class EmbeddingList(_Open):
    """Embeddings (OpenAI's list of embedding objects), as the provider answered them."""

    object: Literal["list"]
    data: list[dict[str, Any]]
    model: str
    usage: dict[str, Any] | None = None


class ModelEntry(Closed):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(Closed):
    """The models the caller's client may use through the proxy."""

    object: Literal["list"]
    data: list[ModelEntry]
