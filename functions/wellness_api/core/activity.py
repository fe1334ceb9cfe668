"""The activity rollups: what each area counts per client and day as it writes, and analytics reads.

They are declared here, once, because two sides need them: the area that writes a rollup in the same commit
as its own change, and analytics, which reads every area's without reaching into the areas. Each is a
core.rollups.DailyCounters with a lifetime bucket (totals without a range), compacted into one document per
day by the scheduled `analyticscompact` (so a past day costs a reader one document), and a group name; every
add names the active user, so active users per day and per range come from the days' sketches.
"""

import dataclasses
import datetime as dt
from collections.abc import Mapping

from google.cloud import firestore

from .rollups import DailyCounters


@dataclasses.dataclass(frozen=True)
class Rollup:
    counters: DailyCounters
    group: str

    def add(self, client_id: str, counts: Mapping[str, int | float], *, user: str | None,
            moment: dt.datetime | None = None,
            within: firestore.Transaction | firestore.WriteBatch | None = None) -> None:
        self.counters.add(client_id, self.group, counts, user=user, moment=moment, within=within)

    def daily(self, client_id: str, start_day: str, end_day: str) -> dict[str, dict[str, int | float]]:
        """{day: {name: total}} of the group, for the days in the range that had activity."""
        days = self.counters.days(client_id, start_day, end_day)
        return {day: totals.counts.get(self.group, {}) for day, totals in days.items()}


def age_prefix(age_group: str) -> str:
    """The counter-name prefix of a 2.14 age group in the fall-risk rollup: 70-79 -> age70to79, 90+ -> age90plus."""
    return "age" + age_group.replace("-", "to").replace("+", "plus")


def _rollup(collection: str, group: str) -> Rollup:
    return Rollup(DailyCounters(collection, lifetime=True, compacted=True), group)


# lessons: plays, completedPlays (the app reports them: PUT /api/lessons/{id}/plays/{playId})
LESSONS = _rollup("lessonActivity", "lessons")
# sessionsStarted, sessionsCompleted, sessionsFailed, sessionsAbandoned, reps, durationSeconds, caloriesBurned,
# activeUsers (exact, from aiMoveActiveDays)
AI_MOVE = _rollup("aiMoveActivity", "aiMove")
# chats, messages, activeUsers (exact, from assistantActive), proxyRequests, promptTokens, completionTokens
WELLNESS_CHAT = _rollup("assistantActivity", "wellnessChat")
# created, started, completed, failed, expired (sessions)
VITAL_SCAN = _rollup("vitalScanActivity", "vitalScan")
# created[_<origin>], completed[_<origin>], riskLevel1..4, urgent, age<group>_{results, chairStands, tandemSeconds,
# singleLegSeconds, walkSteps} on the day of the event; cohortStarted[_<origin>], cohortCompleted[_<origin>] on
# the day the result was created
FALL_RISK = _rollup("fallRiskActivity", "fallRisk")


ALL = (LESSONS, AI_MOVE, WELLNESS_CHAT, VITAL_SCAN, FALL_RISK)
COMPACT_BATCH = 500  # shards looked up per rollup and round


def compact_all(max_rounds: int = 100) -> int:
    """Fold every rollup's pending shards into their days' documents (the scheduled `analyticscompact`, and
    the bench); returns how many shards were folded. Today's shards are folded too: the next writes of the
    day simply make new ones."""
    folded = 0
    for rollup in ALL:
        for _ in range(max_rounds):
            pending = rollup.counters.pending(COMPACT_BATCH)
            for (client_id, day), refs in pending.items():
                rollup.counters.compact(client_id, day, refs)
                folded += len(refs)
            if sum(len(refs) for refs in pending.values()) < COMPACT_BATCH:
                break
    return folded
