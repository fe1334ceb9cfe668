"""Where the assistant keeps a person's data (core.personal_data).

Usage records are the client's metering (tokens per request): the requester's uid is dropped on erasure and
the counts stay. The per-user rate counters and slot leases are keyed by a hash of (client, uid).
"""

from ..core.personal_data import Aggregate, AreaDeclaration, ByDocId, ByField, ByIdPrefix, InCollection, Location, Under

DECLARATION = AreaDeclaration("assistant", (
    Location("conversations", "clients/{clientId}/assistantConversations/{conversationId}", "health",
             ByField("uid", ("uid",)), "delete", fields=("uid",), retention="privacy.retentionDays.assistant",
             note="wellness-chat conversations: title, counts"),
    Location("messages", "clients/{clientId}/assistantConversations/{conversationId}/messages/{index}", "health",
             Under("conversations"), "delete", note="every message of those conversations, the person's and the assistant's"),
    Location("usage", "clients/{clientId}/assistantUsage/{requestId}", "usage", ByField("uid", ("uid",)),
             "anonymise", fields=("uid",), note="one record per chat or proxy request: model, tokens, outcome"),
    Location("active", "clients/{clientId}/assistantActive/{uid}", "activity", ByDocId("uid"), "delete",
             fields=("uid",), note="the person's last active day"),
    Location("rate", "rateLimits/{counterId}", "ephemeral", ByIdPrefix("assistant:{callerKey}:"), "delete",
             note="the person's chat requests per minute window (TTL an hour after the window)"),
    Location("leases", "rateLimits/slots:assistantUser:{callerKey}/slotLeases/{leaseId}", "ephemeral",
             InCollection(), "delete", note="the person's running chats (TTL on expiresAt)"),
    Location("tokens", "clients/{clientId}/assistantTokens/{shardId}", "rollup", Aggregate(), "keep",
             note="tokens per month and the budget ledger: counts only"),
    Location("activity", "clients/{clientId}/assistantActivity/{shardId}", "rollup", Aggregate(), "keep",
             note="the daily rollup: chats, messages, tokens, no id"),
))
