"""support/firestore_ops counts what Firestore bills: missing documents and empty queries included."""

import pytest

from support.firestore_ops import counting
from wellness_api.core import firebase


@pytest.fixture
def collection(scratch_collection):
    return scratch_collection("opsCount")


def test_a_batched_read_counts_every_document_asked_for_missing_ones_too(collection):
    collection.document("here").set({"n": 1})
    refs = [collection.document(name) for name in ("here", "gone", "never")]
    with counting() as ops:
        found = list(firebase.db().get_all(refs))
    assert [snap.exists for snap in sorted(found, key=lambda s: s.id)] == [False, True, False]
    assert ops.reads == 3 and ops.writes == 0


def test_a_single_read_of_a_missing_document_counts_one(collection):
    with counting() as ops:
        assert not collection.document("gone").get().exists
    assert ops.reads == 1


def test_a_query_counts_its_results_and_an_empty_one_counts_one(collection):
    batch = firebase.db().batch()
    for n in range(3):
        batch.set(collection.document(f"d{n}"), {"n": n})
    with counting() as ops:
        batch.commit()
    assert ops.writes == 3
    with counting() as ops:
        assert len(list(collection.where("n", ">=", 1).stream())) == 2
    assert ops.reads == 2
    with counting() as ops:
        assert list(collection.where("n", ">", 9).stream()) == []
    assert ops.reads == 1


def test_the_platforms_own_reads_count_as_the_librarys(collection):
    # core/reads sends RunQuery and GetDocument itself, past Query.stream() and get(): billed all the same.
    from wellness_api.core import reads

    for n in range(3):
        collection.document(f"d{n}").set({"n": n})
    with counting() as ops:
        assert len(reads.rows(collection.where("n", ">=", 1))) == 2
    assert ops.reads == 2
    with counting() as ops:
        assert reads.rows(collection.where("n", ">", 9)) == []
    assert ops.reads == 1
    with counting() as ops:
        assert reads.document(collection.document("d1")) == {"n": 1}
        assert reads.document(collection.document("gone")) is None
    assert ops.reads == 2
