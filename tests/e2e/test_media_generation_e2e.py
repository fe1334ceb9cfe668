"""Media generation through Hosting: an administrator's jobs run by the real worker function (the Tasks emulator
dispatches them), results downloaded from Storage and decoded, on the current and the legacy video path; attach,
retry, and who may not see a job. Every answer is checked against the served OpenAPI document (the api fixture)."""

import io
import time

import av
import pytest
import requests
from PIL import Image

pytestmark = pytest.mark.e2e

JOBS = "/api/b2b/ai/media-generation/jobs"
LEGACY = "/api/b2b/ai/video-generation/jobs"
MODULE_ON = "modules.mediaGeneration=true"
FINAL = ("available", "failed", "attached")
WAIT_SECONDS = 180  # the worker function's first start, then a local render

IMAGE = {
    "mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
    "promptPreset": "image-exercise-thumbnail",
    "promptInput": {"promptText": "bright studio light, side view",
                    "context": {"name": "Squat", "category": "strength", "description": "A bodyweight squat."}},
    "requestedSettings": {"seed": 7},
}
# The legacy path's older integrations never sent mediaType: it defaults to video there.
LEGACY_VIDEO = {
    "module": "aiMove", "targetType": "exercise", "targetEntityId": "lunge", "promptPreset": "exercise-cover-motion",
    "promptInput": {"promptText": "slow, looping, calm colours", "context": {"name": "Lunge", "category": "strength"}},
}


def wait_until_done(api, headers: dict, path: str) -> dict:
    """Poll GET `path` until the worker is done with the job."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        response = api("GET", path, headers=headers)
        assert response.status_code == 200, response.text
        job = response.json()
        if job["status"] in FINAL:
            return job
        assert time.monotonic() < deadline, f"the job is still {job['status']} after {WAIT_SECONDS} s"
        time.sleep(0.5)


def fetch(url: str) -> bytes:
    """A result URL opens without credentials."""
    response = requests.get(url, timeout=60)
    assert response.status_code == 200, (url, response.status_code)
    return response.content


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        image.load()
        return image.size


def test_an_admin_generates_attaches_and_retries_an_image_that_others_cannot_see(api, tenant, other_tenant):
    tenant.configure(MODULE_ON)
    other_tenant.configure(MODULE_ON)
    admin = tenant.admin.headers

    created = api("POST", JOBS, headers=admin, json=IMAGE)
    assert created.status_code == 201, created.text
    queued, execution = created.json()["job"], created.json()["execution"]
    assert (queued["status"], queued["mediaType"], queued["clientId"]) == ("queued", "image", tenant.client_id)
    assert queued["seed"] == 7 and queued["attemptCount"] == 0 and queued["resultImageUrl"] is None
    assert execution["mode"] == "background" and execution["processor"] == "cloud-tasks/mediajobworker"
    job_id = queued["jobId"]

    done = wait_until_done(api, admin, f"{JOBS}/{job_id}")
    assert done["status"] == "available", done["errorMessage"]
    assert done["attemptCount"] == 1 and done["resultMediaType"] == "image/png" and done["mediaAssetId"]
    assert done["resultVideoUrl"] is None and done["hostedVideoId"] is None
    first_url = done["resultImageUrl"]
    assert png_size(fetch(first_url)) == (1024, 1024)

    listed = api("GET", JOBS, headers=admin, params={"status": "available"})
    assert listed.status_code == 200 and [j["jobId"] for j in listed.json()["jobs"]] == [job_id]

    attached = api("POST", f"{JOBS}/{job_id}/attach", headers=admin)
    assert attached.status_code == 200, attached.text
    assert attached.json()["status"] == "attached" and attached.json()["attachedAt"]
    assert attached.json()["resultImageUrl"] == first_url
    again = api("POST", f"{JOBS}/{job_id}/attach", headers=admin)
    assert again.status_code == 200 and again.json() == attached.json()

    retried = api("POST", f"{JOBS}/{job_id}/retry", headers=admin)
    assert retried.status_code == 200, retried.text
    assert retried.json()["execution"]["queueEventId"] != execution["queueEventId"]
    assert retried.json()["job"]["status"] == "queued" and retried.json()["job"]["resultImageUrl"] is None
    rerun = wait_until_done(api, admin, f"{JOBS}/{job_id}")
    assert rerun["status"] == "available", rerun["errorMessage"]
    assert rerun["mediaAssetId"] != done["mediaAssetId"] and rerun["resultImageUrl"] != first_url
    assert rerun["attemptCount"] == 2 and rerun["attachedAt"] is None
    assert png_size(fetch(rerun["resultImageUrl"])) == (1024, 1024)
    assert png_size(fetch(first_url)) == (1024, 1024)  # the earlier result stays in the library

    player = tenant.player.headers
    assert api("GET", f"{JOBS}/{job_id}", headers=player).status_code == 403
    assert api("POST", JOBS, headers=player, json=IMAGE).status_code == 403
    assert api("POST", f"{JOBS}/{job_id}/retry", headers=player).status_code == 403

    stranger = other_tenant.admin.headers
    assert api("GET", f"{JOBS}/{job_id}", headers=stranger).status_code == 404
    assert api("GET", f"{LEGACY}/{job_id}", headers=stranger).status_code == 404
    assert api("POST", f"{JOBS}/{job_id}/retry", headers=stranger).status_code == 404
    assert api("GET", JOBS, headers=stranger).json()["jobs"] == []
    assert api("GET", f"{JOBS}/{job_id}", headers=stranger,
               params={"clientId": tenant.client_id}).status_code == 403
    assert api("GET", f"{JOBS}/{job_id}", headers=admin).json()["status"] == "available"


def test_a_video_on_the_legacy_path_without_a_media_type_is_generated_as_an_mp4(api, tenant):
    tenant.configure(MODULE_ON)
    admin = tenant.admin.headers

    created = api("POST", LEGACY, headers=admin, json=LEGACY_VIDEO)
    assert created.status_code == 201, created.text
    queued = created.json()["job"]
    assert queued["mediaType"] == "video" and queued["status"] == "queued"
    assert (queued["resolution"], queued["durationSeconds"]) == ("640x360", 4)
    job_id = queued["jobId"]

    done = wait_until_done(api, admin, f"{LEGACY}/{job_id}")
    assert done["status"] == "available", done["errorMessage"]
    assert done["resultMediaType"] == "video/mp4" and done["resultImageUrl"] is None
    assert done["hostedVideoId"] == done["mediaAssetId"] and done["hostedVideoId"]
    with av.open(io.BytesIO(fetch(done["resultVideoUrl"]))) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264" and (stream.width, stream.height) == (640, 360)
        assert container.duration / av.time_base == pytest.approx(4, abs=0.2)
        assert sum(1 for _ in container.decode(video=0)) == 4 * 24

    # Both paths serve the same jobs.
    current = api("GET", f"{JOBS}/{job_id}", headers=admin)
    assert current.status_code == 200 and current.json() == done


def test_a_client_at_its_cap_of_active_jobs_is_told_429_while_another_client_is_served(api, tenant, other_tenant):
    """mediaGeneration.maxActiveJobs through Hosting: the refusal's status, envelope and Retry-After as documented."""
    from tests.media_generation.conftest import store_job  # a running job under a live lease: it holds the place

    tenant.configure(MODULE_ON, "mediaGeneration.maxActiveJobs=1")
    other_tenant.configure(MODULE_ON)
    store_job(tenant, "processing")
    refused = api("POST", JOBS, headers=tenant.admin.headers, json=IMAGE)
    assert refused.status_code == 429, refused.text
    assert refused.headers["Retry-After"] == "30"
    assert refused.json() == {"error": "This client already has 1 media-generation jobs queued or running, its limit "
                                       "(mediaGeneration.maxActiveJobs); retry once one of them is available or "
                                       "failed."}
    served = api("POST", JOBS, headers=other_tenant.admin.headers, json=IMAGE)
    assert served.status_code == 201, served.text
    wait_until_done(api, other_tenant.admin.headers, f"{JOBS}/{served.json()['job']['jobId']}")
