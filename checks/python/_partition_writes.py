"""Shared by the rules about how a DataFrame's partitions reach a coalesce or a partitioned write.

Both need to know what the stage that ends at an expression starts with: a shuffle (and by which keys), a
repartition, or a plain read.  A chain is followed down through calls that keep rows in their partitions,
and a name through what this function last assigned it (``Chains``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from checks.python._redundant_shuffles import KEEP_ROWS, column_names
from linter.semantic import keyword_arg, literal_string, method_name, positional_args
from linter.semantic.paths import parameter_names
from linter.sources.python import child_nodes

# Calls between a shuffle and what follows that keep every row in its partition (no shuffle of their own).
NARROW = (KEEP_ROWS - {"cache", "persist"}) | {"sortWithinPartitions", "toDF", "transform"}
GROUPINGS = frozenset("groupBy groupby rollup cube".split())
GROUPED_RESULTS = frozenset("agg count sum avg mean min max applyInPandas apply".split())
DEDUPS = frozenset("distinct dropDuplicates drop_duplicates".split())
SORTS = frozenset({"orderBy", "sort"})
REPARTITIONS = frozenset({"repartition", "repartitionByRange"})
SET_OPERATIONS = frozenset("intersect intersectAll subtract exceptAll".split())
_BROADCAST_HINTS = frozenset({"broadcast", "broadcastjoin", "mapjoin"})


_PARAMETER = object()  # a function parameter: made by the caller


class Chains:
    """Mixed into a PythonRule: ``self.known(name)``, what the rule made of the value this scope last gave ``name``.

    The rule defines ``summarise(expr)``; it is called when an assignment is left (so ``df = df.filter(...)``
    reads the ``df`` before it).  A name assigned again inside an ``if``/loop/``try`` to something else is
    unknown (``None``) after it; a parameter, or a name the file never assigns, is ``ELSEWHERE``.
    """

    # What a parameter, or a name this file never assigns, is taken for.
    ELSEWHERE = None

    def __init__(self, ctx):
        super().__init__(ctx)
        self.frames: list = [{}]

    def summarise(self, expr):  # pragma: no cover - defined by the rule
        raise NotImplementedError

    def known(self, name: str):
        for frame in (self.frames[-1], self.frames[0]):
            if name in frame:
                value = frame[name]
                return self.ELSEWHERE if value is _PARAMETER else value
        return self.ELSEWHERE

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        names = parameter_names(node)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.append(star.name.value)
        self.frames.append(dict.fromkeys(names, _PARAMETER))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.frames.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        summary = self.summarise(node.value)
        for target in node.targets:
            self._bind(target.target, summary)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, self.summarise(node.value) if node.value is not None else None)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, None)

    def _bind(self, target, summary) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)
            return
        if not isinstance(target, cst.Name):
            return
        frame = self.frames[-1]
        name = target.value
        scopes = self.ctx.semantic.scopes
        before = frame.get(name)
        if scopes and scopes[-1].cond and name in frame and \
                (self.ELSEWHERE if before is _PARAMETER else before) != summary:
            summary = None  # one branch's value or the other's: unknown after the block
        frame[name] = summary


def has_window(ctx, call: cst.Call) -> bool:
    """Does a `select` / `withColumn` call compute a window function (`F.row_number().over(w)`)?"""
    stack = [a.value for a in call.args]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and method_name(node) == "over":
            return True
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            continue
        stack.extend(child_nodes(node))
    return False


def grouping_of(result: cst.Call) -> Optional[cst.Call]:
    """For `x.groupBy(k).agg(...)` (or `.pivot(p).agg`, `.count()`), the `groupBy(k)` call; None otherwise."""
    if method_name(result) not in GROUPED_RESULTS or not isinstance(result.func, cst.Attribute):
        return None
    grouping = result.func.value
    if isinstance(grouping, cst.Call) and method_name(grouping) == "pivot" and isinstance(grouping.func, cst.Attribute):
        grouping = grouping.func.value
    if isinstance(grouping, cst.Call) and method_name(grouping) in GROUPINGS:
        return grouping
    return None


def broadcast_side(ctx, side) -> bool:
    """Is a join's side broadcast (`F.broadcast(x)`, `x.hint("broadcast")`) or proven small?"""
    node = side
    while isinstance(node, cst.Call):
        if ctx.semantic.is_function(node.func, {"broadcast"}):
            return True
        if method_name(node) == "hint" and node.args and \
                (literal_string(node.args[0].value) or "").lower() in _BROADCAST_HINTS:
            return True
        node = node.func.value if isinstance(node.func, cst.Attribute) else None
    value = ctx.semantic.infer(side)
    return value is not None and isinstance(value.bound, int)


def join_keys(ctx, call: cst.Call) -> Optional[list]:
    """The literal key names of `a.join(b, "k")` / `["k1", "k2"]` / `on=...`; None when not literal."""
    args = positional_args(call)
    on = keyword_arg(call, "on") or (args[1] if len(args) > 1 else None)
    if isinstance(on, (cst.SimpleString, cst.List, cst.Tuple)):
        return column_names(ctx, [on]) or None
    return None


def described(ctx, call: cst.Call) -> str:
    """`groupBy(...).agg(...)`, `join(...)`, `orderBy(...)`: the wide call as a message names it."""
    grouping = grouping_of(call)
    method = method_name(call)
    if method in ("select", "withColumn", "withColumns"):
        return f"a window function (`{method}(...)`)"
    if grouping is not None:
        return f"`{method_name(grouping)}(...).{method}(...)`"
    return f"`{method}(...)`"
