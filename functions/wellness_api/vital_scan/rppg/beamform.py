"""The pulse's spectrum by a blood-volume beamformer tuned to each frequency (the third reading, `pipeline`).

At each frequency the three colour channels' spectra are projected on the blood-volume signature (`pos.PBV`, as in
de Haan and van Leest 2014) with the noise covariance of the neighbouring frequencies: the minimum-variance
distortionless response of array processing (J. Capon, "High-resolution frequency-wavenumber spectrum analysis",
Proc. IEEE 57(8), 1969), its statistic |PBV' Q^-1 X|^2 / (PBV' Q^-1 PBV) being the power of the best unbiased
estimate of a pulse at that frequency over its noise. Head sway and shine fill the low part of the band along the
intensity and light directions, the camera's noise is white and spread over every channel: POS removes the intensity
at every frequency and keeps a third of the pulse, PBV (`pos.pbv`) one covariance for the whole band. Tuned to each
frequency, the projection removes sway where there is sway and passes the pulse whole where only the camera's noise
is, so a fast pulse on dark skin, hidden in POS's noise, stands out. The statistic's noise is the same at every
frequency (each is divided by its own noise), so a peak's height over the band's median means the same everywhere.

The neighbours are INNER_GAP to OUTER_GAP away. Breathing moves the rate and the pulse's amplitude, which puts some
of the pulse's power a breathing rate either side of it, where the covariance then cancels a little of the pulse. The
covariance is estimated from the neighbours, a few dozen independent frequencies on a 30 s scan, which gives the
statistic's noise a heavier tail than a periodogram's: 0.6 Hz rather than 0.4 read 28 % more rates on 14,000 fresh
moderate and hard scans (seeds 1000000+), none wrong; 0.8 reaches into the sway's band from a fast pulse and let a
harmonic through (hard 60 s seed 991145: 90.8 read as 174.9).
"""

import numpy as np

from . import filters, pos, spectrum

INNER_GAP, OUTER_GAP = 0.08, 0.6  # Hz: the neighbours whose covariance is the noise's at a frequency
LOADING = 1e-9  # of the covariance's trace, so that a colour with no noise in one direction still inverts


def statistic(rgb: np.ndarray, kept: np.ndarray, fs: float) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, the beamformer's statistic; 0 outside the pulse band) of the colour `rgb` (n, 3) over the
    samples `kept` (the others, motion, are left out as zeros)."""
    mean = rgb[kept].mean(axis=0) if kept.any() else np.zeros(3)
    if len(rgb) < 2 or np.any(mean <= 0):
        return np.zeros(1), np.zeros(1)
    x = filters.bandpass((rgb / mean - 1.0).T, fs).T
    x = np.where(kept[:, None], x - x[kept].mean(axis=0), 0.0)
    if not np.abs(x).max() > 0:  # a colour that never changes: nothing to project, and no noise to divide by
        return np.zeros(1), np.zeros(1)
    length = spectrum.nfft(len(x), fs)
    spectra = np.fft.rfft(x * np.hanning(len(x))[:, None], length, axis=0)  # (bins, 3)
    freqs = np.fft.rfftfreq(length, 1.0 / fs)
    step = freqs[1] - freqs[0]
    band = np.flatnonzero((freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1]))
    # Cumulative sums of each bin's cross-spectrum give any run of neighbours' covariance in two subtractions.
    cumulative = np.concatenate([np.zeros((1, 3, 3), complex),
                                 np.cumsum(np.einsum("bi,bj->bij", spectra, spectra.conj()), axis=0)])
    inner, outer = round(INNER_GAP / step), round(OUTER_GAP / step)
    lo, hi = np.maximum(band - outer, 0), np.minimum(band + outer + 1, len(freqs))
    inner_lo, inner_hi = np.maximum(band - inner, 0), np.minimum(band + inner + 1, len(freqs))
    count = ((hi - lo) - (inner_hi - inner_lo)).astype(float)
    covariance = (cumulative[hi] - cumulative[lo] - cumulative[inner_hi] + cumulative[inner_lo]) / count[:, None, None]
    trace = np.trace(covariance, axis1=1, axis2=2).real
    covariance = covariance + (LOADING * np.maximum(trace, 1e-300))[:, None, None] * np.eye(3)
    weights = np.linalg.solve(covariance, np.broadcast_to(pos.PBV.astype(complex), (len(band), 3))[..., None])[..., 0]
    gain = (weights @ pos.PBV).real
    out = np.zeros(len(freqs))
    out[band] = np.abs(np.einsum("bi,bi->b", weights.conj(), spectra[band])) ** 2 / np.maximum(gain, 1e-300)
    return freqs, out


def strongest(freqs: np.ndarray, power: np.ndarray) -> tuple[float, float, float]:
    """(the strongest in-band peak's frequency, its height over the band's median, its rival: the strongest power
    farther than `spectrum.RIVAL_GAP` from it, its double and its half, over its own)."""
    band = np.flatnonzero((freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1]))
    if not len(band) or not power[band].max() > 0:
        return 0.0, 0.0, 1.0
    index = int(band[np.argmax(power[band])])
    hz = spectrum.interpolated_peak(freqs, power, index)
    median = float(np.median(power[band]))
    return hz, float(power[index] / median) if median > 0 else 0.0, spectrum.rival(freqs, power, hz)


def halves_agree(rgb: np.ndarray, kept: np.ndarray, fs: float, hz: float) -> int:
    """How many halves of the kept colour (0, 1 or 2, `spectrum.halves`) have their own strongest peak within
    `spectrum.HALF_AGREE` of hz."""
    return sum(abs(strongest(*statistic(rgb[half], kept[half], fs))[0] - hz) <= spectrum.HALF_AGREE * hz
               for half in spectrum.halves(kept, fs))
