"""`platformctl user invite` (CONTRACT 3): one JSON document on stdout, one line on stderr on failure."""

import json
import uuid

from tests.ops.test_cli import platformctl, run_json
from wellness_api.core import tenancy
from wellness_api.identity import repository as repo


def test_user_invite_prints_the_invitation_and_stores_it(tenant):
    email = f"New.Coach-{uuid.uuid4().hex[:6]}@Example.test"
    printed = run_json("user", "invite", "--client-id", tenant.client_id, "--email", email, "--role", "admin")
    assert printed == {"email": email.lower(), "clientId": tenant.client_id, "role": "admin", "status": "invited"}
    stored = repo.invite_ref(tenant.client_id, email.lower()).get().to_dict()
    assert stored["status"] == "invited" and stored["role"] == "admin" and stored["uid"] is None
    # Repeating it is harmless.
    assert run_json("user", "invite", "--client-id", tenant.client_id, "--email", email, "--role", "admin") == printed


def test_user_invite_failures_change_nothing(tenant):
    email = f"someone-{uuid.uuid4().hex[:6]}@example.test"
    cases = [
        (["--client-id", "no-such-client", "--email", email, "--role", "player"], "client no-such-client not found"),
        (["--client-id", tenant.client_id, "--email", "nope", "--role", "player"], "not an email address"),
        (["--client-id", tenant.client_id, "--email", tenant.admin.email, "--role", "player"], "already a member"),
    ]
    for args, message in cases:
        result = platformctl("user", "invite", *args, check=False)
        assert result.returncode == 1 and result.stdout == ""
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    bad_role = platformctl("user", "invite", "--client-id", tenant.client_id, "--email", email, "--role", "guest",
                           check=False)
    assert bad_role.returncode == 2
    assert not repo.invite_ref(tenant.client_id, email).get().exists
    assert not tenancy.get_client("no-such-client")


def test_other_user_commands_still_work(tenant):
    # `user invite` joins the `user` group that commands.tenants makes.
    result = platformctl("user", "--help")
    assert "invite" in result.stdout and "create" in result.stdout and "disable" in result.stdout
    created = json.loads(platformctl("user", "create", "--client-id", tenant.client_id, "--email",
                                     f"p-{uuid.uuid4().hex[:6]}@example.test", "--password", "pw-123456",
                                     "--role", "player").stdout)
    assert set(created) == {"uid"}
