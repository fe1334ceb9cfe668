"""Who may use the assistant, and the caller's conversations (list, read, delete: the owner only)."""

from typing import Any

from ..core import auth, tenancy
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import models
from . import repository as repo

MODULE_SETTING = "modules.wellnessChat"
MODULE_OFF = "The wellness chat is not enabled for this client."
CONVERSATION_NOT_FOUND = "Conversation not found."
INVALID_CURSOR = "startAfter must be a conversationId of one of your conversations."


def member_client(principal: Principal) -> Client:
    """The caller's client, with the wellness chat on; 403 when it is off (or the client is gone)."""
    return auth.module_client(principal, MODULE_SETTING, MODULE_OFF)


def own_conversation(client: Client, uid: str, conversation_id: str | None) -> dict[str, Any]:
    """The caller's conversation; 404 for an unknown id and for another user's (whose existence is not revealed)."""
    stored = repo.get_conversation(client.client_id, conversation_id) if tenancy.valid_id(conversation_id) else None
    if stored is None or stored.get("uid") != uid:
        raise ApiError(404, CONVERSATION_NOT_FOUND)
    return stored


def list_conversations(client: Client, uid: str, limit: int, start_after: str | None) -> dict[str, Any]:
    if start_after is not None and not tenancy.valid_id(start_after):
        raise ApiError(400, INVALID_CURSOR)
    found, more = repo.user_conversations(client.client_id, uid, limit, start_after)
    if found is None:
        raise ApiError(400, INVALID_CURSOR)
    return {"conversations": [models.conversation_view(c) for c in found],
            "nextStartAfter": found[-1]["conversationId"] if more else None}


def get_conversation(client: Client, uid: str, conversation_id: str) -> dict[str, Any]:
    stored = own_conversation(client, uid, conversation_id)
    return {"conversation": models.conversation_view(stored),
            "messages": [models.message_view(m) for m in repo.messages(client.client_id, conversation_id)]}


def delete_conversation(client: Client, uid: str, conversation_id: str) -> None:
    own_conversation(client, uid, conversation_id)
    repo.delete_conversation(client.client_id, conversation_id)


def daily_activity(client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, float]]:
    """{day: {chats, messages, activeUsers, proxyRequests, promptTokens, completionTokens}} for the days that had
    assistant activity (what analytics reads)."""
    return repo.ACTIVITY.daily(client_id, start_day, end_day)
