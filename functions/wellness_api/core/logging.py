"""Structured JSON log lines that Cloud Logging parses, with secrets scrubbed before writing.

Nothing here ever receives a request body or header wholesale; the scrubber is the second line of
defence for messages that interpolate caller input.
"""

import json
import re
import sys
import threading
import time
from typing import Any

_SECRET_PATTERNS = [
    # Authorization header values and bearer credentials of any kind.
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+"), r"\1 [REDACTED]"),
    # JWTs (ID tokens, custom tokens, client tokens).
    (re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*"), "[REDACTED_JWT]"),
    # Server API keys (see core/api_key_format.py).
    (re.compile(r"\bwsk_[A-Za-z0-9_-]{8,}"), "[REDACTED_API_KEY]"),
    # key=value or "key": "value" pairs whose key names a secret.
    (
        re.compile(
            r'(?i)("?(?:password|secret|clientSecret|token|idToken|customToken|apiKey|scanToken|authorization)"?\s*[:=]\s*)"?[^",\s}]+"?'
        ),
        r'\1"[REDACTED]"',
    ),
]
_WRITE_LOCK = threading.Lock()
_SECRET_KEYS = {
    "password", "secret", "clientsecret", "token", "idtoken", "customtoken", "apikey",
    "scantoken", "authorization", "refreshtoken",
}


def scrub(text: str) -> str:
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _scrub_value(key: str, value: Any) -> Any:
    if key.lower() in _SECRET_KEYS:
        return "[REDACTED]"
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: _scrub_value(k, v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub_value("", v) for v in value]
    return value


def log(severity: str, message: str, **fields: Any) -> None:
    """Write one JSON line; `fields` land as structured payload (requestId, clientId, route...)."""
    entry = {"severity": severity, "message": scrub(message), "time": time.time()}
    for key, value in fields.items():
        if value is not None:
            entry[key] = _scrub_value(key, value)
    stream = sys.stderr if severity in ("ERROR", "CRITICAL") else sys.stdout
    line = json.dumps(entry, default=str) + "\n"
    # sys.stdout (a TextIOWrapper) is not thread-safe: lines of concurrent requests could interleave into one
    # line that Cloud Logging cannot parse.
    with _WRITE_LOCK:
        stream.write(line)
        stream.flush()


def info(message: str, **fields: Any) -> None:
    log("INFO", message, **fields)


def warning(message: str, **fields: Any) -> None:
    log("WARNING", message, **fields)


def error(message: str, **fields: Any) -> None:
    log("ERROR", message, **fields)
