"""One function of main.py served by this process alone, as one Cloud Run instance serves it (bench/concurrency.py).

`python -m bench.instance NAME` imports main, serves the function behind the threaded WSGI server
(support/threaded_server.py) on a free loopback port and writes one JSON line `{"url": ...}` to its control channel
(the stdout it was started with). Its callers are in another process, as in production: the CPU, memory and GIL of
this process are the instance's alone. On the control channel, each line read from stdin is answered with one JSON
line: `stat` -> {"cpu": CPU seconds of this process, "rss": MiB, "hwm": peak MiB}; `reset` -> the peak is set to the
current RSS. End of stdin ends the process. The platform's access log lines go to /dev/null (Cloud Run's stdout is
collected elsewhere; they are written either way, so their cost stays in the figure).
"""

import contextlib
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _status() -> dict:
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return {"cpu": time.process_time(), "rss": int(fields["VmRSS"].split()[0]) / 1024,
            "hwm": int(fields["VmHWM"].split()[0]) / 1024}


def serve(name: str) -> None:
    control = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    import main
    from support.threaded_server import function_app, serving

    with serving(function_app(getattr(main, name))) as base_url:
        control.write(json.dumps({"url": base_url}) + "\n")
        for line in sys.stdin:
            command = line.strip()
            if command == "reset":
                with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as f:
                    f.write("5")  # VmHWM := VmRSS
            control.write(json.dumps(_status()) + "\n")


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT / "functions"), str(ROOT)]
    serve(sys.argv[1])
