"""What Content answers with (4.4, 2.8); the handlers' bodies are checked against these."""

from typing import Any, Literal

from pydantic import Field

from ..core.openapi import Closed

Locale = Literal["en", "zh-Hant", "zh-Hans"]
Localized = dict[str, str]
Timestamp = str


class ContentItem(Closed):
    """A content item, public form (2.8), resolved to one language (falling back to en per field)."""

    contentId: str
    ownerClientId: str
    clientId: str | None = Field(default=None, description="The calling client (list forms only).")
    key: str
    categoryKey: str
    version: int
    versionId: str
    locale: Locale = Field(description="The requested language when the title or the body is served in it, else "
                                       "en. Each of title and body falls back to en on its own when it lacks the "
                                       "requested language.")
    title: str
    body: str
    format: Literal["markdown", "plain"]
    publishAt: Timestamp
    expiresAt: Timestamp | None
    metadata: dict[str, Any] = Field(description="For example actionUrl and actionLabel.")


class ContentByKey(Closed):
    success: Literal[True]
    locale: Locale
    data: list[ContentItem] = Field(description="The client's own active item with the key, then the operator's "
                                                "shared one where the category's permissions let the client see it.")


class ContentById(Closed):
    success: Literal[True]
    locale: Locale
    data: ContentItem


class ContentByKeys(Closed):
    success: Literal[True]
    locale: Locale
    data: dict[str, list[ContentItem]] = Field(description="Every requested key, with its items (possibly none).")


class CategoryPermissions(Closed):
    viewShared: bool = Field(description="Clients see the operator's shared items of the category.")
    publish: bool = Field(description="Clients' admins may publish their own items in the category.")


class PublicCategory(Closed):
    key: str
    name: str
    description: str | None
    builtIn: bool
    defaultPermissions: CategoryPermissions
    permissions: CategoryPermissions = Field(description="What the client may do: its overrides, else the defaults.")


class CategoryList(Closed):
    success: Literal[True]
    locale: Locale
    data: list[PublicCategory]


class Category(Closed):
    key: str
    name: Localized
    description: Localized | None
    builtIn: bool
    defaultPermissions: CategoryPermissions


class CategoryResult(Closed):
    success: Literal[True]
    category: Category


class ClientPermissionsResult(Closed):
    success: Literal[True]
    clientId: str
    categoryKey: str
    overrides: dict[str, bool] = Field(description="The client's own settings; absent ones follow the defaults.")
    permissions: CategoryPermissions


class Success(Closed):
    success: Literal[True]


class AdminContentItem(Closed):
    """An item as its administrators manage it: every language, status, schedule and version."""

    contentId: str
    ownerClientId: str
    key: str
    categoryKey: str
    visibility: Literal["private", "shared"]
    status: Literal["draft", "published", "unpublished"]
    active: bool = Field(description="Published, publishAt passed and not expired: what apps see.")
    version: int
    versionId: str
    name: Localized | None
    description: Localized | None
    title: Localized
    body: Localized
    format: Literal["markdown", "plain"]
    publishAt: Timestamp | None
    expiresAt: Timestamp | None
    metadata: dict[str, Any]
    createdAt: Timestamp | None
    updatedAt: Timestamp | None
    createdBy: str | None
    updatedBy: str | None


class AdminContentResult(Closed):
    success: Literal[True]
    content: AdminContentItem


class AdminContentList(Closed):
    success: Literal[True]
    data: list[AdminContentItem] = Field(description="The client's items by key.")
    nextStartAfter: str | None


class VersionSummary(Closed):
    version: int
    versionId: str
    status: Literal["draft", "published", "unpublished"]
    title: Localized
    createdAt: Timestamp | None
    createdBy: str | None


class VersionList(Closed):
    success: Literal[True]
    data: list[VersionSummary] = Field(description="Newest first.")
    nextStartAfter: int | None


class VersionResult(Closed):
    success: Literal[True]
    content: AdminContentItem
