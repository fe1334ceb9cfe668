"""Concurrency per instance with production's network wait (issue 26 item 2, second measurement).

The emulators answer in about a millisecond, so on this stack a request is CPU work and one process saturates at 8
requests at once. In production each Firestore and Auth call is a network round trip plus the service's own time.
This run measures the same functions and mixes as bench/concurrency.py, unchanged, against the same emulators, but
each function's serving process (bench/instance.py, the measured instance) has FIRESTORE_EMULATOR_HOST and
FIREBASE_AUTH_EMULATOR_HOST pointing at TCP proxies (bench/latency_proxy.py) that delay every chunk by DELAY_MS each
way. The proxies run in a process of their own, so their CPU is not counted as the function's and they take neither
the instance's GIL nor its callers'. The variables are set before the instance imports anything: the Firebase app
and its clients are made once per process (core/firebase.py). Storage is not proxied: none of the measured requests
calls it. The callers and the bench's setup (tenant, users, keys) reach the emulators directly. The instance runs
without the stack's test-only query and write recorders (WELLNESS_FIRESTORE_QUERY_LOG), which production never runs.

The delay. Published figures: Google Cloud bases its zone requirements on Google Cloud's own, under 1 ms round trip
at the physical layer between any two zones of a region
(https://cloud.google.com/distributed-cloud/hosted/docs/latest/gdch/infrastructure/zone-requirements); Firestore
commits a write to a majority of replicas in several zones before it answers (synchronous replication,
https://firebase.google.com/docs/firestore/understand-reads-writes-scale), so most of a call's time is the
service's, not the network's, and Google publishes no figure for it. 5 ms each way (10 ms per call) is the default,
an assumption on the low side for a same-region read or commit (no TLS, no queueing), not a published figure.
`--concurrency-latency MS` changes it; the table's header prints the value used.
"""

import contextlib
import json
import os
import pathlib
import subprocess
import sys

DELAY_MS = 5.0
PROXIED = ("FIRESTORE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST")
RECORDERS = "WELLNESS_FIRESTORE_QUERY_LOG"  # core/query_record.py ENV; the write recorder follows it
ROOT = pathlib.Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def delayed(delay_ms: float):
    """The delaying proxies, in a process of their own; yields the serving process's environment changes (None:
    unset): its emulator hosts are the proxies, and the test-only recorders are off."""
    targets = [f"{var}={os.environ[var]}" for var in PROXIED if os.environ.get(var)]
    proxies = subprocess.Popen([sys.executable, "-m", "bench.latency_proxy", str(delay_ms), *targets], cwd=ROOT,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        hosts = json.loads(proxies.stdout.readline())
        # The stack's test-only recorders (core/query_record.py, core/write_record.py: a stack walk, shapes and
        # digests per RPC, appended to files) never run in production, so the measured instance runs without them.
        yield {**hosts, RECORDERS: None}
    finally:
        proxies.stdin.close()
        line = proxies.stdout.readline()
        proxies.wait(timeout=30)
    if line:
        print(f"(latency run: the proxies' process used {json.loads(line)['cpu']:.1f} s of CPU)", flush=True)


def print_table(plain: list, delayed: list, delay_ms: float) -> None:
    levels_of = [lv.concurrency for lv in (delayed[0][1] if delayed else [])]

    print(f"\n== Concurrency per instance WITH NETWORK LATENCY: Firestore and Auth reached through a proxy adding "
          f"{delay_ms:g} ms each way ({2 * delay_ms:g} ms per call)")
    print("(same functions, mixes and request counts as above; each function served by a process of its own, the "
          "callers in another, over loopback HTTP; the emulators themselves unchanged. 'no-lat' = the ratio of the "
          "table above)")
    head = " | ".join(f"{f'c={c}':>5} {'req/s':>6} {'p99 ms':>7} {'cpu ms':>6}" for c in levels_of)
    print(f"{'function':17} | {head} | {'x8 thr':>6} {'x32 thr':>7} {'x32 p99':>7} | {'no-lat':>6} | "
          f"{'busy':>4} {'ceil':>5} {'load':>4} | 5x at 32")
    plain_by_name = {name: levels for name, levels, _ in plain}
    for name, levels, _ in delayed:
        one, top = levels[0], levels[2]
        cells = " | ".join(f"{'':>5} {lv.rate:>6.1f} {lv.p99_ms:>7.0f} {lv.cpu_per_request_ms:>6.1f}" for lv in levels)
        x32 = top.rate / one.rate
        base = plain_by_name.get(name)
        no_lat = f"{base[2].rate / base[0].rate:>5.1f}x" if base else f"{'-':>6}"
        # One GIL: at most 1 / CPU-per-request requests a second, so the best ratio one process can reach is c=1's
        # wall time per request over the instance's CPU time per request.
        wall_ms = 1000 / one.rate
        ceiling = wall_ms / one.cpu_per_request_ms if one.cpu_per_request_ms else float("nan")
        busy = top.rate * top.cpu_per_request_ms / 1000
        load = top.rate * top.caller_cpu_ms / 1000
        print(f"{name:17} | {cells} | {levels[1].rate / one.rate:>5.1f}x {x32:>6.1f}x "
              f"{top.p99_ms / one.p99_ms:>6.1f}x | {no_lat} | {busy:>4.2f} {ceiling:>4.1f}x {load:>4.2f} | "
              f"{'yes' if x32 >= 5 else 'no'}")
    for name, levels, _ in delayed:
        for lv in levels:
            if lv.errors:
                print(f"errors {name} c={lv.concurrency} (+{delay_ms:g} ms): {lv.errors}")
    print("(req/s and p99: as the callers see them. cpu ms: the serving process's CPU per request (the instance's "
          "alone). no-lat: x32 thr of the table above. busy: the serving process's CPU seconds per second at c=32 "
          "(1.00 = one core, the most one GIL lets Python use). ceil: c=1's wall time per request / its CPU time per "
          "request, the x32 one process reaches when its CPU is the limit. load: the callers' process's CPU seconds per "
          "second at c=32 (near 1.00 the callers, not the instance, would be the limit). This machine's 2 cores are "
          "shared with the emulators, the proxies, the callers and other stacks, so busy stays below 1.00 when they "
          "take the rest.)")
