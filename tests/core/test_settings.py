"""Tenant settings parsing (pure)."""

import pytest

from wellness_api.core import settings


@pytest.mark.parametrize(
    ("assignment", "expected"),
    [
        ("auth.externalUser=jit", ("auth.externalUser", "jit")),
        ("auth.guestSignIn=true", ("auth.guestSignIn", True)),
        ("modules.aiMove=false", ("modules.aiMove", False)),
        ("vitalScan.points=25", ("vitalScan.points", 25)),
        ("vitalScan.allowedReturnOrigins=https://B.example/, https://a.example:443,https://a.example:8443",
         ("vitalScan.allowedReturnOrigins", ["https://a.example", "https://a.example:8443", "https://b.example"])),
        ("vitalScan.access=entitlementExpired", ("vitalScan.access", "entitlementExpired")),
    ],
)
def test_parse_assignment(assignment, expected):
    assert settings.parse_assignment(assignment) == expected


@pytest.mark.parametrize(
    "assignment",
    ["auth.externalUser=maybe", "auth.guestSignIn=yes", "vitalScan.points=-1", "vitalScan.points=ten",
     "nope.key=1", "auth.guestSignIn", "vitalScan.allowedReturnOrigins=https://a.example/path",
     "vitalScan.allowedReturnOrigins=https://user:pw@a.example", "vitalScan.allowedReturnOrigins=ftp://a.example"],
)
def test_bad_assignments_are_refused(assignment):
    with pytest.raises(settings.SettingError):
        settings.parse_assignment(assignment)


def test_nested_storage_and_defaults():
    stored: dict = {}
    settings.put(stored, "auth.externalUser", "jit")
    assert stored == {"auth": {"externalUser": "jit"}}
    assert settings.get(stored, "auth.externalUser") == "jit"
    assert settings.get(stored, "auth.guestSignIn") is False
    assert settings.get(None, "vitalScan.access") == "active"
    assert set(settings.flatten(stored)) == set(settings.SETTINGS)
