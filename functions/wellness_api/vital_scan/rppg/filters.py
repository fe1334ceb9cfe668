"""Resampling to a uniform rate, detrending and band-passing of the colour trace and the pulse wave."""

import numpy as np
from scipy import signal

from .limits import MAX_FRAME_RATE, MAX_FRAMES, MAX_SECONDS

FS = 30.0  # Hz: the uniform rate every trace is resampled to
BAND = (0.7, 3.5)  # Hz: 42-210 bpm, the pulse band
MIN_FRAME_RATE = 8.0  # Hz: below this the band's upper edge is above the camera's Nyquist frequency
MAX_GAP = 0.5  # s: a longer gap between frames is masked (no pulse is interpolated across it)
# The resampled trace is sized by the span, not by the frames: a few frames far apart would otherwise ask for
# any amount of memory. Longer spans are refused here too, whatever checked (or did not check) the request.
MAX_SAMPLES = int(MAX_SECONDS * FS) + 1


class TraceOutOfBounds(ValueError):
    """A trace beyond limits.MAX_SECONDS or limits.MAX_FRAMES, or with times that do not increase."""


def frame_rate(t_s: np.ndarray) -> float:
    """The camera's median frame rate from the frame times (seconds)."""
    return float(1.0 / np.median(np.diff(t_s)))


def resample(t_s: np.ndarray, rgb: np.ndarray, fs: float = FS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(uniform times, rgb at them, valid mask): linear interpolation; a faster camera is box-averaged
    to about `fs` first (anti-aliasing), and samples inside a gap longer than MAX_GAP are marked invalid.
    Raises TraceOutOfBounds before allocating anything for a trace over MAX_SECONDS or MAX_FRAMES."""
    _check_bounds(t_s, fs)
    rate = frame_rate(t_s)
    k = int(min(rate, MAX_FRAME_RATE) // fs)  # frames closer than 1/240 s widen the box (and its cost) no more
    if k > 1:
        kernel = np.ones(k) / k
        padded = np.pad(rgb, ((k // 2, k - 1 - k // 2), (0, 0)), mode="edge")  # no dip at the ends
        rgb = np.column_stack([np.convolve(padded[:, c], kernel, mode="valid") for c in range(3)])
    t = t_s - t_s[0]
    uniform = np.arange(int(np.floor(t[-1] * fs)) + 1) / fs
    out = np.column_stack([np.interp(uniform, t, rgb[:, c]) for c in range(3)])
    valid = np.ones(len(uniform), bool)
    for i in np.flatnonzero(np.diff(t) > MAX_GAP):
        valid[(uniform > t[i]) & (uniform < t[i + 1])] = False
    return uniform, out, valid


def _check_bounds(t_s: np.ndarray, fs: float) -> None:
    if len(t_s) < 2 or len(t_s) > MAX_FRAMES:
        raise TraceOutOfBounds(f"a trace has 2 to {MAX_FRAMES} frames")
    span = float(t_s[-1] - t_s[0])
    if not np.all(np.diff(t_s) > 0) or not np.isfinite(span):
        raise TraceOutOfBounds("frame times must increase")
    if span > MAX_SECONDS or not 0 < fs <= FS or int(np.floor(span * fs)) + 1 > MAX_SAMPLES:
        raise TraceOutOfBounds(f"a trace spans at most {MAX_SECONDS} s, resampled to at most {FS:g} Hz")


def detrend(x: np.ndarray) -> np.ndarray:
    """Remove the linear trend (the band-pass removes what slower drift is left)."""
    return signal.detrend(x)


def bandpass(x: np.ndarray, fs: float = FS, band: tuple[float, float] = BAND, order: int = 3) -> np.ndarray:
    """Zero-phase Butterworth band-pass (forward-backward, so beat times are not shifted)."""
    sos = signal.butter(order, band, btype="bandpass", fs=fs, output="sos")
    return signal.sosfiltfilt(sos, x)


def beat_band(hr_hz: float) -> tuple[float, float]:
    """The band beats are timed on: BAND widened to keep the second harmonic of a fast pulse (the sharp
    systolic upstroke), at most 8 Hz; a slow pulse keeps BAND (its dicrotic wave would add false peaks)."""
    return BAND[0], float(min(8.0, max(BAND[1], 2.5 * hr_hz)))
