"""Where Vital Scan keeps a person's data (core.personal_data).

A session's `userId` is what the partner's server sent: the platform's uid of the person, or the partner's own
(external) id of them; both are looked up. Points and rate shards count calls per client and hold no person.
"""

from ..core.personal_data import Aggregate, AreaDeclaration, ByField, Location, Referencing

DECLARATION = AreaDeclaration("vital_scan", (
    Location("sessions", "clients/{clientId}/vitalScanSessions/{sessionId}", "health",
             ByField("userId", ("uid", "externalUserId")), "delete", fields=("userId",),
             retention="privacy.retentionDays.vitalScan",
             note="Vital Scan sessions: status, times, return URL and the measured metrics"),
    Location("scanTokens", "vitalScanTokens/{tokenHash}", "ephemeral",
             Referencing("sessionId", "sessions"), "delete",
             note="the hosted page's token -> session map (TTL one day after the session expires)"),
    Location("points", "clients/{clientId}/vitalScanPoints/{shardId}", "rollup", Aggregate(), "keep",
             note="points spent per cycle and shard: counts only"),
    Location("rate", "clients/{clientId}/vitalScanRate/{shardId}", "rollup", Aggregate(), "keep",
             note="calls per minute window: counts only"),
    Location("activity", "clients/{clientId}/vitalScanActivity/{shardId}", "rollup", Aggregate(), "keep",
             note="the daily rollup: counts and a sketch of active users (hashed registers, no id)"),
))
