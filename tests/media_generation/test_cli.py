"""`platformctl media presets | jobs | retry`: what an operator reads and does about a client's jobs."""

from tests.ops.test_cli import expect_failures, run_json
from wellness_api.core.auth import Principal
from wellness_api.media_generation import presets, repository, service
from wellness_api.media_generation.models import CreateJobBody


def _failed_job(tenant) -> str:
    tenant.configure("modules.mediaGeneration=true")
    principal = Principal(kind="user", client_id=tenant.client_id, uid=tenant.admin.uid, role="admin")
    body = CreateJobBody.model_validate({
        "mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "plank",
        "promptPreset": "image-exercise-thumbnail", "promptInput": {"promptText": "cli"}})
    job = service.new_job(tenant.client, principal, body)
    repository.put_job(tenant.client_id, {**job, "status": "failed", "errorMessage": "The vendor said no."})
    return job["jobId"]


def test_presets_are_printed_with_their_defaults():
    printed = run_json("media", "presets")["presets"]
    assert [p["key"] for p in printed] == list(presets.PRESETS)
    cover = printed[-1]
    assert cover["mediaType"] == "video" and cover["billingPresetKey"] == "video-short"
    assert cover["defaults"] == {"model": "local-video-1", "generationMode": "text-to-video", "aspectRatio": "16:9",
                                 "resolution": "640x360", "durationSeconds": 4}


def test_an_operator_lists_a_clients_failed_jobs_and_queues_one_again(tenant):
    job_id = _failed_job(tenant)
    listed = run_json("media", "jobs", "--client-id", tenant.client_id, "--status", "failed")
    assert [j["jobId"] for j in listed["jobs"]] == [job_id] and listed["nextStartAfter"] is None
    assert listed["jobs"][0]["errorMessage"] == "The vendor said no."
    retried = run_json("media", "retry", "--client-id", tenant.client_id, "--job-id", job_id)
    assert retried["jobId"] == job_id and retried["queued"] is True and retried["status"] == "queued"
    assert repository.read_job(tenant.client_id, job_id).data["execution"]["queueEventId"] == retried["queueEventId"]


def test_bad_invocations_fail_with_one_line(tenant):
    tenant.configure("modules.mediaGeneration=true")
    expect_failures(("media",), [
        (["retry", "--client-id", tenant.client_id, "--job-id", "nope"], "Job not found."),
        (["retry", "--client-id", "no-such-client", "--job-id", "x"], "client no-such-client not found"),
        (["jobs", "--client-id", tenant.client_id, "--limit", "0"], "limit"),
    ])
