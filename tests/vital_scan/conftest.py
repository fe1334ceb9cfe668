"""Vital Scan fixtures: a workspace (client) with the module on, points, return origins and an API key."""

import dataclasses

import pytest

from tests.conftest import Tenant, bearer
from wellness_api.api_keys import service as api_keys
from wellness_api.vital_scan.routes import app

ORIGIN = "https://partner.example"


@dataclasses.dataclass
class Partner:
    tenant: Tenant
    key: str

    @property
    def client_id(self) -> str:
        return self.tenant.client_id

    @property
    def headers(self) -> dict:
        return bearer(self.key)

    def configure(self, *assignments: str) -> None:
        self.tenant.configure(*assignments)


def make_partner(tenant: Tenant, points: int = 20, rpm: int = 1000, origins: str = ORIGIN) -> Partner:
    tenant.configure("modules.vitalScan=true", f"vitalScan.points={points}", f"vitalScan.requestsPerMinute={rpm}",
                     f"vitalScan.allowedReturnOrigins={origins}")
    key = api_keys.create_key(tenant.client_id, "vital scan", False, "test").secret
    return Partner(tenant, key)


@pytest.fixture
def http():
    return app.test_client()


@pytest.fixture
def partner(tenant) -> Partner:
    return make_partner(tenant)


@pytest.fixture
def other_partner(other_tenant) -> Partner:
    return make_partner(other_tenant)
