"""Token estimates, for usage the model did not report (a stream cut off, a client gone, the local assistant).

One token per CJK character and one per four other characters (rounded up): close to what BPE tokenizers
count for English and Chinese text, and never zero for a non-empty text, so an estimated request is never free.
"""

import itertools
import json
import math
import re
from typing import Any


def is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x3000 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF or 0x20000 <= code <= 0x2FA1F


def estimate(text: str) -> int:
    cjk = sum(1 for char in text if is_cjk(char))
    return cjk + math.ceil((len(text) - cjk) / 4)


# Per message, what chat formats add around its content (role markers, separators).
MESSAGE_OVERHEAD = 4


def estimate_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """The prompt tokens of a chat request: every message's text, tool calls and tool definitions."""
    total = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):  # content parts: count the text ones
            content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
        total += MESSAGE_OVERHEAD + estimate(content if isinstance(content, str) else "")
        if message.get("tool_calls"):
            total += estimate(json.dumps(message["tool_calls"], ensure_ascii=False))
    if tools:
        total += estimate(json.dumps(tools, ensure_ascii=False))
    return total


def features(text: str) -> list[str]:
    """Lower-cased words, and each CJK character with its pair to the next (Chinese has no spaces)."""
    lowered = text.lower()
    found = re.findall(r"[a-z0-9]+", lowered)
    cjk = [char for char in lowered if is_cjk(char)]
    return found + cjk + [a + b for a, b in itertools.pairwise(cjk)]
