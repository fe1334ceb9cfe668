"""All Firestore access of Content.

Layout:
    contentItems/{contentId}                        an item: owner, key, category, visibility, status, the
                                                    multilingual fields, schedule, metadata, version
    contentItems/{contentId}/versions/{versionId}   every published state of the item (its history)
    clients/{clientId}/contentKeys/{key}            {contentId}: a key is unique per owner client
    platform/contentCategories                      {categories: {key: record}}: custom categories, and
                                                    changes to the built-ins' names and default permissions
    clients/{clientId}/contentPermissions/overrides {categories: {key: {viewShared?, publish?}}}

Item writes are optimistic (core.transactions.optimistic): each change commits the item and its new version
in one batch that requires the item unchanged since it was read, so concurrent editors never interleave and
never wait for each other's locks.

Items are top level, so GET /api/content/{contentId}/public and /ct/{contentId} read one document. The public
lookups by key run two queries side by side (the client's own items, the operator's shared ones), each
`key in [...]` for up to 10 keys: two round trips, whatever the number of keys.
"""

import concurrent.futures
from typing import Any

from google.cloud import firestore

from ..core import firebase, tenancy, transactions
from ..core.provisioning import PLATFORM
from ..core.transactions import Seen
from .models import PUBLISHED, SHARED

ITEMS = "contentItems"
VERSIONS = "versions"
KEYS = "contentKeys"
CATEGORIES_DOC = "contentCategories"
PERMISSIONS = "contentPermissions"
OVERRIDES = "overrides"
MAX_MATCHES = 50  # per lookup query: a key matches at most one item per owner


def item_ref(content_id: str):
    return firebase.db().collection(ITEMS).document(content_id)


def version_ref(content_id: str, version_id: str):
    return item_ref(content_id).collection(VERSIONS).document(version_id)


def new_content_id() -> str:
    return firebase.db().collection(ITEMS).document().id


def new_version_id(content_id: str) -> str:
    return item_ref(content_id).collection(VERSIONS).document().id


def key_ref(client_id: str, key: str):
    return tenancy.client_ref(client_id).collection(KEYS).document(key)


def categories_ref():
    return firebase.db().collection(PLATFORM).document(CATEGORIES_DOC)


def overrides_ref(client_id: str):
    return tenancy.client_ref(client_id).collection(PERMISSIONS).document(OVERRIDES)


def get_item(content_id: str) -> dict[str, Any] | None:
    snap = item_ref(content_id).get()
    return snap.to_dict() if snap.exists else None


def read(transaction, ref) -> dict[str, Any] | None:
    snap = ref.get(transaction=transaction)
    return snap.to_dict() if snap.exists else None


def _by_category(snap) -> dict[str, dict]:
    """The `categories` map of the categories or overrides document (empty when it does not exist)."""
    return (snap.to_dict() or {}).get("categories") or {} if snap is not None and snap.exists else {}


def content_state(client_id: str) -> tuple[dict | None, dict, dict]:
    """The client, the stored categories and the client's overrides, in one round trip."""
    refs = [tenancy.client_ref(client_id), categories_ref(), overrides_ref(client_id)]
    found = {snap.reference.path: snap for snap in firebase.db().get_all(refs)}
    client, categories, overrides = (found.get(ref.path) for ref in refs)
    return (client.to_dict() if client is not None and client.exists else None,
            _by_category(categories), _by_category(overrides))


def stored_categories(transaction=None) -> dict[str, dict]:
    return _by_category(categories_ref().get(transaction=transaction))


def stored_overrides(client_id: str, transaction=None) -> dict[str, dict]:
    return _by_category(overrides_ref(client_id).get(transaction=transaction))


def _published(owner: str, condition: firestore.FieldFilter, shared_only: bool, limit: int) -> list[dict[str, Any]]:
    """The owner's published items that meet `condition` (only the shared ones with `shared_only`)."""
    query = (firebase.db().collection(ITEMS)
             .where(filter=firestore.FieldFilter("ownerClientId", "==", owner))
             .where(filter=firestore.FieldFilter("status", "==", PUBLISHED))
             .where(filter=condition))
    if shared_only:
        query = query.where(filter=firestore.FieldFilter("visibility", "==", SHARED))
    return [snap.to_dict() or {} for snap in query.limit(limit).stream()]


def _published_with_keys(owner: str, keys: list[str], shared_only: bool) -> list[dict[str, Any]]:
    return _published(owner, firestore.FieldFilter("key", "in", keys), shared_only, MAX_MATCHES)


def published_in_category(owner: str, category_key: str, shared_only: bool, limit: int) -> list[dict[str, Any]]:
    return _published(owner, firestore.FieldFilter("categoryKey", "==", category_key), shared_only, limit)


_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="content-lookup")


def published_by_keys(client_id: str, operator_id: str | None, keys: list[str]) -> tuple[list[dict], list[dict]]:
    """The client's published items and the operator's shared published items with these keys (both queries at
    once; the operator's own calls need only the first)."""
    own = _POOL.submit(_published_with_keys, client_id, keys, False)
    shared = (_POOL.submit(_published_with_keys, operator_id, keys, True)
              if operator_id and operator_id != client_id else None)
    return own.result(), (shared.result() if shared is not None else [])


def owner_items(client_id: str, category_key: str | None, limit: int, start_after: str | None):
    """The client's items (not deleted) by key, one page, and whether more follow."""
    query = (firebase.db().collection(ITEMS)
             .where(filter=firestore.FieldFilter("ownerClientId", "==", client_id))
             .where(filter=firestore.FieldFilter("deleted", "==", False)))
    if category_key:
        query = query.where(filter=firestore.FieldFilter("categoryKey", "==", category_key))
    query = query.order_by("key")
    if start_after:
        query = query.start_after({"key": start_after})
    found = [snap.to_dict() for snap in query.limit(limit + 1).stream()]
    return found[:limit], len(found) > limit


def versions(content_id: str, limit: int, start_after: int | None):
    query = item_ref(content_id).collection(VERSIONS).order_by("version", direction=firestore.Query.DESCENDING)
    if start_after:
        query = query.start_after({"version": start_after})
    found = [snap.to_dict() for snap in query.limit(limit + 1).stream()]
    return found[:limit], len(found) > limit


def get_version(content_id: str, version_id: str) -> dict[str, Any] | None:
    snap = version_ref(content_id, version_id).get()
    return snap.to_dict() if snap.exists else None


def category_in_use(category_key: str) -> bool:
    query = (firebase.db().collection(ITEMS)
             .where(filter=firestore.FieldFilter("categoryKey", "==", category_key))
             .where(filter=firestore.FieldFilter("deleted", "==", False)).limit(1))
    return any(True for _ in query.stream())


def seen_item(content_id: str) -> Seen:
    return transactions.read(item_ref(content_id))


def commit_version(seen: Seen | None, item: dict[str, Any]) -> None:
    """The item as it now stands and the same state as a new version, in one batch. A new item (seen None) also
    claims its key (the batch fails if the key is taken); a changed one requires the item unchanged since read."""
    batch = firebase.db().batch()
    if seen is None:
        batch.create(item_ref(item["contentId"]), item)
        batch.create(key_ref(item["ownerClientId"], item["key"]), {"contentId": item["contentId"]})
    else:
        batch.update(item_ref(item["contentId"]), item, option=transactions.unchanged(seen))
    batch.create(version_ref(item["contentId"], item["versionId"]), {k: v for k, v in item.items() if k != "deleted"})
    batch.commit()


def commit_delete(seen: Seen, deleted: dict[str, Any]) -> None:
    """Mark the item deleted (if unchanged since read) and free its key; its versions stay."""
    batch = firebase.db().batch()
    batch.update(item_ref(deleted["contentId"]), deleted, option=transactions.unchanged(seen))
    batch.delete(key_ref(deleted["ownerClientId"], deleted["key"]))
    batch.commit()
