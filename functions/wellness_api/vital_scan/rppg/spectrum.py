"""Heart rate from the spectrum of the pulse wave, gated by the SNR of its peak and harmonic.

The spectrum is a Hann-windowed periodogram zero-padded to a 0.005 Hz grid; the peak inside the pulse band
is refined by parabolic interpolation of the log power over the peak bin and its neighbours.

Signal quality: the SNR of G. de Haan and V. Jeanne, "Robust Pulse Rate From Chrominance-Based rPPG",
IEEE Trans. Biomed. Eng. 60(10):2878-2886, 2013 (eq. 13): the power within a template around the
fundamental (+-0.1 Hz) and its first harmonic (+-0.2 Hz) against the power elsewhere in the 0.5-4 Hz
band, in dB. Below MIN_SNR the trace supports no heart rate.

Stability: a pulse keeps its rate through the trace, noise does not. In each 10 s window (2.5 s steps,
shorter windows down to 6 s on a short trace; windows at least 60 % free of motion) the power within
0.1 Hz (6 bpm) of the whole trace's peak must reach DOMINANCE of the window's in-band maximum, in at least
MIN_STABILITY of the windows; there must be at least MIN_WINDOWS windows, and two agreeing windows that do
not overlap (overlapping windows share their noise).
"""

import dataclasses

import numpy as np

from . import filters

GRID = 0.005  # Hz
MIN_SNR = -8.0  # dB, chosen on the synthetic benchmark (bench/vital_scan_accuracy.py)
MIN_STABILITY = 0.8
DOMINANCE = 0.6  # a window agrees when its power near f0 reaches this share of its in-band maximum
MIN_KEPT = 0.6  # share of motion-free samples a stability window needs
MIN_WINDOWS = 3  # fewer motion-free windows than this: no stability, no heart rate
STABILITY_WINDOW, STABILITY_STEP, STABILITY_TOLERANCE = 10.0, 2.5, 0.1  # s, s, Hz
SNR_BAND = (0.5, 4.0)  # Hz, 30-240 bpm as in de Haan and Jeanne
HALF_WIDTH = 0.1  # Hz, template around the fundamental (twice that around the harmonic)


@dataclasses.dataclass(frozen=True)
class Peak:
    hz: float
    snr_db: float
    stability: float

    @property
    def trusted(self) -> bool:
        return self.snr_db >= MIN_SNR and self.stability >= MIN_STABILITY

    @property
    def bpm(self) -> float:
        return self.hz * 60.0


def power_spectrum(x: np.ndarray, fs: float) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, power) of the Hann-windowed, zero-padded periodogram."""
    nfft = max(len(x), int(2 ** np.ceil(np.log2(fs / GRID))))
    spectrum = np.fft.rfft((x - x.mean()) * np.hanning(len(x)), nfft)
    return np.fft.rfftfreq(nfft, 1.0 / fs), np.abs(spectrum) ** 2


def interpolated_peak(freqs: np.ndarray, power: np.ndarray, index: int) -> float:
    """The peak frequency refined by a parabola through the log power of the bin and its neighbours."""
    if index <= 0 or index >= len(power) - 1:
        return float(freqs[index])
    a, b, c = np.log(power[index - 1:index + 2] + 1e-300)
    denominator = a - 2 * b + c
    offset = 0.5 * (a - c) / denominator if denominator < 0 else 0.0
    return float(freqs[index] + np.clip(offset, -0.5, 0.5) * (freqs[1] - freqs[0]))


def snr_db(freqs: np.ndarray, power: np.ndarray, f0: float, fs: float) -> float:
    band = (freqs >= SNR_BAND[0]) & (freqs <= min(SNR_BAND[1], 0.95 * fs / 2))
    template = (np.abs(freqs - f0) <= HALF_WIDTH) | (np.abs(freqs - 2 * f0) <= 2 * HALF_WIDTH)
    signal_power = power[band & template].sum()
    noise_power = power[band & ~template].sum()
    if noise_power <= 0 or signal_power <= 0:
        return float("-inf") if signal_power <= 0 else float("inf")
    return float(10 * np.log10(signal_power / noise_power))


def stability(pulse: np.ndarray, kept: np.ndarray, fs: float, f0: float) -> float:
    """The share of windows in which f0 is (nearly) the strongest in-band peak; see the module's text."""
    length = int(min(STABILITY_WINDOW, max(6.0, len(pulse) / fs / 2)) * fs)
    step = int(STABILITY_STEP * fs)
    agreeing, total = [], 0
    for start in range(0, len(pulse) - length + 1, step):
        if kept[start:start + length].mean() < MIN_KEPT:
            continue
        freqs, power = power_spectrum(pulse[start:start + length], fs)
        band = (freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1])
        total += 1
        near = band & (np.abs(freqs - f0) <= STABILITY_TOLERANCE)
        if power[near].max() >= DOMINANCE * power[band].max():
            agreeing.append(start)
    if total < MIN_WINDOWS or not agreeing or agreeing[-1] - agreeing[0] < length:
        return 0.0
    return len(agreeing) / total


def heart_rate(pulse: np.ndarray, kept: np.ndarray, fs: float) -> Peak:
    """The spectral heart-rate peak of the (detrended, not yet band-passed) pulse wave and its SNR.

    A peak whose half frequency is in the band and carries at least half its power is taken to be the
    harmonic of that lower fundamental (a pronounced dicrotic wave at low heart rates)."""
    freqs, power = power_spectrum(pulse, fs)
    in_band = (freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1])
    candidates = np.flatnonzero(in_band)
    index = int(candidates[np.argmax(power[candidates])])
    f0 = interpolated_peak(freqs, power, index)
    half = f0 / 2
    if half >= filters.BAND[0]:
        near = np.flatnonzero(in_band & (np.abs(freqs - half) <= HALF_WIDTH / 2))
        if near.size:
            sub = int(near[np.argmax(power[near])])
            if power[sub] >= 0.5 * power[index] and 0 < sub < len(power) - 1 and power[sub] >= power[sub - 1] \
                    and power[sub] >= power[sub + 1]:
                f0 = interpolated_peak(freqs, power, sub)
    return Peak(hz=f0, snr_db=snr_db(freqs, power, f0, fs), stability=stability(pulse, kept, fs, f0))
