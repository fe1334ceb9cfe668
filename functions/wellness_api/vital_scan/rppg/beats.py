"""Beats on the pulse wave and their inter-beat intervals, with artefact rejection.

Systolic peaks are local maxima of the band-passed pulse at least 0.6 of a spectral beat period apart and
with a prominence of at least a third of the wave's robust amplitude, refined to sub-sample times by a
parabola through the peak sample and its neighbours. An interval is rejected (artefact) when either beat
lies in a masked sample (motion, frame gap), when it is outside 0.27-1.6 s (37-220 bpm), or when it differs
by more than 20 % from the median of its neighbours (the percentage rule of the HRV literature, e.g.
the Task Force 1996 recommendations on editing the RR series; 20 % as in Kamath and Fallen's filter).
"""

import dataclasses

import numpy as np
from scipy import signal

RR_RANGE = (0.27, 1.6)  # s
MEDIAN_NEIGHBOURS = 7
MAX_DEVIATION = 0.2


@dataclasses.dataclass(frozen=True)
class Beats:
    times: np.ndarray  # s, every detected peak
    values: np.ndarray  # pulse amplitude peak-to-preceding-trough at each peak
    ibi: np.ndarray  # s, between consecutive peaks
    accepted: np.ndarray  # bool per interval
    unmasked: np.ndarray  # bool per interval: no masked sample (motion, frame gap) between its beats

    @property
    def accepted_ibi(self) -> np.ndarray:
        return self.ibi[self.accepted]


def _refine(x: np.ndarray, i: int) -> float:
    if i <= 0 or i >= len(x) - 1:
        return float(i)
    a, b, c = x[i - 1:i + 2]
    denominator = a - 2 * b + c
    return float(i + (0.5 * (a - c) / denominator if denominator < 0 else 0.0))


def detect(pulse: np.ndarray, fs: float, hr_hz: float, valid: np.ndarray) -> Beats:
    amplitude = 1.4826 * np.median(np.abs(pulse[valid] - np.median(pulse[valid]))) if valid.any() else 0.0
    peaks, _ = signal.find_peaks(pulse, distance=max(1, int(0.6 * fs / hr_hz)), prominence=amplitude / 3)
    troughs, _ = signal.find_peaks(-pulse, distance=max(1, int(0.6 * fs / hr_hz)))
    times = np.array([_refine(pulse, int(i)) for i in peaks]) / fs
    values = np.empty(len(peaks))
    for k, i in enumerate(peaks):
        before = troughs[troughs < i]
        values[k] = pulse[i] - pulse[before[-1]] if before.size else np.nan
    ibi = np.diff(times)
    unmasked = np.zeros(len(ibi), bool)
    if len(peaks) > 1:
        masked = np.cumsum(~valid)  # no masked sample at or between the two beats
        unmasked = valid[peaks[:-1]] & valid[peaks[1:]] & (masked[peaks[1:]] == masked[peaks[:-1]])
    accepted = unmasked & (ibi >= RR_RANGE[0]) & (ibi <= RR_RANGE[1])
    for k in range(len(ibi)):
        lo, hi = max(0, k - MEDIAN_NEIGHBOURS // 2), min(len(ibi), k + MEDIAN_NEIGHBOURS // 2 + 1)
        neighbours = [ibi[j] for j in range(lo, hi) if j != k and accepted[j]]
        if neighbours and abs(ibi[k] - np.median(neighbours)) > MAX_DEVIATION * np.median(neighbours):
            accepted[k] = False
    return Beats(times=times, values=values, ibi=ibi, accepted=accepted, unmasked=unmasked)


def longest_run(accepted: np.ndarray) -> tuple[int, int]:
    """(start, end) interval indices of the longest run of consecutive accepted intervals (end exclusive)."""
    best, start = (0, 0), None
    for k, ok in enumerate([*accepted.tolist(), False]):
        if ok and start is None:
            start = k
        if not ok and start is not None:
            if k - start > best[1] - best[0]:
                best = (start, k)
            start = None
    return best
