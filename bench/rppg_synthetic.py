"""Seeded synthetic colour traces with known truth, for the rPPG engine's benchmark and unit tests.

The model (everything seeded, so a (hr, rr, level, seed) always gives the same trace):

- Beats: inter-beat intervals around 60/hr with beat-to-beat variability (white, 1.5 % of the interval),
  a 0.1 Hz Mayer-wave component (3 %) and respiratory sinus arrhythmia at the breathing rate (5 %).
- Pulse shape per beat: a systolic wave and a dicrotic wave (two Gaussians in the cardiac phase, the
  dicrotic notch between them), its amplitude modulated by breathing (15 %) and its baseline shifted by
  breathing (the three respiratory modulations of the PPG).
- Colour: skin tone [150, 110, 90] times illumination (a slow drift common to the channels plus a small
  colour-temperature drift) times (1 - A * pbv * pulse), with the blood-volume pulse signature
  pbv = [0.33, 0.77, 0.53] of Wang et al. 2017 and A = 0.6 %; then Gaussian sensor noise per channel.
- Motion bursts (1-3 s): a band-limited disturbance in intensity, specular (white) light and a random colour
  direction, several times the pulse in size.
- Frame times: the nominal rate with jitter and dropped frames.

Difficulty levels: clean (low noise, slight drift), moderate (more noise, drift, one motion burst),
hard (noise near the pulse size, strong drift and four bursts).
"""

import dataclasses

import numpy as np

SKIN = np.array([150.0, 110.0, 90.0])
PBV = np.array([0.33, 0.77, 0.53])
PULSE_AMPLITUDE = 0.006


@dataclasses.dataclass(frozen=True)
class Level:
    noise: float  # sensor noise, 0-255 units per channel
    drift: float  # relative illumination drift
    bursts: int  # motion bursts
    burst_size: float  # relative to the pulse amplitude
    jitter: float  # s, frame-time jitter
    drops: float  # share of dropped frames


LEVELS = {
    "clean": Level(noise=0.05, drift=0.01, bursts=0, burst_size=0.0, jitter=0.001, drops=0.0),
    "moderate": Level(noise=0.2, drift=0.03, bursts=1, burst_size=4.0, jitter=0.003, drops=0.01),
    "hard": Level(noise=0.6, drift=0.06, bursts=4, burst_size=10.0, jitter=0.006, drops=0.03),
}


@dataclasses.dataclass(frozen=True)
class Truth:
    hr: float  # bpm, 60 / mean inter-beat interval within the trace
    rr: float  # breaths/min
    sdnn: float  # ms
    ibi: np.ndarray  # s


@dataclasses.dataclass(frozen=True)
class Synthetic:
    fps: float
    t: list[float]  # ms
    rgb: list[list[float]]
    truth: Truth
    bursts: list[tuple[float, float]]  # (start, end) s of each motion burst


def _beats(rng, hr: float, rr: float, seconds: float) -> np.ndarray:
    mean = 60.0 / hr
    fr, phase_r, phase_m = rr / 60.0, rng.uniform(0, 2 * np.pi), rng.uniform(0, 2 * np.pi)
    times = [-rng.uniform(0, mean)]
    while times[-1] < seconds + 2:
        t = times[-1]
        interval = mean * (1 + 0.05 * np.sin(2 * np.pi * fr * t + phase_r) + 0.03 * np.sin(2 * np.pi * 0.1 * t + phase_m)
                           + 0.015 * rng.standard_normal())
        times.append(t + interval)
    return np.array(times)


def _pulse(t: np.ndarray, beats: np.ndarray, rr: float, phase_r: float) -> np.ndarray:
    k = np.clip(np.searchsorted(beats, t, side="right") - 1, 0, len(beats) - 2)
    phi = (t - beats[k]) / (beats[k + 1] - beats[k])
    shape = np.exp(-0.5 * ((phi - 0.2) / 0.09) ** 2) + 0.45 * np.exp(-0.5 * ((phi - 0.52) / 0.1) ** 2)
    breathing = np.sin(2 * np.pi * rr / 60.0 * t + phase_r)
    return shape * (1 + 0.15 * breathing) + 0.3 * breathing


def _smooth_noise(rng, t: np.ndarray, scale: float, low: float, high: float) -> np.ndarray:
    """A random sum of sinusoids between low and high Hz with unit standard deviation, times scale."""
    freqs = rng.uniform(low, high, 12)
    phases = rng.uniform(0, 2 * np.pi, 12)
    x = np.sin(2 * np.pi * freqs[:, None] * t[None, :] + phases[:, None]).sum(axis=0)
    return scale * x / max(np.std(x), 1e-12)


def generate(hr: float, rr: float, level: str = "clean", seconds: float = 30.0, fps: float = 30.0,
             seed: int = 0) -> Synthetic:
    spec = LEVELS[level]
    rng = np.random.default_rng(seed)
    beats = _beats(rng, hr, rr, seconds)
    n = int(seconds * fps) + 1
    t = np.arange(n) / fps + spec.jitter * rng.standard_normal(n).clip(-3, 3)
    t[0] = 0.0
    keep = rng.random(n) >= spec.drops
    keep[0] = keep[-1] = True
    t = np.maximum.accumulate(t[keep])
    t = t + np.arange(len(t)) * 1e-6  # strictly increasing
    pulse = _pulse(t, beats, rr, rng.uniform(0, 2 * np.pi))
    pulse = pulse - pulse.mean()
    illumination = 1 + _smooth_noise(rng, t, spec.drift, 0.005, 0.08)
    tint = 1 + np.outer(_smooth_noise(rng, t, spec.drift / 4, 0.005, 0.05), rng.normal(0, 1, 3))
    colour = SKIN * illumination[:, None] * tint * (1 - PULSE_AMPLITUDE * PBV * pulse[:, None])
    bursts = []
    pulse_size = PULSE_AMPLITUDE * SKIN.mean()
    for _ in range(spec.bursts):
        length = rng.uniform(1.0, 3.0)
        start = rng.uniform(1.0, seconds - length - 1.0)
        inside = (t >= start) & (t <= start + length)
        envelope = np.sin(np.pi * (t[inside] - start) / length) ** 2
        size = spec.burst_size * pulse_size
        intensity = _smooth_noise(rng, t[inside], size / SKIN.mean(), 0.3, 4.0) * envelope
        specular = _smooth_noise(rng, t[inside], size, 0.3, 4.0) * envelope
        direction = rng.normal(0, 1, 3)
        other = _smooth_noise(rng, t[inside], size, 0.3, 4.0) * envelope
        colour[inside] *= 1 + intensity[:, None]
        colour[inside] += specular[:, None] + np.outer(other, direction / np.linalg.norm(direction))
        bursts.append((float(start), float(start + length)))
    colour += spec.noise * rng.standard_normal(colour.shape)
    inside = (beats[:-1] >= 0) & (beats[1:] <= t[-1])
    ibi = np.diff(beats)[inside]
    truth = Truth(hr=float(60.0 / ibi.mean()), rr=float(rr), sdnn=float(np.std(ibi * 1000, ddof=1)), ibi=ibi)
    return Synthetic(fps=fps, t=[float(x) for x in t * 1000.0], rgb=colour.tolist(), truth=truth, bursts=bursts)


def noise_only(seconds: float = 30.0, fps: float = 30.0, seed: int = 0, noise: float = 0.3) -> Synthetic:
    """Skin colour with sensor noise and drift but no pulse: the engine must not report a heart rate."""
    rng = np.random.default_rng(seed)
    n = int(seconds * fps) + 1
    t = np.arange(n) / fps
    illumination = 1 + _smooth_noise(rng, t, 0.02, 0.005, 0.08)
    colour = SKIN * illumination[:, None] + noise * rng.standard_normal((n, 3))
    truth = Truth(hr=float("nan"), rr=float("nan"), sdnn=float("nan"), ibi=np.array([]))
    return Synthetic(fps=fps, t=[float(x) for x in t * 1000.0], rgb=colour.tolist(), truth=truth, bursts=[])
