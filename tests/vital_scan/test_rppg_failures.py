"""Every confident wrong number the benchmark found (issue 27), on its fixed seed, and the gates that stop them.

A seed here is a bench/vital_scan_accuracy.py trace, support.rppg_synthetic.bench_case(level, seconds, seed): the
bench's (hr, rr) drawn from the seed, then generate(hr, rr, level, seconds, 30 fps, seed). Each must now report the
metric within its tolerance or omit it (2.12: never guessed). Pure unit tests: no emulator is touched.
"""

import json
import pathlib

import numpy as np
import pytest

from support import rppg_synthetic as synthetic
from support.rppg_synthetic import HR_WRONG, RMSSD_TOLERANCE, RR_WRONG, SDNN_TOLERANCE, bench_case
from wellness_api.vital_scan.engine import Trace
from wellness_api.vital_scan.rppg import RppgEngine, filters, pipeline, pos, respiration, spectrum
from wellness_api.vital_scan.rppg import beats as beats_mod


def frames(case, seconds: float | None = None) -> int:
    """How many of the case's frames the hosted page sends for its first `seconds` while it records (all: None)."""
    return len(case.t) if seconds is None else int(np.searchsorted(case.t, seconds * 1000.0, side="right"))


def measure(case, seconds: float | None = None) -> dict:
    """The metrics of the case's trace, or of its first `seconds` as the hosted page sends them while it records."""
    sent = frames(case, seconds)
    return RppgEngine().estimate(Trace(case.fps, case.t[:sent], case.rgb[:sent])) or {}


def right_or_omitted(result: dict, case, metric: str) -> bool:
    """The metric is left out, or within its tolerance (HR_WRONG, RR_WRONG) of the case's truth."""
    tolerance = HR_WRONG if metric == "hr" else RR_WRONG
    return metric not in result or abs(result[metric] - getattr(case.truth, metric)) <= tolerance


# (level, seconds, seed): heart rates once reported more than 10 bpm off (truth -> reported)
HR_FAILURES = [
    ("clean", 30, 2328),  # 173.2 -> 162.4
    ("moderate", 30, 2232),  # 48.8 -> 85.0
    ("moderate", 30, 2640),  # 157.4 -> 43.8
    ("moderate", 30, 20375),  # 82 bpm too high: a noise peak on dark skin
    ("moderate", 30, 20521),  # 61 bpm too high: shine, not blood (signature 0.40)
    ("hard", 30, 2077),  # 177.5 -> 202.9
    ("hard", 30, 2155),  # 70.9 -> 197.8
    ("hard", 30, 2365),  # 133.8 -> 101.3
    ("hard", 30, 2422),  # 54.8 -> 71.4
    ("hard", 30, 2711),  # 158.7 -> 180.6
    ("hard", 30, 2841),  # 167.0 -> 190.4
    ("hard", 30, 20133),  # 49 bpm too low, the beats disagreeing
    # a prominent peak (14 to 20 times the band's median) that neither half or only one half showed
    ("hard", 30, 2096),  # 65.2 -> 92.3, neither half
    ("hard", 60, 2314),  # 84.2 -> 104.6, one half, the beats keeping it loosely (gap 0.104)
    ("moderate", 30, 2375), ("moderate", 30, 2462), ("hard", 30, 2374), ("hard", 60, 2324),  # one half
    ("hard", 60, 2054),  # 113.5 -> 171.3
    # the evidence score (pipeline.SCORE) at a threshold of 2.5, or without its floor on the share kept
    ("moderate", 30, 2238),  # 100.4 -> 89.0, score 3.42
    ("hard", 30, 2722), ("hard", 30, 2725),  # 73.3 -> 147.8, 166.7 -> 74.8: 70 % and 61 % kept
    ("hard", 30, 17558), ("hard", 30, 17682), ("hard", 30, 18139), ("hard", 30, 18412),  # 60-62 % kept
    ("hard", 60, 30267),  # 145.5 -> 71.3: half the rate, a rival of 0.49 (pipeline.SCORE_MAX_RIVAL)
    # the windows' mean spectrum holding a strong rival (0.56-0.62) and few beats accepted (pipeline.AVERAGED_RIVAL,
    # fresh dark-skin seeds): under half of them on a masked trace (75-78 % kept), 28 % on a trace 88 % kept
    ("moderate", 30, 80527),  # 177.9 -> 165.2
    ("hard", 60, 80060),  # 74.9 -> 118.2
    ("moderate", 60, 91766),  # 166.6 -> 186.5
    ("hard", 60, 101498),  # 138.3 -> 85.3: the evidence score 3.46 with a stability of 0.52 (pipeline.SCORE_THRESHOLD)
    ("moderate", 60, 112138),  # 57.8 -> 115.9: the strongest peak's score with a harmonic as strong (Peak.ambiguous)
    ("moderate", 30, 41314),  # 47.3 -> 94.7: the strongest peak (the harmonic) tried though a half peaked at 47.3
    # the rule gates on a much-masked trace (54-74 % kept) with a rival of 0.6-0.77 (pipeline.MASKED_KEPT)
    ("hard", 30, 17915), ("hard", 30, 18303), ("hard", 30, 18583),  # 72.3 -> 178.6, 157.0 -> 48.3, 147.9 -> 92.4
    ("hard", 30, 41520), ("hard", 30, 41978),  # 112.2 -> 53.2, 134.4 -> 68.7: 70 % and 74 % kept
    # the rule gates on a much-masked trace (61-68 % kept) with 43-46 % of beats accepted (pipeline.MASKED_BEATS_KEPT)
    ("hard", 30, 11621), ("hard", 30, 40798), ("hard", 30, 50331),  # 164.6 -> 111.6, 67.0 -> 102.5, 171.0 -> 197.8
    ("hard", 60, 11034),  # 155.7 -> 54.5: a peak at the band's low edge, 46 % of beats (pipeline.LOW_RATE_BPM)
    ("moderate", 30, 51881),  # 158.0 -> 147.8: a rival of 0.96 (pipeline.MAX_RIVAL)
    ("moderate", 30, 161957),  # 104.8 -> 209.9: the strongest peak's score above 180 bpm (pipeline.SCORE_MAX_BPM)
    # twice a slow pulse from the strongest peak, the rate the sub-harmonic check moved to clear of rivals and the wave
    # repeating better at its period (pipeline.HARMONIC_RIVAL, HARMONIC_ACF): 51.8 -> 105.2, 67.2 -> 134.0
    ("moderate", 30, 602240), ("moderate", 30, 1113955),
]

# The same on the first seconds of fresh 175 s traces, as the page sends them (level, seconds sent, seed): twice a
# slow pulse from the strongest peak, 51.2 -> 103.5, 74.1 -> 148.2, 58.9 -> 118.1 and 57.5 -> 115.0 (hard),
# 58.0 -> 116.2, 65.2 -> 129.1 and 66.4 -> 133.2 (moderate), and a noise peak, 149.0 -> 107.9 (hard). The page's scan
# of seeds 1160000+ reported 1163914 and 1161912 (PAGE_KNOWN_WRONG until the floors were set without them)
PAGE_HR_FAILURES = [("hard", 30, 1217629), ("hard", 60, 1210055), ("hard", 60, 1309172), ("hard", 60, 1163914),
                    ("moderate", 60, 1268824), ("moderate", 30, 1300814), ("moderate", 120, 1161912),
                    ("hard", 30, 1315423)]

# The PBV pulse (pos.pbv) read with the gates of the POS pulse, where no POS peak passed, at a wrong rate (truth ->
# PBV's reading): 35 of the 1,512 rates it gave on the fitting seeds 10000-12999 and fresh seeds 150000-154999, all at
# 42-112 bpm. POS's strongest peak confirms none of them (pipeline._confirms).
PBV_UNCONFIRMED = [
    ("moderate", 30, 11891), ("moderate", 30, 12467), ("moderate", 60, 10786),  # 168.6 -> 80.5, 48.8 -> 101.3, 174.0 -> 58.8
    ("hard", 30, 10237), ("hard", 30, 10919), ("hard", 30, 11024), ("hard", 30, 11069), ("hard", 30, 12920),
    ("hard", 60, 10321), ("hard", 60, 10679), ("hard", 60, 10861), ("hard", 60, 11152),
    ("hard", 60, 11034),  # 155.7 -> 54.5: POS's strongest peak agrees, under LOW_RATE_BPM
    ("hard", 60, 12025), ("hard", 60, 12387),  # 110.1 -> 95.8, 118.1 -> 99.5: POS agrees, its mean-spectrum rival 0.6
    ("moderate", 30, 150441), ("moderate", 30, 150568), ("moderate", 30, 152557), ("moderate", 30, 152640),
    ("moderate", 30, 154534), ("moderate", 60, 151764), ("moderate", 60, 152148), ("moderate", 60, 153067),
    ("moderate", 60, 153539), ("hard", 30, 151495), ("hard", 30, 152276), ("hard", 60, 150495), ("hard", 60, 150633),
    ("hard", 60, 151005), ("hard", 60, 151441), ("hard", 60, 152895), ("hard", 60, 154018), ("hard", 60, 154550),
    ("hard", 60, 154760), ("hard", 60, 154801),
]

# The two pulses agreeing on a wrong rate (truth -> the rate): PBV's and POS's strongest peaks within 2 % of each other,
# both PBV halves and a POS half peaking there, no rival over 0.6, 75 % free of motion. On 20,000 fresh scans (seeds
# 600000-604999) that read 8 of 633 rates wrong until the windows' mean spectrum had to be clear of rivals
# (pipeline.AGREED_MAX_AVERAGED_RIVAL) and POS's own peak prominent (spectrum.PROMINENT): sway and light steps at
# 44-56 bpm, which both pulses keep alike.
AGREED_WRONG = [
    ("hard", 60, 600050), ("hard", 60, 600988), ("hard", 60, 601014),  # 133.2 -> 44.2, 68.9 -> 49.5, 135.4 -> 45.4
    ("hard", 60, 601964), ("hard", 60, 604123), ("hard", 60, 604621),  # 70.9 -> 55.5, 61.1 -> 97.8, 172.8 -> 70.3
    ("moderate", 30, 603845), ("moderate", 30, 604018),  # 157.9 -> 90.0, 104.2 -> 44.2
]

# Heart rates the POS gates read wrong on fresh scans, a stronger peak of the PBV pulse lying elsewhere
# (pipeline.PBV_SHOWS_MAX_RIVAL: its power over the rate's)
PBV_UNSHOWN = [
    ("clean", 30, 920187),  # 175.9 -> 186.8: 1.88, a side peak of a fast pulse (breathing 9.8/min)
    ("moderate", 30, 112066), ("moderate", 30, 921769),  # 170.8 -> 115.2: 1.14; 164.2 -> 153.8: 1.07
    ("hard", 30, 112926),  # 144.0 -> 77.1: 1.49
    ("hard", 60, 112850), ("hard", 60, 804608), ("hard", 60, 910034),  # 54.0 -> 101.3, 91.5 -> 68.6, 148.4 -> 70.1
]

# Heart rates the gates still read more than 10 bpm off, found on 277,000 fresh scans of every level (30 and 60 s) and
# 13,600 of 2 minutes outside the bench (docs/vital-scan.md, "Outside the bench"): no measure tried sets them apart
# from right readings. They are expected to fail, strictly: a change that mends one fails the run, and its seed moves
# to the list of what mended it.
KNOWN_WRONG = [
    ("moderate", 30, 100354), ("moderate", 30, 150700),
    ("moderate", 60, 803504), ("moderate", 60, 1011018), ("moderate", 60, 1012892),
    ("hard", 30, 102121),
    ("hard", 60, 72534), ("hard", 60, 161156), ("hard", 60, 911721), ("hard", 60, 931042), ("hard", 60, 934864),
    ("hard", 60, 980152), ("hard", 60, 1011566), ("hard", 60, 1012888), ("hard", 60, 1020469),
    # the beamformer on a 2-minute scan: twice a slow pulse on dark skin (78.2 read as 156.5), PBV holding more power
    # at the rate than at the half (0.30) as it does for a fast pulse
    ("moderate", 120, 1070642),
    # the 82,000 fresh scans run while setting and checking the beamformer's floors for slow rates (seeds 1110000+),
    # none read by those: the POS gates, the score, the strongest peak, the agreement and the beamformer above 90 bpm
    ("moderate", 60, 1113478),
    ("hard", 60, 1120940), ("hard", 60, 1122896), ("hard", 60, 1131901), ("hard", 60, 1140928),
    # the 4,000 fresh hard 175 s scans that set the page's longest capture: the beamformer above 90 bpm (127.3 -> 115.7)
    ("hard", 175, 1152558),
]

# The same on the hosted page's scan (bench/vital_scan_accuracy.py _page) of fresh 175 s traces, outside the bench:
# (level, seconds of the trace measured, seed of the 175 s trace). 7,000 such scans (hard seeds 1160000-1163999,
# moderate 1160000-1162999) read 12 wrong, on the first 30, 60 or 120 s of the trace; none on the whole 175 s (the six
# of 30 s are now PAGE_SHORT_UNCLEAR).
PAGE_KNOWN_WRONG = [
    ("hard", 60, 1161815), ("hard", 60, 1163238),
    ("hard", 120, 1160452), ("hard", 120, 1160620),
    # the page's scan of 6,000 fresh traces once the minute had to confirm a 30 s rate (seeds 1250000-1252999): the
    # first minute of a weak type VI pulse, 171.7 -> 117.6 (the beamformer above 90 bpm)
    ("hard", 60, 1252599),
    # the page's scan of 20,000 fresh traces (seeds 1260000-1269999, moderate and hard): hard 88.8 read as 177.3 on 2
    # minutes (the beamformer, twice the pulse: PBV's power at the half 0.91 of the peak's, POS's sub-harmonic 0.47,
    # both just under their floors; and two more, now PAGE_HR_FAILURES)
    ("hard", 120, 1264292),
    # the first 30 s of 30,000 fresh traces run after the short-scan floor was set (hard seeds 1400000-1419999, moderate
    # 1400000-1409999): the two of 24 wrong rates it passes, both twice a slow pulse standing just over
    # pipeline.SHORT_PROMINENCE, 48.9 -> 95.7 (the POS gates, 6.05) and 83.6 -> 166.7 (the beamformer, 6.13); the page
    # reports neither (tests/vital_scan/test_scan_on.py KEPT_WRONG and GIVEN_WAY)
    ("hard", 30, 1402708), ("moderate", 30, 1403067),
]

# Wrong rates on scans under pipeline.SHORT_SECONDS that the short-scan floor refuses: the rate, whichever path read
# it, stands under pipeline.SHORT_PROMINENCE times the band's median in the POS pulse's windows' mean spectrum.
# (level, seconds, seed): the 30 s scans of KNOWN_WRONG, found on fresh scans before the floor was set. 603796 only as
# generated: without its last frame (at 30.005 s) it stands at 6.2 and reads 185.3 for 92.5 again.
SHORT_UNCLEAR = [
    ("moderate", 30, 603796), ("moderate", 30, 801844), ("moderate", 30, 911616), ("moderate", 30, 922525),
    ("moderate", 30, 923693), ("moderate", 30, 1000165), ("moderate", 30, 1112266), ("moderate", 30, 1120787),
    ("moderate", 30, 1121845),
    ("hard", 30, 600190), ("hard", 30, 601513), ("hard", 30, 923761), ("hard", 30, 934269), ("hard", 30, 970078),
    ("hard", 30, 971674),
]

# The same on the first 30 s of 175 s traces, as the page sends them (level, seed): every wrong rate found there before
# the floor. The page's scans of seeds 1160000-1163999; the bench's hard 2455 (81.9 -> 104.9, the POS gates) and 2822
# (167.7 -> 103.8, the PBV second opinion); seeds 1220000-1222999 and 1230000-1232999 (8 of the 197 scans whose
# minute lost the rate); and every wrong rate of the engine on hard seeds 1210000-1219999 and 1260000-1279999 and
# moderate 1210000-1214999 and 1260000-1269999 (34 of about 12,000 read), among them moderate 1266129 (164.9 -> 154.9,
# with rr from the colour baseline, so the page's scan reported it) and hard 1268130 (rr 23.4 -> 14.9 with a 46.7 bpm
# pulse: breathing faster than half the pulse, which no beat series can show).
PAGE_SHORT_UNCLEAR = [
    ("moderate", 1162181), ("moderate", 1162617), ("hard", 1160127), ("hard", 1162182), ("hard", 1162633),
    ("hard", 1163316), ("hard", 2455), ("hard", 2822),
    ("hard", 1221131), ("hard", 1222681), ("moderate", 1221045), ("moderate", 1222370), ("hard", 1230718),
    ("hard", 1231020), ("hard", 1231974), ("moderate", 1230845),
    ("hard", 1210787), ("hard", 1213157), ("hard", 1216177), ("hard", 1216248), ("hard", 1216719),
    ("hard", 1217017), ("hard", 1217906), ("hard", 1218773), ("moderate", 1212026), ("moderate", 1212423),
    ("hard", 1260036), ("hard", 1262290), ("hard", 1263528), ("hard", 1265385), ("hard", 1266355),
    ("hard", 1266611), ("hard", 1268562), ("hard", 1269256), ("hard", 1269859), ("hard", 1271996),
    ("hard", 1272213), ("hard", 1273532), ("hard", 1273726), ("hard", 1273747), ("hard", 1276238),
    ("hard", 1276846), ("hard", 1277379), ("hard", 1277568), ("hard", 1279391), ("moderate", 1261949),
    ("moderate", 1263138), ("moderate", 1266129), ("moderate", 1267937), ("hard", 1268130),
]

# breathing rates once reported more than 3 breaths/min off
RR_FAILURES = [
    ("clean", 30, 2227), ("clean", 30, 2266), ("clean", 30, 2315), ("clean", 30, 2815), ("clean", 30, 2945),
    ("moderate", 30, 2059), ("moderate", 30, 2852),
    ("clean", 60, 2315), ("clean", 60, 2421), ("clean", 60, 2485), ("clean", 60, 2534), ("clean", 60, 2574),
    ("clean", 60, 2858), ("clean", 60, 2900), ("clean", 60, 2958), ("clean", 60, 2997),
    ("moderate", 60, 2354), ("moderate", 60, 2845), ("moderate", 60, 3006),
    # below the Mayer wave's lobe on a 30 s scan (9.6 -> 22.1, 10.3 -> 13.6, 8.9 -> 15.9), and 9.0 -> 12.3
    ("clean", 30, 2259), ("clean", 30, 2673), ("clean", 30, 2975), ("moderate", 60, 2063),
    # the colour baseline alone, its peak not clear enough (share 0.52): 13.9 -> 19.9
    ("moderate", 60, 2243), ("hard", 60, 2186),  # 14.0 -> 17.6, share 0.52
    # the baseline alone (share 0.63) once the evidence score gave hr at a threshold of 2.0: 17.0 -> 9.7
    ("moderate", 60, 12195),
    # the baseline's peak inside the Mayer wave's lobe, amplitudes and intervals agreeing above it: 8.2 -> 12.9
    ("moderate", 30, 40054),
    # no heart rate, the whole scan's baseline confirmed by its halves but under ALONE_SHARE (0.56-0.59 on hard scans):
    # 10.9 -> 17.7, 11.3 -> 16.1, 9.2 -> 20.2, 15.7 -> 11.6 (pipeline._breathing_alone)
    ("moderate", 60, 121247), ("moderate", 60, 121916), ("hard", 60, 120663), ("hard", 60, 121231),
    # much-masked scans (80-81 % kept) whose halves, read down to the whole scan's Mayer lobe, confirmed the slow colour
    # drift the gaps chop into steps (respiration.SLOW_HALVES_KEPT): 19.3 -> 9.5, 21.7 -> 10.0
    ("hard", 60, 70904), ("hard", 60, 72535),
    # halves read down to the whole scan's lobe at a share of 0.3 instead of CLEAR_SHARE: 17.9 -> 11.0
    ("moderate", 60, 72449),
    # the whole scan's baseline on a much-masked (83 % kept) 2-minute scan, where the longest run's baseline peaks
    # clearly at the truth: 16.2 -> 10.0 (16.5 in the run)
    ("hard", 120, 2342),
    # the baseline alone under respiration.ALONE_MIN_RATE on hard 175 s scans, no heart rate or one from the PBV pulse or
    # the beamformer: the bench's 2688 (12.2 -> 7.8, type VI), 1244311 (15.3 -> 8.4) of seeds 1240000-1245999, 1260127
    # (23.7 -> 9.5) and 1260225 (15.9 -> 8.6) of the page's scan of seeds 1260000-1269999, and 1282457 (22.5 -> 8.8),
    # 1283340 (18.7 -> 8.1), 1284075 (17.5 -> 8.9) and 1284139 (21.5 -> 8.7) of seeds 1280000-1285999
    ("hard", 175, 2688), ("hard", 175, 1244311), ("hard", 175, 1260127), ("hard", 175, 1260225),
    ("hard", 175, 1282457), ("hard", 175, 1283340), ("hard", 175, 1284075), ("hard", 175, 1284139),
]

# Breathing rates the gates still read more than 3/min off. Strict expected failures, as KNOWN_WRONG.
RR_KNOWN_WRONG = [
    # the bench's hard 175 s scans (1 of about 170 read; docs/vital-scan.md): 17.5 -> 21.4 on type IV
    ("hard", 175, 2140),
    # the bench's moderate 2-minute scans (1 of about 700): 12.1 -> 20.5, the run's baseline alone
    ("moderate", 120, 2802),
    # fresh hard 175 s scans, with a heart rate: 9.0 -> 19.9 (type II) and 15.0 -> 8.4 (type I) of seeds
    # 1240000-1245999, 16.2 -> 10.2 of the page's scan of seeds 1260000-1269999, and 16.9 -> 21.9 and 14.9 -> 8.0 of
    # seeds 1280000-1285999
    ("hard", 175, 1243061), ("hard", 175, 1245905), ("hard", 175, 1264164), ("hard", 175, 1285665),
    ("hard", 175, 1285739),
]

# The same on the hosted page's scan of fresh 175 s traces (seeds 1260000-1269999), on the first seconds it sent, as
# PAGE_KNOWN_WRONG: moderate 8.5 -> 16.8, 8.9 -> 20.9 and 11.4 -> 19.8 on the minute; hard 12.6 -> 20.3 on 2 minutes
# (and one on the first 30 s, now PAGE_SHORT_UNCLEAR)
PAGE_RR_KNOWN_WRONG = [
    ("moderate", 60, 1260429), ("moderate", 60, 1263879), ("moderate", 60, 1265867),
    ("hard", 120, 1265831),
]

# The same on the hosted page's first minute of a 2-minute trace (scanning on for rr): 16.0 -> 9.3 (14.7 in the run)
RR_FAILURES_FIRST_MINUTE = [("hard", 120, 2313)]

# SDNN or RMSSD once reported beyond the stated tolerances
HRV_FAILURES = [("clean", 30, 2083), ("clean", 30, 2240), ("clean", 30, 2454), ("clean", 30, 2538),
                ("clean", 60, 2073)]


@pytest.mark.parametrize(("level", "seconds", "seed"), HR_FAILURES)
def test_hr_found_wrong_is_now_right_or_omitted(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    assert right_or_omitted(measure(case), case, "hr")


def _gates_alone(case, projection):
    """The reading the hr gates alone give on one pulse wave of the case (`pos.pos` or `pos.pbv`), or None."""
    _, uniform, valid = filters.resample(np.asarray(case.t) / 1000.0, np.asarray(case.rgb))
    raw, kept = projection(uniform, filters.FS, valid & ~pos.colour_motion(uniform, filters.FS))
    return pipeline._read(uniform, raw, kept, filters.FS, {"kept": float(kept.mean())})[0]


@pytest.mark.xfail(strict=True, reason="a wrong heart rate no gate sets apart yet (KNOWN_WRONG)")
@pytest.mark.parametrize(("level", "seconds", "seed"), KNOWN_WRONG)
def test_a_known_wrong_rate_outside_the_bench_is_right_or_omitted(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    assert right_or_omitted(measure(case), case, "hr")


@pytest.mark.xfail(strict=True, reason="a wrong heart rate no gate sets apart yet (PAGE_KNOWN_WRONG)")
@pytest.mark.parametrize(("level", "seconds", "seed"), PAGE_KNOWN_WRONG)
def test_a_known_wrong_rate_of_the_page_is_right_or_omitted(level, seconds, seed):
    case = bench_case(level, 175, seed)
    assert right_or_omitted(measure(case, seconds), case, "hr")


@pytest.mark.parametrize(("level", "seconds", "seed"), PAGE_HR_FAILURES)
def test_a_page_rate_found_wrong_is_now_right_or_omitted(level, seconds, seed):
    case = bench_case(level, 175, seed)
    assert right_or_omitted(measure(case, seconds), case, "hr")


def _unclear_in_short(case, seconds: float | None = None) -> None:
    """The case's trace, or its first `seconds`, give nothing (rr from the colour baseline alone needs about 45 s),
    the rate having stood under the short-scan floor, and the page is told to scan on."""
    sent = frames(case, seconds)
    metrics, quality = pipeline.assess(case.fps, case.t[:sent], case.rgb[:sent])
    assert metrics is None and quality["seconds"] < pipeline.SHORT_SECONDS
    assert quality["short_prominence"] < pipeline.SHORT_PROMINENCE
    assert quality["reason"] in ("weak", "motion") and "reading" not in quality


@pytest.mark.parametrize(("level", "seconds", "seed"), SHORT_UNCLEAR)
def test_a_wrong_rate_unclear_in_a_short_scan_is_no_heart_rate(level, seconds, seed):
    _unclear_in_short(bench_case(level, seconds, seed))


@pytest.mark.parametrize(("level", "seed"), PAGE_SHORT_UNCLEAR)
def test_a_wrong_rate_unclear_in_the_pages_first_30_s_is_no_heart_rate(level, seed):
    _unclear_in_short(bench_case(level, 175, seed), 30.0)


@pytest.mark.parametrize(("level", "seconds", "seed"), PBV_UNCONFIRMED)
def test_a_pbv_reading_pos_does_not_confirm_is_no_heart_rate(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    read = _gates_alone(case, pos.pbv)
    assert read is not None and abs(read[0].bpm - case.truth.hr) > HR_WRONG  # what PBV alone would report
    metrics, quality = pipeline.assess(case.fps, case.t, case.rgb)
    assert "pbv" in quality and quality.get("reading") not in ("pbv", "agreed")
    if quality.get("reading") == "beamformed":  # a fast pulse the beamformer shows (moderate 60 s 153067: 179.1)
        assert abs(metrics["hr"] - case.truth.hr) <= HR_WRONG
    else:
        assert "hr" not in (metrics or {}) and quality["reason"] in ("weak", "motion", "dark")


@pytest.mark.parametrize(("level", "seconds", "seed"), AGREED_WRONG)
def test_two_pulses_agreeing_on_a_wrong_rate_is_no_heart_rate(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    _, uniform, valid = filters.resample(np.asarray(case.t) / 1000.0, np.asarray(case.rgb))
    motion_free = valid & ~pos.colour_motion(uniform, filters.FS)
    strongest = []
    for raw, kept in (pos.pbv(uniform, filters.FS, motion_free), pos.pos(uniform, filters.FS, motion_free)):
        peaks = spectrum.candidates(np.where(kept, filters.detrend(raw), 0.0), kept, filters.FS)
        strongest.append(peaks[-1].bpm)
    pbv_rate, pos_rate = strongest  # the hazard: both pulses peak at the same wrong rate
    assert abs(pbv_rate - pos_rate) <= pipeline.AGREED_TOLERANCE * pbv_rate and abs(pbv_rate - case.truth.hr) > HR_WRONG
    metrics, quality = pipeline.assess(case.fps, case.t, case.rgb)
    assert "hr" not in (metrics or {}) and quality.get("reading") != "agreed"


@pytest.mark.parametrize(("level", "seconds", "seed"), PBV_UNSHOWN)
def test_a_pos_reading_the_pbv_pulse_does_not_show_is_no_heart_rate(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    read = _gates_alone(case, pos.pos)
    assert read is not None and abs(read[0].bpm - case.truth.hr) > HR_WRONG  # what the POS gates alone would report
    metrics, quality = pipeline.assess(case.fps, case.t, case.rgb)
    assert quality["pbv_rival"] > pipeline.PBV_SHOWS_MAX_RIVAL
    assert "hr" not in (metrics or {}) and quality["reason"] in ("weak", "motion") and "reading" not in quality


@pytest.mark.parametrize(("level", "seconds", "seed"), RR_FAILURES)
def test_rr_found_wrong_is_now_right_or_omitted(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    assert right_or_omitted(measure(case), case, "rr")


@pytest.mark.xfail(strict=True, reason="a wrong breathing rate no gate sets apart yet (RR_KNOWN_WRONG)")
@pytest.mark.parametrize(("level", "seconds", "seed"), RR_KNOWN_WRONG)
def test_a_known_wrong_breathing_rate_is_right_or_omitted(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    assert right_or_omitted(measure(case), case, "rr")


@pytest.mark.xfail(strict=True, reason="a wrong breathing rate no gate sets apart yet (PAGE_RR_KNOWN_WRONG)")
@pytest.mark.parametrize(("level", "seconds", "seed"), PAGE_RR_KNOWN_WRONG)
def test_a_known_wrong_breathing_rate_of_the_page_is_right_or_omitted(level, seconds, seed):
    case = bench_case(level, 175, seed)
    assert right_or_omitted(measure(case, seconds), case, "rr")


@pytest.mark.parametrize(("level", "seconds", "seed"), RR_FAILURES_FIRST_MINUTE)
def test_rr_found_wrong_in_a_first_minute_is_now_right_or_omitted(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    result = measure(case, 60.0)
    assert result.get("hr") and right_or_omitted(result, case, "rr")


@pytest.mark.parametrize(("level", "seconds", "seed"), HRV_FAILURES)
def test_hrv_found_wrong_is_now_right_or_omitted(level, seconds, seed):
    case = bench_case(level, seconds, seed)
    indices = measure(case).get("hrv_indices", {})
    if "SDNN" in indices:
        assert abs(indices["SDNN"] - case.truth.sdnn) <= SDNN_TOLERANCE
        assert abs(indices["RMSSD"] - case.truth.rmssd) <= RMSSD_TOLERANCE


@pytest.mark.parametrize("seed", range(6))
def test_a_strong_dicrotic_wave_does_not_double_or_triple_a_slow_pulse(seed):
    """The harmonic lock once seen: a 60 bpm pulse read as 180.9 (the dicrotic wave makes the second and
    third harmonics strong)."""
    case = synthetic.generate(60, 14, "clean", seconds=30, seed=seed, dicrotic=0.75)
    result = measure(case)
    assert "hr" not in result or abs(result["hr"] - case.truth.hr) <= 3


@pytest.mark.parametrize("seed", range(6))
def test_a_motion_burst_does_not_lock_a_105_bpm_pulse_on_its_harmonic(seed):
    """The other lock once seen: 105 bpm with one motion burst read as 209.9."""
    case = synthetic.generate(105, 14, "moderate", seconds=30, seed=seed, dicrotic=0.75)
    assert case.bursts
    assert right_or_omitted(measure(case), case, "hr")


def test_white_flicker_inside_the_pulse_band_is_not_a_heart_rate():
    """Light flickering at 1.3 Hz (a screen, a fan's shadow) changes all channels alike plus shine: steady and
    spectrally clean, but not along the blood-volume signature."""
    fps, n = 30.0, 901
    t = np.arange(n) / fps
    rng = np.random.default_rng(4)
    flicker = np.sin(2 * np.pi * 1.3 * t)
    rgb = np.array([150.0, 110.0, 90.0]) * (1 + 0.004 * flicker)[:, None] + 0.8 * flicker[:, None]
    rgb += 0.05 * rng.standard_normal(rgb.shape)
    metrics, quality = pipeline.assess(fps, (t * 1000).tolist(), rgb.tolist())
    assert metrics is None and quality["reason"] in ("weak", "dark", "motion")


@pytest.mark.parametrize("seconds", [30, 60])
def test_a_colour_that_never_changes_is_a_weak_pulse_not_movement(seconds):
    """A photograph held to the camera, or a frozen one: every frame the same mean colour. Nothing moved, so the
    page must not say "too much movement"; there is no pulse to read ("weak": come closer, even light)."""
    n = seconds * 30 + 1
    still = [[180.2, 120.5, 100.1]] * n
    assert pos.colour_motion(np.array(still), 30.0).sum() == 0  # its rounding errors are not movement
    metrics, quality = pipeline.assess(30.0, [i * 1000 / 30 for i in range(n)], still)
    assert metrics is None and quality["reason"] == "weak" and quality["kept"] == 0.0


def test_a_face_that_does_not_breathe_gives_no_breathing_rate(monkeypatch):
    """The trace the hosted page recorded in Chromium (tests/browser) of a still photograph whose skin pulses at 72 bpm
    and does not breathe: 45.7 s at about 29 fps, the detector's lost frames and all (data/, as the page sent it). It
    was read as 9.1 breaths/min. Its colour is flat to 0.01 levels, but the breathing band-pass, the trace's ends
    padded by odd extension and the moving mean's by copies of one sample, turned the last beat's edge into a
    transient filling the last 15 s. Mirrored, the baseline's ends are as flat as its middle; and that baseline, the
    camera's noise alone, is under a tenth of the pulse, too small to be breathing (it peaked at 10.4/min)."""
    trace = json.loads((pathlib.Path(__file__).parent / "data" / "still-face-browser-trace.json").read_text())
    metrics, _ = pipeline.assess(trace["fps"], trace["t"], trace["rgb"])
    assert abs(metrics["hr"] - 72) <= 1 and "rr" not in metrics

    _, uniform, _ = filters.resample(np.asarray(trace["t"]) / 1000, np.asarray(trace["rgb"], float))
    kept = np.ones(len(uniform), bool)
    assert not respiration.intensity_signal(uniform, kept, filters.FS).any()  # under the floor: nothing to read
    monkeypatch.setattr(respiration, "MIN_BASELINE_TO_PULSE", 0.0)
    baseline = respiration.intensity_signal(uniform, kept, filters.FS)
    blocks = [np.sqrt(np.mean(baseline[i:i + 150] ** 2)) for i in range(0, len(baseline), 150)]
    assert max(blocks[1:]) < 1.5 * np.median(blocks), np.round(np.array(blocks) * 1e4, 2)
    assert "rr" in pipeline.measure(trace["fps"], trace["t"], trace["rgb"])  # the noise's peak, without the floor


def test_beats_timed_by_lost_frames_give_no_breathing_rate():
    """The same face in Chromium on the loaded CI machine, its 30 s trace missing 1-4 frames about once a second: the
    resampling bridges each gap, so the beats' amplitudes and intervals carry the losses' pattern, and the two agreed on
    16.6 breaths/min, shown as a result. The colour baseline holds no breathing (under its floor), and without it the
    beat series are not read."""
    trace = json.loads((pathlib.Path(__file__).parent / "data" / "still-face-dropped-frames-trace.json").read_text())
    assert (np.diff(trace["t"]) > 50).sum() >= 25  # the lost frames
    metrics = pipeline.measure(trace["fps"], trace["t"], trace["rgb"])
    assert abs(metrics["hr"] - 72) <= 1 and "rr" not in metrics
    _, uniform, valid = filters.resample(np.asarray(trace["t"]) / 1000, np.asarray(trace["rgb"], float))
    raw, kept = pos.pos(uniform, filters.FS, valid & ~pos.colour_motion(uniform, filters.FS))
    (peak, _, found, kept), _ = pipeline._read(uniform, raw, kept, filters.FS, {"kept": float(kept.mean())})
    assert not respiration.intensity_signal(uniform, kept, filters.FS).any()
    lo, hi = beats_mod.longest_run(found.unmasked)
    accepted = found.accepted[lo:hi]
    assert accepted.all()  # every beat passed the artefact rules: the losses are too small to show in one beat
    upper = min(respiration.BAND[1], 0.45 * peak.hz)
    amplitudes = respiration._rate(found.times[lo:hi + 1], found.values[lo:hi + 1], upper)
    intervals = respiration._rate(found.times[lo + 1:hi + 1], found.ibi[lo:hi], upper)
    assert abs(amplitudes[0] - 16.6) <= 0.5 and abs(intervals[0] - 16.6) <= 0.5  # clear, and agreeing


def test_quality_says_why_and_never_reaches_the_metrics():
    case = synthetic.generate(75, 14, "clean", seconds=30, seed=8, skin="II")
    metrics, quality = pipeline.assess(case.fps, case.t, case.rgb)
    assert "hr" in metrics and not {"snr_db", "signature", "reason", "quality"} & set(metrics)
    assert quality["snr_db"] > pipeline.spectrum.MIN_SNR and quality["signature"] >= pipeline.MIN_SIGNATURE
    assert "rr" in metrics or quality["rr_omitted"] == "short"  # 30 s: rr may need the longer scan
    dark = [[v * 0.12 for v in px] for px in synthetic.noise_only(seed=1).rgb]
    none, why = pipeline.assess(30.0, synthetic.noise_only(seed=1).t, dark)
    assert none is None and why["reason"] == "dark"
    moving = synthetic.generate(75, 14, "hard", seconds=30, seed=8, skin="VI")
    none, why = pipeline.assess(moving.fps, moving.t, moving.rgb)
    assert none is None and why["reason"] in ("motion", "weak")
