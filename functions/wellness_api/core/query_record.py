"""Test-only recorder of the shape of every Firestore query and write the platform's code makes.

Firestore's emulator does not enforce composite indexes, so a query that needs one passes every test and fails
in production with FAILED_PRECONDITION. When WELLNESS_FIRESTORE_QUERY_LOG names a folder (devstack sets it for
its stacks; production never does), `firebase.db()` wraps the client's RPCs and each process appends the shape of
what it runs to `<folder>/<pid>.jsonl`; tests/test_indexes.py checks every shape against firestore.indexes.json.

Only structure is recorded, never a value: collection ids, document paths with every id replaced by `{id}`,
field paths with their operators, orders and directions, whether a cursor or limit is set, aggregation kinds,
and for writes the top-level field names with the kind of value (string, timestamp...). Health data, ids and
tokens never reach the file. Calls a test makes itself (a test's frame is met before any of the platform's when
walking out from the RPC: its setup and assertions) are not recorded: they are not what production runs.

The requests are the Firestore client's private protobuf messages (proto-plus wrappers or raw pb2), read by field
name whatever their class: they are typed Any here.
"""

import functools
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

Shape = dict[str, Any]

ENV = "WELLNESS_FIRESTORE_QUERY_LOG"
_PACKAGE = str(Path(__file__).resolve().parent.parent) + os.sep
# The platform's own plumbing: the caller that chose the query or the write is further out.
_PLUMBING = {_PACKAGE + name for name in ("core/query_record.py", "core/firebase.py", "core/transactions.py",
                                           "core/reads.py")}
_TESTS = str(Path(__file__).resolve().parents[3] / "tests") + os.sep


def enabled() -> bool:
    return bool(os.environ.get(ENV))


def install(client: Any) -> None:
    """Wrap the client's query and commit RPCs so that each records its shape before it runs."""
    api = client._firestore_api
    recorder = _Recorder(Path(os.environ[ENV]))
    for name, shape in (("run_query", _query_shape), ("run_aggregation_query", _aggregation_shape),
                        ("commit", _commit_shapes)):
        setattr(api, name, recorder.wrap(getattr(api, name), shape))


class _Recorder:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{os.getpid()}.jsonl"
        self.lock = threading.Lock()
        self.seen: set[str] = set()

    def wrap(self, rpc: Callable[..., Any], shape: Callable[[Any], list[Shape]]) -> Callable[..., Any]:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            try:
                site = _platform_site(sys._getframe(1))
                if site:
                    self.write([dict(entry, site=site) for entry in shape(kwargs.get("request", args[0] if args else None))])
            except Exception as e:  # noqa: BLE001 (a recorder bug must not change what the platform does)
                self.write([{"kind": "recorder-error", "error": type(e).__name__}])
            return rpc(*args, **kwargs)

        return recorded

    def write(self, entries: list[Shape]) -> None:
        lines = [json.dumps(entry, sort_keys=True) for entry in entries]
        with self.lock:
            new = [line for line in lines if line not in self.seen]
            if not new:
                return
            self.seen.update(new)
            with open(self.path, "a") as f:
                f.write("".join(line + "\n" for line in new))


def _platform_site(frame: FrameType | None) -> str | None:
    """`area/file.py:line function` of the innermost platform frame that made the call, None for a test's own call.

    Walking outwards from the RPC: libraries and other wrappers (the bench's op counter) are passed through; a
    frame of the platform's package names the site; a frame of the tests first means the test made the call.
    """
    while frame is not None:
        name = _absolute(frame.f_code.co_filename)
        if name.startswith(_PACKAGE) and name not in _PLUMBING:
            return f"{name[len(_PACKAGE):]}:{frame.f_lineno} {frame.f_code.co_name}"
        if name.startswith(_TESTS):
            return None
        frame = frame.f_back
    return None


@functools.cache
def _absolute(filename: str) -> str:
    # The functions runtime imports main.py (and so the package) by a relative path.
    return filename if filename.startswith("<") else os.path.abspath(filename)


def _field(request: Any, name: str) -> Any:
    return request.get(name) if isinstance(request, dict) else getattr(request, name, None)


def _pb(message: Any) -> Any:
    return type(message).pb(message) if hasattr(type(message), "pb") else message


def _path_shape(path: str) -> str:
    """`projects/p/databases/d/documents/clients/abc/users/u1` -> `clients/{id}/users/{id}`."""
    parts = path.split("/documents", 1)[1].strip("/").split("/") if "/documents" in path else []
    return "/".join(part if i % 2 == 0 else "{id}" for i, part in enumerate(p for p in parts if p))


def _enum(message: Any, field: str) -> str:
    return str(message.DESCRIPTOR.fields_by_name[field].enum_type.values_by_number[getattr(message, field)].name)


def _filter_shape(f: Any) -> Shape:
    kind = f.WhichOneof("filter_type")
    if kind == "composite_filter":
        op = _enum(f.composite_filter, "op")
        return {"op": op, "filters": [_filter_shape(sub) for sub in f.composite_filter.filters]}
    if kind == "field_filter":
        return {"field": f.field_filter.field.field_path, "op": _enum(f.field_filter, "op")}
    return {"field": f.unary_filter.field.field_path, "op": _enum(f.unary_filter, "op")}


def _structured(parent: str, sq: Any) -> Shape:
    source = sq.from_[0] if len(sq.from_) else None
    return {
        "parent": _path_shape(parent or ""),
        "collection": source.collection_id if source else "",
        "allDescendants": bool(source and source.all_descendants),
        "where": _filter_shape(sq.where) if sq.HasField("where") else None,
        "orderBy": [[o.field.field_path, _enum(o, "direction")] for o in sq.order_by],
        "startAt": {"before": sq.start_at.before, "values": len(sq.start_at.values)} if sq.HasField("start_at") else None,
        "endAt": {"before": sq.end_at.before, "values": len(sq.end_at.values)} if sq.HasField("end_at") else None,
        "limit": sq.HasField("limit"),
        "offset": bool(sq.offset),
        "select": [f.field_path for f in sq.select.fields] if sq.HasField("select") else None,
    }


def _query_shape(request: Any) -> list[Shape]:
    return [dict(_structured(_field(request, "parent"), _pb(_field(request, "structured_query"))), kind="query")]


def _aggregation_shape(request: Any) -> list[Shape]:
    saq = _pb(_field(request, "structured_aggregation_query"))
    aggregations = []
    for a in saq.aggregations:
        op = a.WhichOneof("operator")
        aggregations.append([op, getattr(a, op).field.field_path if op in ("sum", "avg") else None])
    shape = _structured(_field(request, "parent"), saq.structured_query)
    return [dict(shape, kind="aggregation", aggregations=aggregations)]


def _commit_shapes(request: Any) -> list[Shape]:
    shapes: list[Shape] = []
    for write in _field(request, "writes") or []:
        w = _pb(write)
        kind = w.WhichOneof("operation")
        if kind not in ("update", "transform"):
            continue
        doc = w.update.name if kind == "update" else w.transform.document
        path = _path_shape(doc)
        fields: dict[str, str] = {}
        if kind == "update":
            for name, value in w.update.fields.items():
                fields[name] = value.WhichOneof("value_type")
        transforms = w.update_transforms if kind == "update" else w.transform.field_transforms
        for t in transforms:
            fields[t.field_path.split(".")[0].strip("`")] = t.WhichOneof("transform_type")
        if not fields:
            continue
        collection = path.rsplit("/", 2)[-2] if "/" in path else path
        for name, value_type in fields.items():
            shapes.append({"kind": "write", "path": path, "collection": collection, "field": name, "type": value_type})
    return shapes
