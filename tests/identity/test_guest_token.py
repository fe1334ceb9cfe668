"""POST /api/auth/guest-custom-token (4.2, 7.2, 8): a temporary guest identity for the host's client."""

import datetime as dt
import uuid

import pytest

from tests.identity.conftest import claims_of, fresh_window, redeem
from wellness_api.core import clock, tenancy

PATH = "/api/auth/guest-custom-token"


@pytest.fixture
def guest_tenant(make_tenant):
    host = f"trial-{uuid.uuid4().hex[:8]}.example.test"
    tenant = make_tenant(hostnames=[host])
    tenant.configure("auth.guestSignIn=true")
    tenant.host = host
    return tenant


def caller(host: str, address: str = "203.0.113.10") -> dict:
    return {"X-Forwarded-Host": host, "X-Forwarded-For": address}


def test_guest_token_signs_in_a_new_guest_of_the_hosts_client(idp, guest_tenant):
    first = idp.post(PATH, headers=caller(guest_tenant.host))
    second = idp.post(PATH, headers=caller(guest_tenant.host))
    assert first.status_code == 200 and set(first.json) == {"customToken"}
    one, two = claims_of(redeem(first.json["customToken"])), claims_of(redeem(second.json["customToken"]))
    assert one["uid"] != two["uid"] and one["uid"].startswith("guest_")
    assert one["clientId"] == guest_tenant.client_id and one["role"] == "guest"
    assert "platformAdmin" not in one
    # Nothing is stored for a guest: it is not a client user.
    assert not tenancy.user_ref(guest_tenant.client_id, one["uid"]).get().exists


def test_guest_sign_in_off_is_403(idp, make_tenant):
    host = f"closed-{uuid.uuid4().hex[:8]}.example.test"
    make_tenant(hostnames=[host])  # auth.guestSignIn defaults to false
    response = idp.post(PATH, headers=caller(host))
    assert response.status_code == 403
    assert response.json == {"error": "Public guest sign-in is not allowed for this client"}


def test_unregistered_host_is_500_client_id_not_found(idp, guest_tenant):
    response = idp.post(PATH, headers=caller("nobody.example.test"))
    assert response.status_code == 500
    assert response.json == {"error": "Client ID not found"}


@pytest.mark.parametrize("host", ["__x__", "a..b", "x" * 254, "a_b.example.test", "host:port"])
def test_an_invalid_host_is_an_unregistered_host(idp, guest_tenant, host):
    response = idp.post(PATH, headers=caller(host))
    assert response.status_code == 500
    assert response.json == {"error": "Client ID not found"}


def test_host_header_without_forwarding(idp, guest_tenant):
    response = idp.post(PATH, headers={"Host": guest_tenant.host})
    assert response.status_code == 200


def test_attempts_are_limited_per_caller_with_retry_after_seconds(idp, guest_tenant):
    guest_tenant.configure("auth.guestAttemptsPerMinute=2")
    fresh_window()
    for _ in range(2):
        assert idp.post(PATH, headers=caller(guest_tenant.host)).status_code == 200
    limited = idp.post(PATH, headers=caller(guest_tenant.host))
    assert limited.status_code == 429
    assert set(limited.json) == {"error", "retryAfterSeconds"}
    assert isinstance(limited.json["retryAfterSeconds"], int) and 1 <= limited.json["retryAfterSeconds"] <= 60
    assert limited.headers["Retry-After"] == str(limited.json["retryAfterSeconds"])
    # Another caller is not limited by this one; a spoofed left-hand X-Forwarded-For entry does not help.
    assert idp.post(PATH, headers=caller(guest_tenant.host, "203.0.113.11")).status_code == 200
    spoofed = {**caller(guest_tenant.host), "X-Forwarded-For": "10.9.9.9, 203.0.113.10"}
    assert idp.post(PATH, headers=spoofed).status_code == 429
    clock.advance(dt.timedelta(seconds=limited.json["retryAfterSeconds"]))
    assert idp.post(PATH, headers=caller(guest_tenant.host)).status_code == 200


def test_an_ipv6_caller_cannot_rotate_through_its_64(idp, guest_tenant):
    """Every address of one /64 is one caller: rotating the interface id used to buy 10 more a minute."""
    guest_tenant.configure("auth.guestAttemptsPerMinute=2")
    fresh_window()
    prefix = f"2001:db8:{uuid.uuid4().int % 0xffff:x}:1"
    for suffix in ("::1", "::2"):
        assert idp.post(PATH, headers=caller(guest_tenant.host, prefix + suffix)).status_code == 200
    for suffix in ("::3", ":ffff:ffff:ffff:ffff", ":1234::9"):
        assert idp.post(PATH, headers=caller(guest_tenant.host, prefix + suffix)).status_code == 429
    # The next /64 is another caller, and an IPv4-mapped address is its IPv4 address.
    assert idp.post(PATH, headers=caller(guest_tenant.host, prefix[:-1] + "2::1")).status_code == 200
    v4 = f"198.51.100.{uuid.uuid4().int % 250 + 1}"
    assert idp.post(PATH, headers=caller(guest_tenant.host, v4)).status_code == 200
    assert idp.post(PATH, headers=caller(guest_tenant.host, "::ffff:" + v4)).status_code == 200
    assert idp.post(PATH, headers=caller(guest_tenant.host, v4)).status_code == 429


def test_the_client_has_a_ceiling_whatever_the_number_of_callers(idp, guest_tenant):
    guest_tenant.configure("auth.guestSignInsPerMinute=3")
    fresh_window()
    for i in range(3):
        assert idp.post(PATH, headers=caller(guest_tenant.host, f"203.0.113.{100 + i}")).status_code == 200
    limited = idp.post(PATH, headers=caller(guest_tenant.host, "203.0.113.200"))
    assert limited.status_code == 429
    assert limited.json == {"error": "Too many guest sign-in attempts; retry later",
                            "retryAfterSeconds": limited.json["retryAfterSeconds"]}
    assert limited.headers["Retry-After"] == str(limited.json["retryAfterSeconds"])
    clock.advance(dt.timedelta(seconds=limited.json["retryAfterSeconds"]))
    assert idp.post(PATH, headers=caller(guest_tenant.host, "203.0.113.201")).status_code == 200


def test_the_ceiling_is_a_bounded_setting(guest_tenant):
    with pytest.raises(Exception, match="at most 6000"):
        guest_tenant.configure("auth.guestSignInsPerMinute=6001")


def test_limits_are_per_client(idp, guest_tenant, make_tenant):
    guest_tenant.configure("auth.guestAttemptsPerMinute=1")
    other_host = f"trial-{uuid.uuid4().hex[:8]}.example.test"
    other = make_tenant(hostnames=[other_host])
    other.configure("auth.guestSignIn=true")
    fresh_window()
    assert idp.post(PATH, headers=caller(guest_tenant.host)).status_code == 200
    assert idp.post(PATH, headers=caller(guest_tenant.host)).status_code == 429
    assert idp.post(PATH, headers=caller(other_host)).status_code == 200


def test_get_is_405(idp, guest_tenant):
    assert idp.get(PATH, headers=caller(guest_tenant.host)).status_code == 405


def test_unexpected_failure_is_500_internal_server_error(idp, guest_tenant):
    # A client document damaged outside platformctl (a setting of the wrong type).
    tenancy.client_ref(guest_tenant.client_id).update({"settings.auth.guestAttemptsPerMinute": "many"})
    response = idp.post(PATH, headers=caller(guest_tenant.host))
    assert response.status_code == 500
    assert response.json == {"error": "Internal Server Error"}


def test_a_body_and_its_content_type_are_ignored(idp, guest_tenant):
    """The endpoint takes no body, so whatever a caller sends along (and its Content-Type) does not matter."""
    for headers, data in (({"Content-Type": "text/plain"}, b"hello"), ({}, b"[" * 1000), ({}, b"")):
        response = idp.post(PATH, data=data, headers={**caller(guest_tenant.host, "203.0.113.77"), **headers})
        assert response.status_code == 200 and set(response.json) == {"customToken"}
