"""HTTP routes of AI media generation (4.9): the jobs API for administrators, on the current path and on the
legacy video-generation path (9.2), which serves the same jobs. `modules.mediaGeneration` gates every route."""

import flask

from ..core import auth, http, openapi
from ..core.openapi import ID_TOKEN, error
from . import service
from .models import ClientQuery, CreateJobBody, JobsQuery, LegacyCreateJobBody
from .responses import MediaJob, MediaJobList, MediaJobQueued, MediaJobRemoved

app = http.create_app("media_generation")
api = openapi.Api(app, "Media generation")

CURRENT = "/api/b2b/ai/media-generation/jobs"
LEGACY = "/api/b2b/ai/video-generation/jobs"
ADMIN_ERRORS = (
    error(401, "Missing, invalid or expired ID token, or a disabled user."),
    error(403, "Not an administrator of the client, clientId names another client (platform administrators "
               "only), or the media generation module is not enabled for it."),
    error(404, "The named client does not exist (platform administrators)."),
)
NOT_FOUND = error(404, "Job not found (unknown, deleted, or another client's).")
BUSY = error(503, "The job was changed by too many requests at once; retry.")
AT_CAPACITY = error(429, "The client already has mediaGeneration.maxActiveJobs jobs (default 3) queued or running; "
                         "retry after Retry-After seconds, once one of them is available or failed.",
                    headers=("Retry-After",))
EXAMPLE = {
    "mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
    "promptPreset": "image-exercise-thumbnail",
    "promptInput": {"promptText": "bright studio light, side view",
                    "context": {"name": "Squat", "category": "strength", "description": "A bodyweight squat."}},
    "requestedSettings": {"seed": 7},
}
LEGACY_EXAMPLE = {**EXAMPLE, "mediaType": "video", "promptPreset": "exercise-cover-motion", "requestedSettings": {}}
CREATE_DESCRIPTION = (
    "Saves the job (status queued) and queues it for the background worker, which moves it to processing, "
    "uploading and available (or failed). Poll GET until available or failed. mediaType must be the preset's; "
    "requestedSettings are honoured for platform administrators and filtered by the client's policy "
    "(mediaGeneration.policy) for others, with a warning for each key not applied. referenceImages must be public "
    "https URLs; the worker fetches them with SSRF protections. 202 when the job was saved but could not be "
    "queued: it is returned failed, and POST retry queues it again. 429 (with Retry-After) when the client already "
    "has mediaGeneration.maxActiveJobs jobs queued or running."
)


def _client():
    principal = auth.require_user()
    return principal, service.admin_client(principal, http.parse_query(ClientQuery).clientId)


def _answer(status: int, body: dict) -> flask.Response:
    response = flask.jsonify(body)
    response.status_code = status
    return response


def _endpoint(name: str, suffix: str):
    """Name a view per path, so that one handler body serves both paths as distinct Flask endpoints."""
    def rename(view):
        view.__name__ = f"{name}_{suffix.lower()}" if suffix else name
        return view

    return rename


def _routes(prefix: str, suffix: str, summary_note: str, create_body, example, samples: dict[str, str]) -> None:
    """Register the six operations under `prefix` (operation ids end with `suffix`); `samples`: the demo-env
    variables of the curl examples (an available job, and a failed one to delete)."""

    @api.post(prefix, operation_id=f"createMediaJob{suffix}", summary=f"Create a generation job{summary_note}",
              description=CREATE_DESCRIPTION, security=[ID_TOKEN], query=ClientQuery, body=create_body,
              example=example, responses={201: MediaJobQueued, 202: MediaJobQueued},
              errors=[*ADMIN_ERRORS, error(400, "Validation failed: a missing or malformed field, a mediaType "
                                                "that is not the preset's, an unsafe reference image URL, or "
                                                "requestedSettings that contradict themselves."), AT_CAPACITY,
                      BUSY])
    @_endpoint("create_job", suffix)
    def create_job():
        principal, client = _client()
        body = http.parse_body(create_body)
        return _answer(*service.create_job(client, principal, body))

    @api.get(prefix, operation_id=f"listMediaJobs{suffix}", summary=f"List generation jobs{summary_note}",
             description="The client's jobs, newest first. status filters by state; query finds text in the job id, "
                         "the prompt text, the target entity id or the model (case-insensitive). A page examines at "
                         "most 2,000 jobs for a query: continue with startAfter = nextStartAfter.",
             security=[ID_TOKEN], query=JobsQuery, responses={200: MediaJobList},
             errors=[*ADMIN_ERRORS, error(400, "An invalid status, limit or startAfter.")])
    @_endpoint("list_jobs", suffix)
    def list_jobs():
        principal = auth.require_user()
        query = http.parse_query(JobsQuery)
        return service.list_jobs(service.admin_client(principal, query.clientId), query)

    @api.get(f"{prefix}/<job_id>", operation_id=f"getMediaJob{suffix}", summary=f"Get a generation job{summary_note}",
             description="The job object (2.13): results and errorMessage once the worker is done.",
             security=[ID_TOKEN], query=ClientQuery, responses={200: MediaJob}, errors=[*ADMIN_ERRORS, NOT_FOUND],
             sample_values={"jobId": samples["job"]})
    @_endpoint("get_job", suffix)
    def get_job(job_id: str):
        _, client = _client()
        return service.job_view(service.get_job(client, job_id))

    @api.delete(f"{prefix}/<job_id>", operation_id=f"deleteMediaJob{suffix}",
                summary=f"Delete a queued or failed job{summary_note}",
                description="A queued job is cancelled before it runs; a failed job is removed from the history. "
                            "Other states answer 409 (finished results stay in the media library).",
                security=[ID_TOKEN], query=ClientQuery, responses={200: MediaJobRemoved},
                errors=[*ADMIN_ERRORS, NOT_FOUND, error(409, "The job is not queued or failed."), BUSY],
                sample_values={"jobId": samples["failed"]})
    @_endpoint("delete_job", suffix)
    def delete_job(job_id: str):
        _, client = _client()
        return service.delete_job(client, job_id)

    @api.post(f"{prefix}/<job_id>/attach", operation_id=f"attachMediaJob{suffix}",
              summary=f"Select an available result for content use{summary_note}",
              description="available -> attached (attachedAt set, on the job and its media asset). Nothing is "
                          "attached automatically. Attaching an attached job again changes nothing.",
              security=[ID_TOKEN], query=ClientQuery, responses={200: MediaJob},
              errors=[*ADMIN_ERRORS, NOT_FOUND, error(409, "The job is not available."), BUSY],
              sample_values={"jobId": samples["job"]})
    @_endpoint("attach_job", suffix)
    def attach_job(job_id: str):
        principal, client = _client()
        return service.job_view(service.attach_job(client, principal, job_id))

    @api.post(f"{prefix}/<job_id>/retry", operation_id=f"retryMediaJob{suffix}",
              summary=f"Run a job again{summary_note}",
              description="A failed, available or attached job (or one whose worker stopped mid-way) goes back to "
                          "queued with a new execution.queueEventId; results are cleared until the new run "
                          "finishes, and earlier results stay in the media library. 202 when it could not be "
                          "queued (the job is failed again).",
              security=[ID_TOKEN], query=ClientQuery, responses={200: MediaJobQueued, 202: MediaJobQueued},
              errors=[*ADMIN_ERRORS, NOT_FOUND, error(409, "The job is queued or running."), AT_CAPACITY, BUSY],
              sample_values={"jobId": samples["job"]})
    @_endpoint("retry_job", suffix)
    def retry_job(job_id: str):
        _, client = _client()
        return _answer(*service.retry_job(client, job_id))


_routes(CURRENT, "", "", CreateJobBody, EXAMPLE, {"job": "MEDIA_JOB_ID", "failed": "MEDIA_FAILED_JOB_ID"})
_routes(LEGACY, "Legacy", " (legacy path)", LegacyCreateJobBody, LEGACY_EXAMPLE,
        {"job": "MEDIA_VIDEO_JOB_ID", "failed": "MEDIA_FAILED_VIDEO_JOB_ID"})
