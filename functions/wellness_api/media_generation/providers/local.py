"""The local generator: a real PNG (Pillow) or MP4 (PyAV, H.264) rendered from the prompt, offline and free.

Not a model: the picture is a gradient, shapes and the prompt's first words, all derived from a hash of the
prompt and the seed, so the same request gives the same bytes and different prompts look different. It lets the
whole job pipeline (queue, worker, Storage, library, URLs) run in `make serve` and the tests without a vendor.
"""

import hashlib
import io
import math
import pathlib
import tempfile
import textwrap

from .. import images
from .base import GeneratedMedia, GenerationRequest, ProviderError, dimensions

VIDEO_FPS = 24
MAX_VIDEO_SECONDS = 10
MAX_VIDEO_PIXELS = 1280 * 720  # the local encoder's budget per frame


class LocalProvider:
    name = "local"

    def generate(self, request: GenerationRequest) -> GeneratedMedia:
        if request.media_type == "video":
            return _video(request)
        return _image(request)


def _palette(request: GenerationRequest) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    digest = hashlib.sha256(f"{request.prompt}\x00{request.seed}".encode()).digest()
    top = tuple(60 + b % 150 for b in digest[:3])
    bottom = tuple(30 + b % 120 for b in digest[3:6])
    tint = _reference_colour(request)
    if tint is not None:  # an image-to-media job: the reference's average colour leads the gradient
        top = tuple((a + 3 * b) // 4 for a, b in zip(top, tint, strict=True))
    return top, bottom, int.from_bytes(digest[6:10], "big")


def _reference_colour(request: GenerationRequest) -> tuple[int, int, int] | None:
    """The average colour of the first reference image, or None (no reference, or not a decodable image).

    An image larger than images.MAX_SIDE is refused from its header (ProviderError) before it is decoded."""
    if not request.references:
        return None
    from PIL import Image

    try:
        with images.opened(request.references[0][0], "the reference image") as picture:
            return picture.convert("RGB").resize((1, 1), Image.Resampling.BOX).getpixel((0, 0))
    except images.TooLarge as exc:
        raise ProviderError(str(exc)) from None
    except (images.NotAnImage, OSError, ValueError):
        return None


def _frame(width: int, height: int, request: GenerationRequest, phase: float = 0.0):
    """One picture: vertical gradient, a few soft circles (moved by `phase` in videos) and the caption."""
    from PIL import Image, ImageDraw, ImageFont

    top, bottom, bits = _palette(request)
    image = Image.new("RGB", (width, height))
    gradient = ImageDraw.Draw(image)
    for y in range(height):
        t = y / max(height - 1, 1)
        gradient.line([(0, y), (width, y)], fill=tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True)))
    overlay = Image.new("RGBA", (width, height))
    shapes = ImageDraw.Draw(overlay)
    for i in range(4):
        radius = min(width, height) * (0.12 + ((bits >> (i * 3)) & 7) / 40)
        cx = width * (((bits >> (i * 5)) & 31) / 31 + 0.15 * math.sin(phase + i))
        cy = height * (((bits >> (i * 7 + 2)) & 31) / 31 + 0.1 * math.cos(phase * 1.3 + i))
        shapes.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=(255, 255, 255, 46))
    image = Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
    caption = " ".join(request.prompt.split()[:14])
    size = max(12, min(width, height) // 16)
    font = ImageFont.load_default(size=size)
    lines = textwrap.wrap(caption, width=max(12, int(width / (size * 0.55))))[:4]
    text = ImageDraw.Draw(image)
    line_y = height - (len(lines) + 1) * size * 1.25
    for line in lines:
        text.text((size, line_y), line, font=font, fill=(255, 255, 255), stroke_width=max(1, size // 12),
                  stroke_fill=(0, 0, 0))
        line_y += size * 1.25
    return image


def _image(request: GenerationRequest) -> GeneratedMedia:
    width, height = dimensions(request.resolution)
    buffer = io.BytesIO()
    _frame(width, height, request).save(buffer, format="PNG", optimize=True)
    return GeneratedMedia(buffer.getvalue(), "image/png", width, height)


def _video(request: GenerationRequest) -> GeneratedMedia:
    import av
    import numpy as np

    width, height = dimensions(request.resolution)
    if width * height > MAX_VIDEO_PIXELS:  # keep the local encoder quick: scale down, keeping the aspect ratio
        scale = math.sqrt(MAX_VIDEO_PIXELS / (width * height))
        width, height = int(width * scale) // 2 * 2, int(height * scale) // 2 * 2
    seconds = min(max(request.duration_seconds or 4, 1), MAX_VIDEO_SECONDS)
    frames = round(seconds * VIDEO_FPS)
    # faststart (the index first, so browsers play while downloading) rewrites the file: it needs a real file.
    with tempfile.NamedTemporaryFile(suffix=".mp4") as file, \
            av.open(file.name, mode="w", options={"movflags": "faststart"}) as container:
        stream = container.add_stream("libx264", rate=VIDEO_FPS)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"preset": "veryfast", "crf": "28"}
        for index in range(frames):
            picture = _frame(width, height, request, phase=2 * math.pi * index / frames)
            frame = av.VideoFrame.from_ndarray(np.asarray(picture), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
        container.close()
        data = pathlib.Path(file.name).read_bytes()
    return GeneratedMedia(data, "video/mp4", width, height, duration_seconds=frames / VIDEO_FPS)
