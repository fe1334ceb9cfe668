"""Where fall risk keeps a person's data (core.personal_data).

A result is about its `userId`; `createdBy.uid` names who recorded it (a clinician or admin for a member), so
erasing the recorder keeps the member's result and drops only the recorder's id. The member's latest outcome
(`users/{uid}.fallRisk`) lives in the identity area's user record and goes with it.
"""

from ..core.personal_data import Aggregate, AreaDeclaration, ByField, Location

DECLARATION = AreaDeclaration("fall_risk", (
    Location("results", "clients/{clientId}/fallRiskResults/{fallRiskResultId}", "health",
             ByField("userId", ("uid",)), "delete", fields=("userId", "email", "createdBy.uid"), export_omit=("createdBy.uid",),
             retention="privacy.retentionDays.fallRisk",
             note="fall-risk results: the steps' answers, birth date and sex, the scoring and risk level"),
    Location("recorded", "clients/{clientId}/fallRiskResults/{fallRiskResultId}", "authorship",
             ByField("createdBy.uid", ("uid",)), "anonymise", fields=("createdBy.uid",),
             note="results the person recorded for another member: the recorder's id is dropped"),
    Location("activity", "clients/{clientId}/fallRiskActivity/{shardId}", "rollup", Aggregate(), "keep",
             note="the daily rollup: counts per level and age group, no id"),
))
