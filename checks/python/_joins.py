"""Shared by the join rules SPK422-SPK424: the conjuncts of a join condition, what a join's sides are.

The column lineage of ``_determinism_and_joins`` answers "which attributes does
this DataFrame carry"; these rules need two more facts it does not keep:

- *rows*: do two DataFrames hold the same rows (``df`` and ``df.select(...)``
  do, ``df.filter(...)`` does not), as a token compared for equality;
- *columns by name*: the names a side is known to have when nothing but
  ``select("k")`` (and row-only methods) made it, and whether its rows are
  distinct on them (``.distinct()``, ``dropDuplicates()``, a ``groupBy`` of them).

Both are recorded for each plain name as the walk leaves its assignment (the
values of before the assignment, like the lineage tracker), per function scope.
An assignment inside a branch or a loop records nothing usable: either value may
reach what follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from checks.python import _determinism_and_joins as lineage
from linter.semantic import DATAFRAME, keyword_arg, literal_string, method_name, positional_args
from linter.sources.python import source_child_nodes

# Methods that keep the receiver's rows, one for one (columns may change).
ROW_PRESERVING = frozenset(
    "select withColumn withColumns withColumnRenamed withColumnsRenamed drop alias cache persist unpersist "
    "repartition repartitionByRange coalesce hint sortWithinPartitions orderBy sort localCheckpoint checkpoint "
    "toDF withMetadata".split()
)
# Methods that keep the receiver's columns, by name (rows may change).
COLUMN_PRESERVING = frozenset(
    "distinct dropDuplicates drop_duplicates filter where alias cache persist unpersist repartition "
    "repartitionByRange coalesce hint limit orderBy sort sortWithinPartitions dropna sample localCheckpoint "
    "checkpoint offset".split()
)
_DEDUP = frozenset({"distinct", "dropDuplicates", "drop_duplicates"})
GROUPED_RESULTS = frozenset("agg count sum avg mean min max".split())
# Aggregates a window cannot compute ("Distinct window functions are not supported").
DISTINCT_AGGREGATES = frozenset({"countDistinct", "count_distinct", "sumDistinct", "sum_distinct"})


@dataclass(frozen=True)
class Aggregate:
    """``base.groupBy(keys).agg(...)``: the rows token of ``base``, the grouping names, the nodes."""

    rows: tuple
    keys: frozenset
    base: cst.BaseExpression
    node: cst.Call


@dataclass(frozen=True)
class Entry:
    node: Optional[cst.BaseExpression]  # the assigned value (None: unknown, e.g. a conditional assignment)
    rows: tuple
    columns: Optional[frozenset]  # the names it is known to have, when only `select` of names made them
    distinct: bool  # rows distinct on `columns`
    aggregate: Optional[Aggregate]


def _state(ctx) -> dict:
    found = ctx.memo.get("joins")
    if found is None:
        found = ctx.memo["joins"] = {"names": {}, "seen": set()}
    return found


def enter_function(ctx, node: cst.FunctionDef) -> None:
    """Parameters hide the module's names of the same spelling."""
    state = _state(ctx)
    if ("f", id(node)) in state["seen"]:
        return
    state["seen"].add(("f", id(node)))
    params = node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        name = p.name.value
        state["names"][(id(node), name)] = Entry(None, ("param", id(node), name), None, False, None)


def leave_assign(ctx, node: cst.Assign) -> None:
    state = _state(ctx)
    if ("a", id(node)) in state["seen"]:
        return
    state["seen"].add(("a", id(node)))
    targets = [t.target for t in node.targets if isinstance(t.target, cst.Name)]
    if not targets:
        return
    scope = lineage._scopes(ctx)[0]
    if lineage._conditional(ctx, node) or len(node.targets) != len(targets):
        entry = Entry(None, ("node", id(node)), None, False, None)
    else:
        value = node.value
        columns, distinct = columns_of(ctx, value)
        entry = Entry(value, rows_of(ctx, value), columns, distinct, aggregate_of(ctx, value))
    for target in targets:
        state["names"][(scope, target.value)] = entry


def entry_of(ctx, name: str) -> Optional[Entry]:
    names = _state(ctx)["names"]
    for scope in lineage._scopes(ctx):
        if (scope, name) in names:
            return names[(scope, name)]
    return None


def _receiver(ctx, node) -> Optional[cst.BaseExpression]:
    """``x`` of ``x.method(...)`` when ``x`` is a DataFrame."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and ctx.semantic.is_dataframe(node.func.value):
        return node.func.value
    return None


def unwrap_broadcast(ctx, node):
    if isinstance(node, cst.Call) and ctx.semantic.is_function(node.func, {"broadcast"}) and positional_args(node):
        return positional_args(node)[0]
    return node


def rows_of(ctx, node) -> tuple:
    """A token equal for two expressions that hold the same rows (as far as this file shows)."""
    node = unwrap_broadcast(ctx, node)
    if isinstance(node, cst.Name):
        entry = entry_of(ctx, node.value)
        return entry.rows if entry is not None else ("free", node.value)
    if isinstance(node, cst.Attribute):
        return ("attr", lineage._scopes(ctx)[0], " ".join(ctx.code_for(node).split()))
    if isinstance(node, cst.Call):
        method = method_name(node)
        receiver = _receiver(ctx, node)
        if method in ROW_PRESERVING and receiver is not None:
            return rows_of(ctx, receiver)
        if method == "table" and positional_args(node) and literal_string(positional_args(node)[0]) is not None \
                and ctx.semantic.is_dataframe(node):
            return ("table", literal_string(positional_args(node)[0]))
    return ("node", id(node))


def plain_names(ctx, args) -> Optional[list]:
    """``"a", F.col("b")`` or ``["a", "b"]``: the names; None when any item is not a plain column name."""
    items = [a for a in args]
    if len(items) == 1 and isinstance(items[0].value, (cst.List, cst.Tuple)) and not items[0].star:
        items = [cst.Arg(e.value) for e in items[0].value.elements]
    out = []
    for arg in items:
        if arg.star or arg.keyword is not None:
            return None
        name = _plain_name(ctx, arg.value)
        if name is None:
            return None
        out.append(name)
    return out or None


def _plain_name(ctx, node) -> Optional[str]:
    text = literal_string(node)
    if text is None and isinstance(node, cst.Call) and ctx.semantic.is_function(node.func, {"col", "column"}):
        args = positional_args(node)
        text = literal_string(args[0]) if len(args) == 1 else None
    if text is None or text == "*" or "." in text or "`" in text:
        return None
    return text


def aggregate_of(ctx, node) -> Optional[Aggregate]:
    """``df.groupBy("k").agg(...)`` / ``.count()`` / ``.max("v")`` (or a name holding one)."""
    while isinstance(node, cst.Call) and method_name(node) in ("cache", "persist", "alias") \
            and _receiver(ctx, node) is not None:
        node = node.func.value
    if isinstance(node, cst.Name):
        entry = entry_of(ctx, node.value)
        return entry.aggregate if entry is not None else None
    if not (isinstance(node, cst.Call) and method_name(node) in GROUPED_RESULTS):
        return None
    grouping = node.func.value
    if not (isinstance(grouping, cst.Call) and method_name(grouping) in ("groupBy", "groupby")):
        return None
    base = grouping.func.value
    if not ctx.semantic.is_dataframe(base):
        return None
    keys = plain_names(ctx, grouping.args)
    if not keys:
        return None
    for current in _walk(node):
        if isinstance(current, cst.Call) and ctx.semantic.is_function(current.func, DISTINCT_AGGREGATES):
            return None
        if isinstance(current, cst.Call) and method_name(current) == "over":
            return None  # a window inside an aggregate: leave it alone
    return Aggregate(rows_of(ctx, base), frozenset(keys), base, node)


def _walk(node):
    """The expression's nodes but whitespace and punctuation, in the order of libcst's ``children``."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.__class__ is cst.Lambda or current.__class__ is cst.FunctionDef:
            continue
        stack.extend(source_child_nodes(current))


def columns_of(ctx, node) -> tuple:
    """(names, distinct) of a DataFrame made by ``select`` of plain names and row-only methods; (None, False)."""
    node = unwrap_broadcast(ctx, node)
    distinct = False
    while True:
        if isinstance(node, cst.Name):
            entry = entry_of(ctx, node.value)
            if entry is None or entry.columns is None:
                return None, False
            return entry.columns, entry.distinct or _settles(distinct, entry.columns)
        if not isinstance(node, cst.Call):
            return None, False
        method = method_name(node)
        if method == "range" and ctx.semantic.is_dataframe(node):
            return frozenset({"id"}), True  # `spark.range(...)`: one column of unique ids
        receiver = _receiver(ctx, node)
        if receiver is None:
            return None, False
        if method in COLUMN_PRESERVING:
            if method in _DEDUP and distinct is not True:
                subset = plain_names(ctx, node.args) if node.args else None
                if not node.args:
                    distinct = True
                elif subset is not None:
                    distinct = ("subset", frozenset(subset))
            node = receiver
            continue
        if method == "select":
            names = plain_names(ctx, node.args)
            if names is None:
                return None, False
            columns = frozenset(names)
            grouped = aggregate_of(ctx, receiver)
            if grouped is not None and grouped.keys == columns:
                return columns, True  # one row per group
            return columns, _settles(distinct, columns)
        return None, False


def _settles(distinct, columns: frozenset) -> bool:
    """A deduplication above the `select`: all columns, or a subset of them (unique on fewer is unique on all)."""
    if isinstance(distinct, tuple):
        return distinct[1] <= columns
    return bool(distinct)


def conjuncts(on) -> list:
    """The parts of ``a & b & c`` (and of a list of Columns, which `join` ANDs)."""
    if isinstance(on, (cst.List, cst.Tuple)):
        out = []
        for element in on.elements:
            out.extend(conjuncts(element.value))
        return out
    if isinstance(on, cst.BinaryOperation) and isinstance(on.operator, cst.BitAnd):
        return conjuncts(on.left) + conjuncts(on.right)
    return [on]


def disjuncts(on) -> list:
    if isinstance(on, cst.BinaryOperation) and isinstance(on.operator, cst.BitOr):
        return disjuncts(on.left) + disjuncts(on.right)
    return [on]


def join_how(call: cst.Call):
    """The join type, normalised (``inner``, ``left``, ``leftsemi`` ...); "" when not given; None when not literal."""
    args = positional_args(call)
    how = args[2] if len(args) > 2 else keyword_arg(call, "how")
    if how is None:
        return ""
    text = literal_string(how)
    if text is None:
        return None
    text = text.lower().replace("_", "")
    return {"leftouter": "left", "rightouter": "right", "outer": "full", "fullouter": "full",
            "semi": "leftsemi", "anti": "leftanti"}.get(text, text)


def how_node(call: cst.Call):
    args = positional_args(call)
    return args[2] if len(args) > 2 else keyword_arg(call, "how")


def may_be_dataframe(ctx, node) -> bool:
    """The other side of a DataFrame's ``join``: a DataFrame unless something says it is another thing."""
    value = ctx.semantic.infer(unwrap_broadcast(ctx, node))
    return value is None or value.kind == DATAFRAME


def right_side(call: cst.Call):
    args = positional_args(call)
    return args[0] if args else keyword_arg(call, "other")


class JoinLineage:
    """Mixed into the join rules: records the file's DataFrame assignments (function by function) as the walk goes."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        enter_function(self.ctx, node)

    def leave_Assign(self, node: cst.Assign) -> None:
        leave_assign(self.ctx, node)
