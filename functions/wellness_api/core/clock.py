"""The current time, in one place, so that tests can move it (expiry, throttles, rate windows)."""

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import overload

_offset = dt.timedelta(0)


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC) + _offset


def advance(delta: dt.timedelta) -> None:
    """Move the clock forward (tests only)."""
    global _offset
    _offset += delta


@contextlib.contextmanager
def shifted(delta: dt.timedelta) -> Iterator[None]:
    """The clock moved by `delta` inside the block (demo data dated in the past; single-threaded callers)."""
    advance(delta)
    try:
        yield
    finally:
        advance(-delta)


def reset() -> None:
    global _offset
    _offset = dt.timedelta(0)


@overload
def iso(value: dt.datetime) -> str: ...
@overload
def iso(value: None) -> None: ...
@overload
def iso(value: dt.datetime | None) -> str | None: ...
def iso(value: dt.datetime | None) -> str | None:
    """ISO 8601 in UTC with millisecond precision and a Z, the spec's timestamp form."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
