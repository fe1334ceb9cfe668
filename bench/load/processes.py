"""The stack's processes as /proc shows them: the function workers the emulator started, their memory, and the CPU
used by each kind of process."""

import collections
import contextlib
import dataclasses
import os


@dataclasses.dataclass
class Workers:
    count: int
    rss_mb: float


def _stack_processes():
    """(pid, argv, the /proc stat fields after the name) of each process of this stack (devstack's DEVSTACK_MARK)."""
    from devstack import stack

    for pid, _ in stack.marked_pids(root=os.environ.get("DEVSTACK_MARK")):
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as f:
                yield pid, argv, f.read().rsplit(b")", 1)[1].split()


def _is_worker(argv: list[bytes]) -> bool:
    return any(arg.endswith(b"functions-framework") for arg in argv[1:2])


def workers() -> Workers:
    """This stack's function workers and their memory. The Functions emulator gives each worker one request at a
    time and starts a new one (a Python process: gunicorn master and worker) whenever a function has no idle
    worker, so a level's concurrency turns into workers; they stay until the emulator stops."""
    rss = 0
    pids = {}
    for pid, argv, stat in _stack_processes():
        if not (b"python" in argv[0] and _is_worker(argv)):
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/statm", "rb") as f:
                rss += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            pids[pid] = int(stat[1])
    masters = sum(1 for ppid in pids.values() if ppid not in pids)  # a gunicorn worker's parent is its master
    return Workers(masters, rss / 2**20)


def cpu_used() -> collections.Counter:
    """CPU seconds used so far by this stack's processes, by kind: the emulators' Node process (Hosting, the
    Functions emulator's router, Auth, Tasks), Firestore's JVM, the function workers, and this bench."""
    tick = os.sysconf("SC_CLK_TCK")
    used: collections.Counter = collections.Counter()
    mine = os.times()
    used["bench"] = mine.user + mine.system
    for _, argv, stat in _stack_processes():
        name = argv[0].rsplit(b"/", 1)[-1]
        kind = ("workers" if _is_worker(argv) else
                "node" if name == b"node" else "firestore" if name == b"java" else "other")
        used[kind] += (int(stat[11]) + int(stat[12])) / tick
    return used
