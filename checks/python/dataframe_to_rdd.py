import re

import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, RDD, UNBOUNDED, dotted_name, method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_ROW_FUNCTIONS = frozenset("map flatMap filter foreach reduceByKey groupByKey keyBy".split())
_HELP = "express it with DataFrame functions (select, filter, groupBy/agg), or `mapInPandas` for row-wise Python"


def _partition_function(call: cst.Call) -> bool:
    """`partitionBy(n, func)` or `partitionBy(n, partitionFunc=func)`: a partition function of the code's own."""
    return len(call.args) >= 2 and (call.args[1].keyword is None or call.args[1].keyword.value == "partitionFunc")


class DataframeToRdd(PythonRule):
    """
    ## What it does
    Finds DataFrame rows processed one by one through the RDD API:
    `df.rdd.map(...)`, `flatMap`, `filter`, `foreach`, `keyBy`, `reduceByKey`,
    `groupByKey` on `df.rdd` (or on a name holding it: `rows = df.rdd`, then
    `rows.map(...)`), and `df.foreach(f)`, which is `df.rdd.foreach(f)`. Keys
    made for a partition function of the code's own (`rdd.keyBy(f)` then
    `partitionBy(n, func)`) are not reported: DataFrames have no custom
    partitioner. `df.rdd.getNumPartitions()` and other metadata
    calls are not reported, nor are `mapPartitions` / `foreachPartition`: a
    function per partition is how Python code that needs a resource (a model, a
    connection, a TensorFlow feed) is written on purpose. A DataFrame of a
    handful of rows (`SHOW TABLES`, a `limit`) is not reported either, nor an
    RDD made for an API of `pyspark.mllib` that takes nothing else
    (`BinaryClassificationMetrics(preds.rdd.map(...))`, directly or through a
    name).

    ## Why is this bad?
    `df.rdd` leaves Catalyst and Tungsten: every row is deserialized from
    Spark's binary format into a Python `Row`, pickled to a Python worker,
    processed one at a time, and pickled back. The optimizer can no longer
    prune columns, push filters or generate code. The same logic in DataFrame
    expressions (or `mapInPandas` for Python that really needs rows) runs many
    times faster.

    ## Example
    ```python
    totals = orders.rdd.map(lambda r: (r.customer_id, r.amount)).reduceByKey(lambda a, b: a + b)
    ```

    ## Use instead
    ```python
    totals = orders.groupBy("customer_id").agg(F.sum("amount").alias("amount"))
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL guide, "Performance Tuning"; PySpark user guide on Arrow and
      `mapInPandas`.
    """

    code = "SPK108"
    skip_in_tests = True
    name = "dataframe-to-rdd"
    summary = "DataFrame rows processed one by one through `df.rdd`"
    default_reason = ("`df.rdd` pickles every row through a Python worker, and the optimizer can no longer "
                      "prune, push down or generate code; per-partition functions and tiny frames are exempt")
    triggers = (".rdd", ".foreach(")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "pairs = orders.rdd.map(lambda r: (r.customer_id, r.amount))\n"),
        Invalid(_SETUP + "orders.rdd.foreach(print)\n"),
        Invalid(_SETUP + "keyed = orders.rdd.keyBy(lambda r: r.customer_id)\nparts = keyed.partitionBy(8)\n"),
        Invalid(_SETUP + "big = orders.select('amount').rdd.filter(lambda r: r.amount > 100)\n"),
        Invalid(_SETUP + "rows = orders.rdd\npairs = rows.map(lambda r: (r.customer_id, r.amount))\n"),
        Invalid(_SETUP + "large = spark.sparkContext.accumulator(0)\n"
                "orders.foreach(lambda r: large.add(1) if r.amount > 100 else None)\n"),
    )
    valid = (
        Valid(_SETUP + "n = orders.rdd.getNumPartitions()\n"),
        Valid(_SETUP + "rows = orders.rdd\nkeyed = rows.keyBy(lambda r: r.customer_id)\n"
              "parts = keyed.partitionBy(8, lambda k: 0 if k in vip else 1 + hash(k) % 7).values().glom()\n"),
        Valid(_SETUP + "parts = orders.rdd.keyBy(lambda r: r.day).partitionBy(31, partitionFunc=by_day)\n"),
        Valid(_SETUP + "orders.foreachPartition(send_batch)\n"),
        Valid(_SETUP + "orders.limit(10).foreach(print)\n"),
        Valid("for item in items:\n    pass\nqueue.foreach(handle)\n"),
        Valid(_SETUP + "totals = orders.groupBy('customer_id').agg(F.sum('amount'))\n"),
        Valid("pairs = thing.rdd.map(f)\n"),
        Valid(_SETUP + "rows = orders.rdd\nn = rows.getNumPartitions()\nparts = rows.mapPartitions(score)\n"),
        Valid(_SETUP + "lines = spark.sparkContext.textFile('/logs')\nwords = lines.flatMap(str.split)\n"),
        Valid(_SETUP + "preds = orders.select('features').rdd.mapPartitions(lambda rows: model.predict(rows))\n"),
        Valid(_SETUP + "names = spark.sql('SHOW TABLES').rdd.map(lambda r: r.tableName).collect()\n"),
        Valid(_SETUP + "from pyspark.mllib.evaluation import BinaryClassificationMetrics\n"
              "out = orders.select('prediction', 'label').rdd.map(lambda x: (float(x[0]), float(x[1])))\n"
              "metrics = BinaryClassificationMetrics(out)\n"),
        Valid(_SETUP + "from pyspark.mllib.evaluation import RegressionMetrics\n"
              "metrics = RegressionMetrics(orders.select('p', 'y').rdd.map(tuple))\n"),
        # the second metric's import comes after the first RDD (a later notebook cell)
        Valid(_SETUP + "from pyspark.mllib.evaluation import RegressionMetrics\n"
              "metrics = RegressionMetrics(orders.select('p', 'y').rdd.map(tuple))\n"
              "from pyspark.mllib.evaluation import RankingMetrics\n"
              "pairs = orders.join(orders, ['id']).rdd.map(lambda row: (row[1], row[2][:15]))\n"
              "ranks = RankingMetrics(pairs)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in _ROW_FUNCTIONS:
            return
        attr = node.func.value
        if method == "foreach" and not (isinstance(attr, cst.Attribute) and attr.attr.value == "rdd"):
            self._foreach(node)  # `df.foreach(f)` is `df.rdd.foreach(f)`
            return
        if isinstance(attr, cst.Name):
            self._held(node, attr)
            return
        if not (isinstance(attr, cst.Attribute) and attr.attr.value == "rdd"):
            return
        value = self.ctx.semantic.infer(attr.value)
        if value is None or value.kind != DATAFRAME or value.bound not in (UNBOUNDED, None):
            return  # a handful of rows (`SHOW TABLES`, a limit): nothing to gain from DataFrame functions
        if self._for_mllib(node):
            return  # `BinaryClassificationMetrics(rdd)`: the RDD API is the only way in
        if self._custom_partitioning(node):
            return
        name = shown(self.ctx, attr.value)
        self.ctx.report(self, node, f"`{name}.rdd.{method}(...)` moves every row out of Spark's engine into Python "
                        "objects", help=_HELP, start=attr.attr)

    def _held(self, node: cst.Call, name: cst.Name) -> None:
        """`rows = df.rdd` ... `rows.map(...)`: the same rows, through a name."""
        value = self.ctx.semantic.infer(name)
        if value is None or value.kind != RDD or not value.flags or "of-dataframe" not in value.flags \
                or value.bound not in (UNBOUNDED, None):
            return
        if self._for_mllib(node) or self._custom_partitioning(node):
            return
        self.ctx.report(self, node, f"`{name.value}` holds a DataFrame's `.rdd`: `{name.value}.{method_name(node)}"
                        "(...)` moves every row out of Spark's engine into Python objects", help=_HELP,
                        start=node.func.attr)

    def _foreach(self, node: cst.Call) -> None:
        receiver = node.func.value
        if isinstance(receiver, cst.Name):
            self._held(node, receiver)  # `rows = df.rdd` ... `rows.foreach(f)`
        value = self.ctx.semantic.infer(receiver)
        if value is None or value.kind != DATAFRAME or value.bound not in (UNBOUNDED, None) or not node.args:
            return
        self.ctx.report(
            self,
            node,
            f"`{shown(self.ctx, receiver)}.foreach(...)` calls a Python function on every row, one at a time "
            "(it is `.rdd.foreach`)",
            help="count or sum with DataFrame functions (`filter(...).agg(F.sum(...))`) rather than an accumulator; "
                 "for side effects per row, `foreachPartition` opens a connection once per partition",
            start=node.func.attr,
        )

    def _custom_partitioning(self, node: cst.Call) -> bool:
        """Keys made for a partition function of the code's own (`keyBy(f).partitionBy(n, func)`, in the chain or
        through the name the keyed RDD is assigned to): DataFrames have no custom partitioner (`repartition`
        hashes or ranges), so the RDD API is the only way to it."""
        if method_name(node) not in ("keyBy", "map"):
            return False
        ancestors = self.ctx.ancestors
        i = next((k for k in range(len(ancestors) - 1, -1, -1) if ancestors[k] is node), None)
        outer = node
        while i is not None and i >= 2 and isinstance(ancestors[i - 1], cst.Attribute) and \
                ancestors[i - 1].value is outer and isinstance(ancestors[i - 2], cst.Call):
            outer, i = ancestors[i - 2], i - 2
            if method_name(outer) == "partitionBy":
                return _partition_function(outer)
        parent = self.ctx.parent_of(outer)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            name = re.escape(parent.targets[0].target.value)
            return re.search(rf"\b{name}[\s\\]*\.\s*partitionBy\s*\((?:[^,()]+,\s*[A-Za-z_(]|[^)]*partitionFunc\s*=)",
                             self.ctx.unit.text) is not None
        return False

    def _for_mllib(self, node: cst.Call) -> bool:
        """The RDD is an argument of a `pyspark.mllib` call, itself or through the name it is assigned to."""
        if "pyspark.mllib" not in self.ctx.unit.text:
            return False
        outer = self.ctx.parent_of(node, skip=(cst.Arg,))
        if isinstance(outer, cst.Call) and self._mllib(outer):
            return True
        if not (isinstance(outer, cst.Assign) and len(outer.targets) == 1
                and isinstance(outer.targets[0].target, cst.Name)):
            return False
        name = outer.targets[0].target.value
        if "mllib_args" not in self.ctx.memo:
            self.ctx.memo["mllib_args"] = self._mllib_argument_names()
        return name in self.ctx.memo["mllib_args"]

    def _mllib(self, call: cst.Call) -> bool:
        q = self.ctx.semantic.qualified_name(call.func) or ""
        return q.startswith("pyspark.mllib.")

    def _mllib_argument_names(self) -> set:
        """Names given to a `pyspark.mllib` call anywhere in the file. Asked once, mid-walk: a call is known by
        the names the file imports from `pyspark.mllib` anywhere (a later cell's `from pyspark.mllib.evaluation
        import RankingMetrics`), not only by what is bound at the point of asking."""
        imported, calls, stack = set(), [], [self.ctx.module]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.ImportFrom) and not isinstance(current.names, cst.ImportStar) and \
                    (dotted_name(current.module) or "").startswith("pyspark.mllib"):
                imported.update((a.asname.name.value if a.asname is not None else dotted_name(a.name))
                                for a in current.names)
            elif isinstance(current, cst.Call):
                calls.append(current)
            stack.extend(current.children)
        names = set()
        for call in calls:
            if self._mllib(call) or (isinstance(call.func, cst.Name) and call.func.value in imported):
                names.update(a.value.value for a in call.args if isinstance(a.value, cst.Name))
        return names
