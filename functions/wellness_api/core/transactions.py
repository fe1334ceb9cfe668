"""Firestore transactions with jittered retries under contention, optimistic batches with preconditions,
and a clean 503 when either is exhausted.

google-cloud-firestore retries an aborted commit immediately; under real contention (several
writers on one document) that burns all attempts at once. Here each round backs off with jitter,
and when the rounds run out the caller gets a retryable ApiError instead of a 500. Nothing is
written by a transaction that did not commit, so a 503 never leaves partial state.
"""

import dataclasses
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from google.api_core import exceptions as gexc
from google.cloud import firestore
from google.cloud.firestore_v1 import _helpers

from . import firebase
from .errors import ApiError

T = TypeVar("T")

CONTENTION_MESSAGE = "The resource is being changed by another request; retry shortly."
ROUNDS = 6
ATTEMPTS_PER_ROUND = 3


def run(body: Callable[[firestore.Transaction], T], *, contention_error: ApiError | None = None) -> T:
    """Run `body(transaction)` transactionally; ApiErrors raised by `body` pass through unchanged."""
    transactional = firestore.transactional(body)
    for round_ in range(ROUNDS):
        try:
            # firestore's _Transactional.__call__ is not annotated: its result is what `body` returned.
            result: T = transactional(firebase.db().transaction(max_attempts=ATTEMPTS_PER_ROUND))
            return result
        except (ValueError, gexc.Aborted) as exc:
            if isinstance(exc, ValueError) and "Failed to commit transaction" not in str(exc):
                raise
            time.sleep(random.uniform(0.05, 0.2) * (2**round_))  # noqa: S311 - jitter, not security
    raise contention_error or ApiError(503, CONTENTION_MESSAGE, code="contention")


@dataclasses.dataclass(frozen=True)
class Seen:
    """A document as read for an optimistic write, and the update time that write requires unchanged (None: the
    document did not exist)."""

    data: dict[str, Any] | None
    update_time: Any

    def existing(self) -> dict[str, Any]:
        """`data`, of a document the caller has already found to exist (a check mypy cannot follow)."""
        if self.data is None:
            raise LookupError("the document did not exist when read")
        return self.data


NOT_SEEN = Seen(None, None)  # what a malformed id reads as: nothing, without a read


def read(ref: firestore.DocumentReference) -> Seen:
    snap = ref.get()
    return Seen(snap.to_dict(), snap.update_time) if snap.exists else NOT_SEEN


def unchanged(seen: Seen) -> _helpers.WriteOption:
    """The write option that fails a write if the document changed since `seen` was read."""
    return firebase.db().write_option(last_update_time=seen.update_time)


# What a commit raises when a precondition no longer holds (another request committed first).
# NotFound: an update of a document that was there when read, and was deleted since
CONFLICTS = (gexc.FailedPrecondition, gexc.Conflict, gexc.NotFound)


def optimistic(attempt: Callable[[], T], *, contention_error: ApiError | None = None) -> T:
    """Run `attempt()` until it commits, for writes that must see what they replace, without locks.

    `attempt` reads, decides, and commits one batch whose preconditions (a document's update time as
    read, or that it does not exist yet) hold only if nothing it read has changed. When another request
    committed first, the commit fails as a whole and `attempt` runs again on fresh reads. Unlike a
    transaction, racing requests never wait for each other's locks: one commits, the others re-read at
    once (a completion sent twice then finds the session finished).
    """
    for round_ in range(ROUNDS * ATTEMPTS_PER_ROUND):
        try:
            return attempt()
        except CONFLICTS:
            time.sleep(random.uniform(0.01, 0.05) * min(2**round_, 16))  # noqa: S311 - jitter, not security
    raise contention_error or ApiError(503, CONTENTION_MESSAGE, code="contention")
