"""Where lessons keep a person's data (core.personal_data).

A play's document id starts with the player's uid. Lessons and plans are the tenant's content: an author's id
(createdBy, modifiedBy, a subtitle's uploadedBy) is dropped on erasure and the content stays.
"""

from ..core.personal_data import Aggregate, AreaDeclaration, ByField, ByIdPrefix, Location

_AUTHOR = ("createdBy", "modifiedBy", "subtitleFiles.*.uploadedBy")

DECLARATION = AreaDeclaration("lessons", (
    Location("plays", "clients/{clientId}/lessonPlays/{playKey}", "activity", ByIdPrefix("{uid}_"), "delete",
             fields=("userId",), note="lesson plays: which lesson, when, completed or not"),
    Location("lessonsCreated", "clients/{clientId}/lessons/{lessonId}", "authorship",
             ByField("createdBy", ("uid",)), "anonymise", fields=_AUTHOR, note="lessons the person authored"),
    Location("lessonsModified", "clients/{clientId}/lessons/{lessonId}", "authorship",
             ByField("modifiedBy", ("uid",)), "anonymise", fields=_AUTHOR, note="lessons the person last changed"),
    Location("plansCreated", "clients/{clientId}/lessonPlans/{planId}", "authorship",
             ByField("createdBy", ("uid",)), "anonymise", fields=("createdBy", "modifiedBy"),
             note="plans the person authored"),
    Location("plansModified", "clients/{clientId}/lessonPlans/{planId}", "authorship",
             ByField("modifiedBy", ("uid",)), "anonymise", fields=("createdBy", "modifiedBy"),
             note="plans the person last changed"),
    Location("activity", "clients/{clientId}/lessonActivity/{shardId}", "rollup", Aggregate(), "keep",
             note="the daily rollup: plays and completions, no id"),
))
