from typing import Optional

import libcst as cst

from checks.python import _determinism_and_joins as lineage
from checks.python import _joins as joins
from checks.python._driver import shown
from linter.diagnostics import SAFE, UNSAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_DEDUPS = frozenset({"distinct", "dropDuplicates", "drop_duplicates"})
# Calls that keep a subset of the rows and all the columns: rows unique on the keys stay unique.
_SUBSETS = frozenset({"filter", "where", "limit", "sample", "dropna", "cache", "persist", "alias", "hint"})

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
    keys (`customers.select("customer_id")`, often with `.distinct()` or
    `dropDuplicates()`), followed through the assignments of this file; and
    a join whose result is immediately `select`ed down to columns of the left
    side (`.select(orders["*"])`, `.select(orders.id, orders.amount)`).

    Reported only where `left_semi` changes something:

    - the right side is not proven unique on the keys: a key repeated on
      the right repeats the left row, which `left_semi` does not;
    - the right side is made unique by a `distinct()` / `dropDuplicates()`
      that is there for the join: `left_semi` needs no deduplication.

    Not reported: a right side unique by construction, with nothing to drop
    (`spark.range(...)`, whose only column `id` is unique, or a `groupBy` of
    the keys, filtered or not: `orders.groupBy("k").count().filter("count >
    1").select("k")`). There no row can repeat, and Spark runs `left_semi`
    with the same shuffles and sorts as the inner join (checked on Spark
    4.3: the inner join adds only a `Project`), so the rewrite changes style,
    not work. Nor are a right side whose columns this file does not show (a
    table, a helper's result), a `select` of a right-side column after the
    join, and joins other than inner.

    On by default: `left_semi` is the join Spark has for this, and an inner
    join on keys that are not unique on the right is a duplication bug.

    ## Why is this bad?
    An inner join returns one row per *matching pair*: a left row whose key
    appears three times on the right comes out three times. The usual cure,
    `.select("k").distinct()` on the right, is an aggregation of its own: a
    hash aggregate before and after the right side's shuffle, and a shuffle
    of its own when the right side is then broadcast. A `left_semi` join
    returns each left row at most once, whatever the right side holds, and
    needs no deduplication; it says what the code means: a filter by
    membership.

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
    side is made unique on the keys by a `distinct()` / `dropDuplicates()`:
    the rows, the columns (keys first) and the schema stay the same (checked
    on Spark 4.3). Otherwise it is unsafe: where a key repeats on the
    right, the inner join repeated the left row and `left_semi` does not
    (usually the intent, but a change of output). The fix leaves the
    `distinct()` in place; drop it by hand when nothing else uses it.

    ## References
    - PySpark API: `DataFrame.join` (`how`: `semi`, `leftsemi`, `left_semi`).
    - Spark SQL reference, "JOIN" (`LEFT SEMI JOIN`).
    """

    code = "SPK424"
    name = "inner-join-as-filter"
    summary = "an inner join whose right side brings only its keys: a `left_semi` join is the filter meant"
    default_reason = ("an inner join on keys not unique on the right duplicates left rows, or pays for a "
                      "`distinct` `left_semi` does not need; reported only where `left_semi` changes something")
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
        Invalid(_SETUP + "x = orders.join(F.broadcast(customers.select('customer_id').dropDuplicates()), 'customer_id')\n",
                fixed=_SETUP + "x = orders.join(F.broadcast(customers.select('customer_id').dropDuplicates()), "
                "'customer_id', how='left_semi')\n"),
        Invalid(_SETUP + "vip = customers.filter('vip').select('customer_id')\nx = orders.join(vip, ['customer_id'])\n",
                fixed=_SETUP + "vip = customers.filter('vip').select('customer_id')\n"
                "x = orders.join(vip, ['customer_id'], how=\"left_semi\")\n", unsafe=True),
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
        # unique by construction and nothing to drop: `left_semi` runs the same plan
        Valid(_SETUP + "ids = spark.range(0, 5000000, 2).repartition(6)\n"
              "x = spark.range(0, 10000000).join(ids, ['id'])\n"),
        Valid(_SETUP + "repeat = orders.groupBy('customer_id').count().filter('count > 1').select('customer_id')\n"
              "x = orders.join(F.broadcast(repeat), 'customer_id')\n"),
        Valid(_SETUP + "x = orders.join(customers.groupBy('customer_id').count().select('customer_id'), 'customer_id')\n"),
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
            brings = f"`{shown(ctx, right)}` brings nothing to the join but its key{'s' if len(keys) > 1 else ''} {names}"
            if distinct or self._grouped_on(right, columns):
                dedup = self._dedup_step(right)
                if dedup is None:
                    # unique by construction (`spark.range`, a `groupBy` of the keys): no row can repeat and
                    # nothing is there to drop; `left_semi` runs the same plan (checked on Spark 4.3)
                    return
                what = (f"{brings}, deduplicated by `{method_name(dedup)}()` only for the inner join to filter "
                        f"`{shown(ctx, left)}`: a `left_semi` join filters the same way without it")
                self._report(node, what, True, dedup)
                return
            what = (f"{brings}: the inner join only filters `{shown(ctx, left)}`, and repeats a row "
                    "for every repeated key on the right; a `left_semi` join keeps each row once")
            self._report(node, what, False)
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

    def _right_calls(self, right):
        """The right side's calls from the outermost down, as ``joins.columns_of`` follows them: through the
        names this file assigned and the calls that keep the columns; the first call that does not is the last."""
        node = joins.unwrap_broadcast(self.ctx, right)
        for _ in range(50):
            if isinstance(node, cst.Name):
                entry = joins.entry_of(self.ctx, node.value)
                if entry is None or entry.node is None:
                    return
                node = joins.unwrap_broadcast(self.ctx, entry.node)
                continue
            if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                return
            yield node
            if method_name(node) not in joins.COLUMN_PRESERVING:
                return
            node = node.func.value

    def _dedup_step(self, right) -> Optional[cst.Call]:
        """The ``distinct()`` / ``dropDuplicates()`` that makes the right side unique on the keys, if one does."""
        for node in self._right_calls(right):
            if method_name(node) in _DEDUPS:
                return node
        return None

    def _grouped_on(self, right, keys: frozenset) -> bool:
        """``df.groupBy(keys).count().filter(...).select(keys)``: one row per key, whatever the filter keeps."""
        for node in self._right_calls(right):
            if method_name(node) == "select" and joins.plain_names(self.ctx, node.args) is not None:
                node = node.func.value
                while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                        and method_name(node) in _SUBSETS:
                    node = node.func.value
                grouped = joins.aggregate_of(self.ctx, node)
                return grouped is not None and grouped.keys == keys
        return False

    def _report(self, node: cst.Call, what: str, safe: bool, dedup: Optional[cst.Call] = None) -> None:
        help = "join with `how=\"left_semi\"`"
        if dedup is not None:
            help += f" and drop the `{method_name(dedup)}()` (unless something else needs it)"
        else:
            help += " (each left row at most once)"
        self.ctx.report(self, node, what, fix=self._fix(node, safe), help=help, start=node.func.attr)

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
