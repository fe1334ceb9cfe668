"""core/text.py: single-line and multi-line text that refuses characters nobody types on purpose."""

import pytest
from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticCustomError

from wellness_api.core import http
from wellness_api.core.http import BodyError
from wellness_api.core.text import MultiLine, SingleLine, single_line


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: SingleLine = ""
    notes: MultiLine = ""


REFUSED_EVERYWHERE = [
    "\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f",
    "\r",  # a lone CR
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
    "\ud800", "\udfff",  # unpaired surrogates (JSON "\ud800" decodes to one)
]
LINE_BREAKS = ["\n", "\t", "\r\n", "\u2028", "\u2029"]
ALLOWED = ["plain", "Crème brûlée", "中文 標題", "عربي\u200fEnglish", "a\u200eb", "\u061c", "emoji 🧘", "a  b"]


@pytest.mark.parametrize("char", REFUSED_EVERYWHERE + LINE_BREAKS)
def test_single_line_refuses_control_line_break_and_bidi_override_characters(char):
    with pytest.raises(BodyError) as err:
        http.validate(Body, {"name": f"Morning{char}Flow"})
    assert err.value.status == 400 and err.value.field == "name"
    assert err.value.message.startswith("Invalid field name: must ")
    with pytest.raises(PydanticCustomError):
        single_line(f"a{char}b")


@pytest.mark.parametrize("char", REFUSED_EVERYWHERE)
def test_multi_line_refuses_the_same_except_line_breaks_and_tabs(char):
    with pytest.raises(BodyError) as err:
        http.validate(Body, {"notes": f"first line\nsecond{char}line"})
    assert err.value.field == "notes" and err.value.message.startswith("Invalid field notes: must not contain ")


@pytest.mark.parametrize("char", LINE_BREAKS)
def test_multi_line_allows_lf_crlf_tab_and_unicode_line_separators(char):
    assert http.validate(Body, {"notes": f"first{char}second"}).notes == f"first{char}second"


@pytest.mark.parametrize("text", ALLOWED)
def test_text_people_type_is_kept_as_sent(text):
    body = http.validate(Body, {"name": text, "notes": text})
    assert body.name == text and body.notes == text


def test_the_messages():
    messages = {}
    for value in ("a\x00", "a\u202e", "a\ud800"):
        with pytest.raises(BodyError) as err:
            http.validate(Body, {"name": value})
        messages[value] = err.value.message
    assert messages == {
        "a\x00": "Invalid field name: must be one line without control characters.",
        "a\u202e": "Invalid field name: must not contain bidirectional override or isolate characters.",
        "a\ud800": "Invalid field name: must not contain unpaired surrogates.",
    }
    with pytest.raises(BodyError) as err:
        http.validate(Body, {"notes": "a\x00"})
    assert err.value.message == "Invalid field notes: must not contain control characters other than line breaks and tabs."
