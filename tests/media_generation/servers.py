"""Hostile things a reference URL or a vendor can answer with, built here: a server that drips its answer a
byte at a time (on 127.0.0.1, reached through fetch's `connect`, the network boundary), and an image that is
small on disk and huge once decoded."""

import contextlib
import functools
import select
import socket
import struct
import threading
import zlib


@functools.cache
def huge_png(width: int = 13_000, height: int = 13_000) -> bytes:
    """A one-colour PNG (1-bit greyscale) of width x height: about 20 KB on disk; Pillow decodes it to one byte
    a pixel (169 MB at 13,000 x 13,000) and to four in RGB, so a decoder that trusts it takes about 1 GB.

    Written by hand, row by row, so that building it never holds the decoded picture in memory."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + b"\x00" * ((width + 7) // 8)  # filter byte "none", then one colour
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


class DripServer:
    """One connection on 127.0.0.1: reads the request, sends `prefix` at once, then `drip` one byte per
    `interval` seconds (nothing when `drip` is empty), for at most `limit` intervals, watching between bytes for
    the client to hang up. `answer=False`: nothing is read or sent first (a server stuck in the TLS handshake).

    `dripped` counts the bytes sent before the hang-up; `hung_up` says whether the client hung up (rather than
    the server stopping at `limit`, which is how long a fetch without a deadline would have listened)."""

    def __init__(self, prefix: bytes, drip: bytes = b"a", interval: float = 0.5, limit: int = 120,
                 answer: bool = True):
        self.prefix, self.drip, self.interval, self.limit, self.answer = prefix, drip, interval, limit, answer
        self.dripped = 0
        self.hung_up = False
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def connect(self, address: str, host: str, deadline: float) -> socket.socket:
        """fetch's connector: plain TCP to this server, whatever public address fetch checked."""
        self.connections += 1
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)

    def _serve(self) -> None:
        conn, _ = self._listener.accept()
        with conn:
            if self.answer:
                conn.recv(65536)
                conn.sendall(self.prefix)
            for _ in range(self.limit):
                readable, _, _ = select.select([conn], [], [], self.interval)
                if readable and not conn.recv(65536):
                    self.hung_up = True
                    return
                if not self.drip:
                    continue
                try:
                    conn.sendall(self.drip[self.dripped % len(self.drip):][:1])
                except OSError:
                    self.hung_up = True
                    return
                self.dripped += 1

    def __enter__(self) -> "DripServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._thread.join(timeout=self.limit * self.interval + 5)
        with contextlib.suppress(OSError):
            self._listener.close()
