"""Firestore access of the assistant; every path of the area is here.

clients/{clientId}/assistantConversations/{conversationId}              a user's conversation
clients/{clientId}/assistantConversations/{conversationId}/messages/{n}  its messages, n = 000001, 000002, ...
clients/{clientId}/assistantUsage/{requestId}                            one record per chat or proxy request
clients/{clientId}/assistantTokens/{YYYY-MM}_{shard}                     tokens used in a month (usage records)
clients/{clientId}/assistantTokens/{YYYY-MM}_budget_{shard}              the month's budget ledger (reserved + settled)
clients/{clientId}/assistantTokens/{YYYY-MM}_budget                      the ledger as one document (before it was
                                                                         sharded): still counted, never written
clients/{clientId}/assistantActive/{uid}                                 the user's last active day (activeUsers)
clients/{clientId}/assistantActivity/{YYYY-MM-DD}_{shard}                daily rollup for analytics (core.rollups)
"""

import datetime as dt
import random
import uuid
from typing import Any

from google.cloud import firestore

from ..core import activity, firebase, tenancy, transactions
from ..core.rollups import day_of

CONVERSATIONS = "assistantConversations"
MESSAGES = "messages"
USAGE = "assistantUsage"
TOKENS = "assistantTokens"
ACTIVE = "assistantActive"
ACTIVITY = activity.WELLNESS_CHAT
# A month's token count is spread over this many documents: every request adds to one at random.
TOKEN_SHARDS = 16
# The month's budget ledger too: a request reserves (and settles) on one of them, so a tenant's sustained rate of
# requests is LEDGER_SHARDS / 2 per second at Firestore's one write per second per document.
LEDGER_SHARDS = 16
LEDGER_FIELDS = ["tokens"]  # all a reservation reads of the other shards: less to decode, 16 times a request


def conversation_ref(client_id: str, conversation_id: str):
    return tenancy.client_ref(client_id).collection(CONVERSATIONS).document(conversation_id)


def new_conversation_id() -> str:
    return uuid.uuid4().hex


def message_ref(client_id: str, conversation_id: str, index: int):
    return conversation_ref(client_id, conversation_id).collection(MESSAGES).document(f"{index:06d}")


def month_of(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m")


def ledger_ref(client_id: str, month: str, shard: int):
    return tenancy.client_ref(client_id).collection(TOKENS).document(f"{month}_budget_{shard:02d}")


def ledger_refs(client_id: str, month: str) -> list:
    """Every document of the month's ledger: its shards, and the one document it was before it was sharded (a month
    that began with that document keeps counting what it holds; nothing writes it any more)."""
    collection = tenancy.client_ref(client_id).collection(TOKENS)
    return [collection.document(f"{month}_budget"), *(ledger_ref(client_id, month, i) for i in range(LEDGER_SHARDS))]


def ledger_shard() -> int:
    return random.randrange(LEDGER_SHARDS)  # noqa: S311 - load spreading, not security


def token_refs(client_id: str, month: str) -> list:
    collection = tenancy.client_ref(client_id).collection(TOKENS)
    return [collection.document(f"{month}_{shard:02d}") for shard in range(TOKEN_SHARDS)]


# ------------------------------------------------------------------------------------------ reads


def get_conversation(client_id: str, conversation_id: str) -> dict[str, Any] | None:
    snap = conversation_ref(client_id, conversation_id).get()
    return snap.to_dict() if snap.exists else None


def recent_messages(client_id: str, conversation_id: str, limit: int) -> list[dict[str, Any]]:
    """The conversation's last `limit` messages, oldest first."""
    query = (conversation_ref(client_id, conversation_id).collection(MESSAGES)
             .order_by("index", direction=firestore.Query.DESCENDING).limit(limit))
    return list(reversed([snap.to_dict() for snap in query.stream()]))


def messages(client_id: str, conversation_id: str) -> list[dict[str, Any]]:
    query = conversation_ref(client_id, conversation_id).collection(MESSAGES).order_by("index")
    return [snap.to_dict() for snap in query.stream()]


def user_conversations(client_id: str, uid: str, limit: int, start_after: str | None):
    """The user's conversations, most recently active first, one page, and whether more follow.

    Index (uid, updatedAt desc, conversationId desc); the cursor is a conversation id of the user."""
    query = (tenancy.client_ref(client_id).collection(CONVERSATIONS)
             .where(filter=firestore.FieldFilter("uid", "==", uid))
             .order_by("updatedAt", direction=firestore.Query.DESCENDING)
             .order_by("conversationId", direction=firestore.Query.DESCENDING))
    if start_after:
        cursor = get_conversation(client_id, start_after)
        if cursor is None or cursor.get("uid") != uid:
            return None, False
        query = query.start_after({"updatedAt": cursor["updatedAt"], "conversationId": start_after})
    found = [snap.to_dict() for snap in query.limit(limit + 1).stream()]
    return found[:limit], len(found) > limit


def tokens_used(client_id: str, month: str) -> int:
    snaps = firebase.db().get_all(token_refs(client_id, month))
    return sum(int((snap.to_dict() or {}).get("tokens", 0)) for snap in snaps if snap.exists)


def ledger_tokens(client_id: str, month: str) -> int:
    """The month's ledger: the sum of its documents (one batched read)."""
    snaps = firebase.db().get_all(ledger_refs(client_id, month), field_paths=LEDGER_FIELDS)
    return sum(int((snap.to_dict() or {}).get("tokens", 0)) for snap in snaps if snap.exists)


# ------------------------------------------------------------------------------------------ writes


def add_to_ledger(client_id: str, month: str, shard: int, tokens: int) -> None:
    """Add `tokens` (negative: give back) to one shard of the month's ledger: one server-side increment, no read
    and nothing to abort."""
    ledger_ref(client_id, month, shard).set({"month": month, "shard": shard, "tokens": firestore.Increment(tokens)},
                                            merge=True)


def reserve_on_ledger(client_id: str, month: str, shard: int, tokens: int) -> int:
    """Add `tokens` to one shard; the month's total at that commit (this reservation included).

    The shard's increment returns its own new value; the other documents are read as they were at the commit's time
    (a read at a point in time), so the total is exactly what one document's increment returned: every reservation and
    settlement committed before this one, whichever shard it went to, and none committed after it."""
    db = firebase.db()
    batch = db.batch()
    mine = ledger_ref(client_id, month, shard)
    batch.set(mine, {"month": month, "shard": shard, "tokens": firestore.Increment(tokens)}, merge=True)
    own = int(batch.commit()[0].transform_results[0].integer_value)
    others = [ref for ref in ledger_refs(client_id, month) if ref.id != mine.id]
    snaps = db.get_all(others, field_paths=LEDGER_FIELDS, read_time=batch.commit_time)
    return own + sum(int((snap.to_dict() or {}).get("tokens", 0)) for snap in snaps if snap.exists)


def _add_usage(writer, client_id: str, record: dict[str, Any], now: dt.datetime) -> None:
    """The request's usage record and its tokens on one shard of the month (in the caller's transaction or batch)."""
    writer.set(tenancy.client_ref(client_id).collection(USAGE).document(record["requestId"]), record)
    month = month_of(now)
    shard = random.randrange(TOKEN_SHARDS)  # noqa: S311 - load spreading, not security
    writer.set(token_refs(client_id, month)[shard], {
        "month": month, "shard": shard,
        "tokens": firestore.Increment(record["promptTokens"] + record["completionTokens"]),
    }, merge=True)


def commit_turn(client_id: str, uid: str, conversation_id: str, new_conversation: dict[str, Any] | None,
                turn: list[dict[str, Any]], conversation_fields: dict[str, Any], usage: dict[str, Any],
                now: dt.datetime, max_messages: int) -> bool:
    """Append the turn's messages to the conversation (created when new), record the usage and count the activity,
    all or nothing; concurrent turns of one conversation are numbered one after the other. False when the turn
    could not join the conversation (deleted meanwhile, or no room left for it): the usage is recorded all the same."""
    conversation = conversation_ref(client_id, conversation_id)
    active = tenancy.client_ref(client_id).collection(ACTIVE).document(uid)

    def body(transaction):
        snap = conversation.get(transaction=transaction)
        first_of_day = (active.get(transaction=transaction).to_dict() or {}).get("lastActiveDay") != day_of(now)
        stored = snap.to_dict() if snap.exists else new_conversation
        count = int((stored or {}).get("messageCount", 0))
        joins = stored is not None and count + len(turn) <= max_messages
        if joins:
            for offset, message in enumerate(turn, 1):
                transaction.set(message_ref(client_id, conversation_id, count + offset),
                                {**message, "index": count + offset})
            transaction.set(conversation, {
                **stored, **conversation_fields, "messageCount": count + len(turn), "updatedAt": now,
                "promptTokens": stored.get("promptTokens", 0) + usage["promptTokens"],
                "completionTokens": stored.get("completionTokens", 0) + usage["completionTokens"],
            })
        _add_usage(transaction, client_id, usage, now)
        if first_of_day:
            transaction.set(active, {"uid": uid, "lastActiveDay": day_of(now)})
        ACTIVITY.add(client_id, {
            "chats": int(joins and not snap.exists), "messages": 1, "activeUsers": int(first_of_day),
            "promptTokens": usage["promptTokens"], "completionTokens": usage["completionTokens"],
        }, user=uid, moment=now, within=transaction)
        return joins

    return transactions.run(body)


def record_usage(client_id: str, usage: dict[str, Any], now: dt.datetime) -> None:
    """A request's usage without a conversation (the proxy's, or a chat turn whose conversation was not saved)."""
    batch = firebase.db().batch()
    _add_usage(batch, client_id, usage, now)
    ACTIVITY.add(client_id, {
        "proxyRequests": int(usage["kind"].startswith("proxy")),
        "promptTokens": usage["promptTokens"], "completionTokens": usage["completionTokens"],
    }, user=None, moment=now, within=batch)  # not a chat: its caller is no wellness-chat active user
    batch.commit()


def delete_conversation(client_id: str, conversation_id: str) -> None:
    """The conversation and its messages (in batches of 400, the messages first)."""
    conversation = conversation_ref(client_id, conversation_id)
    while True:
        snaps = list(conversation.collection(MESSAGES).limit(400).stream())
        if not snaps:
            break
        batch = firebase.db().batch()
        for snap in snaps:
            batch.delete(snap.reference)
        batch.commit()
    conversation.delete()
