"""Create bodies the jobs API refuses (4.9, 7.7): 400 with the field's message (415 without a JSON content type),
and nothing stored.
"""

import json

import pytest

from tests.conftest import assert_error
from tests.media_generation.conftest import (
    JOBS,
    VIDEO_PRESET,
    image_body,
    listed,
    prompt,
    video_body,
)
from tests.media_generation.jobs import (
    with_settings,
)
from wellness_api.core.errors import MALFORMED_JSON, UNSUPPORTED_MEDIA_TYPE
from wellness_api.media_generation import presets

NEEDS_PROMPT = "promptInput needs promptText or context.name."
ENTITY_ID = "Invalid field targetEntityId: Value error, must be 1 to 128 characters, without control characters."
NAME = "Value error, must start with a letter and hold at most 40 letters, digits, - or _."


# ------------------------------------------------------------------------------------ create, 400s


def without(field: str) -> dict:
    body = image_body()
    del body[field]
    return body


def with_references(*urls: str, **item) -> dict:
    return image_body(referenceImages=[{"url": u, **item} for u in urls])


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
