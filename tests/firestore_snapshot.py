"""Every document in the Firestore emulator with its update time: what a test compares to prove nothing was written."""

import os

import requests

PROJECT = os.environ.get("GCLOUD_PROJECT", "demo-wellness")
_DATABASE = f"projects/{PROJECT}/databases/(default)/documents"
# The emulator's owner credential reads past the security rules, as the Admin SDK does.
_OWNER = {"Authorization": "Bearer owner"}


def _url() -> str:
    return f"http://{os.environ['FIRESTORE_EMULATOR_HOST']}/v1/{_DATABASE}:runQuery"


def versions() -> dict[str, str]:
    """{document path: updateTime} of every document of the project, from one kindless query over all collections."""
    query = {"structuredQuery": {"from": [{"allDescendants": True}], "select": {"fields": [{"fieldPath": "__name__"}]}}}
    response = requests.post(_url(), json=query, headers=_OWNER, timeout=120)
    response.raise_for_status()
    prefix = len(_DATABASE) + 1
    return {row["document"]["name"][prefix:]: row["document"]["updateTime"]
            for row in response.json() if "document" in row}


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The documents created, updated or deleted between two snapshots, as 'created|updated|deleted <path>'."""
    created = [f"created {path}" for path in after.keys() - before.keys()]
    deleted = [f"deleted {path}" for path in before.keys() - after.keys()]
    updated = [f"updated {path}" for path in before.keys() & after.keys() if before[path] != after[path]]
    return sorted(created + deleted + updated)


def collection_group_paths(paths) -> set[str]:
    """'clients/{id}/users/{id}' templates of document paths: one per collection group nesting."""
    return {"/".join("{id}" if i % 2 else part for i, part in enumerate(path.split("/"))) for path in paths}
