"""The local assistant (model `local`): no language model, a small documented engine on OpenAI's wire format.

A turn that ends with the user's message is matched to an intent by its words (local_texts.INTENT_WORDS; a
medical question first): when the intent's tool is among the request's tools, the answer is a call of that tool
(finish_reason tool_calls), the same call an LLM would make; a medical question gets the not-a-diagnosis answer;
anything else an introduction of what the assistant can do. A turn that ends with tool results is answered from
them with the templates of the conversation's language. Answers stream as OpenAI chunks of a few words, with the
usage chunk when stream_options.include_usage asks for it; tokens are estimated (assistant.tokens).
"""

import base64
import hashlib
import json
import math
import re
import struct
import time
import uuid
from collections.abc import Generator
from typing import Any

from .. import sse, tokens
from .base import UpstreamError
from .local_texts import INTENT_WORDS, SIMPLIFIED_ONLY, TEXTS, TRADITIONAL_ONLY

MODEL = "local"
# intent -> the tool that answers it
INTENT_TOOLS = {
    "exercise": "get_exercise_activity",
    "vitals": "get_latest_vital_scan",
    "lessons": "find_lessons",
    "help": "search_help_articles",
}
MAX_ARGUMENT_CHARS = 200
EMBEDDING_DIMENSIONS = 256
MAX_EMBEDDING_DIMENSIONS = 3072
# Values in one answer (inputs x dimensions): about 6 MB of JSON and a bounded worker's memory at the most.
MAX_EMBEDDING_VALUES = 262_144


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")
    return content if isinstance(content, str) else ""


def locale_of(messages: list[dict[str, Any]]) -> str:
    """en, zh-Hant or zh-Hans: the script most of the conversation (its system prompt included) is written in."""
    text = " ".join(_text(m) for m in messages if isinstance(m, dict))
    traditional = sum(1 for char in text if char in TRADITIONAL_ONLY)
    simplified = sum(1 for char in text if char in SIMPLIFIED_ONLY)
    if traditional or simplified:
        return "zh-Hant" if traditional > simplified else "zh-Hans"
    # Chinese without a character that tells the scripts apart: the more widely written one.
    return "zh-Hans" if any(tokens.is_cjk(char) for char in text) else "en"


def intent_of(text: str) -> str | None:
    lowered = text.lower()
    scores = {intent: sum(1 for word in words if word in lowered) for intent, words in INTENT_WORDS.items()}
    if scores["medical"]:
        return "medical"
    best = max(scores, key=lambda intent: scores[intent])  # ties: the first in INTENT_WORDS
    return best if scores[best] else None


def _tool_names(tools: Any) -> set[str]:
    names = set()
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names


# ------------------------------------------------------------------------------------------ answers from tool results


def _number(value: Any) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.1f}"
    return str(int(value)) if isinstance(value, int | float) else str(value)


def _exercise(result: dict[str, Any], words: dict[str, str]) -> str:
    if not result.get("sessionsCompleted"):
        return words["exercise_none"]
    text = words["exercise_total"].format(sessions=result["sessionsCompleted"], reps=_number(result.get("totalReps", 0)),
                                          minutes=_number(result.get("totalMinutes", 0)))
    recent = (result.get("recentSessions") or [None])[0]
    if recent:
        detail = ""
        if recent.get("reps"):
            detail += words["exercise_reps"].format(reps=recent["reps"])
        if recent.get("formScore") is not None:
            detail += words["exercise_form"].format(score=_number(recent["formScore"]))
        text += words["exercise_last"].format(exercise=recent.get("exercise"), date=recent.get("date"),
                                              status=recent.get("status"), detail=detail)
    return text + words["exercise_tip"]


def _vitals(result: dict[str, Any], words: dict[str, str]) -> str:
    scan = result.get("scan")
    if not scan:
        return words["vitals_none"]
    readings = [words[key].format(value=_number(scan[name])) for name, key in (
        ("heartRateBpm", "vitals_hr"), ("breathingRatePerMinute", "vitals_rr"), ("hrvMs", "vitals_hrv"),
        ("oxygenSaturationPercent", "vitals_spo2")) if scan.get(name) is not None]
    pressure = scan.get("bloodPressureMmHg")
    if pressure:
        readings.append(words["vitals_bp"].format(sbp=_number(pressure["systolic"]), dbp=_number(pressure["diastolic"])))
    return (words["vitals_intro"].format(date=scan.get("measuredAt")) + (words["separator"].join(readings) or
                                                                          words["vitals_empty"]) + words["vitals_note"])


def _listing(items: list[dict[str, Any]], intro: str, none: str, detail: str, link: str | None = None) -> str:
    if not items:
        return none
    lines = [intro]
    for number, item in enumerate(items, 1):
        line = f"{number}. {item.get('title')}"
        if item.get(detail):
            line += f": {item[detail]}"
        if link and item.get(link):
            line += f" ({item[link]})"
        lines.append(line)
    return "\n".join(lines)


def _from_result(name: str, result: Any, words: dict[str, str]) -> str:
    if not isinstance(result, dict) or "error" in result:
        return words["unavailable"]
    if name == "get_exercise_activity":
        return _exercise(result, words)
    if name == "get_latest_vital_scan":
        return _vitals(result, words)
    if name == "find_lessons":
        return _listing(result.get("lessons") or [], words["lessons_intro"], words["lessons_none"], "description")
    if name == "search_help_articles":
        return _listing(result.get("articles") or [], words["help_intro"], words["help_none"], "excerpt", "url")
    return words["unavailable"]


def _tool_results(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """(tool name, parsed result) of the tool messages that end the conversation, in order."""
    names: dict[str, str] = {}
    results: list[tuple[str, Any]] = []
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                names[call.get("id")] = (call.get("function") or {}).get("name", "")
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        try:
            parsed = json.loads(_text(message))
        except ValueError:
            parsed = None
        results.append((names.get(message.get("tool_call_id"), ""), parsed))
    return list(reversed(results))


# ------------------------------------------------------------------------------------------ the turn


def decide(messages: list[dict[str, Any]], tools: Any) -> tuple[str | None, dict[str, Any] | None]:
    """(answer text, None) or (None, a tool call {name, arguments}) for the conversation so far."""
    words = TEXTS[locale_of(messages)]
    if messages and messages[-1].get("role") == "tool":
        return "\n\n".join(_from_result(name, result, words) for name, result in _tool_results(messages)), None
    question = next((_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    intent = intent_of(question)
    if intent == "medical":
        return words["medical"], None
    tool = INTENT_TOOLS.get(intent or "")
    if tool and tool in _tool_names(tools):
        argument = {"find_lessons": "goal", "search_help_articles": "query"}.get(tool)
        arguments = {argument: question.strip()[:MAX_ARGUMENT_CHARS]} if argument else {}
        return None, {"name": tool, "arguments": json.dumps(arguments, ensure_ascii=False)}
    return words["intro"], None


def pieces(text: str) -> list[str]:
    """The text in streamable pieces: three words, or eight characters of text without spaces (Chinese)."""
    out: list[str] = []
    for token in re.findall(r"\S+\s*|\s+", text):
        if len(token.strip()) > 12 and not token.isascii():
            out.extend(token[i:i + 8] for i in range(0, len(token), 8))
        elif out and len(out[-1].split()) < 3 and out[-1].isascii() and token.isascii() and not out[-1].endswith("\n"):
            out[-1] += token
        else:
            out.append(token)
    return out


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise UpstreamError(400, "messages must be an array of message objects")
    return messages


def _usage(body: dict[str, Any], messages: list[dict[str, Any]], completion: str) -> dict[str, int]:
    prompt = tokens.estimate_messages(messages, body.get("tools") if isinstance(body.get("tools"), list) else None)
    completed = tokens.estimate(completion)
    return {"prompt_tokens": prompt, "completion_tokens": completed, "total_tokens": prompt + completed}


class LocalModel:
    name = MODEL

    def _turn(self, body: dict[str, Any]):
        messages = _messages(body)
        text, call = decide(messages, body.get("tools"))
        if text is not None:
            completion = text
        else:
            assert call is not None  # decide answers with text or a tool call
            completion = call["name"] + call["arguments"]
        return text, call, _usage(body, messages, completion)

    def open_stream(self, body: dict[str, Any]) -> Generator[bytes, None, None]:
        text, call, usage = self._turn(body)
        include_usage = isinstance(body.get("stream_options"), dict) and body["stream_options"].get("include_usage")
        return self._chunks(text, call, usage, bool(include_usage))

    def _chunks(self, text, call, usage, include_usage: bool) -> Generator[bytes, None, None]:
        base = {"id": f"chatcmpl-local-{uuid.uuid4().hex}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": MODEL}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse.data_event({**base, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                                        "finish_reason": finish}]})

        yield chunk({"role": "assistant", "content": ""})
        if call is not None:
            yield chunk({"tool_calls": [{"index": 0, "id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
                                         "function": call}]})
            yield chunk({}, "tool_calls")
        else:
            for piece in pieces(text):
                yield chunk({"content": piece})
            yield chunk({}, "stop")
        if include_usage:
            yield sse.data_event({**base, "choices": [], "usage": usage})
        yield sse.data_event(sse.DONE)

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        text, call, usage = self._turn(body)
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
        if call is not None:
            message["tool_calls"] = [{"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function", "function": call}]
        return {"id": f"chatcmpl-local-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
                "model": MODEL, "choices": [{"index": 0, "message": message, "logprobs": None,
                                             "finish_reason": "tool_calls" if call else "stop"}], "usage": usage}

    def embed(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise UpstreamError(400, "The local model embeds text: input must be a string or an array of strings.")
        dimensions = body.get("dimensions", EMBEDDING_DIMENSIONS)
        if not isinstance(dimensions, int) or isinstance(dimensions, bool) or not 1 <= dimensions <= MAX_EMBEDDING_DIMENSIONS:
            raise UpstreamError(400, f"dimensions must be an integer from 1 to {MAX_EMBEDDING_DIMENSIONS}.")
        if len(texts) * dimensions > MAX_EMBEDDING_VALUES:
            raise UpstreamError(400, f"The local model answers at most {MAX_EMBEDDING_VALUES} values (inputs x "
                                     f"dimensions); {len(texts)} inputs x {dimensions} dimensions is more.",
                                {"error": {"param": "dimensions", "code": "invalid_request"}})
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            raise UpstreamError(400, "encoding_format must be float or base64.")
        data = []
        for index, text in enumerate(texts):
            vector = embedding(text, dimensions)
            value: Any = vector if encoding == "float" else base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": value})
        prompt = sum(tokens.estimate(text) for text in texts)
        return {"object": "list", "data": data, "model": MODEL,
                "usage": {"prompt_tokens": prompt, "total_tokens": prompt}}


def embedding(text: str, dimensions: int) -> list[float]:
    """A feature-hashing embedding (the hashing trick, signed): texts that share words point the same way; always of
    unit length."""
    vector = [0.0] * dimensions
    for feature in tokens.features(text):
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        bucket = int.from_bytes(digest[:4], "little") % dimensions
        vector[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if not norm:
        # No words (punctuation, emoji) or features that cancel out: still a unit vector, the same for the same text.
        vector[int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "little") % dimensions] = 1.0
        return vector
    return [v / norm for v in vector]
