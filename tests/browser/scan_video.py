"""A fake camera for the Vital Scan page: a .y4m video of a real face whose skin pulses at a known rate.

The face is the photograph in scikit-image's sample data (skimage.data.astronaut(), Eileen Collins; public
domain, NASA). Its skin pixels (a YCbCr skin rule inside an ellipse around the face) get a sinusoidal
colour change, mostly in green as in a real blood-volume pulse, of about 1.5 levels. Chromium plays the
file as its camera (--use-file-for-fake-video-capture) and loops it; the loop holds a whole number of
beats, so the pulse continues without a jump.
"""

import itertools
from pathlib import Path

import numpy as np
from skimage import data

WIDTH, HEIGHT = 320, 240
# The crop of the 512x512 photograph: the face (about 100 px wide) near the middle of a 4:3 frame.
LEFT, TOP = 65, 10
FACE_CENTRE, FACE_AXES = (226, 122), (58, 72)  # in the photograph: x, y; half-width, half-height
# Pulse per channel (levels at the peak): mostly green, a little red and blue.
AMPLITUDE = np.array([0.4, 1.5, 0.3])


def skin_mask(rgb: np.ndarray) -> np.ndarray:
    """Skin pixels of the face: an explicit YCbCr rule inside an ellipse around the face."""
    r, g, b = (rgb[..., i].astype(float) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
    cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    rows, cols = np.mgrid[0:rgb.shape[0], 0:rgb.shape[1]]
    (cx, cy), (ax, ay) = FACE_CENTRE, FACE_AXES
    inside = ((cols + LEFT - cx) / ax) ** 2 + ((rows + TOP - cy) / ay) ** 2 <= 1
    return inside & (y > 35) & (cb >= 77) & (cb <= 127) & (cr >= 133) & (cr <= 173)


def _to_yuv420(rgb: np.ndarray) -> bytes:
    """BT.601 limited range (what Chromium's y4m reader assumes), 4:2:0 by averaging 2x2 blocks."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    y = 16 + 0.257 * r + 0.504 * g + 0.098 * b
    u = 128 - 0.148 * r - 0.291 * g + 0.439 * b
    v = 128 + 0.439 * r - 0.368 * g - 0.071 * b

    def sub(c):
        return c.reshape(HEIGHT // 2, 2, WIDTH // 2, 2).mean(axis=(1, 3))

    planes = [y, sub(u), sub(v)]
    return b"".join(np.clip(np.rint(p), 0, 255).astype(np.uint8).tobytes() for p in planes)


def write_y4m(path: Path, bpm: float = 72.0, fps: int = 30, beats: int = 12, amplitude: float = AMPLITUDE,
              moves_after: float | None = None) -> dict:
    """Writes `beats` whole beats at `bpm` (72 bpm, 12 beats: 10 s, 300 frames at 30 fps); returns facts.
    amplitude 0: the face without a pulse (a photograph held to the camera). moves_after: the video lasts that
    many seconds and 2 more, in which the head jumps sideways every few frames (about 1.5 MB a second)."""
    frames = round(beats * 60 / bpm * fps) if moves_after is None else round((moves_after + 2) * fps)
    photo = data.astronaut().astype(float)
    image = photo[TOP:TOP + HEIGHT, LEFT:LEFT + WIDTH]
    mask = skin_mask(image)[..., None]
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(frames):
            if moves_after is not None and i >= moves_after * fps:
                out.write(b"FRAME\n" + _to_yuv420(_moved(photo, i)))
                continue
            pulse = np.sin(2 * np.pi * bpm / 60 * i / fps)
            frame = np.clip(image + mask * amplitude * pulse, 0, 255)
            out.write(b"FRAME\n")
            out.write(_to_yuv420(frame))
    return {"path": str(path), "frames": frames, "fps": fps, "bpm": bpm, "skinPixels": int(mask.sum())}


def _moved(photo: np.ndarray, i: int) -> np.ndarray:
    """Frame i of a head jumping 60 px sideways and back every 7 frames."""
    shift = 60 if (i // 7) % 2 else 0
    return photo[TOP:TOP + HEIGHT, LEFT - 40 + shift:LEFT - 40 + shift + WIDTH]


def write_still_y4m(path: Path, image: np.ndarray, fps: int = 30, frames: int = 30) -> dict:
    """A still picture (no face, no pulse) as a short looping video: the top-left 320x240 of `image`."""
    still = _to_yuv420(image[:HEIGHT, :WIDTH].astype(float))
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n" + still)
    return {"path": str(path), "frames": frames, "fps": fps}


def write_problem_y4m(path: Path, problem: str, fps: int = 30, frames: int = 70) -> dict:
    """The face with a problem the page must name: "small" (far away), "dark" (a dim room) or "moving"
    (the head jumps sideways every few frames)."""
    photo = data.astronaut().astype(float)
    base = photo[TOP:TOP + HEIGHT, LEFT:LEFT + WIDTH]
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(frames):
            if problem == "small":  # the photograph at half its size (face: 16 % of the width), on its wall's colour
                small = photo[::2, ::2][8:8 + 190, 20:20 + 220]
                frame = np.empty_like(base)
                frame[...] = photo[0:40, 300:360].reshape(-1, 3).mean(axis=0)
                frame[25:25 + small.shape[0], 50:50 + small.shape[1]] = small
            elif problem == "dark":
                frame = base * 0.22
            elif problem == "moving":
                frame = _moved(photo, i)
            else:
                raise ValueError(problem)
            out.write(b"FRAME\n" + _to_yuv420(frame))
    return {"path": str(path), "frames": frames, "fps": fps, "problem": problem}


DRIFT_KNOT_S = 10.0  # s between the knots of the pulse's drifting amplitude and phase in region_steps


def region_steps(trace: dict, bpm: float) -> np.ndarray:
    """The steps of a still face's trace between the page's detections, in green levels.

    The page drops a frame or two while its face detector runs (once a second while recording): those gaps split
    the trace into runs. Fitted with the video's pulse (the rate and its harmonic) and one level per run, the
    differences of the levels are what changing the regions did to the mean colour. The pulse's amplitude and phase
    may drift (piecewise linear over 10 s): on a loaded machine Chromium plays the video unevenly, a little slow
    (71.7 bpm for 72), and one fixed phase left up to a fifth of a beat in the levels (median steps of 0.13 and 0.31
    on one CI trace fitted at 71.8 and 72.0 bpm; 0.02 at either with the drift). Steps added at the runs' edges come
    back whole (a median of 0.25 and 0.30 levels added to CI traces was fitted as 0.25 and 0.30)."""
    t = np.asarray(trace["t"], float) / 1000
    green = np.asarray(trace["rgb"], float)[:, 1]
    cuts = np.r_[0, np.flatnonzero(np.diff(t) > 0.05) + 1, len(t)]
    runs = np.zeros((len(t), len(cuts) - 1))
    for i, (a, b) in enumerate(itertools.pairwise(cuts)):
        runs[a:b, i] = 1
    knots = np.linspace(t[0], t[-1], max(2, round((t[-1] - t[0]) / DRIFT_KNOT_S) + 1))
    drift = np.column_stack([np.interp(t, knots, np.eye(len(knots))[k]) for k in range(len(knots))])
    w = 2 * np.pi * bpm / 60
    carriers = (np.sin(w * t), np.cos(w * t), np.sin(2 * w * t), np.cos(2 * w * t))
    pulse = np.column_stack([carrier[:, None] * drift for carrier in carriers])
    coef, *_ = np.linalg.lstsq(np.c_[pulse, runs], green, rcond=None)
    return np.diff(coef[pulse.shape[1]:])


if __name__ == "__main__":  # python -m tests.browser.scan_video /tmp/face.y4m: look at it by hand
    import sys

    print(write_y4m(Path(sys.argv[1] if len(sys.argv) > 1 else "face.y4m")))
