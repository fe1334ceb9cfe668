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

Prominence: the peak's power against the median power of the band outside the SNR template. In a spectrum of
noise alone a bin exceeds k times the median with probability 2**-k (exponential power), so a peak PROMINENT
times the median is no noise peak even among the band's hundred-odd bins; when both halves peak at the rate,
such a peak is confirmed without the beat-regularity test (`pipeline`), which the irregular wave of an
otherwise clear pulse fails. The threshold was chosen on seeds 5000+ (never the bench's 2017-3016): the lowest
that admitted no wrong rate on 500 moderate and 500 hard traces of 30 s and 300 of 60 s. It does not replace
the halves test: the sway and the coding of moderate and hard traces colour the noise, and the bench found
five wrong rates with a prominence of 14 to 20 that only one half showed.
"""

import dataclasses

import numpy as np

from . import filters

GRID = 0.005  # Hz
MIN_SNR = -10.0  # dB, chosen on the synthetic benchmark (bench/vital_scan_accuracy.py)
MIN_STABILITY = 0.6
DOMINANCE = 0.6  # a window agrees when its power near f0 reaches this share of its in-band maximum
MIN_KEPT = 0.6  # share of motion-free samples a stability window needs
MIN_WINDOWS = 3  # fewer motion-free windows than this: no stability, no heart rate
STABILITY_WINDOW, STABILITY_STEP, STABILITY_TOLERANCE = 10.0, 2.5, 0.1  # s, s, Hz
SNR_BAND = (0.5, 4.0)  # Hz, 30-240 bpm as in de Haan and Jeanne
HALF_WIDTH = 0.1  # Hz, template around the fundamental (twice that around the harmonic)
SUBHARMONIC_SHARE = 0.3  # a sub-harmonic peak this strong (relative to the strongest) may be the fundamental
AGREE = 0.06  # the autocorrelation's rate and the spectral rate agree within this share
HALF_AGREE = 0.05  # each half of the trace peaks within this share of the whole trace's rate
RIVAL_SHARE = 0.6  # a harmonic rival this strong makes the rate ambiguous
SUBHARMONIC_ACF = 0.1  # a sub-harmonic is the fundamental only if the wave repeats this much better there
PROMINENT = 14.0  # peak power over the band's median (outside the template): no noise peak
PROMINENCE_BAND = (0.7, 4.0)  # Hz
PROMINENCE_WIDTH = 0.03  # Hz: the peak's power is the highest bin within this of f0
RIVAL_GAP = 0.15  # Hz: a rival (`rival`) is this far from f0 and its harmonic and sub-harmonic
WELCH_WIDTH = 0.05  # Hz: the peak's power in the windows' mean spectrum is the highest bin within this of f0


@dataclasses.dataclass(frozen=True)
class Peak:
    hz: float
    snr_db: float
    stability: float  # 0 when a harmonic reading is about as strong (`ambiguous`)
    halves: int = 0  # how many halves of the trace peak at the rate (`halves_agree`): 0, 1 or 2
    prominence: float = 0.0  # the peak's power over the band's median (`prominence`)
    rival: float = 1.0  # the strongest power away from the rate and its harmonics over the peak's (`rival`)
    averaged_prominence: float = 0.0  # the same two in the stability windows' mean spectrum (`averaged`)
    averaged_rival: float = 1.0
    ambiguous: bool = False  # a harmonic reading is about as strong (`ambiguous`); the stability is then 0

    @property
    def trusted(self) -> bool:
        """SNR and stability pass; the rate still needs the halves test or a prominent peak (`confirmed`)."""
        return self.snr_db >= MIN_SNR and self.stability >= MIN_STABILITY

    @property
    def prominent(self) -> bool:
        return self.prominence >= PROMINENT

    @property
    def bpm(self) -> float:
        return self.hz * 60.0


def nfft(n: int, fs: float) -> int:
    """The FFT length of an n-sample periodogram: zero-padded to a GRID-spaced grid, never shorter than n."""
    return max(n, int(2 ** np.ceil(np.log2(fs / GRID))))


def power_spectrum(x: np.ndarray, fs: float) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, power) of the Hann-windowed, zero-padded periodogram."""
    size = nfft(len(x), fs)
    spectrum = np.fft.rfft((x - x.mean()) * np.hanning(len(x)), size)
    return np.fft.rfftfreq(size, 1.0 / fs), np.abs(spectrum) ** 2


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


@dataclasses.dataclass(frozen=True)
class Windows:
    """The spectra of the stability windows at least MIN_KEPT free of motion, computed once per trace."""
    freqs: np.ndarray
    power: np.ndarray  # (windows, bins)
    starts: list[int]
    length: int  # samples


def windows(pulse: np.ndarray, kept: np.ndarray, fs: float) -> Windows:
    length = int(min(STABILITY_WINDOW, max(6.0, len(pulse) / fs / 2)) * fs)
    starts = [start for start in range(0, len(pulse) - length + 1, int(STABILITY_STEP * fs))
              if kept[start:start + length].mean() >= MIN_KEPT]
    freqs = np.fft.rfftfreq(nfft(length, fs), 1.0 / fs)  # the grid of every window's spectrum, with none kept
    power = np.array([power_spectrum(pulse[start:start + length], fs)[1] for start in starts]).reshape(-1, len(freqs))
    return Windows(freqs, power, starts, length)


def stability(spectra: Windows, f0: float) -> float:
    """The share of windows in which f0 is (nearly) the strongest in-band peak; see the module's text."""
    band = (spectra.freqs >= filters.BAND[0]) & (spectra.freqs <= filters.BAND[1])
    near = band & (np.abs(spectra.freqs - f0) <= STABILITY_TOLERANCE)
    if len(spectra.starts) < MIN_WINDOWS or not near.any():
        return 0.0
    agree = spectra.power[:, near].max(axis=1) >= DOMINANCE * spectra.power[:, band].max(axis=1)
    agreeing = [start for start, ok in zip(spectra.starts, agree, strict=True) if ok]
    if not agreeing or agreeing[-1] - agreeing[0] < spectra.length:
        return 0.0
    return len(agreeing) / len(spectra.starts)


def averaged(spectra: Windows, f0: float) -> tuple[float, float]:
    """(prominence, rival) of f0 in the windows' mean spectrum (Welch's method): the highest power within
    WELCH_WIDTH of f0 over the band's median, and the strongest power farther than RIVAL_GAP from f0, 2 f0 and
    f0 / 2 over it. Averaging the windows shrinks the spread of the noise's power, so a pulse whose rate wanders
    with breathing stands out more than in the whole trace's periodogram; (0, 1) without MIN_WINDOWS windows."""
    freqs = spectra.freqs
    band = (freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1])
    near = band & (np.abs(freqs - f0) <= WELCH_WIDTH)
    if len(spectra.starts) < MIN_WINDOWS or not near.any():
        return 0.0, 1.0
    mean = spectra.power.mean(axis=0)
    peak, median = float(mean[near].max()), float(np.median(mean[band]))
    away = band & (np.abs(freqs - f0) > RIVAL_GAP) & (np.abs(freqs - 2 * f0) > RIVAL_GAP) \
        & (np.abs(freqs - f0 / 2) > RIVAL_GAP)
    if peak <= 0 or median <= 0:
        return 0.0, 1.0
    return peak / median, (float(mean[away].max()) / peak if away.any() else 1.0)


def _band_power(freqs: np.ndarray, power: np.ndarray, f: float, width: float = HALF_WIDTH / 2) -> float:
    return float(power[np.abs(freqs - f) <= width].sum())


def _is_local_peak(freqs: np.ndarray, power: np.ndarray, f: float) -> bool:
    """f is within a bin or two of a local maximum of the spectrum."""
    near = np.flatnonzero(np.abs(freqs - f) <= HALF_WIDTH / 2)
    if not near.size:
        return False
    i = int(near[np.argmax(power[near])])
    return 0 < i < len(power) - 1 and power[i] >= power[i - 1] and power[i] >= power[i + 1]


def fundamental(freqs: np.ndarray, power: np.ndarray, f: float, acf: np.ndarray, fs: float) -> float:
    """The fundamental of which the strongest peak f may be a harmonic: f/2 or f/3 when that frequency is in
    the band, is a peak of its own carrying at least SUBHARMONIC_SHARE of f's power, and the autocorrelation
    (the waveform's own period) does not contradict it. A pronounced dicrotic wave makes the second
    harmonic the strongest (a 60 bpm pulse read as 120 or 180); the autocorrelation repeats at the whole
    period, not at the dicrotic half."""
    best = f
    for divisor in (2, 3):
        sub = f / divisor
        if sub < filters.BAND[0] or not _is_local_peak(freqs, power, sub):
            continue
        if _band_power(freqs, power, sub) < SUBHARMONIC_SHARE * _band_power(freqs, power, f):
            continue
        if acf_at(acf, fs, sub) < acf_at(acf, fs, f) + SUBHARMONIC_ACF:
            continue  # the wave repeats at f's period already: f is the fundamental
        best = sub
    return best


def autocorrelation(pulse: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The normalised autocorrelation of the band-passed pulse over its kept samples (each lag divided by
    the number of kept pairs it holds, so masked motion does not shrink it)."""
    x = np.where(kept, pulse, 0.0)
    m = kept.astype(float)
    n = len(x)
    size = int(2 ** np.ceil(np.log2(2 * n)))
    acf = np.fft.irfft(np.abs(np.fft.rfft(x, size)) ** 2, size)[:n]
    pairs = np.fft.irfft(np.abs(np.fft.rfft(m, size)) ** 2, size)[:n]
    if acf[0] <= 0:
        return np.zeros(n)
    per_pair = np.divide(acf, pairs, out=np.zeros(n), where=pairs > 0.25 * n)
    return per_pair / per_pair[0]


def acf_at(acf: np.ndarray, fs: float, hz: float) -> float:
    """The highest autocorrelation within AGREE of the period 1/hz (0 beyond the trace)."""
    lo, hi = int(np.floor(fs / (hz * (1 + AGREE)))), int(np.ceil(fs / (hz * (1 - AGREE))))
    if lo >= len(acf):
        return 0.0
    return float(acf[lo:min(hi + 1, len(acf))].max())


def heart_rate(pulse: np.ndarray, kept: np.ndarray, fs: float) -> Peak:
    """The spectral heart-rate peak of the (detrended, not yet band-passed) pulse wave and its SNR.

    The strongest in-band peak is checked against its sub-harmonics (`fundamental`), and the autocorrelation
    of the band-passed wave must agree with the result within AGREE (else the stability is 0: no hr)."""
    return candidates(pulse, kept, fs)[0]


def candidates(pulse: np.ndarray, kept: np.ndarray, fs: float) -> list[Peak]:
    """The heart-rate peak (`heart_rate`) first, then the strongest in-band peak itself when `fundamental`
    moved to its sub-harmonic: at most two, so the work per trace stays bounded. Noise near the half rate
    moves a fast pulse (120-180 bpm) to its half about one scan in twenty under motion (seeds 10000+), so
    the second reading gets its own chance (`pipeline`); never both."""
    freqs, power = power_spectrum(pulse, fs)
    in_band = (freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1])
    inside = np.flatnonzero(in_band)
    index = int(inside[np.argmax(power[inside])])
    f_peak = interpolated_peak(freqs, power, index)
    acf = autocorrelation(filters.bandpass(pulse, fs), kept)
    f0 = fundamental(freqs, power, f_peak, acf, fs)
    spectra = windows(pulse, kept, fs)
    if f0 == f_peak:
        return [_peak(pulse, kept, fs, freqs, power, spectra, f0)]
    near = np.flatnonzero(np.abs(freqs - f0) <= HALF_WIDTH / 2)
    f0 = interpolated_peak(freqs, power, int(near[np.argmax(power[near])]))
    return [_peak(pulse, kept, fs, freqs, power, spectra, f0), _peak(pulse, kept, fs, freqs, power, spectra, f_peak)]


def _peak(pulse: np.ndarray, kept: np.ndarray, fs: float, freqs: np.ndarray, power: np.ndarray, spectra: Windows,
          f0: float) -> Peak:
    averaged_prominence, averaged_rival = averaged(spectra, f0)
    harmonic = ambiguous(freqs, power, f0)
    return Peak(hz=f0, snr_db=snr_db(freqs, power, f0, fs), stability=0.0 if harmonic else stability(spectra, f0),
                halves=halves_agree(pulse, kept, fs, f0), prominence=prominence(freqs, power, f0),
                rival=rival(freqs, power, f0), averaged_prominence=averaged_prominence,
                averaged_rival=averaged_rival, ambiguous=harmonic)


def prominence(freqs: np.ndarray, power: np.ndarray, f0: float) -> float:
    """The highest power within PROMINENCE_WIDTH of f0 over the median power of PROMINENCE_BAND outside the
    SNR template (the fundamental and its harmonic)."""
    band = (freqs >= PROMINENCE_BAND[0]) & (freqs <= PROMINENCE_BAND[1])
    template = (np.abs(freqs - f0) <= HALF_WIDTH) | (np.abs(freqs - 2 * f0) <= 2 * HALF_WIDTH)
    near = np.abs(freqs - f0) <= PROMINENCE_WIDTH
    noise = power[band & ~template]
    if not near.any() or not noise.size or np.median(noise) <= 0:
        return 0.0
    return float(power[near].max() / np.median(noise))


def share_at(freqs: np.ndarray, power: np.ndarray, f: float, f0: float, width: float = WELCH_WIDTH) -> float:
    """The highest power within `width` of f over the highest within `width` of f0 (0 when f0 has none)."""
    at, of = np.abs(freqs - f) <= width, np.abs(freqs - f0) <= width
    if not at.any() or not of.any() or power[of].max() <= 0:
        return 0.0
    return float(power[at].max() / power[of].max())


def rival(freqs: np.ndarray, power: np.ndarray, f0: float, gap: float = RIVAL_GAP) -> float:
    """The strongest power in the pulse band farther than `gap` from f0, 2 f0 and f0 / 2, over the peak's
    (the highest bin within PROMINENCE_WIDTH of f0). Noise has a rival of about its own size (the two largest
    of a hundred-odd noise bins are close); a pulse stands above everything in the band but its harmonics."""
    band = (freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1])
    away = band & (np.abs(freqs - f0) > gap) & (np.abs(freqs - 2 * f0) > gap) & (np.abs(freqs - f0 / 2) > gap)
    near = np.abs(freqs - f0) <= PROMINENCE_WIDTH
    if not away.any() or not near.any() or power[near].max() <= 0:
        return 1.0
    return float(power[away].max() / power[near].max())


def halves(kept: np.ndarray, fs: float) -> tuple[slice, ...]:
    """The two halves of a trace, split at its middle kept sample; none when under 6 s of it would be kept in each."""
    index = np.flatnonzero(kept)
    if len(index) < 2 * 6 * fs:
        return ()
    middle = int(index[len(index) // 2])
    return slice(None, middle), slice(middle, None)


def halves_agree(pulse: np.ndarray, kept: np.ndarray, fs: float, f0: float) -> int:
    """How many halves of the kept pulse (0, 1 or 2) have their own strongest in-band peak within HALF_AGREE
    of f0: a rate that only the whole trace shows (a motion burst's leakage, a noise peak summed over both
    halves) is not one."""
    agreeing = 0
    for half in halves(kept, fs):
        freqs, power = power_spectrum(np.where(kept[half], pulse[half], 0.0), fs)
        band = np.flatnonzero((freqs >= filters.BAND[0]) & (freqs <= filters.BAND[1]))
        peak = freqs[band[np.argmax(power[band])]]
        agreeing += int(abs(peak - f0) <= HALF_AGREE * f0)
    return agreeing


def ambiguous(freqs: np.ndarray, power: np.ndarray, f0: float) -> bool:
    """Another harmonic reading is about as strong: a peak at f0/2, f0/3, 2 f0 or 3 f0 (in the band)
    carrying at least RIVAL_SHARE of f0's power. Then the rate is not reported rather than guessed."""
    own = _band_power(freqs, power, f0)
    for other in (f0 / 2, f0 / 3, 2 * f0, 1.5 * f0, 2 * f0 / 3):
        if filters.BAND[0] <= other <= filters.BAND[1] and _is_local_peak(freqs, power, other) \
                and _band_power(freqs, power, other) >= RIVAL_SHARE * own:
            return True
    return False
