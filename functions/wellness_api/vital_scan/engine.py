"""The measurement engine behind POST /api/hosted/vital-scan/measurement: a colour trace in, metrics out.

The engine is a provider at the platform's edge (DESIGN "Providers at the edge"). The installed default is
the remote-photoplethysmography engine (vital_scan.rppg: POS pulse, spectral hr, beats, hrv, rr, si); a
trace that supports nothing gives None, and the session completes with metrics null (legal, 2.12).
`NoResultEngine` stays for tests that need an engine reporting nothing. Whatever an engine returns is
filtered by metrics.public_metrics before it is stored.
"""

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any, Protocol

from .rppg import RppgEngine  # light: numpy and scipy load only when a trace is measured


@dataclasses.dataclass(frozen=True)
class Trace:
    """Mean skin colour per frame: fps, frame times in milliseconds, [r, g, b] in 0-255."""

    fps: float
    t: list[float]
    rgb: list[list[float]]


class Engine(Protocol):
    def estimate(self, trace: Trace) -> dict[str, Any] | None:
        """Metrics the trace supports (unsupported ones omitted), or None for no result."""


class NoResultEngine:
    """Returns no metrics: the session completes with metrics null."""

    def estimate(self, trace: Trace) -> dict[str, Any] | None:
        return None


_engine: Engine = RppgEngine()


def current() -> Engine:
    return _engine


def install(engine: Engine) -> None:
    global _engine
    _engine = engine


@contextlib.contextmanager
def installed(engine: Engine) -> Iterator[Engine]:
    """Use `engine` for the duration of a block (tests of the storage path of engine results)."""
    previous = current()
    install(engine)
    try:
        yield engine
    finally:
        install(previous)
