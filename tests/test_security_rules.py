"""firestore.rules and storage.rules deny every direct client request: nothing is app-readable, not even by its owner.

Apps read and write Firestore and Storage only through the API, whose Cloud Functions use the Admin SDK (which
bypasses the rules); files reach browsers through download-token URLs (core.storage), which Storage serves without
consulting the rules. So the rules refuse everyone, and these tests prove it with the official rules testing library
(@firebase/rules-unit-testing, driven by web/rules-check.mjs) against the emulators: for every collection the platform
writes (FIRESTORE_COLLECTIONS, kept complete by a test, run last, against the data the whole suite leaves behind) and
every Storage object path (STORAGE_OBJECTS), an anonymous user, a player and an admin of another tenant, a guest and a
player of the same tenant, the document's owner (its path's user, its userId), the tenant's admin and a platform
administrator all fail get, list, create, update and delete.

Offline, the Storage emulator may run a stand-in rules runtime that permits everything (devstack/StorageRulesStandIn.java).
rules-check.mjs detects it by behaviour (an anonymous read under a deny-all probe ruleset succeeds); the Storage test
then skips with "storage.rules NOT evaluated" in the summary instead of passing.
"""

import json
import os
from collections import defaultdict

import pytest
import requests

from tests.browser import driver
from tests.browser.driver import ROOT
from tests.firestore_snapshot import collection_group_paths, versions
from wellness_api.core import tenancy

FIRESTORE = f"http://{os.environ['FIRESTORE_EMULATOR_HOST']}/v1/projects/{os.environ['GCLOUD_PROJECT']}/databases/(default)/documents"

# Every collection the platform writes, as collection_group_paths() spells it. A new collection fails
# test_declared_collections_cover_the_database until it is added here, and so gets its rules checked.
FIRESTORE_COLLECTIONS = (
    "aiMoveLibrary/{id}",
    "apiKeyIndex/{id}",
    "clients/{id}",
    "clients/{id}/aiMoveActiveDays/{id}",
    "clients/{id}/aiMoveActivity/{id}",
    "clients/{id}/aiMoveCatalog/{id}",
    "clients/{id}/aiMoveExercises/{id}",
    "clients/{id}/aiMoveSessions/{id}",
    "clients/{id}/aiMoveStats/{id}",
    "clients/{id}/apiKeys/{id}",
    "clients/{id}/assistantActive/{id}",
    "clients/{id}/assistantActivity/{id}",
    "clients/{id}/assistantConversations/{id}",
    "clients/{id}/assistantConversations/{id}/messages/{id}",
    "clients/{id}/assistantTokens/{id}",
    "clients/{id}/assistantUsage/{id}",
    "clients/{id}/contentKeys/{id}",
    "clients/{id}/contentPermissions/{id}",
    "clients/{id}/externalUserTombstones/{id}",
    "clients/{id}/fallRiskActivity/{id}",
    "clients/{id}/fallRiskResults/{id}",
    "clients/{id}/lessonActivity/{id}",
    "clients/{id}/lessonCatalog/{id}",
    "clients/{id}/lessonPlans/{id}",
    "clients/{id}/lessonPlays/{id}",
    "clients/{id}/lessons/{id}",
    "clients/{id}/mediaAssets/{id}",
    "clients/{id}/mediaGenerationActivity/{id}",
    "clients/{id}/mediaJobAdmission/{id}",
    "clients/{id}/mediaJobs/{id}",
    "clients/{id}/privacyRequests/{id}",
    "clients/{id}/usageShards/{id}",
    "clients/{id}/users/{id}",
    "clients/{id}/vitalScanActivity/{id}",
    "clients/{id}/vitalScanPoints/{id}",
    "clients/{id}/vitalScanRate/{id}",
    "clients/{id}/vitalScanSessions/{id}",
    "contentItems/{id}",
    "contentItems/{id}/versions/{id}",
    "hostnames/{id}",
    "platform/{id}",
    "privacyRetention/{id}",
    "rateLimits/{id}",
    "rateLimits/{id}/slotLeases/{id}",
    "vitalScanTokens/{id}",
)
# The object names the platform stores (lessons.repository.subtitle_path, media_generation.repository.library_path,
# privacy.repository.archive_path).
STORAGE_OBJECTS = (
    "clients/{clientId}/lessons/{id}/subtitles/en/{id}.vtt",
    "clients/{clientId}/media-library/{id}.png",
    "privacy/{clientId}/{id}.zip",
)
CONTEXTS = ("anonymous", "otherTenantPlayer", "otherTenantAdmin", "guest", "samePlayer", "owner", "tenantAdmin",
            "platformAdmin")
FIRESTORE_OPS = ("get", "list", "create", "update", "delete")
STORAGE_OPS = ("get", "read", "list", "create", "update", "delete")


@pytest.fixture(scope="module")
def report() -> dict:
    """One run of web/rules-check.mjs over every declared path (a few seconds for all of them at once)."""
    if not (ROOT / "web" / "node_modules" / "@firebase" / "rules-unit-testing").is_dir():
        pytest.fail("web/node_modules/@firebase/rules-unit-testing is missing: run `make install`", pytrace=False)
    paths = {"firestore": list(FIRESTORE_COLLECTIONS), "storage": list(STORAGE_OBJECTS)}
    return driver.run("rules-check.mjs", timeout=180, stdin=json.dumps(paths))


def _by_template(cells: list[dict]) -> dict[str, list[dict]]:
    grouped = defaultdict(list)
    for cell in cells:
        grouped[cell["template"]].append(cell)
    return grouped


def _assert_all_denied(cells: list[dict], ops: tuple[str, ...]) -> None:
    """Every context tried every operation, and every try was refused by the rules."""
    assert sorted((c["context"], c["op"]) for c in cells) == sorted((c, o) for c in CONTEXTS for o in ops)
    wrong = [f"{c['context']} {c['op']} {c['path']}: {c['outcome']} {c.get('detail', '')}".strip()
             for c in cells if c["outcome"] != "denied"]
    assert not wrong, "\n".join(wrong)


def test_the_harness_tells_allowed_from_denied(report):
    """Under control rules that let tenant-a read, its member reads and another tenant's does not (claims reach the rules)."""
    assert report["firestore"]["control"] == {"samePlayer": "allowed", "otherTenantPlayer": "denied"}


@pytest.mark.parametrize("template", FIRESTORE_COLLECTIONS)
def test_firestore_collection_denies_every_client(report, template):
    """No one, the document's owner, its tenant's admin and the platform administrator included, reads or writes it."""
    _assert_all_denied(_by_template(report["firestore"]["cells"])[template], FIRESTORE_OPS)


@pytest.mark.after_all
def test_declared_collections_cover_the_database():
    """Every collection found in the platform's project is declared above, so its rules are tested."""
    found = collection_group_paths(versions())
    if not found:
        pytest.skip("no platform data in the Firestore emulator (this file ran alone): the declared collections are "
                    "checked against what the rest of the suite writes, in a full `make test`")
    # Unit tests of the shared rollup code write scratch collections of their own, named test*.
    platform = {template for template in found if not any(part.startswith("test") for part in template.split("/"))}
    undeclared = sorted(platform - set(FIRESTORE_COLLECTIONS))
    assert not undeclared, f"collections without a rules test: add them to FIRESTORE_COLLECTIONS: {undeclared}"


def test_storage_objects_deny_every_client(report):
    """Every stored object's path refuses metadata, download URL, list, upload, metadata update and delete to everyone."""
    storage = report["storage"]
    if not storage["rulesEvaluated"]:
        allowed = sum(c["outcome"] == "allowed" for c in storage["cells"])
        runtime = ("the offline stand-in rules runtime (devstack/StorageRulesStandIn.java, DEVSTACK_STORAGE_RULES=standin)"
                   if storage["standinEnv"] else "a rules runtime that permits everything")
        pytest.skip(f"storage.rules NOT evaluated: the Storage emulator runs {runtime}; an anonymous read passed a deny-all "
                    f"probe ruleset and {allowed} of {len(storage['cells'])} checks were permitted. Run with the real "
                    "Storage rules runtime (online `make install`) to test storage.rules.")
    grouped = _by_template(storage["cells"])
    assert set(grouped) == set(STORAGE_OBJECTS)
    for template in STORAGE_OBJECTS:
        _assert_all_denied(grouped[template], STORAGE_OPS)


def test_deployed_rules_refuse_real_id_tokens(tenant):
    """The rules the emulator loaded for the platform's own project refuse its users' real ID tokens (REST, as an app)."""
    for path in (f"clients/{tenant.client_id}", f"clients/{tenant.client_id}/users/{tenant.player.uid}",
                 f"clients/{tenant.client_id}/apiKeys/any", "apiKeyIndex/any", "hostnames/any"):
        for member in (tenant.admin, tenant.player):
            response = requests.get(f"{FIRESTORE}/{path}", headers=member.headers, timeout=10)
            assert response.status_code == 403, (path, member.role, response.text)
    response = requests.patch(f"{FIRESTORE}/clients/{tenant.client_id}?updateMask.fieldPaths=isOperator",
                              json={"fields": {"isOperator": {"booleanValue": True}}}, headers=tenant.admin.headers, timeout=10)
    assert response.status_code == 403
    assert tenancy.get_client(tenant.client_id).is_operator is False
