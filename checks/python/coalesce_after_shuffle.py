from typing import Optional

import libcst as cst

from checks.python._determinism_and_joins import udf_call
from checks.python._fixes import replace
from checks.python._partition_writes import (
    DEDUPS, NARROW, REPARTITIONS, SET_OPERATIONS, SORTS, Chains, broadcast_side, described, grouping_of, has_window,
)
from linter.registry import Invalid, Option, PythonRule, Valid
from linter.semantic import DATAFRAME, FEW_ROWS, literal_int, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
    "customers = spark.table('customers')\n"
)
_LOCAL_SORT = "`sortWithinPartitions(...)`"  # work between a shuffle and the coalesce, after which no fix keeps the order
# What the stage a coalesce collapses runs, by the wide call that starts it.
_WORK = {"join": "the join", "crossJoin": "the join"}
_WORK.update(dict.fromkeys(DEDUPS, "the deduplication"))
_WORK.update(dict.fromkeys(SORTS, "the sort"))
_WORK.update(dict.fromkeys(SET_OPERATIONS, "the set operation"))


class CoalesceAfterShuffle(Chains, PythonRule):
    """
    ## What it does
    Finds `coalesce(n)`, with a literal `n` below `max-partitions` (32), on a
    DataFrame whose chain (or what the function assigned the name it is
    called on) shows a shuffle right before it, with only row-keeping calls
    (`select`, `withColumn`, `filter`, ...) between: a `groupBy(...).agg(...)`,
    a join (not a broadcast one), `distinct` / `dropDuplicates`, `orderBy` /
    `sort`, a window function (`F.row_number().over(w)`) or a set operation.

    A `repartition(m)` (or `repartitionByRange`) before the coalesce counts
    only when work sits between them: a Python UDF called in a `select` /
    `withColumn` / `filter`, or a `sortWithinPartitions`
    (`df.repartition(200).withColumn("s", score("text")).coalesce(8)`: the
    UDF the repartition spread over 200 tasks runs in 8). A coalesce right
    after a repartition, or with only built-in projections and filters
    between (`df.repartition(5, "k").coalesce(2)`), is not reported: the
    stage after a repartition only reads the shuffle's output, so the
    coalesce narrows no work, and `repartition(2, "k")` would run the same
    one shuffle into the same 2 tasks (measured on local Spark 4.3: both
    ran 10 map tasks and 2 reduce tasks, with AQE on or off, while
    `repartition(20).withColumn("u", udf(...)).coalesce(4)` ran its UDF in
    4 tasks). What is wrong there is style, a partition count asked for
    and thrown away: a literal count is SPK408's
    (hardcoded-partition-count, off by default), and a `coalesce(1)` after
    it SPK402's. SPK418 (repartition-not-by-keys) reads what a repartition
    feeds, a join or a partitioned write, not a coalesce.

    `coalesce(1)` is SPK402's (repartition-to-one), which says the same for
    one partition, after a shuffle or not. A `coalesce(n)` on a narrow
    lineage (`read -> filter -> coalesce(n) -> write`) is the documented way
    to bound the number of files a write makes, and is not reported: the
    stage it narrows only reads and filters. That is why spark-perf-lint's
    "coalesce() before write()" (SPL-D04-005) is not reported as such: it is
    a mistake only when the coalesce pulls a shuffle's work into the same
    few tasks, which is what this rule finds, before a write or not. A
    cached DataFrame (`cache()` between) and one proven to hold few rows are
    not reported either.

    On by default: what it reports is true whatever the data (the stage
    after the shuffle does run in `n` tasks). On a small result, such as a
    `groupBy` on a few keys, that costs little, and so does the
    `repartition(n)` that replaces it.

    ## Why is this bad?
    `coalesce` adds no shuffle: it merges partitions inside the stage that
    produces them. Right after a shuffle, that stage is the aggregation, the
    join or the sort itself, which then runs in `n` tasks whatever
    `spark.sql.shuffle.partitions` (or AQE) would have given it: a join of two
    large tables on ten cores, with the spills and the memory pressure of ten
    tasks doing the work of hundreds. `repartition(n)` costs one more
    shuffle, of the (usually smaller) result, and keeps the work before it
    parallel. After an explicit `repartition(m)` the stage does nothing of
    its own but what the code puts between: a UDF there runs in `n` tasks
    instead of the `m` the repartition made for it.

    ## Example
    ```python
    daily = orders.groupBy("customer_id", "day").agg(F.sum("amount").alias("spent"))
    daily.coalesce(8).write.mode("overwrite").parquet("s3://marts/daily_spend/")
    ```

    ## Use instead
    ```python
    daily = orders.groupBy("customer_id", "day").agg(F.sum("amount").alias("spent"))
    daily.repartition(8).write.mode("overwrite").parquet("s3://marts/daily_spend/")
    ```
    Or leave the partition count to AQE (`spark.sql.adaptive.coalescePartitions.enabled`,
    on by default since Spark 3.2), which merges small shuffle partitions
    without narrowing the work. After a global sort, use
    `repartitionByRange(n, key).sortWithinPartitions(key)` to keep the order.

    ## Fix safety
    The fix replaces `coalesce` with `repartition` and is unsafe: the rows are
    the same, but a round-robin repartition puts them into other partitions
    and files, in another order. No fix is offered after a sort
    (`orderBy`, `sortWithinPartitions`), where `repartition` would lose the
    order the sort made.

    ## Options
    - `max-partitions` (default 32): a `coalesce(n)` to fewer partitions than
      this is reported; a larger `n` still keeps a modest cluster busy.

    ## References
    - PySpark API: `DataFrame.coalesce` ("this operation results in a narrow
      dependency ... if you're doing a drastic coalesce ... this may result in
      your computation taking place on fewer nodes than you like ... you can
      call repartition(). This will add a shuffle step, but means the current
      upstream partitions will be executed in parallel").
    - Spark SQL performance tuning guide, "Coalescing Post Shuffle Partitions".
    """

    code = "SPK426"
    name = "coalesce-after-shuffle"
    summary = "`coalesce(n)` right after a shuffle runs the aggregation, join or sort itself in `n` tasks"
    default_reason = ("`coalesce(n)` right after a shuffle runs the join, aggregation or sort itself in n tasks, "
                      "whatever the data; on a narrow lineage, bounding a write's files, it is left alone")
    fix = "unsafe"
    skip_in_tests = True
    triggers = ("coalesce",)
    doc_setup = 'orders = spark.table("orders")\n'
    options = {"max-partitions": Option(32, "a coalesce to fewer partitions than this is reported")}

    invalid = (
        Invalid(_SETUP + "daily = orders.groupBy('day').agg(F.sum('amount').alias('revenue')).coalesce(10)\n",
                fixed=_SETUP + "daily = orders.groupBy('day').agg(F.sum('amount').alias('revenue')).repartition(10)\n",
                unsafe=True),
        Invalid(_SETUP + "j = orders.join(customers, 'customer_id').select('day', 'amount').coalesce(5)\n"),
        Invalid(_SETUP + "ranked = orders.orderBy('amount')\nout = ranked.filter(F.col('amount') > 0).coalesce(4)\n"),
        Invalid(_SETUP + "w = Window.partitionBy('customer_id').orderBy('ts')\n"
                "orders.withColumn('n', F.row_number().over(w)).coalesce(8).write.parquet('s3://x/')\n"),
        Invalid(_SETUP + "orders.dropDuplicates(['order_id']).coalesce(16).write.parquet('s3://x/')\n"),
        Invalid(_SETUP + "def publish(df):\n    df = df.distinct()\n    df = df.withColumn('x', F.lit(1))\n"
                "    df.coalesce(2).write.parquet('s3://x/')\n"),
        Invalid(_SETUP + "score = F.udf(lambda t: sentiment(t), 'double')\n"
                "scored = orders.repartition(200).withColumn('s', score('text')).coalesce(8)\n",
                fixed=_SETUP + "score = F.udf(lambda t: sentiment(t), 'double')\n"
                "scored = orders.repartition(200).withColumn('s', score('text')).repartition(8)\n", unsafe=True),
        Invalid(_SETUP + "@F.udf('string')\ndef clean(t):\n    return scrub(t)\n\n"
                "spread = orders.repartition(100, 'customer_id')\n"
                "out = spread.select('customer_id', clean('note').alias('note')).filter('note != \"\"')\n"
                "out.coalesce(4).write.parquet('s3://x/')\n"),
        Invalid(_SETUP + "orders.repartition(64, 'day').sortWithinPartitions('ts').coalesce(8).write.parquet('s3://x/')\n"),
    )
    valid = (
        Valid(_SETUP + "orders.filter(F.col('day') == '2024-01-01').coalesce(10).write.parquet('s3://x/')\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').agg(F.sum('amount').alias('revenue')).repartition(10)\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').count().coalesce(1)\n"),  # SPK402's
        Valid(_SETUP + "daily = orders.groupBy('day').count().coalesce(64)\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').count().coalesce(n)\n"),
        Valid(_SETUP + "daily = orders.groupBy('day').count().cache()\ndaily.count()\ndaily.coalesce(4)\n"),
        Valid(_SETUP + "j = orders.join(F.broadcast(customers), 'customer_id').coalesce(8)\n"),
        Valid(_SETUP + "top = orders.orderBy('amount').limit(100).coalesce(2)\n"),
        Valid(_SETUP + "x = orders.agg(F.sum('amount')).coalesce(2)\n"),
        Valid(_SETUP + "def f(df):\n    df.coalesce(4).write.parquet('s3://x/')\n"),
        Valid(_SETUP + "def f(flag):\n    x = orders.filter('a > 1')\n    if flag:\n        x = x.distinct()\n"
              "    return x.coalesce(4)\n"),
        Valid("import pandas as pd\nframe = pd.DataFrame()\nx = frame.groupby('a').sum().coalesce(4)\n"),
        # the stage after a repartition only reads its shuffle: `repartition(2, ...)` is the same shuffle and tasks
        Valid(_SETUP + "x = orders.repartition(5, F.col('day')).coalesce(2)\n"),
        Valid(_SETUP + "x = orders.repartitionByRange(40, 'ts').coalesce(10).write.parquet('s3://x/')\n"),
        Valid(_SETUP + "spread = orders.repartition(200)\n"
              "spread.withColumn('d', F.to_date('ts')).filter(F.col('amount') > 0).coalesce(8).write.parquet('s3://x/')\n"),
        # the UDF runs before the shuffle, at full width: the coalesce after the repartition narrows nothing
        Valid(_SETUP + "score = F.udf(lambda t: sentiment(t), 'double')\n"
              "orders.withColumn('s', score('text')).repartition(200).coalesce(8).write.parquet('s3://x/')\n"),
    )

    def summarise(self, expr) -> Optional[tuple]:
        """(the wide call that starts the stage ending at ``expr``, the work after it); None if none seen.

        The work is what the narrow calls between run that costs more than reading the rows: a Python UDF
        (its name as written) or a `sortWithinPartitions`; None when they only project and filter.
        """
        node, work = expr, None
        while True:
            if isinstance(node, cst.Name):
                found = self.known(node.value)
                if found is None:
                    return None
                return found[0], work or found[1]
            if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                return None
            method = method_name(node)
            if method in NARROW:
                if method in ("select", "withColumn", "withColumns") and has_window(self.ctx, node):
                    return node, work
                if work is None:
                    udf = next(filter(None, (udf_call(self.ctx, a.value) for a in node.args)), None)
                    work = f"the UDF `{udf}`" if udf is not None else \
                        _LOCAL_SORT if method == "sortWithinPartitions" else None
                node = node.func.value
                continue
            if grouping_of(node) is not None:
                return (node, work) if grouping_of(node).args else None  # groupBy() with no keys: one row
            if method in DEDUPS or method in SORTS or method in SET_OPERATIONS or method in REPARTITIONS:
                return node, work
            if method == "join":
                args = positional_args(node)
                if not args or broadcast_side(self.ctx, args[0]) or broadcast_side(self.ctx, node.func.value):
                    return None  # a broadcast join shuffles neither side
                return node, work
            return None

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "coalesce" or not isinstance(node.func, cst.Attribute):
            return
        args = positional_args(node)
        n = literal_int(args[0]) if len(args) == 1 and len(node.args) == 1 else None
        if n is None or n < 2 or n >= self.opts["max-partitions"]:
            return  # one partition is SPK402's; a variable count says nothing
        receiver = node.func.value
        found = self.summarise(receiver)
        if found is None:
            return
        wide, between = found
        method = method_name(wide)
        if method in REPARTITIONS and between is None:
            # The stage after a repartition only reads its shuffle output: `coalesce(n)` narrows no work there,
            # and `repartition(n, ...)` would run the same shuffle into the same n tasks. A style note (the count
            # thrown away is SPK408's literal partition count), not a squeezed stage.
            return
        value = self.ctx.semantic.infer(receiver)
        if value is None or value.kind != DATAFRAME or (isinstance(value.bound, int) and value.bound <= FEW_ROWS):
            # (a proven bound that small fits a few tasks whatever they do)
            return
        fix = None
        named = isinstance(receiver, cst.Name)
        on, its = (f" on `{receiver.value}`", "its ") if named else ("", "")
        if method in REPARTITIONS:
            message = (f"`coalesce({n})`{on} after {its}{described(self.ctx, wide)} and {between}: without a shuffle "
                       f"of its own, the coalesce runs {between} in {n} tasks, not in the partitions the repartition "
                       "made for it")
            if between == _LOCAL_SORT:
                # `repartition(n)` after the sort would lose the order; the coalesce's merge of sorted runs did too
                help = (f"repartition to {n} before the sort (`repartition({n}, ...).sortWithinPartitions(...)`): the "
                        f"same one shuffle, and each of the {n} partitions comes out sorted")
            else:
                help = (f"use `repartition({n})` after the work: one more shuffle, of the result, keeps {between} "
                        f"parallel; or repartition to {n} before the work if {n} tasks are enough for it")
                fix = replace(node.func.attr, "repartition", f"use `repartition({n})`", safe=False)
        else:
            if grouping_of(wide) is not None:
                work = "the aggregation"
            elif method in _WORK:
                work = _WORK[method]
            else:
                work = "the window function"
            if between is not None:
                work = f"{work} (and {between})"
            message = (f"`coalesce({n})`{on} right after {its}{described(self.ctx, wide)}: without a shuffle of its own, it "
                       f"runs {work} itself in {n} tasks")
            if method in SORTS or between == _LOCAL_SORT:
                help = (f"use `repartitionByRange({n}, ...)` with `sortWithinPartitions(...)` to keep the order with "
                        "the sort parallel, or leave the partition count to AQE")
            else:
                help = (f"use `repartition({n})`: one more shuffle, of the result, keeps {work} parallel; or leave the "
                        "partition count to AQE")
                fix = replace(node.func.attr, "repartition", f"use `repartition({n})`", safe=False)
        self.ctx.report(self, node, message, fix=fix, help=help, start=node.func.attr)
