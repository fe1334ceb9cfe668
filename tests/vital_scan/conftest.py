"""Vital Scan fixtures: a workspace (client) with the module on, points, return origins and an API key."""

import pytest

from support.vital_scan import ORIGIN, Partner, make_partner  # noqa: F401 - the tests import ORIGIN from here
from wellness_api.vital_scan.routes import app


@pytest.fixture
def http():
    return app.test_client()


@pytest.fixture
def partner(tenant) -> Partner:
    return make_partner(tenant)


@pytest.fixture
def other_partner(other_tenant) -> Partner:
    return make_partner(other_tenant)
