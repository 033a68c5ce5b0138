import re
from typing import Optional

import libcst as cst

from checks.python._driver import shown
from checks.python._partition_writes import (
    DEDUPS, NARROW, REPARTITIONS, SORTS, Chains, broadcast_side, grouping_of, has_window, join_keys,
)
from checks.python._redundant_shuffles import column_names, down_chain
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.read.parquet('s3://raw/orders/')\n"
)
# Between a DataFrame and its write: calls that keep rows where they are (a cache keeps its partitions).
_KEEP = NARROW | {"cache", "persist", "localCheckpoint", "checkpoint", "unpersist"}
_WRITER_CONFIG = frozenset("mode format option options sortBy bucketBy".split())
_READS = frozenset("load csv json parquet orc text table avro xml delta jdbc".split())
_ALL = "*"  # clustered by every column (`distinct()`); in ``decided``: every column may have been remade
_SQL_EQUAL = re.compile(r"`?(\w+)`?\s*==?\s*(?:'[^']*'|\"[^\"]*\"|[\d-]+\b|:\w+|\$\{?\w+\}?)")

# What the stage that writes starts with:
_CONTROLLED = "controlled"  # a repartition or coalesce: the author chose (SPK418 judges the repartition)
_CLUSTERED = "clustered"  # a shuffle by keys (`groupBy(k)`, a join on k): with the keys, None when not literal
_READ = "read"  # a plain read (or data made here): rows of every value in every task
_ELSEWHERE = "elsewhere"  # a parameter, a name the file never assigns: its caller may have clustered it


class PartitionedWriteWithoutRepartition(Chains, PythonRule):
    """
    ## What it does
    Finds `df.write.partitionBy("col", ...)` where nothing in the file
    clusters `df` by those columns before the write: its chain (and what the
    function assigned the name) is a read, filters and column changes, or a
    shuffle by other keys (`groupBy("customer_id", "day")` before
    `partitionBy("day")`, a join on `customer_id`, `distinct()`). A frame
    last shuffled by a subset of the partition columns (`groupBy("day")`,
    a join on `"day"`, `orderBy("day", ...)`) already holds each directory's
    rows in one task or a few, and is not reported; neither is one a
    `repartition` or `coalesce` shaped (SPK418, repartition-not-by-keys,
    judges a repartition by other columns), one made by SQL text or a
    helper this rule does not read, nor a file that turns on Delta's
    `optimizeWrite`. A frame held to one value of every partition column
    (`filter(F.col("day") == run_date)`, `withColumn("day", F.lit(run_date))`)
    writes into one directory and is not reported either. A parameter is
    reported, and the message says its caller may have clustered it.

    Preview rule (`--preview`): whether the files are many and small
    depends on what the file does not show: an input already laid out by
    the same columns (each input split then holds one value), a few partition
    values with much data each, or a table format that distributes rows
    itself (Iceberg's `write.distribution-mode`, Delta's optimized writes).

    ## Why is this bad?
    Each write task writes one file into every partition directory it holds
    rows for. A frame read from 2,000 input splits and written by `day` makes
    up to 2,000 files in each day's directory, most of them small:
    listing and opening them slows every later read, and object stores
    charge by request. Repartitioning by the partition columns first sends
    each day to one task (one file per directory, or a few with
    `maxRecordsPerFile`).

    ## Example
    ```python
    orders.filter(F.col("status") == "paid").write.mode("overwrite").partitionBy("day").parquet("s3://lake/paid/")
    ```

    ## Use instead
    ```python
    (orders.filter(F.col("status") == "paid").repartition("day")
        .write.mode("overwrite").option("maxRecordsPerFile", 5_000_000)
        .partitionBy("day").parquet("s3://lake/paid/"))
    ```
    A few very large days can instead be spread with a salt:
    `repartition("day", (F.rand() * 4).cast("int"))`.

    ## Fix safety
    No fix: the number of files each value deserves depends on the data.

    ## References
    - PySpark API: `DataFrameWriter.partitionBy`, `DataFrame.repartition`.
    - Spark SQL data sources guide, "Bucketing, Sorting and Partitioning".
    """

    code = "SPK427"
    name = "partitioned-write-without-repartition"
    summary = "`write.partitionBy(...)` of a frame nothing clusters by those columns writes a file per task per value"
    preview = True
    skip_in_tests = True
    triggers = ("partitionBy",)
    ELSEWHERE = (_ELSEWHERE, None, None, frozenset(), frozenset())
    doc_setup = 'orders = spark.read.parquet("s3://raw/orders/")\n'

    invalid = (
        Invalid(_SETUP + "orders.write.mode('overwrite').partitionBy('day').parquet('s3://lake/orders/')\n"),
        Invalid(_SETUP + "daily = orders.groupBy('customer_id', 'day').agg(F.sum('amount').alias('spent'))\n"
                "daily.write.mode('overwrite').partitionBy('day').parquet('s3://lake/daily/')\n"),
        Invalid(_SETUP + "def publish():\n    df = spark.table('raw.events')\n    df = df.withColumn('day', F.to_date('ts'))\n"
                "    df.write.mode('append').partitionBy('day', 'country').saveAsTable('lake.events')\n"),
        Invalid(_SETUP + "def save(df, path):\n    df.write.mode('overwrite').partitionBy('day').parquet(path)\n"),
        Invalid(_SETUP + "def publish(day):\n    d = orders.filter(F.col('day') == day).withColumn('day', F.to_date('ts'))\n"
                "    d.write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Invalid(_SETUP + "orders.where(\"day = '2024-01-01' OR day = '2024-01-02'\").write.mode('append')"
                ".partitionBy('day').parquet('s3://x/')\n"),
        Invalid(_SETUP + "orders.distinct().write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
    )
    valid = (
        Valid(_SETUP + "orders.repartition('day').write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.repartition(64).write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.coalesce(8).write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').agg(F.sum('amount').alias('revenue'))\n"
              "daily.write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.groupBy('day', 'country').count().write.mode('overwrite')"
              ".partitionBy('day', 'country').parquet('s3://x/')\n"),
        Valid(_SETUP + "def save(df, path):\n    df = df.repartition('day')\n"
              "    df.write.mode('overwrite').partitionBy('day').parquet(path)\n"),
        Valid(_SETUP + "df = spark.sql('SELECT * FROM raw.orders DISTRIBUTE BY day')\n"
              "df.write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.write.mode('overwrite').parquet('s3://x/')\n"),
        Valid(_SETUP + "def publish(day):\n    d = orders.filter(F.col('day') == day).select('id', 'amount', 'day')\n"
              "    d.write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.where(\"day = '2024-01-01' AND shop = 'x'\").write.mode('append')"
              ".partitionBy('day', 'shop').parquet('s3://x/')\n"),
        Valid(_SETUP + "def publish(day):\n    d = orders.groupBy('country').count().withColumn('day', F.lit(day))\n"
              "    d.write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
        Valid(_SETUP + "orders.write.format('delta').option('optimizeWrite', 'true').mode('append')"
              ".partitionBy('day').save('s3://x/')\n"),
        Valid(_SETUP + "sorted_ = orders.orderBy('day', 'ts')\n"
              "sorted_.write.mode('overwrite').partitionBy('day').parquet('s3://x/')\n"),
    )

    def summarise(self, expr) -> Optional[tuple]:
        """(what starts the stage that ends at ``expr``, its keys, that call, pinned, decided); None when unknown.

        ``pinned``: columns the chain holds to one value (`filter(F.col("day") == d)`, `withColumn("day",
        F.lit(d))`); ``decided``: columns it computes, whose earlier pins no longer hold.
        """
        node = expr
        pinned: set = set()
        decided: set = set()
        while True:
            if isinstance(node, cst.Name):
                inner = self.known(node.value)
                if inner is None:
                    return None
                kind, keys, call, inner_pinned, inner_decided = inner
                kept = set() if _ALL in decided else inner_pinned - decided
                return kind, keys, call, frozenset(pinned | kept), frozenset(decided | inner_decided)
            if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                return None
            method = method_name(node)
            if method in _KEEP:
                if method == "toDF" and not self.ctx.semantic.is_dataframe(node.func.value):
                    return None  # `DeltaTable.toDF()`, a Glue frame's: a read of a table laid out its own way
                if method in ("select", "withColumn", "withColumns") and has_window(self.ctx, node):
                    return None  # clustered by the window's keys: not read here
                self._pins(node, method, pinned, decided)
                node = node.func.value
                continue
            found = self._stage_start(node, method)
            if found is None:
                return None
            kind, keys = found
            return kind, keys, node, frozenset(pinned), frozenset(decided)

    def _stage_start(self, node: cst.Call, method: str) -> Optional[tuple]:
        if method in REPARTITIONS or method == "coalesce":
            return _CONTROLLED, None
        grouping = grouping_of(node)
        if grouping is not None:
            return _CLUSTERED, self._keys(grouping.args)
        if method in DEDUPS:
            return _CLUSTERED, (self._keys(node.args) if node.args else [_ALL])
        if method in SORTS:
            return _CLUSTERED, self._keys(node.args[:1])
        if method == "join":
            args = positional_args(node)
            if not args or broadcast_side(self.ctx, args[0]) or broadcast_side(self.ctx, node.func.value):
                return None  # the big side keeps its partitions: unknown here
            return _CLUSTERED, join_keys(self.ctx, node)
        if method in _READS and self._is_read(node):
            return _READ, None
        return None

    def _pins(self, node: cst.Call, method: str, pinned: set, decided: set) -> None:
        """Record what a row-keeping call does to the columns' values (the chain is read from its end)."""
        args = positional_args(node)
        if _ALL in decided:
            return  # every column may have been remade after this call
        if method in ("filter", "where") and args:
            pinned.update(c for c in self._equal_columns(args[0]) if c not in decided)
        elif method == "withColumn" and len(args) == 2 and literal_string(args[0]):
            column = literal_string(args[0])
            if column not in decided and self.ctx.semantic.is_function(getattr(args[1], "func", None), {"lit"}):
                pinned.add(column)
            decided.add(column)
        elif method in ("select", "selectExpr", "withColumns", "withColumnRenamed", "withColumnsRenamed", "toDF"):
            for a in node.args:
                name = literal_string(a.value)
                if method != "select" or name is None:
                    decided.add(_ALL)  # columns made or renamed here: what they held before is not followed

    def _equal_columns(self, condition) -> set:
        """Columns a condition holds to one value: `F.col("day") == d`, `"day = '2024-01-01'"`, joined by `&`."""
        if isinstance(condition, cst.BinaryOperation) and isinstance(condition.operator, cst.BitAnd):
            return self._equal_columns(condition.left) | self._equal_columns(condition.right)
        if isinstance(condition, cst.Comparison) and len(condition.comparisons) == 1 and \
                isinstance(condition.comparisons[0].operator, cst.Equal):
            for side in (condition.left, condition.comparisons[0].comparator):
                name = self._column(side)
                if name is not None:
                    return {name}
            return set()
        text = literal_string(condition)
        if text is not None and not re.search(r"(?i)\bor\b|<|>|!=|\bin\b|\blike\b", text):
            return {m.group(1) for m in _SQL_EQUAL.finditer(text)}
        return set()

    def _column(self, node) -> Optional[str]:
        if isinstance(node, cst.Call) and len(node.args) == 1 and self.ctx.semantic.is_function(node.func, {"col", "column"}):
            return literal_string(node.args[0].value)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            return literal_string(node.slice[0].slice.value) if self.ctx.semantic.is_dataframe(node.value) else None
        if isinstance(node, cst.Attribute) and self.ctx.semantic.is_dataframe(node.value):
            return node.attr.value
        return None

    def _keys(self, args) -> Optional[list]:
        if any(a.star or a.keyword for a in args):
            return None
        return column_names(self.ctx, [a.value for a in args])

    def _is_read(self, node: cst.Call) -> bool:
        """`spark.read....parquet(...)`, `spark.table(...)`: a read of stored data."""
        receiver = node.func.value
        if method_name(node) == "table":
            value = self.ctx.semantic.infer(receiver)
            return value is not None and value.kind == "SparkSession"
        value = self.ctx.semantic.infer(receiver)
        return value is not None and value.kind == "DataFrameReader"

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "partitionBy" or not node.args or any(a.star for a in node.args):
            return
        columns = column_names(self.ctx, positional_args(node))
        writer = down_chain(node.func.value, _WRITER_CONFIG)
        if not (isinstance(writer, cst.Attribute) and writer.attr.value == "write"):
            return
        if self._optimized(node):
            return
        frame = writer.value
        if not self.ctx.semantic.is_dataframe(frame):
            return
        summary = self.summarise(frame)
        if summary is None or summary[0] == _CONTROLLED:
            return
        if columns and set(columns) <= summary[3]:
            return  # one value of each partition column: one directory, whatever the tasks
        spread = ", ".join(f"`{c}`" for c in columns) if columns else f"`{shown(self.ctx, node.args[0].value)}`"
        name = f"`{shown(self.ctx, frame)}`"
        if summary[0] == _CLUSTERED:
            keys = summary[1]
            if keys is None or columns is None or set(keys) <= set(columns):
                return  # each value of the partition columns is in one task (or unknown keys)
            how = "every column" if keys == [_ALL] else ", ".join(f"`{k}`" for k in keys)
            why = (f"its last shuffle (`{method_name(summary[2])}`) spreads rows by {how}, so every task holds "
                   f"rows of many {spread} values and writes a file into each of their directories")
        elif summary[0] == _ELSEWHERE:
            why = (f"nothing in this {'function' if len(self.frames) > 1 else 'file'} clusters it by {spread}; unless "
                   "its maker repartitions it, every task writes a file into every directory it holds rows for")
        else:
            why = (f"nothing before the write clusters it by {spread}, so every read task writes a file into every "
                   "directory it holds rows for")
        self.ctx.report(
            self,
            node,
            f"{name} is written partitioned by {spread}: {why}",
            help=f"repartition by the partition columns first (`.repartition({self._args(node, columns)})`, "
            "with `maxRecordsPerFile` to bound file sizes)",
            start=node.func.attr,
        )

    def _args(self, node: cst.Call, columns) -> str:
        if columns:
            return ", ".join(repr(c) for c in columns)
        return ", ".join(shown(self.ctx, a.value) for a in node.args)

    def _optimized(self, node: cst.Call) -> bool:
        """Delta's optimized writes (a writer option or a session setting in the file) shuffle by partition."""
        text = self.ctx.semantic.text or ""
        return "optimizeWrite" in text or "optimize_write" in text
