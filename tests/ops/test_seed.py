"""platformctl seed: the demo world of CONTRACT section 3, stable across runs."""

import requests

from tests.conftest import BASE_URL, bearer, sign_in
from tests.ops.test_cli import platformctl, run_json
from wellness_api.core import auth, server_keys, tenancy


def test_seed_prints_the_demo_world_and_is_idempotent(emulators):
    world = run_json("seed")
    assert world == run_json("seed")
    assert world["baseUrl"] == BASE_URL
    assert world["projectId"] == "demo-wellness"
    assert world["authEmulator"].startswith("http://127.0.0.1:")
    operator = world["operator"]
    assert set(operator["admin"]) == {"email", "password", "uid"}
    assert tenancy.get_client(operator["clientId"]).is_operator
    assert auth.verify_id_token(sign_in(operator["admin"]["email"], operator["admin"]["password"]))["platformAdmin"]

    assert world["clients"], "at least one non-operator client"
    for client in world["clients"]:
        record = tenancy.get_client(client["clientId"])
        assert not record.is_operator
        assert tenancy.client_for_host(client["hostname"]).client_id == client["clientId"]
        for module in ("aiMove", "vitalScan", "mediaGeneration", "wellnessChat", "analytics"):
            assert record.setting(f"modules.{module}") is True
        assert record.setting("vitalScan.points") > 0
        assert server_keys.authenticate(client["apiKey"]).client_id == client["clientId"]
        for role in ("admin", "player"):
            claims = auth.verify_id_token(sign_in(client[role]["email"], client[role]["password"]))
            assert claims["role"] == role and claims["clientId"] == client["clientId"]


def test_seed_refuses_a_real_project():
    result = platformctl("--project", "real-prod-project", "seed", check=False)
    assert result.returncode == 1 and "demo- project" in result.stderr


def test_seeded_key_works_through_hosting(emulators):
    world = run_json("seed")
    client = world["clients"][0]
    response = requests.post(f"{world['baseUrl']}/api/client/token/",
                             json={"clientId": client["clientId"], "clientSecret": client["apiKey"]}, timeout=30)
    assert response.status_code == 200
    admin = sign_in(client["admin"]["email"], client["admin"]["password"])
    keys = requests.get(f"{world['baseUrl']}/api/clients/{client['clientId']}/api-keys", headers=bearer(admin), timeout=30)
    assert keys.status_code == 200 and keys.json()["legacyPrimaryKeyId"]
