"""Creating media-generation jobs (4.9, 2.13, 3.3): the image and video jobs end to end through the real worker
(Tasks emulator -> mediajobworker), the 202-then-retry case, and the bodies the API accepts.
"""

import datetime as dt
import io

import av
import pytest
from PIL import Image

from tests.media_generation.conftest import (
    IMAGE_PRESET,
    VIDEO_PRESET,
    create,
    download,
    get,
    image_body,
    job_body,
    library,
    prompt,
    video_body,
    wait_until_done,
)
from tests.media_generation.jobs import (
    BACKGROUND,
    EVENT_ID,
    ISO_Z,
    JOB_FIELDS,
    RESULTS,
    SETTINGS,
    action,
    ok,
    settings_of,
)
from wellness_api.core import clock
from wellness_api.media_generation import presets, queue
from wellness_api.media_generation import repository as repo
from wellness_api.media_generation.providers.local import VIDEO_FPS

PROMPT = "bright studio light, side view"
DESCRIPTION = "A bodyweight squat to parallel"


def moment(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


# ------------------------------------------------------------------------------------ create, end to end


def test_an_image_job_is_created_queued_with_every_2_13_field_then_becomes_an_available_png(http, media_tenant):
    before = clock.now()
    body = image_body(requestedSettings={"seed": 7})
    answer = create(http, media_tenant.admin, body)
    assert set(answer) == {"job", "execution"}
    job, execution = answer["job"], answer["execution"]
    assert set(job) == JOB_FIELDS
    assert execution == {**BACKGROUND, "queueEventId": execution["queueEventId"]}
    assert EVENT_ID.match(execution["queueEventId"])
    assert ISO_Z.match(job["createdAt"]) and job["updatedAt"] == job["createdAt"]
    assert before - dt.timedelta(seconds=1) <= moment(job["createdAt"]) <= clock.now()
    assert job == {
        "jobId": job["jobId"], "clientId": media_tenant.client_id, "mediaType": "image", "module": "aiMove",
        "targetType": "exercise", "targetEntityId": "squat", "status": "queued", "promptPreset": IMAGE_PRESET,
        "promptInput": body["promptInput"], "referenceImages": [],
        "normalizedPrompt": f"A clear, friendly thumbnail of the exercise Squat (strength): {DESCRIPTION}. {PROMPT}",
        "policyProfile": "catalog-thumbnail", "generationMode": "text-to-image", "model": "local-image-1",
        "durationSeconds": 0, "aspectRatio": "1:1", "resolution": "1024x1024", "seed": 7,
        "billingPresetKey": "image-standard", "warnings": [], "attemptCount": 0,
        **dict.fromkeys(RESULTS), "createdAt": job["createdAt"], "updatedAt": job["createdAt"],
    }

    done = wait_until_done(http, media_tenant.admin, job["jobId"])
    assert done["status"] == "available", done["errorMessage"]
    assert done["attemptCount"] == 1 and done["mediaAssetId"] and done["resultMediaType"] == "image/png"
    assert done["resultVideoUrl"] is None and done["hostedVideoId"] is None and done["errorMessage"] is None
    assert done["attachedAt"] is None  # never attached automatically
    assert {k: done[k] for k in (*SETTINGS, "normalizedPrompt", "createdAt")} == \
        {k: job[k] for k in (*SETTINGS, "normalizedPrompt", "createdAt")}
    assert moment(done["updatedAt"]) > moment(done["createdAt"])
    with Image.open(io.BytesIO(download(done["resultImageUrl"]))) as picture:
        assert picture.format == "PNG" and picture.size == (1024, 1024)
        picture.load()
    asset = repo.read_asset(media_tenant.client_id, done["mediaAssetId"])
    assert asset["status"] == "available" and asset["sourceJobId"] == job["jobId"]
    assert asset["queueEventId"] == execution["queueEventId"] and asset["url"] == done["resultImageUrl"]
    assert (asset["width"], asset["height"], asset["contentType"]) == (1024, 1024, "image/png")
    path = f"clients/{media_tenant.client_id}/media-library/{done['mediaAssetId']}.png"
    assert asset["storagePath"] == path and library(media_tenant.client_id) == [path]


def test_a_video_job_becomes_an_available_four_second_mp4(http, media_tenant):
    answer = create(http, media_tenant.admin, video_body())
    job = answer["job"]
    assert {k: job[k] for k in ("mediaType", "status", "promptPreset", "policyProfile", "billingPresetKey",
                                "attemptCount", "warnings")} == {
        "mediaType": "video", "status": "queued", "promptPreset": VIDEO_PRESET, "policyProfile": "catalog-motion",
        "billingPresetKey": "video-short", "attemptCount": 0, "warnings": []}
    assert settings_of(job) == {"model": "local-video-1", "generationMode": "text-to-video", "aspectRatio": "16:9",
                                "resolution": "640x360", "durationSeconds": 4, "seed": None, "warnings": []}
    assert job["normalizedPrompt"] == ("A short looping cover video of the exercise Squat (strength): "
                                       f"{DESCRIPTION}. {PROMPT}")

    done = wait_until_done(http, media_tenant.admin, job["jobId"])
    assert done["status"] == "available", done["errorMessage"]
    assert done["resultMediaType"] == "video/mp4" and done["resultImageUrl"] is None
    assert done["hostedVideoId"] == done["mediaAssetId"] and done["mediaAssetId"]
    assert done["attemptCount"] == 1 and done["attachedAt"] is None
    with av.open(io.BytesIO(download(done["resultVideoUrl"]))) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264" and (stream.width, stream.height) == (640, 360)
        seconds = container.duration / av.time_base
        frames = sum(1 for _ in container.decode(video=0))
    assert abs(seconds - 4) < 0.25 and frames == 4 * VIDEO_FPS
    asset = repo.read_asset(media_tenant.client_id, done["mediaAssetId"])
    assert asset["mediaType"] == "video" and asset["durationSeconds"] == 4 and asset["url"] == done["resultVideoUrl"]


def test_a_job_that_cannot_be_queued_is_a_202_failed_job_that_a_retry_queues(http, media_tenant, monkeypatch):
    monkeypatch.setattr(queue, "WORKER", "nosuchworker")  # the Tasks emulator has no such queue
    answer = create(http, media_tenant.admin, image_body(), status=202)
    job, first = answer["job"], answer["execution"]
    assert job["status"] == "failed" and first == {**BACKGROUND, "queueEventId": first["queueEventId"]}
    assert job["errorMessage"].startswith("The job was saved but could not be queued")
    assert job["errorMessage"].endswith("; retry it.")
    assert get(http, media_tenant.admin, job["jobId"]) == job

    # Retried while the queue still refuses: 202 again, with the new execution.
    again = ok(action(http, media_tenant.admin, job["jobId"], "retry"), 202)
    assert again["job"]["status"] == "failed" and again["execution"]["queueEventId"] != first["queueEventId"]
    assert again["job"]["errorMessage"].startswith("The job was saved but could not be queued")

    monkeypatch.undo()
    retried = ok(action(http, media_tenant.admin, job["jobId"], "retry"))
    execution = retried["execution"]
    assert execution["queueEventId"] not in (first["queueEventId"], again["execution"]["queueEventId"])
    assert retried["job"]["status"] == "queued" and retried["job"]["errorMessage"] is None
    done = wait_until_done(http, media_tenant.admin, job["jobId"])
    assert done["status"] == "available", done["errorMessage"]
    assert done["attemptCount"] == 1  # the first execution a worker ran
    assert repo.read_asset(media_tenant.client_id, done["mediaAssetId"])["queueEventId"] == execution["queueEventId"]


# ------------------------------------------------------------------------------------ create, accepted bodies


def test_references_make_an_image_to_image_job_that_stays_queued_until_its_task_runs(http, media_tenant, held_tasks):
    references = [{"url": "https://images.example.com/squat.png", "name": "side view"},
                  {"url": "https://cdn.example.org/a/b.jpg?size=large", "mediaType": "image"}]
    answer = create(http, media_tenant.admin, image_body(referenceImages=references))
    job = answer["job"]
    assert job["referenceImages"] == [
        {"url": "https://images.example.com/squat.png", "name": "side view", "mediaType": "image"},
        {"url": "https://cdn.example.org/a/b.jpg?size=large", "name": None, "mediaType": "image"}]
    assert job["generationMode"] == "image-to-image" and job["warnings"] == []
    assert held_tasks == [{"clientId": media_tenant.client_id, "jobId": job["jobId"],
                           "queueEventId": answer["execution"]["queueEventId"]}]
    assert get(http, media_tenant.admin, job["jobId"]) == job


def test_a_prompt_may_be_empty_when_the_context_names_the_subject(http, media_tenant, held_tasks):
    job = create(http, media_tenant.admin, image_body(promptInput=prompt("", name="Plank")))["job"]
    assert job["promptInput"] == {"promptText": "", "context": {"name": "Plank"}}
    assert job["normalizedPrompt"] == "A clear, friendly thumbnail of the exercise Plank (general)."


def test_the_longest_accepted_values(http, media_tenant, held_tasks):
    body = image_body(targetEntityId="e" * 128, module="m" * 40, targetType="t" * 40,
                      promptInput=prompt("p" * 2000, name="Squat"),
                      referenceImages=[{"url": f"https://example.com/{i}.png"} for i in range(4)])
    job = create(http, media_tenant.admin, body)["job"]
    assert job["targetEntityId"] == "e" * 128 and len(job["referenceImages"]) == 4
    assert job["promptInput"]["promptText"] == "p" * 2000
    assert len(job["normalizedPrompt"]) == presets.MAX_PROMPT_CHARS


@pytest.mark.parametrize("preset", [p for p in presets.PRESETS.values() if p.media_type == "image"],
                         ids=lambda p: p.key)
def test_every_image_preset_gets_its_own_defaults(http, media_tenant, held_tasks, preset):
    job = create(http, media_tenant.admin, job_body(preset.key))["job"]
    assert (job["aspectRatio"], job["resolution"], job["durationSeconds"]) == (
        preset.defaults.aspectRatio, preset.defaults.resolution, 0)
    assert (job["policyProfile"], job["billingPresetKey"]) == (preset.policy_profile, preset.billing_preset_key)
    assert job["normalizedPrompt"] == presets.normalize_prompt(preset, PROMPT, job["promptInput"]["context"])


def test_a_description_ending_with_a_full_stop_gives_no_double_full_stop(http, media_tenant, held_tasks):
    body = image_body(promptInput=prompt(PROMPT, name="Squat", category="strength",
                                         description="A bodyweight squat."))
    job = create(http, media_tenant.admin, body)["job"]
    assert ".." not in job["normalizedPrompt"]
