"""Test-only recorder of where the platform's Firestore writes put each string, for the personal-data write check.

tests/privacy/test_written_ids.py fails when a document the platform wrote holds a person's uid, email or external
id outside the locations the areas declared (core/personal_data.py). It needs to know, for every write, which
strings went to which field of which document; production never records anything. When the query log of
core/query_record.py is on (devstack's stacks), every process also appends to `<that folder>/writes/<pid>.jsonl`
one line per (document path shape, field, token) the platform wrote, deduplicated per process.

No value reaches the file: a string is cut into tokens (the whole string, and its parts between separators such as
`/`, `:`, `_`, spaces, and dots, so a uid inside `{uid}_{day}` or a Storage path is found) and each token of six
characters or more is kept only as a keyed digest (HMAC-SHA256 under a key made once per run in that folder). The
check digests the ids it knows with the same key and compares. A shorter id, or one glued to other text without a
separator, is not found; map keys are kept as names only when they look like field names (letters), else `*`.
Like the query log, calls a test makes itself are not recorded (core.query_record._platform_site).
"""

import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import query_record

FOLDER = "writes"
KEY_FILE = "key"
MIN_TOKEN = 6
MAX_TOKENS_PER_STRING = 400  # a long text (a conversation's message) is scanned in full, up to this many parts
# A long-lived process (a bench run's worker) stops recording after this many entries, and says so in the file:
# the memory of what it has seen stays bounded (a test run writes well under a tenth of it per process).
MAX_ENTRIES = 200_000
_SPLIT = re.compile(r"[\s/:_|#?&=,;()\[\]{}<>\"'`*+!$%^~\\]+")
_NAME = re.compile(r"^[A-Za-z]+$")
Add = Callable[[str, str], None]


def folder() -> Path | None:
    base = os.environ.get(query_record.ENV)
    return Path(base) / FOLDER if base else None


def run_key(where: Path) -> bytes:
    """The run's digest key, made by whichever process needs it first (link: exactly one creator wins)."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / KEY_FILE
    if not path.exists():
        temp = where / f".key-{os.getpid()}-{secrets.token_hex(4)}"
        temp.write_text(secrets.token_hex(32))
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
        finally:
            temp.unlink()
    return bytes.fromhex(path.read_text().strip())


def digest(key: bytes, token: str) -> str:
    """Case-insensitive: an email is the same person in any case (Auth keeps it lower-cased)."""
    return hmac.digest(key, token.lower().encode(), hashlib.sha256).hex()[:20]


def _digests(key: bytes, text: str) -> tuple[tuple[str, bool], ...]:
    """(digest, whether the token is the whole string) of each token. The same short strings (a client id, a status,
    the writer's uid) come back write after write: those are cached; a long text is not kept in memory."""
    if len(text) <= 256:
        return _short_digests(key, text)
    return tuple((digest(key, token), token == text) for token in tokens(text))


@functools.lru_cache(maxsize=16_384)
def _short_digests(key: bytes, text: str) -> tuple[tuple[str, bool], ...]:
    return tuple((digest(key, token), token == text) for token in tokens(text))


def tokens(text: str) -> set[str]:
    """The whole string and its parts: between separators, and those parts cut again at dots (an email stays whole
    as a part, and is cut too)."""
    found = {text}
    parts = [p for p in _SPLIT.split(text) if p][:MAX_TOKENS_PER_STRING]
    found.update(parts)
    for part in parts:
        if "." in part:
            found.update(p for p in part.split(".") if p)
    return {t for t in found if len(t) >= MIN_TOKEN}


def install(client: Any) -> None:
    """Wrap the client's commit RPC (every set, update, create, batch and transaction write goes through it).
    Installed before core.query_record's wrapper, so that one, outermost, still finds the platform's frame."""
    where = folder()
    if where is None:
        return
    try:
        recorder = _Recorder(where)
    except OSError:
        return  # no record, then: the check skips rather than the platform failing
    api = client._firestore_api
    api.commit = recorder.wrap(api.commit)


class _Recorder:
    def __init__(self, where: Path) -> None:
        self.key = run_key(where)
        self.path = where / f"{os.getpid()}.jsonl"
        self.lock = threading.Lock()
        self.seen: set[int] = set()
        self.full = False

    def wrap(self, rpc: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            try:
                site = query_record._platform_site(sys._getframe(1))
                if site:
                    request = kwargs.get("request", args[0] if args else None)
                    self.write(site, entries(request, self.key))
            except Exception as e:  # noqa: BLE001 (a recorder bug must not change what the platform does)
                self.write("", [{"path": "", "field": "", "digest": "", "error": type(e).__name__}])
            return rpc(*args, **kwargs)

        return recorded

    def write(self, site: str, found: list[dict[str, Any]]) -> None:
        with self.lock:
            if self.full:
                return
            new = []
            for entry in found:
                key = hash((entry["path"], entry["field"], entry["digest"], entry.get("whole", False)))
                if key not in self.seen:
                    self.seen.add(key)
                    new.append(json.dumps({**entry, "site": site}, sort_keys=True))
            if len(self.seen) >= MAX_ENTRIES:
                self.full = True
                new.append(json.dumps({"path": "", "field": "", "digest": "", "truncated": MAX_ENTRIES}))
            if new:
                with open(self.path, "a") as f:
                    f.write("".join(line + "\n" for line in new))


def entries(request: Any, key: bytes) -> list[dict[str, Any]]:
    """One entry per (document path shape, field, token digest) of the commit's set/update/transform writes.

    `field` is the dotted field path (`*` for a map key that is not a name; arrays are transparent), or
    `__name__.<i>` for segment i of the document's own path. `whole` marks a token that was the entire value.
    """
    found: list[dict[str, Any]] = []
    for write in query_record._field(request, "writes") or []:
        w = query_record._pb(write)
        kind = w.WhichOneof("operation")
        if kind not in ("update", "transform"):
            continue
        name = w.update.name if kind == "update" else w.transform.document
        relative = name.split("/documents/", 1)[1] if "/documents/" in name else ""
        shape = query_record._path_shape(name)

        def add(field: str, text: str, shape: str = shape) -> None:
            for hashed, whole in _digests(key, text):
                found.append({"path": shape, "field": field, "digest": hashed, "whole": whole})

        for i, segment in enumerate(relative.split("/")):
            if i % 2 == 1:
                add(f"__name__.{i}", segment)
        if kind == "update":
            for field, value in w.update.fields.items():
                _walk(_segment(field, add, ""), value, add)
        transforms = w.update_transforms if kind == "update" else w.transform.field_transforms
        for t in transforms:
            if t.WhichOneof("transform_type") == "append_missing_elements":
                path = ".".join(_segment(p.strip("`"), add, "") for p in t.field_path.split("."))
                for value in t.append_missing_elements.values:
                    _walk(path, value, add)
    return found


def _segment(key: str, add: Add, parent: str) -> str:
    """A map key as a field-path segment: itself when it is a name, else `*` (its tokens recorded under it)."""
    if _NAME.match(key):
        return key
    add(f"{parent}.*" if parent else "*", key)
    return "*"


def _walk(path: str, value: Any, add: Add) -> None:
    kind = value.WhichOneof("value_type")
    if kind == "string_value":
        add(path, value.string_value)
    elif kind == "reference_value":
        add(path, value.reference_value.split("/documents/", 1)[-1])
    elif kind == "map_value":
        for key, inner in value.map_value.fields.items():
            _walk(f"{path}.{_segment(key, add, path)}", inner, add)
    elif kind == "array_value":
        for inner in value.array_value.values:
            _walk(path, inner, add)
