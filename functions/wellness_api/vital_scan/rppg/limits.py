"""The largest trace the engine measures. No numpy here: the request models import these bounds too.

The hosted page captures 30 s; a scan may last up to MAX_SECONDS, which leaves room for the frequency-domain
HRV (hrv.MIN_SPECTRAL_SPAN, 2 minutes of beats) and still bounds every array of the measurement. Everything
the engine allocates is sized by the span (resampled to filters.FS) or by the frame count, so these two caps
bound its memory whatever the caller sends.
"""

MAX_SECONDS = 180  # the longest scan: first to last frame
MAX_FRAME_RATE = 240  # Hz: the fastest camera whose trace is accepted (the fps of a trace)
MAX_FRAMES = MAX_SECONDS * MAX_FRAME_RATE + 1  # the first frame plus one per frame period
