"""core.reads: exactly what Query.stream() and DocumentReference.get() return, decoded once, on the Firestore emulator.

The helpers send the RunQuery and GetDocument requests themselves and decode the raw protobufs, through private
members of the pinned google-cloud-firestore; these tests are what an upgrade of that library must pass.
"""

import datetime as dt
import importlib.metadata

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.base_document import DocumentSnapshot
from google.cloud.firestore_v1.vector import Vector

from wellness_api.core import firebase, reads

# core/reads.py reads Query._prep_stream, Client._firestore_api, Client._rpc_metadata and
# DocumentReference._document_path of this version.
PINNED = "2.34.1"
MOMENT = dt.datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=dt.UTC)


def _streamed(query) -> list:
    return [(snap.id, snap.to_dict()) for snap in query.stream()]


@pytest.fixture
def snapshots(monkeypatch):
    """The ids of the DocumentSnapshots made meanwhile (the library makes one per document it reads)."""
    made = []
    original = DocumentSnapshot.__init__

    def init(snap, ref, *args, **kwargs):
        made.append(ref.id)
        original(snap, ref, *args, **kwargs)

    monkeypatch.setattr(DocumentSnapshot, "__init__", init)
    return made


@pytest.fixture
def collection(scratch_collection):
    return scratch_collection("coreReads")


@pytest.fixture
def every_kind(collection):
    """A document holding every kind of value Firestore stores (an array never holds an array)."""
    other = collection.document("other")
    collection.document("all").set({
        "null": None, "true": True, "false": False, "int": -(2**62), "zero": 0, "double": 1.5, "nan": float("nan"),
        "timestamp": MOMENT, "string": "é ✓", "empty": "", "bytes": b"\x00\xff", "reference": other,
        "geo": firestore.GeoPoint(48.85, 2.35), "vector": Vector([0.5, 1.0]),
        "array": [1, "two", None, MOMENT, {"in": [True, 2.5]}], "emptyArray": [],
        "map": {"nested": {"deeper": {"at": MOMENT, "n": 7}}, "list": [{"k": "v"}]}, "emptyMap": {},
    })
    other.set({"n": 1})
    return collection


def _same(data: dict, expected: dict) -> None:
    data, expected = dict(data), dict(expected)
    assert all(value != value for value in (data.pop("nan"), expected.pop("nan")))  # NaN is not equal to itself
    assert data == expected
    kinds = ("timestamp", "reference", "geo", "vector")
    assert [type(data[k]) for k in kinds] == [type(expected[k]) for k in kinds]
    assert data["timestamp"] == MOMENT and data["map"]["nested"]["deeper"]["at"] == MOMENT


def test_the_library_is_the_version_the_helpers_were_written_against():
    assert importlib.metadata.version("google-cloud-firestore") == PINNED, (
        "core/reads.py uses private members of google-cloud-firestore; check them against the new version, "
        "then update PINNED")


def test_a_query_decodes_every_kind_of_value_as_the_library_does(every_kind):
    query = every_kind.order_by("__name__")
    found, streamed = reads.rows(query), _streamed(query)
    assert [row[0] for row in found] == [row[0] for row in streamed] == ["all", "other"]
    _same(found[0][1], streamed[0][1])
    assert found[1] == streamed[1]


def test_a_document_decodes_every_kind_of_value_as_the_library_does(every_kind):
    ref = every_kind.document("all")
    _same(reads.document(ref), ref.get().to_dict())


def test_a_missing_document_is_none(collection):
    assert reads.document(collection.document("gone")) is None


def test_filters_order_cursors_and_limit_are_the_querys(collection):
    for n in range(6):
        collection.document(f"d{n}").set({"n": n, "even": n % 2 == 0})
    query = (collection.where(filter=firestore.FieldFilter("even", "==", True)).order_by("__name__")
             .start_after({"__name__": collection.document("d0")}).limit(5))
    assert reads.rows(query) == _streamed(query) == [("d2", {"n": 2, "even": True}), ("d4", {"n": 4, "even": True})]
    assert reads.rows(collection.where(filter=firestore.FieldFilter("n", ">", 9))) == []


def test_no_snapshot_is_made_and_the_dicts_are_the_callers(collection, snapshots):
    # What the helpers are for: the library makes a DocumentSnapshot per document, which deep-copies its data.
    collection.document("d").set({"steps": {"quiz": {"answers": [1, 2]}}})
    (_, first), = reads.rows(collection.limit(1))
    first["steps"]["quiz"]["answers"].append(3)
    (_, second), = reads.rows(collection.limit(1))
    alone = reads.document(collection.document("d"))
    alone["steps"]["quiz"]["answers"].append(4)
    assert snapshots == []
    assert second == reads.document(collection.document("d")) == {"steps": {"quiz": {"answers": [1, 2]}}}


def test_a_stream_broken_midway_is_read_again_whole(collection, monkeypatch):
    # Query.stream() resumes a RunQuery stream that breaks with a retryable error; the helper reads the query again
    # through stream() itself. The break is made at the Firestore client's RPC (the third party's boundary).
    for n in range(3):
        collection.document(f"d{n}").set({"n": n})
    api = firebase.db()._firestore_api
    real = api.run_query
    broken = []

    def run_query(*args, **kwargs):
        responses = real(*args, **kwargs)
        if broken:
            return responses

        def breaking():
            yield next(iter(responses))
            broken.append(True)
            raise exceptions.ServiceUnavailable("stream reset")

        return breaking()

    monkeypatch.setattr(api, "run_query", run_query)
    assert reads.rows(collection.order_by("__name__")) == [(f"d{n}", {"n": n}) for n in range(3)]
    assert broken == [True]
