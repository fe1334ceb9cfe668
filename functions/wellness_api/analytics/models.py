"""The query of the analytics endpoints: an optional, inclusive range of UTC calendar days."""

import dataclasses
import datetime as dt
import re

from pydantic import BaseModel, Field

from ..core import http
from ..core.errors import ApiError

MAX_RANGE_DAYS = 366  # a reader reads up to one rollup document per day and module: the span is capped
DATE_LENGTH = 10  # YYYY-MM-DD
# The picker's list is one answer without pages: its reads and size are capped, whatever the number of clients.
MAX_PICKER_CLIENTS = 5000
LIFETIME_BREAKDOWN_DAYS = 30  # without a range, dailyBreakdown shows the last 30 days

NOT_A_DATE = "{field} must be a date as YYYY-MM-DD."
BOTH_OR_NEITHER = "startDate and endDate must be given together."
INVERTED = "startDate must not be after endDate."
TOO_LONG = f"The range may span at most {MAX_RANGE_DAYS} days."
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # fromisoformat alone would take 20250101 and 2025-W01-1


class RangeQuery(BaseModel):
    startDate: str | None = Field(default=None, max_length=DATE_LENGTH,
                                  description="First day (YYYY-MM-DD, UTC), inclusive. With endDate; without both, "
                                              "lifetime totals.")
    endDate: str | None = Field(default=None, max_length=DATE_LENGTH,
                                description=f"Last day (YYYY-MM-DD, UTC), inclusive; at most {MAX_RANGE_DAYS} days "
                                            "after startDate counted inclusively.")


@dataclasses.dataclass(frozen=True)
class Window:
    """A range of days, or lifetime (start and end None)."""

    start: dt.date | None = None
    end: dt.date | None = None

    @property
    def ranged(self) -> bool:
        return self.start is not None

    def iso(self) -> tuple[str | None, str | None]:
        return (self.start.isoformat() if self.start else None, self.end.isoformat() if self.end else None)


def _day(value: str | None, field: str) -> dt.date | None:
    if value is None:
        return None
    try:
        if not _DATE.match(value):
            raise ValueError(value)
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ApiError(400, NOT_A_DATE.format(field=field)) from None


def window(query: RangeQuery) -> Window:
    """The range asked for; 400 for a malformed date, one date without the other, an inverted or too long range."""
    start, end = _day(query.startDate, "startDate"), _day(query.endDate, "endDate")
    if start is None or end is None:
        if (start is None) != (end is None):
            raise ApiError(400, BOTH_OR_NEITHER)
        return Window(start, end)
    if start > end:
        raise ApiError(400, INVERTED)
    if (end - start).days + 1 > MAX_RANGE_DAYS:
        raise ApiError(400, TOO_LONG)
    return Window(start, end)


def query_window(args: dict[str, str]) -> Window:
    """The range of a query string ({name: first value}); a date over its length is worded as any malformed one."""
    try:
        query = http.validate(RangeQuery, args)
    except http.BodyError as exc:
        if exc.field in RangeQuery.model_fields:
            raise ApiError(400, NOT_A_DATE.format(field=exc.field)) from None
        raise
    return window(query)


def days_of(start: dt.date, end: dt.date) -> list[str]:
    return [(start + dt.timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]
