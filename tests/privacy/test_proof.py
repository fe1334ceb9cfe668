"""Issue 28 item 4, the proof: a person made active in every area through the API, then erased. A search of every
Firestore document (every collection, recursively, through the admin client) and every Storage object (archives
opened) finds none of their uid, email, external id or the health values they produced; another person of the same
client keeps all of theirs, and the client's activity counts are what they were. Their export before the erasure
held each area's data of theirs and nothing of the other person's."""

import io
import json
import re
import zipfile

from tests.privacy.conftest import create, deliver, read
from wellness_api.core import firebase
from wellness_api.core.activity import ALL as ROLLUPS
from wellness_api.privacy import engine

AREAS_WITH_DATA = ("vital_scan", "fall_risk", "ai_move", "lessons", "assistant", "media_generation", "content",
                   "api_keys", "identity")


def _documents():
    """(path, data) of every document in the emulator, sub-collections included (also under missing parents).

    One recursive (kindless, all-descendants) query per top-level collection: walking the tree with a
    list_collection_ids call per document took minutes once the whole suite's tenants were in the emulator."""
    for collection in firebase.db().collections():
        for snap in collection.recursive().stream():
            yield snap.reference.path, snap.to_dict()


def _text(value) -> str:
    return json.dumps(engine._jsonable(value), ensure_ascii=False, sort_keys=True)


def _storage_texts():
    """(name, text) of every Storage object: its name and metadata, and its bytes (each member of a zip)."""
    for blob in firebase.bucket().list_blobs():
        yield blob.name, f"{blob.name} {blob.metadata}"
        data = blob.download_as_bytes()
        if blob.name.endswith(".zip"):
            archive = zipfile.ZipFile(io.BytesIO(data))
            for member in archive.namelist():
                yield f"{blob.name}!{member}", archive.read(member).decode("latin-1")
        else:
            yield blob.name, data.decode("latin-1")


def _health_values(person) -> list[str]:
    """How the person's measurements would appear in a stored document: every non-integer number Vital Scan gave."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, float) and value != int(value):
            found.append(json.dumps(value))

    walk(person.metrics)
    return found


def _in_text(needle: str, text: str) -> bool:
    """The needle is in the text; a number only as a whole number, not as the start of a longer one: the export's
    timestamps (19:27:17.558502Z) hold a breathing rate of 17.5 as a substring."""
    if re.fullmatch(r"-?\d+\.\d+", needle):
        return re.search(rf"(?<![\d.]){re.escape(needle)}(?!\d)", text) is not None
    return needle in text


def _needles(person) -> dict[str, str]:
    needles = {"uid": person.uid, "email": person.email, "externalUserId": person.external_id,
               "chat message": f"My heart rate was {person.hr} today"}
    needles.update({f"health value {v}": v for v in _health_values(person)})
    return needles


def _rollup_counts(client_id: str) -> dict:
    totals = {}
    for rollup in ROLLUPS:
        for snap in firebase.db().collection(f"clients/{client_id}/{rollup.counters.collection}").stream():
            data = snap.to_dict() or {}
            if data.get("day") == "lifetime":
                for group, counts in (data.get("counts") or {}).items():
                    for name, value in counts.items():
                        key = f"{group}.{name}"
                        totals[key] = totals.get(key, 0) + value
    return totals


def _numbers(value) -> set[float]:
    if isinstance(value, dict):
        return set().union(*map(_numbers, value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*map(_numbers, value)) if value else set()
    return {float(value)} if isinstance(value, int | float) and not isinstance(value, bool) else set()


def _find(needles: dict[str, str], client_id: str) -> list[str]:
    """Where the needles are: ids and text anywhere; a health value as a number of a document of this client's (or
    of a collection shared by every client), since another tenant's numbers may equal it by chance."""
    values = {what: float(needle) for what, needle in needles.items() if what.startswith("health value")}
    texts = {what: needle for what, needle in needles.items() if what not in values}
    found = []
    for path, data in _documents():
        text = f"{path} {_text(data)}"
        found += [f"{what} in Firestore {path}" for what, needle in texts.items() if needle in text]
        if path.startswith(f"clients/{client_id}/") or not path.startswith("clients/"):
            numbers = _numbers(data)
            found += [f"{what} in Firestore {path}" for what, value in values.items() if value in numbers]
    for name, text in _storage_texts():
        found += [f"{what} in Storage {name}" for what, needle in texts.items() if needle in text]
        if name.endswith(".json"):  # an export's documents; media files are pixels, not numbers to read
            numbers = _numbers(json.loads(text.encode("latin-1").decode("utf-8")))
            found += [f"{what} in Storage {name}" for what, value in values.items() if value in numbers]
    return found


def test_an_erased_person_is_nowhere_and_the_other_person_and_the_counts_are_intact(http, activity, held_tasks):
    tenant = activity.tenant
    erased = activity.everything(activity.person(f"partner-a-{tenant.client_id}", 64.0))
    kept = activity.everything(activity.person(f"partner-b-{tenant.client_id}", 88.0))
    assert _health_values(erased), "the Vital Scan measured something"
    assert set(_needles(erased).values()).isdisjoint(_needles(kept).values())

    # The export first: every area's data of the erased person, none of the other's.
    export = create(http, tenant.admin.headers, "export", erased.uid)
    assert deliver(tenant.client_id, export["requestId"]) == "completed"
    exported = read(http, tenant.admin.headers, export["requestId"])
    assert all(exported["manifest"][area] > 0 for area in AREAS_WITH_DATA), exported["manifest"]
    archive = zipfile.ZipFile(io.BytesIO(http.get(_path(exported["downloadUrl"])).get_data()))
    members = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()}
    assert {f"{area}.json" for area in AREAS_WITH_DATA} <= set(members)
    assert any(name.startswith("files/media_generation/") for name in members), "the generated image is in it"
    everything = "\n".join(members.values())
    for needle in (erased.uid, erased.external_id, erased.ids["fall_risk"], erased.ids["ai_move"],
                   erased.ids["media_generation"], *erased.ids["vital_scan"], *_health_values(erased)):
        assert _in_text(needle, everything), needle
    for what, needle in _needles(kept).items():
        assert not _in_text(needle, everything), f"the other person's {what} is in the export"

    counts_before = _rollup_counts(tenant.client_id)
    assert counts_before.get("vitalScan.completed", 0) >= 2 and counts_before.get("aiMove.sessionsCompleted") == 2

    erase = create(http, tenant.admin.headers, "erase", erased.uid)
    assert deliver(tenant.client_id, erase["requestId"]) == "completed"
    report = read(http, tenant.admin.headers, erase["requestId"])["report"]
    assert report["vital_scan"]["deleted"] >= 2 and report["assistant"]["anonymised"] >= 1, report
    assert _text(report).count(erased.uid) == 0

    leftovers = _find(_needles(erased), tenant.client_id)
    assert leftovers == [], "\n".join(leftovers)

    still_there = _find(_needles(kept), tenant.client_id)
    for what in ("uid", "email", "externalUserId", "chat message"):
        assert any(line.startswith(f"{what} in Firestore") for line in still_there), what
    assert any(line.startswith("health value") for line in still_there)
    assert _rollup_counts(tenant.client_id) == counts_before

    # The audit trail still answers "was this person erased?", by the keyed hash alone.
    audit = http.get(f"/api/privacy/requests?uid={erased.uid}", headers=tenant.admin.headers).json["requests"]
    assert {r["requestId"] for r in audit} == {export["requestId"], erase["requestId"]}
    assert all(r["subject"] is None and r["subjectHash"] for r in audit)
    assert next(r for r in audit if r["type"] == "export")["downloadUrl"] is None  # the archive went too


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]
