"""The remote-photoplethysmography (rPPG) measurement engine: a mean skin-colour trace in, metrics out.

Method (each step cites its source in the module that holds it):

- `filters`: the trace resampled to a uniform 30 Hz, detrended and band-passed to 0.7-3.5 Hz (42-210 bpm).
- `pos`: the pulse wave by the Plane-Orthogonal-to-Skin method, W. Wang, A. C. den Brinker, S. Stuijk and
  G. de Haan, "Algorithmic Principles of Remote PPG", IEEE Trans. Biomed. Eng. 64(7), 2017; windows whose
  pulse amplitude jumps (motion) are left out of the overlap-add and masked.
- `spectrum`: hr from the spectral peak (parabolic interpolation), gated by the SNR of the peak and its
  harmonic as defined by G. de Haan and V. Jeanne, "Robust Pulse Rate From Chrominance-Based rPPG", IEEE
  Trans. Biomed. Eng. 60(10), 2013.
- `beats`: systolic peaks of the pulse wave, inter-beat intervals with artefact rejection.
- `hrv`: time-domain, Poincare and (long traces only) frequency-domain indices after the Task Force of the
  ESC and NASPE, "Heart rate variability: standards of measurement", Circulation 93(5), 1996, and
  Baevsky's stress index (R. M. Baevsky and A. G. Chernikova, "Heart rate variability analysis: physiological
  foundations and main methods", Cardiometry 10, 2017).
- `respiration`: rr from the respiratory modulations of the pulse (intensity, amplitude, frequency) fused as
  in W. Karlen, S. Raman, J. M. Ansermino and G. A. Dumont, "Multiparameter Respiratory Rate Estimation From
  the Photoplethysmogram", IEEE Trans. Biomed. Eng. 60(7), 2013.

What an RGB trace cannot measure (blood pressure, SpO2, HbA1c, cholesterol, risk scores) is never produced,
and whatever this trace cannot support is omitted. numpy and scipy are imported only when a trace is measured
(the `pipeline` module), so importing this package costs the function's cold start nothing.
"""

from typing import Any


class RppgEngine:
    """The engine installed by default (vital_scan.engine): POS pulse, spectral hr, beats, hrv, rr, si."""

    def estimate(self, trace) -> dict[str, Any] | None:
        from . import pipeline  # numpy and scipy load here, on the measurement path only

        return pipeline.measure(trace.fps, trace.t, trace.rgb)

    def assess(self, trace) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """(metrics or None, internal quality: the gates' measures and the reason a metric is omitted)."""
        from . import pipeline

        return pipeline.assess(trace.fps, trace.t, trace.rgb)
