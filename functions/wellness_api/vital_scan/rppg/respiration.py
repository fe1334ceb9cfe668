"""Respiratory rate from the respiratory modulation of the pulse wave.

W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter Respiratory Rate Estimation From
the Photoplethysmogram", IEEE Trans. Biomed. Eng. 60(7):1946-1953, 2013: breathing modulates the pulse in
intensity (RIIV, the baseline at each beat), amplitude (RIAV, peak minus preceding trough) and frequency
(RIFV, the inter-beat interval: respiratory sinus arrhythmia). Each beat series is resampled at 4 Hz, and
its spectral peak in 7.2-30 breaths/min (above the 0.1 Hz Mayer waves; a maximum on the band's edge is
leakage, not a peak) is a candidate when the peak is clear (at least CLEAR_SHARE of the
band's power within +-0.03 Hz). Fusion, weighted by quality: rr is the mean of the clear candidates when at
least two are clear and all of them agree within AGREE breaths/min. Otherwise the baseline alone gives rr when
its peak is clear beyond doubt (ALONE_SHARE): it is read from the continuous colour, not from the beats, so a
noisy pulse wave (whose beat amplitudes and intervals carry the noise's own rhythm, and which disagree with
it) does not make it wrong; on seeds 5000+ (never the bench's) a baseline that clear was right every time,
on clean and moderate scans of 30 and 60 s, when the amplitudes and intervals were mostly not. The beat
series count only when the pulse wave is clean (`beats_usable`). The band is capped at 0.45 times the heart
rate, since a beat series cannot show a modulation faster than half its beat rate. Only the longest run of beats
between masked samples is used (no interpolation across motion), and it must span at least MIN_SPAN.

When these give no rate, or the run's baseline peaks inside its Mayer lobe (the whole scan's lobe is lower), the
baseline over the whole scan may (`whole_baseline`): read from every motion-free sample, with the masked ones left
at zero rather than bridged, it has more breaths to show than the longest run, but the gaps colour its spectrum
(moderate 60 s seed 10525: 13.3/min read as 9.2 with 69 % of the band's power), so its peak counts only when each
half of the scan, on its own, peaks within AGREE of it. On a scan mostly free of motion (SLOW_HALVES_KEPT) a half
peaking inside its own lobe is read down to the whole scan's: slow breathing lies inside a half's lobe, and the
halves could otherwise never confirm it.
"""

import numpy as np
from scipy import interpolate, signal

from . import filters
from .beats import Beats, longest_run
from .pos import PBV
from .spectrum import interpolated_peak, power_spectrum

BAND = (0.12, 0.5)  # Hz: 7.2-30 breaths/min (above the 0.1 Hz Mayer waves of the interval series)
FS = 4.0
MAYER = 0.1  # Hz
CLEAR_SHARE = 0.35
AGREE = 1.5  # breaths/min: every clear candidate within this of every other
# The baseline (RIIV) this clear gives rr on its own: none at or above 0.4 was wrong on seeds 5000+, but the
# bench found one at 0.52 (moderate, 60 s, seed 2243: 13.9 -> 19.9 on dark skin).
ALONE_SHARE = 0.6
# A scan whose beats give no rr (no heart rate, or one from the PBV pulse or the beamformer, which time no beats) gives
# rr from the baseline alone (`pipeline`) only at ALONE_MIN_RATE breaths/min or more. Without a pulse to time, nothing
# tells slow breathing from the slow drift of light and sway, which a long scan's low Mayer floor lets through: on
# 12,000 fresh hard 175 s scans (seeds 1240000-1245999 and 1280000-1285999) 5 of the 149 such readings under 10/min
# were more than 3/min off (8.1-8.9 for 15.3-22.5), none of the 190 above; so was the bench's hard 2688 (7.8 for
# 12.2). Where the beats give rr, 2 slow readings of 269 were wrong. The floor costs 6 % of those scans' rr.
ALONE_MIN_RATE = 10.0
MIN_SPAN = 20.0  # s of accepted beats
MIN_CYCLES = 3  # breathing cycles the span must hold at the estimated rate
# A half of a 60 s scan has a Mayer lobe reaching 10/min, the whole scan's 8/min: slow breathing (8-10/min) puts each
# half's peak inside its own lobe, so the halves could never confirm it. With at least SLOW_HALVES_KEPT of the scan free
# of motion a half peaking inside its own lobe is read down to the whole scan's: on 9,000 fresh moderate 60 s scans
# (seeds 70000-72999, 120000-122999, 130000-132999) rr 5-6 points more often, none of the new readings more than 3/min
# off. On much-masked scans the gaps' edges chop the slow colour drift into steps whose power lies at the bottom of the
# band: without the floor 6 of 161 more readings on 9,000 hard 60 s scans (same seeds, all 79-82 % kept) were
# 8.9-10.6/min for truths of 16-24.
SLOW_HALVES_KEPT = 0.85
# The breathing baseline's rms at least this share of the pulse's, in the same projection (`intensity_signal`), or it
# is not read: a spectrum's shares say nothing of its size, and the camera's noise alone has a peak. On the bench the
# baseline of every scan that reports rr holds at least 0.25 of the pulse (1,500 scans of every level, seeds
# 2017-2316), the generator's shallowest breathing about 0.33; the browser test's face, which does not breathe,
# 0.05-0.07, and its noise once peaked at 10.4/min with 64 % of the band.
MIN_BASELINE_TO_PULSE = 0.15
ADVISED_SECONDS = 60.0  # the scan length the hosted page asks for when rr is wanted
# What _rate answers when the series' strongest peak lies inside the Mayer wave's lobe: breathing slower than the
# scan can tell apart. When the baseline says so, the beat series' agreeing peaks above the lobe are not breathing
# (moderate 30 s seed 40054: 8.2/min read as 12.9 from amplitudes and intervals).
SLOWER = (0.0, 0.0)


def _mayer_floor(span: float) -> float:
    """Hz: the top of the Mayer wave's main lobe in a window of `span` s, or of the band if higher."""
    return max(BAND[0], MAYER + 2.0 / span)


def _rate(t: np.ndarray, values: np.ndarray, upper: float, clear: float = CLEAR_SHARE,
          lower: float | None = None) -> tuple[float, float] | None:
    """(breaths/min, share of the band's power at the peak) of a peak holding at least `clear` of it; SLOWER when the
    peak lies inside the Mayer wave's lobe in this span, or, when `lower` is given, under `lower` (Hz); else None.
    The share is of the band above the lobe, or above `lower` when the peak lies between the two: only then, since
    the wider band holds more of the slow power, which lowers the share of a peak above the lobe."""
    ok = np.isfinite(values)
    t, values = t[ok], values[ok]
    if len(t) < 6 or t[-1] - t[0] < MIN_SPAN:
        return None
    grid = np.arange(t[0], t[-1], 1 / FS)
    series = interpolate.PchipInterpolator(t, values)(grid)
    series = series - np.polyval(np.polyfit(grid, series, 1), grid)
    freqs, power = power_spectrum(series, FS)
    # The Mayer wave (about 0.1 Hz, in every beat series) spreads over its window's main lobe, 2/span Hz
    # either side: a breathing peak is looked for only above it.
    floor = _mayer_floor(t[-1] - t[0])
    band = (freqs >= BAND[0]) & (freqs <= upper)
    if not band.any() or power[band].sum() <= 0:
        return None
    inside = np.flatnonzero(band)
    index = int(inside[np.argmax(power[band])])
    if index in (inside[0], inside[-1]):
        return None  # the band's edge: slow drift leaking in
    if freqs[index] < floor and lower is not None:
        floor = lower
    if freqs[index] < floor:
        # A peak inside the Mayer wave's lobe: no breathing rate can be told apart there, and the next peak up
        # would be a guess.
        return SLOWER
    band &= freqs >= floor
    f = interpolated_peak(freqs, power, index)
    share = power[band & (np.abs(freqs - f) <= 0.03)].sum() / power[band].sum()
    if share < clear or (t[-1] - t[0]) * f < MIN_CYCLES:
        return None
    return 60.0 * f, float(share)


def respiratory_rate(beats: Beats, baseline: np.ndarray, fs: float, hr_hz: float,
                     beats_usable: bool = True) -> float | None:
    """rr in breaths/min, or None when the modulations do not agree on a clear rate. `baseline` is the
    continuous intensity modulation (RIIV) at rate fs (`intensity_signal`); `beats_usable`: the beat
    amplitudes and intervals are clean enough to count."""
    if len(beats.times) < 3 or not baseline.any():
        # No breathing in the colour baseline (`intensity_signal`: under MIN_BASELINE_TO_PULSE): the beat amplitudes and
        # intervals alone follow whatever else times the beats. In Chromium, a face that does not breathe, with a frame
        # or four lost about once a second, gave 16.7 and 16.6/min from the two, agreeing.
        return None
    upper = min(BAND[1], 0.45 * hr_hz)
    # One unbroken stretch between masked samples (no interpolation across motion); inside it, only the
    # accepted beats (an isolated artefact is bridged by the interpolation of the series).
    lo, hi = longest_run(beats.unmasked)
    accepted = beats.accepted[lo:hi]
    good = np.zeros(hi - lo + 1, bool)
    good[:-1] |= accepted
    good[1:] |= accepted
    t = beats.times[lo:hi + 1][good]
    if len(t) < 2:
        return None
    # RIIV is read from the continuous signal, not at the beats: a slow pulse cannot alias it.
    riiv = _rate(*_sampled(baseline, fs, t[0], t[-1]), BAND[1])
    candidates = [riiv]
    if beats_usable:
        candidates += [_rate(t, beats.values[lo:hi + 1][good], upper),
                       _rate(beats.times[lo + 1:hi + 1][accepted], beats.ibi[lo:hi][accepted], upper)]
    if riiv is SLOWER:  # the beat series' peaks above the run's lobe are not breathing; the whole scan's lobe is lower
        return whole_baseline(baseline, fs)
    clear = sorted(c[0] for c in candidates if c is not None and c is not SLOWER)
    if len(clear) >= 2 and clear[-1] - clear[0] <= AGREE:
        return float(np.mean(clear))
    # Clear modulations that disagree, or fewer than two: only a baseline clear beyond doubt is breathing.
    if riiv is not None and riiv[1] >= ALONE_SHARE:
        return riiv[0]
    whole = whole_baseline(baseline, fs)
    if whole is not None and riiv is not None and abs(whole - riiv[0]) > AGREE:
        # The run's baseline peaks clearly elsewhere: two readings of one baseline that disagree are no rate. On
        # much-masked hard scans the gaps chop the slow drift into steps whose power the whole scan's reading
        # takes for breathing of 9-10/min, where the run, between the gaps, holds the true 15-16/min.
        return None
    return whole


def whole_baseline(baseline: np.ndarray, fs: float, share: float = CLEAR_SHARE) -> float | None:
    """The baseline's rate over all motion-free samples (`baseline` is 0 at masked ones) when its peak holds `share` of
    the breathing band's power, each half of them clearly peaks within AGREE of it, and none of the three lies inside
    the Mayer wave's lobe; None otherwise. A half peaking inside its own lobe is read down to the whole scan's when
    SLOW_HALVES_KEPT of the scan is free of motion. It needs no beats: with each half at least MIN_SPAN long, it also
    reads a scan whose pulse gives no heart rate (`pipeline`, with ALONE_SHARE)."""
    kept = np.flatnonzero(baseline)
    if len(kept) < 2:
        return None
    t, values = _sampled(baseline, fs, kept[0] / fs, kept[-1] / fs)
    whole = _rate(t, values, BAND[1], share)
    if whole is None or whole is SLOWER:
        return None
    floor = _mayer_floor(t[-1] - t[0]) if len(kept) >= SLOW_HALVES_KEPT * len(baseline) else None
    middle = kept[len(kept) // 2]
    halves = [_rate(*_sampled(baseline, fs, lo / fs, hi / fs), BAND[1], lower=floor)
              for lo, hi in ((kept[0], middle), (middle, kept[-1]))]
    agree = all(half is not None and half is not SLOWER and abs(half[0] - whole[0]) <= AGREE for half in halves)
    return whole[0] if agree else None


def _sampled(baseline: np.ndarray, fs: float, start: float, end: float) -> tuple[np.ndarray, np.ndarray]:
    """(times, values) of the baseline (at rate fs) from start to end s, at FS."""
    grid = np.arange(start, end, 1 / FS)
    return grid, baseline[np.clip(np.round(grid * fs).astype(int), 0, len(baseline) - 1)]


def intensity_signal(rgb: np.ndarray, kept: np.ndarray, fs: float) -> np.ndarray:
    """The blood-volume (RIIV) component of the normalised colour at 0.1-0.6 Hz: the colour divided by its
    10 s moving mean, projected on the blood-volume signature with the intensity direction removed (light
    and distance change all channels alike), band-passed; masked samples are 0."""
    width = int(10 * fs)
    # Mirrored at the ends (the default edge copies one sample, a beat's peak or trough, 5 s over): see below.
    padded = np.pad(rgb, ((width // 2, width - 1 - width // 2), (0, 0)), mode="reflect")
    mean = np.column_stack([np.convolve(padded[:, c], np.ones(width) / width, mode="valid") for c in range(3)])
    normalised = rgb / np.clip(mean, 1e-9, None) - 1.0
    direction = PBV - PBV.mean()
    x = np.where(kept, normalised @ direction, 0.0)
    sos = signal.butter(2, (0.08, 0.6), btype="bandpass", fs=fs, output="sos")
    # Mirrored, 10 s of padding at each end: the default (odd extension, a few samples) continues the last beat's
    # slope past the trace's end into a spike, and the 0.08 Hz corner rings on it for about 15 s, as large as
    # breathing. On the browser test's face, which does not breathe, that transient (with the moving mean's edge
    # copies) was read as 9.1 breaths/min; mirrored, the baseline's ends are as flat as its middle.
    baseline = np.where(kept, signal.sosfiltfilt(sos, x, padtype="even", padlen=min(width, len(x) - 1)), 0.0)
    pulse = signal.sosfiltfilt(signal.butter(2, filters.BAND, btype="bandpass", fs=fs, output="sos"), x)[kept]
    if not kept.any() or _rms(baseline[kept]) < MIN_BASELINE_TO_PULSE * _rms(pulse):
        return np.zeros_like(baseline)  # no breathing to read: what is left is the camera's noise
    return baseline


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(x ** 2))) if len(x) else 0.0
