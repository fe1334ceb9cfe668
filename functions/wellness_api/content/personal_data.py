"""Where content keeps a person's data (core.personal_data): only who wrote or changed an item."""

from ..core.personal_data import AreaDeclaration, ByField, Location

_AUTHOR = ("createdBy", "updatedBy")

DECLARATION = AreaDeclaration("content", (
    Location("itemsCreated", "contentItems/{contentId}", "authorship", ByField("createdBy", ("uid",)), "anonymise",
             fields=_AUTHOR, note="content items the person created"),
    Location("itemsUpdated", "contentItems/{contentId}", "authorship", ByField("updatedBy", ("uid",)), "anonymise",
             fields=_AUTHOR, note="content items the person last changed"),
    Location("versionsCreated", "contentItems/{contentId}/versions/{versionId}", "authorship",
             ByField("createdBy", ("uid",)), "anonymise", fields=_AUTHOR, note="published versions by the person"),
    Location("versionsUpdated", "contentItems/{contentId}/versions/{versionId}", "authorship",
             ByField("updatedBy", ("uid",)), "anonymise", fields=_AUTHOR, note="published versions by the person"),
))
