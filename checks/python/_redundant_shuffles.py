"""Shared by the rules about shuffles and sorts that a chain of DataFrame calls repeats or throws away."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from linter.semantic import literal_string, method_name

# Methods that keep every row and do not move rows between partitions: a sort or a partitioning
# made before them is still there after them.
KEEP_ROWS = frozenset(
    "select selectExpr withColumn withColumns withColumnRenamed withColumnsRenamed drop filter where alias hint "
    "fillna dropna replace withMetadata cache persist".split()
)
SORTS = frozenset({"orderBy", "sort"})


def down_chain(node, through: frozenset):
    """From a call, the first receiver down the chain whose method is not in ``through`` (skipping those)."""
    while isinstance(node, cst.Call) and method_name(node) in through:
        node = node.func.value
    return node


def column_names(ctx, args) -> Optional[list]:
    """The column names of ``"a"``, ``["a", "b"]``, ``col("a")``, ``F.col("a")``; None when any is not literal."""
    out: list = []
    for arg in args:
        if isinstance(arg, (cst.List, cst.Tuple)):
            inner = column_names(ctx, [e.value for e in arg.elements])
            if inner is None:
                return None
            out.extend(inner)
            continue
        name = literal_string(arg)
        if name is None and isinstance(arg, cst.Call) and len(arg.args) == 1 and \
                ctx.semantic.is_function(arg.func, {"col", "column"}):
            name = literal_string(arg.args[0].value)
        if name is None:
            return None
        out.append(name)
    return out

