"""The media-generation jobs API (4.9, 2.13, 3.3, 7.7, part 5): create (201, 202, 400s), the client policy over
HTTP, list, get, delete, retry and attach, who may call, and the legacy video-generation path.

The real worker (Tasks emulator -> mediajobworker) runs only where a test waits for it: the image and video
jobs end to end, the 202-then-retry case and the stalled retry. Elsewhere jobs are stored in the state a test
needs, or the API's tasks are held (`held_tasks`) and delivered in-process, so no state is a race.
"""

import datetime as dt
import io
import json
import re

import av
import pytest
from PIL import Image

from tests.conftest import assert_error, bearer
from tests.media_generation.conftest import (
    IMAGE_PRESET,
    JOBS,
    LEGACY,
    VIDEO_PRESET,
    create,
    deliver,
    download,
    get,
    ids,
    image_body,
    job_body,
    library,
    listed,
    prompt,
    render_job,
    store_job,
    task_of,
    url,
    video_body,
    wait_until_done,
)
from wellness_api.core import auth, clock
from wellness_api.core.errors import MALFORMED_JSON, UNSUPPORTED_MEDIA_TYPE
from wellness_api.media_generation import presets, queue, service
from wellness_api.media_generation import repository as repo
from wellness_api.media_generation.models import STATUSES
from wellness_api.media_generation.providers.local import VIDEO_FPS

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
EVENT_ID = re.compile(r"^[0-9a-f]{32}$")
# 2.13, plus seed, updatedAt and attachedAt.
JOB_FIELDS = {
    "jobId", "clientId", "mediaType", "module", "targetType", "targetEntityId", "status", "promptPreset",
    "promptInput", "referenceImages", "normalizedPrompt", "policyProfile", "generationMode", "model",
    "durationSeconds", "aspectRatio", "resolution", "providerGenerationId", "providerCostUsd", "billingPresetKey",
    "warnings", "hostedVideoId", "mediaAssetId", "resultVideoUrl", "resultImageUrl", "resultMediaType",
    "errorMessage", "attemptCount", "createdAt", "seed", "updatedAt", "attachedAt",
}
RESULTS = ("providerGenerationId", "providerCostUsd", "hostedVideoId", "mediaAssetId", "resultVideoUrl",
           "resultImageUrl", "resultMediaType", "errorMessage", "attachedAt")
SETTINGS = ("model", "generationMode", "aspectRatio", "resolution", "durationSeconds", "seed", "warnings")
BACKGROUND = {"mode": "background", "processor": "cloud-tasks/mediajobworker"}
PROMPT = "bright studio light, side view"
DESCRIPTION = "A bodyweight squat to parallel"
NEEDS_PROMPT = "promptInput needs promptText or context.name."
ENTITY_ID = "Invalid field targetEntityId: Value error, must be 1 to 128 characters, without control characters."
NAME = "Value error, must start with a letter and hold at most 40 letters, digits, - or _."
NOT_DELETABLE = "Only queued or failed jobs can be deleted; this job is {}."
NOT_RETRYABLE = "Only failed or finished jobs can be retried; this job is {}."
NOT_AVAILABLE = "Only an available job can be attached; this job is {}."
STANDARD_REASON = "the client's policy (standard) uses the preset's settings"
ADMIN_ONLY = "only platform administrators choose it"


def moment(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def settings_of(job: dict) -> dict:
    return {key: job[key] for key in SETTINGS}


def not_applied(key: str, reason: str) -> str:
    return f"requestedSettings.{key} was not applied: {reason}."


def action(http, member, job_id: str, verb: str, *, path: str = JOBS, client_id: str | None = None):
    """DELETE the job (verb "delete"), or POST its attach or retry."""
    if verb == "delete":
        return http.delete(url(path, job_id, client_id=client_id), headers=member.headers)
    return http.post(url(path, job_id, verb, client_id=client_id), headers=member.headers)


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.json
    return response.json


def stored(tenant, job_id: str) -> dict | None:
    return repo.read_job(tenant.client_id, job_id).data


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


# ------------------------------------------------------------------------------------ create, 400s


def without(field: str) -> dict:
    body = image_body()
    del body[field]
    return body


def with_references(*urls: str, **item) -> dict:
    return image_body(referenceImages=[{"url": u, **item} for u in urls])


def with_settings(preset: str = IMAGE_PRESET, references: bool = False, **settings) -> dict:
    extra = {"referenceImages": [{"url": "https://example.com/ref.png"}]} if references else {}
    return job_body(preset, requestedSettings=settings, **extra)


def unsafe(message: str) -> str:
    return f"Invalid field referenceImages.0.url: Value error, {message}."


PRESET_CHOICES = " or ".join([", ".join(f"'{k}'" for k in list(presets.PRESETS)[:-1]),
                              f"'{list(presets.PRESETS)[-1]}'"])
NOT_HTTPS = unsafe("a reference image URL must be an https URL")
NOT_PUBLIC = unsafe("a reference image URL must name a public host")
PRIVATE = unsafe("a reference image URL must not point to a private, loopback or link-local address")
RATIO = ("Invalid field requestedSettings.aspectRatio: Value error, must be WIDTH:HEIGHT with whole numbers from 1 "
         "to 99, like 16:9.")
RESOLUTION = ("Invalid field requestedSettings.resolution: Value error, must be WIDTHxHEIGHT with sides from 64 to "
              "4096, like 1024x1024.")

INVALID = [
    *[(f"missing {field}", without(field), f"Missing required field: {field}.")
      for field in ("mediaType", "module", "targetType", "targetEntityId", "promptPreset", "promptInput")],
    ("missing promptText", image_body(promptInput={"context": {"name": "Squat"}}),
     "Missing required field: promptInput.promptText."),
    ("unknown field", image_body(priority="high"), "Unknown field: priority."),
    ("unknown context field", image_body(promptInput=prompt("x", mood="calm")), "Unknown field: promptInput.context.mood."),
    ("unknown settings key", with_settings(quality="hd"), "Unknown field: requestedSettings.quality."),
    ("unknown reference key", with_references("https://example.com/a.png", width=10),
     "Unknown field: referenceImages.0.width."),
    ("video mediaType, image preset", image_body(mediaType="video"),
     "promptPreset image-exercise-thumbnail makes images; mediaType must be image."),
    ("image mediaType, video preset", video_body(mediaType="image"),
     "promptPreset exercise-cover-motion makes videos; mediaType must be video."),
    ("audio mediaType", image_body(mediaType="audio"), "Invalid field mediaType: Input should be 'image' or 'video'."),
    ("unknown preset", image_body(promptPreset="image-cat-meme"),
     f"Invalid field promptPreset: Input should be {PRESET_CHOICES}."),
    ("empty prompt, no name", image_body(promptInput=prompt("", category="strength", description="Legs")),
     NEEDS_PROMPT),
    ("blank prompt, blank name", image_body(promptInput=prompt("  \n ", name="   ")), NEEDS_PROMPT),
    ("prompt of 2001", image_body(promptInput=prompt("p" * 2001, name="Squat")),
     "Invalid field promptInput.promptText: String should have at most 2000 characters."),
    ("prompt not a string", image_body(promptInput={"promptText": 42}),
     "Invalid field promptInput.promptText: Input should be a valid string."),
    ("empty targetEntityId", image_body(targetEntityId=""), ENTITY_ID),
    ("blank targetEntityId", image_body(targetEntityId="   "), ENTITY_ID),
    ("targetEntityId of 129", image_body(targetEntityId="e" * 129),
     "Invalid field targetEntityId: String should have at most 128 characters."),
    ("targetEntityId with a line break", image_body(targetEntityId="squat\nlunge"), ENTITY_ID),
    ("module with a space", image_body(module="ai move"), f"Invalid field module: {NAME}"),
    ("module with a slash", image_body(module="ai/move"), f"Invalid field module: {NAME}"),
    ("module starting with a digit", image_body(module="1move"), f"Invalid field module: {NAME}"),
    ("module of 41", image_body(module="m" * 41), "Invalid field module: String should have at most 40 characters."),
    ("targetType of 41", image_body(targetType="t" * 41),
     "Invalid field targetType: String should have at most 40 characters."),
    ("targetType with a dot", image_body(targetType="exercise.v2"), f"Invalid field targetType: {NAME}"),
    ("http reference", with_references("http://example.com/a.png"), NOT_HTTPS),
    ("ftp reference", with_references("ftp://example.com/a.png"), NOT_HTTPS),
    ("port 8443", with_references("https://example.com:8443/a.png"),
     unsafe("a reference image URL must use the https port (443)")),
    ("credentials", with_references("https://user:secret@example.com/a.png"),
     unsafe("a reference image URL must not carry credentials")),
    ("localhost", with_references("https://localhost/a.png"), NOT_PUBLIC),
    ("sub.localhost", with_references("https://api.localhost/a.png"), NOT_PUBLIC),
    ("*.internal", with_references("https://metadata.google.internal/computeMetadata/v1/"), NOT_PUBLIC),
    ("127.0.0.1", with_references("https://127.0.0.1/a.png"), PRIVATE),
    ("[::1]", with_references("https://[::1]/a.png"), PRIVATE),
    ("169.254.169.254", with_references("https://169.254.169.254/latest/meta-data/"), PRIVATE),
    ("10.0.0.1", with_references("https://10.0.0.1/a.png"), PRIVATE),
    ("192.168.1.1", with_references("https://192.168.1.1/a.png"), PRIVATE),
    ("URL of 2049", with_references("https://example.com/" + "a" * 2029),
     "Invalid field referenceImages.0.url: String should have at most 2048 characters."),
    ("reference host not a name", with_references("https://bad_host.example.com/a.png"),
     unsafe("a reference image URL must name a valid host")),
    ("model of 101", with_settings(model="m" * 101),
     "Invalid field requestedSettings.model: String should have at most 100 characters."),
    ("ratio of 6 characters", with_settings(aspectRatio="16:009"),
     "Invalid field requestedSettings.aspectRatio: String should have at most 5 characters."),
    ("resolution of 10 characters", with_settings(resolution="1024x01024"),
     "Invalid field requestedSettings.resolution: String should have at most 9 characters."),
    ("five references", with_references(*[f"https://example.com/{i}.png" for i in range(5)]),
     "Invalid field referenceImages: List should have at most 4 items after validation, not 5."),
    ("video reference", with_references("https://example.com/a.mp4", mediaType="video"),
     "Invalid field referenceImages.0.mediaType: Input should be 'image'."),
    ("references not a list", image_body(referenceImages={"url": "https://example.com/a.png"}),
     "Invalid field referenceImages: Input should be a valid list."),
    ("durationSeconds on an image", with_settings(durationSeconds=4),
     "requestedSettings.durationSeconds is only for videos."),
    ("image-to-image without references", with_settings(generationMode="image-to-image"),
     "requestedSettings.generationMode image-to-image needs referenceImages."),
    ("image-to-video without references", with_settings(VIDEO_PRESET, generationMode="image-to-video"),
     "requestedSettings.generationMode image-to-video needs referenceImages."),
    ("text-to-image on the video preset", with_settings(VIDEO_PRESET, generationMode="text-to-image"),
     "requestedSettings.generationMode must make a video: text-to-video or image-to-video."),
    ("ratio and resolution disagree", with_settings(aspectRatio="16:9", resolution="1024x1024"),
     "requestedSettings.resolution 1024x1024 is not 16:9."),
    ("ratio 16/9", with_settings(aspectRatio="16/9"), RATIO),
    ("ratio 0:1", with_settings(aspectRatio="0:1"), RATIO),
    ("ratio 100:1", with_settings(aspectRatio="100:1"), RATIO),
    ("resolution 1024*1024", with_settings(resolution="1024*1024"), RESOLUTION),
    ("resolution 32x32", with_settings(resolution="32x32"), RESOLUTION),
    ("resolution 5000x5000", with_settings(resolution="5000x5000"), RESOLUTION),
    ("model with a space", with_settings(model="gpt image"),
     "Invalid field requestedSettings.model: Value error, must be a model name of at most 100 letters, digits and "
     ". _ : / -."),
    ("unknown mode", with_settings(generationMode="text-to-audio"),
     "Invalid field requestedSettings.generationMode: Input should be 'text-to-image', 'image-to-image', "
     "'text-to-video' or 'image-to-video'."),
    ("seed -1", with_settings(seed=-1),
     "Invalid field requestedSettings.seed: Input should be greater than or equal to 0."),
    ("seed 2**31", with_settings(seed=2**31),
     "Invalid field requestedSettings.seed: Input should be less than or equal to 2147483647."),
    ("seed as a string", with_settings(seed="7"), "Invalid field requestedSettings.seed: Input should be a valid integer."),
    ("duration 0", with_settings(VIDEO_PRESET, durationSeconds=0),
     "Invalid field requestedSettings.durationSeconds: Input should be greater than or equal to 1."),
    ("duration 11", with_settings(VIDEO_PRESET, durationSeconds=11),
     "Invalid field requestedSettings.durationSeconds: Input should be less than or equal to 10."),
    ("duration 4.5", with_settings(VIDEO_PRESET, durationSeconds=4.5),
     "Invalid field requestedSettings.durationSeconds: Input should be a valid integer."),
]


@pytest.mark.parametrize(("body", "message"), [case[1:] for case in INVALID], ids=[case[0] for case in INVALID])
def test_an_invalid_body_is_400_with_its_message_and_stores_nothing(http, shared_media_tenant, body, message):
    admin = shared_media_tenant.admin
    assert_error(http.post(JOBS, json=body, headers=admin.headers), 400, message)
    assert listed(http, admin)["jobs"] == []


def test_a_mode_of_the_other_media_type_is_400(http, shared_media_tenant):
    body = with_settings(generationMode="text-to-video")
    response = http.post(JOBS, json=body, headers=shared_media_tenant.admin.headers)
    assert response.status_code == 400
    assert response.json["error"].startswith("requestedSettings.generationMode must make a")
    assert response.json["error"].endswith(": text-to-image or image-to-image.")


@pytest.mark.parametrize("body", [[image_body()], "a job", 42, None], ids=["array", "string", "number", "null"])
def test_a_body_that_is_not_an_object_is_400(http, shared_media_tenant, body):
    response = http.post(JOBS, data=json.dumps(body), content_type="application/json",
                         headers=shared_media_tenant.admin.headers)
    assert_error(response, 400, MALFORMED_JSON)


def test_a_body_that_is_not_json_is_400(http, shared_media_tenant):
    response = http.post(JOBS, data="{mediaType: image", content_type="application/json",
                         headers=shared_media_tenant.admin.headers)
    assert_error(response, 400, MALFORMED_JSON)


def test_a_body_without_a_json_content_type_is_415(http, shared_media_tenant):
    # The platform's rule for every JSON endpoint (README, "Requests"): 415, not 400.
    response = http.post(JOBS, data=json.dumps(image_body()), content_type="text/plain",
                         headers=shared_media_tenant.admin.headers)
    assert_error(response, 415, UNSUPPORTED_MEDIA_TYPE)
    assert listed(http, shared_media_tenant.admin)["jobs"] == []


# ------------------------------------------------------------------------------------ the client policy over HTTP


def test_the_standard_policy_applies_the_preset_with_one_warning_per_ignored_key(http, media_tenant, held_tasks):
    body = with_settings(model="gpt-image-1", generationMode="text-to-image", aspectRatio="16:9", resolution="1280x720",
                         seed=42)
    job = create(http, media_tenant.admin, body)["job"]
    assert settings_of(job) == {
        "model": "local-image-1", "generationMode": "text-to-image", "aspectRatio": "1:1", "resolution": "1024x1024",
        "durationSeconds": 0, "seed": 42,
        "warnings": [not_applied(k, STANDARD_REASON) for k in ("model", "generationMode", "aspectRatio", "resolution")]}
    video = create(http, media_tenant.admin, with_settings(VIDEO_PRESET, durationSeconds=8))["job"]
    assert video["durationSeconds"] == 4
    assert video["warnings"] == [not_applied("durationSeconds", STANDARD_REASON)]


def test_the_standard_policy_honours_a_seed_without_a_warning(http, media_tenant, held_tasks):
    job = create(http, media_tenant.admin, with_settings(seed=123))["job"]
    assert (job["seed"], job["warnings"], job["resolution"]) == (123, [], "1024x1024")


def test_the_flexible_policy_honours_a_listed_ratio_and_a_duration_up_to_eight(http, media_tenant, held_tasks):
    media_tenant.configure("mediaGeneration.policy=flexible", "mediaGeneration.maxActiveJobs=4")
    admin = media_tenant.admin
    wide = create(http, admin, with_settings(aspectRatio="16:9"))["job"]
    assert (wide["aspectRatio"], wide["resolution"], wide["warnings"]) == ("16:9", "1024x576", [])
    odd = create(http, admin, with_settings(aspectRatio="5:4"))["job"]
    assert (odd["aspectRatio"], odd["resolution"]) == ("1:1", "1024x1024")
    assert odd["warnings"] == [not_applied("aspectRatio", "the client's policy allows 1:1, 3:4, 4:3, 2:3, 3:2, 9:16, 16:9")]
    six = create(http, admin, with_settings(VIDEO_PRESET, durationSeconds=6, aspectRatio="9:16"))["job"]
    assert (six["durationSeconds"], six["aspectRatio"], six["resolution"], six["warnings"]) == (6, "9:16", "360x640", [])
    ten = create(http, admin, with_settings(VIDEO_PRESET, durationSeconds=10))["job"]
    assert ten["durationSeconds"] == 8
    assert ten["warnings"] == [not_applied("durationSeconds",
                                           "the client's policy allows at most 8 seconds, which the job uses")]


def test_the_flexible_policy_leaves_model_mode_and_resolution_to_platform_administrators(http, media_tenant,
                                                                                         held_tasks):
    media_tenant.configure("mediaGeneration.policy=flexible")
    body = with_settings(model="gpt-image-1", generationMode="text-to-image", resolution="2048x2048", seed=1)
    job = create(http, media_tenant.admin, body)["job"]
    assert settings_of(job) == {
        "model": "local-image-1", "generationMode": "text-to-image", "aspectRatio": "1:1", "resolution": "1024x1024",
        "durationSeconds": 0, "seed": 1,
        "warnings": [not_applied(k, ADMIN_ONLY) for k in ("model", "generationMode", "resolution")]}


def test_a_platform_administrator_gets_every_key_honoured(http, media_tenant, platform_admin, held_tasks):
    media_tenant.configure("mediaGeneration.maxActiveJobs=4")
    client_id = media_tenant.client_id
    job = create(http, platform_admin, with_settings(model="gpt-image-1", resolution="1536x1024", seed=3),
                 client_id=client_id)["job"]
    assert job["clientId"] == client_id
    assert settings_of(job) == {"model": "gpt-image-1", "generationMode": "text-to-image", "aspectRatio": "3:2",
                                "resolution": "1536x1024", "durationSeconds": 0, "seed": 3, "warnings": []}
    wide = create(http, platform_admin, with_settings(aspectRatio="21:9"), client_id=client_id)["job"]
    assert (wide["aspectRatio"], wide["resolution"]) == ("21:9", "1024x438")
    referenced = create(http, platform_admin, with_settings(generationMode="image-to-image", references=True),
                        client_id=client_id)["job"]
    assert referenced["generationMode"] == "image-to-image" and referenced["warnings"] == []
    video = create(http, platform_admin, with_settings(VIDEO_PRESET, durationSeconds=10, aspectRatio="1:1"),
                   client_id=client_id)["job"]
    assert (video["durationSeconds"], video["aspectRatio"], video["resolution"]) == (10, "1:1", "640x640")
    # The client's own administrator sees the jobs made for it.
    assert set(ids(listed(http, media_tenant.admin))) == {j["jobId"] for j in (job, wide, referenced, video)}
    assert_error(http.post(url(client_id=client_id), json=with_settings(VIDEO_PRESET, resolution="3840x2160"),
                           headers=platform_admin.headers),
                 400, "requestedSettings.resolution: a video is at most 1920 pixels a side.")


def test_a_video_resolution_over_1920_is_400_for_a_client_administrator_too(http, media_tenant, held_tasks):
    response = http.post(JOBS, json=with_settings(VIDEO_PRESET, resolution="3840x2160"),
                         headers=media_tenant.admin.headers)
    assert_error(response, 400, "requestedSettings.resolution: a video is at most 1920 pixels a side.")


# ------------------------------------------------------------------------------------ list


def test_the_list_is_newest_first_and_says_when_it_ends(http, media_tenant):
    jobs = [store_job(media_tenant) for _ in range(3)]
    page = listed(http, media_tenant.admin)
    assert ids(page) == [j["jobId"] for j in reversed(jobs)] and page["nextStartAfter"] is None
    assert page["jobs"][0] == service.job_view(jobs[-1])


def test_the_status_filter(http, media_tenant):
    by_status = {status: store_job(media_tenant, status)["jobId"] for status in STATUSES}
    for status, job_id in by_status.items():
        page = listed(http, media_tenant.admin, status=status)
        assert ids(page) == [job_id] and page["jobs"][0]["status"] == status
    assert ids(listed(http, media_tenant.admin)) == list(reversed(by_status.values()))
    assert_error(http.get(url(status="done"), headers=media_tenant.admin.headers), 400,
                 "Invalid field status: Input should be 'queued', 'processing', 'uploading', 'available', 'failed' "
                 "or 'attached'.")


def test_the_text_query_finds_the_job_id_prompt_text_target_and_model_case_insensitively(http, media_tenant):
    by_text = store_job(media_tenant, body=image_body(promptInput=prompt("Sunrise over the LAKE", name="Squat")))
    by_target = store_job(media_tenant, "failed", body=image_body(targetEntityId="Lunge-Forward-42"))
    by_model = store_job(media_tenant, "available", model="Vendor-Model-X")
    plain = store_job(media_tenant)

    def found(text: str, **query) -> list[str]:
        return ids(listed(http, media_tenant.admin, query=text, **query))

    assert found("lake") == found("sunrise OVER the") == [by_text["jobId"]]
    assert found("lunge-FORWARD") == [by_target["jobId"]]
    assert found("vendor-model-x") == [by_model["jobId"]]
    assert found(plain["jobId"].upper()) == found(plain["jobId"].lower()) == [plain["jobId"]]
    assert found("  lake ") == [by_text["jobId"]]
    assert found("no such words") == []
    assert found("parallel") == []  # the context's description is not searched
    assert found("lunge", status="failed") == [by_target["jobId"]]
    assert found("lake", status="failed") == []
    assert found("squat") == [plain["jobId"], by_model["jobId"], by_text["jobId"]]  # their targetEntityId
    assert found("LOCAL-image-1") == [plain["jobId"], by_target["jobId"], by_text["jobId"]]


@pytest.mark.parametrize(("limit", "message"), [
    ("0", "Invalid field limit: Input should be greater than or equal to 1."),
    ("101", "Invalid field limit: Input should be less than or equal to 100."),
    ("-1", "Invalid field limit: Input should be greater than or equal to 1."),
    ("ten", "Invalid field limit: Input should be a valid integer."),
])
def test_a_limit_outside_1_to_100_is_400(http, shared_media_tenant, limit, message):
    assert_error(http.get(url(limit=limit), headers=shared_media_tenant.admin.headers), 400, message)


def test_the_default_page_is_20_jobs(http, media_tenant):
    jobs = [store_job(media_tenant)["jobId"] for _ in range(21)]
    page = listed(http, media_tenant.admin)
    assert ids(page) == list(reversed(jobs))[:20] and page["nextStartAfter"] == jobs[1]
    rest = listed(http, media_tenant.admin, startAfter=page["nextStartAfter"])
    assert ids(rest) == [jobs[0]] and rest["nextStartAfter"] is None


def test_a_query_over_200_characters_is_400(http, shared_media_tenant):
    assert_error(http.get(url(query="q" * 201), headers=shared_media_tenant.admin.headers), 400,
                 "Invalid field query: String should have at most 200 characters.")


def test_paging_a_status_filter(http, media_tenant):
    statuses = ["failed", "queued", "failed", "available", "failed", "queued"]
    jobs = [store_job(media_tenant, status)["jobId"] for status in statuses]
    failed = [job_id for job_id, status in reversed(list(zip(jobs, statuses, strict=True))) if status == "failed"]
    seen, cursor = [], None
    while True:
        page = listed(http, media_tenant.admin, status="failed", limit=1, **({"startAfter": cursor} if cursor else {}))
        seen += ids(page)
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
    assert seen == failed
    # A cursor may name a job of another status: the page continues after it in time.
    after_queued = listed(http, media_tenant.admin, status="failed", startAfter=jobs[5])
    assert ids(after_queued) == failed


def test_the_limit_and_paging_with_start_after(http, media_tenant):
    jobs = [store_job(media_tenant, body=image_body(promptInput=prompt(f"take {i}", name="Squat")))
            for i in range(5)]
    newest_first = [j["jobId"] for j in reversed(jobs)]
    assert ids(listed(http, media_tenant.admin, limit=100)) == newest_first
    first = listed(http, media_tenant.admin, limit=1)
    assert ids(first) == newest_first[:1] and first["nextStartAfter"] == newest_first[0]

    seen, cursor, pages = [], None, 0
    while True:
        page = listed(http, media_tenant.admin, limit=2, **({"startAfter": cursor} if cursor else {}))
        pages += 1
        assert len(page["jobs"]) <= 2
        seen += ids(page)
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
        assert pages < 10
    assert seen == newest_first and len(set(seen)) == len(seen)

    # A text query pages the same way (every job's prompt text says "take").
    matched, cursor = [], None
    while True:
        page = listed(http, media_tenant.admin, query="TAKE", limit=1, **({"startAfter": cursor} if cursor else {}))
        matched += ids(page)
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
    assert matched == newest_first


def test_an_invalid_start_after_is_400(http, media_tenant, other_media_tenant):
    store_job(media_tenant)
    foreign = store_job(other_media_tenant)["jobId"]
    message = "Invalid field startAfter: not a job id of this client."
    for cursor in ("no-such-job", "a/b", "x" * 64, "__reserved__", foreign):
        assert_error(http.get(url(startAfter=cursor), headers=media_tenant.admin.headers), 400, message)
    assert_error(http.get(url(startAfter="x" * 65), headers=media_tenant.admin.headers), 400,
                 "Invalid field startAfter: String should have at most 64 characters.")


@pytest.mark.parametrize("path", [JOBS, LEGACY])
def test_a_client_id_longer_than_any_id_is_400_on_every_operation(http, shared_media_tenant, path):
    headers, client_id = shared_media_tenant.admin.headers, "c" * 65
    message = "Invalid field clientId: String should have at most 64 characters."
    assert_error(http.post(url(path, client_id=client_id), json=image_body(), headers=headers), 400, message)
    assert_error(http.get(url(path, client_id=client_id), headers=headers), 400, message)
    assert_error(http.get(url(path, "job", client_id=client_id), headers=headers), 400, message)
    assert_error(http.delete(url(path, "job", client_id=client_id), headers=headers), 400, message)
    for verb in ("attach", "retry"):
        assert_error(http.post(url(path, "job", verb, client_id=client_id), headers=headers), 400, message)


def test_jobs_of_another_client_are_never_listed(http, media_tenant, other_media_tenant):
    mine = store_job(media_tenant)["jobId"]
    theirs = [store_job(other_media_tenant, status)["jobId"] for status in ("queued", "failed")]
    assert ids(listed(http, media_tenant.admin)) == [mine]
    assert ids(listed(http, other_media_tenant.admin)) == list(reversed(theirs))
    assert ids(listed(http, media_tenant.admin, query=theirs[0])) == []
    assert ids(listed(http, media_tenant.admin, status="failed")) == []


# ------------------------------------------------------------------------------------ get


def test_get_answers_the_job(http, media_tenant):
    job = store_job(media_tenant, "failed")
    answer = get(http, media_tenant.admin, job["jobId"])
    assert answer == service.job_view(job)
    assert set(answer) == JOB_FIELDS and answer["status"] == "failed" and answer["errorMessage"]


@pytest.mark.parametrize("job_id", ["no-such-job", "x" * 65, "__reserved__"])
def test_get_of_an_unknown_job_is_404(http, shared_media_tenant, job_id):
    assert_error(http.get(url(JOBS, job_id), headers=shared_media_tenant.admin.headers), 404, "Job not found.")


def test_another_clients_job_is_404_on_every_job_route(http, media_tenant, other_media_tenant):
    job = store_job(media_tenant, "failed")
    stranger = other_media_tenant.admin
    assert_error(http.get(url(JOBS, job["jobId"]), headers=stranger.headers), 404, "Job not found.")
    for verb in ("attach", "retry", "delete"):
        assert_error(action(http, stranger, job["jobId"], verb), 404, "Job not found.")
    assert stored(media_tenant, job["jobId"]) == job


# ------------------------------------------------------------------------------------ delete


def test_deleting_a_queued_job_cancels_it(http, media_tenant):
    job = store_job(media_tenant)
    answer = ok(action(http, media_tenant.admin, job["jobId"], "delete"))
    assert answer == {"success": True, "jobId": job["jobId"], "status": "cancelled"}
    assert_error(http.get(url(JOBS, job["jobId"]), headers=media_tenant.admin.headers), 404, "Job not found.")
    assert_error(action(http, media_tenant.admin, job["jobId"], "delete"), 404, "Job not found.")
    assert listed(http, media_tenant.admin)["jobs"] == []


def test_deleting_a_failed_job_removes_it(http, media_tenant):
    job = store_job(media_tenant, "failed")
    answer = ok(action(http, media_tenant.admin, job["jobId"], "delete"))
    assert answer == {"success": True, "jobId": job["jobId"], "status": "removed"}
    assert stored(media_tenant, job["jobId"]) is None
    assert_error(http.get(url(JOBS, job["jobId"]), headers=media_tenant.admin.headers), 404, "Job not found.")


@pytest.mark.parametrize("status", ["processing", "uploading", "available", "attached"])
def test_only_queued_or_failed_jobs_can_be_deleted(http, media_tenant, status):
    job = store_job(media_tenant, status)
    assert_error(action(http, media_tenant.admin, job["jobId"], "delete"), 409, NOT_DELETABLE.format(status))
    assert stored(media_tenant, job["jobId"]) == job


def test_deleting_an_unknown_job_is_404(http, shared_media_tenant):
    assert_error(action(http, shared_media_tenant.admin, "no-such-job", "delete"), 404, "Job not found.")


def test_the_task_of_a_cancelled_job_does_nothing_when_it_arrives(http, media_tenant, held_tasks):
    answer = create(http, media_tenant.admin, image_body())
    job_id = answer["job"]["jobId"]
    assert ok(action(http, media_tenant.admin, job_id, "delete"))["status"] == "cancelled"
    assert held_tasks == [{"clientId": media_tenant.client_id, "jobId": job_id,
                           "queueEventId": answer["execution"]["queueEventId"]}]
    assert deliver(held_tasks[0]) == "cancelled"
    assert stored(media_tenant, job_id) is None
    assert library(media_tenant.client_id) == []


# ------------------------------------------------------------------------------------ retry


@pytest.mark.parametrize("status", ["failed", "available", "attached"])
def test_a_failed_or_finished_job_is_queued_again_with_a_new_event_and_no_results(http, media_tenant, held_tasks,
                                                                                   status):
    admin = media_tenant.admin
    if status == "failed":
        before = store_job(media_tenant, "failed")
    else:
        before = render_job(media_tenant)
        if status == "attached":
            ok(action(http, admin, before["jobId"], "attach"))
        before = stored(media_tenant, before["jobId"])
    old_asset = before["mediaAssetId"] and repo.read_asset(media_tenant.client_id, before["mediaAssetId"])

    answer = ok(action(http, admin, before["jobId"], "retry"))
    job, execution = answer["job"], answer["execution"]
    assert execution == {**BACKGROUND, "queueEventId": execution["queueEventId"]}
    assert EVENT_ID.match(execution["queueEventId"])
    assert execution["queueEventId"] != before["execution"]["queueEventId"]
    assert job["status"] == "queued" and all(job[key] is None for key in RESULTS)
    assert {k: job[k] for k in (*SETTINGS, "createdAt", "attemptCount")} == \
        {k: service.job_view(before)[k] for k in (*SETTINGS, "createdAt", "attemptCount")}
    assert held_tasks == [{"clientId": media_tenant.client_id, "jobId": job["jobId"],
                           "queueEventId": execution["queueEventId"]}]
    assert get(http, admin, job["jobId"]) == job
    if old_asset:  # the earlier result stays in the media library
        assert repo.read_asset(media_tenant.client_id, before["mediaAssetId"]) == old_asset

    # The new execution runs and makes a new asset; the old task is superseded.
    assert deliver(task_of(before)) == "superseded"
    assert deliver(held_tasks[0]) == "available"
    done = get(http, admin, job["jobId"])
    assert done["status"] == "available" and done["mediaAssetId"] not in (None, before["mediaAssetId"])
    assert done["attemptCount"] == before["attemptCount"] + 1


@pytest.mark.parametrize("status", ["queued", "processing", "uploading"])
def test_a_queued_or_running_job_is_not_retried(http, media_tenant, held_tasks, status):
    job = store_job(media_tenant, status)
    assert_error(action(http, media_tenant.admin, job["jobId"], "retry"), 409, NOT_RETRYABLE.format(status))
    assert stored(media_tenant, job["jobId"]) == job and held_tasks == []


def test_a_stalled_job_whose_lease_ran_out_is_retried_and_finishes(http, media_tenant):
    job = store_job(media_tenant, "processing", leaseUntil=clock.now() - dt.timedelta(minutes=1))
    answer = ok(action(http, media_tenant.admin, job["jobId"], "retry"))
    assert answer["job"]["status"] == "queued"
    assert answer["execution"]["queueEventId"] != job["execution"]["queueEventId"]
    done = wait_until_done(http, media_tenant.admin, job["jobId"])
    assert done["status"] == "available", done["errorMessage"]
    assert done["attemptCount"] == 2 and done["resultImageUrl"]


def test_a_stalled_uploading_job_is_retried(http, media_tenant, held_tasks):
    job = store_job(media_tenant, "uploading", leaseUntil=clock.now() - dt.timedelta(seconds=1))
    assert ok(action(http, media_tenant.admin, job["jobId"], "retry"))["job"]["status"] == "queued"
    assert len(held_tasks) == 1


def test_retrying_an_unknown_job_is_404(http, shared_media_tenant):
    assert_error(action(http, shared_media_tenant.admin, "no-such-job", "retry"), 404, "Job not found.")


# ------------------------------------------------------------------------------------ attach


def test_attaching_an_available_job_selects_it_once(http, media_tenant):
    before = render_job(media_tenant)
    job = ok(action(http, media_tenant.admin, before["jobId"], "attach"))
    assert job["status"] == "attached" and ISO_Z.match(job["attachedAt"])
    assert job["updatedAt"] == job["attachedAt"]
    assert job["mediaAssetId"] == before["mediaAssetId"] and job["resultImageUrl"] == before["resultImageUrl"]
    assert get(http, media_tenant.admin, before["jobId"]) == job
    asset = repo.read_asset(media_tenant.client_id, before["mediaAssetId"])
    assert asset["status"] == "attached" and asset["attachedBy"] == media_tenant.admin.uid
    assert clock.iso(asset["attachedAt"]) == job["attachedAt"]

    again = ok(action(http, media_tenant.admin, before["jobId"], "attach"))
    assert again == job
    assert repo.read_asset(media_tenant.client_id, before["mediaAssetId"]) == asset


@pytest.mark.parametrize("status", ["queued", "failed", "processing", "uploading"])
def test_only_an_available_job_can_be_attached(http, media_tenant, status):
    job = store_job(media_tenant, status)
    assert_error(action(http, media_tenant.admin, job["jobId"], "attach"), 409, NOT_AVAILABLE.format(status))
    assert stored(media_tenant, job["jobId"]) == job


def test_attaching_an_unknown_job_is_404(http, shared_media_tenant):
    assert_error(action(http, shared_media_tenant.admin, "no-such-job", "attach"), 404, "Job not found.")


# ------------------------------------------------------------------------------------ who may call

ROUTES = [("post", None), ("get", None), ("get", "job"), ("delete", "job"), ("post", "attach"), ("post", "retry")]


def call(http, route: tuple, job_id: str, headers: dict, *, path: str = JOBS, client_id: str | None = None):
    method, target = route
    if target is None:
        body = {"json": image_body()} if method == "post" else {}
        return getattr(http, method)(url(path, client_id=client_id), headers=headers, **body)
    verb = None if target == "job" else target
    return getattr(http, method)(url(path, job_id, verb, client_id=client_id), headers=headers)


def every_route(http, job_id: str, headers: dict, status: int, message: str, **where) -> None:
    for path in (JOBS, LEGACY):
        for route in ROUTES:
            response = call(http, route, job_id, headers, path=path, **where)
            assert (response.status_code, response.json) == (status, {"error": message}), (path, route)


def test_without_a_valid_token_every_route_is_401(http, media_tenant):
    job = store_job(media_tenant, "failed")
    every_route(http, job["jobId"], {}, 401, auth.MISSING_AUTH)
    every_route(http, job["jobId"], {"Authorization": "Basic abc"}, 401, auth.MISSING_AUTH)
    every_route(http, job["jobId"], bearer("not-a-token"), 401, auth.INVALID_TOKEN)
    assert stored(media_tenant, job["jobId"]) == job


def test_a_player_is_403_on_every_route(http, media_tenant):
    job = store_job(media_tenant, "failed")
    every_route(http, job["jobId"], media_tenant.player.headers, 403, service.ADMIN_REQUIRED)
    assert stored(media_tenant, job["jobId"]) == job
    assert ids(listed(http, media_tenant.admin)) == [job["jobId"]]


def test_an_administrator_of_another_client_naming_this_one_is_403(http, media_tenant, other_media_tenant):
    job = store_job(media_tenant, "failed")
    every_route(http, job["jobId"], other_media_tenant.admin.headers, 403, auth.FORBIDDEN,
                client_id=media_tenant.client_id)
    assert stored(media_tenant, job["jobId"]) == job
    assert ids(listed(http, media_tenant.admin)) == [job["jobId"]]


def test_the_module_off_is_403_for_its_administrators_and_platform_administrators(http, tenant, platform_admin):
    job = store_job(tenant, "failed")  # a job left from when the module was on
    every_route(http, job["jobId"], tenant.admin.headers, 403, service.MODULE_OFF)
    every_route(http, job["jobId"], platform_admin.headers, 403, service.MODULE_OFF, client_id=tenant.client_id)
    tenant.configure("modules.mediaGeneration=false")
    every_route(http, job["jobId"], tenant.admin.headers, 403, service.MODULE_OFF)
    assert stored(tenant, job["jobId"]) == job


def test_a_platform_administrator_naming_an_unknown_client_is_404(http, platform_admin):
    every_route(http, "no-such-job", platform_admin.headers, 404, auth.CLIENT_NOT_FOUND, client_id="t-no-such-client")


def test_a_platform_administrator_works_on_every_route_with_client_id(http, media_tenant, platform_admin, held_tasks):
    client_id = media_tenant.client_id
    job = create(http, platform_admin, image_body(), client_id=client_id)["job"]
    assert job["clientId"] == client_id
    assert ids(listed(http, platform_admin, client_id=client_id)) == [job["jobId"]]
    assert get(http, platform_admin, job["jobId"], client_id=client_id) == job
    assert deliver(held_tasks[0]) == "available"
    attached = ok(action(http, platform_admin, job["jobId"], "attach", client_id=client_id))
    assert attached["status"] == "attached"
    asset = repo.read_asset(client_id, attached["mediaAssetId"])
    assert asset["attachedBy"] == platform_admin.uid
    retried = ok(action(http, platform_admin, job["jobId"], "retry", client_id=client_id))
    assert retried["job"]["status"] == "queued"
    assert ok(action(http, platform_admin, job["jobId"], "delete", client_id=client_id))["status"] == "cancelled"
    assert listed(http, media_tenant.admin)["jobs"] == []


# ------------------------------------------------------------------------------------ the legacy path


def test_on_the_legacy_path_media_type_defaults_to_video(http, media_tenant, held_tasks):
    body = video_body()
    del body["mediaType"]
    answer = create(http, media_tenant.admin, body, path=LEGACY)
    job = answer["job"]
    assert (job["mediaType"], job["promptPreset"], job["durationSeconds"], job["status"]) == (
        "video", VIDEO_PRESET, 4, "queued")
    assert answer["execution"] == {**BACKGROUND, "queueEventId": held_tasks[0]["queueEventId"]}
    assert get(http, media_tenant.admin, job["jobId"]) == get(http, media_tenant.admin, job["jobId"], path=LEGACY) == job
    # An image preset still needs its media type; the current path still needs mediaType at all.
    image = image_body()
    del image["mediaType"]
    assert_error(http.post(LEGACY, json=image, headers=media_tenant.admin.headers), 400,
                 "promptPreset image-exercise-thumbnail makes images; mediaType must be image.")
    assert_error(http.post(JOBS, json=body, headers=media_tenant.admin.headers), 400,
                 "Missing required field: mediaType.")
    assert create(http, media_tenant.admin, image_body(), path=LEGACY)["job"]["mediaType"] == "image"


@pytest.mark.parametrize(("made_on", "used_on"), [(LEGACY, JOBS), (JOBS, LEGACY)], ids=["legacy-first", "current-first"])
def test_a_job_made_on_one_path_is_read_listed_attached_retried_and_deleted_on_the_other(http, media_tenant,
                                                                                         held_tasks, made_on, used_on):
    admin = media_tenant.admin
    job = create(http, admin, image_body(), path=made_on)["job"]
    assert get(http, admin, job["jobId"], path=used_on) == job
    assert ids(listed(http, admin, path=used_on)) == [job["jobId"]]
    assert deliver(held_tasks[0]) == "available"
    attached = ok(action(http, admin, job["jobId"], "attach", path=used_on))
    assert attached["status"] == "attached"
    assert get(http, admin, job["jobId"], path=made_on) == attached
    retried = ok(action(http, admin, job["jobId"], "retry", path=used_on))
    assert retried["job"]["status"] == "queued" and retried["execution"]["queueEventId"] == held_tasks[1]["queueEventId"]
    assert ok(action(http, admin, job["jobId"], "delete", path=used_on)) == {
        "success": True, "jobId": job["jobId"], "status": "cancelled"}
    assert_error(http.get(url(made_on, job["jobId"]), headers=admin.headers), 404, "Job not found.")
    assert deliver(held_tasks[1]) == "cancelled"
