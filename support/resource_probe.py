"""The resource probe (issue 25): every operation of the OpenAPI document, sent through Hosting with the worst
request its validation admits, and the serving function worker's peak resident memory measured around it.

The worst request, from the document alone:
- strings at maxLength, of a character the pattern accepts (else the operation's example value); date and
  date-time fields at the widest span (start*/from* fields early, everything else today);
- arrays at maxItems of worst items; numbers at their maximum, and arrays of numbers as a ramp from minimum to
  maximum (the widest span, strictly increasing, as timestamps must be); maps at maxProperties;
- every optional field and query parameter present; page sizes at their maximum.
Inputs without a bound get UNBOUNDED_* (tests/openapi/test_caps.py lists them: they should not exist).
Path parameters and the credential are the demo world's, as the operation's curl example names them
(openapi.curl_sample's tables); Hosted Vital Scan operations get a fresh, started session each.

A worst request the area refuses as a whole (400, 413, 422) is followed by a narrower one: the example's fields
only, each at its worst; a 413 halves every length until the body fits. The figure reported is the larger growth.

Memory: the Functions emulator runs each function in worker processes whose environment has FUNCTION_TARGET.
Before a request, "5" written to /proc/<pid>/clear_refs resets each worker's peak (VmHWM) to its VmRSS; after it
the growth is max(VmHWM - VmRSS before) over the function's workers.
"""

import contextlib
import dataclasses
import datetime as dt
import fnmatch
import io
import json
import math
import os
import pathlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import requests

from wellness_api.core import openapi
from wellness_api.openapi import document as openapi_document

ROOT = pathlib.Path(__file__).resolve().parents[1]
MIB = 1 << 20
GROWTH_LIMIT_MIB = 64
UNBOUNDED_STRING = 10_000
UNBOUNDED_ITEMS = (1_000, 10)  # an unbounded array, and one inside another
UNBOUNDED_PROPERTIES = 100
# A million: large enough to show work or memory that grows with a value, small enough not to take the shared
# machine down when it does (the 20,000,000 ms trace took 1.7 GB).
UNBOUNDED_NUMBER = 1_000_000
EARLIEST = dt.date(2000, 1, 1)
CHARACTERS = "aA0-_."
TIMEOUT_S = 90
# A worst request refused as a whole (bad values, another user, an unknown model or id) is followed by the
# example-shaped one.
REFUSED_AS_A_WHOLE = (400, 403, 404, 409, 413, 422)
SUBTITLE_CUE = "00:00.000 --> 00:02.000\nHello\n\n"


# ----------------------------------------------------------------------------------------- the worst values


@dataclasses.dataclass(frozen=True)
class Shape:
    components: dict[str, Any]
    scale: float = 1.0  # < 1: every length shrunk (the body did not fit the area's limit)
    example_only: bool = False  # objects keep only the fields the example has, strings the example's value
    budget: int = 1 << 20  # bytes of JSON: an array stops where its items would pass it (a body must fit anyway)


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = {**components[schema["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in schema.items() if k != "$ref"}}
    for part in schema.get("allOf", []):
        schema = {**_resolve(part, components), **{k: v for k, v in schema.items() if k != "allOf"}}
    return schema


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    return set(kind) if isinstance(kind, list) else {kind} if kind else set()


def _length(bound: int | None, fallback: int, shape: Shape, floor: int = 0) -> int:
    return max(floor, math.floor((bound if bound is not None else fallback) * shape.scale))


def _date_like(name: str, schema: dict[str, Any]) -> str | None:
    """A date or date-time at the widest span: start and from fields early, the others today."""
    pattern, fmt = schema.get("pattern", ""), schema.get("format")
    is_date = fmt == "date" or r"\d{4}-\d{2}-\d{2}$" in pattern or name.lower().endswith("date")
    if not (is_date or fmt == "date-time"):
        return None
    early = re.match(r"(start|from|since|after)", name, re.IGNORECASE) is not None
    day = EARLIEST if early else dt.datetime.now(dt.UTC).date()
    return day.isoformat() if is_date else f"{day.isoformat()}T00:00:00Z"


def worst_string(schema: dict[str, Any], name: str, example: Any, shape: Shape) -> str:
    if "enum" in schema or "const" in schema:
        options = schema.get("enum", [schema.get("const")])
        return example if example in options else max(options, key=lambda o: len(str(o)))
    if shape.example_only and isinstance(example, str):
        return example  # a name the area must know (a model, an id): the example's
    dated = _date_like(name, schema)
    if dated is not None:
        return dated
    size = _length(schema.get("maxLength"), UNBOUNDED_STRING, shape, schema.get("minLength", 1))
    fmt, pattern = schema.get("format"), schema.get("pattern")
    if fmt == "email" or name.lower().endswith("email"):
        local = "a" * min(64, max(1, size - len("@example.com")))  # RFC 5321: 64 before the @, 63 per label
        labels = ["a" * 63] * max(0, (size - len(local) - len("@example.com")) // 64)
        return f"{local}@{'.'.join([*labels, 'example'])}.com"
    if fmt in ("uri", "url") or name.lower().endswith("url"):
        return "https://example.com/" + "a" * max(0, size - len("https://example.com/"))
    if fmt == "uuid":
        return "00000000-0000-4000-8000-000000000000"
    for char in CHARACTERS:
        if pattern is None or re.fullmatch(pattern, char * size):
            return char * size
    if isinstance(example, str):
        return example
    for char in CHARACTERS:
        if re.fullmatch(pattern, char):
            return char
    return "a" * size


def _number(schema: dict[str, Any], high: bool) -> float:
    if high:
        value = schema.get("maximum", schema.get("exclusiveMaximum", UNBOUNDED_NUMBER))
    else:
        value = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    integer = "integer" in _types(schema)
    if "exclusiveMaximum" in schema and high and "maximum" not in schema:
        value = value - 1 if integer else value * 0.999
    if "exclusiveMinimum" in schema and not high and "minimum" not in schema:
        value = value + 1 if integer else value + 0.001
    return int(value) if integer else value


def _ramp(items: dict[str, Any], count: int) -> list[float]:
    """count numbers from the minimum to the maximum: the widest span, strictly increasing."""
    low, high = _number(items, False), _number(items, True)
    if count <= 1:
        return [high]
    step = (high - low) / (count - 1)
    if "integer" in _types(items):
        return [int(low + round(i * step)) for i in range(count)]
    return [round(low + i * step, 3) for i in range(count)]


def worst(schema: dict[str, Any], shape: Shape, name: str = "", example: Any = None, depth: int = 0) -> Any:
    schema = _resolve(schema, shape.components)
    variants = [v for v in schema.get("anyOf", []) + schema.get("oneOf", []) if "null" not in _types(v)]
    if variants:
        values = [worst(v, shape, name, example, depth) for v in variants]
        return max(values, key=lambda v: len(json.dumps(v)))
    kinds = _types(schema)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema and "string" not in kinds:
        return example if example in schema["enum"] else schema["enum"][0]
    if "object" in kinds or "properties" in schema:
        return _worst_object(schema, shape, example if isinstance(example, dict) else None, depth)
    if "array" in kinds:
        items = _resolve(schema.get("items", {}), shape.components)
        count = _length(schema.get("maxItems"), UNBOUNDED_ITEMS[min(depth, 1)], shape, schema.get("minItems", 0))
        if _types(items) & {"integer", "number"} and not items.get("anyOf"):
            count = min(count, max(1, shape.budget // (len(json.dumps(_number(items, True))) + 1)))
            return _ramp(items, count)
        item_example = example[0] if isinstance(example, list) and example else None
        item = worst(items, shape, name, item_example, depth + 1)
        # One item, repeated (the same object: JSON writes it out each time), as many times as the budget holds.
        return [item] * min(count, max(1, shape.budget // (len(json.dumps(item)) + 1)))
    if "string" in kinds:
        return worst_string(schema, name, example, shape)
    if kinds & {"integer", "number"}:
        # Shrunk with the lengths, so that ratios such as frames per second stay as the maxima have them.
        low, high = _number(schema, False), _number(schema, True)
        scaled = max(low, high * shape.scale) if shape.scale < 1 else high
        return int(scaled) if "integer" in kinds else round(scaled, 3)
    if "boolean" in kinds:
        return example if isinstance(example, bool) else True
    return example


def _worst_object(schema: dict[str, Any], shape: Shape, example: dict | None, depth: int) -> dict[str, Any]:
    properties = schema.get("properties", {})
    names = [n for n in properties if example is None or not shape.example_only or n in example]
    out = {n: worst(properties[n], shape, n, (example or {}).get(n), depth) for n in names}
    extra = schema.get("additionalProperties")
    if extra not in (None, False) and not properties:
        extra = extra if isinstance(extra, dict) else {}
        keys = list(example or {})
        if not (shape.example_only and keys):
            count = _length(schema.get("maxProperties"), UNBOUNDED_PROPERTIES, shape)
            named = _resolve(schema.get("propertyNames", {}), shape.components).get("enum", [])
            keys += [k for k in named if k not in keys]  # the names the map admits, then made-up ones
            keys = keys[:count] + [f"k{i:03d}" for i in range(count - len(keys))]
        for key in keys:
            out[key] = worst(extra, shape, key, (example or {}).get(key), depth)
            if len(json.dumps(out)) > shape.budget:
                break
    return out


# ----------------------------------------------------------------------------------------- requests


@dataclasses.dataclass
class Request:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None = None
    files: dict[str, Any] | None = None

    @property
    def body_bytes(self) -> int:
        if self.files is not None:
            return sum(len(v[1]) for v in self.files.values())
        return len(self.body or b"")


def _credential(op: openapi.Operation, env: dict[str, str]) -> dict[str, str]:
    scheme = next((s for s in op.security if s), None)
    if scheme is None:
        return {}
    return {"Authorization": f"Bearer {env[op.sample_as or openapi.SAMPLE_CREDENTIALS[scheme]]}"}


def _variable(op: openapi.Operation, name: str) -> str:
    return op.sample_values.get(name) or openapi.SAMPLE_PATH_VALUES.get(name, name.upper())


def build_request(op: openapi.Operation, entry: dict[str, Any], env: dict[str, str], shape: Shape) -> Request:
    """The operation's request, its path, credential and headers as its curl example has them."""
    path = op.path
    for name in op.path_params:
        path = path.replace("{" + name + "}", env[_variable(op, name)])
    query = {}
    for param in entry.get("parameters", []):
        if param["in"] != "query":
            continue
        name, schema = param["name"], param["schema"]
        if name == "clientId":
            query[name] = env[_variable(op, name)]  # whose data it is: the demo client's, never a made-up one
        elif shape.example_only and not param.get("required"):
            if _types(_resolve(schema, shape.components)) & {"integer", "number"}:
                query[name] = worst(schema, shape, name)
        elif shape.example_only:
            query[name] = env.get(_variable(op, name)) or worst(schema, shape, name)
        else:
            query[name] = worst(schema, shape, name)
    headers = {**_credential(op, env)}
    for header in op.sample_headers:
        key, _, value = header.partition(": ")
        headers[key] = re.sub(r"\$([A-Z_]+)", lambda m: env[m.group(1)], value)
    url = env["BASE_URL"] + path
    if query:
        url += "?" + "&".join(f"{k}={requests.utils.quote(str(v), safe='')}" for k, v in query.items())
    request = Request(op.method, url, headers)
    content = entry.get("requestBody", {}).get("content", {})
    if not content:
        return request
    ((media, body),) = content.items()
    value = worst(body["schema"], shape, "", body.get("example"))
    if media == "multipart/form-data":
        files = {}
        for name, field in value.items():
            example = (body.get("example") or {}).get(name, "")
            if isinstance(example, str) and example.startswith("@"):  # a file: as many cues as the length allows
                size = _length(None, 1 << 20, shape)
                files[name] = (example[1:], "WEBVTT\n\n" + SUBTITLE_CUE * (size // len(SUBTITLE_CUE)))
            else:
                files[name] = (None, str(field))
        request.files = files
        return request
    request.headers["Content-Type"] = "application/json"
    request.body = json.dumps(value, separators=(",", ":")).encode()
    return request


# ----------------------------------------------------------------------------------------- memory


def function_of(path: str) -> str:
    """The function Hosting routes the path to (firebase.json's rewrites, first match)."""
    for rewrite in json.loads((ROOT / "firebase.json").read_text())["hosting"]["rewrites"]:
        pattern = re.escape(rewrite["source"]).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
        if "function" in rewrite and re.fullmatch(pattern, path.split("?")[0]):
            return rewrite["function"]["functionId"]
    raise LookupError(f"no rewrite for {path}")


def _environ(pid: int) -> dict[bytes, bytes]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        return dict(item.partition(b"=")[::2] for item in f.read().split(b"\0") if item)


def workers(function: str) -> list[int]:
    """The Python worker processes of this stack that serve the function."""
    mark = os.environ.get("DEVSTACK_MARK", "").encode()
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            environ = _environ(int(entry.name))
            if environ.get(b"FUNCTION_TARGET") == function.encode() and environ.get(b"DEVSTACK_MARK", b"") == mark:
                found.append(int(entry.name))
    return sorted(found)


def _status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError(field)


@contextlib.contextmanager
def peak_growth(function: str) -> Iterator[dict[str, Any]]:
    """{"mib": the largest peak growth over the function's workers, "new": workers started meanwhile}."""
    before = {}
    for pid in workers(function):
        with contextlib.suppress(OSError, LookupError):
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")  # resets the peak resident set (VmHWM) to the current one
            before[pid] = _status_kib(pid, "VmRSS")
    result: dict[str, Any] = {"mib": 0.0, "new": []}
    yield result
    growth = 0
    for pid, rss in before.items():
        with contextlib.suppress(OSError, LookupError):
            growth = max(growth, _status_kib(pid, "VmHWM") - rss)
    result["mib"] = growth / 1024
    result["new"] = [pid for pid in workers(function) if pid not in before]


# ----------------------------------------------------------------------------------------- the probe


@dataclasses.dataclass
class Result:
    operation_id: str
    method: str
    path: str
    function: str
    statuses: list[int]
    body_bytes: int
    growth_mib: float
    wall_ms: float
    notes: list[str]
    warmed: bool = False  # measured again on a warm worker once

    @property
    def status(self) -> int:
        return self.statuses[-1]

    @property
    def failures(self) -> list[str]:
        out = []
        if any(s >= 500 for s in self.statuses):
            out.append(f"answered {'/'.join(map(str, self.statuses))}")
        if self.growth_mib > GROWTH_LIMIT_MIB:
            out.append(f"peak memory grew {self.growth_mib:.0f} MiB (limit {GROWTH_LIMIT_MIB})")
        return out


def _platform_hiccup(response: requests.Response) -> bool:
    """The emulator's pool handed the request to a worker that had gone away: not the platform's answer."""
    return response.status_code == 500 and ("ECONNRESET" in response.text or "socket hang up" in response.text)


def _send(session: requests.Session, request: Request) -> tuple[requests.Response, float]:
    for attempt in range(2):
        started = time.perf_counter()
        response = session.request(request.method, request.url, headers=request.headers, data=request.body,
                                   files=request.files, timeout=TIMEOUT_S)
        _ = response.content
        elapsed = (time.perf_counter() - started) * 1000
        if not (_platform_hiccup(response) and attempt == 0):
            return response, elapsed
    raise AssertionError("unreachable")


def _ensure_worker(session: requests.Session, function: str, url: str) -> None:
    """A function without a worker starts one on its first request: start it now, with a cheap GET."""
    if not workers(function):
        session.get(url.split("?")[0], timeout=TIMEOUT_S)


def _scan_session(session: requests.Session, env: dict[str, str], ops: dict[str, openapi.Operation],
                  start: bool) -> dict[str, str]:
    """The env with SCAN_TOKEN of a new session (made by the createVitalScanSession example), started when asked."""
    create = ops["createVitalScanSession"]
    response = session.post(env["BASE_URL"] + create.path, json=create.example, headers=_credential(create, env),
                            timeout=TIMEOUT_S)
    response.raise_for_status()
    env = {**env, "SCAN_TOKEN": response.json()["data"]["vitalScanUrl"].split("#scanToken=", 1)[1]}
    if start:
        begin = ops["startHostedVitalScan"]
        session.post(env["BASE_URL"] + begin.path, json=begin.example, headers=_credential(begin, env),
                     timeout=TIMEOUT_S)
    return env


def probe_operation(session: requests.Session, op: openapi.Operation, entry: dict[str, Any], env: dict[str, str],
                    components: dict[str, Any], ops: dict[str, openapi.Operation]) -> Result:
    function = function_of(op.path)
    result = Result(op.operation_id, op.method, op.path, function, [], 0, 0.0, 0.0, [])
    limit = max_body_bytes(op)
    for shape in (Shape(components), Shape(components, example_only=True)):
        call_env = env
        if op.path.startswith("/api/hosted/"):
            call_env = _scan_session(session, env, ops, start=op.operation_id not in (
                "startHostedVitalScan", "getHostedVitalScanSession"))
        shape = dataclasses.replace(shape, budget=limit)
        request = build_request(op, entry, call_env, shape)
        while request.body_bytes > limit and shape.scale > 1 / 64:  # a body the area refuses unread measures nothing
            shape = dataclasses.replace(shape, scale=shape.scale / 2)
            request = build_request(op, entry, call_env, shape)
        _ensure_worker(session, function, request.url)
        for _ in range(3):
            with peak_growth(function) as growth:
                response, elapsed = _send(session, request)
            if growth["new"]:
                result.notes.append("a new worker served it: sent again")
            elif growth["mib"] > GROWTH_LIMIT_MIB and response.status_code < 500 and not result.warmed:
                # A worker's first request of a kind loads what it needs once (numpy and scipy for the Vital Scan
                # engine: about 75 MiB); what the input costs is measured on the warm worker.
                result.notes.append(f"{growth['mib']:.0f} MiB on a cold worker: sent again warm")
                result.warmed = True
            else:
                break
            if op.path.startswith("/api/hosted/"):  # the first answer may have ended the scan session
                call_env = _scan_session(session, env, ops, start=op.operation_id not in (
                    "startHostedVitalScan", "getHostedVitalScanSession"))
                request = build_request(op, entry, call_env, shape)
        result.statuses.append(response.status_code)
        if growth["mib"] >= result.growth_mib:
            result.growth_mib, result.body_bytes, result.wall_ms = growth["mib"], request.body_bytes, elapsed
        if response.status_code >= 500:
            result.notes.append(f"{response.status_code}: {response.text[:300]}")
        if response.status_code not in REFUSED_AS_A_WHOLE:
            break
        result.notes.append(f"{response.status_code} at scale {shape.scale:g}"
                            f"{' (example fields)' if shape.example_only else ''}: {response.text[:200]}")
    return result


def max_body_bytes(op: openapi.Operation) -> int:
    """The largest body the operation's app reads (Flask's MAX_CONTENT_LENGTH), less room for multipart framing."""
    for app in openapi_document.apps():
        if op in openapi.operations_of(app):
            return app.config["MAX_CONTENT_LENGTH"] - 4096
    raise LookupError(op.operation_id)


def demo_env() -> dict[str, str]:
    """The variables `eval "$(bin/demo-env)"` sets (the demo world, seeded again), in this process."""
    from wellness_api.ops import demo_env as demo

    demo.point_at_stack()
    with contextlib.redirect_stdout(io.StringIO()):  # the seed's log lines
        return demo.collect()


class Prober:
    """Probes operations one at a time, in the order the docs samples run them (a delete after the reads)."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        self.document = openapi_document.build()
        self.ops = {op.operation_id: op for op in openapi_document.operations()}
        self.session = requests.Session()

    def probe(self, operation_id: str) -> Result:
        op = self.ops[operation_id]
        entry = self.document["paths"][op.path][op.method.lower()]
        return probe_operation(self.session, op, entry, self.env, self.document["components"]["schemas"], self.ops)


def operation_ids() -> list[str]:
    return [op.operation_id for op in openapi_document.operations()]


def run(env: dict[str, str], only: Callable[[str], bool] = lambda _: True,
        progress: Callable[[Result], None] = lambda _: None) -> list[Result]:
    prober = Prober(env)
    results = []
    for operation_id in operation_ids():
        if only(operation_id):
            results.append(prober.probe(operation_id))
            progress(results[-1])
    return results


def table(results: list[Result]) -> str:
    lines = [f"{'operation':42} {'function':15} {'status':>11} {'body bytes':>11} {'peak growth MiB':>15} "
             f"{'wall ms':>8}"]
    for r in results:
        statuses = "/".join(map(str, r.statuses))
        lines.append(f"{r.operation_id:42} {r.function:15} {statuses:>11} {r.body_bytes:>11} {r.growth_mib:>15.1f} "
                     f"{r.wall_ms:>8.0f}")
    return "\n".join(lines)


def fnmatch_any(patterns: list[str]) -> Callable[[str], bool]:
    return lambda name: not patterns or any(fnmatch.fnmatch(name, p) for p in patterns)
