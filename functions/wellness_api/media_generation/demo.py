"""Demo media jobs (ops.demo): every state a library shows, rendered by the real worker with the local generator.

Fixed ids, so that bin/demo-env can name them (MEDIA_JOB_ID, ...) and the docs' samples can act on them; each
seed restores a job that a sample moved (a retried job is queued again, a deleted failed job gone).
"""

from ..core import clock, users
from ..core.auth import Principal
from ..core.tenancy import ROLE_ADMIN, Client
from . import repository as repo
from . import service, worker
from .models import ATTACHED, AVAILABLE, FAILED, CreateJobBody

AVAILABLE_IMAGE = "demo-media-squat-thumbnail"
ATTACHED_IMAGE = "demo-media-coach-portrait"
AVAILABLE_VIDEO = "demo-media-squat-cover"
FAILED_IMAGE = "demo-media-failed-promo"
FAILED_VIDEO = "demo-media-failed-lunge-cover"


def _body(media_type: str, preset: str, target: str, text: str, name: str, category: str, description: str,
          **settings) -> CreateJobBody:
    return CreateJobBody.model_validate({
        "mediaType": media_type, "module": "aiMove", "targetType": "exercise", "targetEntityId": target,
        "promptPreset": preset, "requestedSettings": settings or None,
        "promptInput": {"promptText": text, "context": {"name": name, "category": category,
                                                        "description": description}}})


JOBS = (
    (AVAILABLE_IMAGE, AVAILABLE, _body("image", "image-exercise-thumbnail", "squat", "bright studio, side view",
                                       "Squat", "strength", "A bodyweight squat to parallel.", seed=7), None),
    (ATTACHED_IMAGE, ATTACHED, _body("image", "image-coach-portrait", "coach-mei", "smiling, outdoor park",
                                     "Coach Mei", "coaching", "Leads the morning mobility class."), None),
    (AVAILABLE_VIDEO, AVAILABLE, _body("video", "exercise-cover-motion", "squat", "slow, looping, calm colours",
                                       "Squat", "strength", "A bodyweight squat to parallel."), None),
    (FAILED_IMAGE, FAILED, _body("image", "image-promo-visual", "spring-challenge", "crowded city marathon",
                                 "Spring challenge", "promotion", "Four weeks of daily movement."),
     "The image provider refused the request (400): Your request was rejected by the safety system."),
    (FAILED_VIDEO, FAILED, _body("video", "exercise-cover-motion", "lunge", "", "Lunge", "strength",
                                 "A forward lunge."),
     "The video provider did not answer in time."),
)


def seed(client: Client) -> None:
    if not client.setting(service.MODULE_SETTING):
        return
    admin = users.first_member(client.client_id, ROLE_ADMIN)
    principal = Principal(kind="user", client_id=client.client_id, uid=admin, role=ROLE_ADMIN)
    for job_id, status, body, error in JOBS:
        stored = repo.read_job(client.client_id, job_id).data
        if stored is not None and stored["status"] == status:
            continue
        job = service.new_job(client, principal, body, job_id=job_id)
        repo.put_job(client.client_id, job)
        if status == FAILED:
            repo.put_job(client.client_id, {**job, "status": FAILED, "errorMessage": error, "attemptCount": 1,
                                            "updatedAt": clock.now()})
            continue
        worker.handle({"clientId": client.client_id, "jobId": job_id,
                       "queueEventId": job["execution"]["queueEventId"]})
        if status == ATTACHED:
            service.attach_job(client, principal, job_id)

