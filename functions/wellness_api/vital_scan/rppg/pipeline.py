"""The measurement: trace -> uniform colour -> POS pulse -> spectral hr (gated) -> beats -> hrv, si, rr.

Only the measurement path imports this module (numpy and scipy load here). A trace that cannot support a
heart rate (camera too slow, too short after masking motion, or a spectral peak below the SNR or stability gate)
gives None: the session completes with metrics null. Metrics that depend on the beats (hrv, hrv_indices,
si, rr) are added only when the beats are trustworthy, each under its own conditions; nothing is guessed.
"""

from typing import Any

import numpy as np

from . import beats as beats_mod
from . import filters, hrv, pos, respiration, spectrum

MIN_SECONDS = 10.0  # of motion-free pulse wave
BEAT_AGREEMENT = 0.1  # the beats' mean rate must be within 10 % of the spectral rate
BEAT_MIN_SNR = 0.0  # dB: beat intervals (hrv, si, rr) are read only from a clean pulse wave


def measure(fps: float, t_ms: list[float], rgb: list[list[float]]) -> dict[str, Any] | None:
    t = np.asarray(t_ms, float) / 1000.0
    colour = np.asarray(rgb, float)
    if len(t) < 3 or colour.shape != (len(t), 3) or filters.frame_rate(t) < filters.MIN_FRAME_RATE:
        return None
    _, uniform, valid = filters.resample(t, colour)
    fs = filters.FS
    if len(uniform) < MIN_SECONDS * fs:
        return None
    raw, kept = pos.pos(uniform, fs, valid & ~pos.colour_motion(uniform, fs))
    if kept.sum() < MIN_SECONDS * fs:
        return None
    raw = np.where(kept, filters.detrend(raw), 0.0)
    peak = spectrum.heart_rate(raw, kept, fs)
    if not peak.trusted:
        return None
    metrics: dict[str, Any] = {"hr": round(peak.bpm, 1)}
    pulse = np.where(kept, filters.bandpass(raw, fs, filters.beat_band(peak.hz)), 0.0)
    found = beats_mod.detect(pulse, fs, peak.hz, kept)
    ibi = found.accepted_ibi
    if peak.snr_db >= BEAT_MIN_SNR and len(ibi) and abs(60.0 / ibi.mean() - peak.bpm) <= BEAT_AGREEMENT * peak.bpm:
        metrics.update(_rounded(hrv.indices(found)))
        rr = respiration.respiratory_rate(found, raw, fs, peak.hz)
        if rr is not None:
            metrics["rr"] = round(rr, 1)
    return metrics


def _rounded(values: dict[str, Any]) -> dict[str, Any]:
    return {k: _rounded(v) if isinstance(v, dict) else round(float(v), 2) for k, v in values.items()}
