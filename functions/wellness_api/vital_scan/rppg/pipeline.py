"""The measurement: trace -> uniform colour -> POS pulse -> spectral hr (gated) -> beats -> hrv, si, rr.

Only the measurement path imports this module (numpy and scipy load here). Each metric has its own gate and
is omitted rather than guessed (2.12):

- hr: the spectral peak (checked against its sub-harmonics) must pass the SNR, stability and
  harmonic-ambiguity gates of `spectrum`, the colour change at that rate must point along the blood-volume
  signature (`pos.signature`), the beats found on the wave must keep that rate (BEAT_RATE_GAP) and both
  halves of the trace must peak at it. A weak peak also needs regular beats (WEAK_SNR, WEAK_BEATS), unless it
  stands far above the noise (`spectrum.PROMINENT`) and the beats keep its rate closely (PROMINENT_GAP):
  masked motion and noise make the beats of many a clear pulse irregular.
- rr: at least two respiratory modulations clear and all clear ones agreeing, or the colour baseline's alone
  when beyond doubt (`respiration`); the beat amplitudes and intervals count only from a clean wave
  (BEAT_MIN_SNR).
- hrv, hrv_indices, si: beats timed precisely (MAX_TIMING_NOISE, from the spread of the upstroke-to-peak
  delay) and the variability the same from peaks and from upstrokes (HRV_AGREEMENT).

`assess` also returns the internal quality (the gates' measures and, for an omitted metric, why), which the
service stores with the measurement and the hosted page turns into "try again" advice; it is never a metric.
"""

from typing import Any

import numpy as np

from . import beats as beats_mod
from . import filters, hrv, pos, respiration, spectrum

MIN_SECONDS = 10.0  # of motion-free pulse wave
MIN_SIGNATURE = 0.9  # cosine of the colour change at the rate with the blood-volume signature (pos.signature)
BEAT_RATE_GAP = 0.12  # the beats' median rate within this share of the spectral rate, or no hr
# A weak peak (SNR below WEAK_SNR) needs regular beats: at least WEAK_BEATS of the intervals between the
# peaks found on the wave pass the artefact rules (every wrong rate the bench found had fewer).
WEAK_SNR, WEAK_BEATS = -4.0, 0.65
# A prominent peak stands in for regular beats only if the beats' median rate is this close.
PROMINENT_GAP = 0.08
BEAT_AGREEMENT = 0.1  # the beats' mean rate must be within 10 % of the spectral rate
BEAT_MIN_SNR = 0.0  # dB: beat intervals (rr) are read only from a clean pulse wave
HRV_MIN_SNR = 0.0  # dB: and beat-to-beat variability only from beats timed precisely (MAX_TIMING_NOISE)
HRV_AGREEMENT = 0.1  # SDNN and RMSSD from peaks and from upstrokes agree within this share
# Faster pulses: fewer than 16 frames per interval at 30 fps, and the bench found SDNN doubled by timing noise
# the upstroke-to-peak spread does not show.
MAX_HRV_BPM = 110.0
MAX_TIMING_NOISE = 6.0  # ms of beat-timing noise beyond which SDNN and RMSSD are not reported
DARK = 40.0  # mean colour (0-255) below which a failed trace is put down to too little light
MOVING = 0.75  # share of the trace kept after motion masking below which a failure is put down to motion


def measure(fps: float, t_ms: list[float], rgb: list[list[float]]) -> dict[str, Any] | None:
    """The metrics the trace supports, or None."""
    return assess(fps, t_ms, rgb)[0]


def assess(fps: float, t_ms: list[float], rgb: list[list[float]]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(metrics or None, quality): quality holds the gates' measures and, when a metric is left out, why
    (`quality.REASONS`), so the hosted page can say what to change and the measurement keeps its evidence."""
    t = np.asarray(t_ms, float) / 1000.0
    colour = np.asarray(rgb, float)
    q: dict[str, Any] = {}
    if len(t) < 3 or colour.shape != (len(t), 3) or filters.frame_rate(t) < filters.MIN_FRAME_RATE:
        return None, {**q, "reason": "camera"}
    _, uniform, valid = filters.resample(t, colour)
    fs = filters.FS
    q["seconds"] = round(len(uniform) / fs, 1)
    q["brightness"] = round(float(uniform.mean()), 1)
    if len(uniform) < MIN_SECONDS * fs:
        return None, {**q, "reason": "short"}
    raw, kept = pos.pos(uniform, fs, valid & ~pos.colour_motion(uniform, fs))
    q["kept"] = round(float(kept.mean()), 3)
    if kept.sum() < MIN_SECONDS * fs:
        return None, {**q, "reason": "motion"}
    raw = np.where(kept, filters.detrend(raw), 0.0)
    peak = spectrum.heart_rate(raw, kept, fs)
    q.update(snr_db=round(float(peak.snr_db), 2), stability=round(float(peak.stability), 2),
             halves=peak.halves, prominence=round(float(peak.prominence), 1))
    if not peak.trusted:
        return None, {**q, "reason": _why_not(q)}
    # The colour change at the rate must be the blood's (not light or shine), and the beats found on the
    # wave must keep that rate: two checks independent of the spectrum's own.
    q["signature"] = round(float(pos.signature(uniform, kept, fs, peak.hz)), 3)
    pulse = np.where(kept, filters.bandpass(raw, fs, filters.beat_band(peak.hz)), 0.0)
    found = beats_mod.detect(pulse, fs, peak.hz, kept)
    ibi = found.accepted_ibi
    q["beats_accepted"] = round(float(found.accepted.mean()), 3) if len(found.ibi) else 0.0
    q["beat_rate_gap"] = round(float(abs(60.0 / np.median(ibi) - peak.bpm) / peak.bpm), 3) if len(ibi) >= 4 else None
    if q["signature"] < MIN_SIGNATURE or q["beat_rate_gap"] is None or q["beat_rate_gap"] > BEAT_RATE_GAP \
            or not _confirmed(peak, q):
        return None, {**q, "reason": _why_not(q)}
    metrics: dict[str, Any] = {"hr": round(peak.bpm, 1)}
    beats_agree = len(ibi) and abs(60.0 / ibi.mean() - peak.bpm) <= BEAT_AGREEMENT * peak.bpm
    if peak.snr_db >= HRV_MIN_SNR and beats_agree and peak.bpm <= MAX_HRV_BPM:
        variability = hrv.indices(found)
        # A second fiducial point, the steepest upstroke of each beat, must give the same variability: noise
        # and dicrotic waves move peaks and upstrokes apart, a real change of the intervals moves both.
        rising = beats_mod.detect(np.gradient(pulse), fs, peak.hz, kept)
        q["hrv_agreement"] = _agreement(variability, hrv.indices(rising))
        q["timing_ms"] = _timing_noise(found.times, rising.times)
        if q["hrv_agreement"] is not None and q["hrv_agreement"] <= HRV_AGREEMENT \
                and q["timing_ms"] is not None and q["timing_ms"] <= MAX_TIMING_NOISE:
            metrics.update(_rounded(variability))
    rr = respiration.respiratory_rate(found, respiration.intensity_signal(uniform, kept, fs), fs, peak.hz,
                                      beats_usable=bool(peak.snr_db >= BEAT_MIN_SNR and beats_agree))
    if rr is not None:
        metrics["rr"] = round(rr, 1)
    if "rr" not in metrics:
        q["rr_omitted"] = "short" if q["seconds"] < respiration.ADVISED_SECONDS else "quality"
    if "hrv" not in metrics:
        q["hrv_omitted"] = "short" if q["seconds"] < hrv.ADVISED_SECONDS else "quality"
    return metrics, q


def _confirmed(peak: spectrum.Peak, q: dict[str, Any]) -> bool:
    """Both halves peak at the rate, and a weak peak has regular beats or is prominent with beats that keep
    its rate closely."""
    regular = q["snr_db"] >= WEAK_SNR or q["beats_accepted"] >= WEAK_BEATS
    return peak.halves == 2 and (regular or (peak.prominent and q["beat_rate_gap"] <= PROMINENT_GAP))


def _timing_noise(peaks: np.ndarray, upstrokes: np.ndarray) -> float | None:
    """ms: the robust spread of the delay from each beat's steepest upstroke to its peak. The delay is fixed
    by the wave's shape, so its spread is the timing noise every interval carries (it inflates SDNN and,
    doubled, RMSSD)."""
    if len(peaks) < 8 or len(upstrokes) < 8:
        return None
    index = np.searchsorted(upstrokes, peaks) - 1
    ok = index >= 0
    delays = peaks[ok] - upstrokes[index[ok]]
    if len(delays) < 8:
        return None
    return round(float(1.4826 * np.median(np.abs(delays - np.median(delays))) * 1000.0), 2)


def _agreement(a: dict[str, Any], b: dict[str, Any]) -> float | None:
    """The larger relative difference of SDNN and RMSSD between two beat series, or None if either lacks them."""
    ia, ib = a.get("hrv_indices", {}), b.get("hrv_indices", {})
    if not {"SDNN", "RMSSD"} <= set(ia) or not {"SDNN", "RMSSD"} <= set(ib):
        return None
    return round(max(abs(ia[k] - ib[k]) / max(ia[k], 1e-9) for k in ("SDNN", "RMSSD")), 3)


def _why_not(q: dict[str, Any]) -> str:
    """The likeliest reason a trace gave no heart rate: what the user can change."""
    if q["brightness"] < DARK:
        return "dark"
    if q["kept"] < MOVING:
        return "motion"
    return "weak"


def _rounded(values: dict[str, Any]) -> dict[str, Any]:
    return {k: _rounded(v) if isinstance(v, dict) else round(float(v), 2) for k, v in values.items()}
