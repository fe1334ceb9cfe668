"""Docs pages whose tables `make bench` writes: generated text goes between a begin and an end marker, stamped
with the commit and the day measured; the hand-written text around the markers stays as it is.

bench/figures.py (docs/figures.md, one section per part of the bench) uses it; bench/capacity.py's
docs/capacity.md follows the same marker form (`<!-- NAME:generated:begin -->`).
"""

import datetime as dt
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]
# A change under these makes the measured code differ from the commit: the stamp says so.
MEASURED_CODE = ("functions", "bench", "support")


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:generated:begin -->", f"<!-- {name}:generated:end -->"


def replace_between(current: str, begin: str, end: str, text: str) -> str:
    """`current` with what lies between the first `begin` and the next `end` replaced by `text` (markers kept);
    without those markers, they and `text` are appended at the end."""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    section = f"{begin}\n{text.strip(chr(10))}\n{end}"
    if not pattern.search(current):
        return current.rstrip("\n") + f"\n\n{section}\n"
    return pattern.sub(lambda _: section, current, count=1)


def commit() -> str:
    """The commit measured; `+changes` when the measured code (MEASURED_CODE) differs from it."""
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", *MEASURED_CODE], cwd=ROOT).returncode
    return (out.stdout.strip() or "unknown") + ("+changes" if changed else "")


def today() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
