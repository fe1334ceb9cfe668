"""What Content parses (4.4, 2.8, 9.5), locale resolution, and how stored items read in the API."""

import datetime as dt
import re
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, WithJsonSchema
from pydantic_core import PydanticCustomError

from ..core import clock
from ..core.bounds import QueryRange
from ..core.text import multi_line, single_line

EN, ZH_HANT, ZH_HANS = "en", "zh-Hant", "zh-Hans"
LOCALES = (EN, ZH_HANT, ZH_HANS)
BUILT_IN_CATEGORIES = ("legal", "announcements", "help", "other")
PRIVATE: Final = "private"
SHARED: Final = "shared"
DRAFT, PUBLISHED, UNPUBLISHED, DELETED = "draft", "published", "unpublished", "deleted"

MAX_KEYS = 10  # multi-key lookup (8)
MAX_TITLE, MAX_NAME, MAX_DESCRIPTION, MAX_BODY = 200, 200, 2_000, 100_000
MAX_METADATA_ENTRIES, MAX_METADATA_TEXT = 20, 2_000
MAX_METADATA_NUMBER = 1e15  # a display value (a price, a count); beyond it a JSON reader loses integer precision
LIST_PAGE_DEFAULT, LIST_PAGE_MAX = 20, 100
MAX_KEY, MAX_CATEGORY_KEY = 100, 40
MAX_TIMESTAMP = 40  # "2026-12-01T09:00:00.123456+05:30" is 32 characters
MAX_LANG = 35  # the longest language tag BCP 47 asks implementations to accept
MAX_KEYS_TEXT = MAX_KEYS * (MAX_KEY + 1)  # ten keys of 100 characters, each with its comma (or a space)
MAX_VERSION = 2**31 - 1
# What one item's texts and metadata may take stored (UTF-8). Each field has its own cap, but together they could
# pass Firestore's 1 MiB document limit (three 100,000-character bodies of 4-byte characters alone are 1.2 MB): the
# write would fail with a 500. The item and each of its versions is one document.
MAX_ITEM_BYTES = 900_000

KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
CATEGORY_KEY_PATTERN = r"^[a-z][a-z0-9-]{0,39}$"
_METADATA_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")


def _localized(limit: int, multiline: bool):
    """A {en, zh-Hant?, zh-Hans?} map (2.8): en is required, every text non-empty and within `limit`."""
    check = multi_line if multiline else single_line

    def validate(value: dict[str, str]) -> dict[str, str]:
        unknown = [k for k in value if k not in LOCALES]
        if unknown:
            raise PydanticCustomError("locale", "unknown language {lang}: use en, zh-Hant or zh-Hans",
                                      {"lang": unknown[0]})
        if not value.get(EN, "").strip():
            raise PydanticCustomError("locale_en", "en is required")
        for lang, text in value.items():
            if not text.strip() or len(text) > limit:
                raise PydanticCustomError("locale_text", "{lang} must be 1 to {limit} characters",
                                          {"lang": lang, "limit": limit})
            check(text)
        return {lang: value[lang] for lang in LOCALES if lang in value}

    return AfterValidator(validate)


def _localized_schema(limit: int) -> WithJsonSchema:
    # The validator's own rules, for the OpenAPI document (its messages name the language, so it checks them).
    return WithJsonSchema({
        "type": "object", "required": [EN], "maxProperties": len(LOCALES),
        "propertyNames": {"enum": list(LOCALES)},
        "additionalProperties": {"type": "string", "minLength": 1, "maxLength": limit},
    })


Title = Annotated[dict[str, str], _localized(MAX_TITLE, False), _localized_schema(MAX_TITLE)]
Name = Annotated[dict[str, str], _localized(MAX_NAME, False), _localized_schema(MAX_NAME)]
Description = Annotated[dict[str, str], _localized(MAX_DESCRIPTION, True), _localized_schema(MAX_DESCRIPTION)]
Body = Annotated[dict[str, str], _localized(MAX_BODY, True), _localized_schema(MAX_BODY)]
MetadataValue = Annotated[str, Field(max_length=MAX_METADATA_TEXT)] | StrictInt | StrictFloat | StrictBool | None


def _metadata(value: dict[str, Any]) -> dict[str, Any]:
    if len(value) > MAX_METADATA_ENTRIES:
        raise PydanticCustomError("metadata_size", "at most {n} entries", {"n": MAX_METADATA_ENTRIES})
    for name, item in value.items():
        if not _METADATA_NAME.match(name):
            raise PydanticCustomError("metadata_name", "{name} is not a metadata name (letters, digits, _)",
                                      {"name": name})
        if isinstance(item, str):
            single_line(item)
        elif isinstance(item, int | float) and not isinstance(item, bool) and abs(item) > MAX_METADATA_NUMBER:
            raise PydanticCustomError("metadata_number", "{name} must be a number from -1e15 to 1e15",
                                      {"name": name})
    url = value.get("actionUrl")
    if url is not None and not (isinstance(url, str) and re.match(r"^(https://\S+|/(?![/\\])\S*)$", url)):
        raise PydanticCustomError("action_url", "actionUrl must be an https URL or a path starting with /")
    return value


Metadata = Annotated[dict[str, MetadataValue], AfterValidator(_metadata), WithJsonSchema({
    # What _metadata checks, for the OpenAPI document.
    "type": "object", "maxProperties": MAX_METADATA_ENTRIES, "propertyNames": {"pattern": _METADATA_NAME.pattern},
    "additionalProperties": {"anyOf": [
        {"type": "string", "maxLength": MAX_METADATA_TEXT},
        {"type": "number", "minimum": -MAX_METADATA_NUMBER, "maximum": MAX_METADATA_NUMBER},
        {"type": "boolean"}, {"type": "null"}]},
})]
Timestamp = Annotated[str, Field(max_length=MAX_TIMESTAMP,
                                 description="ISO 8601 with a time zone, e.g. 2026-12-01T09:00:00Z.")]
# The patterns bound the length (100 and 40 characters) and the OpenAPI document shows them.
Key = Annotated[str, Field(pattern=KEY_PATTERN)]
CategoryKey = Annotated[str, Field(pattern=CATEGORY_KEY_PATTERN)]


# ------------------------------------------------------------------------------------ request bodies


class CreateContentBody(BaseModel):
    """POST /api/content: a new item of the caller's client; published at once unless publish is false."""

    model_config = ConfigDict(extra="forbid")

    key: Annotated[Key, Field(description="Unique per owner client; what apps look up.")]
    categoryKey: CategoryKey
    title: Title
    body: Body
    name: Name | None = None
    description: Description | None = None
    format: Literal["markdown", "plain"] = "markdown"
    visibility: Literal["private", "shared"] = Field(default=PRIVATE, description="shared: operator items only.")
    publish: StrictBool = Field(default=True, description="false keeps the item a draft.")
    publishAt: Timestamp | None = Field(default=None, description="Default: now. A future time schedules it.")
    expiresAt: Timestamp | None = None
    metadata: Metadata | None = None


class UpdateContentBody(BaseModel):
    """PATCH /api/content/[contentId]: any subset; each change publishes a new version. null clears optionals."""

    model_config = ConfigDict(extra="forbid")

    categoryKey: CategoryKey | None = None
    title: Title | None = None
    body: Body | None = None
    name: Name | None = None
    description: Description | None = None
    format: Literal["markdown", "plain"] | None = None
    visibility: Literal["private", "shared"] | None = None
    publishAt: Timestamp | None = None
    expiresAt: Timestamp | None = None
    metadata: Metadata | None = None


NOT_NULL = ("categoryKey", "title", "body", "format", "visibility", "publishAt")


class PublishBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    publishAt: Timestamp | None = Field(default=None, description="Default: now.")
    expiresAt: Timestamp | None = None


class Permissions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    viewShared: StrictBool = Field(default=True, description="Clients see the operator's shared items of the "
                                                             "category.")
    publish: StrictBool = Field(default=True, description="Clients' admins may publish their own items in it.")


class NewCategoryPermissions(Permissions):
    """A custom category's defaults: clients see the operator's shared items, but publish only when allowed."""

    publish: StrictBool = Field(default=False, description="Clients' admins may publish their own items in it.")


class PermissionsPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    viewShared: StrictBool | None = None
    publish: StrictBool | None = None


class CreateCategoryBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: CategoryKey
    name: Name
    description: Description | None = None
    defaultPermissions: NewCategoryPermissions = Field(default_factory=lambda: NewCategoryPermissions())


class UpdateCategoryBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    description: Description | None = None
    defaultPermissions: PermissionsPatch | None = None


class ClientPermissionsBody(BaseModel):
    """A client's overrides of a category's default permissions; null removes an override."""

    model_config = ConfigDict(extra="forbid")

    viewShared: StrictBool | None = None
    publish: StrictBool | None = None


class LangQuery(BaseModel):
    lang: Annotated[str, Field(max_length=MAX_LANG)] | None = Field(
        default=None, description="en, zh-Hant or zh-Hans; default: Accept-Language, then en.")


class KeysQuery(LangQuery):
    keys: Annotated[str, Field(max_length=MAX_KEYS_TEXT)] = Field(
        description=f"Comma-separated content keys, at most {MAX_KEYS}.")


class AdminListQuery(BaseModel):
    categoryKey: Annotated[str, Field(max_length=MAX_CATEGORY_KEY)] | None = None
    limit: Annotated[int, QueryRange(ge=1, le=LIST_PAGE_MAX)] = LIST_PAGE_DEFAULT
    startAfter: Annotated[str, Field(max_length=MAX_KEY)] | None = Field(
        default=None, description="The key of the last item of the previous page.")


class VersionsQuery(BaseModel):
    limit: Annotated[int, QueryRange(ge=1, le=LIST_PAGE_MAX)] = LIST_PAGE_DEFAULT
    startAfter: Annotated[int, QueryRange(ge=1, le=MAX_VERSION)] | None = Field(
        default=None, description="The version number of the last version of the previous page.")


def parse_time(field: str, text: str):
    """An ISO 8601 time with a time zone, as an aware datetime; 400 names the field otherwise."""
    from ..core.errors import ApiError

    try:
        value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        value = None
    if value is None or value.tzinfo is None:
        raise ApiError(400, f"Invalid field {field}: must be an ISO 8601 time with a time zone.")
    return value.astimezone(dt.UTC)


# ------------------------------------------------------------------------------------ locales


def _locale_of_tag(tag: str) -> str | None:
    tag = tag.strip().lower()
    if tag == "*" or tag == "en" or tag.startswith("en-"):
        return EN
    if tag in ("zh-hant", "zh-tw", "zh-hk", "zh-mo") or tag.startswith(("zh-hant-", "zh-tw-", "zh-hk-", "zh-mo-")):
        return ZH_HANT
    if tag in ("zh", "zh-hans", "zh-cn", "zh-sg") or tag.startswith(("zh-hans-", "zh-cn-", "zh-sg-")):
        return ZH_HANS
    return None


def from_accept_language(header: str | None) -> str | None:
    """The supported locale the Accept-Language header prefers most (q-values; ties keep header order)."""
    ranked = []
    for position, part in enumerate((header or "").split(",")[:50]):
        tag, _, params = part.partition(";")
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = min(float(match.group(1)), 1.0)
            except ValueError:
                continue
        locale = _locale_of_tag(tag)
        if locale is not None and quality > 0:
            ranked.append((-quality, position, locale))
    return min(ranked)[2] if ranked else None


def lang_value(lang: str) -> str | None:
    """A lang query value in its canonical spelling (case-insensitive), or None when unsupported."""
    return next((locale for locale in LOCALES if locale.lower() == lang.strip().lower()), None)


# ------------------------------------------------------------------------------------ read forms


def localized(value: Any) -> dict[str, str]:
    """A stored multilingual field; a legacy single string reads as {en: value} (9.5)."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {EN: value}
    return {k: v for k, v in dict(value).items() if k in LOCALES and isinstance(v, str)}


def resolve(value: Any, locale: str) -> str | None:
    """One language of a multilingual field, falling back to en."""
    texts = localized(value)
    return texts.get(locale) or texts.get(EN)


def field_locale(value: Any, locale: str) -> str:
    """The language resolve() serves a field in: `locale` when the field has a text in it, else en."""
    return locale if localized(value).get(locale) else EN


SERVED_FIELDS = ("title", "body")


def served_locale(item: dict[str, Any], locale: str) -> str:
    """An item's `locale`: the requested one when its title or its body is served in it, else en.

    Each field falls back to en on its own (a zh-Hant title with an en-only body is served as that zh-Hant title
    and the en body), so `locale` names the language the reader asked for whenever any of it was honoured."""
    return locale if any(field_locale(item.get(name), locale) == locale for name in SERVED_FIELDS) else EN


def is_active(item: dict[str, Any], now) -> bool:
    """Published, publishAt passed and not expired."""
    if item.get("status") != PUBLISHED:
        return False
    publish_at, expires_at = item.get("publishAt"), item.get("expiresAt")
    return (publish_at is None or publish_at <= now) and (expires_at is None or now < expires_at)


def public_item(item: dict[str, Any], locale: str, client_id: str | None = None) -> dict[str, Any]:
    """The public form (2.8), each text resolved to `locale` on its own (else en); clientId only in list forms."""
    served = served_locale(item, locale)
    view = {
        "contentId": item["contentId"], "ownerClientId": item["ownerClientId"], "key": item["key"],
        "categoryKey": item["categoryKey"], "version": item.get("version", 1),
        "versionId": item.get("versionId") or item["contentId"], "locale": served,
        "title": resolve(item.get("title"), locale) or "", "body": resolve(item.get("body"), locale) or "",
        "format": item.get("format") or "markdown",
        "publishAt": clock.iso(item.get("publishAt") or item.get("createdAt")),
        "expiresAt": clock.iso(item.get("expiresAt")), "metadata": dict(item.get("metadata") or {}),
    }
    if client_id is not None:
        view = {"contentId": view.pop("contentId"), "ownerClientId": view.pop("ownerClientId"),
                "clientId": client_id, **view}
    return view


ADMIN_FIELDS = ("contentId", "ownerClientId", "key", "categoryKey", "visibility", "status", "version", "versionId",
                "format", "metadata", "createdBy", "updatedBy")
LOCALIZED_FIELDS = ("name", "description", "title", "body")
TIME_FIELDS = ("publishAt", "expiresAt", "createdAt", "updatedAt")


def stored_bytes(item: dict[str, Any]) -> int:
    """The UTF-8 bytes of an item's texts and metadata: what MAX_ITEM_BYTES bounds (the rest is a few hundred)."""
    total = sum(len(text.encode()) for name in LOCALIZED_FIELDS for text in localized(item.get(name)).values())
    for name, value in (item.get("metadata") or {}).items():
        total += len(name.encode()) + (len(value.encode()) if isinstance(value, str) else 8)
    return total


def admin_item(item: dict[str, Any], now) -> dict[str, Any]:
    """Everything an administrator manages: every language, status, schedule and version."""
    view = {name: item.get(name) for name in ADMIN_FIELDS}
    view["version"] = item.get("version", 1)  # items stored before versions (9.5) are version 1
    view["versionId"] = item.get("versionId") or item["contentId"]
    view["metadata"] = dict(item.get("metadata") or {})
    for name in LOCALIZED_FIELDS:
        view[name] = localized(item.get(name)) or None
    for name in TIME_FIELDS:
        view[name] = clock.iso(item.get(name))
    view["active"] = is_active(item, now)
    return view
