"""Firestore reads decoded once into plain dicts: the fast path of list pages and single-document reads (issue 26).

The library's reads are costly in CPU, and one instance serves many requests at once on one GIL:
- Query.stream() wraps every document in a DocumentSnapshot whose constructor deep-copies the data it was just
  given (DocumentSnapshot.__init__, base_document.py) after decoding it through proto-plus wrappers: on a page of
  20 fall-risk results that was about 3.5 of a list request's 10 ms of CPU.
- DocumentReference.get() sends a BatchGetDocuments stream for one document (a streaming call: more client-side
  machinery than a unary one) and copies the data twice, into its snapshot and out through to_dict(): about
  1 ms per read against 0.4 ms here (sequential reads of a tenant's client document, no profiler).

rows() sends the RunQuery request stream() would send (built by the library, with the same retry and timeout,
through the same client, so the emulator settings and the test-only query recorder see it unchanged); document()
sends one GetDocument. Both decode each document's fields once, from the raw protobuf, into dicts that are the
caller's own, exactly as the library decodes them.

They use private members of google-cloud-firestore 2.34.1 (pinned in functions/requirements.txt):
Query._prep_stream (the request stream() sends), Client._firestore_api, Client._rpc_metadata and
DocumentReference._document_path. tests/core/test_reads.py checks on the emulator that they return exactly what
stream() and get() return for every kind of value, and names the pinned version: an upgrade that changes any of
these fails there first.

Not for reads in a transaction (they go through the transaction), nor for collection-group queries whose callers
need each document's parent (rows() returns the id only).
"""

from typing import Any

from google.api_core import exceptions, gapic_v1
from google.api_core.datetime_helpers import DatetimeWithNanoseconds
from google.cloud.firestore_v1 import _helpers
from google.cloud.firestore_v1.document import DocumentReference
from google.cloud.firestore_v1.query import Query

Row = tuple[str, dict[str, Any]]

# What Query.stream() retries when a stream breaks midway (the RunQuery RPC's default retry predicate): the query
# is then read again whole by stream() itself, so a broken stream is handled as the library handles it.
_RETRIED_MIDWAY = (exceptions.DeadlineExceeded, exceptions.InternalServerError, exceptions.ServiceUnavailable)


def rows(query: Query) -> list[Row]:
    """(document id, data) of every document the query returns, in its order."""
    client = query._client
    request, _, kwargs = query._prep_stream(None, gapic_v1.method.DEFAULT, None)
    found: list[Row] = []
    try:
        for response in client._firestore_api.run_query(request=request, metadata=client._rpc_metadata, **kwargs):
            if response._pb.HasField("document"):  # a response may carry only a read time or progress
                document = response._pb.document
                found.append((document.name.rpartition("/")[2], _fields(document.fields, client)))
    except _RETRIED_MIDWAY:
        return [(snap.id, snap.to_dict() or {}) for snap in query.stream()]
    return found


def document(ref: DocumentReference) -> dict[str, Any] | None:
    """The document's data, None when it does not exist (as get().to_dict() of a missing document)."""
    client = ref._client
    try:
        found = client._firestore_api.get_document(request={"name": ref._document_path},
                                                   metadata=client._rpc_metadata)
    except exceptions.NotFound:
        return None
    data: dict[str, Any] = _fields(found._pb.fields, client)
    return data


def _fields(fields: Any, client: Any) -> Any:  # a raw protobuf map of Values: a dict (or a special value)
    if "__type__" in fields or (len(fields) == 1 and next(iter(fields)).startswith("__")):
        # A vector ({"__type__": "__vector__", "value": [...]}) or a BSON value ({"__oid__": ...}), as the library
        # tells them (decode_dict): Firestore reserves __x__ names; the library's decoder knows every such value.
        return _helpers.decode_dict(fields, client)
    return {key: _value(value, client) for key, value in fields.items()}


def _value(value: Any, client: Any) -> Any:  # a raw protobuf Value
    # The kinds documents hold, most common first; any other (a reference, a geo point) as the library decodes it.
    kind = value.WhichOneof("value_type")
    if kind == "string_value":
        return value.string_value
    if kind == "null_value":
        return None
    if kind == "timestamp_value":
        return DatetimeWithNanoseconds.from_timestamp_pb(value.timestamp_value)  # type: ignore[no-untyped-call]
    if kind == "boolean_value":
        return value.boolean_value
    if kind == "integer_value":
        return value.integer_value
    if kind == "double_value":
        return value.double_value
    if kind == "map_value":
        return _fields(value.map_value.fields, client)
    if kind == "array_value":
        return [_value(element, client) for element in value.array_value.values]
    return _helpers.decode_value(value, client)
