"""Request bodies and queries of the assistant, and the stored conversation's public forms."""

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ..core import clock
from ..core.http import QueryInt
from ..core.text import multi_line
from . import tokens

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
        default=None, max_length=64, description="Continue this conversation of the caller; absent or null: start a new one.")
    locale: Literal["en", "zh-Hant", "zh-Hans"] | None = Field(
        default=None, description="The answer's language: en, zh-Hant or zh-Hans. Default: the conversation's, "
                                  "else en.")


class ConversationsQuery(BaseModel):
    limit: QueryInt = Field(default=CONVERSATIONS_PAGE_DEFAULT, ge=1, le=CONVERSATIONS_PAGE_MAX,
                            description=f"Page size, 1 to {CONVERSATIONS_PAGE_MAX}.")
    startAfter: str | None = Field(default=None, max_length=64, description="The conversationId of the last conversation of the "
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
#
# Only the parameters named here are forwarded (extra="forbid": any other is a 400 naming it). Each is bounded as
# OpenAI documents it where OpenAI does (metadata, stop, n, embeddings' inputs and tokens), else by what the
# platform affords; the request body as a whole is at most 4 MiB. Objects OpenAI extends often (a message, a
# content part, a tool) keep their other fields, within the body's size and depth.

ROLES = ("system", "developer", "user", "assistant", "tool")
MAX_MESSAGES = 1000
MAX_TEXT_CHARS = 1 << 20  # one message's text, a tool call's arguments
MAX_CONTENT_PARTS = 100
MAX_TOOLS = 128  # OpenAI: "A max of 128 functions are supported."
MAX_TOOL_CALLS = 128
MAX_NAME_CHARS = 64  # function and participant names (OpenAI: a-z, A-Z, 0-9, _ and -, at most 64)
MAX_ID_CHARS = 256
MAX_DESCRIPTION_CHARS = 8192
MAX_SCHEMA_PROPERTIES = 256  # top-level keys of a JSON schema (its nesting is the body's depth limit)
MAX_STOP = 4  # OpenAI: up to 4 sequences
MAX_STOP_CHARS = 256
MAX_LOGIT_BIAS = 300
MAX_METADATA = 16  # OpenAI: 16 pairs, keys up to 64 characters, values up to 512
MAX_METADATA_KEY = 64
MAX_METADATA_VALUE = 512
MAX_USER_CHARS = 256
MAX_N = 128  # OpenAI's ceiling; the client's own is wellnessChat.maxN
MAX_TOKENS_CEILING = 1_000_000  # the schema's; the client's own is wellnessChat.maxCompletionTokens
INT64 = 2**63

def _union_error(value: Any, handler) -> Any:
    """A union's error as the error of the form the value has (its length, say), not one error per form."""
    try:
        return handler(value)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = next((e for e in errors if not e["type"].endswith("_type")), errors[0])
        inner = ".".join(str(part) for part in first["loc"][1:])
        raise PydanticCustomError("union", "{detail}", {
            "detail": f"{first['msg']} (at {inner})" if inner else first["msg"]}) from None


OneOf = WrapValidator(_union_error)
Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]
Identifier = Annotated[str, Field(max_length=MAX_ID_CHARS)]
Kind = Annotated[str, Field(min_length=1, max_length=40)]
Schema = Annotated[dict[str, Any], Field(max_length=MAX_SCHEMA_PROPERTIES)]


MAX_OBJECT_FIELDS = 32


def _few_fields(data: Any) -> Any:
    if isinstance(data, dict) and len(data) > MAX_OBJECT_FIELDS:
        raise PydanticCustomError("too_many_fields", "at most {cap} fields", {"cap": MAX_OBJECT_FIELDS})
    return data


class _Extensible(BaseModel):
    """An object OpenAI extends often: fields beyond the declared ones pass to the provider, at most
    MAX_OBJECT_FIELDS in all."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"maxProperties": MAX_OBJECT_FIELDS})

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        return _few_fields(data)


class ContentPart(_Extensible):
    """One part of a message's content: its text counts; images and files pass to the provider."""

    type: Kind
    text: Text | None = None


class FunctionCall(_Extensible):
    name: Name
    arguments: Text


class ToolCall(_Extensible):
    id: Identifier
    type: Kind
    function: FunctionCall


class ChatMessage(_Extensible):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[Text | Annotated[list[ContentPart], Field(max_length=MAX_CONTENT_PARTS)] | None, OneOf] = Field(
        default=None, description=f"Text of at most {MAX_TEXT_CHARS} characters, or at most {MAX_CONTENT_PARTS} "
                                  "content parts.")
    name: Name | None = None
    tool_calls: Annotated[list[ToolCall], Field(max_length=MAX_TOOL_CALLS)] | None = None
    tool_call_id: Identifier | None = None


class FunctionDefinition(_Extensible):
    name: Name
    description: Annotated[str, Field(max_length=MAX_DESCRIPTION_CHARS)] | None = None
    parameters: Schema | None = None
    strict: bool | None = None


class ToolDefinition(_Extensible):
    type: Kind
    function: FunctionDefinition | None = None


class NamedTool(_Extensible):
    name: Name


class ToolChoice(_Extensible):
    type: Kind
    function: NamedTool | None = None


class JsonSchemaFormat(_Extensible):
    name: Name
    description: Annotated[str, Field(max_length=MAX_DESCRIPTION_CHARS)] | None = None
    schema_: Schema | None = Field(default=None, alias="schema")
    strict: bool | None = None


class ResponseFormat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    include_usage: bool | None = Field(default=None, description="true: the final usage chunk is relayed too.")


TokenId = Annotated[str, Field(min_length=1, max_length=10, pattern=r"^[0-9]+$")]
Bias = Annotated[int, Field(ge=-100, le=100)]
MetadataKey = Annotated[str, Field(min_length=1, max_length=MAX_METADATA_KEY)]
MetadataValue = Annotated[str, Field(max_length=MAX_METADATA_VALUE)]
Stop = Annotated[str, Field(min_length=1, max_length=MAX_STOP_CHARS)]


class ChatCompletionsBody(BaseModel):
    """OpenAI's chat-completions request. Only these parameters are forwarded; any other is refused (400, its name
    in `param`). `n` and the max tokens are capped per client too (wellnessChat.maxN,
    wellnessChat.maxCompletionTokens)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    model: str = Field(min_length=1, max_length=200, description="One of GET /api/openai/v1/models.")
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES,
                                        description=f"The conversation, at most {MAX_MESSAGES} messages.")
    stream: bool | None = Field(default=None, description="true: the answer streams as Server-Sent Events.")
    stream_options: StreamOptions | None = None
    tools: list[ToolDefinition] | None = Field(default=None, max_length=MAX_TOOLS,
                                               description=f"At most {MAX_TOOLS} tools.")
    tool_choice: Annotated[Literal["none", "auto", "required"] | ToolChoice | None, OneOf] = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS_CEILING,
                                   description="At most the client's wellnessChat.maxCompletionTokens.")
    max_completion_tokens: int | None = Field(
        default=None, ge=1, le=MAX_TOKENS_CEILING, description="At most the client's wellnessChat.maxCompletionTokens; "
                                                               "that many when neither this nor max_tokens is given.")
    n: int | None = Field(default=None, ge=1, le=MAX_N, description="At most the client's wellnessChat.maxN.")
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    stop: Annotated[Stop | Annotated[list[Stop], Field(max_length=MAX_STOP)] | None, OneOf] = Field(
        default=None, description=f"Up to {MAX_STOP} sequences of at most {MAX_STOP_CHARS} characters.")
    logit_bias: dict[TokenId, Bias] | None = Field(default=None, max_length=MAX_LOGIT_BIAS,
                                                   description=f"At most {MAX_LOGIT_BIAS} token ids.")
    logprobs: bool | None = None
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    seed: int | None = Field(default=None, ge=-INT64, le=INT64 - 1)
    user: str | None = Field(default=None, max_length=MAX_USER_CHARS)
    response_format: ResponseFormat | None = None
    metadata: dict[MetadataKey, MetadataValue] | None = Field(
        default=None, max_length=MAX_METADATA,
        description=f"At most {MAX_METADATA} pairs; keys up to {MAX_METADATA_KEY} characters, values up to "
                    f"{MAX_METADATA_VALUE}.")
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None


# Embeddings: OpenAI's documented limits (8,192 tokens an input, 2,048 inputs, 300,000 tokens a request).
MAX_EMBEDDING_INPUTS = 2048
MAX_INPUT_TOKENS = 8192
MAX_REQUEST_TOKENS = 300_000
MAX_INPUT_CHARS = 4 * MAX_INPUT_TOKENS  # no text of more characters is within the token limit (assistant.tokens)
MAX_TOKEN_ID = 1_000_000
MAX_DIMENSIONS = 3072  # text-embedding-3-large's

EmbeddingText = Annotated[str, Field(min_length=1, max_length=MAX_INPUT_CHARS)]
Token = Annotated[int, Field(ge=0, le=MAX_TOKEN_ID)]
TokenArray = Annotated[list[Token], Field(min_length=1, max_length=MAX_INPUT_TOKENS)]


def input_size(item: Any) -> int | None:
    """An input's tokens: estimated for a text, counted for a token array (None: not an input, left to the types)."""
    if isinstance(item, str):
        return tokens.estimate(item)
    return len(item) if isinstance(item, list) else None


def _input_limits(value: Any) -> Any:
    """OpenAI's limits, checked on the raw value before any input is validated or embedded, each error naming its
    cap: the count of inputs, each input's tokens, the request's tokens."""
    if not isinstance(value, list) or not value or isinstance(value[0], int):
        items, single = [value], True  # a text, or one token array
    else:
        items, single = value, False
        if len(items) > MAX_EMBEDDING_INPUTS:
            raise PydanticCustomError("too_many_inputs", "at most {cap} inputs per request, not {count}",
                                      {"cap": MAX_EMBEDDING_INPUTS, "count": len(items)})
    total = 0
    for index, item in enumerate(items):
        size = input_size(item) or 0
        if size > MAX_INPUT_TOKENS:
            raise PydanticCustomError("input_too_long", "{where} is {size} tokens long; an input may hold at most "
                                      "{cap} tokens", {"where": "input" if single else f"input[{index}]",
                                                       "size": size, "cap": MAX_INPUT_TOKENS})
        total += size
    if total > MAX_REQUEST_TOKENS:
        raise PydanticCustomError("request_too_long", "the inputs are {total} tokens long; a request may hold at most "
                                  "{cap} tokens", {"total": total, "cap": MAX_REQUEST_TOKENS})
    return value


def _one_error(value: Any, handler) -> Any:
    """One error for an input of none of the four forms, instead of one per form."""
    try:
        return handler(value)
    except ValidationError:
        raise PydanticCustomError("input_form", "input must be a non-empty text, an array of non-empty texts, an "
                                  "array of token ids (0 to {top}) or an array of such arrays",
                                  {"top": MAX_TOKEN_ID}) from None


class EmbeddingsBody(BaseModel):
    """OpenAI's embeddings request. Only these parameters are forwarded; any other is refused (400, its name in
    `param`)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, max_length=200, description="One of GET /api/openai/v1/models.")
    input: Annotated[
        EmbeddingText | Annotated[list[EmbeddingText], Field(min_length=1, max_length=MAX_EMBEDDING_INPUTS)]
        | TokenArray | Annotated[list[TokenArray], Field(min_length=1, max_length=MAX_EMBEDDING_INPUTS)],
        WrapValidator(_one_error), BeforeValidator(_input_limits),
    ] = Field(description=f"A text or an array of at most {MAX_EMBEDDING_INPUTS} texts (or token arrays); each at "
                          f"most {MAX_INPUT_TOKENS} tokens ({MAX_INPUT_CHARS} characters), all together at most "
                          f"{MAX_REQUEST_TOKENS} tokens. The local model embeds text only.")
    encoding_format: Literal["float", "base64"] | None = None
    dimensions: int | None = Field(default=None, ge=1, le=MAX_DIMENSIONS,
                                   description=f"1 to {MAX_DIMENSIONS}; the local model: inputs x dimensions at most "
                                               "262,144.")
    user: str | None = Field(default=None, max_length=MAX_USER_CHARS)
