"""Accuracy of the rPPG engine on the synthetic benchmark (issue 9); no emulators needed.

Run directly (`functions/venv/bin/python bench/vital_scan_accuracy.py`) or as part of `make bench`.
Per difficulty level (bench/rppg_synthetic.py): TRACES seeded 30 s traces at 30 fps, heart rates drawn
uniformly from 45-180 bpm and breathing from 8-24 breaths/min. Printed per level: the heart-rate mean
absolute error over the traces where hr is reported, the share where hr is omitted, the same two for rr
and for hrv (SDNN), and the engine's median time per 30 s trace, and the one-off import of numpy and scipy.
"""

import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
for path in (str(ROOT / "functions"), str(ROOT)):
    if path not in sys.path:
        sys.path.insert(0, path)

TRACES = 60
SEED = 2017


def cases(level: str, n: int = TRACES):
    import numpy as np

    from bench import rppg_synthetic

    rng = np.random.default_rng(SEED)
    for i in range(n):
        hr, rr = rng.uniform(45, 180), rng.uniform(8, 24)
        yield rppg_synthetic.generate(hr, rr, level, seconds=30, fps=30, seed=SEED + i)


def first_measurement_import() -> float:
    """Seconds a fresh interpreter spends importing the measurement path (numpy, scipy): what the first
    measurement of a function instance pays once, on top of the engine's time per trace."""
    import subprocess

    code = ("import time; t = time.perf_counter(); from wellness_api.vital_scan.rppg import pipeline;"
            " print(time.perf_counter() - t)")
    runs = [float(subprocess.run([sys.executable, "-c", code], cwd=ROOT / "functions", capture_output=True, text=True,
                                 check=True).stdout.strip().splitlines()[-1]) for _ in range(3)]
    return statistics.median(runs)


def _mean(values):
    return f"{statistics.fmean(values):6.2f}" if values else "     -"


def main(n: int = TRACES) -> None:
    from bench import rppg_synthetic
    from wellness_api.vital_scan.engine import Trace
    from wellness_api.vital_scan.rppg import RppgEngine

    engine = RppgEngine()
    engine.estimate(Trace(30, [i * 1000 / 30 for i in range(3)], [[1, 1, 1]] * 3))  # load numpy/scipy first
    print(f"\n== Vital Scan engine accuracy (synthetic, {n} traces of 30 s at 30 fps per level, hr 45-180 bpm,"
          " rr 8-24/min)")
    print(f"{'level':9} {'hr MAE':>7} {'hr omitted':>10} {'hr err>5':>8} {'rr MAE':>7} {'rr omitted':>10}"
          f" {'SDNN MAE':>8} {'hrv omitted':>11} {'ms/trace':>8}")
    for level in rppg_synthetic.LEVELS:
        hr_err, rr_err, sdnn_err, times = [], [], [], []
        for case in cases(level, n):
            start = time.perf_counter()
            metrics = engine.estimate(Trace(case.fps, case.t, case.rgb)) or {}
            times.append(time.perf_counter() - start)
            if "hr" in metrics:
                hr_err.append(abs(metrics["hr"] - case.truth.hr))
            if "rr" in metrics:
                rr_err.append(abs(metrics["rr"] - case.truth.rr))
            if "hrv" in metrics:
                sdnn_err.append(abs(metrics["hrv"] - case.truth.sdnn))
        big = sum(e > 5 for e in hr_err)
        print(f"{level:9} {_mean(hr_err):>7} {1 - len(hr_err) / n:10.0%} {big:8d} {_mean(rr_err):>7}"
              f" {1 - len(rr_err) / n:10.0%} {_mean(sdnn_err):>8} {1 - len(sdnn_err) / n:11.0%}"
              f" {statistics.median(times) * 1000:8.1f}")
    print("(MAE over the traces where the metric is reported; hr err>5: reported heart rates more than 5 bpm off.)")
    print(f"first measurement of an instance also imports numpy and scipy: {first_measurement_import() * 1000:.0f} ms"
          " (median of 3 fresh interpreters; `import main` loads neither)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
