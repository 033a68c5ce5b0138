"""Shared by the rules about actions that bring a whole DataFrame to the driver."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from linter.semantic import BOUNDED, DATAFRAME, RDD, method_name

MAX_SHOWN = 48
# A comparison's operators as text, and each one with its sides swapped (`0 < n` is `n > 0`).
COMPARISONS = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
               cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def shown(ctx, node) -> str:
    """Source of a node for a message, shortened."""
    text = " ".join(ctx.code_for(node).split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def counted_frame(ctx, node):
    """``x`` of ``x.count()`` when ``x`` is a DataFrame whose rows no known limit bounds (a `limit(1)` or a
    one-row aggregate counts at no cost); else None."""
    if node.__class__ is not cst.Call or node.args or method_name(node) != "count":
        return None
    receiver = node.func.value
    value = ctx.semantic.infer(receiver)
    if value is not None and value.kind == DATAFRAME and not isinstance(value.bound, int):
        return receiver
    return None


def unbounded_receiver(rule, node: cst.Call, methods: tuple[str, ...]) -> Optional[tuple]:
    """For ``x.<method>()`` on a DataFrame (or RDD) with no row bound: (receiver, value, why).

    Quiet (None) unless the receiver is provably a DataFrame or RDD and provably
    unbounded: a ``limit(n)`` within ``max-rows``, a global aggregate and data made
    on the driver count as bounded; a value bounded on one branch only does not.
    """
    name = method_name(node)
    if name not in methods:
        return None
    receiver = node.func.value
    if _conversion_helper(rule.ctx, receiver, node):
        return None
    value = rule.ctx.semantic.infer(receiver)
    if value is None or value.kind not in (DATAFRAME, RDD):
        return None
    bound = value.bound
    if bound is None or bound == BOUNDED:
        return None
    max_rows = rule.opts["max-rows"]
    if isinstance(bound, int):
        if bound <= max_rows:
            return None
        why = f"its `limit({bound:_})` is above max-rows ({max_rows:_})"
    elif _grouped(rule.ctx, receiver):
        why = "a grouped or distinct result has a row per key, and nothing here bounds the keys (no `limit`)"
    elif (grouping := _sql_grouping(rule.ctx, value)) is not None:
        why = (f"a grouped result (its SQL has a {grouping}) has a row per key, and nothing here bounds the keys "
               "(no `LIMIT`)")
    elif value.flags and "partly-bounded" in value.flags:
        why = "a `limit` bounds its rows on one branch only; on another, nothing does"
    elif value.flags and "inferred" in value.flags:
        # known from how the code uses it: where it comes from is not in this function (or, at the top level,
        # not in this file or notebook: another cell, a `%run` notebook)
        semantic = rule.ctx.semantic
        where = ("function" if semantic._function_scope() is not None
                 else "notebook" if rule.ctx.unit.document.kind == "ipynb" else "file")
        why = f"nothing in this {where} bounds its rows (no `limit`, no global aggregate)"
    else:
        why = "nothing bounds its rows (no `limit`, no global aggregate)"
    return receiver, value, why


def _conversion_helper(ctx, receiver, node: cst.Call) -> bool:
    """`def to_pandas(df): return df.toPandas()`: a function whose whole body hands back the action on its own
    parameter is a conversion its callers choose to make, on frames whose size they know; the finding belongs
    to a caller, not to the helper."""
    if receiver.__class__ is not cst.Name:
        return False
    function = next((a for a in reversed(ctx.ancestors) if a.__class__ in (cst.FunctionDef, cst.Lambda)), None)
    if function is None or function.__class__ is not cst.FunctionDef:
        return False
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else [function.body]
    if body and _docstring(body[0]):
        body = body[1:]
    if len(body) != 1 or body[0].__class__ is not cst.SimpleStatementLine or len(body[0].body) != 1:
        return False
    statement = body[0].body[0]
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    names = [n for n in names if n not in ("self", "cls")]
    # the frame is all it takes: a callback with more (`foreachBatch(f)`'s `(batch, batch_id)`) is not a helper
    return statement.__class__ is cst.Return and statement.value is node and names == [receiver.value]


def _docstring(statement) -> bool:
    return statement.__class__ is cst.SimpleStatementLine and len(statement.body) == 1 and \
        statement.body[0].__class__ is cst.Expr and isinstance(statement.body[0].value, (cst.SimpleString,
                                                                                        cst.ConcatenatedString))


def origin(rule, value, receiver) -> str:
    """`` (from `spark.table("events")`)`` when the value was made elsewhere; the evidence when it was inferred."""
    if value.why and isinstance(receiver, (cst.Name, cst.Attribute)):
        return f" (`{shown(rule.ctx, receiver)}` is taken for a DataFrame: {value.why})"
    made = value.node
    if made is None or made is receiver or not isinstance(receiver, cst.Name):
        return ""
    if isinstance(made, (cst.Name, cst.Attribute, cst.SimpleString, cst.Subscript)):
        return f" (annotated `{shown(rule.ctx, made)}`)"
    return f" (from `{shown(rule.ctx, made)}`)"


_SQL_GROUPING = re.compile(r"(?is)\bgroup\s+by\b|\bselect\s+distinct\b")


def _sql_grouping(ctx, value) -> Optional[str]:
    """``"`GROUP BY`"`` (or ``SELECT DISTINCT``) when the value is ``spark.sql`` of a text that groups: a global
    aggregate is bounded before this is asked, so such a text has a row per key."""
    made = value.node
    if not (isinstance(made, cst.Call) and method_name(made) == "sql" and made.args):
        return None
    text = ctx.semantic.sql_text(made.args[0].value)
    found = _SQL_GROUPING.search(text) if text else None
    if found is None:
        return None
    return "`GROUP BY`" if found.group(0).lower().startswith("group") else "`SELECT DISTINCT`"


_GROUPINGS = frozenset(("groupBy", "groupby", "rollup", "cube", "distinct", "dropDuplicates", "drop_duplicates"))


_AGGREGATIONS = frozenset(("groupBy", "groupby", "rollup", "cube"))


def aggregated(ctx, receiver, value) -> bool:
    """The receiver is an aggregation's result: its chain groups (`groupBy(...).agg(...)`, rollup, cube), or it
    is `spark.sql` of a text with a `GROUP BY`. (A `distinct` is not: it keeps the rows of the table.)"""
    return _grouped(ctx, receiver, _AGGREGATIONS) or _sql_grouping(ctx, value) == "`GROUP BY`"


def _grouped(ctx, receiver, groupings=_GROUPINGS) -> bool:
    """The receiver's chain (or the value of the name it starts from, in this scope, a few names deep:
    `df_res = x.groupBy(...).count()`, then `df_res.select(...).collect()`) groups or deduplicates."""
    node = receiver
    for _ in range(4):
        if isinstance(node, cst.Name):
            value = ctx.semantic.lookup(node.value)
            if value is None or value.node is None or value.node is node:
                return False
            node = value.node
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in groupings:
                return True
            node = node.func.value
        if not isinstance(node, cst.Name):
            return False
    return False
