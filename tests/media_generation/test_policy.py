"""The client policy of requestedSettings (4.9 rule 3, media_generation/policy.py) without HTTP: policy.apply for
platform administrators, the standard and the flexible policy, its 400s, and resolution_for / ratio_for."""

import pytest

from wellness_api.core.errors import ApiError
from wellness_api.media_generation import models, policy, presets
from wellness_api.media_generation.models import RequestedSettings

THUMBNAIL = presets.PRESETS["image-exercise-thumbnail"]
PORTRAIT = presets.PRESETS["image-coach-portrait"]
COVER = presets.PRESETS["exercise-cover-motion"]
STANDARD_REASON = "the client's policy (standard) uses the preset's settings"
ADMIN_ONLY = "only platform administrators choose it"


def apply(preset, *, references: bool = False, platform_admin: bool = False, policy_name: str = policy.STANDARD,
          **requested) -> policy.Applied:
    return policy.apply(preset, RequestedSettings(**requested) if requested else None, has_references=references,
                        platform_admin=platform_admin, policy=policy_name, default_model=preset.defaults.model)


def not_applied(key: str, reason: str) -> str:
    return f"requestedSettings.{key} was not applied: {reason}."


def settings(applied: policy.Applied) -> tuple:
    return applied.model, applied.generationMode, applied.aspectRatio, applied.resolution, applied.durationSeconds


def refused(message: str, preset, **kwargs) -> None:
    with pytest.raises(ApiError) as caught:
        apply(preset, **kwargs)
    assert (caught.value.status, caught.value.message) == (400, message)


def sides(resolution: str) -> tuple[int, int]:
    width, height = resolution.split("x")
    return int(width), int(height)


# ------------------------------------------------------------------------------------ the preset's settings


@pytest.mark.parametrize("preset", presets.PRESETS.values(), ids=lambda p: p.key)
@pytest.mark.parametrize("policy_name", policy.POLICIES)
@pytest.mark.parametrize("platform_admin", [False, True], ids=["client", "platform"])
def test_nothing_requested_gives_the_presets_settings_without_warnings(preset, policy_name, platform_admin):
    applied = apply(preset, policy_name=policy_name, platform_admin=platform_admin)
    defaults = preset.defaults
    assert settings(applied) == (defaults.model, f"text-to-{preset.media_type}", defaults.aspectRatio,
                                 defaults.resolution, defaults.durationSeconds)
    assert applied.seed is None and applied.warnings == ()


@pytest.mark.parametrize("preset", [THUMBNAIL, COVER], ids=lambda p: p.key)
def test_reference_images_make_the_default_mode_image_to(preset):
    assert apply(preset, references=True).generationMode == f"image-to-{preset.media_type}"


def test_images_last_zero_seconds_and_the_cover_four():
    assert apply(THUMBNAIL).durationSeconds == 0
    assert apply(COVER).durationSeconds == 4


# ------------------------------------------------------------------------------------ standard


def test_standard_applies_the_preset_honours_the_seed_and_warns_once_per_ignored_key():
    applied = apply(THUMBNAIL, model="gpt-image-1", generationMode="text-to-image", aspectRatio="16:9",
                    resolution="1280x720", seed=42)
    assert settings(applied) == ("local-image-1", "text-to-image", "1:1", "1024x1024", 0)
    assert applied.seed == 42
    assert applied.warnings == tuple(not_applied(key, STANDARD_REASON)
                                     for key in ("model", "generationMode", "aspectRatio", "resolution"))


def test_standard_ignores_a_videos_duration_and_ratio_with_warnings():
    applied = apply(COVER, durationSeconds=8, aspectRatio="9:16")
    assert settings(applied) == ("local-video-1", "text-to-video", "16:9", "640x360", 4)
    assert applied.warnings == (not_applied("durationSeconds", STANDARD_REASON),
                                not_applied("aspectRatio", STANDARD_REASON))


@pytest.mark.parametrize("seed", [0, 7, models.MAX_SEED])
def test_a_seed_alone_is_honoured_without_a_warning(seed):
    applied = apply(THUMBNAIL, seed=seed)
    assert applied.seed == seed and applied.warnings == ()


@pytest.mark.parametrize("policy_name", policy.POLICIES)
def test_a_video_resolution_over_1920_is_400_for_everyone(policy_name):
    refused("requestedSettings.resolution: a video is at most 1920 pixels a side.", COVER, policy_name=policy_name,
            resolution="3840x2160")


# ------------------------------------------------------------------------------------ flexible


@pytest.mark.parametrize(("preset", "ratio", "resolution"), [
    (THUMBNAIL, "16:9", "1024x576"), (THUMBNAIL, "9:16", "576x1024"), (THUMBNAIL, "3:4", "768x1024"),
    (THUMBNAIL, "1:1", "1024x1024"), (PORTRAIT, "1:1", "1024x1024"), (PORTRAIT, "4:3", "1024x768"),
    (COVER, "9:16", "360x640"), (COVER, "1:1", "640x640"), (COVER, "16:9", "640x360"),
])
def test_flexible_honours_a_listed_ratio_at_the_presets_size(preset, ratio, resolution):
    applied = apply(preset, policy_name=policy.FLEXIBLE, aspectRatio=ratio)
    assert (applied.aspectRatio, applied.resolution, applied.warnings) == (ratio, resolution, ())


@pytest.mark.parametrize(("preset", "ratio"), [(THUMBNAIL, "5:4"), (COVER, "4:3")])
def test_flexible_refuses_a_ratio_off_its_list_with_a_warning(preset, ratio):
    applied = apply(preset, policy_name=policy.FLEXIBLE, aspectRatio=ratio)
    assert (applied.aspectRatio, applied.resolution) == (preset.defaults.aspectRatio, preset.defaults.resolution)
    allowed = ", ".join(policy.FLEXIBLE_RATIOS[preset.media_type])
    assert applied.warnings == (not_applied("aspectRatio", f"the client's policy allows {allowed}"),)


@pytest.mark.parametrize(("asked", "applied_seconds", "warned"), [(1, 1, False), (6, 6, False), (8, 8, False),
                                                                  (9, 8, True), (10, 8, True)])
def test_flexible_honours_a_duration_up_to_eight_seconds(asked, applied_seconds, warned):
    applied = apply(COVER, policy_name=policy.FLEXIBLE, durationSeconds=asked)
    assert applied.durationSeconds == applied_seconds
    warning = not_applied("durationSeconds", "the client's policy allows at most 8 seconds, which the job uses")
    assert applied.warnings == ((warning,) if warned else ())


def test_flexible_still_ignores_model_mode_and_resolution_as_the_platforms_choice():
    applied = apply(THUMBNAIL, policy_name=policy.FLEXIBLE, model="gpt-image-1", generationMode="text-to-image",
                    resolution="2048x2048", seed=5)
    assert settings(applied) == ("local-image-1", "text-to-image", "1:1", "1024x1024", 0)
    assert applied.seed == 5
    assert applied.warnings == tuple(not_applied(key, ADMIN_ONLY) for key in ("model", "generationMode", "resolution"))


def test_flexible_with_a_ratio_and_a_matching_resolution_derives_the_resolution_itself():
    applied = apply(THUMBNAIL, policy_name=policy.FLEXIBLE, aspectRatio="16:9", resolution="1920x1080")
    assert (applied.aspectRatio, applied.resolution) == ("16:9", "1024x576")
    assert applied.warnings == (not_applied("resolution", ADMIN_ONLY),)


# ------------------------------------------------------------------------------------ platform administrators


def test_a_platform_administrator_gets_every_key():
    applied = apply(THUMBNAIL, platform_admin=True, model="gpt-image-1", generationMode="text-to-image",
                    aspectRatio="3:2", resolution="1536x1024", seed=9)
    assert settings(applied) == ("gpt-image-1", "text-to-image", "3:2", "1536x1024", 0)
    assert applied.seed == 9 and applied.warnings == ()


@pytest.mark.parametrize(("resolution", "ratio"), [("1536x1024", "3:2"), ("1024x1536", "2:3"), ("2048x2048", "1:1"),
                                                    ("1280x720", "16:9")])
def test_a_platform_administrators_resolution_sets_the_ratio(resolution, ratio):
    applied = apply(THUMBNAIL, platform_admin=True, resolution=resolution)
    assert (applied.aspectRatio, applied.resolution) == (ratio, resolution)


def test_a_platform_administrators_ratio_sets_the_resolution_even_off_the_flexible_list():
    applied = apply(THUMBNAIL, platform_admin=True, aspectRatio="5:4")
    assert (applied.aspectRatio, applied.resolution) == ("5:4", "1024x820")


def test_a_platform_administrator_chooses_image_to_image_and_a_long_video():
    assert apply(THUMBNAIL, platform_admin=True, references=True,
                 generationMode="image-to-image").generationMode == "image-to-image"
    video = apply(COVER, platform_admin=True, durationSeconds=10, generationMode="text-to-video")
    assert (video.durationSeconds, video.generationMode, video.warnings) == (10, "text-to-video", ())


def test_a_platform_administrator_may_choose_text_to_image_despite_references():
    assert apply(THUMBNAIL, platform_admin=True, references=True,
                 generationMode="text-to-image").generationMode == "text-to-image"


def test_a_derived_resolution_is_of_the_honoured_ratio():
    applied = apply(THUMBNAIL, platform_admin=True, aspectRatio="16:1")
    width, height = sides(applied.resolution)
    assert (width, height) == (1024, 64) and abs(width / height - 16) <= policy.RATIO_TOLERANCE * 16


def test_a_ratio_too_narrow_for_the_presets_size_is_400():
    # 99:1 at a 1024-pixel long side would need a side under the 64-pixel minimum.
    refused("requestedSettings.aspectRatio 99:1 is too narrow for the preset's size (sides of 64 to 4096 pixels).",
            THUMBNAIL, platform_admin=True, aspectRatio="99:1")


# ------------------------------------------------------------------------------------ 400s


@pytest.mark.parametrize("platform_admin", [False, True], ids=["client", "platform"])
def test_a_duration_for_an_image_is_refused(platform_admin):
    refused("requestedSettings.durationSeconds is only for videos.", THUMBNAIL, platform_admin=platform_admin,
            durationSeconds=4)


@pytest.mark.parametrize(("preset", "mode"), [(THUMBNAIL, "image-to-image"), (COVER, "image-to-video")])
def test_an_image_to_mode_without_references_is_refused(preset, mode):
    refused(f"requestedSettings.generationMode {mode} needs referenceImages.", preset, platform_admin=True,
            generationMode=mode)


def test_a_mode_of_the_other_media_type_is_refused():
    refused("requestedSettings.generationMode must make a video: text-to-video or image-to-video.", COVER,
            generationMode="text-to-image")
    with pytest.raises(ApiError) as caught:
        apply(THUMBNAIL, generationMode="image-to-video", references=True)
    assert caught.value.status == 400
    assert caught.value.message.startswith("requestedSettings.generationMode must make a")
    assert caught.value.message.endswith(": text-to-image or image-to-image.")


@pytest.mark.parametrize("policy_name", policy.POLICIES)
def test_a_ratio_and_a_resolution_that_disagree_are_refused_whatever_the_policy(policy_name):
    refused("requestedSettings.resolution 1024x1024 is not 16:9.", THUMBNAIL, policy_name=policy_name,
            aspectRatio="16:9", resolution="1024x1024")


def test_a_ratio_and_a_resolution_within_one_percent_agree():
    applied = apply(THUMBNAIL, platform_admin=True, aspectRatio="16:9", resolution="1366x768")
    assert (applied.aspectRatio, applied.resolution) == ("16:9", "1366x768")


def test_a_platform_administrators_video_is_at_most_1920_pixels_a_side():
    refused("requestedSettings.resolution: a video is at most 1920 pixels a side.", COVER, platform_admin=True,
            resolution="3840x2160")
    assert apply(COVER, platform_admin=True, resolution="1920x1080").resolution == "1920x1080"


# ------------------------------------------------------------------------------------ resolution_for, ratio_for


@pytest.mark.parametrize(("ratio", "like", "expected"), [
    ("16:9", "1024x1024", "1024x576"), ("9:16", "1024x1024", "576x1024"), ("1:1", "640x360", "640x640"),
    ("3:4", "1024x1024", "768x1024"), ("4:3", "768x1024", "1024x768"), ("2:3", "1280x720", "854x1280"),
    ("3:2", "1600x900", "1600x1066"), ("21:9", "1280x720", "1280x548"),
])
def test_resolution_for_keeps_the_long_side_and_even_sides(ratio, like, expected):
    assert policy.resolution_for(ratio, like) == expected


@pytest.mark.parametrize("preset", presets.PRESETS.values(), ids=lambda p: p.key)
def test_resolution_for_every_flexible_ratio_is_that_ratio_at_the_presets_long_side(preset):
    long_side = max(sides(preset.defaults.resolution))
    for ratio in policy.FLEXIBLE_RATIOS[preset.media_type]:
        width, height = sides(policy.resolution_for(ratio, preset.defaults.resolution))
        assert width % 2 == 0 and height % 2 == 0 and max(width, height) == long_side
        w, h = (int(part) for part in ratio.split(":"))
        assert abs(width / height - w / h) <= policy.RATIO_TOLERANCE * (w / h)


@pytest.mark.parametrize(("resolution", "ratio"), [
    ("1024x576", "16:9"), ("1536x1024", "3:2"), ("768x1024", "3:4"), ("1024x1024", "1:1"), ("720x1280", "9:16"),
    ("1366x768", "683:384"),
])
def test_ratio_for_is_the_reduced_fraction(resolution, ratio):
    assert policy.ratio_for(resolution) == ratio
