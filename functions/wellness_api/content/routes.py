"""HTTP routes of Content (4.4): the public reads, the administrators' content management and the platform
administrators' category management (both designed here: the spec does not show them), and the public page."""

import flask

from ..core import auth, http, openapi
from ..core.openapi import ID_TOKEN, error
from . import models, page, service
from .models import (
    AdminListQuery,
    ClientPermissionsBody,
    CreateCategoryBody,
    CreateContentBody,
    KeysQuery,
    LangQuery,
    PublishBody,
    UpdateCategoryBody,
    UpdateContentBody,
    VersionsQuery,
)
from .responses import (
    AdminContentList,
    AdminContentResult,
    CategoryList,
    CategoryResult,
    ClientPermissionsResult,
    ContentById,
    ContentByKey,
    ContentByKeys,
    Success,
    VersionList,
    VersionResult,
)

app = http.create_app("content")
api = openapi.Api(app, "Content")

PUBLIC = [""]  # no credential: published content is public, and apps show legal texts before sign-in
PUBLIC_ENDPOINTS = ("content_by_key", "content_by_keys", "content_by_id", "content_categories")
UNKNOWN_CLIENT = error(404, "Unknown client.")
BAD_LANG = error(400, "lang is not en, zh-Hant or zh-Hans.")
ADMIN_ERRORS = (
    error(401, "Missing, invalid or expired ID token, or a disabled user."),
    error(403, "Not an admin of a client (players and guests read content through the public endpoints)."),
)
NOT_FOUND = error(404, "No such item of the caller's client (or it was deleted).")
PLATFORM_ERRORS = (
    error(401, "Missing, invalid or expired ID token, or a disabled user."),
    error(403, "Not a platform administrator."),
)
BUSY = error(503, "Too many changes at once; retry.")
SAMPLE_ITEM = {
    "key": "welcome-2027", "categoryKey": "announcements",
    "title": {"en": "Welcome to 2027", "zh-Hant": "歡迎來到 2027"},
    "body": {"en": "New classes start **January 5**.", "zh-Hant": "新課程將於 **1 月 5 日**開始。"},
    "metadata": {"actionUrl": "https://demo-fitness.example/classes", "actionLabel": "See classes"},
}


@app.after_request
def _cache_public_reads(response: flask.Response) -> flask.Response:
    # Published content changes rarely and is the same for everyone: let Hosting's CDN and apps cache it a
    # minute. Its language follows Accept-Language when lang is absent.
    if flask.request.endpoint in PUBLIC_ENDPOINTS and response.status_code == 200:
        response.headers["Cache-Control"] = "public, max-age=60"
        response.headers["Vary"] = "Accept-Language"
    return response


def _locale() -> str:
    return service.locale_for(http.parse_query(LangQuery).lang, flask.request.headers.get("Accept-Language"))


# ------------------------------------------------------------------------------------ public reads


@api.get("/api/client/<client_id>/content/public/<key>", operation_id="getContentByKey",
         summary="Get the client's content with a key",
         description="The client's own active item with this key, and the operator tenant's active shared item with "
                     "it where the category's permissions let the client see it. No credentials: published content "
                     "is public. Language: lang, else Accept-Language, else en; a missing translation falls back "
                     "to en.",
         security=PUBLIC, query=LangQuery, responses={200: ContentByKey}, errors=[UNKNOWN_CLIENT, BAD_LANG])
def content_by_key(client_id: str, key: str):
    locale = _locale()
    who = service.reader(client_id)
    items = service.visible_by_keys(who, [key])[key]
    return {"success": True, "locale": locale, "data": [models.public_item(i, locale, client_id) for i in items]}


@api.get("/api/client/<client_id>/content/public", operation_id="getContentByKeys",
         summary="Get the client's content for several keys",
         description=f"Like the lookup by key, for at most {models.MAX_KEYS} comma-separated keys at once; every "
                     "requested key is in the map, with its items (possibly none).",
         security=PUBLIC, query=KeysQuery, responses={200: ContentByKeys},
         errors=[UNKNOWN_CLIENT, error(400, f"keys missing, more than {models.MAX_KEYS} keys, or an unknown lang.")])
def content_by_keys(client_id: str):
    query = http.parse_query(KeysQuery, missing=service.KEYS_REQUIRED)
    keys = service.parse_keys(query.keys)
    locale = _locale()
    who = service.reader(client_id)
    found = service.visible_by_keys(who, keys)
    return {"success": True, "locale": locale,
            "data": {key: [models.public_item(i, locale, client_id) for i in items] for key, items in found.items()}}


@api.get("/api/content/<content_id>/public", operation_id="getPublicContent", summary="Get an item by id",
         description="Any active item by id, unauthenticated; it backs the public page /ct/{contentId}.",
         security=PUBLIC, query=LangQuery, responses={200: ContentById},
         errors=[error(404, "Unknown, deleted, unpublished, scheduled or expired item."), BAD_LANG])
def content_by_id(content_id: str):
    locale = _locale()
    return {"success": True, "locale": locale, "data": models.public_item(service.public_by_id(content_id), locale)}


@api.get("/api/client/<client_id>/content-categories", operation_id="listContentCategories",
         summary="List the content categories",
         description="The four built-in categories and the operator's custom ones, with what the client may do in "
                     "each (its overrides, else the defaults). No credentials.",
         security=PUBLIC, query=LangQuery, responses={200: CategoryList}, errors=[UNKNOWN_CLIENT, BAD_LANG])
def content_categories(client_id: str):
    locale = _locale()
    who = service.reader(client_id)
    return {"success": True, "locale": locale,
            "data": [service.category_view(c, locale, service.effective(c, who.overrides))
                     for c in who.categories.values()]}


# ------------------------------------------------------------------------------------ administration


def _admin():
    principal = auth.require_user()
    return principal, service.admin_client(principal)


@api.get("/api/content", operation_id="listContent", summary="List the client's content (admin)",
         description="Every item of the admin's client, drafts, scheduled, unpublished and expired included, by key. "
                     "Platform administrators manage the operator tenant's items.",
         security=[ID_TOKEN], query=AdminListQuery, responses={200: AdminContentList}, errors=ADMIN_ERRORS)
def list_content():
    _, client = _admin()
    query = http.parse_query(AdminListQuery)
    return service.list_owned(client, query.categoryKey, query.limit, query.startAfter)


@api.post("/api/content", operation_id="createContent", summary="Create an item (admin)",
          description="Version 1 of a new item of the admin's client. Published at once unless publish is false; a "
                      "future publishAt schedules it. Only operator items can be shared. A client needs the "
                      "category's publish permission.",
          security=[ID_TOKEN], body=CreateContentBody, example=SAMPLE_ITEM, responses={201: AdminContentResult},
          errors=[*ADMIN_ERRORS, error(400, "Invalid payload, unknown category, or sharing a non-operator item."),
                  error(403, "The client may not publish in this category."),
                  error(409, "The client already has an item with this key."), BUSY])
def create_content():
    principal, client = _admin()
    body = http.parse_body(CreateContentBody)
    response = flask.jsonify({"success": True, "content": service.create_item(client, body, principal.uid)})
    response.status_code = 201
    return response


@api.get("/api/content/<content_id>", operation_id="getContent", summary="Get an item (admin)",
         security=[ID_TOKEN], responses={200: AdminContentResult}, errors=[*ADMIN_ERRORS, NOT_FOUND])
def get_content(content_id: str):
    _, client = _admin()
    return {"success": True, "content": service.get_owned(client, content_id)}


@api.patch("/api/content/<content_id>", operation_id="updateContent", summary="Change an item (admin)",
           description="Any subset of the fields; the change is published as a new version and the old one is kept "
                       "in the history. A multilingual field is replaced as a whole; null clears name, "
                       "description, expiresAt and metadata.",
           security=[ID_TOKEN], body=UpdateContentBody,
           example={"body": {"en": "New classes start **January 6**."}}, responses={200: AdminContentResult},
           errors=[*ADMIN_ERRORS, NOT_FOUND, error(400, "Invalid payload or unknown category."),
                   error(403, "The client may not publish in this category."), BUSY])
def update_content(content_id: str):
    principal, client = _admin()
    body = http.parse_body(UpdateContentBody)
    return {"success": True, "content": service.update_item(client, content_id, body, principal.uid)}


@api.post("/api/content/<content_id>/publish", operation_id="publishContent", summary="Publish or schedule (admin)",
          description="Publishes the item now, or at publishAt (a schedule), optionally until expiresAt. A new "
                      "version. The body may be empty.",
          security=[ID_TOKEN], body=PublishBody, example={"publishAt": "2027-01-01T08:00:00Z"},
          responses={200: AdminContentResult},
          errors=[*ADMIN_ERRORS, NOT_FOUND, error(403, "The client may not publish in this category."), BUSY])
def publish_content(content_id: str):
    principal, client = _admin()
    body = http.parse_body(PublishBody, allow_empty=True)
    return {"success": True,
            "content": service.set_status(client, content_id, models.PUBLISHED, principal.uid, body)}


@api.post("/api/content/<content_id>/unpublish", operation_id="unpublishContent", summary="Unpublish (admin)",
          description="Apps stop seeing the item at once; it stays in the list and can be published again. "
                      "A new version.",
          security=[ID_TOKEN], responses={200: AdminContentResult}, errors=[*ADMIN_ERRORS, NOT_FOUND, BUSY])
def unpublish_content(content_id: str):
    principal, client = _admin()
    return {"success": True, "content": service.set_status(client, content_id, models.UNPUBLISHED, principal.uid)}


@api.get("/api/content/<content_id>/versions", operation_id="listContentVersions",
         summary="List an item's versions (admin)", security=[ID_TOKEN], query=VersionsQuery,
         responses={200: VersionList}, errors=[*ADMIN_ERRORS, NOT_FOUND])
def list_versions(content_id: str):
    _, client = _admin()
    query = http.parse_query(VersionsQuery)
    return service.list_versions(client, content_id, query.limit, query.startAfter)


@api.get("/api/content/<content_id>/versions/<version_id>", operation_id="getContentVersion",
         summary="Read a past version (admin)", security=[ID_TOKEN], responses={200: VersionResult},
         errors=[*ADMIN_ERRORS, error(404, "No such item, or no such version of it.")])
def get_version(content_id: str, version_id: str):
    _, client = _admin()
    return {"success": True, "content": service.get_version(client, content_id, version_id)}


@api.delete("/api/content/<content_id>", operation_id="deleteContent", summary="Delete an item (admin)",
            description="The item disappears from every read and its key is free again; its versions are kept. "
                        "(The sample deletes the item bin/demo-env made for it.)",
            security=[ID_TOKEN], responses={200: Success}, errors=[*ADMIN_ERRORS, NOT_FOUND, BUSY])
def delete_content(content_id: str):
    principal, client = _admin()
    service.delete_item(client, content_id, principal.uid)
    return {"success": True}


# ------------------------------------------------------------------------------------ categories


def _platform_admin() -> None:
    service.require_platform_admin(auth.require_user())


@api.post("/api/content-categories", operation_id="createContentCategory", summary="Create a category",
          description="A custom category with default permissions for every client (default: clients see shared "
                      "items, but do not publish their own).",
          security=[ID_TOKEN], sample_as="PLATFORM_ADMIN_ID_TOKEN", body=CreateCategoryBody,
          example={"key": "nutrition", "name": {"en": "Nutrition", "zh-Hant": "營養"},
                   "defaultPermissions": {"viewShared": True, "publish": False}},
          responses={201: CategoryResult},
          errors=[*PLATFORM_ERRORS, error(409, "A category with this key exists (built-ins included)."), BUSY])
def create_category():
    _platform_admin()
    body = http.parse_body(CreateCategoryBody)
    response = flask.jsonify({"success": True, "category": service.create_category(body)})
    response.status_code = 201
    return response


@api.patch("/api/content-categories/<category_key>", operation_id="updateContentCategory",
           summary="Change a category", description="Name, description or default permissions; built-ins too.",
           security=[ID_TOKEN], sample_as="PLATFORM_ADMIN_ID_TOKEN", body=UpdateCategoryBody,
           example={"defaultPermissions": {"publish": True}}, responses={200: CategoryResult},
           errors=[*PLATFORM_ERRORS, error(404, "Unknown category."), BUSY])
def update_category(category_key: str):
    _platform_admin()
    body = http.parse_body(UpdateCategoryBody)
    return {"success": True, "category": service.update_category(category_key, body)}


@api.patch("/api/content-categories/<category_key>/clients/<client_id>", operation_id="setContentPermissions",
           summary="Override a client's permissions in a category",
           description="viewShared and publish for one client; null removes an override (the default applies).",
           security=[ID_TOKEN], sample_as="PLATFORM_ADMIN_ID_TOKEN", body=ClientPermissionsBody,
           example={"viewShared": True, "publish": True}, responses={200: ClientPermissionsResult},
           errors=[*PLATFORM_ERRORS, error(404, "Unknown category or client."), BUSY])
def set_client_permissions(category_key: str, client_id: str):
    _platform_admin()
    body = http.parse_body(ClientPermissionsBody)
    return service.set_client_permissions(category_key, client_id, body.model_dump(include=body.model_fields_set))


@api.delete("/api/content-categories/<category_key>", operation_id="deleteContentCategory",
            summary="Delete a custom category",
            description="Only a custom category without items. (The sample deletes the demo world's item-less custom "
                        "category; bin/demo-env makes it again.)",
            security=[ID_TOKEN], sample_as="PLATFORM_ADMIN_ID_TOKEN",
            responses={200: Success},
            errors=[*PLATFORM_ERRORS, error(404, "Unknown category."),
                    error(409, "A built-in category, or one that still has items."), BUSY])
def delete_category(category_key: str):
    _platform_admin()
    service.delete_category(category_key)
    return {"success": True}


page.register(app)  # the public page /ct/{contentId} and the retired /legal/{slug} (not API operations)
