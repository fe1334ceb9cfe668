"""Where AI Move keeps a person's data (core.personal_data)."""

from ..core.personal_data import Aggregate, AreaDeclaration, ByDocId, ByField, Location

DECLARATION = AreaDeclaration("ai_move", (
    Location("sessions", "clients/{clientId}/aiMoveSessions/{sessionId}", "health",
             ByField("userId", ("uid",)), "delete", fields=("userId",),
             retention="privacy.retentionDays.aiMove", note="exercise sessions: reps, durations, form scores, calories"),
    Location("stats", "clients/{clientId}/aiMoveStats/{uid}", "health", ByDocId("uid"), "delete",
             fields=("userId",), note="the person's totals and records per exercise"),
    Location("activeDays", "clients/{clientId}/aiMoveActiveDays/{uid}", "activity", ByDocId("uid"), "delete",
             fields=("userId",), note="the person's last active day"),
    Location("activity", "clients/{clientId}/aiMoveActivity/{shardId}", "rollup", Aggregate(), "keep",
             note="the daily rollup: counts and a sketch of active users, no id"),
))
