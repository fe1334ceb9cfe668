"""Export and erasure, run from the areas' declarations (core.personal_data) and nothing else.

Finding: each Location says how a person's documents are found; children (`Under`, `Referencing`) are found from
their parent's documents, and handled with them, so an erasure never deletes a parent before its children (a resumed
erasure must still be able to find them).

Erasure works in batches of BATCH documents; each batch commits its deletes and anonymisations together with the
request's counters (`progress.{area}.deleted`, `.anonymised`), so a run stopped anywhere and run again finds only what
is left and the counts stay exact. Anonymising sets to null the declared fields whose value is one of the person's
ids; since documents are found by one of those fields, an anonymised document is not found again.
"""

import base64
import datetime as dt
import io
import json
import zipfile
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from google.cloud import firestore

from ..core import firebase, personal_data
from ..core import logging as log
from ..core.personal_data import (
    Aggregate,
    AreaDeclaration,
    ByDocId,
    ByField,
    ByIdPrefix,
    InCollection,
    Location,
    Referencing,
    Subject,
    Under,
)
from . import repository as repo

BATCH = 200  # documents per committed batch (Firestore allows 500 writes; children and counters take the rest)
# Export bounds: documents per area, and the archive's size (files past it are listed, not included).
MAX_EXPORT_DOCUMENTS_PER_AREA = 5000
MAX_ARCHIVE_BYTES = 64 << 20
FULL_EXPORT_KINDS = ("identity", "health", "activity", "usage", "audit")
REFERENCE_EXPORT_KINDS = ("authorship",)


# ------------------------------------------------------------------------------------------------ finding


def _children(area: AreaDeclaration, parent: Location) -> list[Location]:
    return [loc for loc in area.locations
            if isinstance(loc.find, Under | Referencing) and loc.find.parent == parent.name]


def _query(location: Location, keys: dict[str, str | None]):
    """The query (or single document reference) of a top-level location for the person; None: nothing to find."""
    find = location.find
    if isinstance(find, Aggregate | Under | Referencing):
        return None
    if isinstance(find, ByDocId):
        path = personal_data.fill(location.path, keys)
        return firebase.db().document(path) if path else None
    collection_path = personal_data.fill(location.collection, keys)
    if collection_path is None:
        if isinstance(find, ByField) and (values := [keys[n] for n in find.ids if keys.get(n)]):
            # Under documents of any parent (content versions): a collection-group query (its single-field index is
            # in firestore.indexes.json), whose results _mine() keeps to the declared path.
            return firebase.db().collection_group(location.collection_id()).where(
                filter=firestore.FieldFilter(find.field, "==", values[0]) if len(values) == 1
                else firestore.FieldFilter(find.field, "in", values))
        return None
    collection = firebase.db().collection(collection_path)
    if isinstance(find, ByField):
        values = [keys[name] for name in find.ids if keys.get(name)]
        if not values:
            return None
        op, value = ("==", values[0]) if len(values) == 1 else ("in", values)
        return collection.where(filter=firestore.FieldFilter(find.field, op, value))
    if isinstance(find, ByIdPrefix):
        prefix = personal_data.fill(find.prefix, keys)
        if not prefix:
            return None
        return (collection.where(filter=firestore.FieldFilter("__name__", ">=", collection.document(prefix)))
                .where(filter=firestore.FieldFilter("__name__", "<", collection.document(prefix + "\uf8ff"))))
    if isinstance(find, InCollection):
        return collection
    raise TypeError(f"unknown find {find!r}")


def _stream(query, limit: int, start_after=None) -> list:
    """Up to `limit` documents of a query in id order after `start_after` (a snapshot), or the one document."""
    if hasattr(query, "stream"):
        query = query.order_by("__name__")
        if start_after is not None:
            query = query.start_after(start_after)
        return list(query.limit(limit).stream())
    if start_after is not None:
        return []
    snap = query.get()
    return [snap] if snap.exists else []


def _mine(location: Location, snaps: list, keys: dict) -> list:
    """The documents at the location's own path (a collection-group query also finds namesakes elsewhere)."""
    pattern = location.path.split("/")
    kept = []
    for snap in snaps:
        parts = snap.reference.path.split("/")
        if len(parts) != len(pattern):
            continue
        if all(p == s or (p.startswith("{") and (p != "{clientId}" or s == keys["clientId"]))
               for p, s in zip(pattern, parts, strict=True)):
            kept.append(snap)
    return kept


def _child_snaps(child: Location, parent_snap, keys: dict, limit: int, start_after=None) -> list:
    if isinstance(child.find, Under):
        return _stream(parent_snap.reference.collection(child.collection_id()), limit, start_after)
    assert isinstance(child.find, Referencing)  # a child is found Under its parent or Referencing it
    collection_path = personal_data.fill(child.collection, keys)
    if collection_path is None:
        return []
    query = firebase.db().collection(collection_path).where(
        filter=firestore.FieldFilter(child.find.field, "==", parent_snap.id))
    snaps = _stream(query, limit, start_after)
    if child.global_:
        # A collection shared by every client: only what references this client's document.
        snaps = [s for s in snaps if (s.to_dict() or {}).get("clientId") == keys["clientId"]]
    return snaps


# ------------------------------------------------------------------------------------------------ values


def _get_path(data: dict, dotted: str) -> list[tuple[list[str], Any]]:
    """Every (path, value) a dotted field names in `data` (`*` matches any key of a map)."""
    found: list[tuple[list[str], Any]] = [([], data)]
    for part in dotted.split("."):
        nxt: list[tuple[list[str], Any]] = []
        for path, value in found:
            if not isinstance(value, dict):
                continue
            if part == "*":
                nxt += [([*path, k], v) for k, v in value.items()]
            elif part in value:
                nxt.append(([*path, part], value[part]))
        found = nxt
    return found


def anonymised_fields(location: Location, data: dict, ids: set[str]) -> dict[str, None]:
    """{field path: None} for the declared fields that hold one of the person's ids (an update's field paths)."""
    fields: dict[str, None] = {}
    for dotted in location.fields:
        for path, value in _get_path(data, dotted):
            if isinstance(value, str) and value in ids:
                fields[firestore.Client.field_path(*path)] = None
    return fields


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "path") and hasattr(value, "id"):  # a DocumentReference
        return value.path
    if hasattr(value, "latitude"):
        return {"latitude": value.latitude, "longitude": value.longitude}
    return value


def _omit(data: dict, fields: tuple[str, ...]) -> dict:
    data = json.loads(json.dumps(_jsonable(data)))
    for dotted in fields:
        for path, _ in _get_path(data, dotted):
            holder = data
            for part in path[:-1]:
                holder = holder[part]
            holder.pop(path[-1], None)
    return data


# ------------------------------------------------------------------------------------------------ export


class ExportArea:
    """What one area holds about the person: {location: [documents]}, and the files its documents name."""

    def __init__(self, area: str):
        self.area = area
        self.documents: dict[str, list[dict]] = {}
        self.files: list[tuple[str, str]] = []  # (archive name, storage path)
        self.count = 0
        self.truncated = False
        self._paths: set[str] = set()

    def add(self, location: Location, snap, ids: set[str]) -> bool:
        if snap.reference.path in self._paths:
            return True  # found by two locations (created and last changed by the person): exported once
        self._paths.add(snap.reference.path)
        if self.count >= MAX_EXPORT_DOCUMENTS_PER_AREA:
            self.truncated = True
            return False
        data = snap.to_dict() or {}
        if location.kind in REFERENCE_EXPORT_KINDS:
            entry = {"path": snap.reference.path, "fields": sorted(anonymised_fields(location, data, ids))}
        else:
            entry = {"path": snap.reference.path, "data": _omit(data, location.export_omit)}
            path = data.get(location.storage_field) if location.storage_field else None
            if isinstance(path, str) and path:
                name = f"files/{self.area}/{path.rsplit('/', 1)[-1]}"
                self.files.append((name, path))
                entry["file"] = name
        self.documents.setdefault(location.name, []).append(entry)
        self.count += 1
        return True


def collect(area: AreaDeclaration, subject: Subject, extra: Callable[[str], dict] | None = None) -> ExportArea:
    keys, ids = subject.keys(), set(subject.ids().values())
    out = ExportArea(area.area)
    for location in area.locations:
        if location.kind not in (*FULL_EXPORT_KINDS, *REFERENCE_EXPORT_KINDS):
            continue
        query = _query(location, keys)
        if query is None:
            continue
        for snap in _mine(location, _stream(query, MAX_EXPORT_DOCUMENTS_PER_AREA + 1), keys):
            if not out.add(location, snap, ids):
                break
            for child in _children(area, location):
                if child.kind not in FULL_EXPORT_KINDS:
                    continue
                for child_snap in _child_snaps(child, snap, keys, MAX_EXPORT_DOCUMENTS_PER_AREA + 1):
                    if not out.add(child, child_snap, ids):
                        break
    if extra is not None:
        for name, value in extra(area.area).items():
            out.documents[name] = [{"data": _jsonable(value)}]
            out.count += 1
    return out


def build_archive(request_id: str, client_id: str, areas: list[ExportArea], now: dt.datetime) -> tuple[bytes, dict]:
    """The zip (one JSON per area, the files, manifest.json {area: count}) and what was left out."""
    buffer = io.BytesIO()
    skipped: list[str] = []
    size = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        manifest = {a.area: a.count for a in areas}
        archive.writestr("manifest.json", json.dumps(manifest, indent=2))
        for a in areas:
            body = json.dumps({"area": a.area, "truncated": a.truncated, "documents": a.documents}, indent=2,
                              ensure_ascii=False).encode()
            size += len(body)
            archive.writestr(f"{a.area}.json", body)
        for a in areas:
            for name, path in a.files:
                blob = firebase.bucket().get_blob(path)
                if blob is None:
                    continue
                if size + (blob.size or 0) > MAX_ARCHIVE_BYTES:
                    skipped.append(path)
                    continue
                data = blob.download_as_bytes()
                size += len(data)
                archive.writestr(name, data)
        about = {"requestId": request_id, "clientId": client_id, "generatedAt": _jsonable(now),
                 "truncatedAreas": [a.area for a in areas if a.truncated], "filesLeftOut": skipped,
                 "limits": {"documentsPerArea": MAX_EXPORT_DOCUMENTS_PER_AREA, "archiveBytes": MAX_ARCHIVE_BYTES}}
        archive.writestr("export.json", json.dumps(about, indent=2))
    return buffer.getvalue(), {"truncated": about["truncatedAreas"], "filesLeftOut": len(skipped)}


# ------------------------------------------------------------------------------------------------ erasure


class Counter:
    """Adds a batch's counts to the request's progress of one area, in the batch's own commit."""

    def __init__(self, client_id: str, request_id: str, area: str):
        self.ref = repo.request_ref(client_id, request_id)
        self.area = area

    def stage(self, batch, deleted: int, anonymised: int) -> None:
        fields = {}
        if deleted:
            fields[f"progress.{self.area}.deleted"] = firestore.Increment(deleted)
        if anonymised:
            fields[f"progress.{self.area}.anonymised"] = firestore.Increment(anonymised)
        if fields:
            batch.update(self.ref, fields)


def _erase_snaps(location: Location, snaps: list, area: AreaDeclaration, subject: Subject, counter: Counter,
                 skip_ids: AbstractSet[str]) -> int:
    """Erase these documents of `location` (their children first) in one commit; returns how many were handled."""
    ids = set(subject.ids().values())
    batch = firebase.db().batch()
    deleted = anonymised = handled = 0
    for snap in snaps:
        if snap.id in skip_ids:
            continue
        handled += 1
        for child in _children(area, location):
            _erase_children(child, snap, area, subject, counter)
        data = snap.to_dict() or {}
        keep = location.keep_if is not None and bool(data.get(location.keep_if))
        if location.erase == "delete" and not keep:
            storage_path = data.get(location.storage_field) if location.storage_field else None
            if isinstance(storage_path, str) and storage_path:
                repo.delete_object(storage_path)
            batch.delete(snap.reference)
            deleted += 1
        elif location.erase in ("anonymise", "hash") or keep:
            fields = anonymised_fields(location, data, ids)
            storage_field = location.storage_field
            storage_path = data.get(storage_field) if storage_field and not keep else None
            if storage_field and isinstance(storage_path, str) and storage_path:
                repo.delete_object(storage_path)
                fields[storage_field] = None
            if fields:
                batch.update(snap.reference, fields)
                anonymised += 1
    counter.stage(batch, deleted, anonymised)
    batch.commit()
    return handled


def _erase_children(child: Location, parent_snap, area: AreaDeclaration, subject: Subject, counter: Counter) -> None:
    keys = subject.keys()
    cursor = None
    while True:
        snaps = _child_snaps(child, parent_snap, keys, BATCH, cursor)
        if not snaps:
            return
        _erase_snaps(child, snaps, area, subject, counter, set())
        cursor = snaps[-1]


def erase_area(area: AreaDeclaration, subject: Subject, counter: Counter, skip_ids: frozenset[str] = frozenset()) -> None:
    """Erase everything the area holds about the person (run again, it finds only what is left); `skip_ids`: documents
    left alone (the erasure's own request)."""
    keys = subject.keys()
    for location in area.locations:
        if location.erase == "keep":
            continue
        query = _query(location, keys)
        if query is None:
            continue
        cursor = None
        while True:
            snaps = _stream(query, BATCH, cursor)
            if not snaps:
                break
            _erase_snaps(location, _mine(location, snaps, keys), area, subject, counter, skip_ids)
            cursor = snaps[-1]
    for prefix in area.storage:
        path = personal_data.fill(prefix.prefix, keys)
        if not path:
            continue
        for blob in firebase.bucket().list_blobs(prefix=path):
            blob.delete()
            batch = firebase.db().batch()
            counter.stage(batch, 1, 0)
            batch.commit()


def iter_areas() -> Iterator[AreaDeclaration]:
    yield from personal_data.registry()


def log_safe(area: str, message: str, **fields) -> None:
    """Logs name requests and areas, never a person's ids."""
    log.info(message, area=area, **fields)
