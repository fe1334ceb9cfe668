"""Issue 28 item 1: no document the platform wrote during the run holds a person's uid, email or external id outside
the locations the areas declared in their personal_data.py (core/personal_data.py), which export and erasure run
from: an id written anywhere else would survive an erasure and be missing from an export.

core/write_record.py records, for every Firestore write the platform's code made in this run (the Functions workers,
the CLI, the areas' code called by tests; never a test's own writes), the keyed digest of each token of each string
per document path shape and field. The people: every Auth user left at the end (uid, email) and every id written
to an identity location (the user record's uid, email and externalUserId, its {uid} path segment), so those erased
during the run count too. Marked after_all: it reads what the rest of the run wrote.
"""

import json
from collections import defaultdict
from pathlib import Path

import pytest

from wellness_api.core import firebase, personal_data, write_record
from wellness_api.core.personal_data import ByIdPrefix, Location

pytestmark = pytest.mark.after_all

PACKAGE = "functions/wellness_api"
RAW_KEYS = ("uid", "email", "externalUserId")  # a path placeholder holding the id itself, not a hash of it


def _records() -> tuple[bytes, list[dict]]:
    where = write_record.folder()
    if where is None or not where.is_dir():
        pytest.skip("no write records: run the suite with `make test`, whose stack sets the query log folder")
    found = [json.loads(line) for path in sorted(where.glob("*.jsonl")) for line in path.read_text().splitlines()]
    # Unit tests of the shared rollup code run it on scratch collections of their own, named test*.
    found = [r for r in found if not r["path"].startswith("test")]
    if not found:
        pytest.skip("the platform wrote nothing during this run (this file ran alone)")
    return write_record.run_key(where), found


def _segments_match(pattern: str, shape: str) -> bool:
    """A declared path pattern against a recorded shape (`clients/{id}/users/{id}`): same collections."""
    p, s = pattern.split("/"), shape.split("/")
    return len(p) == len(s) and all(a == b for a, b in zip(p[::2], s[::2], strict=True))


def _field_declared(written: str, declared: str) -> bool:
    """`createdBy.uid` is declared by `createdBy.uid` or `createdBy`; `*` matches any key on either side."""
    w, d = written.split("."), declared.split(".")
    return len(d) <= len(w) and all(a == b or "*" in (a, b) for a, b in zip(w, d, strict=False))


def _allows(location: Location, field: str) -> bool:
    if field.startswith("__name__."):
        index = int(field.split(".")[1])
        segment = location.path.split("/")[index]
        if any(f"{{{key}}}" in segment for key in RAW_KEYS):
            return True
        last = index == location.path.count("/")
        return last and isinstance(location.find, ByIdPrefix) and any(f"{{{k}}}" in location.find.prefix
                                                                       for k in RAW_KEYS)
    return any(_field_declared(field, declared) for declared in location.fields)


def _known_ids(key: bytes, records: list[dict], declared: list[tuple[str, Location]]) -> dict[str, str]:
    """digest -> what the id is (for the message): the Auth users' and those written to identity locations."""
    known: dict[str, str] = {}
    for user in firebase.auth().list_users().iterate_all():
        known[write_record.digest(key, user.uid)] = "uid"
        if user.email:
            known[write_record.digest(key, user.email)] = "email"
    identity = [loc for _, loc in declared if loc.kind == "identity"]
    for r in records:
        if not r.get("whole") or r["digest"] in known:
            continue
        for location in identity:
            if _segments_match(location.path, r["path"]) and _allows(location, r["field"]):
                field = r["field"]
                known[r["digest"]] = ("uid" if field.startswith("__name__") else
                                      "email" if "email" in field.lower() else
                                      "external id" if "external" in field.lower() else "uid")
                break
    return known


def _area_of(site: str, candidates: list[tuple[str, Location]]) -> str | None:
    """The area to declare it in: the one whose code wrote it, or, for shared code (core), the one that declared
    the collection already; None when neither tells."""
    area = site.split("/", 1)[0]
    if area != "core":
        return area
    return candidates[0][0] if candidates else None


def _pattern(shape: str) -> str:
    return shape.replace("clients/{id}", "clients/{clientId}", 1)


def _advice(shape: str, field: str, candidates: list[tuple[str, Location]], area: str | None) -> str:
    where = (f"functions/wellness_api/{area}/personal_data.py" if area else
             "the personal_data.py of the area that owns the collection (core/personal_data.py AREAS)")
    what = "the path segment" if field.startswith("__name__") else f"field {field!r}"
    if candidates:
        names = sorted({loc.name for a, loc in candidates if a == area} or {f"{a}.{loc.name}" for a, loc in candidates})
        return (f"declare {what} in {where}, Location {', '.join(names)} (add it to `fields`, or name the person's key "
                f"in the path)")
    return f"declare the collection in {where}: a Location with path {_pattern(shape)!r} and {what} in `fields`"


def test_no_write_puts_a_persons_id_outside_the_declared_locations():
    key, records = _records()
    errors = [r for r in records if "error" in r]
    assert not errors, f"core/write_record.py could not read {len(errors)} commits: {errors[:3]}"
    assert not any("truncated" in r for r in records), (
        f"a process wrote more than core/write_record.py's MAX_ENTRIES ({write_record.MAX_ENTRIES}) and stopped "
        "recording: the check would miss its later writes (raise the cap)")
    declared = [(decl.area, loc) for decl in personal_data.registry() for loc in decl.locations]
    known = _known_ids(key, records, declared)
    assert known, "no person's id was found: the Auth emulator is empty and no identity location was written"
    found: dict[tuple[str, str], dict] = defaultdict(lambda: {"ids": set(), "sites": set()})
    for r in records:
        what = known.get(r["digest"])
        if what is None:
            continue
        candidates = [(area, loc) for area, loc in declared if _segments_match(loc.path, r["path"])]
        if any(_allows(loc, r["field"]) for _, loc in candidates):
            continue
        entry = found[(r["path"], r["field"])]
        entry["ids"].add(what)
        entry["sites"].add(r["site"])
        entry["candidates"] = candidates
    if found:
        lines = []
        for (path, field), entry in sorted(found.items()):
            site = sorted(entry["sites"])[0]
            area = _area_of(site, entry["candidates"])
            lines.append(f"{path} {field}: holds a person's {' and '.join(sorted(entry['ids']))} (written at "
                         f"{', '.join(sorted(entry['sites'])[:3])}): {_advice(path, field, entry['candidates'], area)}")
        pytest.fail("documents hold a person's id where no area declared one, so erasure would leave it and export "
                    "miss it (core/personal_data.py):\n" + "\n".join(lines), pytrace=False)


def test_the_check_matches_paths_and_fields_as_declared():
    """The matching rules the check relies on, on declarations of its own."""
    user = Location("user", "clients/{clientId}/users/{uid}", "identity", personal_data.ByDocId("uid"), "delete",
                    fields=("email", "createdBy.uid"))
    plays = Location("plays", "clients/{clientId}/lessonPlays/{playKey}", "activity", ByIdPrefix("{uid}_"),
                     "delete")
    leases = Location("leases", "rateLimits/slots:x:{callerKey}/slotLeases/{leaseId}", "ephemeral",
                      personal_data.InCollection(), "delete")
    files = Location("files", "clients/{clientId}/lessons/{lessonId}", "authorship", personal_data.Aggregate(),
                     "keep", fields=("subtitleFiles.*.uploadedBy",))
    assert _segments_match(user.path, "clients/{id}/users/{id}")
    assert not _segments_match(user.path, "clients/{id}/users/{id}/more/{id}")
    assert not _segments_match(user.path, "clients/{id}/members/{id}")
    assert _allows(user, "__name__.3") and not _allows(user, "__name__.1")  # the uid, not the client id
    assert _allows(user, "email") and _allows(user, "createdBy.uid") and not _allows(user, "createdBy.name")
    assert not _allows(user, "displayName")
    assert _allows(plays, "__name__.3")
    assert not _allows(leases, "__name__.1")  # a hash of the person's key, never the raw id
    assert _allows(files, "subtitleFiles.*.uploadedBy") and not _allows(files, "subtitleFiles.*")


def test_the_recorder_digests_ids_inside_paths_and_texts_and_keeps_no_value():
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import firestore

    db = firestore.Client(project="demo-shapes", credentials=AnonymousCredentials())
    uid, email = "Zx81uidQ0q5fRt7Yw2Lk9mNbVcX", "Player-7@T-Client.test"
    batch = db.batch()
    batch.set(db.collection("clients").document("c1").collection("things").document(f"{uid}_2026-11-26"), {
        "owner": {"by": uid}, "path": f"media/c1/{uid}.png", "note": f"mail {email} today", "hr": 72.5,
        "byKey": {uid: True}, "tags": [email]})
    entries = write_record.entries({"writes": batch._write_pbs}, b"k")
    assert uid not in json.dumps(entries) and email not in json.dumps(entries) and "72.5" not in json.dumps(entries)
    where = defaultdict(set)
    for e in entries:
        where[e["digest"]].add(e["field"])
    assert where[write_record.digest(b"k", uid)] == {"__name__.3", "owner.by", "path", "byKey.*"}
    assert where[write_record.digest(b"k", email.lower())] == {"note", "tags"}


def test_the_digest_key_is_made_once_per_run(tmp_path):
    first = write_record.run_key(tmp_path / "writes")
    assert write_record.run_key(tmp_path / "writes") == first and len(first) == 32
    assert [p.name for p in Path(tmp_path / "writes").iterdir()] == ["key"]
