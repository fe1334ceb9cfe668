"""Demo wellness chat for `platformctl seed`: a conversation of the demo player (fixed id) with two turns answered
by the real chat path with the local assistant, which calls the AI Move and lessons tools on the player's own data.
Idempotent: made only while missing (the docs' delete sample removes it; the next seed makes it again).
"""

from ..core import tenancy, users
from ..core.auth import Principal
from ..core.tenancy import Client
from . import chat
from . import repository as repo
from .models import WellnessChatBody
from .service import MODULE_SETTING

CONVERSATION_ID = "demo-wellness-chat"
MESSAGES = ("How are my workouts going?", "Which lessons help with balance?")


def seed(client: Client) -> None:
    uid = users.first_member(client.client_id, tenancy.ROLE_PLAYER)
    if uid is None or not client.setting(MODULE_SETTING) or repo.get_conversation(client.client_id, CONVERSATION_ID):
        return
    principal = Principal(kind="user", client_id=client.client_id, uid=uid, role=tenancy.ROLE_PLAYER)
    for index, message in enumerate(MESSAGES):
        body = WellnessChatBody(message=message, locale="en", conversationId=CONVERSATION_ID if index else None)
        turn = chat.prepare(principal, client, body, f"seed-{CONVERSATION_ID}-{index}", new_conversation_id=CONVERSATION_ID)
        stream, request = chat.open_first(turn)
        for _ in chat.Run(turn, stream, request).events():
            pass
