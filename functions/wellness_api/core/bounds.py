"""Bounded number types whose bounds the OpenAPI document shows as minimum/maximum.

pydantic writes bounds on a union (int | float), or on a type whose validator runs first (QueryInt's string
conversion), as `ge`/`le`, which no OpenAPI reader knows; these types give the schema itself.

They are metadata for `Annotated` (`Annotated[Number, NumberRange(ge=0, le=1)]`, `Annotated[int, QueryRange(ge=1,
le=100)]`), so a type checker sees the plain type: a call in an annotation is no type to it.
"""

import dataclasses
from collections.abc import Iterator
from typing import Any

import annotated_types
from pydantic import StrictFloat, StrictInt, WithJsonSchema

from .http import QUERY_INT_CONVERSION

Number = StrictInt | StrictFloat


@dataclasses.dataclass(frozen=True)
class NumberRange(annotated_types.GroupedMetadata):
    """An int or float (JSON types, no coercion) in a range: `Annotated[Number, NumberRange(...)]`."""

    le: float
    ge: float | None = None
    gt: float | None = None

    def __iter__(self) -> Iterator[object]:
        schema: dict[str, Any] = {"type": "number", "maximum": self.le}
        if self.ge is not None:
            yield annotated_types.Ge(self.ge)
            schema["minimum"] = self.ge
        if self.gt is not None:
            yield annotated_types.Gt(self.gt)
            schema["exclusiveMinimum"] = self.gt
        yield annotated_types.Le(self.le)
        yield WithJsonSchema(schema)


@dataclasses.dataclass(frozen=True)
class QueryRange(annotated_types.GroupedMetadata):
    """An integer query parameter in a range, `Annotated[int, QueryRange(...)]`: the bounds come before
    QueryInt's string conversion."""

    ge: int
    le: int

    def __iter__(self) -> Iterator[object]:
        yield annotated_types.Ge(self.ge)
        yield annotated_types.Le(self.le)
        yield QUERY_INT_CONVERSION
