"""The load run's tables: each level against its health floor, the errors, each request's p50 and the CPU."""

import collections
import os

from bench.load.levels import Row


def print_table(rows: list[Row]) -> None:
    print(f"{'callers':>7} {'requests':>8} {'req/s':>6} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'emul.':>5} | "
          f"{'health req/s':>12} {'p50 ms':>6} {'p99 ms':>6} | {'p50 x':>6} {'p99 x':>6} {'req/s x':>7} | "
          "ramps | workers (started while measured), RSS")
    for row in rows:
        mixed, floor = row.mixed, row.floor
        ramps = row.ramp.elapsed + row.health_ramp.elapsed
        measured = mixed.after.count - mixed.before.count + floor.after.count - floor.before.count
        print(f"{mixed.callers:>7} {mixed.requests:>8} {mixed.rate():>6.1f} {mixed.percentile(50):>7.0f} "
              f"{mixed.percentile(99):>7.0f} {sum(mixed.errors(False).values()):>6} "
              f"{sum(mixed.errors(True).values()):>5} | {floor.rate():>12.1f} "
              f"{floor.percentile(50):>6.0f} {floor.percentile(99):>6.0f} | "
              f"{mixed.percentile(50) / floor.percentile(50):>5.1f}x {mixed.percentile(99) / floor.percentile(99):>5.1f}x "
              f"{mixed.rate() / floor.rate():>6.2f}x | {ramps:>4.1f} s | {row.ramp.before.count:>3} -> "
              f"{floor.after.count:>3} ({measured:>2}), {floor.after.rss_mb / 1024:.1f} GB")


def print_errors(rows: list[Row]) -> None:
    for row in rows:
        for outcome, what in ((row.ramp, "mixed ramp"), (row.mixed, "mixed"), (row.health_ramp, "health ramp"),
                              (row.floor, "health")):
            for emulator, whose in ((False, "the platform's"), (True, "the emulator's or Hosting's")):
                errors = outcome.errors(emulator)
                if errors:
                    listed = ", ".join(f"{kind} x{n}" for kind, n in errors.most_common())
                    print(f"errors at {outcome.callers} callers ({what}), {whose}: {listed}")


def print_cpu(rows: list[Row]) -> None:
    print(f"\nCPU seconds used while measured (this machine has {os.cpu_count()} cores, shared):")
    kinds = ("node", "firestore", "workers", "bench", "other")
    print(f"{'callers':>7} {'run':>7} {'wall s':>7} " + " ".join(f"{k:>9}" for k in kinds))
    for row in rows:
        for outcome, what in ((row.mixed, "mixed"), (row.floor, "health")):
            print(f"{outcome.callers:>7} {what:>7} {outcome.elapsed:>7.1f} "
                  + " ".join(f"{max(0.0, outcome.cpu[k]):>9.1f}" for k in kinds))
    print("(node: Hosting, the Functions emulator's router, Auth and Tasks in one Node process; firestore: the "
          "Firestore emulator's JVM; workers: the function workers' Python processes; bench: the callers)")


def print_operations(rows: list[Row]) -> None:
    by_op: dict[str, dict[int, list[float]]] = collections.defaultdict(dict)
    for row in rows:
        for record in row.mixed.records:
            by_op[record.op].setdefault(row.mixed.callers, []).append(record.seconds)
    levels = [row.mixed.callers for row in rows]
    print("\np50 ms (requests) per request and level:")
    print(f"{'request':24} " + " ".join(f"{f'{n} callers':>13}" for n in levels))
    for op in sorted(by_op):
        cells = []
        for n in levels:
            times = sorted(by_op[op].get(n, []))
            cells.append(f"{times[len(times) // 2] * 1000:>6.0f} ({len(times):>3})" if times else "-")
        print(f"{op:24} " + " ".join(f"{cell:>13}" for cell in cells))
