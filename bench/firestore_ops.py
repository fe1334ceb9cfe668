"""Counts Firestore document reads and writes made by the platform's code, for the bench only.

It wraps the google-cloud-firestore client at its public boundary (get_all, query streaming,
commits), so the counts are what Firestore would bill, whatever the platform code calls.
"""

import contextlib
import dataclasses

from google.cloud.firestore_v1 import batch, client, document, query, transaction


@dataclasses.dataclass
class Ops:
    reads: int = 0
    writes: int = 0


_current: Ops | None = None


def _count_reads(iterable):
    for item in iterable:
        if _current is not None and getattr(item, "exists", True):
            _current.reads += 1
        yield item


def _install() -> None:
    original_get_all = client.Client.get_all
    original_doc_get = document.DocumentReference.get
    original_stream = query.Query.stream
    original_batch_commit = batch.WriteBatch.commit
    original_txn_commit = transaction.Transaction._commit

    def get_all(self, *args, **kwargs):
        return _count_reads(original_get_all(self, *args, **kwargs))

    def doc_get(self, *args, **kwargs):
        snapshot = original_doc_get(self, *args, **kwargs)
        if _current is not None:
            _current.reads += 1  # Firestore bills a read for a missing document too
        return snapshot

    def stream(self, *args, **kwargs):
        return _count_reads(original_stream(self, *args, **kwargs))

    def batch_commit(self, *args, **kwargs):
        if _current is not None:
            _current.writes += len(self._write_pbs)
        return original_batch_commit(self, *args, **kwargs)

    def txn_commit(self, *args, **kwargs):
        if _current is not None:
            _current.writes += len(self._write_pbs)
        return original_txn_commit(self, *args, **kwargs)

    client.Client.get_all = get_all
    document.DocumentReference.get = doc_get
    query.Query.stream = stream
    batch.WriteBatch.commit = batch_commit
    transaction.Transaction._commit = txn_commit


_install()


@contextlib.contextmanager
def counting():
    global _current
    _current = Ops()
    try:
        yield _current
    finally:
        _current = None
