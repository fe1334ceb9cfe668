"""Counts Firestore document reads and writes made by the platform's code, for the bench and the tests of caps.

It wraps the google-cloud-firestore client at its public boundary (get_all, query streaming,
commits, aggregation queries), and the platform's own reader (core/reads.py, which sends RunQuery and
GetDocument itself), so the counts are what Firestore would bill, whatever the platform code calls.
"""

import contextlib
import dataclasses
import math
import threading

from google.cloud.firestore_v1 import aggregation, batch, client, document, query, transaction
from google.cloud.firestore_v1.base_aggregation import CountAggregation

from wellness_api.core import reads


@dataclasses.dataclass
class Ops:
    reads: int = 0  # documents
    writes: int = 0
    # count() and avg() (RunAggregationQuery), billed one read per batch of up to 1,000 index entries, at least one.
    aggregation_queries: int = 0
    aggregation_reads: int = 0
    _aggregations: list = dataclasses.field(default_factory=list, repr=False)  # (query, result), billed at the end


_current: Ops | None = None
_lock = threading.Lock()  # aggregation queries may run side by side (the analytics overview)


def _count_documents(iterable):
    """get_all: every document asked for is billed, a missing one too."""
    for item in iterable:
        if _current is not None:
            _current.reads += 1
        yield item


def _count_results(iterable):
    """A query: one read per result, and one for a query that returns none (Firestore's minimum charge)."""
    found = 0
    for item in iterable:
        found += 1
        if _current is not None:
            _current.reads += 1
        yield item
    if not found and _current is not None:
        _current.reads += 1


def _install() -> None:
    original_get_all = client.Client.get_all
    original_doc_get = document.DocumentReference.get
    original_stream = query.Query.stream
    original_batch_commit = batch.WriteBatch.commit
    original_txn_commit = transaction.Transaction._commit
    original_aggregation_get = aggregation.AggregationQuery.get
    original_rows = reads.rows
    original_document = reads.document

    def get_all(self, *args, **kwargs):
        return _count_documents(original_get_all(self, *args, **kwargs))

    def doc_get(self, *args, **kwargs):
        snapshot = original_doc_get(self, *args, **kwargs)
        if _current is not None:
            _current.reads += 1  # Firestore bills a read for a missing document too
        return snapshot

    def stream(self, *args, **kwargs):
        return _count_results(original_stream(self, *args, **kwargs))

    def rows(query):
        return list(_count_results(original_rows(query)))

    def read_document(ref):
        data = original_document(ref)
        if _current is not None:
            _current.reads += 1  # a missing document too
        return data

    def batch_commit(self, *args, **kwargs):
        if _current is not None:
            _current.writes += len(self._write_pbs)
        return original_batch_commit(self, *args, **kwargs)

    def txn_commit(self, *args, **kwargs):
        if _current is not None:
            _current.writes += len(self._write_pbs)
        return original_txn_commit(self, *args, **kwargs)

    def aggregation_get(self, *args, **kwargs):
        result = original_aggregation_get(self, *args, **kwargs)
        current = _current
        if current is not None:
            with _lock:
                current._aggregations.append((self, result))
        return result

    client.Client.get_all = get_all
    document.DocumentReference.get = doc_get
    query.Query.stream = stream
    batch.WriteBatch.commit = batch_commit
    transaction.Transaction._commit = txn_commit
    aggregation.AggregationQuery.get = aggregation_get
    reads.rows = rows
    reads.document = read_document


def _index_entries(aggregation_query, result) -> int:
    """The index entries an aggregation went through: a count's value; for avg(), the count of its query."""
    if all(isinstance(one, CountAggregation) for one in aggregation_query._aggregations):
        return int(result[0][0].value)
    return int(aggregation_query._nested_query.count().get()[0][0].value)  # made after counting: not billed


_install()


@contextlib.contextmanager
def counting():
    global _current
    _current = found = Ops()
    try:
        yield found
    finally:
        _current = None
        for aggregation_query, result in found._aggregations:
            found.aggregation_queries += 1
            found.aggregation_reads += max(1, math.ceil(_index_entries(aggregation_query, result) / 1000))
