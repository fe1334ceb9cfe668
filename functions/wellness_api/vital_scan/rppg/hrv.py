"""Heart-rate variability from the accepted inter-beat intervals.

Task Force of the European Society of Cardiology and the North American Society of Pacing and
Electrophysiology, "Heart rate variability: standards of measurement, physiological interpretation and
clinical use", Circulation 93(5):1043-1065, 1996: MEAN_RR, SDNN, RMSSD (successive differences only between
adjacent accepted intervals), and LF (0.04-0.15 Hz) and HF (0.15-0.4 Hz) power in ms^2 of the interval
series resampled at 4 Hz, only when the accepted beats span at least MIN_SPECTRAL_SPAN (the Task Force asks
for about ten periods of the lowest frequency; 2 minutes is its short-term minimum for LF).
Poincare SD1 and SD2: M. Brennan, M. Palaniswami and P. Kamen, "Do existing measures of Poincare plot
geometry reflect nonlinear features of heart rate variability?", IEEE Trans. Biomed. Eng. 48(11), 2001
(SD1^2 = var(dRR)/2, SD2^2 = 2 SDNN^2 - var(dRR)/2).
Stress index: R. M. Baevsky and A. G. Chernikova, "Heart rate variability analysis: physiological
foundations and main methods", Cardiometry 10:66-76, 2017: SI = AMo / (2 Mo MxDMn) with a 50 ms histogram,
AMo in % of intervals in the modal bin, Mo (its centre) and MxDMn (range) in seconds.
"""

from typing import Any

import numpy as np
from scipy import interpolate, signal

from .beats import Beats, longest_run

MIN_INTERVALS = 12  # time-domain indices need at least this many accepted intervals
MIN_ACCEPTED_SHARE = 0.7  # and at least this share of all detected intervals accepted
MIN_SI_INTERVALS = 20
MIN_SPECTRAL_SPAN = 120.0  # s
ADVISED_SECONDS = 60.0  # a scan this long or longer: an omitted hrv is the trace's quality, not its length
LF, HF = (0.04, 0.15), (0.15, 0.4)


def _successive_differences(beats: Beats) -> np.ndarray:
    pairs = beats.accepted[:-1] & beats.accepted[1:]
    return np.diff(beats.ibi)[pairs]


def stress_index(ibi: np.ndarray) -> float | None:
    if len(ibi) < MIN_SI_INTERVALS:
        return None
    width = 0.05
    bins = np.floor(ibi / width)
    values, counts = np.unique(bins, return_counts=True)
    mode_bin = values[np.argmax(counts)]
    amo = 100.0 * counts.max() / len(ibi)
    mo = (mode_bin + 0.5) * width
    mxdmn = float(ibi.max() - ibi.min())
    if mxdmn <= 0:
        return None
    return float(amo / (2 * mo * mxdmn))


def frequency_domain(beats: Beats) -> dict[str, float]:
    """LF, HF (ms^2) and LF_HF_RATIO over the longest run of accepted intervals, if it is long enough."""
    lo, hi = longest_run(beats.accepted)
    if hi - lo < 4:
        return {}
    t = beats.times[lo + 1:hi + 1]
    rr = beats.ibi[lo:hi] * 1000.0
    if t[-1] - t[0] < MIN_SPECTRAL_SPAN:
        return {}
    fs = 4.0
    grid = np.arange(t[0], t[-1], 1 / fs)
    series = signal.detrend(interpolate.CubicSpline(t, rr)(grid))
    freqs, psd = signal.welch(series, fs=fs, nperseg=min(len(series), int(fs * 120)), detrend="constant")
    step = freqs[1] - freqs[0]
    lf = float(psd[(freqs >= LF[0]) & (freqs < LF[1])].sum() * step)
    hf = float(psd[(freqs >= HF[0]) & (freqs < HF[1])].sum() * step)
    if hf <= 0:
        return {}
    return {"LF": lf, "HF": hf, "LF_HF_RATIO": lf / hf}


def indices(beats: Beats) -> dict[str, Any]:
    """{"hrv": SDNN, "si": ..., "hrv_indices": {...}} with whatever the intervals support."""
    ibi = beats.accepted_ibi
    if len(ibi) < MIN_INTERVALS or len(ibi) < MIN_ACCEPTED_SHARE * len(beats.ibi):
        return {}
    rr = ibi * 1000.0
    sdnn = float(np.std(rr, ddof=1))
    out: dict[str, Any] = {"hrv": sdnn}
    hrv_indices = {"MEAN_RR": float(rr.mean()), "SDNN": sdnn}
    diffs = _successive_differences(beats) * 1000.0
    if len(diffs) >= MIN_INTERVALS - 1:
        rmssd = float(np.sqrt(np.mean(diffs ** 2)))
        var_d = float(np.var(diffs, ddof=1))
        sd1 = np.sqrt(var_d / 2)
        sd2_squared = 2 * sdnn ** 2 - var_d / 2
        hrv_indices["RMSSD"] = rmssd
        hrv_indices["SD1"] = float(sd1)
        if sd2_squared > 0:
            hrv_indices["SD2"] = float(np.sqrt(sd2_squared))
    hrv_indices.update(frequency_domain(beats))
    out["hrv_indices"] = hrv_indices
    si = stress_index(ibi)
    if si is not None:
        out["si"] = si
    return out
