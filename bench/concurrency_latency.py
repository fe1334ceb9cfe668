"""Concurrency per instance with production's network wait (issue 26 item 2, second measurement).

The emulators answer in about a millisecond, so on this stack a request is CPU work and one process saturates at 8
requests at once. In production each Firestore and Auth call is a network round trip plus the service's own time.
This run measures the same functions and mixes as bench/concurrency.py, unchanged, against the same emulators, but
in a child process whose FIRESTORE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST point at TCP proxies
(bench/latency_proxy.py) that delay every chunk by DELAY_MS each way. The proxies run in this (the parent) process,
so their CPU is not counted as the function's and they do not take the measured process's GIL. The variables must
be set before the child imports anything: the Firebase app and its clients are made once per process
(core/firebase.py). Storage is not proxied: none of the measured requests calls it. The child runs without the
stack's test-only query and write recorders (WELLNESS_FIRESTORE_QUERY_LOG), which production never runs.

The delay. Published figures: Google Cloud bases its zone requirements on Google Cloud's own, under 1 ms round trip
at the physical layer between any two zones of a region
(https://cloud.google.com/distributed-cloud/hosted/docs/latest/gdch/infrastructure/zone-requirements); Firestore
commits a write to a majority of replicas in several zones before it answers (synchronous replication,
https://firebase.google.com/docs/firestore/understand-reads-writes-scale), so most of a call's time is the
service's, not the network's, and Google publishes no figure for it. 5 ms each way (10 ms per call) is the default,
an assumption on the low side for a same-region read or commit (no TLS, no queueing), not a published figure.
`--concurrency-latency MS` changes it; the table's header prints the value used.
"""

import dataclasses
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

DELAY_MS = 5.0
PROXIED = ("FIRESTORE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST")
RECORDERS = "WELLNESS_FIRESTORE_QUERY_LOG"  # core/query_record.py ENV; the write recorder follows it
TIMEOUT_S = 900  # the child's whole run; a few minutes is normal
ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(names: list[str] | None, delay_ms: float) -> list:
    """The functions' levels measured in a child process whose emulator hosts are the delaying proxies."""
    from bench.concurrency import Level
    from bench.latency_proxy import DelayProxies

    targets = {var: os.environ[var] for var in PROXIED if os.environ.get(var)}
    with DelayProxies(targets, delay_ms) as proxies, tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "levels.json"
        env = {**os.environ, **proxies.hosts}
        # The stack's test-only recorders (core/query_record.py, core/write_record.py: a stack walk, shapes and
        # digests per RPC, appended to files) never run in production, so the measured child runs without them.
        env.pop(RECORDERS, None)
        proxy_cpu, child_cpu = time.process_time(), _children_cpu()  # this process only waits: its CPU is the proxies'
        subprocess.run([sys.executable, "-m", "bench.concurrency_latency", str(out), str(delay_ms), *(names or [])],
                       cwd=ROOT, env=env, check=True, timeout=TIMEOUT_S)
        rows = json.loads(out.read_text())
        proxy_cpu, child_cpu = time.process_time() - proxy_cpu, _children_cpu() - child_cpu
    print(f"(latency run: the proxies used {proxy_cpu:.1f} s of CPU in this process, the measured child "
          f"{child_cpu:.1f} s, setup included)", flush=True)
    return [(name, [Level(**lv) for lv in levels], (float("nan"), float("nan"))) for name, levels in rows]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _child(out: str, delay_ms: float, names: list[str]) -> None:
    from bench import concurrency

    results = concurrency.run(names or None, base=False, label=f"concurrency +{delay_ms:g} ms")
    pathlib.Path(out).write_text(json.dumps([(name, [dataclasses.asdict(lv) for lv in levels])
                                             for name, levels, _ in results]))


def print_table(plain: list, delayed: list, delay_ms: float) -> None:
    from bench.concurrency import LEVELS

    print(f"\n== Concurrency per instance WITH NETWORK LATENCY: Firestore and Auth reached through a proxy adding "
          f"{delay_ms:g} ms each way ({2 * delay_ms:g} ms per call)")
    print("(same functions, mixes and request counts as above, in a child process; the emulators themselves unchanged. "
          "'no-lat' = the ratio of the table above)")
    head = " | ".join(f"{f'c={c}':>5} {'req/s':>6} {'p99 ms':>7} {'cpu ms':>6}" for c in LEVELS)
    print(f"{'function':17} | {head} | {'x8 thr':>6} {'x32 thr':>7} {'x32 p99':>7} | {'no-lat':>6} | "
          f"{'busy':>4} {'ceil':>5} {'srv':>5} | 5x at 32")
    plain_by_name = {name: levels for name, levels, _ in plain}
    for name, levels, _ in delayed:
        one, top = levels[0], levels[2]
        cells = " | ".join(f"{'':>5} {lv.rate:>6.1f} {lv.p99_ms:>7.0f} {lv.cpu_per_request_ms:>6.1f}" for lv in levels)
        x32 = top.rate / one.rate
        base = plain_by_name.get(name)
        no_lat = f"{base[2].rate / base[0].rate:>5.1f}x" if base else f"{'-':>6}"
        # One GIL: at most 1 / CPU-per-request requests a second, so the best ratio one process can reach is c=1's
        # wall time per request over its CPU time per request: with the callers' CPU (they are in this process)
        # and without it (what an instance spends: its callers are elsewhere).
        wall_ms = 1000 / one.rate
        ceiling = wall_ms / one.cpu_per_request_ms if one.cpu_per_request_ms else float("nan")
        server_ms = one.cpu_per_request_ms - one.caller_cpu_ms
        server = wall_ms / server_ms if server_ms > 0 else float("nan")
        busy = top.rate * top.cpu_per_request_ms / 1000
        print(f"{name:17} | {cells} | {levels[1].rate / one.rate:>5.1f}x {x32:>6.1f}x "
              f"{top.p99_ms / one.p99_ms:>6.1f}x | {no_lat} | {busy:>4.2f} {ceiling:>4.1f}x {server:>4.1f}x | "
              f"{'yes' if x32 >= 5 else 'no'}")
    for name, levels, _ in delayed:
        for lv in levels:
            if lv.errors:
                print(f"errors {name} c={lv.concurrency} (+{delay_ms:g} ms): {lv.errors}")
    print("(no-lat: x32 thr of the table above. busy: CPU seconds per second of this process at c=32 (server and "
          "callers; 1.00 = one core, the most one GIL lets Python use). ceil: c=1's wall time per request / its CPU "
          "time per request, the x32 one process reaches when its CPU is the limit; srv: the same without the "
          "callers' CPU (an instance's own). This machine's 2 cores are shared with the emulators, the proxies and "
          "other stacks, so busy stays below 1.00 when they take the rest.)")

if __name__ == "__main__":
    sys.path[:0] = [str(ROOT / "functions"), str(ROOT)]
    _child(sys.argv[1], float(sys.argv[2]), sys.argv[3:])
