from typing import Optional

import libcst as cst

from checks.python import _determinism_and_joins as lineage
from checks.python import _joins as joins
from checks.python._driver import shown
from linter.diagnostics import SAFE, UNSAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('sales.orders')\ncustomers = spark.table('crm.customers')\n"
)


class InnerJoinAsFilter(joins.JoinLineage, PythonRule):
    """
    ## What it does
    Finds an inner join used only to keep the rows of the left side that have
    a match: the right side contributes nothing but the join keys. Two shapes
    are read: a join by key names whose right side is made of exactly those
    keys (`customers.select("customer_id")`, often with `.distinct()`,
    `dropDuplicates()` or a `groupBy` of the keys; `spark.range(...)`, whose
    only column is `id`), followed through the assignments of this file; and
    a join whose result is immediately `select`ed down to columns of the left
    side (`.select(orders["*"])`, `.select(orders.id, orders.amount)`).
    A right side whose columns this file does not show (a table, a helper's
    result), a `select` of a right-side column after the join, and joins
    other than inner are not reported.

    On by default: `left_semi` is the join Spark has for this, and an inner
    join on keys that are not unique on the right is a duplication bug.

    ## Why is this bad?
    An inner join returns one row per *matching pair*: a left row whose key
    appears three times on the right comes out three times. The usual cure,
    `.select("k").distinct()` on the right, costs a shuffle of its own. A
    `left_semi` join returns each left row at most once, whatever the right
    side holds, needs no deduplication, and stops at the first match; it
    says what the code means: a filter by membership.

    ## Example
    ```python
    active = customers.filter(F.col("active")).select("customer_id").distinct()
    active_orders = orders.join(active, "customer_id")
    ```

    ## Use instead
    ```python
    active = customers.filter(F.col("active")).select("customer_id")
    active_orders = orders.join(active, "customer_id", "left_semi")
    ```

    ## Fix safety
    The fix sets the join type to `"left_semi"`. It is safe when the right
    side is proven unique on the keys (`distinct()`, `dropDuplicates`, a
    `groupBy` of the keys, `spark.range`): the rows, the columns (keys
    first) and the schema stay the same (checked on Spark 4.3). Otherwise it is unsafe: where a key repeats on the
    right, the inner join repeated the left row and `left_semi` does not
    (usually the intent, but a change of output). The fix leaves a
    `distinct()` in place; drop it by hand when nothing else uses it.

    ## References
    - PySpark API: `DataFrame.join` (`how`: `semi`, `leftsemi`, `left_semi`).
    - Spark SQL reference, "JOIN" (`LEFT SEMI JOIN`).
    """

    code = "SPK424"
    name = "inner-join-as-filter"
    summary = "an inner join whose right side brings only its keys: a `left_semi` join is the filter meant"
    fix = "unsafe"
    triggers = ("join",)
    doc_setup = 'orders = spark.table("sales.orders")\ncustomers = spark.table("crm.customers")\n'

    invalid = (
        Invalid(_SETUP + "active = customers.filter(F.col('active')).select('customer_id').distinct()\n"
                "x = orders.join(active, 'customer_id')\n",
                fixed=_SETUP + "active = customers.filter(F.col('active')).select('customer_id').distinct()\n"
                "x = orders.join(active, 'customer_id', how='left_semi')\n"),
        Invalid(_SETUP + "x = orders.join(customers.select('customer_id'), on=['customer_id'], how='inner')\n",
                fixed=_SETUP + "x = orders.join(customers.select('customer_id'), on=['customer_id'], "
                "how='left_semi')\n", unsafe=True),
        Invalid(_SETUP + "x = orders.join(customers, orders.customer_id == customers.id).select(orders['*'])\n",
                fixed=_SETUP + "x = orders.join(customers, orders.customer_id == customers.id, "
                "how=\"left_semi\").select(orders['*'])\n", unsafe=True),
        Invalid(_SETUP + "repeat = orders.groupBy('customer_id').count().filter('count > 1').select('customer_id')\n"
                "x = orders.join(F.broadcast(repeat), 'customer_id')\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef only_known(events, users):\n"
                "    known = users.select(F.col('user_id')).dropDuplicates()\n"
                "    return events.withColumn('day', F.to_date('ts')).join(known, 'user_id', 'inner')\n",
                fixed="from pyspark.sql import functions as F\n\ndef only_known(events, users):\n"
                "    known = users.select(F.col('user_id')).dropDuplicates()\n"
                "    return events.withColumn('day', F.to_date('ts')).join(known, 'user_id', 'left_semi')\n"),
    )
    valid = (
        Valid(_SETUP + "x = orders.join(customers.select('customer_id', 'country'), 'customer_id')\n"),
        Valid(_SETUP + "x = orders.join(customers, 'customer_id')\n"),
        Valid(_SETUP + "ids = customers.select('customer_id').distinct()\n"
              "x = orders.join(ids, 'customer_id', 'left')\n"),
        Valid(_SETUP + "x = orders.join(customers, orders.customer_id == customers.id)"
              ".select(orders['*'], customers.country)\n"),
        Valid(_SETUP + "x = orders.join(customers.select('customer_id'), 'customer_id', 'left_semi')\n"),
        Valid(_SETUP + "ids = customers.select('customer_id')\nif True:\n    ids = customers\n"
              "x = orders.join(ids, 'customer_id')\n"),
        Valid(_SETUP + "ids = customers.select('customer_id', 'day')\ny = orders.join(ids, 'customer_id')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "join":
            return
        ctx = self.ctx
        left, right = node.func.value, joins.right_side(node)
        on = lineage.join_condition(node)
        if right is None or on is None or joins.join_how(node) not in ("", "inner"):
            return
        if not ctx.semantic.is_dataframe(left) or not joins.may_be_dataframe(ctx, right):
            return
        keys = lineage.using_keys(on)
        columns, distinct = joins.columns_of(ctx, right) if keys is not None else (None, False)
        if columns is not None and columns == frozenset(keys):
            names = ", ".join(f"`{k}`" for k in keys)
            if distinct:
                what = (f"`{shown(ctx, right)}` brings nothing to the join but its key{'s' if len(keys) > 1 else ''} "
                        f"{names}, unique there: the inner join only filters `{shown(ctx, left)}`; a `left_semi` "
                        "join says so, and needs no deduplication of the right side")
            else:
                what = (f"`{shown(ctx, right)}` brings nothing to the join but its key{'s' if len(keys) > 1 else ''} "
                        f"{names}: the inner join only filters `{shown(ctx, left)}`, and repeats a row "
                        "for every repeated key on the right; a `left_semi` join keeps each row once")
            self._report(node, what, distinct)
            return
        if self._left_only_select(node, left, keys):
            what = (f"only columns of `{shown(ctx, left)}` are kept after the inner join with "
                    f"`{shown(ctx, right)}`: it is a filter, and it repeats a row for every repeated match "
                    "on the right; a `left_semi` join keeps each row once")
            self._report(node, what, False)

    def _left_only_select(self, node: cst.Call, left, keys: Optional[list]) -> bool:
        """``a.join(b, ...).select(a["*"])`` / ``.select(a.x, a.y)``: nothing of ``b`` is kept."""
        if not isinstance(left, cst.Name):
            return False
        parent = self.ctx.parent_of(node)
        if not (isinstance(parent, cst.Attribute) and parent.attr.value == "select"):
            return False
        call = self.ctx.parent_of(parent)
        if not (isinstance(call, cst.Call) and call.func is parent) or not call.args:
            return False
        for arg in call.args:
            if arg.star or arg.keyword is not None:
                return False
            ref = lineage.column_ref(self.ctx, arg.value)
            if ref is not None and ref[0] == left.value:
                continue
            if keys is not None and joins._plain_name(self.ctx, arg.value) in keys:
                continue
            return False
        return True

    def _report(self, node: cst.Call, what: str, safe: bool) -> None:
        self.ctx.report(
            self,
            node,
            what,
            fix=self._fix(node, safe),
            help="join with `how=\"left_semi\"`" + ("" if safe else " (each left row at most once)")
            + " and drop a `distinct()` made only for this join",
            start=node.func.attr,
        )

    def _fix(self, node: cst.Call, safe: bool) -> Optional[Fix]:
        how = joins.how_node(node)
        applicability = SAFE if safe else UNSAFE
        if isinstance(how, cst.SimpleString):
            quote = how.quote
            return Fix("join with `left_semi`", (NodeEdit(how, f"{quote}left_semi{quote}"),), applicability)
        if how is not None or not node.args:
            return None
        last = node.args[-1].value
        quote = last.quote if isinstance(last, cst.SimpleString) else '"'
        content = self.ctx.code_for(last).strip() + f", how={quote}left_semi{quote}"
        return Fix("join with `left_semi`", (NodeEdit(last, content),), applicability)
