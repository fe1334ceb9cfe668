"""Image dimensions read from the header and checked before a single pixel is decoded.

A one-colour PNG of 13,000 x 13,000 pixels is under 1 MiB on disk and about 1 GB once decoded, so nothing here
decodes an image whose header names more than MAX_SIDE pixels a side or MAX_PIXELS in all. Pillow's Image.open
reads only the header; pixels are decoded by load(), convert(), resize() and the like, which callers run only
on what `opened` returned.
"""

import io
from contextlib import contextmanager

MAX_SIDE = 4096
MAX_PIXELS = MAX_SIDE * MAX_SIDE
FORMATS = ("PNG", "JPEG", "WEBP", "GIF")  # what the providers take; anything else is never decoded
FORMAT_NAMES = "PNG, JPEG, WebP or GIF"


class ImageRefused(ValueError):
    """Not an image of an accepted format, or larger than the limits; the message says which."""


class NotAnImage(ImageRefused):
    pass


class TooLarge(ImageRefused):
    pass


def check_size(width: int, height: int, what: str) -> None:
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise TooLarge(f"{what} is {width:,} x {height:,} pixels; at most {MAX_SIDE:,} x {MAX_SIDE:,} are "
                           "accepted")


@contextmanager
def opened(data: bytes, what: str):
    """The Pillow image of `data`, its header read and its size checked, nothing decoded yet."""
    from PIL import Image, UnidentifiedImageError

    try:
        picture = Image.open(io.BytesIO(data), formats=FORMATS)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise NotAnImage(f"{what} must be a {FORMAT_NAMES} image") from None
    with picture:
        check_size(picture.width, picture.height, what)
        yield picture
