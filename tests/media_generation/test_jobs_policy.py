"""The client policy over HTTP (3.3): which requested settings a job gets, with one warning per ignored key,
for a client administrator under the standard and flexible policies and for a platform administrator.
"""



from tests.conftest import assert_error
from tests.media_generation.conftest import (
    JOBS,
    VIDEO_PRESET,
    create,
    ids,
    listed,
    url,
)
from tests.media_generation.jobs import (
    settings_of,
    with_settings,
)

STANDARD_REASON = "the client's policy (standard) uses the preset's settings"
ADMIN_ONLY = "only platform administrators choose it"


def not_applied(key: str, reason: str) -> str:
    return f"requestedSettings.{key} was not applied: {reason}."


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
