"""Text a person types: reusable pydantic types that refuse characters nobody types on purpose.

- `SingleLine`: names, labels, titles, ids. Refuses every control character (C0 U+0000-U+001F with
  TAB, CR and LF, DEL U+007F, C1 U+0080-U+009F), the line and paragraph separators U+2028/U+2029,
  the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069: they make
  text display differently from what it is, "Trojan Source") and unpaired surrogates (which cannot
  be stored as UTF-8). The plain direction marks LRM/RLM (U+200E/U+200F) and ALM (U+061C) are
  allowed: they are typed in mixed right-to-left text and cannot reorder anything.
- `MultiLine`: descriptions. The same, except that LF, TAB, CRLF and U+2028/U+2029 are allowed;
  a CR that is not followed by LF is refused.

Both are AfterValidators raising PydanticCustomError, so core.http.validate words the 400 as
"Invalid field <field>: <reason>." like every other field error. Length limits stay with the field
(`Annotated[SingleLine, Field(max_length=...)]`).
"""

import re
from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

_CONTROL = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_BIDI = "\u202a-\u202e\u2066-\u2069"
_SURROGATE = "\ud800-\udfff"

_SINGLE_LINE_BAD = re.compile(f"[{_CONTROL}\t\n\r\u2028\u2029]")
_MULTI_LINE_BAD = re.compile(f"[{_CONTROL}]|\r(?!\n)")
_BIDI_BAD = re.compile(f"[{_BIDI}]")
_SURROGATE_BAD = re.compile(f"[{_SURROGATE}]")

SINGLE_LINE_MESSAGE = "must be one line without control characters"
MULTI_LINE_MESSAGE = "must not contain control characters other than line breaks and tabs"
BIDI_MESSAGE = "must not contain bidirectional override or isolate characters"
SURROGATE_MESSAGE = "must not contain unpaired surrogates"


def _common(value: str) -> None:
    if _BIDI_BAD.search(value):
        raise PydanticCustomError("bidi_control", BIDI_MESSAGE)
    if _SURROGATE_BAD.search(value):
        raise PydanticCustomError("unpaired_surrogate", SURROGATE_MESSAGE)


def single_line(value: str) -> str:
    """`value` unchanged, or PydanticCustomError when it holds a character refused in one line of text."""
    if _SINGLE_LINE_BAD.search(value):
        raise PydanticCustomError("control_character", SINGLE_LINE_MESSAGE)
    _common(value)
    return value


def multi_line(value: str) -> str:
    """`value` unchanged, or PydanticCustomError when it holds a character refused in multi-line text."""
    if _MULTI_LINE_BAD.search(value):
        raise PydanticCustomError("control_character", MULTI_LINE_MESSAGE)
    _common(value)
    return value


SingleLine = Annotated[str, AfterValidator(single_line)]
MultiLine = Annotated[str, AfterValidator(multi_line)]
