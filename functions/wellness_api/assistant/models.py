"""Request bodies and queries of the assistant, and the stored conversation's public forms."""

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from ..core import clock
from ..core.http import QueryInt
from ..core.text import multi_line

MAX_MESSAGE_CHARS = 4000
CONVERSATIONS_PAGE_DEFAULT = 20
CONVERSATIONS_PAGE_MAX = 100
TITLE_CHARS = 80


def _not_blank(message: str) -> str:
    if not message.strip():
        raise PydanticCustomError("blank_text", "the message is blank")
    return message


class WellnessChatBody(BaseModel):
    """POST /api/wellness-chat: strict, no other fields."""

    model_config = ConfigDict(extra="forbid")

    # The lengths are checked first, on the string: their errors then speak of characters.
    message: Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_CHARS), AfterValidator(multi_line),
                       AfterValidator(_not_blank)] = Field(
        description=f"The user's message, 1 to {MAX_MESSAGE_CHARS} characters.")
    conversationId: str | None = Field(
        default=None, description="Continue this conversation of the caller; absent or null: start a new one.")
    locale: Literal["en", "zh-Hant", "zh-Hans"] | None = Field(
        default=None, description="The answer's language: en, zh-Hant or zh-Hans. Default: the conversation's, "
                                  "else en.")


class ConversationsQuery(BaseModel):
    limit: Annotated[QueryInt, Field(ge=1, le=CONVERSATIONS_PAGE_MAX)] = Field(
        default=CONVERSATIONS_PAGE_DEFAULT, description=f"Page size, 1 to {CONVERSATIONS_PAGE_MAX}.")
    startAfter: str | None = Field(default=None, description="The conversationId of the last conversation of the "
                                                             "previous page (nextStartAfter).")


def title_of(message: str) -> str:
    """A conversation's title: its first message on one line, at most TITLE_CHARS characters."""
    line = " ".join(message.split())
    return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS - 1].rstrip() + "…"


def conversation_view(stored: dict[str, Any]) -> dict[str, Any]:
    return {
        "conversationId": stored["conversationId"],
        "title": stored.get("title") or "",
        "locale": stored.get("locale"),
        "messageCount": stored.get("messageCount", 0),
        "usage": {"promptTokens": stored.get("promptTokens", 0), "completionTokens": stored.get("completionTokens", 0)},
        "createdAt": clock.iso(stored["createdAt"]),
        "updatedAt": clock.iso(stored["updatedAt"]),
    }


def message_view(stored: dict[str, Any]) -> dict[str, Any]:
    view = {"index": stored["index"], "role": stored["role"], "content": stored.get("content") or "",
            "createdAt": clock.iso(stored["createdAt"])}
    if stored["role"] == "assistant":
        view["tools"] = list(stored.get("tools") or [])
        view["interrupted"] = bool(stored.get("interrupted"))
    return view


# ------------------------------------------------------------------------------------------ the proxy (OpenAI's bodies)

ROLES = ("system", "developer", "user", "assistant", "tool")


def _check_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for index, message in enumerate(messages):
        if message.get("role") not in ROLES:
            raise ValueError(f"messages[{index}].role must be one of: {', '.join(ROLES)}")
    return messages


class ChatCompletionsBody(BaseModel):
    """OpenAI's chat-completions request; the fields named here are checked, the others pass to the provider."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200, description="One of GET /api/openai/v1/models.")
    messages: Annotated[list[dict[str, Any]], AfterValidator(_check_messages)] = Field(
        min_length=1, max_length=1000, description="The conversation, OpenAI's message objects.")
    stream: bool | None = Field(default=None, description="true: the answer streams as Server-Sent Events.")
    stream_options: dict[str, Any] | None = Field(
        default=None, description="include_usage: true adds the final usage chunk to the stream.")
    tools: list[dict[str, Any]] | None = None


class EmbeddingsBody(BaseModel):
    """OpenAI's embeddings request; the fields named here are checked, the others pass to the provider."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200, description="One of GET /api/openai/v1/models.")
    input: str | list[str] | list[int] | list[list[int]] = Field(
        description="A text or an array of texts (the local model embeds text only).")
