"""A level: callers walking the mix at once until a request budget or a time cap, after a ramp; the compaction
racing them."""

import collections
import dataclasses
import math
import threading
import time

from bench.load.callers import Caller, Level, Record, Seen
from bench.load.operations import health
from bench.load.processes import Workers, cpu_used, workers
from bench.load.world import World


@dataclasses.dataclass
class Outcome:
    callers: int
    records: list[Record]
    elapsed: float
    before: Workers
    after: Workers
    cpu: collections.Counter  # CPU seconds used during the run, by kind of process

    @property
    def requests(self) -> int:
        return len(self.records)

    def rate(self) -> float:
        return self.requests / self.elapsed if self.elapsed else 0.0

    def percentile(self, p: float) -> float:
        """Nearest rank, in ms."""
        times = sorted(r.seconds for r in self.records)
        return times[max(0, math.ceil(p / 100 * len(times)) - 1)] * 1000 if times else float("nan")

    def errors(self, emulator: bool | None = None) -> collections.Counter:
        """Errors by kind: the platform's answers (emulator=False), the emulator's or Hosting's (True), or all."""
        return collections.Counter(r.kind for r in self.records if r.kind and emulator in (None, r.emulator))


def run_callers(world: World, seen: Seen, callers: int, budget: int, cap: float, ops: list, once: bool = False) -> Outcome:
    """`callers` threads walking `ops` until the budget or the cap; `once`: one operation each, all at once."""
    level = Level(budget, cap)
    before, cpu_before = workers(), cpu_used()
    # A ramp's requests leave together: the emulator starts a worker for each one that finds none idle.
    together = threading.Barrier(callers)

    def loop(index: int) -> None:
        caller = Caller(world, seen, level, index)
        step = index  # callers start at different places in the (shuffled) mix
        if once:
            together.wait()
            ops[step % len(ops)](caller)
            return
        while level.may_start():
            ops[step % len(ops)](caller)
            step += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cpu = cpu_used()
    cpu.subtract(cpu_before)
    return Outcome(callers, level.records, elapsed, before, workers(), cpu)


@dataclasses.dataclass
class Row:
    """One level: the measured mixed traffic and health floor, each after a ramp that is not measured, in which
    the emulator starts the workers the level needs."""

    ramp: Outcome
    mixed: Outcome
    health_ramp: Outcome  # half the floor's count, not measured
    floor: Outcome


def measure_level(world: World, seen: Seen, callers: int, budget: int, cap: float, ops: list) -> Row:
    ramp = run_callers(world, seen, callers, callers, cap, ops, once=True)
    mixed = run_callers(world, seen, callers, budget, cap, ops)
    # A health request takes milliseconds, so one at once per caller overlaps too little to start the workers a
    # level needs: half the measured count first.
    health_ramp = run_callers(world, seen, callers, max(callers, mixed.requests // 2), cap, [health])
    floor = run_callers(world, seen, callers, mixed.requests, cap, [health])
    return Row(ramp, mixed, health_ramp, floor)


class Compactor:
    """The analytics compaction every few seconds while the traffic runs, as the schedule would run it."""

    def __init__(self, every: float):
        self.every, self.folded, self.runs, self.failures = every, 0, 0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        from wellness_api.core import activity

        while not self.stop.wait(self.every):
            try:
                self.folded += activity.compact_all()
                self.runs += 1
            except Exception as exc:  # noqa: BLE001 - reported with the checks, never hidden
                self.failures.append(repr(exc))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
