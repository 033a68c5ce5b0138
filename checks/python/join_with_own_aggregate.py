from typing import Optional

import libcst as cst

from checks.python import _determinism_and_joins as lineage
from checks.python import _joins as joins
from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('sales.orders')\n"
)


class JoinWithOwnAggregate(joins.JoinLineage, PythonRule):
    """
    ## What it does
    Finds a DataFrame joined back to its own aggregate on the grouping keys:
    `df.join(df.groupBy("k").agg(...), "k")`, the aggregate written inline
    or assigned to a name first, the join by key names (`"k"`, `["k", "d"]`)
    or by `df.k == agg.k` for each key. Inner and left joins (the aggregate
    on the right) are read. The rows on both sides must be the same as far as
    this file shows: `select`, `withColumn`, `drop`, `cache` ... keep them;
    a `filter` (or `where`, `distinct`, a join, a reassignment in a branch)
    between them makes the aggregate one of *other* rows, a different
    computation that a window over `df` does not reproduce, and nothing is
    reported. An aggregate filtered afterwards (a `HAVING`) and joined back
    is not reported either: its inner join also drops rows. Aggregates a
    window cannot compute (`countDistinct`) are not reported.

    Preview (`--preview`): the window is not always cheaper. When there are
    few keys the aggregate is small, Spark broadcasts it, and the join costs
    no shuffle of `df`; a window must shuffle all of `df` by the keys and
    hold each key's rows together, which a hot key makes one huge task.

    ## Why is this bad?
    The join reads `df` twice (once for the aggregate, once for the join),
    shuffles it for the aggregation, and then shuffles it again (or broadcasts
    the aggregate) to bring the aggregate back to every row. A window function
    over the same keys (`F.max("v").over(Window.partitionBy("k"))`) computes
    the per-group value next to every row in a single pass with one shuffle,
    and keeps the plan readable.

    ## Example
    ```python
    latest = orders.groupBy("customer_id").agg(F.max("order_ts").alias("last_order_ts"))
    flagged = orders.join(latest, "customer_id")
    ```

    ## Use instead
    ```python
    from pyspark.sql import Window

    by_customer = Window.partitionBy("customer_id")
    flagged = orders.withColumn("last_order_ts", F.max("order_ts").over(by_customer))
    ```
    The two differ where a key is null: the inner join drops those rows, the
    window keeps them (with the aggregate of the null group); the join also
    moves the key columns first.

    ## Fix safety
    No fix: the window changes null-key rows and the column order, and
    whether it is cheaper depends on the number of keys.

    ## References
    - PySpark API: `pyspark.sql.Window`, `Column.over`.
    - Spark SQL reference, "Window Functions".
    """

    code = "SPK423"
    name = "join-with-own-aggregate"
    summary = "a DataFrame joined back to its own `groupBy` aggregate: a window computes it in one pass"
    preview = True
    skip_in_tests = True
    triggers = ("join",)
    doc_setup = 'orders = spark.table("sales.orders")\n'

    invalid = (
        Invalid(_SETUP + "latest = orders.groupBy('customer_id').agg(F.max('order_ts').alias('last_order_ts'))\n"
                "flagged = orders.join(latest, 'customer_id')\n"),
        Invalid(_SETUP + "x = orders.join(orders.groupBy('customer_id', 'day').count(), ['customer_id', 'day'], "
                "'left')\n"),
        Invalid(_SETUP + "slim = orders.select('customer_id', 'amount')\n"
                "totals = slim.groupBy(F.col('customer_id')).agg(F.sum('amount').alias('total'))\n"
                "share = orders.withColumn('one', F.lit(1)).join(totals, on='customer_id', how='inner')\n"),
        Invalid(_SETUP + "totals = orders.groupBy('customer_id').agg(F.sum('amount').alias('total'))\n"
                "share = orders.join(totals, orders.customer_id == totals.customer_id)\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef add_max(df):\n"
                "    m = df.groupBy('k').agg(F.max('v').alias('max_v'))\n    return df.join(m, 'k')\n"),
    )
    valid = (
        Valid(_SETUP + "paid = orders.filter(F.col('status') == 'paid')\n"
              "totals = paid.groupBy('customer_id').agg(F.sum('amount').alias('paid_total'))\n"
              "x = orders.join(totals, 'customer_id', 'left')\n"),
        Valid(_SETUP + "totals = orders.groupBy('customer_id').agg(F.sum('amount').alias('total'))\n"
              "orders = orders.filter(F.col('amount') > 0)\nx = orders.join(totals, 'customer_id')\n"),
        Valid(_SETUP + "totals = orders.groupBy('customer_id', 'day').agg(F.sum('amount').alias('total'))\n"
              "x = orders.join(totals, 'customer_id')\n"),
        Valid(_SETUP + "repeat = orders.groupBy('customer_id').count().filter('count > 1')\n"
              "x = orders.join(repeat, 'customer_id')\n"),
        Valid(_SETUP + "customers = spark.table('crm.customers')\n"
              "totals = customers.groupBy('customer_id').count()\nx = orders.join(totals, 'customer_id')\n"),
        Valid(_SETUP + "n = orders.groupBy('customer_id').agg(F.countDistinct('product_id').alias('n'))\n"
              "x = orders.join(n, 'customer_id')\n"),
        Valid(_SETUP + "totals = orders.groupBy('customer_id').count()\nx = orders.join(totals, 'customer_id', "
              "'left_anti')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "join":
            return
        ctx = self.ctx
        left, right = node.func.value, joins.right_side(node)
        on = lineage.join_condition(node)
        how = joins.join_how(node)
        if right is None or on is None or how is None or not ctx.semantic.is_dataframe(left):
            return
        right = joins.unwrap_broadcast(ctx, right)
        found = None
        if how in ("", "inner", "left"):
            found = self._aggregate_of_other(left, right, on)
        if found is None and how in ("", "inner", "right"):
            found = self._aggregate_of_other(right, left, on)
        if found is None:
            return
        frame, aggregate = found
        keys = ", ".join(f'"{k}"' for k in sorted(aggregate.keys))
        ctx.report(
            self,
            node,
            f"`{shown(ctx, frame)}` is joined back to its own aggregate `{shown(ctx, aggregate.node)}` on its "
            f"grouping keys: a second read of the same rows and a join, where a window computes the same",
            help=f"compute the aggregate over `Window.partitionBy({keys})` in a `withColumn` "
            "(e.g. `F.max(\"v\").over(w)`); the window keeps rows with a null key, the inner join drops them",
            start=node.func.attr,
        )

    def _aggregate_of_other(self, frame, other, on) -> Optional[tuple]:
        """(frame, aggregate) when ``other`` is ``frame``'s own aggregate joined on its grouping keys."""
        ctx = self.ctx
        aggregate = joins.aggregate_of(ctx, other)
        if aggregate is None or aggregate.rows != joins.rows_of(ctx, frame):
            return None
        keys = self._keys(frame, other, on)
        if keys is None or frozenset(keys) != aggregate.keys:
            return None
        return frame, aggregate

    def _keys(self, frame, other, on) -> Optional[list]:
        names = lineage.using_keys(on)
        if names is not None:
            return names
        if not (isinstance(frame, cst.Name) and isinstance(other, cst.Name)):
            return None
        out = []
        for part in joins.conjuncts(on):
            if not (isinstance(part, cst.Comparison) and len(part.comparisons) == 1
                    and isinstance(part.comparisons[0].operator, cst.Equal)):
                return None
            a = lineage.column_ref(self.ctx, part.left)
            b = lineage.column_ref(self.ctx, part.comparisons[0].comparator)
            if a is None or b is None or a[1] != b[1] or {a[0], b[0]} != {frame.value, other.value}:
                return None
            out.append(a[1])
        return out
