"""The point account of a workspace: monthly cycles, split into shards so creates rarely contend.

- A cycle is a calendar month in UTC, id "YYYY-MM". It starts at 00:00Z on the 1st and resets at the
  start of the next month. Each cycle grants `vitalScan.points` points; unused points do not roll over.
- The grant of a cycle is split into SHARDS slices (shard i holds points // SHARDS, plus one for the
  first points % SHARDS shards). Each shard is one document `clients/{id}/vitalScanPoints/{cycle}_{i}`
  that counts what was spent from its slice (`used`); it is created by the first spend from it.
- A create spends one point from one shard, chosen at random among those with points left that no
  other create of the same instance is spending from (spread.py), in the same atomic batch write that
  creates the session: a session never exists without its point, and a point is never spent without
  its session. The shard is updated with compare-and-set (a precondition on the update time that was
  read), so a shard never spends beyond its slice and the account never goes negative. Concurrent
  creates of one instance land on different shards and never race each other; a collision with
  another instance's create is retried (repository.take_from_shards).
- The slices follow the current setting: raising `vitalScan.points` mid-cycle adds points at once;
  lowering it caps every shard at its new slice (a cycle never spends more than the highest grant that
  was configured during it).
"""

import dataclasses
import datetime as dt

SHARDS = 16


@dataclasses.dataclass(frozen=True)
class Cycle:
    cycle_id: str
    starts_at: dt.datetime
    resets_at: dt.datetime


def cycle_of(now: dt.datetime) -> Cycle:
    now = now.astimezone(dt.UTC)
    start = dt.datetime(now.year, now.month, 1, tzinfo=dt.UTC)
    nxt = dt.datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=dt.UTC)
    return Cycle(f"{now.year:04d}-{now.month:02d}", start, nxt)


def slice_of(points: int, shard: int) -> int:
    """The points of a cycle that shard `shard` may spend."""
    points = max(0, points)
    return points // SHARDS + (1 if shard < points % SHARDS else 0)


def funded_shards(points: int) -> list[int]:
    """The shards whose slice is not empty."""
    return [i for i in range(SHARDS) if slice_of(points, i) > 0]


def shard_doc_id(cycle_id: str, shard: int) -> str:
    return f"{cycle_id}_{shard:02d}"


def remaining_in(points: int, spent_by_shard: dict[int, int]) -> int:
    """Points left in a cycle, given what each shard spent (missing shards spent nothing)."""
    return sum(max(0, slice_of(points, i) - spent_by_shard.get(i, 0)) for i in range(SHARDS))
