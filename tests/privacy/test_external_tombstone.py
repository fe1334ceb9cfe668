"""Issue 28 item 3: an erased partner's user leaves a tombstone, so the same externalUserId then signs in under a new
uid as a new, empty member (a second erasure: a third uid), while every other external user keeps its uid; the
tombstone names nobody in the clear (identity/personal_data.py)."""

import hashlib
import uuid

import pytest

from support.vital_scan import make_partner
from tests.privacy.conftest import create, deliver
from wellness_api.core import firebase
from wellness_api.identity import custom_token
from wellness_api.identity import repository as identity
from wellness_api.identity.routes import custom_token_app

TOMBSTONES = identity.EXTERNAL_TOMBSTONES


def _sign_in(partner, external_id: str) -> str:
    response = custom_token_app.test_client().post(
        "/api/auth/custom-token", headers=partner.headers,
        json={"grantType": "external_user", "externalUserId": external_id})
    assert response.status_code == 200, response.json
    return response.json["user"]["uid"]


def _erase(http, tenant, uid: str) -> None:
    request = create(http, tenant.admin.headers, "erase", uid)
    assert deliver(tenant.client_id, request["requestId"]) == "completed"
    assert deliver(tenant.client_id, request["requestId"]) == "finished"


@pytest.fixture
def partners(make_tenant):
    made = []
    for _ in range(2):
        tenant = make_tenant()
        tenant.configure("auth.externalUser=jit")
        made.append(make_partner(tenant))
    return made


def test_generation_zero_is_the_uid_external_users_always_had():
    material = "wellness-external-user:v1:6:client:someone"
    before = "ext_" + hashlib.sha256(material.encode()).hexdigest()[:40]
    assert custom_token.external_uid("client", "someone") == before
    assert custom_token.external_uid("client", "someone", 0) == before
    uids = {custom_token.external_uid("client", "someone", g) for g in range(4)}
    assert len(uids) == 4
    # A later generation is no generation-0 uid of another spelling (the tag cannot be spelt by the length digits).
    assert custom_token.external_uid("client", "someone", 1) != custom_token.external_uid("g1:client", "someone")


def test_an_erased_external_id_signs_in_as_a_new_member_each_time_and_no_one_else_moves(http, partners, held_tasks,
                                                                                       monkeypatch):
    partner, other_partner = partners
    tenant = partner.tenant
    erased_id, untouched_id = f"erase-me-{uuid.uuid4().hex}", f"keep-me-{uuid.uuid4().hex}"
    first = _sign_in(partner, erased_id)
    untouched = _sign_in(partner, untouched_id)
    elsewhere = _sign_in(other_partner, erased_id)
    assert first == custom_token.external_uid(tenant.client_id, erased_id)
    # The member gets some data of their own, so "empty" means something.
    firebase.db().document(f"clients/{tenant.client_id}/users/{first}").update({"displayName": "Old Name"})

    _erase(http, tenant, first)
    second = _sign_in(partner, erased_id)
    assert second != first
    assert second == custom_token.external_uid(tenant.client_id, erased_id, 1)
    record = identity.get_member(tenant.client_id, second)
    assert record["externalUserId"] == erased_id and record["status"] == "active" and record["role"] == "player"
    assert record["displayName"] is None and record["source"] == "external_user"
    assert identity.get_member(tenant.client_id, first) is None and identity.get_auth_user(first) is None
    assert _sign_in(partner, erased_id) == second  # the new uid is as stable as the first was

    # A resumed erasure of the first uid retires nothing more.
    tombstone = identity.tombstone_id(tenant.client_id, erased_id)
    custom_token.retire_external_uid(tenant.client_id, erased_id, first, tombstone)
    assert _sign_in(partner, erased_id) == second

    _erase(http, tenant, second)
    third = _sign_in(partner, erased_id)
    assert third not in (first, second)
    assert identity.get_member(tenant.client_id, third)["externalUserId"] == erased_id

    # The tombstone: one document, named by a keyed hash, holding the generation only.
    stones = list(firebase.db().collection(f"clients/{tenant.client_id}/{TOMBSTONES}").stream())
    assert [(s.id, set(s.to_dict()), s.to_dict()["generation"]) for s in stones] == [
        (tombstone, {"generation", "updatedAt"}, 2)]
    assert erased_id not in tombstone and first not in tombstone
    assert list(firebase.db().collection(f"clients/{other_partner.client_id}/{TOMBSTONES}").stream()) == []

    # Untouched users keep their uids, and their sign-in reads no tombstone (only a uid after an erasure costs one).
    def no_tombstone_read(*args):
        raise AssertionError("an existing user's sign-in read the tombstone")

    monkeypatch.setattr(identity, "external_generation", no_tombstone_read)
    assert _sign_in(partner, untouched_id) == untouched == custom_token.external_uid(tenant.client_id, untouched_id)
    assert _sign_in(other_partner, erased_id) == elsewhere == custom_token.external_uid(other_partner.client_id,
                                                                                       erased_id)


def test_an_erased_external_id_of_an_existing_users_only_client_is_not_provisioned_again(http, partners, held_tasks):
    partner = partners[0]
    tenant = partner.tenant
    external_id = f"gone-{uuid.uuid4().hex}"
    uid = _sign_in(partner, external_id)
    tenant.configure("auth.externalUser=existingOnly")
    _erase(http, tenant, uid)
    response = custom_token_app.test_client().post(
        "/api/auth/custom-token", headers=partner.headers,
        json={"grantType": "external_user", "externalUserId": external_id})
    assert response.status_code == 403 and response.json["code"] == "jit_provisioning_disabled", response.json
