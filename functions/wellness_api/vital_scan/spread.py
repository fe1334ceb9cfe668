"""Which shard a take uses: one that no other request of this instance is taking from, when there is one.

An instance serves many requests at once (main.py SIZES: concurrency 20). Two of them that pick the same shard
document at random both read it, and only the first compare-and-set commit lands: the other has spent a read and a
commit for nothing and goes round again, after a backoff. With 16 shards and 16 creates in flight at random, most
creates collided at least once, and the retries, not the network, set the function's throughput (bench/
concurrency.py). So the shards an instance is using are counted here, per document, and a take picks at random
among the ones with the fewest takes in flight in this instance (none, while there are fewer takes than shards).
When every candidate is in use, it waits up to WAIT_S for one to come free rather than race for it; after that it
shares the least used one (the compare-and-set keeps the count exact whatever happens). Takes of other instances
are not seen: they can still collide, and the compare-and-set retry settles those.

Process-wide coordination, not per-request state: an entry lives only while its take is in flight.
"""

import contextlib
import random
import threading
from collections.abc import Iterator

WAIT_S = 1.0


class Spreader:
    def __init__(self) -> None:
        self._free = threading.Condition(threading.Lock())
        self._busy: dict[str, int] = {}

    @contextlib.contextmanager
    def pick(self, paths: dict[int, str], candidates: list[int]) -> Iterator[int]:
        """A shard among `candidates` (`paths`: shard -> its document path), held until the block ends."""
        with self._free:
            self._free.wait_for(lambda: any(paths[i] not in self._busy for i in candidates), timeout=WAIT_S)
            least = min(self._busy.get(paths[i], 0) for i in candidates)
            shard = random.choice([i for i in candidates if self._busy.get(paths[i], 0) == least])  # noqa: S311
            path = paths[shard]
            self._busy[path] = self._busy.get(path, 0) + 1
        try:
            yield shard
        finally:
            with self._free:
                if self._busy[path] <= 1:
                    del self._busy[path]
                else:
                    self._busy[path] -= 1
                self._free.notify_all()

    def in_flight(self) -> int:
        with self._free:
            return sum(self._busy.values())


shards = Spreader()
