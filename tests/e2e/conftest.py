"""End-to-end tests call the stack through Hosting on :5000, as partners and apps do.

Every answer they receive is checked against the OpenAPI document the stack serves (contract.py), so a
drift between the code and the document fails the run.
"""

import pytest
import requests

from tests.conftest import BASE_URL
from tests.e2e.contract import Contract


@pytest.fixture(scope="session")
def contract() -> Contract:
    response = requests.get(BASE_URL + "/api/openapi.json", timeout=60)
    response.raise_for_status()
    return Contract(response.json())


@pytest.fixture(scope="session")
def api(contract):
    session = requests.Session()

    def call(method: str, path: str, **kwargs) -> requests.Response:
        response = session.request(method, BASE_URL + path, timeout=60, **kwargs)
        contract.check(response)
        return response

    return call
