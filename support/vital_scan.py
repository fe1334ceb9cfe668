"""A Vital Scan partner (a client with the module on, points, return origins and an API key) and what its sessions
left in Firestore, for the tests and the bench."""

import dataclasses

from support.tenants import Tenant
from support.tokens import bearer
from wellness_api.api_keys import service as api_keys
from wellness_api.core import clock, firebase
from wellness_api.vital_scan import points
from wellness_api.vital_scan import repository as repo

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


def spent(client_id: str) -> int:
    """Points spent in the current cycle, over all 16 shards."""
    return sum(repo.spent_by_shard(client_id, points.cycle_of(clock.now()).cycle_id, list(range(16))).values())


def stored_sessions(client_id: str) -> list[dict]:
    return [s.to_dict() for s in firebase.db().collection(f"clients/{client_id}/vitalScanSessions").stream()]
