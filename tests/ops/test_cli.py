"""bin/platformctl as an operator runs it: one JSON document on stdout, one line on stderr on failure."""

import datetime as dt
import json
import os
import pathlib
import subprocess
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import sign_in
from wellness_api.core import auth, clock, firebase, revocation, server_keys, tenancy

ROOT = pathlib.Path(__file__).resolve().parents[2]


def platformctl(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(ROOT / "bin" / "platformctl"), *args], capture_output=True, text=True,
                            timeout=120, env=os.environ.copy())
    if check:
        assert result.returncode == 0, result.stderr
    return result


def run_json(*args: str):
    return json.loads(platformctl(*args).stdout)


def expect_failures(command: tuple[str, ...], cases: list[tuple[list[str], str]]) -> None:
    """Run failing invocations of `command` side by side: each exits non-zero, prints nothing on stdout and one
    line on stderr that holds the case's message."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda case: platformctl(*command, *case[0], check=False), cases))
    for (args, message), result in zip(cases, results, strict=True):
        assert result.returncode != 0, args
        assert result.stdout == "", args
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("platformctl: "), result.stderr
        assert message in lines[0], (args, lines[0])


@pytest.fixture
def client_id(emulators):
    return f"cli-{uuid.uuid4().hex[:10]}"


def test_client_create_configure_user_and_apikey(client_id):
    host = f"{client_id}.example"
    assert run_json("client", "create", "--client-id", client_id, "--name", "CLI Co", "--hostname", host) == {
        "clientId": client_id}
    configured = run_json("client", "configure", "--client-id", client_id, "--set", "auth.externalUser=jit",
                          "--set", "vitalScan.points=7")
    assert configured["clientId"] == client_id
    assert configured["settings"]["auth.externalUser"] == "jit"
    assert configured["settings"]["vitalScan.points"] == 7
    assert configured["settings"]["auth.guestSignIn"] is False
    assert tenancy.client_for_host(host.upper() + ":443").client_id == client_id

    user = run_json("user", "create", "--client-id", client_id, "--email", f"a@{host}", "--password", "pw-123456",
                    "--role", "admin", "--display-name", "Ann")
    token = sign_in(f"a@{host}", "pw-123456")
    claims = auth.verify_id_token(token)
    assert claims["uid"] == user["uid"]
    assert claims["clientId"] == client_id and claims["role"] == "admin" and "platformAdmin" not in claims

    key = run_json("apikey", "create", "--client-id", client_id, "--label", "ops")
    assert set(key) == {"keyId", "secret"}
    match = server_keys.authenticate(key["secret"])
    assert match.client_id == client_id and match.key_id == key["keyId"]

    disabled = run_json("user", "disable", "--client-id", client_id, "--uid", user["uid"])
    assert disabled == {"uid": user["uid"], "disabled": True}
    # platformctl is another process: this one saw the token above and refuses it once that standing is a TTL old.
    clock.advance(revocation.TTL)
    assert auth.verify_id_token(token) is None


@pytest.mark.parametrize(
    "args",
    [
        ["client", "configure", "--client-id", "nope-missing", "--set", "auth.guestSignIn=true"],
        ["client", "configure", "--client-id", "{cid}", "--set", "auth.guestSignIn=maybe"],
        ["client", "create", "--client-id", "bad/id"],
        ["client", "create", "--client-id", "{cid}"],
        ["user", "create", "--client-id", "{cid}", "--email", "x@y.example", "--password", "pw-123456", "--role", "root"],
        ["user", "disable", "--client-id", "{cid}", "--uid", "nobody"],
        ["apikey", "create", "--client-id", "nope-missing"],
    ],
)
def test_failures_exit_non_zero_with_one_line_and_change_nothing(client_id, args):
    run_json("client", "create", "--client-id", client_id)
    before = tenancy.get_client(client_id)
    result = platformctl(*[a.replace("{cid}", client_id) for a in args], check=False)
    assert result.returncode != 0
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("platformctl: ")
    assert tenancy.get_client(client_id) == before


def test_operator_admins_are_platform_admins(operator_tenant):
    claims = auth.verify_id_token(operator_tenant.admin.token)
    assert claims["platformAdmin"] is True and claims["clientId"] == operator_tenant.client_id
    result = platformctl("client", "create", "--client-id", f"op2-{uuid.uuid4().hex[:6]}", "--operator", check=False)
    assert result.returncode == 1 and "operator tenant is already" in result.stderr


def test_hostname_cannot_be_registered_twice(client_id):
    host = f"{client_id}.example"
    run_json("client", "create", "--client-id", client_id, "--hostname", host)
    result = platformctl("client", "create", "--client-id", client_id + "-2", "--hostname", host, check=False)
    assert result.returncode == 1 and "already registered" in result.stderr
    assert tenancy.get_client(client_id + "-2") is None


def _auth_user_exists(email: str) -> bool:
    fb_auth = firebase.auth()
    try:
        fb_auth.get_user_by_email(email, app=firebase.app())
    except fb_auth.UserNotFoundError:
        return False
    return True


def test_user_create_keeps_birth_date_and_sex(client_id):
    run_json("client", "create", "--client-id", client_id)
    email = f"senior@{client_id}.example"
    result = platformctl("user", "create", "--client-id", client_id, "--email", email, "--password", "pw-123456",
                         "--role", "player", "--birth-date", "1950-02-28", "--sex", "female")
    document = json.loads(result.stdout)
    assert set(document) == {"uid"} and document["uid"]
    record = tenancy.user_ref(client_id, document["uid"]).get().to_dict()
    assert (record["birthDate"], record["sex"]) == ("1950-02-28", "female")
    assert (record["email"], record["role"], record["status"]) == (email, "player", tenancy.USER_ACTIVE)
    assert auth.verify_id_token(sign_in(email, "pw-123456"))["uid"] == document["uid"]

    # Both are optional: without them the record holds nulls.
    plain = run_json("user", "create", "--client-id", client_id, "--email", f"plain@{client_id}.example",
                     "--password", "pw-123456", "--role", "player")
    record = tenancy.user_ref(client_id, plain["uid"]).get().to_dict()
    assert (record["birthDate"], record["sex"]) == (None, None)


def test_user_create_refuses_bad_birth_dates_and_sexes_and_changes_nothing(client_id):
    run_json("client", "create", "--client-id", client_id)
    future = (clock.now().date() + dt.timedelta(days=2)).isoformat()
    bad_date = "birth date must be a YYYY-MM-DD date, not in the future and at most 130 years ago"
    cases = [
        (["--birth-date", "1950-02-30"], bad_date),
        (["--birth-date", future], bad_date),
        (["--birth-date", "1800-01-01"], bad_date),
        (["--birth-date", "19500228"], bad_date),
        (["--birth-date", ""], bad_date),
        (["--birth-date", "1950-2-28"], bad_date),
        (["--birth-date", "1950-02-28", "--sex", "other"], "argument --sex: invalid choice"),
        (["--sex", "Female"], "argument --sex: invalid choice"),
    ]
    emails = [f"refused-{n}@{client_id}.example" for n in range(len(cases))]
    expect_failures(
        ("user", "create", "--client-id", client_id, "--password", "pw-123456", "--role", "player"),
        [(["--email", email, *args], message) for email, (args, message) in zip(emails, cases, strict=True)])
    assert not [email for email in emails if _auth_user_exists(email)]
    assert list(tenancy.client_ref(client_id).collection("users").limit(1).stream()) == []
