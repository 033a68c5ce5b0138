"""Shared by the rules about actions that bring a whole DataFrame to the driver."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from checks.python._udf import _is_docstring
from linter.semantic import BOUNDED, DATAFRAME, FEW_ROWS, GROUPED_MAPS, RDD, method_name
from linter.semantic.paths import parameter_names

MAX_SHOWN = 48
# A comparison's operators as text, and each one with its sides swapped (`0 < n` is `n > 0`).
COMPARISONS = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
               cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def shown(ctx, node) -> str:
    """Source of a node for a message, shortened."""
    text = " ".join(ctx.code_for(node).split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def counted_frame(ctx, node, rdds: bool = False):
    """``x`` of ``x.count()`` when ``x`` is a DataFrame (or, with ``rdds``, an RDD) whose rows no known limit
    bounds (a `limit(1)` or a one-row aggregate counts at no cost); else None."""
    if node.__class__ is not cst.Call or node.args or method_name(node) != "count":
        return None
    receiver = node.func.value
    value = ctx.semantic.infer(receiver)
    if value is not None and (value.kind == DATAFRAME or rdds and value.kind == RDD) and \
            not isinstance(value.bound, int):
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
    elif isinstance(mapped := _grouped(rule.ctx, receiver), str):
        why = (f"a grouped-map function (`{mapped}`) returns any number of rows for each group, and nothing "
               "here bounds them (no `limit`)")
    elif mapped:
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
    if body and _is_docstring(body[0]):
        body = body[1:]
    if len(body) != 1 or body[0].__class__ is not cst.SimpleStatementLine or len(body[0].body) != 1:
        return False
    statement = body[0].body[0]
    names = [n for n in parameter_names(function) if n not in ("self", "cls")]
    # the frame is all it takes: a callback with more (`foreachBatch(f)`'s `(batch, batch_id)`) is not a helper
    if not (statement.__class__ is cst.Return and statement.value is node and names == [receiver.value]):
        return False
    # a library's helper, whose callers are elsewhere; one this file calls is judged by what the calls pass
    calls = re.compile(rf"(?<!def )(?<![\w]){re.escape(function.name.value)}\s*\(")
    return calls.search(ctx.semantic.text or "") is None


def origin(rule, value, receiver) -> str:
    """`` (from `spark.table("events")`)`` when the value was made elsewhere; the evidence when it was inferred."""
    if value.why and isinstance(receiver, (cst.Name, cst.Attribute)):
        what = "an RDD" if value.kind == RDD else "a DataFrame"
        return f" (`{shown(rule.ctx, receiver)}` is taken for {what}: {value.why})"
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


# What a grouped result may go through and still be the groups: a row per key, or fewer.
_KEEPS_GROUPS = frozenset(("select", "withColumn", "withColumns", "withColumnRenamed", "filter", "where", "orderBy",
                           "sort", "alias", "drop", "repartition", "coalesce", "cache", "persist", "limit", "agg",
                           "count", "sum", "avg", "mean", "min", "max", "fillna", "na", "toDF"))


def aggregated(ctx, receiver, value) -> bool:
    """The receiver is an aggregation's result: its chain ends in a grouping (`groupBy(...).agg(...)`, rollup,
    cube) followed only by calls that keep a row per key (no join, union or `explode`), or it is `spark.sql` of
    a text whose outermost query has a `GROUP BY`. (A `distinct` is not: it keeps the rows of the table.)"""
    node = receiver
    for _ in range(4):
        if isinstance(node, cst.Name):
            bound = ctx.semantic.lookup(node.value)
            if bound is None or bound.node is None or bound.node is node:
                return False
            if _outer_group_by(ctx, bound):
                return True
            # the expression assigned, whole (the value's own node may be where its rows were last decided:
            # `groupBy(...).agg(...)` of `...agg(...).select(F.explode(...))`); a name bound twice is not followed
            node = ctx.semantic.assigned_expression(node.value)
            if node is None:
                return False
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method in _AGGREGATIONS:
                return True
            if method not in _KEEPS_GROUPS or any("explode" in ctx.code_for(a.value) for a in node.args):
                return False  # a join, a union, an `explode` of the groups' lists: rows again, not groups
            node = node.func.value
        if not isinstance(node, cst.Name):
            return False
    return False


def _outer_group_by(ctx, value) -> bool:
    """The value is `spark.sql` of a text whose outermost query has a `GROUP BY` (not a subquery's, in
    parentheses)."""
    made = value.node
    if not (isinstance(made, cst.Call) and method_name(made) == "sql" and made.args):
        return False
    text = ctx.semantic.sql_text(made.args[0].value) or ""
    depth, outer = 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        outer.append(ch if depth == 0 else " ")
        if ch == ")" and depth > 0:
            depth -= 1
    return _GROUP_BY.search("".join(outer)) is not None


_GROUP_BY = re.compile(r"(?is)\bgroup\s+by\b")


_GROUPED_MAPS = GROUPED_MAPS | {"cogroup"}  # (`cogroup(...).applyInPandas(...)`: the same, over two groupings)


def _grouped(ctx, receiver):
    """The receiver's chain (or the value of the name it starts from, in this scope, a few names deep:
    `df_res = x.groupBy(...).count()`, then `df_res.select(...).collect()`) groups or deduplicates: True, or
    the method's name when a grouped-map function makes its rows (`groupBy(k).applyInPandas(f, schema)`); else
    False."""
    node = receiver
    for _ in range(4):
        if isinstance(node, cst.Name):
            value = ctx.semantic.lookup(node.value)
            if value is None or value.node is None or value.node is node:
                return False
            node = value.node
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in _GROUPED_MAPS:
                return node.func.attr.value
            if node.func.attr.value in _GROUPINGS:
                return True
            node = node.func.value
        if not isinstance(node, cst.Name):
            return False
    return False


_COLUMN_CONSUMERS = frozenset(("select", "withColumn", "withColumns", "agg"))


def for_a_driver_frame(ctx, node) -> bool:
    """Whether the column expression ``node`` (on the walk's path) goes into a `select`, `withColumn` or `agg` of a
    frame the driver built (`spark.createDataFrame(pdf)`, literal rows) or one of at most 100,000 rows: rows that
    fit on the driver, where one task sorting them or one array of them is no harm."""
    ancestors = ctx.ancestors
    i = len(ancestors) - 1
    while i >= 0 and ancestors[i] is not node:
        i -= 1
    for j in range(i - 1, -1, -1):
        call = ancestors[j]
        if call.__class__ is cst.Call and call.func.__class__ is cst.Attribute and \
                call.func.attr.value in _COLUMN_CONSUMERS and any(a is ancestors[j + 1] for a in call.args):
            return small_frame(ctx, call.func.value)
    return False


def small_frame(ctx, frame) -> bool:
    """Whether the DataFrame expression ``frame`` has at most 100,000 rows, or is bounded by being built on the
    driver (`spark.createDataFrame(pdf)`, literal rows, also returned by a function of the file) and not by a
    `limit(n)` of a number the file does not show."""
    value = ctx.semantic.infer(frame)
    if value is None or value.kind != DATAFRAME:
        return False
    if isinstance(value.bound, int):
        return value.bound <= FEW_ROWS  # `limit(50_000_000)` is bounded, not small
    return value.bound == BOUNDED and not _limited_by_a_variable(ctx, frame)


def _limited_by_a_variable(ctx, frame) -> bool:
    """Whether the frame's chain (through the names it was assigned, a few deep) has a `limit(n)` or `sample` of
    a number the file does not show: bounded, but maybe by millions. The other bounded frames are built on the
    driver (`createDataFrame`, also returned by a function of the file), or are a command's handful of rows."""
    node = frame
    for _ in range(4):
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ("limit", "sample"):
                return True
            node = node.func.value
        if not isinstance(node, cst.Name):
            return False
        node = ctx.semantic.assigned_expression(node.value)
    return False
