"""The measurement: trace -> uniform colour -> POS pulse -> spectral hr (gated) -> beats -> hrv, si, rr.

Only the measurement path imports this module (numpy and scipy load here). Each metric has its own gate and
is omitted rather than guessed (2.12):

- hr: the spectral peak (checked against its sub-harmonics) must pass the SNR, stability and
  harmonic-ambiguity gates of `spectrum`, the colour change at that rate must point along the blood-volume
  signature (`pos.signature`), the beats found on the wave must keep that rate (BEAT_RATE_GAP) and both
  halves of the trace must peak at it. A weak peak also needs regular beats (WEAK_SNR, WEAK_BEATS), unless it
  stands far above the noise (`spectrum.PROMINENT`) and the beats keep its rate closely (PROMINENT_GAP):
  masked motion and noise make the beats of many a clear pulse irregular. On a much-masked trace the peak
  must also stand well above any rival (MASKED_KEPT) and keep half its beats (MASKED_BEATS_KEPT); no rival may
  be nearly as strong (MAX_RIVAL); a rate at the band's low edge needs half its beats (LOW_RATE_BPM).
  A peak these rules refuse may still pass on its evidence score (SCORE): a right peak that one half misses,
  or whose beats are irregular, is mostly clear on the other measures. The score is tried on the spectral peak
  and, when the sub-harmonic check moved the rate to half or a third of it and neither half of the trace peaks
  there, on the strongest peak itself (`spectrum.candidates`); exactly one of them must pass, or hr is omitted.
  Where no POS peak passes, the PBV pulse (`pos.pbv`) may give the rate: read with the same gates and confirmed by
  POS's strongest peak (`_second_opinion`), or where both pulses' strongest peaks agree beyond doubt (`_agreed`).
  A weak POS reading must show in the PBV pulse too (`_pbv_shows`): no stronger PBV peak elsewhere. Where neither
  pulse wave gives a rate, the beamformer (`beamform`, `_beamformed`) may: the colour projected on the blood-volume
  signature frequency by frequency, its peak far above the band's median, shown in the POS pulse and in both halves
  (and under 90 bpm, where sway is, clear of rivals in the PBV pulse too). On a scan under SHORT_SECONDS any path's
  rate must also stand clear in the POS pulse's windows' mean spectrum (SHORT_PROMINENCE).
- rr: at least two respiratory modulations clear and all clear ones agreeing, or the colour baseline's alone
  when beyond doubt (`respiration`); the beat amplitudes and intervals count only from a clean wave
  (BEAT_MIN_SNR). A scan with no heart rate may still give rr, from the baseline over the whole scan clear
  beyond doubt and confirmed by each half (`_breathing_alone`); its quality keeps the reason hr was omitted, so
  the service still offers a retry.
- hrv, hrv_indices, si: beats timed precisely (MAX_TIMING_NOISE, from the spread of the upstroke-to-peak
  delay) and the variability the same from peaks and from upstrokes (HRV_AGREEMENT).

`assess` also returns the internal quality (the gates' measures and, for an omitted metric, why), which the
service stores with the measurement and the hosted page turns into "try again" advice; it is never a metric.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from . import beamform, filters, hrv, pos, respiration, spectrum
from . import beats as beats_mod

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
# A trace with under MASKED_KEPT of it free of motion has short halves whose noise peaks agree by chance: its
# peak must stand well above any rival. Five wrong rates on hard 30 s seeds 17000+ had a rival of 0.6-0.77 with
# 54-74 % kept; of the 7,300 rates the rule gates passed on seeds 10000-16999, 11 right ones were in that corner.
MASKED_KEPT, MASKED_MAX_RIVAL = 0.75, 0.55
# Under MASKED_BEATS_KEPT kept, half the beats must also pass the artefact rules: three wrong rates on hard 30 s
# scans (seeds 11621, 40798, 50331: 61-68 % kept, 43-46 % of beats accepted) passed every other rule; in 8,000
# fresh scans (seeds 50000+) the rule costs 11 right rates, all but one on hard 30 s scans.
MASKED_BEATS_KEPT, MASKED_MIN_BEATS = 0.7, 0.5
# A peak whose rival in the windows' mean spectrum (`spectrum.averaged`) is over AVERAGED_RIVAL needs
# AVERAGED_RIVAL_BEATS of its beats accepted, and half (MASKED_MIN_BEATS) under MASKED_RIVAL_KEPT kept. Three wrong
# rates on fresh dark-skin scans passed every other rule: moderate 30 s seed 80527 (177.9 -> 165.2) and hard 60 s
# seed 80060 (74.9 -> 118.2), 75-78 % kept, rivals 0.56-0.62, 40-46 % of beats accepted; moderate 60 s seed 91766
# (166.6 -> 186.5), 88 % kept, rival 0.61, 28 % of beats accepted. On 48,000 moderate and hard scans (seeds
# 10000-12999, 70000-72999, 80000-82999, 90000-92999) the two rules cost 63 right rates (0.13 %).
AVERAGED_RIVAL, AVERAGED_RIVAL_BEATS, MASKED_RIVAL_KEPT = 0.5, 0.3, 0.8
# Slow noise (drift, the coder's rounding, sway) is strongest at the band's low edge: a rate under LOW_RATE_BPM
# needs half its beats accepted. Hard 60 s seed 11034 read 155.7 bpm as 54.5 from such a peak (45 times the
# band's median, 46 % of beats accepted); the rule costs 26 of 2,700 right rates on seeds 50000+ (1 %).
LOW_RATE_BPM, LOW_RATE_MIN_BEATS = 55.0, 0.5
# Two peaks of nearly equal power are two readings, not one: moderate 30 s seed 51881 read 158.0 as 147.8 with a
# rival of 0.96. 17 of 2,700 right rates on seeds 50000+ have a rival above MAX_RIVAL.
MAX_RIVAL = 0.9
MAX_TIMING_NOISE = 6.0  # ms of beat-timing noise beyond which SDNN and RMSSD are not reported
# The evidence score (`_score`): a logistic regression of "the peak is within 10 bpm of the truth" on the gates'
# own measures and the peak's prominence and rival in the stability windows' mean spectrum (`spectrum.averaged`),
# fitted on the peaks the rule gates refuse in 12,000 moderate and hard scans of 30 and 60 s (seeds 10000-12999,
# never the bench's), wrong peaks weighted 5 to 1, every coefficient held to its sensible sign (the beat-rate gap
# and the mean spectrum's prominence fitted to 0 and are left out). Only peaks past the floors count: SNR
# (`spectrum.MIN_SNR`), no harmonic reading as strong (`Peak.ambiguous`: moderate 60 s seed 112138 read 57.8 as its
# harmonic 115.9 with a score of 9.9 without it), signature, beats within BEAT_RATE_GAP, at least one half, the peak
# at least 2.2 times any rival (SCORE_MAX_RIVAL), SCORE_MIN_KEPT of the trace free of motion, the low-rate rule and a
# rate up to SCORE_MAX_BPM.
SCORE = {"log_prominence": 3.135, "log_rival": -1.208, "both_halves": 0.455, "stability": 0.427,
         "signature": 49.089, "beats_accepted": 7.3, "log_averaged_rival": -4.539}
SCORE_INTERCEPT = -61.703
# Floor: the peak at least 2.2 times any rival in the band (`spectrum.rival`). 0.5 let a half rate through on a
# fresh hard 60 s scan (seed 30267: 145.5 -> 71.3, rival 0.49); 0.9 let a white light flickering at 1.3 Hz
# through (`test_white_flicker_inside_the_pulse_band_is_not_a_heart_rate`, rival 0.59), whose colour change is
# mostly intensity, has a cosine of 0.95 with the blood-volume signature (`pos.signature` passes it).
SCORE_MAX_RIVAL = 0.45
SCORE_MIN_KEPT = 0.8  # floor: share of the trace free of motion
# Ceiling: the score was fitted on pulses of 45-180 bpm, so above that it has only ever seen harmonics. Fresh moderate
# 30 s seed 161957 read 104.8 as its harmonic 209.9 on the strongest peak (score 5.4, 32 % of beats accepted).
SCORE_MAX_BPM = 180.0
# The threshold: the highest wrong peak on the fitting seeds scored 2.954 (hard 30 s seed 12544), and on 12,000
# fresh scans one whose stability falls short (hard 60 s seed 101498: 138.3 -> 85.3, stability 0.52) 3.464.
SCORE_THRESHOLD = 3.5
# The second opinion (`_second_opinion`): where no peak of the POS pulse passes, the PBV pulse (`pos.pbv`) is read
# with the same gates, and its rate counts only if POS's own strongest peak is within SECOND_OPINION_AGREE of it,
# with a rival under AVERAGED_RIVAL in the windows' mean spectrum, at LOW_RATE_BPM or above, on a trace at least
# MASKED_KEPT free of motion. PBV keeps part of the intensity, so its own gates let through light steps and sway: on
# 12,000 moderate and hard scans (seeds 10000-12999) 15 of the 586 rates they passed were wrong, all at 43-101 bpm,
# and the second opinion keeps 166, none wrong; on 20,000 fresh ones (seeds 150000-154999) 20 of 926 were wrong
# (44-112 bpm), and it keeps 252, none wrong. Without the floor on motion hard 30 s seed 18139 (61 % kept) read 79.2
# as 94.2, POS's strongest peak agreeing.
SECOND_OPINION_AGREE = 0.05
# Two pulses agree (`_agreed`): where the second opinion's gates refuse the PBV pulse too (its beats are as noisy as
# POS's on dark skin), PBV's strongest peak gives the rate if it is its own fundamental and not ambiguous, points along
# the blood-volume signature, is at LOW_RATE_BPM or above, both halves of the PBV pulse and at least one of the POS
# pulse peak there, POS's strongest peak is within AGREED_TOLERANCE of it and is prominent there (`spectrum.PROMINENT`),
# no rival reaches AGREED_MAX_RIVAL of it in the whole trace's spectrum nor AGREED_MAX_AVERAGED_RIVAL in the windows'
# mean, and both pulses are at least MASKED_KEPT free of motion. The two pulses share the camera's noise only in part
# (PBV keeps part of the intensity, POS none), so a noise peak rarely tops both; sway and light steps at the band's low
# edge do, which the mean spectrum's rival, POS's prominence and the low-rate floor stop: without them 8 of 633 rates on
# 20,000 fresh scans (seeds 600000-604999) were wrong (tests/vital_scan/test_rppg_failures.py, AGREED_WRONG). The
# floors were chosen on those and 22,000 more scans (seeds 500000-505999); on 20,000 fresh ones (seeds 800000-804999)
# the rule read 267 rates, none wrong: 1.8 / 2.3 % more moderate / hard 60 s scans and 1.2 % of moderate 30 s ones.
AGREED_TOLERANCE, AGREED_MAX_RIVAL, AGREED_MAX_AVERAGED_RIVAL = 0.02, 0.6, 0.7
# The PBV pulse must show a POS reading under PBV_SHOWS_BELOW_SNR (`_pbv_shows`): no peak of it farther than
# PBV_SHOWS_GAP from the rate, its double and its half may be stronger than the rate's. A pulse shows in both
# projections, and PBV carries more of it where the camera's noise hides it; a peak of POS's noise, or a side peak of
# a fast pulse whose rate breathing moves (about a breathing rate, or half of one, away), often does not. On 30,000
# fresh scans (seeds 910000-911999: moderate and hard 30 and 60 s; 920000-924999: the same and 2,000 clean 30 s) the
# POS gates read 7 rates more than 10 bpm off, all under 0 dB; the check refuses 3 (hard 60 s 910034, clean 30 s
# 920187, moderate 30 s 921769) and 42 within 10 bpm, 20 of those 3-10 bpm off (of the readings it keeps, 0.5 % are).
# It also refuses 4 of the 15 wrong rates found before on 150,000 scans (tests/vital_scan/test_rppg_failures.py,
# PBV_UNSHOWN). On 24,000 further fresh scans (seeds 930000-934999, run after the check was set) it refused none of
# the 3 wrong rates (PBV rivals 0.65-0.74) and 35 within 10 bpm, 16 of them 3-10 bpm off (0.3 % of the kept). A clear
# pulse needs no second view: PBV keeps the intensity, and the browser's still face, its frames lost about once a
# second, has a PBV peak at 109 bpm 0.97 times its 72 bpm rate (POS: 31 dB). A gap of 0.03 Hz counted the skirt of
# that face's strong second harmonic as a rival. Asking one half of PBV to peak at the rate too refused 4 more of the
# earlier wrong rates, no fresh one, and 55 more right ones.
PBV_SHOWS_BELOW_SNR = 0.0  # dB
PBV_SHOWS_GAP, PBV_SHOWS_MAX_RIVAL = 0.05, 1.0  # Hz, power over the rate's
# The beamformer (`_beamformed`, `beamform`): where neither pulse wave gives a rate, the strongest peak of the colour
# projected on the blood-volume signature frequency by frequency counts if it stands BEAMFORMED_PROMINENT times the
# band's median, its rival is at most BEAMFORMED_MAX_RIVAL, the POS pulse shows it (prominence
# BEAMFORMED_POS_PROMINENCE: a white light flickering in the band lies along the intensity, which POS removes), the POS
# pulse's peak at its half or third is under BEAMFORMED_SUBHARMONIC_SHARE of that, the rate is within BEAMFORMED_BPM
# and both halves peak there; one half is enough for a peak BEAMFORMED_ONE_HALF times the median, and a trace under
# MASKED_KEPT free of motion needs BEAMFORMED_MASKED_PROMINENT and both halves. The beamformer removes sway where there
# is sway, at the low end of the band: it keeps a slow pulse's harmonic better than the pulse itself. On 8,000 fresh
# moderate and hard scans (seeds 970000-971999) it peaked at twice or three times 12 slow pulses (58-87 bpm) that POS
# shows at the rate, the POS peak there 0.8-3.8 times its height at the beamformer's; on 6,000 more (seeds
# 980000-981499) a 0.7 share let one through (moderate 60 s seed 980399: 75.5 read as 150.9, 0.68), and a prominence
# of 17 a sway peak at 66.3 bpm (hard 60 s seed 980860, truth 55.5: 17.3). Under 90 bpm, inside the sway's band, it
# had little edge on the PBV pulse on 30 and 60 s scans with these floors alone: 13 of its 220 right readings there,
# and a third of a fast pulse (hard 30 s seed 971088: 175.2 read as 55.3); slower rates have floors of their own
# (BEAMFORMED_SLOW_*). Set on those scans and 7,000 more (seeds 990000+), the two-halves rule read 809 rates on 28,000
# fresh scans of every level (seeds 1000000-1002999 and 1010000-1012999), none more than 6.5 bpm off. On those (seeds
# 1010000+) a peak 30 times the median was right with one half on all 108 it added; on 14,000 more
# (seeds 1020000-1022999) one half-masked hard 30 s scan was read wrong (seed 1020546: 59.3 as 158.0, 72 % kept,
# prominence 25.2, both halves): the halves of a much-masked trace are short, and their noise peaks agree by chance.
# The wrong peaks are tests (tests/vital_scan/test_rppg_beamform.py, BEAMFORMED_WRONG).
BEAMFORMED_PROMINENT, BEAMFORMED_MAX_RIVAL, BEAMFORMED_POS_PROMINENCE = 20.0, 0.7, 5.0
BEAMFORMED_SUBHARMONIC_SHARE = 0.5
BEAMFORMED_ONE_HALF, BEAMFORMED_MASKED_PROMINENT = 30.0, 30.0
BEAMFORMED_BPM = (90.0, SCORE_MAX_BPM)
# A slower peak (under BEAMFORMED_BPM) needs a rival under BEAMFORMED_SLOW_MAX_RIVAL and the PBV pulse clear of rivals
# there (`_pbv_clear`): in the whole trace's spectrum no peak away from the rate (PBV_SHOWS_GAP) over
# BEAMFORMED_SLOW_PBV_RIVAL of the rate's, in the windows' mean none over AGREED_MAX_AVERAGED_RIVAL. At the band's low
# edge the neighbours whose covariance is the noise reach below the band, where the band-pass has taken most of the
# noise, so the statistic runs high there and sway peaks stand out. On 16,000 fresh moderate and hard 60 and 120 s
# scans (seeds 1110000-1113999) 649 slow peaks passed the other gates, 9 of them more than 10 bpm off (sway at 51-76
# bpm, under fast pulses and over a slow one: rivals 0.32-0.68, PBV rivals 0.36-1.7); the two rivals' floors keep 299
# of the 640 right ones. On 26,000 further fresh scans (seeds 1120000+: moderate and hard 30, 60 and 120 s, clean 60 s)
# they read 350 slow rates, none wrong. The windows' mean is the agreed pulses' floor (`_agreed`) against the same
# hazard, sway both pulses keep alike: hard 60 s seed 601964 (AGREED_WRONG: 70.9) peaks at 55.6 in all three views,
# rival 0.14 and PBV rival 0.26, its PBV windows' mean rival 0.74. That floor refuses 26 of the 350. With all three,
# 16,000 scans never used before (seeds 1130000-1133999, moderate and hard 60 and 120 s) gave 263 slow rates, none
# wrong: 1.9 / 2.4 % more moderate / hard 2-minute scans and 1.1 / 1.2 % more 1-minute ones. No noise-only scan is
# read (1,800 of 30, 60 and 120 s), though 44 peak 20 times the median under 90 bpm.
BEAMFORMED_SLOW_MAX_RIVAL, BEAMFORMED_SLOW_PBV_RIVAL = 0.3, 0.5
# A peak whose half the PBV pulse holds more power than the peak itself (BEAMFORMED_PBV_HALF) is twice a slow pulse,
# not a pulse: the beamformer dims a slow pulse inside the sway's band and keeps its harmonic, which PBV, taking no
# noise out, does not. Twice a slow pulse on dark skin passed every other gate on moderate 30, 60, 120 and 175 s scans
# (1120988, 1122953, 1143801 and the bench's 2830: PBV's power at the half 1.35-2.08 times that at the peak). Of 417
# right beamformer readings at 90 bpm or more on fresh scans (seeds 1190000+: moderate and hard 120 and 175 s) the
# floor refuses 2 (1.19 and 1.31: sway at half a fast pulse); on 6,000 scans never used before (seeds
# 1200000-1201499, moderate and hard 120 and 175 s) 8 right hard ones (1.13-1.58, a fifth to a third of a percent of
# those scans: the PBV pulse's half rate is sway's band) and no moderate one. No cleaner line was found: the harmonics
# reach down to 1.35. A wrong rate is worse than none (issue 27), so the floor is where the PBV pulse says "half".
BEAMFORMED_PBV_HALF = 1.0
# The strongest peak is not tried back where the rate the sub-harmonic check moved to is the pulse and it its harmonic
# (`_its_harmonic`): that rate clear of rivals, HARMONIC_RIVAL, and the detrended wave (not band-passed: its own
# autocorrelation, unlike `spectrum.fundamental`'s) repeating at least HARMONIC_ACF better at its period. The wrong rates
# the strongest peak gave outside the bench were twice a slow pulse (51-74 bpm read as 103-148), 5 of its 125 readings
# on fresh scans (seeds 1210000+ and 1260000+, with moderate 30 s 602240 and 1113955), their rates' rivals 0.43-0.89
# and the wave 0.043-0.076 more alike at their periods; on 60,000 never used before (seeds 1300000+) 3 of 233: two
# doubled pulses (moderate 30 s 1300814, 65.2 read as 129.1, 0.063; hard 60 s 1309172, 58.9 as 118.1, 0.019) and a
# noise peak (hard 30 s 1315423, 149.0 as 107.9, 0.036). Set on both, the floors refuse all 8 and 34 of the 350 right
# readings (fast pulses whose half is noise): a tenth of that path, which reads 0.3-1 % of the rates.
HARMONIC_RIVAL, HARMONIC_ACF = 0.9, 0.015
# A scan under SHORT_SECONDS (the page's first 30 s) has nine stability windows, too few for their mean spectrum to
# hold noise and sway down: its rate, whichever path read it, must stand SHORT_PROMINENCE times the band's median in the
# POS pulse's windows' mean spectrum (`_unclear_in_short`; the page then scans on, as for a weak pulse). On the first 30 s
# of 43,000 fresh 175 s traces (hard seeds 1210000-1219999 and 1260000-1279999, moderate 1260000-1269999, clean
# 1260000-1262999) and the bench's, the 33 rates more than 10 bpm off, by every path, stood at most 5.49 times; at 6 the
# floor refuses 73 % of the right hard rates, 18 % of the moderate and 5 % of the clean (about 2 % of clean and 8 % of
# moderate 30 s rates that came with rr, which complete a page's scan at once). Set before it was run on 30,000 more
# (hard seeds 1400000-1419999, moderate 1400000-1409999): it refuses 22 of the 24 wrong rates; the two it passes are twice
# a slow pulse at 6.05 and 6.13 (tests/vital_scan/test_rppg_failures.py PAGE_KNOWN_WRONG). The page's own scan of the
# bench's traces keeps its reach (hr on 94 % of moderate and 53 % of hard scans), under a second longer on average.
SHORT_SECONDS, SHORT_PROMINENCE = 45.0, 6.0
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
    motion_free = valid & ~pos.colour_motion(uniform, fs)
    raw, kept = pos.pos(uniform, fs, motion_free)
    q["kept"] = round(float(kept.mean()), 3)
    if kept.sum() < MIN_SECONDS * fs:  # moved, or (motion-free yet nothing kept) a colour that never changes
        return None, {**q, "reason": "motion" if motion_free.sum() < MIN_SECONDS * fs else "weak"}
    read, peaks = _read(uniform, raw, kept, fs, q)
    if read is not None and ((read[0].snr_db < PBV_SHOWS_BELOW_SNR
                              and not _pbv_shows(pos.pbv(uniform, fs, motion_free), read[0].hz, fs, q))
                             or _unclear_in_short(q, lambda: read[0].averaged_prominence)):
        q.pop("reading", None)  # the refused reading's path: no hr was read
        return _breathing_alone(uniform, kept, fs), {**q, "reason": _why_not(q)}
    if read is None:
        breathing = _breathing_alone(uniform, kept, fs)
        pbv_pulse = pos.pbv(uniform, fs, motion_free)
        second = _second_opinion(uniform, pbv_pulse, fs, q, peaks, (raw, kept))
        hz = second.hz if second is not None else _beamformed(uniform, raw, kept, pbv_pulse, fs, q)
        if hz is None or _unclear_in_short(q, lambda: _averaged_prominence(raw, kept, fs, hz)):
            q.pop("reading", None)
            return breathing, {**q, "reason": _why_not(q)}
        # The PBV pulse keeps part of the intensity, so its beats time neither breathing nor variability, and the
        # beamformer's rate comes without beats: either gives the heart rate alone (on 32,000 scans the PBV beats' rr
        # was once 5/min off where the baseline's is not).
        return _omitted({"hr": round(hz * 60.0, 1), **(breathing or {})}, q)
    peak, pulse, found, kept = read
    ibi = found.accepted_ibi
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
    return _omitted(metrics, q)


def _omitted(metrics: dict[str, Any], q: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metrics, quality with why rr and hrv are left out: a longer scan would help, or the trace's quality)."""
    if "rr" not in metrics:
        q["rr_omitted"] = "short" if q["seconds"] < respiration.ADVISED_SECONDS else "quality"
    if "hrv" not in metrics:
        q["hrv_omitted"] = "short" if q["seconds"] < hrv.ADVISED_SECONDS else "quality"
    return metrics, q


Reading = tuple[spectrum.Peak, np.ndarray, beats_mod.Beats, np.ndarray]  # the peak, its pulse, its beats, kept


def _read(uniform: np.ndarray, raw: np.ndarray, kept: np.ndarray, fs: float,
          q: dict[str, Any]) -> tuple[Reading | None, list[spectrum.Peak]]:
    """(the heart rate's reading of the pulse `raw` if a peak passes the gates, else None; its candidate peaks, the
    strongest last), with the gates' measures put in `q`."""
    raw = _wave(raw, kept)
    peaks = spectrum.candidates(raw, kept, fs)
    peak = peaks[0]
    q.update(snr_db=round(float(peak.snr_db), 2), stability=round(float(peak.stability), 2),
             halves=peak.halves, prominence=round(float(peak.prominence), 1), rival=round(float(peak.rival), 3),
             averaged_prominence=round(float(peak.averaged_prominence), 1),
             averaged_rival=round(float(peak.averaged_rival), 3))
    # Each candidate's own evidence: the colour change at the rate must be the blood's (not light or shine),
    # and the beats found on the wave must keep that rate, two checks independent of the spectrum's own.
    evidence = [_evidence(uniform, raw, kept, fs, p) for p in peaks]
    q.update(evidence[0][0])
    score = _score(peak, q)
    q["score"] = round(score, 2) if np.isfinite(score) else None
    if peak.trusted and _passes(peak, q):
        chosen = 0
    else:
        # The strongest peak is tried back only when neither half of the trace peaks at the rate the sub-harmonic
        # check moved to: a slow pulse with a strong harmonic keeps its own rate in a half (moderate 30 s seed
        # 41314: 47.3 bpm read as 94.7), a fast pulse with noise near its half rate does not.
        tried = peaks if peak.halves == 0 and not _its_harmonic(peaks, raw, kept, fs) else peaks[:1]
        passing = [k for k, p in enumerate(tried) if _supported(p, {**q, **evidence[k][0]})]
        if len(passing) != 1:  # none, or two readings a harmonic apart: not guessed
            return None, peaks
        chosen = passing[0]
        q["reading"] = "score" if chosen == 0 else "strongest"
    _, pulse, found = evidence[chosen]
    return (peaks[chosen], pulse, found, kept), peaks


def _its_harmonic(peaks: list[spectrum.Peak], wave: np.ndarray, kept: np.ndarray, fs: float) -> bool:
    """The strongest peak is the harmonic of the rate the sub-harmonic check moved to, not a fast pulse: that rate
    stands clear of rivals (HARMONIC_RIVAL) and the wave repeats better at its period (HARMONIC_ACF)."""
    if len(peaks) < 2 or peaks[0].rival > HARMONIC_RIVAL:
        return False
    acf = spectrum.autocorrelation(wave, kept)
    return spectrum.acf_at(acf, fs, peaks[0].hz) - spectrum.acf_at(acf, fs, peaks[-1].hz) >= HARMONIC_ACF


def _unclear_in_short(q: dict[str, Any], prominence: Callable[[], float]) -> bool:
    """On a scan under SHORT_SECONDS, the rate does not stand SHORT_PROMINENCE times the band's median in the POS
    pulse's windows' mean spectrum, whichever path read it: `prominence`, asked only then (a POS reading's peak
    carries it, `Peak.averaged_prominence`; another path's rate is measured by `_averaged_prominence`), kept in
    q["short_prominence"]."""
    if q["seconds"] >= SHORT_SECONDS:
        return False
    value = prominence()
    q["short_prominence"] = round(value, 1)
    return value < SHORT_PROMINENCE


def _averaged_prominence(raw: np.ndarray, kept: np.ndarray, fs: float, hz: float) -> float:
    """The rate's prominence in the POS pulse's windows' mean spectrum, as `spectrum.candidates` gives its peaks'."""
    return spectrum.averaged(spectrum.windows(_wave(raw, kept), kept, fs), hz)[0]


def _wave(raw: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """A pulse wave as the spectra read it: detrended, zero where masked."""
    return np.where(kept, filters.detrend(raw), 0.0)


def _pbv_shows(pbv_pulse: tuple[np.ndarray, np.ndarray], hz: float, fs: float, q: dict[str, Any]) -> bool:
    """No peak of the PBV pulse away from the POS reading's rate is stronger than the rate's (PBV_SHOWS_MAX_RIVAL, its
    measure in q["pbv_rival"]), or the PBV pulse is too masked to say: then the POS gates stand alone."""
    rival = _pbv_rival(pbv_pulse, hz, fs)
    if rival is None:
        return True
    q["pbv_rival"] = rival
    return rival <= PBV_SHOWS_MAX_RIVAL


def _pbv_spectrum(pbv_pulse: tuple[np.ndarray, np.ndarray], fs: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The PBV pulse's power spectrum; None for a PBV pulse too masked to say (under MIN_SECONDS kept)."""
    raw, kept = pbv_pulse
    if kept.sum() < MIN_SECONDS * fs:
        return None
    return spectrum.power_spectrum(_wave(raw, kept), fs)


def _pbv_rival(pbv_pulse: tuple[np.ndarray, np.ndarray], hz: float, fs: float) -> float | None:
    """The PBV pulse's strongest power farther than PBV_SHOWS_GAP from hz, its double and its half, over the power at
    hz; None for a PBV pulse too masked to say."""
    spectral = _pbv_spectrum(pbv_pulse, fs)
    return None if spectral is None else round(spectrum.rival(*spectral, hz, PBV_SHOWS_GAP), 3)


def _second_opinion(uniform: np.ndarray, pbv_pulse: tuple[np.ndarray, np.ndarray], fs: float, q: dict[str, Any],
                    pos_peaks: list[spectrum.Peak], pos_pulse: tuple[np.ndarray, np.ndarray]) -> spectrum.Peak | None:
    """The heart-rate peak of the PBV pulse (`pos.pbv`) when POS's gave none: its reading if POS's own peak confirms
    it (SECOND_OPINION_AGREE), else its strongest peak if the two pulses agree on it (`_agreed`); MASKED_KEPT of the
    trace free of motion either way. Its gates' measures go in q["pbv"]."""
    raw, kept = pbv_pulse
    if kept.sum() < MIN_SECONDS * fs:
        return None
    q["pbv"] = second = {"kept": round(float(kept.mean()), 3)}
    if second["kept"] < MASKED_KEPT:
        return None
    read, peaks = _read(uniform, raw, kept, fs, second)
    if read is not None and _confirms(pos_peaks[0], read[0]):
        q["reading"] = "pbv"
        return read[0]
    if q["kept"] >= MASKED_KEPT and _agreed(peaks, second, pos_peaks, pos_pulse, fs):
        q["reading"] = "agreed"
        return peaks[0]
    return None


def _beamformed(uniform: np.ndarray, raw: np.ndarray, kept: np.ndarray, pbv_pulse: tuple[np.ndarray, np.ndarray],
                fs: float, q: dict[str, Any]) -> float | None:
    """The rate (Hz) of the beamformer's strongest peak (`beamform`) where neither pulse wave gave one: far above
    the band's median, clear of rivals, shown in the POS pulse, which shows no peak at its half or third nearly as
    strong, nor the PBV pulse at its half stronger (BEAMFORMED_PBV_HALF), up to BEAMFORMED_BPM's top (under its floor,
    clearer of rivals and clear in the PBV pulse too), and the strongest in both halves, or in one for a peak far
    above the median on a trace mostly free of motion (see BEAMFORMED_*). Its measures go in q["beamformed"]."""
    freqs, power = beamform.statistic(uniform, kept, fs)
    hz, prominence, rival = beamform.strongest(freqs, power)
    freqs_pos, power_pos = spectrum.power_spectrum(_wave(raw, kept), fs)
    q["beamformed"] = measures = {
        "bpm": round(hz * 60.0, 1), "prominence": round(prominence, 1), "rival": round(rival, 3),
        "pos_prominence": round(spectrum.prominence(freqs_pos, power_pos, hz), 1),
        "pos_subharmonic": round(max([spectrum.prominence(freqs_pos, power_pos, hz / d) for d in (2, 3)
                                      if hz / d >= filters.BAND[0]], default=0.0), 1)}
    slow = measures["bpm"] < BEAMFORMED_BPM[0]
    if prominence < BEAMFORMED_PROMINENT or rival > (BEAMFORMED_SLOW_MAX_RIVAL if slow else BEAMFORMED_MAX_RIVAL) \
            or measures["pos_prominence"] < BEAMFORMED_POS_PROMINENCE \
            or measures["pos_subharmonic"] >= BEAMFORMED_SUBHARMONIC_SHARE * measures["pos_prominence"] \
            or measures["bpm"] > BEAMFORMED_BPM[1] \
            or (q["kept"] < MASKED_KEPT and prominence < BEAMFORMED_MASKED_PROMINENT) \
            or (slow and not _pbv_clear(pbv_pulse, hz, fs, measures)) \
            or _pbv_half(pbv_pulse, hz, fs, measures) > BEAMFORMED_PBV_HALF:
        return None
    measures["halves"] = beamform.halves_agree(uniform, kept, fs, hz)
    if measures["halves"] < (1 if prominence >= BEAMFORMED_ONE_HALF and q["kept"] >= MASKED_KEPT else 2):
        return None
    q["reading"] = "beamformed"
    return hz


def _pbv_half(pbv_pulse: tuple[np.ndarray, np.ndarray], hz: float, fs: float, measures: dict[str, Any]) -> float:
    """The PBV pulse's power at half the rate over its power at the rate, put in `measures`; 0 when the half lies
    under the band or the PBV pulse is too masked to say."""
    spectral = _pbv_spectrum(pbv_pulse, fs) if hz / 2 >= filters.BAND[0] else None
    if spectral is None:
        return 0.0
    measures["pbv_half"] = share = round(spectrum.share_at(*spectral, hz / 2, hz), 3)
    return share


def _pbv_clear(pbv_pulse: tuple[np.ndarray, np.ndarray], hz: float, fs: float, measures: dict[str, Any]) -> bool:
    """The PBV pulse is clear of rivals at a slow beamformer peak, in the whole trace's spectrum and in the windows'
    mean (BEAMFORMED_SLOW_PBV_RIVAL, AGREED_MAX_AVERAGED_RIVAL), its measures put in `measures`."""
    rival = _pbv_rival(pbv_pulse, hz, fs)
    if rival is None:
        return False
    raw, kept = pbv_pulse
    _, averaged_rival = spectrum.averaged(spectrum.windows(_wave(raw, kept), kept, fs), hz)
    measures.update(pbv_rival=rival, pbv_averaged_rival=round(averaged_rival, 3))
    return rival <= BEAMFORMED_SLOW_PBV_RIVAL and averaged_rival <= AGREED_MAX_AVERAGED_RIVAL


def _confirms(strongest: spectrum.Peak, peak: spectrum.Peak) -> bool:
    """POS's strongest peak is at the PBV reading's rate, clear of rivals in the windows' mean spectrum, and the
    rate is above the band's low edge, where PBV keeps light steps and sway."""
    return abs(strongest.bpm - peak.bpm) <= SECOND_OPINION_AGREE * peak.bpm \
        and strongest.averaged_rival <= AVERAGED_RIVAL and peak.bpm >= LOW_RATE_BPM


def _agreed(peaks: list[spectrum.Peak], second: dict[str, Any], pos_peaks: list[spectrum.Peak],
            pos_pulse: tuple[np.ndarray, np.ndarray], fs: float) -> bool:
    """PBV's strongest peak is its own fundamental, unambiguous, clear of rivals, along the blood-volume signature and
    not slow; both PBV halves and a POS half peak at it, where POS's strongest peak lies, prominent (see AGREED_*),
    and not the harmonic of POS's pulse (`_its_harmonic`)."""
    peak = peaks[0]
    if len(peaks) != 1 or peak.ambiguous or peak.halves < 2 or peak.rival > AGREED_MAX_RIVAL or peak.bpm < LOW_RATE_BPM \
            or second["signature"] < MIN_SIGNATURE or abs(pos_peaks[-1].bpm - peak.bpm) > AGREED_TOLERANCE * peak.bpm:
        return False
    if peak.averaged_rival > AGREED_MAX_AVERAGED_RIVAL:
        return False
    raw, kept = pos_pulse
    pulse = _wave(raw, kept)
    if _its_harmonic(pos_peaks, pulse, kept, fs):  # POS's strongest peak is twice its pulse: no agreement on it
        return False
    freqs, power = spectrum.power_spectrum(pulse, fs)
    return spectrum.prominence(freqs, power, peak.hz) >= spectrum.PROMINENT \
        and spectrum.halves_agree(pulse, kept, fs, peak.hz) >= 1


def _breathing_alone(uniform: np.ndarray, kept: np.ndarray, fs: float) -> dict[str, Any] | None:
    """{"rr"} of a scan whose beats give no rr, from the colour baseline over the whole scan, clear beyond doubt
    (`respiration.ALONE_SHARE`), confirmed by each half (`respiration.whole_baseline`: no beats needed, about 45 s of
    motion-free colour) and at least respiration.ALONE_MIN_RATE (slow drift looks like slow breathing), else None.
    Without the share floor 13 of 591 such readings on fresh moderate and hard 60 s scans (seeds 120000-122999) were
    more than 3/min off, ten of them on hard scans; with it none of 237."""
    rr = respiration.whole_baseline(respiration.intensity_signal(uniform, kept, fs), fs, respiration.ALONE_SHARE)
    return None if rr is None or rr < respiration.ALONE_MIN_RATE else {"rr": round(rr, 1)}


def _evidence(uniform: np.ndarray, raw: np.ndarray, kept: np.ndarray, fs: float,
              peak: spectrum.Peak) -> tuple[dict[str, Any], np.ndarray, beats_mod.Beats]:
    """(the signature and beat measures at the peak's rate, the band-passed pulse, the beats found on it)."""
    pulse = np.where(kept, filters.bandpass(raw, fs, filters.beat_band(peak.hz)), 0.0)
    found = beats_mod.detect(pulse, fs, peak.hz, kept)
    ibi = found.accepted_ibi
    return {
        "signature": round(float(pos.signature(uniform, kept, fs, peak.hz)), 3),
        "beats_accepted": round(float(found.accepted.mean()), 3) if len(found.ibi) else 0.0,
        "beat_rate_gap": round(float(abs(60.0 / np.median(ibi) - peak.bpm) / peak.bpm), 3) if len(ibi) >= 4 else None,
    }, pulse, found


def _passes(peak: spectrum.Peak, q: dict[str, Any]) -> bool:
    """The rule gates: signature, beats keeping the rate, both halves, regular beats or a prominent peak, and
    on a much-masked trace a peak well above any rival and half its beats accepted; beats accepted when the
    windows' mean spectrum holds a strong rival; no rival of nearly equal power; half the beats accepted at a low
    rate."""
    return q["signature"] >= MIN_SIGNATURE and q["beat_rate_gap"] is not None \
        and q["beat_rate_gap"] <= BEAT_RATE_GAP and _confirmed(peak, q) \
        and (q["kept"] >= MASKED_KEPT or peak.rival <= MASKED_MAX_RIVAL) and peak.rival <= MAX_RIVAL \
        and (q["kept"] >= MASKED_BEATS_KEPT or q["beats_accepted"] >= MASKED_MIN_BEATS) and _low_rate_beats(peak, q) \
        and _rival_beats(peak, q)


def _rival_beats(peak: spectrum.Peak, q: dict[str, Any]) -> bool:
    """A peak with a strong rival in the windows' mean spectrum (AVERAGED_RIVAL) has enough of its beats accepted."""
    needed = MASKED_MIN_BEATS if q["kept"] < MASKED_RIVAL_KEPT else AVERAGED_RIVAL_BEATS
    return peak.averaged_rival <= AVERAGED_RIVAL or q["beats_accepted"] >= needed


def _low_rate_beats(peak: spectrum.Peak, q: dict[str, Any]) -> bool:
    """A rate at the band's low edge (LOW_RATE_BPM) has half its beats accepted."""
    return peak.bpm >= LOW_RATE_BPM or q["beats_accepted"] >= LOW_RATE_MIN_BEATS


def _confirmed(peak: spectrum.Peak, q: dict[str, Any]) -> bool:
    """Both halves peak at the rate, and a weak peak has regular beats or is prominent with beats that keep
    its rate closely."""
    regular = q["snr_db"] >= WEAK_SNR or q["beats_accepted"] >= WEAK_BEATS
    return peak.halves == 2 and (regular or (peak.prominent and q["beat_rate_gap"] <= PROMINENT_GAP))


def _score(peak: spectrum.Peak, q: dict[str, Any]) -> float:
    """The evidence score of a peak (see SCORE), -inf when a floor fails. On the fitting seeds the right peaks the
    rules refuse scored 2.5-10.8 (10th-90th percentile), no wrong one past the floors above 2.954."""
    gap = q["beat_rate_gap"]
    if q["signature"] < MIN_SIGNATURE or gap is None or gap > BEAT_RATE_GAP or peak.halves < 1 \
            or peak.snr_db < spectrum.MIN_SNR or peak.ambiguous or peak.rival > SCORE_MAX_RIVAL \
            or q["kept"] < SCORE_MIN_KEPT or peak.bpm > SCORE_MAX_BPM or not _low_rate_beats(peak, q):
        return float("-inf")
    features = {"log_prominence": np.log(max(peak.prominence, 1e-3)), "log_rival": np.log(max(peak.rival, 1e-3)),
                "both_halves": float(peak.halves == 2), "stability": peak.stability, "signature": q["signature"],
                "beats_accepted": q["beats_accepted"], "log_averaged_rival": np.log(max(peak.averaged_rival, 1e-3))}
    return float(SCORE_INTERCEPT + sum(SCORE[name] * value for name, value in features.items()))


def _supported(peak: spectrum.Peak, q: dict[str, Any]) -> bool:
    return _score(peak, q) >= SCORE_THRESHOLD


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
