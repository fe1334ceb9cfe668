"""Load run (issue 16), the last part of `make bench`: mixed traffic through Hosting at rising concurrency.

1. Each level (1, 4, 16, 64 callers, one requests.Session each) sends a weighted mix of the areas' requests to the
   stack's Hosting origin, so every request goes Hosting -> Functions emulator -> a Python worker -> Firestore. A
   level stops at a request count or a time cap, whichever comes first. Then the same count of GET /api/health
   at the same concurrency: the floor (Hosting, the emulator and a worker, no area and no Firestore behind it).
   The emulator runs one request at a time per worker process and starts a new worker (a cold start) for each
   request that finds none idle, so each measurement follows an unmeasured ramp at its concurrency; the table
   says how many workers were still started while measuring, and where the CPU went.
   Meanwhile the analytics compaction runs every few seconds, racing the rollup writes as the schedule would.
2. Afterwards, exactly: what the callers saw succeed against what is stored (points, sessions, statistics,
   rollups, jobs, conversations and usage). Each check prints `ok` or `MISMATCH expected/got`; any mismatch
   raises, so `make bench` fails loudly.

Callers never retry the platform's answers: a refused write (429, 503) wrote nothing, so the counts stay exact.
The one answer sent again (once) is the Functions emulator's hang-up, 500 {"code":"ECONNRESET"} without
x-request-id (see is_emulator_hangup): it is counted and printed apart, never as the platform's error. A write
whose outcome the caller could not see (no answer within TIMEOUT_S; an answer that is the emulator's or Hosting's,
without x-request-id, a hang-up included; Vital Scan's 503 commit_outcome_unknown) widens its checks to
[expected, expected + unknown], and the line says so and what it found.
"""

import time

from bench.load.callers import Seen
from bench.load.checks import check, wait_for_jobs
from bench.load.levels import Compactor, measure_level, run_callers
from bench.load.operations import media_job, schedule
from bench.load.plan import COMPACT_EVERY_S, LEVELS, MAX_REQUESTS, MEDIA_WAIT_S, MEDIA_WORKERS, MIX, PER_CALLER, TIME_CAP_S
from bench.load.processes import workers
from bench.load.report import print_cpu, print_errors, print_operations, print_table
from bench.load.world import quiet, setup


def main(levels=LEVELS, per_caller: int = PER_CALLER, max_requests: int = MAX_REQUESTS,
         time_cap: float = TIME_CAP_S, compact_every: float = COMPACT_EVERY_S, media_wait: float = MEDIA_WAIT_S) -> None:
    from support.tenants import BASE_URL
    from wellness_api.assistant import repository as assistant
    from wellness_api.core import activity, clock
    from wellness_api.core.rollups import day_of

    began = time.perf_counter()
    world = setup(BASE_URL)
    seen = Seen()
    first_day, months = day_of(), {assistant.month_of(clock.now())}
    ops = schedule()
    start_workers = workers()
    warm = run_callers(world, seen, 1, len(ops) * 2, time_cap, ops)  # every function's first worker, and its first request
    # The task queue's workers too: a worker the emulator starts in the middle of a busy level may fail to bind
    # its port, and the job's delivery then waits for the queue's backoff.
    run_callers(world, seen, MEDIA_WORKERS, MEDIA_WORKERS, time_cap, [media_job], once=True)
    wait_for_jobs(world, seen.jobs, media_wait)
    rows = []
    with Compactor(compact_every) as compactor:
        rows = [measure_level(world, seen, callers, min(per_caller * callers, max_requests), time_cap, ops)
                for callers in levels]
    traffic_seconds = time.perf_counter() - began
    months.add(assistant.month_of(clock.now()))
    jobs, waited = wait_for_jobs(world, seen.jobs, media_wait)
    with quiet():
        folded = activity.compact_all()
    checks = check(world, seen, first_day, months, jobs)

    print(f"\n== Load run: mixed traffic through Hosting ({world.base_url}) beside GET /api/health at the same "
          "concurrency (the floor)")
    print(f"(a level: at most {per_caller} requests per caller and {max_requests} in all, at most {time_cap:.0f} s; "
          f"the mix by weight: {', '.join(f'{k} {v}' for k, v in MIX.items())}; {len(world.players)} players; "
          "latency: the whole answer, a chat's stream read to its end. Before each measurement a ramp, not measured "
          "(one operation per caller; half the count of health requests), lets the emulator start the workers the "
          "level needs.)")
    print_table(rows)
    print_errors(rows)
    print_operations(rows)
    print_cpu(rows)
    warm_errors = warm.errors()
    print(f"\nwarm-up, one caller, not measured: {warm.requests} requests in {warm.elapsed:.1f} s"
          + (f", errors {dict(warm_errors)}" if warm_errors else "")
          + f"; function workers {start_workers.count} before it, {rows[-1].floor.after.count} at the end")
    print(f"compaction during the traffic: {compactor.runs} runs, {compactor.folded} shards folded"
          + (f", failures: {compactor.failures}" if compactor.failures else "") + f"; after it: {folded}")
    print(f"media jobs: {len(seen.jobs)} created; every one terminal {waited:.1f} s after the traffic")
    hangups = sum(seen.hangups.values())
    print('emulator hang-ups (500 {"code":"ECONNRESET"}, "socket hang up" in its log; each sent again once, '
          f"none counted as the platform's): {hangups}" + (f" ({dict(seen.hangups.most_common())})" if hangups else ""))
    if any(seen.unknown.values()):
        print(f"writes of unknown outcome (no answer, or not the platform's): {dict(seen.unknown)}")
    print("\n== Load run: nothing lost or counted twice (what the callers saw succeed against what is stored)")
    width = max(len(name) for name, _, verdict in checks.rows if verdict)
    for name, _, verdict in checks.rows:
        print(f"{name:<{width}}  {verdict}" if verdict else name)
    print(f"\nload run: {time.perf_counter() - began:.0f} s in all ({traffic_seconds:.0f} s of setup and traffic)")
    failed = [name for name, ok, _ in checks.rows if not ok]
    if failed:
        raise SystemExit(f"load run: {len(failed)} check(s) failed: {', '.join(failed)}")
