"""End-to-end tests call the stack through Hosting on :5000, as partners and apps do."""

import pytest
import requests

from tests.conftest import BASE_URL


@pytest.fixture(scope="session")
def api():
    session = requests.Session()

    def call(method: str, path: str, **kwargs) -> requests.Response:
        return session.request(method, BASE_URL + path, timeout=60, **kwargs)

    return call
