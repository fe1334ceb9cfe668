"""Tenants (clients) and their members, made through the same code platformctl uses, for tests/ and bench/.

Needs the emulators' environment (FIRESTORE_EMULATOR_HOST, FIREBASE_AUTH_EMULATOR_HOST) and functions/ on
sys.path, as `make test` and `make bench` give them.
"""

import os
import secrets
import uuid

from support.tokens import SECRETS, bearer, sign_in
from wellness_api.core import provisioning, tenancy, users

OPERATOR_CLIENT_ID = "operator"
# Hosting's origin of the stack: every end-to-end request and the load run go through it.
BASE_URL = os.environ.get("E2E_BASE_URL", "http://127.0.0.1:5000")


class Member:
    def __init__(self, client_id: str, role: str, email: str, password: str, uid: str):
        self.client_id, self.role, self.email, self.password, self.uid = client_id, role, email, password, uid
        self._token = None

    @property
    def token(self) -> str:
        if self._token is None:
            self._token = sign_in(self.email, self.password)
            SECRETS.add(self._token)
        return self._token

    @property
    def headers(self) -> dict:
        return bearer(self.token)


def new_member(client: tenancy.Client, role: str, birth_date: str | None = None, sex: str | None = None) -> Member:
    """A new member of an existing client, made as platformctl makes one; its password is registered in SECRETS."""
    email = f"{role}-{uuid.uuid4().hex[:10]}@{client.client_id}.test"
    password = secrets.token_urlsafe(12)
    SECRETS.add(password)
    uid = users.create_user(client, email, password, role, display_name=f"{role} of {client.client_id}",
                            birth_date=birth_date, sex=sex)
    return Member(client.client_id, role, email, password, uid)


class Tenant:
    """A client with an admin and a player, created through the same code platformctl uses."""

    def __init__(self, client_id: str, operator: bool = False, hostnames: list[str] | None = None):
        self.client_id = client_id
        # The operator tenant may already exist (the seed makes it); tests then add members to it.
        self.client = tenancy.get_client(client_id) or provisioning.create_client(
            client_id, f"Test {client_id}", hostnames or [], operator)
        self.admin = self.add_member(tenancy.ROLE_ADMIN)
        self.player = self.add_member(tenancy.ROLE_PLAYER)

    def add_member(self, role: str, birth_date: str | None = None, sex: str | None = None) -> Member:
        return new_member(self.client, role, birth_date, sex)

    def configure(self, *assignments: str) -> None:
        provisioning.configure_client(self.client_id, list(assignments))
        self.client = tenancy.get_client(self.client_id)

