from typing import Optional

import libcst as cst

from checks.python._driver import shown
from checks.python._redundant_shuffles import KEEP_ROWS, column_names, down_chain
from linter.diagnostics import SAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import keyword_arg, literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_DEDUP = frozenset({"distinct", "dropDuplicates", "drop_duplicates"})
_GROUPED = frozenset({"agg", "count", "sum", "avg", "mean", "min", "max"})
# After these the rows of an aggregation are still unique on its keys (no row added, no key column changed).
_KEEP_UNIQUE = frozenset(
    "filter where orderBy sort sortWithinPartitions hint alias cache persist limit repartition coalesce "
    "withColumn withColumns drop".split()
)
# Aggregate functions whose value does not change when duplicate rows are removed first.
_SET_FUNCTIONS = frozenset(
    "max min countDistinct count_distinct approx_count_distinct approxCountDistinct collect_set bool_and bool_or "
    "every some".split()
)


def _removal(call: cst.Call, message: str) -> Fix:
    """Delete `.method(...)` from its chain: from the dot to the closing parenthesis (its own line when alone)."""
    return Fix(message, (NodeEdit(call, "", start_node=call.func.dot, whole_lines=True),), SAFE)


class RedundantDedupAroundGroupby(PythonRule):
    """
    ## What it does
    Finds a deduplication next to an aggregation that makes it pointless:

    - `distinct()` / `dropDuplicates()` (or `dropDuplicates(subset)` with a
      subset holding every grouping key) after `groupBy(keys).agg(...)`,
      with only calls between that keep the rows unique on the keys
      (`filter`, `orderBy`, `withColumn` of a non-key column, ...);
    - `distinct()` / `dropDuplicates()` before `groupBy(keys).agg(...)` whose
      aggregates ignore duplicates (`max`, `min`, `countDistinct`,
      `approx_count_distinct`, `collect_set`, `bool_and`, `bool_or`).

    A `distinct()` before `sum`, `count` or `avg` changes the result and is
    not reported; nor is `dropDuplicates(["id"])` after a `groupBy("id", "day")`.

    ## Why is this bad?
    The rows of `groupBy(keys).agg(...)` are unique on the keys already: a
    `distinct()` after it is a second aggregation (a shuffle by every column)
    that removes nothing. Before a duplicate-insensitive aggregation, the
    deduplication is a whole shuffle whose effect the aggregation would have
    had anyway.

    ## Example
    ```python
    daily = orders.groupBy("day").agg(F.max("amount").alias("top")).distinct()
    ```

    ## Use instead
    ```python
    daily = orders.groupBy("day").agg(F.max("amount").alias("top"))
    ```

    ## Fix safety
    Safe: the fix removes the deduplication, and the rows computed are the
    same (the aggregation's rows are unique already, or its aggregates give
    the same values with or without duplicate rows).

    ## References
    - Spark SQL guide, "Performance Tuning" (every aggregation is a shuffle).
    """

    code = "SPK417"
    name = "redundant-dedup-around-groupby"
    summary = "`distinct()` / `dropDuplicates()` next to a `groupBy` that already makes the rows unique"
    default_reason = ("the rows of a `groupBy` are already unique on its keys, so a deduplication next to it "
                      "is a whole shuffle that removes nothing; forms that change the result are left alone")
    triggers = ("distinct", "dropDuplicates", "drop_duplicates")
    fix = "safe"
    doc_setup = 'from pyspark.sql import functions as F\norders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "daily = (\n    orders.groupBy('day')\n    .agg(F.max('amount').alias('top'))\n"
                "    .distinct()  # one row per day\n)\n",
                fixed=_SETUP + "daily = (\n    orders.groupBy('day')\n    .agg(F.max('amount').alias('top'))\n)\n"),
        Invalid(_SETUP + "daily = orders.groupBy('day').agg(F.max('amount').alias('top')).distinct()\n",
                fixed=_SETUP + "daily = orders.groupBy('day').agg(F.max('amount').alias('top'))\n"),
        Invalid(_SETUP + "d = orders.groupBy('day', 'shop').count().filter('count > 1').dropDuplicates(['shop', 'day'])\n",
                fixed=_SETUP + "d = orders.groupBy('day', 'shop').count().filter('count > 1')\n"),
        Invalid(_SETUP + "u = orders.distinct().groupBy('day').agg(F.countDistinct('user_id'), F.max('ts'))\n",
                fixed=_SETUP + "u = orders.groupBy('day').agg(F.countDistinct('user_id'), F.max('ts'))\n"),
        Invalid(_SETUP + "u = orders.select('day', 'user_id').dropDuplicates().groupBy('day').agg({'user_id': 'max'})\n",
                fixed=_SETUP + "u = orders.select('day', 'user_id').groupBy('day').agg({'user_id': 'max'})\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef f(df):\n    return df.groupBy('k').agg(F.sum('x').alias('x')).withColumn('y', df.x).distinct()\n"),
    )
    valid = (
        Valid(_SETUP + "s = orders.distinct().groupBy('day').agg(F.sum('amount'))\n"),
        Valid(_SETUP + "s = orders.distinct().groupBy('day').count()\n"),
        Valid(_SETUP + "d = orders.groupBy('id', 'day').count().dropDuplicates(['id'])\n"),
        Valid(_SETUP + "d = orders.groupBy('day').count().select('count').distinct()\n"),
        Valid(_SETUP + "d = orders.groupBy('day', 'shop').count().withColumn('day', F.lit(1)).distinct()\n"),
        Valid(_SETUP + "d = orders.groupBy('day').count().dropDuplicates(subset)\n"),
        Valid(_SETUP + "d = orders.dropDuplicates(['id']).groupBy('day').agg(F.max('x'))\n"),
        Valid(_SETUP + "d = orders.rollup('day', 'shop').count().distinct()\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method in _DEDUP:
            self._after(node, method)
        elif method in _GROUPED:
            self._before(node, method)

    def _subset(self, node: cst.Call):
        """``[]`` for a deduplication on whole rows; the subset's names; None when they are not literal."""
        if any(a.star for a in node.args):
            return None
        args = positional_args(node)
        subset = keyword_arg(node, "subset")
        if subset is not None:
            args = [subset]
        if not args:
            return []
        names = column_names(self.ctx, args)
        return names if names else None

    def _after(self, node: cst.Call, method: str) -> None:
        subset = self._subset(node)
        if subset is None:
            return
        inner, changed = node.func.value, set()
        while isinstance(inner, cst.Call) and method_name(inner) in _KEEP_UNIQUE:
            if method_name(inner) in ("withColumn", "withColumns", "drop"):
                names = self._new_columns(inner)
                if names is None:
                    return
                changed |= names
            inner = inner.func.value
        grouping = inner.func.value if isinstance(inner, cst.Call) and method_name(inner) in _GROUPED else None
        if not (isinstance(grouping, cst.Call) and method_name(grouping) in ("groupBy", "groupby")):
            return
        keys = None if any(a.star or a.keyword for a in grouping.args) else \
            column_names(self.ctx, positional_args(grouping))
        if (changed or subset) and keys is None:
            return
        if keys is not None and set(keys) & changed:
            return  # a key column rewritten (or dropped): the rows may no longer be unique
        if subset and not set(keys) <= set(subset):
            return
        if not self.ctx.semantic.is_dataframe(inner):
            return
        by = f"`{', '.join(keys)}`" if keys else "its keys"
        self.ctx.report(
            self,
            node,
            f"`{method}()` after `{shown(self.ctx, grouping)}.{method_name(inner)}(...)`: the aggregation's rows are "
            f"already unique on {by}, so this is a shuffle that removes nothing",
            help=f"drop the `{method}()`",
            start=node.func.attr,
            fix=_removal(node, f"Remove the redundant `{method}()`"),
        )

    def _new_columns(self, call: cst.Call) -> Optional[set]:
        """The columns a `withColumn` / `withColumns` / `drop` writes or removes; None when not literal."""
        args = positional_args(call)
        if method_name(call) == "withColumn":
            name = literal_string(args[0]) if args else None
            return {name} if name is not None else None
        if method_name(call) == "drop":
            names = column_names(self.ctx, args)
            return set(names) if names is not None else None
        if len(args) == 1 and isinstance(args[0], cst.Dict):
            names = {literal_string(e.key) for e in args[0].elements if isinstance(e, cst.DictElement)}
            return None if None in names or len(names) != len(args[0].elements) else names
        return None

    def _before(self, node: cst.Call, method: str) -> None:
        grouping = node.func.value
        if not (isinstance(grouping, cst.Call) and method_name(grouping) in ("groupBy", "groupby")):
            return
        if not self._ignores_duplicates(node, method):
            return
        dedup = down_chain(grouping.func.value, KEEP_ROWS)
        if not (isinstance(dedup, cst.Call) and method_name(dedup) in _DEDUP and self._subset(dedup) == []):
            return
        if not self.ctx.semantic.is_dataframe(dedup):
            return
        removed = method_name(dedup)
        self.ctx.report(
            self,
            dedup,
            f"`{removed}()` before `{method_name(grouping)}({shown(self.ctx, grouping.args[0].value) if grouping.args else ''}"
            f"{', ...' if len(grouping.args) > 1 else ''}).{method}(...)`, whose aggregates give the same values "
            "with or without duplicate rows: a shuffle for nothing",
            help=f"drop the `{removed}()`",
            start=dedup.func.attr,
            fix=_removal(dedup, f"Remove the redundant `{removed}()`"),
        )

    def _ignores_duplicates(self, node: cst.Call, method: str) -> bool:
        if method in ("min", "max"):
            return True
        if method != "agg" or not node.args:
            return False
        args = positional_args(node)
        if len(args) == 1 and isinstance(args[0], cst.Dict):
            return all(isinstance(e, cst.DictElement) and literal_string(e.value) in ("max", "min")
                       for e in args[0].elements)
        for arg in args:
            while isinstance(arg, cst.Call) and method_name(arg) in ("alias", "name"):
                arg = arg.func.value
            if not (isinstance(arg, cst.Call) and self.ctx.semantic.is_function(arg.func, _SET_FUNCTIONS)):
                return False
        return len(args) == len(node.args)
