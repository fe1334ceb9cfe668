"""Scanning on: a trace the hosted page is still recording may be answered "go on" instead of completing.

A 30 s trace often gives a heart rate but no breathing rate, which needs about a minute of calm signal (the
engine's gates). When the page says it is still recording (`recording: true` on the measurement), such a trace
is answered `{"status": "in_progress", "scanOn": "rr"}`: the first part's metrics are kept with the session,
the page records on to a minute and sends the whole trace, and the session completes with the metrics of the
whole trace, each one the whole trace lacks taken from the first part where the whole trace confirms the first
part's heart rate (CONFIRMED_WITHIN). A whole trace without a heart rate is answered on its own: "try again" while
tries are left, so the page records on past the minute as for a weak pulse. The first part counts only when the
whole trace begins with it frame for frame: a new capture (a reload, a restart) is measured on its own.

Carrying a heart rate the longer look at the same face could not read was wrong on 8 of the 197 fresh scans whose
minute lost it (4 %; moderate and hard 175 s traces, seeds 1220000-1222999 and 1230000-1232999, 3,000 of each
level in each range). Recorded on to 120 and 175 s, 164 of the 197 read a rate of their own, none more than 10 bpm
off; 33 (0.3 % of the 12,000 scans) end without one.

On the bench's moderate traces the page's scan reads rr on 65 % of scans, their first 30 s alone on 23 %; on clean
traces 98 % against 76 % (bench/vital_scan_accuracy.py, the page's table; figures at 3607efb in docs/figures.md).
"""

import hashlib
import itertools
from array import array
from typing import Any

from .models import MAX_RETRIES

SCAN_ON_FOR = "rr"
# A trace spanning this much or more is long enough already: the page scans on from 30 s to 60 s.
SCAN_ON_UNDER_MS = 45_000
# The whole trace confirms the first part's heart rate when it reads one this close (a share of the first's).
CONFIRMED_WITHIN = 0.1
# Answers "scanOn" per session: one per try, so a caller cannot have the engine run without end.
MAX_SCAN_ONS = MAX_RETRIES + 1


def wanted(metrics: dict[str, Any] | None, t: list[float]) -> str | None:
    """The metric a longer scan of the same capture may add ("rr"), or None."""
    if metrics and "hr" in metrics and SCAN_ON_FOR not in metrics and t[-1] < SCAN_ON_UNDER_MS:
        return SCAN_ON_FOR
    return None


def digest(t: list[float], rgb: list[list[float]], frames: int) -> str:
    """A fingerprint of the first `frames` frames (times and colours; fps is left out, it is the whole trace's)."""
    h = hashlib.sha256(array("d", t[:frames]).tobytes())
    h.update(array("d", itertools.chain.from_iterable(rgb[:frames])).tobytes())
    return h.hexdigest()


def first_part(t: list[float], rgb: list[list[float]], metrics: dict[str, Any] | None,
               quality: dict[str, Any]) -> dict[str, Any]:
    """What the session keeps of a trace answered "scanOn" (internal, like the quality)."""
    return {"frames": len(t), "digest": digest(t, rgb, len(t)), "metrics": metrics, "quality": quality}


def carried(first: dict[str, Any] | None, t: list[float], rgb: list[list[float]]) -> dict[str, Any] | None:
    """The stored first part if this trace begins with it frame for frame and goes on past it, else None."""
    if not first or len(t) <= first["frames"]:
        return None
    return first if digest(t, rgb, first["frames"]) == first["digest"] else None


def merge(first: dict[str, Any] | None, whole: dict[str, Any] | None) -> dict[str, Any] | None:
    """The whole trace's metrics, with each one it lacks taken from its first part where it confirms the first
    part's heart rate (`confirms`); else the whole trace's alone."""
    return {**first, **whole} if first and whole and confirms(first, whole) else whole


def confirms(first: dict[str, Any], whole: dict[str, Any]) -> bool:
    """The whole trace reads a heart rate within CONFIRMED_WITHIN of its first part's."""
    return "hr" in first and "hr" in whole and abs(whole["hr"] - first["hr"]) <= CONFIRMED_WITHIN * first["hr"]
