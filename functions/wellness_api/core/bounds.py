"""Bounded number types whose bounds the OpenAPI document shows as minimum/maximum.

pydantic writes bounds on a union (int | float), or on a type whose validator runs first (QueryInt's string
conversion), as `ge`/`le`, which no OpenAPI reader knows; these types give the schema itself."""

from typing import Annotated, Any

from pydantic import Field, StrictFloat, StrictInt, WithJsonSchema

from .http import QueryInt

Number = StrictInt | StrictFloat


def bounded_number(*, le: float, ge: float | None = None, gt: float | None = None) -> Any:
    """An int or float (JSON types, no coercion) in a range."""
    schema: dict[str, Any] = {"type": "number", "maximum": le}
    if ge is not None:
        schema["minimum"] = ge
    if gt is not None:
        schema["exclusiveMinimum"] = gt
    return Annotated[Number, Field(ge=ge, gt=gt, le=le), WithJsonSchema(schema)]


def query_int(*, ge: int, le: int) -> Any:
    """An integer query parameter in a range: the bounds come before QueryInt's string conversion."""
    return Annotated[int, Field(ge=ge, le=le), *QueryInt.__metadata__]
