
import libcst as cst

from checks.python import _joins as joins
from checks.python._driver import shown
from checks.python._redundant_shuffles import KEEP_ROWS, column_names, down_chain
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import (
    FEW_ROWS,
    keyword_arg,
    literal_int,
    literal_string,
    method_name,
    positional_args,
)

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
    "customers = spark.table('customers')\n"
)
_WRITER_CONFIG = frozenset(["mode", "format", "option", "options", "sortBy", "bucketBy"])
# Between a repartition and what follows: calls that keep rows in their partitions.
_NARROW = KEEP_ROWS | {"sortWithinPartitions"}
_KEEPS = frozenset({"cache", "persist"})


class RepartitionNotByKeys(joins.JoinLineage, PythonRule):
    """
    ## What it does
    Finds a `repartition` that feeds, with only row-keeping calls between
    (`select`, `withColumn`, `filter`, ...), in one chain or through the
    names it was assigned to unconditionally (`spread = orders.repartition(400)`
    then `spread.join(...)`, up to four names on; not through a
    `cache`/`persist`, whose other readers may be what the repartition is for):

    - a write partitioned by columns (`.write.partitionBy("day")`) when the
      repartition is round-robin (`repartition(400)`), by columns none of
      which is a partition column, or by the partition columns and others
      with no count (`repartition("day", "user_id")`: the hash of the pair
      spreads each day over every shuffle partition, as round-robin does);
      with a count (`repartition(8, "day", "country")`) the author chose to
      spread each directory over at most that many files, and it is not
      reported;
    - a join when the repartition is round-robin, or by columns that are
      not among the join keys (`"id"`, `["a", "b"]`), unless the other side
      is broadcast (`F.broadcast(...)`, a `broadcast` hint) or proven small
      (at most 100,000 rows: a `limit`, an aggregate; `spark.range(10**7)`
      is counted, not small).

    Only literal arguments are read: `repartition(n)` with a variable `n`
    alone may be a column and is not reported.

    `repartition("day")` before `write.partitionBy("day")`, and
    `repartition("id")` before a join on `id`, are what to do, and are not
    reported.

    ## Why is this bad?
    Before a partitioned write, a round-robin `repartition(n)` spreads the
    rows of every `day` over all `n` tasks, and each task writes one file
    into every `day` directory it holds rows for: up to `n` files per
    directory, most of them small. Repartitioning by the partition columns
    sends each day to one task (one file per directory, or a few with
    `maxRecordsPerFile`). Hashing by the partition columns and more
    (`repartition("day", "user_id")`) spreads each day over every shuffle
    partition again, by the other column's hash.

    Before a sort-merge or shuffled hash join, the join shuffles both sides
    by the join keys whatever their partitioning: a `repartition` by
    anything else is one more full shuffle whose result is thrown away.

    ## Example
    ```python
    orders.repartition(200).write.partitionBy("day").parquet("s3://lake/orders/")
    ```

    ## Use instead
    ```python
    orders.repartition("day").write.partitionBy("day").parquet("s3://lake/orders/")
    ```

    ## Fix safety
    No fix: the partitioning to use depends on how skewed the keys are.

    ## References
    - PySpark API: `DataFrameWriter.partitionBy`, `DataFrame.repartition`
      ("hash partitioned" by the given columns).
    - Spark SQL guide, "Join Strategy Hints for SQL Queries".
    """

    code = "SPK418"
    name = "repartition-not-by-keys"
    summary = "`repartition` by nothing or other columns right before a partitioned write or a join on other keys"
    default_reason = ("a round-robin `repartition` before a partitioned write makes up to n small files per "
                      "directory, and before a join it is a shuffle thrown away; by the right keys it is fine")
    skip_in_tests = True
    triggers = ("repartition",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.repartition(200).write.partitionBy('day').parquet('s3://lake/orders/')\n"),
        Invalid(_SETUP + "(orders.repartition(64, 'customer_id').write.mode('overwrite')\n"
                "    .partitionBy('country', 'day').saveAsTable('lake.orders'))\n"),
        Invalid(_SETUP + "orders.repartition('day', 'customer_id').write.partitionBy('day').parquet('s3://x/')\n"),
        Invalid(_SETUP + "j = orders.repartition(400).join(customers, 'customer_id')\n"),
        Invalid(_SETUP + "j = orders.join(customers.repartition(8, 'country'), ['customer_id'], 'left')\n"),
        Invalid(_SETUP + "j = orders.repartition(100).select('*').join(customers, orders.cid == customers.id)\n"),
        Invalid(_SETUP + "spread = orders.repartition(400)\nj = spread.join(customers, 'customer_id')\n"),
        Invalid(_SETUP + "spread = orders.repartition(400)\nj = spread.join(customers, 'customer_id')\n"
                "k = spread.join(customers, 'country')\n"),
        Invalid(_SETUP + "ids = spark.range(0, 10000000)\nspread = ids.repartition(6)\nscaled = spread.selectExpr('id * 5 AS id')\n"
                "j = scaled.join(orders, ['id'])\n"),
    )
    valid = (
        Valid(_SETUP + "orders.repartition('day').write.partitionBy('day').parquet('s3://lake/orders/')\n"),
        Valid(_SETUP + "orders.repartition(10, 'day', 'country').write.partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.repartition('day').write.partitionBy('day', 'country').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.repartition(200).write.parquet('s3://lake/orders/')\n"),
        Valid(_SETUP + "j = orders.repartition('customer_id').join(customers, 'customer_id')\n"),
        Valid(_SETUP + "j = orders.repartition(400).join(F.broadcast(customers), 'customer_id')\n"),
        Valid(_SETUP + "j = orders.repartition(400).join(customers.hint('broadcast'), 'customer_id')\n"),
        Valid(_SETUP + "j = orders.repartition(400).join(customers.limit(100), 'customer_id')\n"),
        Valid(_SETUP + "j = orders.repartition(n, *keys).join(customers, 'customer_id')\n"),
        Valid(_SETUP + "spread = orders.repartition(400).cache()\nj = spread.join(customers, 'customer_id')\n"),
        Valid(_SETUP + "orders = orders.select('id')\norders = orders.filter('id > 0')\n"
              "j = orders.join(customers, 'id')\n"),
        Valid(_SETUP + "spread = orders.repartition(400)\nif small:\n    spread = orders\n"
              "j = spread.join(customers, 'customer_id')\n"),
    )

    def _repartition(self, node) -> tuple | None:
        """(the repartition call, its column names: [] for round-robin) feeding ``node``; None if none or unknown."""
        call = down_chain(node, _NARROW)
        seen: set = set()
        while isinstance(call, cst.Name) and call.value not in seen and len(seen) < 4:
            # `parts = orders.repartition(200)` then `parts.join(...)` (or a few names on): the one
            # unconditional assignment in effect; not through a cache, whose other readers may be what the
            # repartition is for
            seen.add(call.value)
            entry = joins.entry_of(self.ctx, call.value)
            if entry is None or entry.node is None:
                return None
            call = down_chain(entry.node, _NARROW - _KEEPS)
        if not isinstance(call, cst.Call) or method_name(call) != "repartition" or not call.args:
            return None
        if any(a.star or a.keyword for a in call.args):
            return None
        args = positional_args(call)
        if literal_int(args[0]) is not None or isinstance(args[0], cst.Name) and len(args) > 1:
            args = args[1:]  # repartition(n, *cols): n may be a variable when columns follow
        elif len(args) == 1 and isinstance(args[0], cst.Name):
            return None  # repartition(n) or repartition(column_variable): cannot tell
        names = column_names(self.ctx, args)
        if names is None or not self.ctx.semantic.is_dataframe(call.func.value):
            return None
        return call, names

    def _first_report(self, call: cst.Call) -> bool:
        reported = self.ctx.memo.setdefault("SPK418 reported", set())
        if id(call) in reported:
            return False
        reported.add(id(call))
        return True

    def _described(self, call: cst.Call, names: list) -> str:
        return f"`repartition({shown(self.ctx, call.args[0].value)}{', ...' if len(call.args) > 1 else ''})`" + \
            ("" if names else " (round-robin)")

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method == "partitionBy":
            self._write(node)
        elif method == "join":
            self._join(node)

    def _write(self, node: cst.Call) -> None:
        columns = column_names(self.ctx, positional_args(node)) if not any(a.star for a in node.args) else None
        if not columns:
            return
        writer = down_chain(node.func.value, _WRITER_CONFIG)
        if not (isinstance(writer, cst.Attribute) and writer.attr.value == "write"):
            return
        found = self._repartition(writer.value)
        if found is None:
            return
        call, names = found
        counted = len(call.args) > len(names)  # `repartition(8, "day", "country")`: at most 8 files a directory
        if names and set(names) <= set(columns) or counted and set(names) & set(columns):
            return  # each directory's rows in one task, or spread over as many as the author counted
        if not self._first_report(call):
            return
        spread = ", ".join(f"`{c}`" for c in columns)
        extra = [n for n in names if n not in columns]
        if set(names) & set(columns):
            why = (f"hashing by {', '.join(f'`{n}`' for n in extra)} too spreads every directory's rows over all the "
                   "shuffle partitions (`spark.sql.shuffle.partitions`, 200 by default), and each task writes a file "
                   "into every directory it holds rows of")
        else:
            why = "every task holds rows of many partition values and writes a file into each of their directories"
        self.ctx.report(
            self,
            call,
            f"{self._described(call, names)} before a write partitioned by {spread}: {why}",
            help=f"repartition by the partition columns (`repartition({', '.join(repr(c) for c in columns)})`, "
            "with `maxRecordsPerFile` to bound file sizes) so each directory's rows go to one task"
            + (", or give a count to spread a large directory over at most that many files"
               if set(names) & set(columns) else ""),
            start=call.func.attr,
        )

    def _join_keys(self, node: cst.Call) -> list | None:
        """Literal join keys (`"id"`, `["a", "b"]`); [] when the condition is an expression; None when unknown."""
        args = positional_args(node)
        on = keyword_arg(node, "on") or (args[1] if len(args) > 1 else None)
        if on is None:
            return None
        if isinstance(on, (cst.SimpleString, cst.List, cst.Tuple)):
            return column_names(self.ctx, [on]) or None
        return [] if isinstance(on, (cst.Comparison, cst.BinaryOperation)) else None

    def _broadcast(self, side) -> bool:
        node = side
        while isinstance(node, cst.Call):
            if self.ctx.semantic.is_function(node.func, {"broadcast"}):
                return True
            if method_name(node) == "hint" and node.args and \
                    (literal_string(node.args[0].value) or "").lower() in ("broadcast", "broadcastjoin", "mapjoin"):
                return True
            node = node.func.value if isinstance(node.func, cst.Attribute) else None
        value = self.ctx.semantic.infer(side)
        # a few rows (a `limit`, an aggregate): a broadcast candidate; `spark.range(10**7)` is counted, not small
        return value is not None and isinstance(value.bound, int) and value.bound <= FEW_ROWS

    def _join(self, node: cst.Call) -> None:
        args = positional_args(node)
        if not args or not isinstance(node.func, cst.Attribute):
            return
        keys = self._join_keys(node)
        if keys is None:
            return
        for side, other in ((node.func.value, args[0]), (args[0], node.func.value)):
            found = self._repartition(side)
            if found is None or self._broadcast(other):
                continue
            call, names = found
            if names and (not keys or set(names) <= set(keys)):
                continue  # by (some of) the join keys, or by columns an expression condition may use
            if not self._first_report(call):
                continue  # `spread` joined twice: one finding at its repartition
            on = ", ".join(f"`{k}`" for k in keys) if keys else "its condition's keys"
            self.ctx.report(
                self,
                call,
                f"{self._described(call, names)} right before a join on {on}: the join shuffles both sides by its "
                "keys again, and this shuffle's work is thrown away",
                help="drop the `repartition`, or repartition by the join keys if the result is reused by key; "
                "to spread a small input, broadcast the other side instead",
                start=call.func.attr,
            )
