"""The WebVTT validator (pure)."""

import pytest

from wellness_api.lessons import webvtt

GOOD = b"""WEBVTT - demo track

NOTE a comment
spanning lines

STYLE
::cue { color: yellow }

intro
00:00:00.000 --> 00:00:02.500 align:start position:10%,line-left
Hello <b>there</b>

00:01.000 --> 00:04.000
Overlapping cues are fine
on two lines

01:00:00.000 --> 01:00:01.000 line:-1 size:50% vertical:rl
An hour in
"""


def test_a_valid_file_parses_into_cues():
    track = webvtt.parse(GOOD)
    assert [c.identifier for c in track.cues] == ["intro", None, None]
    assert [(c.start, c.end) for c in track.cues] == [(0.0, 2.5), (1.0, 4.0), (3600.0, 3601.0)]
    assert track.cues[1].text == "Overlapping cues are fine\non two lines"
    assert track.duration_seconds == 3601.0


@pytest.mark.parametrize("data", [
    b"\xef\xbb\xbfWEBVTT\n\n00:00.000 --> 00:01.000\nbom\n",
    b"WEBVTT\r\n\r\n00:00.000 --> 00:01.000\r\ncrlf\r\n",
    b"WEBVTT\r\r00:00.000 --> 00:01.000\rcr only",
    b"WEBVTT\tx\n\n00:00.000\t-->\t00:01.000\ntabs\n",
    b"WEBVTT\nKind: captions\nLanguage: en\n\n00:00.000 --> 00:01.000\nlegacy header\n",
    "WEBVTT\n\n00:00.000 --> 00:01.000\n中文字幕\n".encode(),
])
def test_valid_variants(data):
    assert len(webvtt.parse(data).cues) == 1


@pytest.mark.parametrize(("data", "line", "reason"), [
    (b"", 1, "first line"),
    (b"1\n00:00:01,000 --> 00:00:02,000\nSRT\n", 1, "first line"),
    (b"WEBVTTX\n\n00:00.000 --> 00:01.000\nx\n", 1, "first line"),
    (b"webvtt\n\n00:00.000 --> 00:01.000\nx\n", 1, "first line"),
    (b"WEBVTT\n00:00.000 --> 00:01.000\nx\n", 2, "blank line"),
    (b"WEBVTT\n\n", 3, "no cues"),
    (b"WEBVTT\n\nNOTE only a note\n", 4, "no cues"),
    (b"WEBVTT\n\n00:00,000 --> 00:01.000\nx\n", 3, "start time"),
    (b"WEBVTT\n\n00:00.000 --> 00:61.000\nx\n", 3, "end time"),
    (b"WEBVTT\n\n0:00:00.000 --> 00:01.000\nx\n", 3, "start time"),
    (b"WEBVTT\n\n00:00.000 -> 00:01.000\nx\n", 4, "timing line"),
    (b"WEBVTT\n\n00:00.000-->00:01.000\nx\n", 3, "spaces"),
    (b"WEBVTT\n\n00:02.000 --> 00:01.000\nx\n", 3, "end after"),
    (b"WEBVTT\n\n00:01.000 --> 00:01.000\nx\n", 3, "end after"),
    (b"WEBVTT\n\n00:05.000 --> 00:06.000\na\n\n00:01.000 --> 00:02.000\nb\n", 6, "order"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000 align:middle\nx\n", 3, "setting"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000 color:red\nx\n", 3, "setting"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000 size:50% size:40%\nx\n", 3, "twice"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000\nx --> y\n", 4, "cue text"),
    (b"WEBVTT\n\nid\n00:00.000 --> 00:01.000\na\n\nid\n00:02.000 --> 00:03.000\nb\n", 7, "duplicate"),
    (b"WEBVTT\n\nlonely identifier\n", 3, "followed by"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000\na\n\nSTYLE\n::cue {}\n", 6, "before the first cue"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000\n\xff\xfe\n", 4, "UTF-8"),
    (b"WEBVTT\n\n00:00.000 --> 00:01.000\nnul\x00\n", 4, "NUL"),
])
def test_invalid_files_are_refused_with_a_line(data, line, reason):
    with pytest.raises(webvtt.WebVTTError) as err:
        webvtt.parse(data)
    assert err.value.line == line
    assert reason in err.value.reason


@pytest.mark.parametrize(("text", "seconds"), [
    ("00:00.000", 0.0), ("59:59.999", 3599.999), ("100:00:00.001", 360000.001), ("01:02:03.004", 3723.004),
    ("1:00.000", None), ("00:00.00", None), ("00:60.000", None), ("00:00:00", None),
])
def test_timestamps(text, seconds):
    assert webvtt.parse_timestamp(text) == seconds
