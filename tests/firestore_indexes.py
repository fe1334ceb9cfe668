"""Firestore's rules for which index serves a query, applied to the query shapes core/query_record.py records.

The rules are those Firestore (Standard edition) publishes in "Index types" and "Manage indexes":

- Every field has automatic single-field indexes, ascending, descending and (for arrays) array-contains, in
  collection scope only; a field override in firestore.indexes.json replaces them for its field (an empty list
  exempts the field: nothing can filter or order on it), and is the only way to get a collection-group
  single-field index.
- Every index ends in `__name__`, in the direction of its last field (ascending after an array-contains field).
- A query reads one index range: its equality (`==`, `in`, `is null`) and array-contains filters fix a prefix,
  then come its orders: the explicit orderBy (without the equality fields), then each inequality field it does
  not order on (by field path), then `__name__` in the direction of the last order.
- Equality filters can be served by merging indexes that all end in the query's orders: single-field indexes
  when the query orders by nothing but `__name__`, otherwise composite indexes (or one composite index whose
  prefix holds all of them). An inequality or an order on another field than the equality fields, several
  orders, or sum()/avg() over a field (aggregations read the query's index, and sum()/avg() read the field's
  value from it) therefore need a composite index: equality fields first, then the order fields.
- Disjunctions (OR, and the shape an `in` takes) are served per disjunct; `in` counts as an equality.
- A collection-group query needs collection-group indexes; a query filtered and ordered on `__name__` alone
  reads the documents' own index and never needs one.
"""

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

NAME = "__name__"
EQUALITY = {"EQUAL", "IN", "IS_NULL", "IS_NAN"}
CONTAINS = {"ARRAY_CONTAINS", "ARRAY_CONTAINS_ANY"}
INEQUALITY = {"LESS_THAN", "LESS_THAN_OR_EQUAL", "GREATER_THAN", "GREATER_THAN_OR_EQUAL", "NOT_EQUAL", "NOT_IN",
              "IS_NOT_NULL", "IS_NOT_NAN"}
OPERATORS = {"EQUAL": "==", "IN": "in", "IS_NULL": "is null", "IS_NAN": "is NaN", "ARRAY_CONTAINS": "array-contains",
             "ARRAY_CONTAINS_ANY": "array-contains-any", "LESS_THAN": "<", "LESS_THAN_OR_EQUAL": "<=",
             "GREATER_THAN": ">", "GREATER_THAN_OR_EQUAL": ">=", "NOT_EQUAL": "!=", "NOT_IN": "not-in",
             "IS_NOT_NULL": "is not null", "IS_NOT_NAN": "is not NaN"}
ASCENDING = "ASCENDING"
ANY = "ANY"  # the aggregated field of sum()/avg(): either direction serves


@dataclass(frozen=True)
class Need:
    """What one disjunct of a query needs: a prefix of fixed fields and the orders that follow it."""

    collection: str
    scope: str  # COLLECTION or COLLECTION_GROUP
    prefix: tuple[tuple[str, str], ...]  # (field, "EQ" or "CONTAINS"), the query's order
    orders: tuple[tuple[str, str], ...]  # (field, ASCENDING / DESCENDING / ANY), ending with __name__

    def index_entry(self) -> dict:
        """The composite index (or, for one field, the field override) that serves this need on its own."""
        fields = [{"fieldPath": f, "arrayConfig": "CONTAINS"} if mode == "CONTAINS" else {"fieldPath": f, "order": ASCENDING}
                  for f, mode in self.prefix]
        fields += [{"fieldPath": f, "order": ASCENDING if d == ANY else d} for f, d in self.orders[:-1]]
        # Every index ends in __name__ in its last field's direction; only another direction must be spelled out.
        implicit = fields[-1].get("order", ASCENDING) if fields else ASCENDING
        if self.orders[-1][1] != implicit:
            fields.append({"fieldPath": NAME, "order": self.orders[-1][1]})
        if len(fields) == 1:
            return {"fieldOverride": {"collectionGroup": self.collection, "fieldPath": fields[0]["fieldPath"],
                                      "indexes": [{**{k: v for k, v in fields[0].items() if k != "fieldPath"},
                                                   "queryScope": self.scope}]}}
        return {"collectionGroup": self.collection, "queryScope": self.scope, "fields": fields}



def disjuncts(where: dict | None) -> list[list[tuple[str, str]]]:
    """The filter tree in disjunctive normal form: a list of conjunctions of (field, operator)."""
    if where is None:
        return [[]]
    if "filters" not in where:
        return [[(where["field"], where["op"])]]
    parts = [disjuncts(sub) for sub in where["filters"]]
    if where["op"] == "OR":
        return [conj for part in parts for conj in part]
    return [[term for conj in combo for term in conj] for combo in itertools.product(*parts)]


def needs(shape: dict) -> list[Need]:
    scope = "COLLECTION_GROUP" if shape["allDescendants"] else "COLLECTION"
    out = []
    for conj in disjuncts(shape.get("where")):
        prefix: dict[str, str] = {}
        inequalities: list[str] = []
        for field, op in conj:
            if field == NAME and op not in CONTAINS:
                if op not in EQUALITY:
                    inequalities.append(field)
                continue
            if op in EQUALITY:
                prefix.setdefault(field, "EQ")
            elif op in CONTAINS:
                prefix[field] = "CONTAINS"
            else:
                inequalities.append(field)
        orders: list[tuple[str, str]] = []
        for field, direction in shape.get("orderBy") or []:
            if field not in prefix and field not in (f for f, _ in orders):
                orders.append((field, direction))
        for field in sorted(set(inequalities) - {f for f, _ in orders} - {NAME}):
            orders.append((field, ASCENDING))
        for _kind, field in shape.get("aggregations") or []:
            if field and field not in prefix and field not in (f for f, _ in orders):
                orders.append((field, ANY))
        if NAME in (f for f, _ in orders):
            orders = orders[: [f for f, _ in orders].index(NAME) + 1]
        else:
            last = next((d for _, d in reversed(orders) if d != ANY), ASCENDING)
            orders.append((NAME, last))
        out.append(Need(shape["collection"], scope, tuple(prefix.items()), tuple(orders)))
    return out


class Indexes:
    """firestore.indexes.json: its composite indexes, and each field's single-field indexes."""

    def __init__(self, document: dict):
        self.document = document
        self.composites = [self._normalise(i) for i in document.get("indexes", [])]
        self.overrides = {(o["collectionGroup"], o["fieldPath"]): o for o in document.get("fieldOverrides", [])}

    @classmethod
    def load(cls, path: Path) -> "Indexes":
        return cls(json.loads(path.read_text()))

    @staticmethod
    def _normalise(index: dict) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        fields = [(f["fieldPath"], f.get("order") or ("CONTAINS" if f.get("arrayConfig") else ASCENDING))
                  for f in index["fields"]]
        if fields[-1][0] != NAME:
            fields.append((NAME, fields[-1][1] if fields[-1][1] != "CONTAINS" else ASCENDING))
        return index["collectionGroup"], index.get("queryScope", "COLLECTION"), tuple(fields)

    def single_field_modes(self, collection: str, field: str, scope: str) -> set[str]:
        override = self.overrides.get((collection, field))
        if override is None:
            return {ASCENDING, "DESCENDING", "CONTAINS"} if scope == "COLLECTION" else set()
        return {i.get("order") or ("CONTAINS" if i.get("arrayConfig") else ASCENDING)
                for i in override.get("indexes", []) if i.get("queryScope", "COLLECTION") == scope}

    def candidates(self, need: Need) -> list[tuple[tuple[str, str], ...]]:
        """Every index of the need's collection and scope, single-field ones spelled out as [field, __name__]."""
        found = [fields for c, s, fields in self.composites if c == need.collection and s == need.scope]
        for field in {f for f, _ in need.prefix} | {f for f, _ in need.orders if f != NAME}:
            for mode in self.single_field_modes(need.collection, field, need.scope):
                for name_direction in ((ASCENDING, "DESCENDING") if mode == "CONTAINS" else (mode,)):
                    found.append(((field, mode), (NAME, name_direction)))
        return found

    def serves(self, need: Need) -> bool:
        prefix = dict(need.prefix)
        if not prefix and len(need.orders) == 1:
            return True  # __name__ only: the documents' own index
        covered: set[str] = set()
        k = len(need.orders)
        for fields in self.candidates(need):
            if len(fields) < k or not all(
                f == g and (d == e or (d == ANY and e in (ASCENDING, "DESCENDING")))
                for (g, d), (f, e) in zip(need.orders, fields[-k:], strict=True)
            ):
                continue
            head = fields[:-k]
            if all(f in prefix and (mode == "CONTAINS") == (prefix[f] == "CONTAINS") for f, mode in head):
                if not head and not prefix:
                    return True
                covered |= {f for f, _ in head}
        return bool(prefix) and covered >= set(prefix)


def describe(shape: dict) -> str:
    """`count(), avg(birthOrdinal) over users (collection group) where role ==, status in order by x desc`."""
    words = []
    if shape.get("aggregations"):
        words.append(", ".join(f"{k}({f or ''})" for k, f in shape["aggregations"]) + " over")
    words.append(shape["collection"] + (" (collection group)" if shape["allDescendants"] else f" ({shape['parent'] or '/'})"))
    conj = " or ".join(", ".join(f"{f} {OPERATORS.get(op, op)}" for f, op in c) for c in disjuncts(shape.get("where")) if c)
    if conj:
        words.append("where " + conj)
    if shape.get("orderBy"):
        words.append("order by " + ", ".join(f"{f}{' desc' if d == 'DESCENDING' else ''}" for f, d in shape["orderBy"]))
    for cursor in ("startAt", "endAt"):
        if shape.get(cursor):
            words.append(f"{cursor} cursor")
    if shape.get("limit"):
        words.append("limit")
    return " ".join(words)
