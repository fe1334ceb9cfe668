"""region_steps, the still-face check's measure (tests/browser/scan_video.py), on traces made here: no browser."""

import itertools

import numpy as np
import pytest

from tests.browser.scan_video import region_steps


def _trace(levels_step: float, seed: int = 0) -> tuple[dict, np.ndarray]:
    """A minute of a face pulsing at a rate that wanders around 71.7 bpm (a loaded machine playing 72 slowly and
    unevenly), a frame or two lost about once a second, and a level step of about `levels_step` at each gap."""
    rng = np.random.default_rng(seed)
    t = np.arange(0, 60, 1 / 30)
    keep = np.ones(len(t), bool)
    for at in np.cumsum(rng.uniform(0.7, 1.3, 80)):
        keep[(t >= at) & (t < at + 0.07)] = False
    t = t[keep]
    rate = 71.7 / 60 * (1 + 0.004 * np.sin(2 * np.pi * t / 37))
    phase = 2 * np.pi * np.cumsum(np.r_[0, np.diff(t)] * rate)
    green = 150 + 0.75 * np.sin(phase) + 0.3 * np.sin(2 * phase + 1) + 0.02 * rng.standard_normal(len(t))
    cuts = np.r_[0, np.flatnonzero(np.diff(t) > 0.05) + 1, len(t)]
    levels = np.cumsum(rng.normal(0, levels_step, len(cuts) - 1))
    for i, (a, b) in enumerate(itertools.pairwise(cuts)):
        green[a:b] += levels[i]
    rgb = np.c_[green + 30, green, green - 30]
    return {"t": (t * 1000).tolist(), "rgb": rgb.tolist()}, np.diff(levels)


@pytest.mark.parametrize("bpm", [71.7, 72.0])
def test_a_still_face_whose_pulse_wanders_has_no_steps(bpm):
    trace, _ = _trace(0.0)
    assert np.median(abs(region_steps(trace, bpm))) < 0.03


@pytest.mark.parametrize("seed", range(3))
def test_steps_at_the_detections_come_back_whole(seed):
    trace, steps = _trace(0.4, seed)
    found = region_steps(trace, 72.0)
    assert len(found) == len(steps) and np.median(abs(found)) == pytest.approx(np.median(abs(steps)), rel=0.1)
