"""A TCP proxy that adds a fixed one-way network delay, for measuring the functions as production's network makes them
wait (bench/concurrency.py's latency run).

Each chunk read from one side is written to the other at its arrival time + the delay. A direction's chunks keep
their order (a queue per direction, due times never decrease) but are not serialised: a chunk waits only until its
own due time, so many requests in flight on one connection (gRPC's HTTP/2 streams) or on many connections each see
the delay once, as on a real link, and throughput is not capped at one chunk per delay. The TCP handshake itself is
not delayed (connections are pooled and long-lived, as the Firestore and Auth clients keep them).

The proxies run on an asyncio loop in a daemon thread of the process that starts them. `python -m bench.latency_proxy
DELAY_MS NAME=HOST:PORT ...` runs them in a process of their own (bench/concurrency_latency.py does, so that neither
the measured instance nor its callers share a GIL with them): it writes one JSON line {NAME: "127.0.0.1:PORT"} and
serves until its stdin ends, then writes one JSON line {"cpu": its CPU seconds}.
"""

import asyncio
import contextlib
import json
import sys
import threading
import time

CHUNK = 64 * 1024
_EOF = b""


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay_s: float) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()

    async def read() -> None:
        try:
            while True:
                data = await reader.read(CHUNK)
                queue.put_nowait((loop.time() + delay_s, data))
                if not data:
                    return
        except (ConnectionError, OSError):
            queue.put_nowait((loop.time() + delay_s, _EOF))

    async def write() -> None:
        try:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            return

    reading = asyncio.ensure_future(read())
    await write()
    reading.cancel()
    with contextlib.suppress(asyncio.CancelledError, ConnectionError, OSError):
        await reading


async def _serve_one(client_r, client_w, host: str, port: int, delay_s: float) -> None:
    try:
        up_r, up_w = await asyncio.open_connection(host, port)
    except OSError:
        client_w.close()
        return
    # CancelledError too: the proxies' shutdown cancels the connections still open.
    with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
        await asyncio.gather(_pump(client_r, up_w, delay_s), _pump(up_r, client_w, delay_s))
    for w in (client_w, up_w):
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            w.close()


class DelayProxies:
    """Proxies to `targets` ({name: "host:port"}) with `delay_ms` one way; `.hosts` maps each name to its proxy."""

    def __init__(self, targets: dict[str, str], delay_ms: float):
        self.delay_s = delay_ms / 1000
        self.targets = targets
        self.hosts: dict[str, str] = {}
        self._loop = asyncio.new_event_loop()
        self._servers: list = []
        self._thread = threading.Thread(target=self._loop.run_forever, name="latency-proxy", daemon=True)

    def __enter__(self) -> "DelayProxies":
        self._thread.start()
        for name, target in self.targets.items():
            host, port = target.rsplit(":", 1)
            server = asyncio.run_coroutine_threadsafe(self._start(host, int(port)), self._loop).result(timeout=10)
            self._servers.append(server)
            self.hosts[name] = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        return self

    async def _start(self, host: str, port: int):
        return await asyncio.start_server(lambda r, w: _serve_one(r, w, host, port, self.delay_s), "127.0.0.1", 0)

    def __exit__(self, *exc) -> None:
        async def stop():
            for server in self._servers:
                server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


def _main(delay_ms: float, targets: list[str]) -> None:
    with DelayProxies(dict(t.split("=", 1) for t in targets), delay_ms) as proxies:
        print(json.dumps(proxies.hosts), flush=True)
        sys.stdin.read()
    print(json.dumps({"cpu": time.process_time()}), flush=True)


if __name__ == "__main__":
    _main(float(sys.argv[1]), sys.argv[2:])
