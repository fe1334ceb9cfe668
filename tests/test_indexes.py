"""Every Firestore query the platform made during the run has its index in firestore.indexes.json; every TTL policy
and field override there names a field the platform writes.

The Firestore emulator serves any query without an index, so a missing composite index passes every test and is
a FAILED_PRECONDITION in production. devstack runs every stack with WELLNESS_FIRESTORE_QUERY_LOG set, and
core/query_record.py then records the shape of each query and write the platform's own code makes (the Functions
workers, the CLI, the areas' code called by tests; never values, never the tests' own setup queries). The tests
marked after_all read those records once the rest of the suite has run; tests/firestore_indexes.py holds
Firestore's published rules for which index serves which query.
"""

import json
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import firestore

from tests.firestore_indexes import Indexes, describe, needs
from wellness_api.core import query_record

ROOT = Path(__file__).resolve().parents[1]
INDEXES = ROOT / "firestore.indexes.json"

# Fields that look like a TTL field but hold something else; each with why it must not delete its document.
NOT_TTL: dict[tuple[str, str], str] = {
    ("apiKeys", "expiresAt"): "an API key's own expiry: the key is refused after it, and kept for audit (api_keys)",
    ("vitalScanSessions", "expiresAt"): "the end of a session's two-hour window: the sweep marks it expired and the "
                                        "session stays a result; its TTL field is expireAt (void markers)",
    ("contentItems", "expiresAt"): "the end of an item's publication: it is served no more (410), and kept",
    ("versions", "expiresAt"): "the same end of publication on each kept version of a content item",
}
TTL_LIKE = re.compile(r"^(expireAt|expiresAt|expiry|ttl|deleteAt|purgeAt)$")
TIMESTAMP = {"timestamp_value", "set_to_server_value"}


def _records() -> list[dict]:
    folder = os.environ.get(query_record.ENV)
    if not folder or not Path(folder).is_dir():
        pytest.skip(f"no query records: run the suite with `make test`, whose stack sets {query_record.ENV}")
    found = [json.loads(line) for path in sorted(Path(folder).glob("*.jsonl")) for line in path.read_text().splitlines()]
    # Unit tests of the shared rollup code run it on scratch collections of their own, named test*.
    found = [r for r in found if not r.get("collection", "").startswith("test")]
    if not found:
        pytest.skip("the platform made no Firestore query during this run (this file ran alone)")
    return found


def _whole_suite(session) -> bool:
    """Whether every tests/ folder ran: only then is a field that was never written a finding. `make test` runs the
    suite in steps, each its own pytest process (devstack/test_suite.sh), and says so for the last one."""
    if os.environ.get("TESTS_WHOLE_SUITE") == "1":
        return True
    ran = {Path(item.path).relative_to(ROOT / "tests").parts[0] for item in session.items}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    return folders <= ran


# ---------------------------------------------------------------------------------------------- the rules


def _shape(query) -> dict:
    request, _, _ = query._prep_stream()
    return query_record._query_shape(request)[0]


@pytest.fixture(scope="module")
def db():
    return firestore.Client(project="demo-shapes", credentials=AnonymousCredentials())


INDEXES_UNDER_TEST = Indexes({
    "indexes": [
        {"collectionGroup": "jobs", "queryScope": "COLLECTION",
         "fields": [{"fieldPath": "status", "order": "ASCENDING"}, {"fieldPath": "createdAt", "order": "DESCENDING"}]},
        {"collectionGroup": "users", "queryScope": "COLLECTION_GROUP",
         "fields": [{"fieldPath": "role", "order": "ASCENDING"}, {"fieldPath": "status", "order": "ASCENDING"}]},
        {"collectionGroup": "users", "queryScope": "COLLECTION_GROUP",
         "fields": [{"fieldPath": "role", "order": "ASCENDING"}, {"fieldPath": "age", "order": "ASCENDING"}]},
        {"collectionGroup": "users", "queryScope": "COLLECTION_GROUP",
         "fields": [{"fieldPath": "status", "order": "ASCENDING"}, {"fieldPath": "age", "order": "ASCENDING"}]},
    ],
    "fieldOverrides": [
        {"collectionGroup": "rates", "fieldPath": "count", "indexes": []},
        {"collectionGroup": "sessions", "fieldPath": "status",
         "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"}]},
    ],
})
F = firestore.FieldFilter


@pytest.mark.parametrize(("build", "served"), [
    # Single-field indexes, automatic in collection scope: one filter, one order, several equalities merged.
    (lambda db: db.collection("jobs").where(filter=F("status", "==", "x")), True),
    (lambda db: db.collection("jobs").where(filter=F("createdAt", ">", 1)).order_by("createdAt"), True),
    (lambda db: db.collection("jobs").order_by("createdAt", direction="DESCENDING"), True),
    (lambda db: db.collection("jobs").where(filter=F("a", "==", 1)).where(filter=F("b", "in", [1, 2])), True),
    (lambda db: db.collection("jobs").where(filter=F("tags", "array_contains", "x")), True),
    # Equality plus an order on another field: the composite, in its direction only.
    (lambda db: db.collection("jobs").where(filter=F("status", "==", "x")).order_by("createdAt", direction="DESCENDING"), True),
    (lambda db: db.collection("jobs").where(filter=F("status", "==", "x")).order_by("createdAt"), False),
    (lambda db: db.collection("jobs").where(filter=F("status", "==", "x")).where(filter=F("createdAt", "<", 1)), False),
    (lambda db: db.collection("jobs").order_by("status").order_by("createdAt", direction="DESCENDING"), True),
    (lambda db: db.collection("jobs").order_by("status").order_by("priority"), False),
    (lambda db: db.collection("jobs").where(filter=F("tags", "array_contains", "x")).order_by("createdAt"), False),
    # Collection groups: nothing is automatic; merged composites that end in the same order serve.
    (lambda db: db.collection_group("users").where(filter=F("role", "==", "a")), False),
    (lambda db: db.collection_group("users").where(filter=F("role", "==", "a")).where(filter=F("status", "==", "b")), True),
    (lambda db: db.collection_group("users").where(filter=F("role", "==", "a")).where(filter=F("status", "==", "b"))
     .order_by("age"), True),
    (lambda db: db.collection_group("users").where(filter=F("role", "==", "a")).where(filter=F("plan", "==", "b"))
     .order_by("age"), False),
    (lambda db: db.collection_group("sessions").where(filter=F("status", "==", "a")), True),
    (lambda db: db.collection_group("anything").order_by("__name__").start_at({"__name__": "x"}), True),
    # An exempted field serves nothing; an OR is served disjunct by disjunct.
    (lambda db: db.collection("rates").where(filter=F("count", ">", 1)), False),
    (lambda db: db.collection("jobs").where(filter=firestore.Or([F("a", "==", 1), F("b", "==", 2)])), True),
    (lambda db: db.collection("jobs").where(filter=firestore.Or([F("status", "==", 1), F("b", "==", 2)]))
     .order_by("createdAt", direction="DESCENDING"), False),
])
def test_the_rules_tell_which_queries_an_index_serves(db, build, served):
    shape = _shape(build(db))
    assert all(INDEXES_UNDER_TEST.serves(n) for n in needs(shape)) is served, describe(shape)


def test_aggregations_read_the_index_of_their_query(db):
    query = db.collection_group("users").where(filter=F("role", "==", "a")).where(filter=F("status", "==", "b"))
    request, _ = query.count(alias="n").avg("age", alias="mean")._prep_stream()
    shape = query_record._aggregation_shape(request)[0]
    assert shape["aggregations"] == [["count", None], ["avg", "age"]]
    # avg(age) reads age from an index whose prefix is the equalities: [role, age] and [status, age] merged.
    assert all(INDEXES_UNDER_TEST.serves(n) for n in needs(shape))
    shape["aggregations"] = [["sum", "points"]]
    assert not all(INDEXES_UNDER_TEST.serves(n) for n in needs(shape))


def test_the_missing_index_is_named_as_the_entry_to_add(db):
    shape = _shape(db.collection("jobs").where(filter=F("status", "==", "x")).where(filter=F("tags", "array_contains", "y"))
                   .order_by("updatedAt", direction="DESCENDING").order_by("__name__"))
    (need,) = needs(shape)
    assert need.index_entry() == {"collectionGroup": "jobs", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "status", "order": "ASCENDING"}, {"fieldPath": "tags", "arrayConfig": "CONTAINS"},
        {"fieldPath": "updatedAt", "order": "DESCENDING"}, {"fieldPath": "__name__", "order": "ASCENDING"}]}
    (need,) = needs(_shape(db.collection_group("users").where(filter=F("plan", "==", "x"))))
    assert need.index_entry() == {"fieldOverride": {"collectionGroup": "users", "fieldPath": "plan",
                                                    "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"}]}}


def test_the_record_holds_no_value(db):
    secret = "hr-72-bpm-of-user-u123"
    query = (db.collection("clients").document(secret).collection("users").where(filter=F("metric", "==", secret))
             .order_by("at").start_after({"at": secret}).limit(7))
    shape = _shape(query)
    assert secret not in json.dumps(shape)
    assert shape["parent"] == "clients/{id}" and shape["startAt"] == {"before": False, "values": 1} and shape["limit"]
    batch = db.batch()
    batch.set(db.collection("clients").document(secret), {"hr": 72.5, "note": secret, "expireAt": firestore.SERVER_TIMESTAMP})
    writes = query_record._commit_shapes({"writes": batch._write_pbs})
    assert secret not in json.dumps(writes) and "72.5" not in json.dumps(writes)
    assert {(w["field"], w["type"]) for w in writes} == {("hr", "double_value"), ("note", "string_value"),
                                                         ("expireAt", "set_to_server_value")}


# ------------------------------------------------------------------------------------------ the whole run


@pytest.mark.after_all
def test_every_query_the_platform_made_has_its_index():
    records = _records()
    errors = [r for r in records if r["kind"] == "recorder-error"]
    assert not errors, f"core/query_record.py could not read {len(errors)} requests: {errors[:3]}"
    indexes = Indexes.load(INDEXES)
    missing: dict[str, set[str]] = defaultdict(set)
    for record in records:
        if record["kind"] not in ("query", "aggregation"):
            continue
        for need in needs(record):
            if not indexes.serves(need):
                missing[json.dumps(need.index_entry(), indent=2)].add(f"{record['site']}: {describe(record)}")
    if missing:
        pytest.fail("Firestore queries without their index (production answers FAILED_PRECONDITION); add to "
                    "firestore.indexes.json:\n" + "\n".join(f"{entry}\n  for: " + "\n       ".join(sorted(sites))
                                                             for entry, sites in sorted(missing.items())), pytrace=False)


def _written(records: list[dict]) -> dict[tuple[str, str], set[str]]:
    """(collection group, top-level field) -> the kinds of value the platform wrote there."""
    written: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in records:
        if r["kind"] == "write":
            written[(r["collection"], r["field"])].add(r["type"])
    return written


@pytest.mark.after_all
def test_every_expiring_document_has_its_ttl_policy():
    written = _written(_records())
    ttl = {(o["collectionGroup"], o["fieldPath"]) for o in Indexes.load(INDEXES).document.get("fieldOverrides", [])
           if o.get("ttl")}
    wrong = [f"{c}.{f} is a TTL field but the platform writes it as {sorted(kinds - TIMESTAMP)} (TTL deletes only on a "
             "timestamp)" for (c, f), kinds in written.items() if (c, f) in ttl and kinds - TIMESTAMP]
    missing = [json.dumps({"collectionGroup": c, "fieldPath": f, "ttl": True, "indexes": []})
               for (c, f), kinds in sorted(written.items())
               if TTL_LIKE.match(f) and kinds & TIMESTAMP and (c, f) not in ttl and (c, f) not in NOT_TTL]
    assert not wrong, "\n".join(wrong)
    if missing:
        pytest.fail("documents carry an expiry timestamp that no TTL policy deletes; add to firestore.indexes.json "
                    "fieldOverrides (or, if it must not delete, to NOT_TTL here with why):\n" + "\n".join(missing),
                    pytrace=False)


@pytest.mark.after_all
def test_every_ttl_policy_and_override_names_a_field_the_platform_writes(request):
    records = _records()
    if not _whole_suite(request.session):
        pytest.skip("part of the suite ran: a field it did not write may be written by the rest (run `make test`)")
    written = _written(records)
    collections = {c for c, _ in written}
    stale = [f"{o['collectionGroup']}.{o['fieldPath']} ({'TTL policy' if o.get('ttl') else 'field override'})"
             for o in Indexes.load(INDEXES).document.get("fieldOverrides", [])
             if (o["collectionGroup"], o["fieldPath"].split(".")[0]) not in written]
    assert not stale, (f"firestore.indexes.json names fields the platform never wrote in the whole run (a typo, or a "
                       f"field the code no longer writes: fix or remove the entry): {stale}; written collections: "
                       f"{sorted(collections)}")


def test_the_demo_member_lookup_has_its_index(db):
    """core/users.member_uids (the demo seeders' first member) ran in production without its index: found by the run."""
    query = (db.collection("clients").document("c").collection("users").where(filter=F("role", "==", "admin"))
             .order_by("createdAt").limit(1))
    assert all(Indexes.load(INDEXES).serves(n) for n in needs(_shape(query)))
