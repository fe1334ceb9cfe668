"""Where media generation keeps a person's data (core.personal_data).

Jobs are asked for by a client's admin, for the client's catalog. A job the person asked for is theirs until
it is attached to the catalog: then the file is the tenant's asset and only the person's id is dropped.
"""

from ..core.personal_data import Aggregate, AreaDeclaration, ByField, Location

DECLARATION = AreaDeclaration("media_generation", (
    Location("jobs", "clients/{clientId}/mediaJobs/{jobId}", "activity", ByField("requestedBy", ("uid",)), "delete",
             fields=("requestedBy", "attachedBy"), storage_field="storagePath", keep_if="attachedAt",
             export_omit=("attachedBy",),
             note="media jobs the person asked for: prompt, settings, status, and the generated file"),
    Location("attachedJobs", "clients/{clientId}/mediaJobs/{jobId}", "authorship",
             ByField("attachedBy", ("uid",)), "anonymise", fields=("requestedBy", "attachedBy"),
             note="jobs the person attached to the catalog: their id is dropped"),
    Location("assets", "clients/{clientId}/mediaAssets/{assetId}", "authorship", ByField("attachedBy", ("uid",)),
             "anonymise", fields=("attachedBy",), note="the media library: who attached an asset"),
    Location("admission", "clients/{clientId}/mediaJobAdmission/{docId}", "rollup", Aggregate(), "keep",
             note="the per-client cap's race guard: no id"),
    Location("activity", "clients/{clientId}/mediaGenerationActivity/{shardId}", "rollup", Aggregate(), "keep",
             note="daily counters, no id"),
))
