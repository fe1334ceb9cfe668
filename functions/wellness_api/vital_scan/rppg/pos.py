"""The pulse wave by POS (Plane-Orthogonal-to-Skin).

W. Wang, A. C. den Brinker, S. Stuijk and G. de Haan, "Algorithmic Principles of Remote PPG", IEEE Trans.
Biomed. Eng. 64(7):1479-1491, 2017, algorithm 1: in each sliding window of about 1.6 s the colour is
temporally normalised (divided by its mean), projected on the plane orthogonal to the skin tone
(P = [[0, 1, -1], [-2, 1, 1]]), the two projections are combined by alpha tuning (S1 + std(S1)/std(S2) S2),
made zero-mean and overlap-added. Intensity changes common to the three channels (illumination, distance)
lie along the skin-tone direction and are removed by the projection.

Motion: a window whose pulse amplitude exceeds MOTION_FACTOR times the median window amplitude is left out
of the overlap-add, which is averaged over the kept windows; samples fewer than half of their windows cover
are masked, and so is what is left of a burst (a 1 s moving RMS above ENVELOPE_FACTOR times its median,
widened by DILATE). Before POS, `colour_motion` masks samples where the normalised colour itself moves far
more than usual. A burst of motion thus becomes a short gap instead of a large artefact in the spectrum
and the beats.
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy import signal

from . import filters

WINDOW = 1.6  # s, as in the paper (about one cardiac cycle at 40 bpm)
MOTION_FACTOR = 2.5
ENVELOPE = 1.0  # s, the moving RMS that finds what is left of a burst after the overlap-add
ENVELOPE_FACTOR = 2.0
# Masking costs pulse: 0.5 s either side and a colour factor of 3 kept 70 % of a moderate trace with one
# 1-3 s burst. 0.25 s and 4 pass 3-5 % more moderate and hard scans (seeds 5000+) with no wrong rate.
DILATE = 0.25  # s, masked on either side of a burst
COLOUR_FACTOR = 4.0
# A relative colour change (RMS) that is never movement: a perfectly still colour (a photograph, a frozen camera)
# has a median of zero, and its rounding errors would all count as loud. Real traces sit far above it: the 8-bit
# rounding of a mean over many pixels alone is about 1e-4, the bench's quietest trace's median 1.2e-3.
STILL_RMS = 1e-5
PROJECTION = np.array([[0.0, 1.0, -1.0], [-2.0, 1.0, 1.0]])


def pos(rgb: np.ndarray, fs: float, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pulse wave with blood-volume polarity, mask of samples it covers). `rgb` is (n, 3) at rate fs."""
    length = round(WINDOW * fs)
    if len(rgb) < length:
        return _no_pulse(len(rgb))
    normalised, ok = _normalised_windows(rgb, length)
    s = np.einsum("pc,mcl->mpl", PROJECTION, normalised)  # (m, 2, length)
    sd = s.std(axis=2)
    alpha = np.divide(sd[:, 0], sd[:, 1], out=np.zeros(len(sd)), where=sd[:, 1] > 0)
    h = s[:, 0, :] + alpha[:, None] * s[:, 1, :]
    return _overlap_add(h, ok & (sd[:, 1] > 0), valid, fs)


def pbv(rgb: np.ndarray, fs: float, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pulse wave, mask) by the blood-volume signature, with one noise covariance over the whole trace.

    de Haan and van Leest 2014 (see `signature`): the projection w = C^-1 PBV / (PBV C^-1 PBV) of the normalised
    colour passes the blood-volume direction whole and suppresses the colour noise, C being the band-passed normalised
    colour's covariance over the motion-free samples. Unlike POS it keeps part of the intensity: more of the pulse
    where the camera's noise hides it (dark skin), and more of the light steps and sway, so the pipeline reads it
    only as a second opinion that POS's own spectrum must confirm (`pipeline.SECOND_OPINION_AGREE`)."""
    length = round(WINDOW * fs)
    if len(rgb) < length or valid.sum() < length:
        return _no_pulse(len(rgb))
    mean = rgb.mean(axis=0)
    if np.any(mean <= 0):
        return _no_pulse(len(rgb))
    band = filters.bandpass((rgb / mean - 1.0).T, fs).T
    covariance = band[valid].T @ band[valid]
    if not np.trace(covariance) > 0:  # a colour that never changes: no pulse to project
        return _no_pulse(len(rgb))
    weights = np.linalg.solve(covariance + 1e-12 * np.trace(covariance) * np.eye(3), PBV)
    weights /= weights @ PBV
    normalised, ok = _normalised_windows(rgb, length)
    return _overlap_add(np.einsum("c,mcl->ml", weights, normalised), ok, valid, fs)


def _no_pulse(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(n), np.zeros(n, bool)


def _normalised_windows(rgb: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """(each `length`-sample window's colour divided by its own mean, (m, 3, length); the windows whose mean is
    positive in every channel): the temporal normalisation of Wang et al., shared by POS and PBV."""
    windows = sliding_window_view(rgb, length, axis=0)
    mean = windows.mean(axis=2, keepdims=True)
    return windows / np.where(mean > 0, mean, 1.0), np.all(mean[:, :, 0] > 0, axis=1)


def _overlap_add(h: np.ndarray, ok: np.ndarray, valid: np.ndarray, fs: float) -> tuple[np.ndarray, np.ndarray]:
    """The windows' zero-mean projections `h` (m, length) overlap-added over the windows that are `ok`, wholly
    `valid` and not loud (MOTION_FACTOR), masked where under half their windows cover them or a burst is left."""
    length = h.shape[1]
    n = len(h) + length - 1
    h = h - h.mean(axis=1, keepdims=True)
    ok = ok & sliding_window_view(valid, length).all(axis=1)
    amplitude = h.std(axis=1)
    if ok.any():
        ok &= amplitude <= MOTION_FACTOR * np.median(amplitude[ok])
    pulse = np.zeros(n)
    covered = np.zeros(n, int)
    for start in np.flatnonzero(ok):
        pulse[start:start + length] += h[start]
        covered[start:start + length] += 1
    kept = covered >= length // 2  # at least half the windows over a sample agree it is free of motion
    pulse = np.divide(pulse, covered, out=np.zeros(n), where=kept)
    kept &= ~_bursts(pulse, kept, fs)
    pulse[~kept] = 0.0
    # Intensity falls when blood volume rises: the sign flip gives systolic peaks as maxima.
    return -pulse, kept


def _bursts(pulse: np.ndarray, kept: np.ndarray, fs: float) -> np.ndarray:
    """Samples whose 1 s moving RMS exceeds ENVELOPE_FACTOR times the median, widened by DILATE each side."""
    if not kept.any():
        return np.zeros(len(pulse), bool)
    width = max(1, int(ENVELOPE * fs))
    envelope = np.sqrt(np.convolve(pulse ** 2, np.ones(width) / width, mode="same"))
    loud = kept & (envelope > ENVELOPE_FACTOR * np.median(envelope[kept]))
    grow = int(DILATE * fs)
    return np.convolve(loud, np.ones(2 * grow + 1), mode="same") > 0


def colour_motion(rgb: np.ndarray, fs: float) -> np.ndarray:
    """Samples where the colour itself moves far more than usual (before POS): the normalised colour,
    high-passed above 0.3 Hz, its 0.5 s moving RMS over the three channels above COLOUR_FACTOR times its
    median, widened by DILATE on each side. Catches the onset and end of a burst the POS amplitude misses."""
    mean = np.clip(rgb.mean(axis=0), 1e-9, None)
    sos = signal.butter(2, 0.3, btype="highpass", fs=fs, output="sos")
    changes = signal.sosfiltfilt(sos, rgb / mean - 1.0, axis=0)
    width = max(1, int(0.5 * fs))
    energy = np.convolve((changes ** 2).sum(axis=1), np.ones(width) / width, mode="same")
    loud = np.sqrt(energy) > max(COLOUR_FACTOR * np.sqrt(np.median(energy)), STILL_RMS)
    grow = int(DILATE * fs)
    return np.convolve(loud, np.ones(2 * grow + 1), mode="same") > 0


PBV = np.array([0.33, 0.77, 0.53])  # the blood-volume pulse signature of normalised skin colour (Wang et al.)


def signature(rgb: np.ndarray, kept: np.ndarray, fs: float, hz: float, width: float = 0.05) -> float:
    """How well the colour change at `hz` points along the blood-volume pulse signature (cosine, 0-1).

    G. de Haan and A. van Leest, "Improved motion robustness of remote-PPG by using the blood volume pulse
    signature", Physiol. Meas. 35(9), 2014: the pulse changes normalised skin colour along a fixed direction
    (strongest in green); light, shine and motion change it along others (equal in all channels for white
    light, along the skin tone for intensity). The principal direction of the normalised colour's
    cross-spectrum within `width` of `hz` is compared with PBV: a steady in-band sway or flicker can pass a
    spectral test, not this one."""
    if kept.sum() < 2 * fs:
        return 0.0
    x = rgb[kept] / np.clip(rgb[kept].mean(axis=0), 1e-9, None) - 1.0
    x = signal.detrend(x, axis=0)
    nfft = int(2 ** np.ceil(np.log2(max(len(x), fs / 0.01))))
    spectrum = np.fft.rfft(x * np.hanning(len(x))[:, None], nfft, axis=0)
    freqs = np.fft.rfftfreq(nfft, 1 / fs)
    near = spectrum[np.abs(freqs - hz) <= width]
    if not len(near):
        return 0.0
    cross = (near.conj().T @ near).real  # 3x3, summed over the bins near hz
    _, vectors = np.linalg.eigh(cross)
    principal = vectors[:, -1]
    return float(abs(principal @ PBV) / np.linalg.norm(PBV))
