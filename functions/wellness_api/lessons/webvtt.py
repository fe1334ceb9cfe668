"""A validating WebVTT parser (W3C WebVTT: "WebVTT file syntax"), for subtitle uploads.

It accepts a file only when it is UTF-8 text that starts with the "WEBVTT" signature line and whose
blocks are well-formed: NOTE comments, STYLE and REGION blocks (before the first cue), and cues made
of an optional unique identifier, a timing line `start --> end [settings]` with valid timestamps
(end after start, starts in order) and known cue settings, and a payload without "-->". A file with
no cue is refused: it would be an empty subtitle track.
"""

import dataclasses
import re

SIGNATURE = "WEBVTT"
ARROW = "-->"

# The syntax allows any number of hour digits; int() of thousands of them is a ValueError (Python's limit on
# digits), and no subtitle runs for 10^6 hours: more than six digits is not a timestamp here.
MAX_HOUR_DIGITS = 6
_TIMESTAMP = re.compile(rf"^(?:(\d{{2,{MAX_HOUR_DIGITS}}}):)?([0-5]\d):([0-5]\d)\.(\d{{3}})$")
# How much of an offending text an error quotes: a line can be the whole file.
MAX_QUOTED = 40
_WS = re.compile(r"[ \t]+")
_PERCENT = r"\d+(?:\.\d+)?%"
_SETTINGS = {
    "vertical": re.compile(r"^(?:rl|lr)$"),
    "line": re.compile(rf"^(?:-?\d+(?:\.\d+)?|{_PERCENT})(?:,(?:start|center|end))?$"),
    "position": re.compile(rf"^{_PERCENT}(?:,(?:line-left|center|line-right))?$"),
    "size": re.compile(rf"^{_PERCENT}$"),
    "align": re.compile(r"^(?:start|center|end|left|right)$"),
    "region": re.compile(r"^[^\s]+$"),
}


class WebVTTError(ValueError):
    def __init__(self, line: int, reason: str):
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Cue:
    identifier: str | None
    start: float
    end: float
    settings: str
    text: str


@dataclasses.dataclass(frozen=True)
class Track:
    cues: tuple[Cue, ...]

    @property
    def duration_seconds(self) -> float:
        return max(cue.end for cue in self.cues)


def parse_timestamp(text: str) -> float | None:
    """Seconds of a WebVTT timestamp `[hh:]mm:ss.ttt`, or None when it is not one."""
    match = _TIMESTAMP.match(text)
    if not match:
        return None
    hours, minutes, seconds, millis = match.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000


def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WebVTTError(data[: exc.start].count(b"\n") + 1, "the file is not UTF-8 text") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise WebVTTError(text[: text.index("\x00")].count("\n") + 1, "the file contains a NUL character")
    return text


def _quoted(text: str) -> str:
    return repr(text if len(text) <= MAX_QUOTED else text[:MAX_QUOTED] + "...")


def _is_keyword_line(line: str, keyword: str) -> bool:
    return line == keyword or line.startswith((keyword + " ", keyword + "\t"))


def _parse_timing(line: str, number: int) -> tuple[float, float, str]:
    head, sep, tail = line.partition(ARROW)
    if not sep or not head.endswith((" ", "\t")) or not tail.startswith((" ", "\t")):
        raise WebVTTError(number, "a cue timing line must read 'start --> end', with spaces around '-->'")
    start = parse_timestamp(head.strip(" \t"))
    if start is None:
        raise WebVTTError(number, f"invalid cue start time {_quoted(head.strip())}")
    parts = _WS.split(tail.strip(" \t"))
    end = parse_timestamp(parts[0])
    if end is None:
        raise WebVTTError(number, f"invalid cue end time {_quoted(parts[0])}")
    if end <= start:
        raise WebVTTError(number, "a cue must end after it starts")
    seen = set()
    for setting in parts[1:]:
        name, colon, value = setting.partition(":")
        pattern = _SETTINGS.get(name)
        if not colon or pattern is None or not pattern.match(value):
            raise WebVTTError(number, f"invalid cue setting {_quoted(setting)}")
        if name in seen:
            raise WebVTTError(number, f"cue setting {_quoted(name)} appears twice")
        seen.add(name)
    return start, end, " ".join(parts[1:])


def parse(data: bytes) -> Track:
    """The cues of a valid WebVTT file; WebVTTError (with a line number) for anything else."""
    lines = re.split(r"\r\n|\r|\n", _decode(data))
    first = lines[0]
    if not (first == SIGNATURE or first.startswith((SIGNATURE + " ", SIGNATURE + "\t"))) or ARROW in first:
        raise WebVTTError(1, "the first line must be 'WEBVTT'")

    # Header: the signature line and any legacy header lines, up to the first blank line.
    index = 1
    while index < len(lines) and lines[index] != "":
        if ARROW in lines[index]:
            raise WebVTTError(index + 1, "the header must be followed by a blank line before the first cue")
        index += 1

    cues: list[Cue] = []
    identifiers: set[str] = set()
    while index < len(lines):
        if lines[index] == "":
            index += 1
            continue
        start_line = index
        block = []
        while index < len(lines) and lines[index] != "":
            block.append(lines[index])
            index += 1
        number = start_line + 1
        head = block[0]
        if _is_keyword_line(head, "NOTE") and ARROW not in head:
            if any(ARROW in line for line in block):
                raise WebVTTError(number, "a NOTE block must not contain '-->'")
            continue
        if (_is_keyword_line(head, "STYLE") or _is_keyword_line(head, "REGION")) and ARROW not in head:
            if cues:
                raise WebVTTError(number, f"{head.split()[0]} blocks must come before the first cue")
            if any(ARROW in line for line in block):
                raise WebVTTError(number, f"a {head.split()[0]} block must not contain '-->'")
            continue
        identifier = None
        timing_at = 0
        if ARROW not in head:
            identifier = head
            if identifier in identifiers:
                raise WebVTTError(number, f"duplicate cue identifier {_quoted(identifier)}")
            identifiers.add(identifier)
            timing_at = 1
            if len(block) < 2:
                raise WebVTTError(number, "a cue identifier must be followed by a cue timing line")
        start, end, settings = _parse_timing(block[timing_at], number + timing_at)
        if cues and start < cues[-1].start:
            raise WebVTTError(number + timing_at, "cues must be in order of their start times")
        payload = block[timing_at + 1:]
        for offset, line in enumerate(payload):
            if ARROW in line:
                raise WebVTTError(number + timing_at + 1 + offset, "cue text must not contain '-->'")
        cues.append(Cue(identifier, start, end, settings, "\n".join(payload)))

    if not cues:
        raise WebVTTError(len(lines), "the file has no cues")
    return Track(tuple(cues))
