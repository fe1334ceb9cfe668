"""`client list`, `user list`, `apikey list`, `apikey revoke` and `client configure --help` (issue 29 item 7), run as
an operator runs bin/platformctl, against the emulators."""

import re
import uuid

import pytest

from tests.ops.test_cli import expect_failures, platformctl, run_json
from wellness_api.api_keys import service as key_service
from wellness_api.api_keys.routes import app as api_keys_app
from wellness_api.core import server_keys, settings, tenancy
from wellness_api.ops import listing
from wellness_api.ops.cli import build_parser
from wellness_api.ops.settings_help import value_type

CLIENT_FIELDS = {"clientId", "name", "hostnames", "isOperator", "modules", "createdAt"}
USER_FIELDS = {"uid", "email", "role", "displayName", "status", "disabled", "createdAt"}


@pytest.fixture
def prefix(emulators):
    return f"ls-{uuid.uuid4().hex[:10]}"


# ------------------------------------------------------------------------------------ client list


def test_client_list_pages_in_id_order_with_what_an_operator_needs(prefix):
    host = f"{prefix}-a.example"
    run_json("client", "create", "--client-id", f"{prefix}-a", "--name", "Alpha", "--hostname", host)
    run_json("client", "create", "--client-id", f"{prefix}-b")
    run_json("client", "create", "--client-id", f"{prefix}-c")
    run_json("client", "configure", "--client-id", f"{prefix}-a", "--set", "modules.analytics=true",
             "--set", "modules.aiMove=true", "--set", "modules.vitalScan=false")

    # Ids sort after the bare prefix in this order: nothing another test makes falls between them.
    first = run_json("client", "list", "--start-after", prefix, "--limit", "2")
    assert set(first) == {"clients", "nextStartAfter"}
    a, b = first["clients"]
    assert set(a) == CLIENT_FIELDS
    assert {k: a[k] for k in CLIENT_FIELDS - {"createdAt"}} == {
        "clientId": f"{prefix}-a", "name": "Alpha", "hostnames": [host], "isOperator": False,
        "modules": ["aiMove", "analytics"]}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", a["createdAt"])
    assert (b["clientId"], b["name"], b["hostnames"], b["modules"]) == (f"{prefix}-b", f"{prefix}-b", [], [])
    assert first["nextStartAfter"] == f"{prefix}-b"

    second = run_json("client", "list", "--start-after", first["nextStartAfter"], "--limit", "1")
    assert [c["clientId"] for c in second["clients"]] == [f"{prefix}-c"]


def test_client_list_shows_the_operator_flag(operator_tenant):
    listed = run_json("client", "list", "--start-after", operator_tenant.client_id[:-1], "--limit", "1000")["clients"]
    flags = {c["clientId"]: c["isOperator"] for c in listed}
    assert flags[operator_tenant.client_id] is True
    assert [c for c, operator in flags.items() if operator] == [operator_tenant.client_id]


def test_the_last_page_has_no_next():
    # Past the end of the client list: no test makes a client id this far down the order.
    assert run_json("client", "list", "--start-after", "zzzzzzzz") == {"clients": [], "nextStartAfter": None}


def test_the_default_and_maximum_page_sizes():
    assert build_parser().parse_args(["client", "list"]).limit == listing.DEFAULT_LIMIT == 100
    assert build_parser().parse_args(["user", "list", "--client-id", "x"]).limit == listing.DEFAULT_LIMIT
    assert build_parser().parse_args(["client", "list", "--limit", "1000"]).limit == listing.MAX_LIMIT == 1000
    help_text = platformctl("client", "list", "--help").stdout
    assert "default 100, max 1000" in re.sub(r"\s+", " ", help_text)


def test_list_arguments_out_of_bounds_are_one_line_and_exit_2():
    expect_failures(("client", "list"), [
        (["--limit", "0"], "argument --limit: must be an integer from 1 to 1000"),
        (["--limit", "1001"], "argument --limit: must be an integer from 1 to 1000"),
        (["--limit", "ten"], "argument --limit: must be an integer from 1 to 1000"),
        (["--start-after", "a/b"], "argument --start-after: not an id"),
    ])
    result = platformctl("client", "list", "--limit", "0", check=False)
    assert result.returncode == 2


# ------------------------------------------------------------------------------------ user list


def test_user_list_shows_members_and_invitations_never_secrets(prefix):
    client_id = prefix
    run_json("client", "create", "--client-id", client_id)
    admin = run_json("user", "create", "--client-id", client_id, "--email", f"Admin@{prefix}.example",
                     "--password", "pw-secret-1", "--role", "admin", "--display-name", "Ann", "--birth-date",
                     "1950-01-02", "--sex", "female")["uid"]
    player = run_json("user", "create", "--client-id", client_id, "--email", f"p@{prefix}.example",
                      "--password", "pw-secret-2", "--role", "player")["uid"]
    run_json("user", "disable", "--client-id", client_id, "--uid", player)
    run_json("user", "invite", "--client-id", client_id, "--email", f"new@{prefix}.example", "--role", "player")

    result = platformctl("user", "list", "--client-id", client_id)
    assert "pw-secret" not in result.stdout and "1950" not in result.stdout
    listed = run_json("user", "list", "--client-id", client_id)
    assert listed["nextStartAfter"] is None
    assert all(set(u) == USER_FIELDS for u in listed["users"])
    by_email = {u["email"]: {k: v for k, v in u.items() if k != "createdAt"} for u in listed["users"]}
    assert by_email == {
        f"admin@{prefix}.example": {"uid": admin, "email": f"admin@{prefix}.example", "role": "admin",
                                    "displayName": "Ann", "status": "active", "disabled": False},
        f"p@{prefix}.example": {"uid": player, "email": f"p@{prefix}.example", "role": "player",
                                "displayName": None, "status": "disabled", "disabled": True},
        f"new@{prefix}.example": {"uid": None, "email": f"new@{prefix}.example", "role": "player",
                                  "displayName": None, "status": "invited", "disabled": False},
    }
    assert all(u["createdAt"].endswith("Z") for u in listed["users"])

    # One record a page, three pages, each id after the last.
    seen, after = [], None
    for _ in range(3):
        page = run_json("user", "list", "--client-id", client_id, "--limit", "1",
                        *(["--start-after", after] if after else []))
        seen += [u["email"] for u in page["users"]]
        after = page["nextStartAfter"]
    assert sorted(seen) == sorted(by_email) and after is None


def test_user_list_of_an_unknown_client_is_one_line():
    expect_failures(("user", "list"), [(["--client-id", "nope-missing"], "client nope-missing not found"),
                                       (["--client-id", "../x"], "client ../x not found")])


# ------------------------------------------------------------------------------------ apikey list and revoke


def _api_keys_over_http(client_id: str, admin) -> dict:
    response = api_keys_app.test_client().get(f"/api/clients/{client_id}/api-keys", headers=admin.headers)
    assert response.status_code == 200, response.json
    return response.json


def test_apikey_list_is_the_apis_masked_list(make_tenant):
    tenant = make_tenant()
    first = run_json("apikey", "create", "--client-id", tenant.client_id, "--label", "one")
    second = run_json("apikey", "create", "--client-id", tenant.client_id, "--label", "two")
    result = platformctl("apikey", "list", "--client-id", tenant.client_id)
    assert first["secret"] not in result.stdout and second["secret"] not in result.stdout
    assert "keyHash" not in result.stdout
    listed = run_json("apikey", "list", "--client-id", tenant.client_id)
    over_http = _api_keys_over_http(tenant.client_id, tenant.admin)
    assert listed == {k: v for k, v in over_http.items() if k != "success"}
    assert [k["keyId"] for k in listed["apiKeys"]] == [second["keyId"], first["keyId"]]
    assert listed["legacyPrimaryKeyId"] == first["keyId"]


def test_apikey_revoke_uses_the_apis_rules(make_tenant):
    tenant = make_tenant()
    first = run_json("apikey", "create", "--client-id", tenant.client_id, "--label", "one")
    second = run_json("apikey", "create", "--client-id", tenant.client_id, "--label", "two")

    revoked = run_json("apikey", "revoke", "--client-id", tenant.client_id, "--key-id", first["keyId"])
    assert revoked["keyId"] == first["keyId"] and revoked["status"] == "revoked" and revoked["isPrimary"] is False
    assert revoked["revokedAt"] and "secret" not in revoked and "keyHash" not in revoked
    assert revoked == next(k for k in _api_keys_over_http(tenant.client_id, tenant.admin)["apiKeys"]
                           if k["keyId"] == first["keyId"])
    assert server_keys.authenticate(first["secret"]) is None
    # The primary moved to the remaining key, as the API's revoke does.
    assert tenancy.get_client(tenant.client_id).legacy_primary_key_id == second["keyId"]
    # Revoking twice is the same no-op as through the API, and prints the record again.
    assert run_json("apikey", "revoke", "--client-id", tenant.client_id, "--key-id", first["keyId"]) == revoked

    before = run_json("apikey", "list", "--client-id", tenant.client_id)
    expect_failures(("apikey", "revoke"), [
        (["--client-id", tenant.client_id, "--key-id", second["keyId"]], key_service.LAST_ACTIVE_KEY),
        (["--client-id", tenant.client_id, "--key-id", "nope"], f"API key nope not found in client {tenant.client_id}"),
        (["--client-id", tenant.client_id, "--key-id", "a/b"], f"API key a/b not found in client {tenant.client_id}"),
        (["--client-id", "nope-missing", "--key-id", second["keyId"]], "client nope-missing not found"),
    ])
    assert run_json("apikey", "list", "--client-id", tenant.client_id) == before
    assert server_keys.authenticate(second["secret"]).key_id == second["keyId"]


def test_apikey_list_of_an_unknown_client_is_one_line():
    expect_failures(("apikey", "list"), [(["--client-id", "nope-missing"], "client nope-missing not found")])


# ------------------------------------------------------------------------------------ configure --help


def test_configure_help_names_every_setting_with_its_type_and_bounds():
    help_text = platformctl("client", "configure", "--help").stdout
    lines = {line.strip().split(":", 1)[0]: line.strip() for line in help_text.splitlines()
             if line.startswith("  ") and not line.startswith("      ")}
    for key, setting in settings.SETTINGS.items():
        assert key in lines, key
        line = lines[key]
        assert value_type(setting) in line, line
        if setting.kind == "int":
            assert line.startswith(f"{key}: integer")
            assert (f"min {setting.minimum}" in line) == (setting.minimum is not None), line
            assert (f"max {setting.maximum}" in line) == (setting.maximum is not None), line
        for choice in setting.choices:
            assert choice in line
        # The description follows, so the help says what the key means too.
        assert " ".join(setting.description.split()[:4]) in re.sub(r"\s+", " ", help_text)
    assert "mediaGeneration.maxActiveJobs: integer, min 1, max 20; default 3" in help_text
    assert "auth.externalUser: one of: off, existingOnly, jit; default off" in help_text
    assert "auth.guestSignIn: true or false; default false" in help_text
