"""The local generator renders real, decodable media from the prompt: a PNG with Pillow, an H.264 MP4 with PyAV."""

import io

import av
import pytest
from PIL import Image

from tests.media_generation.servers import huge_png
from wellness_api.media_generation import presets
from wellness_api.media_generation.providers.base import GenerationRequest, ProviderError, dimensions
from wellness_api.media_generation.providers.local import VIDEO_FPS, LocalProvider

PROMPT = "A clear, friendly thumbnail of the exercise Squats (strength): Feet shoulder-width apart."


def image(prompt: str = PROMPT, resolution: str = "640x480", seed: int | None = None):
    return LocalProvider().generate(GenerationRequest("image", prompt, presets.LOCAL_IMAGE, "4:3", resolution,
                                                      seed=seed))


def test_an_image_is_a_png_of_the_requested_size():
    media = image()
    assert media.content_type == "image/png" and (media.width, media.height) == (640, 480)
    with Image.open(io.BytesIO(media.data)) as decoded:
        assert decoded.format == "PNG" and decoded.size == (640, 480)
        decoded.load()  # the whole picture decodes
        assert len(decoded.getcolors(maxcolors=1 << 20) or ()) > 100  # a picture, not a flat fill


def test_the_same_request_gives_the_same_bytes_and_another_prompt_or_seed_another_picture():
    assert image().data == image().data
    assert image().data != image(prompt="A calm wellness background evoking evening yoga.").data
    assert image(seed=1).data != image(seed=2).data


def test_a_video_is_an_h264_mp4_of_the_requested_length_that_decodes():
    media = LocalProvider().generate(GenerationRequest("video", PROMPT, presets.LOCAL_VIDEO, "16:9", "320x180", 2))
    assert media.content_type == "video/mp4" and (media.width, media.height) == (320, 180)
    assert media.duration_seconds == 2
    assert media.data[4:8] == b"ftyp" and b"moov" in media.data[:4096]  # the index first: plays while downloading
    with av.open(io.BytesIO(media.data)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264" and (stream.width, stream.height) == (320, 180)
        frames = list(container.decode(video=0))
    assert len(frames) == 2 * VIDEO_FPS
    first, last = frames[0].to_ndarray(format="rgb24"), frames[len(frames) // 2].to_ndarray(format="rgb24")
    assert (first != last).any()  # it moves


def test_a_large_video_is_scaled_down_keeping_its_aspect_ratio():
    media = LocalProvider().generate(GenerationRequest("video", PROMPT, presets.LOCAL_VIDEO, "16:9", "1920x1080", 1))
    assert (media.width, media.height) == (1280, 720)


@pytest.mark.parametrize(("resolution", "expected"), [("1024x1024", (1024, 1024)), ("641X361", (640, 360))])
def test_dimensions_are_even(resolution, expected):
    assert dimensions(resolution) == expected


@pytest.mark.parametrize("resolution", ["1024", "axb", "8x8", "5000x100", "100x-2"])
def test_a_resolution_that_is_not_one_is_refused(resolution):
    with pytest.raises(ProviderError):
        dimensions(resolution)


def test_every_preset_named_by_the_spec_exists_with_its_media_type():
    images = {"image-exercise-thumbnail", "image-coach-portrait", "image-promo-visual", "image-wellness-background",
              "image-app-hero"}
    assert {k for k, p in presets.PRESETS.items() if p.media_type == presets.IMAGE} == images
    assert {k for k, p in presets.PRESETS.items() if p.media_type == presets.VIDEO} == {"exercise-cover-motion"}
    for preset in presets.PRESETS.values():
        assert preset.policy_profile and preset.billing_preset_key
        dimensions(preset.defaults.resolution)


def test_the_prompt_is_the_template_filled_on_one_line_without_empty_fragments():
    preset = presets.PRESETS["image-exercise-thumbnail"]
    filled = presets.normalize_prompt(preset, "  Morning\nlight ", {"name": "Squats", "category": "strength",
                                                                     "description": "Feet  apart"})
    assert filled == ("A clear, friendly thumbnail of the exercise Squats (strength): Feet apart. Morning light")
    bare = presets.normalize_prompt(preset, "", {"name": "Plank"})
    assert bare == "A clear, friendly thumbnail of the exercise Plank (general)."
    assert len(presets.normalize_prompt(preset, "x" * 5000, {})) == presets.MAX_PROMPT_CHARS


def test_a_reference_image_leads_the_pictures_colours():
    def png(colour) -> bytes:
        buffer = io.BytesIO()
        Image.new("RGB", (32, 32), colour).save(buffer, format="PNG")
        return buffer.getvalue()

    def top_left(references) -> tuple:
        request = GenerationRequest("image", "a squat", "local-image-1", "1:1", "64x64", references=references)
        return Image.open(io.BytesIO(LocalProvider().generate(request).data)).convert("RGB").getpixel((0, 0))

    plain, red, undecodable = top_left(()), top_left(((png((250, 0, 0)), "image/png"),)), \
        top_left(((b"not an image", "image/png"),))
    assert red[0] > plain[0] or red[0] >= 187  # three quarters of the reference's red
    assert red[1] <= plain[1] and red != plain
    assert undecodable == plain


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_a_reference_image_of_13000_by_13000_pixels_is_refused_from_its_header_before_it_is_decoded():
    """About 20 KB on disk and about 1 GB decoded: the local generator refuses it instead of decoding it."""
    bomb = huge_png()
    request = GenerationRequest("image", "a squat", "local-image-1", "1:1", "64x64", references=((bomb, "image/png"),))
    with pytest.raises(ProviderError, match=r"^the reference image is 13,000 x 13,000 pixels; at most 4,096 x 4,096 "
                                            r"are accepted$"):
        LocalProvider().generate(request)
