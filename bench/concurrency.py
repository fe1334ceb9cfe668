"""Concurrency per instance (issue 26): one worker process per function, serving 1, 8 and 32 requests at once.

Each HTTPS function of main.py is served by a process of its own (bench/instance.py: a threaded WSGI server around the
functions framework's app, support/threaded_server.py), as Cloud Run serves a function whose concurrency is above 1,
against the emulators: that process is the measured instance. The callers are threads of this (the bench's) process,
one keep-alive session each, talking to it over loopback HTTP, as production's callers are never inside the
instance; they send the function's representative mix; a level sends REQUESTS[level] requests after a warm-up.
Printed per function and level: requests per second and p99 as the callers see them, as ratios to concurrency 1
(goal: at least 5x the throughput at 32 for the I/O-bound functions), the CPU seconds the serving process used per
request (its own clock, read before and after the level), and the peak resident memory the level grew it by. Then
each function's base RSS: a fresh interpreter that imports main and serves one request of the function (what an
instance holds before its load).

Then the same again with production's network wait: Firestore and Auth reached through proxies that add a real
delay (bench/concurrency_latency.py, 5 ms each way unless `--concurrency-latency MS`; 0 skips it).

`make bench BENCH_ARGS='--concurrency'` runs only these two; `--concurrency lessons aimove` only those functions;
`--concurrency-latency MS` alone only the run with latency.
"""

import concurrent.futures
import contextlib
import dataclasses
import io
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
import uuid

import requests

LEVELS = (1, 8, 32)
REQUESTS = {1: 30, 8: 80, 32: 160}
# Fewer of the slow ones: the rPPG measurement (0.1-0.3 s of CPU each) and the assistant's streams (one slot
# document per client and per user, leased and released in transactions, serialises a client's chats).
FEWER = {"vitalscanmeasure": {1: 6, 8: 16, 32: 32}, "assistant": {1: 8, 8: 24, 32: 48}}
WARM = 6
TIMEOUT_S = 120
POINTS = 100_000
PLAYERS = 8


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # the platform's access log lines stay out of the tables


@dataclasses.dataclass
class World:
    tenant: object
    players: list
    api_key: str
    lesson_id: str
    exercise_id: str
    scan_tokens: list  # started Vital Scan sessions' tokens, one per measurement
    poll_ids: list  # sessions the partner polls, one per poll: a session answers one GET per 5 s, then 429
    trace: dict
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)


def _world(measurements: int, polls: int) -> World:
    from support.catalogue import seed_catalogue
    from support.rppg_synthetic import generate
    from support.tenants import Tenant
    from wellness_api.api_keys import service as api_keys

    with _quiet():
        tenant = Tenant(f"conc-{uuid.uuid4().hex[:8]}")
        tenant.configure("modules.aiMove=true", "modules.vitalScan=true", "modules.mediaGeneration=true",
                         "modules.wellnessChat=true", "modules.analytics=true", f"vitalScan.points={POINTS}",
                         "vitalScan.requestsPerMinute=100000", "wellnessChat.requestsPerMinute=100000",
                         # 32 chats at once of 8 players: the caps' maxima, else most answer a cheap 429
                         "wellnessChat.maxConcurrentPerUser=20", "wellnessChat.maxConcurrentPerClient=200")
        players = [tenant.player] + [tenant.add_member("player") for _ in range(PLAYERS - 1)]
        for member in (tenant.admin, *players):
            member.token  # noqa: B018 - signed in before the timed requests
        catalogue = seed_catalogue(tenant.client, tenant.client_id)
        key = api_keys.create_key(tenant.client_id, "concurrency bench", False, "bench").secret
    synthetic = generate(72, 15, "clean", seconds=30, fps=30)
    world = World(tenant, players, key, catalogue.lesson_id, catalogue.exercise_id, [], [],
                  {"fps": synthetic.fps, "t": synthetic.t, "rgb": synthetic.rgb})
    world.poll_ids = _scans(world, polls)
    _fall_risk_pages(world)
    if measurements:
        world.scan_tokens = _started_scans(world, measurements)
    return world


def _scans(world: World, n: int) -> list[str]:
    from wellness_api.vital_scan.routes import app

    def one(_):
        return app.test_client().post("/api/v1/vital-scan/sessions", json={"userId": "polled"}, headers={
            "Authorization": f"Bearer {world.api_key}"}).json["data"]["vitalScanResultId"]

    with _quiet(), concurrent.futures.ThreadPoolExecutor(16) as pool:
        return list(pool.map(one, range(max(1, n))))


def _fall_risk_pages(world: World) -> None:
    """A full first page of fall-risk results for every player before the first level. Without them a player's
    list grew with the creates of the levels before it: c=1 listed one to three results, c=32 fifteen to twenty,
    and the ratio compared unequal work. With a full page every level lists the same number (the default page)."""
    from wellness_api.fall_risk.models import RESULTS_PAGE_DEFAULT
    from wellness_api.fall_risk.routes import app

    def one(player):
        response = app.test_client().post("/api/fall-risk", json={}, headers=player.headers)
        assert response.status_code == 200, response.json

    with _quiet(), concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(one, [p for p in world.players for _ in range(RESULTS_PAGE_DEFAULT)]))


def _started_scans(world: World, n: int) -> list[str]:
    """Tokens of `n` sessions already started on the hosted page, one per measurement to send."""
    from wellness_api.vital_scan.routes import app

    http, tokens = app.test_client(), []
    with _quiet():
        for _ in range(n):
            created = http.post("/api/v1/vital-scan/sessions", json={"userId": "bench"},
                                headers={"Authorization": f"Bearer {world.api_key}"}).json["data"]
            token = created["vitalScanUrl"].split("scanToken=", 1)[1]
            assert http.post("/api/hosted/vital-scan/start", headers={"Authorization": f"Bearer {token}"}).status_code == 200
            tokens.append(token)
    return tokens


# Each request: (method, path, headers, body) for the caller's player and a random generator.


def _mix(world: World) -> dict:
    cid = world.tenant.client_id
    admin = world.tenant.admin
    key = {"Authorization": f"Bearer {world.api_key}"}

    def play(p, rng):
        return "PUT", f"/api/lessons/{world.lesson_id}/plays/{uuid.uuid4().hex}", p.headers, {"status": "started"}

    def scan(p, rng):
        return "POST", "/api/v1/vital-scan/sessions", key, {"userId": f"b-{p.uid[:10]}"}

    def poll(p, rng):
        with world.lock:
            session_id = world.poll_ids.pop() if len(world.poll_ids) > 1 else world.poll_ids[0]
        return "GET", f"/api/v1/vital-scan/sessions/{session_id}", key, None

    def measure(p, rng):
        with world.lock:
            token = world.scan_tokens.pop()
        return "POST", "/api/hosted/vital-scan/measurement", {"Authorization": f"Bearer {token}"}, world.trace

    def move(p, rng):
        return "POST", "/api/ai-move/sessions", p.headers, {"exerciseId": world.exercise_id, "exerciseType": "rep",
                                                            "targetReps": 10}

    return {
        "platform": [lambda p, rng: ("GET", "/api/health", {}, None)],
        "apikeys": [lambda p, rng: ("GET", f"/api/clients/{cid}/api-keys", admin.headers, None)],
        "identity": [lambda p, rng: ("POST", "/api/client/token/", {}, {"clientId": cid, "clientSecret": world.api_key})],
        "lessons": [lambda p, rng: ("GET", f"/api/lessons?clientId={cid}", p.headers, None), play],
        "vitalscan": [scan, poll],
        "vitalscanmeasure": [measure],
        "aimove": [move, lambda p, rng: ("GET", "/api/ai-move/statistics", p.headers, None)],
        "fallrisk": [lambda p, rng: ("POST", "/api/fall-risk", p.headers, {}),
                     lambda p, rng: ("GET", "/api/fall-risk/results", p.headers, None)],
        "content": [lambda p, rng: ("GET", f"/api/client/{cid}/content/public/notice", {}, None)],
        "mediageneration": [lambda p, rng: ("GET", "/api/b2b/ai/media-generation/jobs", admin.headers, None)],
        "analytics": [lambda p, rng: ("GET", f"/api/client/{cid}/analytics/overview", admin.headers, None)],
        "assistant": [lambda p, rng: ("POST", "/api/wellness-chat", p.headers,
                                      {"message": rng.choice(("How are my workouts going?", "Tips for sleep?"))})],
    }


@dataclasses.dataclass
class Level:
    concurrency: int
    seconds: list[float]
    elapsed: float
    errors: dict
    cpu_per_request_ms: float  # the serving process's (the instance's) CPU per request
    peak_growth_mib: float  # the serving process's
    caller_cpu_ms: float = 0.0  # the callers' process per request, not counted above: to see it is not the limit

    @property
    def rate(self) -> float:
        return len(self.seconds) / self.elapsed if self.elapsed else 0.0

    @property
    def p99_ms(self) -> float:
        times = sorted(self.seconds)
        return times[max(0, math.ceil(0.99 * len(times)) - 1)] * 1000 if times else float("nan")


class Instance:
    """One function served by a process of its own (bench/instance.py); its CPU clock and memory read on request."""

    def __init__(self, name: str, env: dict | None = None):  # env: changes to this process's environment
        from support.threaded_server import ROOT

        environ = {k: v for k, v in {**os.environ, **(env or {})}.items() if v is not None}  # None: unset
        self.process = subprocess.Popen([sys.executable, "-m", "bench.instance", name], cwd=ROOT / "functions",
                                        env={**environ, "PYTHONPATH": str(ROOT)},
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"bench/instance.py {name} ended before serving (exit {self.process.wait()})")
        self.url = json.loads(line)["url"]

    def _ask(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def stat(self) -> dict:
        return self._ask("stat")

    def reset_peak(self) -> dict:
        return self._ask("reset")

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> "Instance":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _level(server: Instance, world: World, ops: list, concurrency: int, count: int) -> Level:
    lock = threading.Lock()
    sent = [0]
    seconds: list[float] = []
    errors: dict[str, int] = {}
    caller_cpu = [0.0]

    def caller(index: int) -> None:
        started_cpu = time.thread_time()
        try:
            call(index)
        finally:
            with lock:
                caller_cpu[0] += time.thread_time() - started_cpu

    def call(index: int) -> None:
        http = requests.Session()
        rng = random.Random(index)
        player = world.players[index % len(world.players)]
        while True:
            with lock:
                if sent[0] >= count:
                    return
                n = sent[0]
                sent[0] += 1
            method, path, headers, body = ops[n % len(ops)](player, rng)
            started = time.perf_counter()
            response = http.request(method, server.url + path, headers=headers, json=body, timeout=TIMEOUT_S)
            _ = response.content  # a stream read to its end
            took = time.perf_counter() - started
            with lock:
                seconds.append(took)
                if response.status_code >= 400:
                    kind = f"{response.status_code} {method} {path.split('?')[0][-30:]}"
                    errors[kind] = errors.get(kind, 0) + 1

    before = server.reset_peak()
    began = time.perf_counter()
    threads = [threading.Thread(target=caller, args=(i,)) for i in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    after = server.stat()
    n = max(1, len(seconds))
    return Level(concurrency, seconds, elapsed, errors, (after["cpu"] - before["cpu"]) / n * 1000,
                 max(0.0, after["hwm"] - before["rss"]), caller_cpu[0] / n * 1000)


# One request per function, without a credential (a 401 or 405 still imports the area and makes its clients).
BASE_PATHS = {
    "platform": "/api/health", "apikeys": "/api/clients/x/api-keys", "identity": "/api/client/token/",
    "lessons": "/api/lessons?clientId=x", "vitalscan": "/api/v1/vital-scan/sessions",
    "vitalscanmeasure": "/api/hosted/vital-scan/session", "aimove": "/api/ai-move/statistics",
    "fallrisk": "/api/fall-risk/results", "content": "/api/client/x/content/public/notice",
    "mediageneration": "/api/b2b/ai/media-generation/jobs", "analytics": "/api/client/x/analytics/overview",
    "assistant": "/api/wellness-chat/conversations",
}
_BASE_PROBE = """
import contextlib, io, sys
sys.path[:0] = [{functions!r}, {root!r}]
import main
from support.threaded_server import function_app
with contextlib.redirect_stdout(io.StringIO()):
    function_app(getattr(main, {name!r})).test_client().get({path!r})
    from wellness_api.core import firebase
    firebase.db()
    {extra}
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024)
"""


def base_rss(name: str) -> tuple[float, float]:
    """(VmRSS, VmHWM) MiB of a fresh interpreter that imported main and served one request of `name`: what an
    instance of the function holds before its load (the rPPG engine's numpy and scipy included)."""
    from support.threaded_server import ROOT

    extra = "from wellness_api.vital_scan.rppg import filters" if name == "vitalscanmeasure" else "pass"
    code = _BASE_PROBE.format(functions=str(ROOT / "functions"), root=str(ROOT), name=name, path=BASE_PATHS[name],
                              extra=extra)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "functions", capture_output=True, text=True,
                         check=True)
    rss, hwm = out.stdout.split()[-2:]
    return float(rss), float(hwm)


def run(names: list[str] | None = None, *, base: bool = True, label: str = "concurrency",
        server_env: dict | None = None) -> list:
    """Each function's levels, served by a process of its own (`server_env`: its environment's changes)."""
    import main

    all_names = list(main.SIZES)
    names = [n for n in all_names if not names or n in names]
    measurements = sum(FEWER["vitalscanmeasure"].values()) + WARM if "vitalscanmeasure" in names else 0
    polls = sum(REQUESTS.values()) // 2 + WARM + 8 if "vitalscan" in names else 0  # every other request polls
    world = _world(measurements, polls)
    mixes = _mix(world)
    results = []
    for name in names:
        if name not in mixes:  # a function added to SIZES since: say so rather than stop the whole run
            print(f"[{label}] {name}: no representative mix in bench/concurrency.py _mix(); not measured", flush=True)
            continue
        ops = mixes[name]
        counts = FEWER.get(name, REQUESTS)
        with Instance(name, server_env) as server:
            _level(server, world, ops, 1, WARM)  # the area's imports and first clients, not measured
            levels = [_level(server, world, ops, c, counts[c]) for c in LEVELS]
        results.append((name, levels, base_rss(name) if base else (float("nan"), float("nan"))))
        _print_row(results[-1], label)
    return results


def _print_row(result, label: str = "concurrency") -> None:
    name, levels, (rss, hwm) = result
    cells = " ".join(f"c={lv.concurrency} {lv.rate:.1f}/s p99 {lv.p99_ms:.0f} ms cpu {lv.cpu_per_request_ms:.1f} ms "
                     f"+{lv.peak_growth_mib:.1f} MiB errors {sum(lv.errors.values())};" for lv in levels)
    print(f"[{label}] {name}: {cells} base RSS {rss:.0f} MiB (peak {hwm:.0f})", flush=True)


def _print(results) -> None:
    print("\n== Concurrency per instance: one process per function, a threaded server, 1 / 8 / 32 requests at once")
    print(f"(requests per level: {REQUESTS} (fewer: {FEWER}); the callers in another process, over loopback HTTP; "
          f"this machine: {os.cpu_count()} cores, shared with the emulators)")
    head = " | ".join(f"{f'c={c}':>5} {'req/s':>6} {'p99 ms':>7} {'cpu ms':>6} {'+MiB':>5}" for c in LEVELS)
    print(f"{'function':17} | {head} | {'x8 thr':>6} {'x32 thr':>7} {'x32 p99':>7}")
    for name, levels, _ in results:
        one = levels[0]
        cells = " | ".join(f"{'':>5} {lv.rate:>6.1f} {lv.p99_ms:>7.0f} {lv.cpu_per_request_ms:>6.1f} "
                           f"{lv.peak_growth_mib:>5.1f}" for lv in levels)
        print(f"{name:17} | {cells} | {levels[1].rate / one.rate:>5.1f}x {levels[2].rate / one.rate:>6.1f}x "
              f"{levels[2].p99_ms / one.p99_ms:>6.1f}x")
    print(f"\n{'function':17} {'base RSS MiB':>12} {'peak MiB':>8}  (a fresh worker after one request)")
    for name, _, (rss, hwm) in results:
        print(f"{name:17} {rss:>12.0f} {hwm:>8.0f}")
    for name, levels, _ in results:
        for lv in levels:
            if lv.errors:
                print(f"errors {name} c={lv.concurrency}: {lv.errors}")
    print("(cpu ms: CPU seconds of the serving process (the instance; not its callers) per request; +MiB: the level's "
          "peak RSS growth of that process)")


def main(names: list[str] | None = None, latency_ms: float | None = None, plain: bool = True) -> None:
    """The measurement against the emulators as they are (unless not `plain`), then the same with production's
    network wait (bench/concurrency_latency.py; `latency_ms` 0: not)."""
    from bench import concurrency_latency

    latency_ms = concurrency_latency.DELAY_MS if latency_ms is None else latency_ms
    results = run(names) if plain else []
    if results:
        _print(results)
    if latency_ms > 0:
        with concurrency_latency.delayed(latency_ms) as server_env:
            delayed = run(names, base=False, label=f"concurrency +{latency_ms:g} ms", server_env=server_env)
        concurrency_latency.print_table(results, delayed, latency_ms)
    sys.stdout.flush()
