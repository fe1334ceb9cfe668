"""Content rules (4.4, 2.8, 9.5): visibility through category permissions, locales, versions, categories.

Who sees what: a client's reads return its own active items, plus the operator tenant's active shared items
in the categories whose effective `viewShared` permission is true for it (the category default, unless the
client has an override). The operator tenant sees its own items, private and shared. Writes: a client's
admins manage only their client's items, in categories whose `publish` permission allows it (the operator
tenant's admins, the platform administrators, everywhere). Every change is one batch that writes the item
and a new version of it, only if the item is unchanged since it was read (optimistic), so the history is
complete, never half-written, and concurrent editors never overwrite each other.
"""

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from ..core import auth, clock, provisioning, tenancy, transactions
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.transactions import Seen
from . import models
from . import repository as repo
from .models import (
    BUILT_IN_CATEGORIES,
    DELETED,
    DRAFT,
    EN,
    MAX_KEYS,
    PUBLISHED,
    SHARED,
    CreateCategoryBody,
    CreateContentBody,
    PublishBody,
    UpdateCategoryBody,
    UpdateContentBody,
)

CLIENT_NOT_FOUND = auth.CLIENT_NOT_FOUND
CONTENT_NOT_FOUND = "Content not found."
CATEGORY_NOT_FOUND = "Category not found."
VERSION_NOT_FOUND = "Version not found."
ADMIN_REQUIRED = "Only the client's admins manage its content."
PLATFORM_ADMIN_REQUIRED = "Only platform administrators manage content categories."
UNKNOWN_LANG = "lang must be one of: en, zh-Hant, zh-Hans."
KEYS_REQUIRED = "keys is required: a comma-separated list of content keys."
TOO_MANY_KEYS = f"At most {MAX_KEYS} keys per request."
KEY_TAKEN = "An item with this key already exists for the client; PATCH it to publish a new version."
ONLY_OPERATOR_SHARES = "Only the operator tenant's items can be shared."
PUBLISH_NOT_ALLOWED = "Your client may not publish content in this category."
UNKNOWN_CATEGORY = "Unknown categoryKey."
NOTHING_TO_UPDATE = "The body must contain at least one content field."
EXPIRES_BEFORE_PUBLISH = "expiresAt must be after publishAt."
BUILT_IN_NOT_DELETABLE = "Built-in categories cannot be deleted."
CATEGORY_EXISTS = "A category with this key already exists."
CATEGORY_IN_USE = "The category still has content items; move or delete them first."
ITEM_TOO_LARGE = ("The item is too large: its texts and metadata take {n} bytes (UTF-8); "
                  f"at most {models.MAX_ITEM_BYTES:,} bytes together.")
BUSY = ApiError(503, "The content is being changed by another request; retry shortly.")

BUILT_IN_NAMES = {
    "legal": ({"en": "Legal", "zh-Hant": "法律條款", "zh-Hans": "法律条款"},
              {"en": "Terms, privacy and other legal documents."}),
    "announcements": ({"en": "Announcements", "zh-Hant": "公告", "zh-Hans": "公告"},
                      {"en": "News and notices for users."}),
    "help": ({"en": "Help", "zh-Hant": "說明", "zh-Hans": "帮助"}, {"en": "Help articles and FAQs."}),
    "other": ({"en": "Other", "zh-Hant": "其他", "zh-Hans": "其他"}, {"en": "Anything else."}),
}
DEFAULT_PERMISSIONS = {"viewShared": True, "publish": True}


# ------------------------------------------------------------------------------------ locale


def locale_for(lang: str | None, accept_language: str | None) -> str:
    """4.4: lang (en, zh-Hant or zh-Hans), else the Accept-Language header, else en."""
    if lang is not None:
        value = models.lang_value(lang)
        if value is None:
            raise ApiError(400, UNKNOWN_LANG)
        return value
    return models.from_accept_language(accept_language) or EN


# ------------------------------------------------------------------------------------ categories


def categories(stored: dict[str, dict]) -> dict[str, dict]:
    """Every category: the four built-ins (with any stored changes) and the operator's custom ones, in order."""
    merged = {}
    for key in BUILT_IN_CATEGORIES:
        name, description = BUILT_IN_NAMES[key]
        merged[key] = {"key": key, "name": name, "description": description, "builtIn": True,
                       "defaultPermissions": dict(DEFAULT_PERMISSIONS), **(stored.get(key) or {})}
        merged[key]["builtIn"] = True
    for key in sorted(k for k in stored if k not in BUILT_IN_CATEGORIES):
        merged[key] = {**stored[key], "key": key, "builtIn": False}
    return merged


def effective(category: dict, overrides: dict[str, dict]) -> dict[str, bool]:
    """A client's permissions in a category: its overrides, else the category's defaults."""
    own = overrides.get(category["key"]) or {}
    defaults = {**DEFAULT_PERMISSIONS, **(category.get("defaultPermissions") or {})}
    return {name: own[name] if own.get(name) is not None else defaults[name] for name in DEFAULT_PERMISSIONS}


def category_view(category: dict, locale: str | None, permissions: dict | None = None) -> dict[str, Any]:
    view = {"key": category["key"], "builtIn": category["builtIn"],
            "defaultPermissions": {**DEFAULT_PERMISSIONS, **(category.get("defaultPermissions") or {})}}
    if locale is None:
        view |= {"name": models.localized(category.get("name")),
                 "description": models.localized(category.get("description")) or None}
    else:
        view |= {"name": models.resolve(category.get("name"), locale) or category["key"],
                 "description": models.resolve(category.get("description"), locale)}
    if permissions is not None:
        view["permissions"] = permissions
    return view


# ------------------------------------------------------------------------------------ public reads


@functools.cache
def _operator_id() -> str | None:
    operator = provisioning.operator_client()
    return operator.client_id if operator is not None else None


def operator_id() -> str | None:
    """The operator tenant's id; it never changes once made, so a process reads it once."""
    found = _operator_id()
    if found is None:
        _operator_id.cache_clear()  # not made yet: ask again next time
    return found


@dataclasses.dataclass(frozen=True)
class Reader:
    client_id: str
    is_operator: bool
    categories: dict[str, dict]
    overrides: dict[str, dict]

    def sees_shared(self, category_key: str) -> bool:
        category = self.categories.get(category_key)
        return category is not None and effective(category, self.overrides)["viewShared"]


def reader(client_id: str) -> Reader:
    client, stored, overrides = repo.content_state(client_id) if tenancy.valid_id(client_id) else (None, {}, {})
    if client is None:
        raise ApiError(404, CLIENT_NOT_FOUND)
    return Reader(client_id, bool(client.get("isOperator")), categories(stored), overrides)


def parse_keys(text: str | None) -> list[str]:
    keys = list(dict.fromkeys(k.strip() for k in (text or "").split(",") if k.strip()))
    if not keys:
        raise ApiError(400, KEYS_REQUIRED)
    if len(keys) > MAX_KEYS:
        raise ApiError(400, TOO_MANY_KEYS)
    return keys


def visible_by_keys(who: Reader, keys: list[str]) -> dict[str, list[dict]]:
    """{key: [the client's own active item, then the operator's shared one where permitted]} (stored form)."""
    valid = [k for k in keys if len(k) <= 100]
    own, shared = repo.published_by_keys(who.client_id, None if who.is_operator else operator_id(), valid) \
        if valid else ([], [])
    now = clock.now()
    found: dict[str, list[dict]] = {key: [] for key in keys}
    for item in own:
        if models.is_active(item, now) and item["key"] in found:
            found[item["key"]].append(item)
    for item in shared:
        if models.is_active(item, now) and item["key"] in found and who.sees_shared(item["categoryKey"]):
            found[item["key"]].append(item)
    return found


MAX_CATEGORY_ITEMS = 50


def visible_in_category(who: Reader, category_key: str) -> list[dict]:
    """The client's active items of a category, then the operator's shared ones where permitted (stored form)."""
    own = repo.published_in_category(who.client_id, category_key, False, MAX_CATEGORY_ITEMS)
    operator = None if who.is_operator else operator_id()
    shared = repo.published_in_category(operator, category_key, True, MAX_CATEGORY_ITEMS) \
        if operator and who.sees_shared(category_key) else []
    now = clock.now()
    return [item for item in (*own, *shared) if models.is_active(item, now)]


def public_by_id(content_id: str) -> dict[str, Any]:
    """An active item by id, whoever asks (it backs the public page)."""
    item = repo.get_item(content_id) if tenancy.valid_id(content_id) else None
    if item is None or item.get("deleted") or not models.is_active(item, clock.now()):
        raise ApiError(404, CONTENT_NOT_FOUND)
    return item


def available_locales(item: dict[str, Any]) -> list[str]:
    """The languages a reader can ask for and see something of: those of the title or the body."""
    present = {locale for name in models.SERVED_FIELDS for locale, text in models.localized(item.get(name)).items()
               if text}
    return [locale for locale in models.LOCALES if locale in present]


# ------------------------------------------------------------------------------------ administration


def admin_client(principal: Principal) -> tenancy.Client:
    """The client whose content an admin manages: always its own (platform administrators: the operator's)."""
    if not principal.is_admin or not principal.client_id:
        raise ApiError(403, ADMIN_REQUIRED)
    client = tenancy.get_client(principal.client_id)
    if client is None:
        raise ApiError(403, ADMIN_REQUIRED)
    return client


def _check_publish(client: tenancy.Client, category_key: str) -> None:
    category = categories(repo.stored_categories()).get(category_key)
    if category is None:
        raise ApiError(400, UNKNOWN_CATEGORY)
    if client.is_operator:
        return
    if not effective(category, repo.stored_overrides(client.client_id))["publish"]:
        raise ApiError(403, PUBLISH_NOT_ALLOWED)


def _schedule(publish_at: str | None, expires_at: str | None, now) -> tuple[Any, Any]:
    start = models.parse_time("publishAt", publish_at) if publish_at is not None else now
    end = models.parse_time("expiresAt", expires_at) if expires_at is not None else None
    if end is not None and end <= start:
        raise ApiError(400, EXPIRES_BEFORE_PUBLISH)
    return start, end


def _check_size(item: dict[str, Any]) -> None:
    size = models.stored_bytes(item)
    if size > models.MAX_ITEM_BYTES:
        raise ApiError(400, ITEM_TOO_LARGE.format(n=f"{size:,}"))


def _owned(client: tenancy.Client, content_id: str) -> Seen:
    """The client's item as read; 404 for anything else (unknown, deleted, another client's)."""
    seen = repo.seen_item(content_id) if tenancy.valid_id(content_id) else transactions.NOT_SEEN
    item = seen.data
    if item is None or item.get("deleted") or item.get("ownerClientId") != client.client_id:
        raise ApiError(404, CONTENT_NOT_FOUND)
    return seen


def _new_version(client: tenancy.Client, content_id: str, actor: str, now,
                 edit: Callable[[dict[str, Any]], dict[str, Any]]) -> dict:
    """Commit `edit(item)` as the client's item's next version, on fresh reads until the item is unchanged
    between read and commit; the admin form of the result."""
    def attempt():
        seen = _owned(client, content_id)
        changed = edit(seen.data)
        _check_size(changed)
        # An item stored before versions (9.5) is version 1.
        updated = {**changed, "version": seen.data.get("version", 1) + 1,
                   "versionId": repo.new_version_id(content_id), "updatedAt": now, "updatedBy": actor}
        repo.commit_version(seen, updated)
        return updated

    return models.admin_item(transactions.optimistic(attempt, contention_error=BUSY), now)


def create_item(client: tenancy.Client, body: CreateContentBody, actor: str, content_id: str | None = None) -> dict:
    if body.visibility == SHARED and not client.is_operator:
        raise ApiError(400, ONLY_OPERATOR_SHARES)
    now = clock.now()
    publish_at, expires_at = _schedule(body.publishAt, body.expiresAt, now)
    content_id = content_id or repo.new_content_id()
    item = {
        "contentId": content_id, "ownerClientId": client.client_id, "key": body.key, "categoryKey": body.categoryKey,
        "visibility": body.visibility, "status": PUBLISHED if body.publish else DRAFT, "deleted": False,
        "title": body.title, "body": body.body, "name": body.name, "description": body.description,
        "format": body.format, "publishAt": publish_at, "expiresAt": expires_at, "metadata": body.metadata or {},
        "version": 1, "versionId": repo.new_version_id(content_id),
        "createdAt": now, "updatedAt": now, "createdBy": actor, "updatedBy": actor,
    }
    _check_size(item)

    def attempt():
        _check_publish(client, body.categoryKey)
        if repo.read(None, repo.key_ref(client.client_id, body.key)) is not None:
            raise ApiError(409, KEY_TAKEN)
        repo.commit_version(None, item)  # fails if another request claimed the key meanwhile: then 409 above

    transactions.optimistic(attempt, contention_error=BUSY)
    return models.admin_item(item, now)


def update_item(client: tenancy.Client, content_id: str, body: UpdateContentBody, actor: str,
                publish: bool = False) -> dict:
    """A new version with the fields sent; `publish` also makes it published (now, unless publishAt is sent)."""
    sent = body.model_dump(include=body.model_fields_set)
    for name in models.NOT_NULL:
        if name in sent and sent[name] is None:
            raise ApiError(400, f"Invalid field {name}: must not be null.")
    if not sent and not publish:
        raise ApiError(400, NOTHING_TO_UPDATE)
    if sent.get("visibility") == SHARED and not client.is_operator:
        raise ApiError(400, ONLY_OPERATOR_SHARES)
    now = clock.now()

    def edit(item: dict[str, Any]) -> dict[str, Any]:
        _check_publish(client, sent.get("categoryKey", item["categoryKey"]))
        changed = {**item, **{k: v for k, v in sent.items() if k not in ("publishAt", "expiresAt")}}
        if "publishAt" in sent or "expiresAt" in sent:
            start = models.parse_time("publishAt", sent["publishAt"]) if "publishAt" in sent else item["publishAt"]
            end = (models.parse_time("expiresAt", sent["expiresAt"]) if sent.get("expiresAt") is not None
                   else None if "expiresAt" in sent else item.get("expiresAt"))
            if end is not None and start is not None and end <= start:
                raise ApiError(400, EXPIRES_BEFORE_PUBLISH)
            changed |= {"publishAt": start, "expiresAt": end}
        if "metadata" in sent and sent["metadata"] is None:
            changed["metadata"] = {}
        if publish and item["status"] != PUBLISHED:
            changed["status"] = PUBLISHED
            if "publishAt" not in sent:
                changed["publishAt"] = now
        return changed

    return _new_version(client, content_id, actor, now, edit)


def put_item(client: tenancy.Client, body: CreateContentBody, actor: str) -> dict:
    """`platformctl content put`: create the item with this key, or publish its next version."""
    existing = repo.read(None, repo.key_ref(client.client_id, body.key))
    if existing is None:
        return create_item(client, body, actor)
    fields = body.model_dump(exclude={"key", "publish"}, exclude_unset=True)
    fields |= {"title": body.title, "body": body.body, "categoryKey": body.categoryKey}
    return update_item(client, existing["contentId"], UpdateContentBody(**fields), actor, publish=True)


def set_status(client: tenancy.Client, content_id: str, status: str, actor: str,
               schedule: PublishBody | None = None) -> dict:
    """Publish (now or at publishAt) or unpublish: a new version either way."""
    now = clock.now()

    def edit(item: dict[str, Any]) -> dict[str, Any]:
        changed = {**item, "status": status}
        if status == PUBLISHED:
            _check_publish(client, item["categoryKey"])
            if schedule is not None and schedule.model_fields_set:
                start, end = _schedule(schedule.publishAt, schedule.expiresAt, now)
                changed |= {"publishAt": start, "expiresAt": end}
            elif item["status"] != PUBLISHED:
                changed["publishAt"] = now
        return changed

    return _new_version(client, content_id, actor, now, edit)


def delete_item(client: tenancy.Client, content_id: str, actor: str) -> None:
    """The item disappears everywhere and its key is free again; its versions stay as history."""
    now = clock.now()

    def attempt():
        seen = _owned(client, content_id)
        repo.commit_delete(seen, {**seen.data, "deleted": True, "status": DELETED, "updatedAt": now,
                                  "updatedBy": actor})

    transactions.optimistic(attempt, contention_error=BUSY)


def get_owned(client: tenancy.Client, content_id: str) -> dict:
    return models.admin_item(_owned(client, content_id).existing(), clock.now())


def list_owned(client: tenancy.Client, category_key: str | None, limit: int, start_after: str | None) -> dict:
    items, more = repo.owner_items(client.client_id, category_key, limit, start_after)
    now = clock.now()
    return {"success": True, "data": [models.admin_item(i, now) for i in items],
            "nextStartAfter": items[-1]["key"] if more else None}


def list_versions(client: tenancy.Client, content_id: str, limit: int, start_after: int | None) -> dict:
    _owned(client, content_id)
    found, more = repo.versions(content_id, limit, start_after)
    return {"success": True, "data": [
        {"version": v["version"], "versionId": v["versionId"], "status": v["status"],
         "title": models.localized(v.get("title")), "createdAt": clock.iso(v.get("updatedAt")),
         "createdBy": v.get("updatedBy")} for v in found],
        "nextStartAfter": found[-1]["version"] if more else None}


def get_version(client: tenancy.Client, content_id: str, version_id: str) -> dict:
    _owned(client, content_id)
    version = repo.get_version(content_id, version_id) if tenancy.valid_id(version_id) else None
    if version is None:
        raise ApiError(404, VERSION_NOT_FOUND)
    return models.admin_item(version, clock.now())


# ------------------------------------------------------------------------------------ category management


def require_platform_admin(principal: Principal) -> None:
    if not (principal.is_admin and principal.platform_admin):
        raise ApiError(403, PLATFORM_ADMIN_REQUIRED)


def create_category(body: CreateCategoryBody) -> dict:
    now = clock.now()

    def run(transaction):
        stored = repo.stored_categories(transaction)
        if body.key in BUILT_IN_CATEGORIES or body.key in stored:
            raise ApiError(409, CATEGORY_EXISTS)
        record = {"key": body.key, "name": body.name, "description": body.description,
                  "defaultPermissions": body.defaultPermissions.model_dump(), "createdAt": now, "updatedAt": now}
        transaction.set(repo.categories_ref(), {"categories": {**stored, body.key: record}})
        return categories({**stored, body.key: record})[body.key]

    return category_view(transactions.run(run, contention_error=BUSY), None)


def update_category(key: str, body: UpdateCategoryBody) -> dict:
    sent = body.model_dump(include=body.model_fields_set)
    for name in ("name", "defaultPermissions"):
        if name in sent and sent[name] is None:
            raise ApiError(400, f"Invalid field {name}: must not be null.")
    if not sent:
        raise ApiError(400, "The body must contain at least one category field.")
    now = clock.now()

    def run(transaction):
        stored = repo.stored_categories(transaction)
        current = categories(stored).get(key)
        if current is None:
            raise ApiError(404, CATEGORY_NOT_FOUND)
        record = {k: v for k, v in current.items() if k != "builtIn"}
        if "name" in sent:
            record["name"] = sent["name"]
        if "description" in sent:
            record["description"] = sent["description"]
        if "defaultPermissions" in sent:
            changes = {k: v for k, v in sent["defaultPermissions"].items() if v is not None}
            record["defaultPermissions"] = {**DEFAULT_PERMISSIONS, **(current.get("defaultPermissions") or {}),
                                            **changes}
        record["updatedAt"] = now
        transaction.set(repo.categories_ref(), {"categories": {**stored, key: record}})
        return categories({**stored, key: record})[key]

    return category_view(transactions.run(run, contention_error=BUSY), None)


def delete_category(key: str) -> None:
    if key in BUILT_IN_CATEGORIES:
        raise ApiError(409, BUILT_IN_NOT_DELETABLE)
    if key not in repo.stored_categories():
        raise ApiError(404, CATEGORY_NOT_FOUND)
    if repo.category_in_use(key):
        raise ApiError(409, CATEGORY_IN_USE)

    def run(transaction):
        stored = repo.stored_categories(transaction)
        if key not in stored:
            raise ApiError(404, CATEGORY_NOT_FOUND)
        transaction.set(repo.categories_ref(), {"categories": {k: v for k, v in stored.items() if k != key}})

    transactions.run(run, contention_error=BUSY)


def set_client_permissions(key: str, client_id: str, changes: dict[str, bool | None]) -> dict:
    if tenancy.get_client(client_id) is None:
        raise ApiError(404, CLIENT_NOT_FOUND)

    def run(transaction):
        category = categories(repo.stored_categories(transaction)).get(key)
        if category is None:
            raise ApiError(404, CATEGORY_NOT_FOUND)
        overrides = repo.stored_overrides(client_id, transaction)
        own = {**(overrides.get(key) or {}), **changes}
        own = {k: v for k, v in own.items() if v is not None}
        overrides = {**overrides, key: own} if own else {k: v for k, v in overrides.items() if k != key}
        transaction.set(repo.overrides_ref(client_id), {"clientId": client_id, "categories": overrides})
        return {"success": True, "clientId": client_id, "categoryKey": key, "overrides": own,
                "permissions": effective(category, overrides)}

    return transactions.run(run, contention_error=BUSY)


