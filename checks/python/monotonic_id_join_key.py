import libcst as cst

from checks.python import _determinism_and_joins as lineage
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
    "names = spark.read.csv('s3://raw/names.csv', header=True, schema='name STRING')\n"
    "scores = spark.read.csv('s3://raw/scores.csv', header=True, schema='score INT')\n"
)


class MonotonicIdJoinKey(PythonRule):
    """
    ## What it does
    Finds joins whose key is a column made from
    `F.monotonically_increasing_id()`: a column added with
    `withColumn(name, ...)` or `select(....alias(name))` whose expression
    calls it (directly, through `row_number()` over a window ordered by it, or
    through a name holding such a Column or window), joined by name
    (`on="row_id"`) or as `df.row_id` / `F.col("row_id")` in the condition.
    The column is followed through the DataFrames made from it in this file.

    ## Why is this bad?
    `monotonically_increasing_id()` encodes the partition number and the
    row's position in its partition: the ids are unique, not consecutive, and
    not a property of the row. Two DataFrames get matching ids only if they
    have exactly the same partitions with the same number of rows in each;
    after a shuffle, a retry or a change in input files they do not, and a
    join on the ids pairs rows that do not belong together, silently. The
    classic case is "zipping" two DataFrames side by side this way.

    ## Example
    ```python
    left = names.withColumn("row_id", F.monotonically_increasing_id())
    right = scores.withColumn("row_id", F.monotonically_increasing_id())
    zipped = left.join(right, "row_id")
    ```

    ## Use instead
    ```python
    zipped = names.join(scores, "person_id")
    ```
    Join on a key the data carries. To number rows, number them once and
    keep the numbered DataFrame (write it out) rather than recomputing and
    joining it; `rdd.zipWithIndex()` gives consecutive indexes that follow
    the input order.

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `pyspark.sql.functions.monotonically_increasing_id` ("The
      generated ID is guaranteed to be monotonically increasing and unique, but
      not consecutive ... The function is non-deterministic because its result
      depends on partition IDs").
    """

    code = "SPK313"
    name = "monotonic-id-join-key"
    summary = "a join on ids from `monotonically_increasing_id()` pairs rows by partition layout, not by data"
    default_reason = ("ids from `monotonically_increasing_id()` follow the partition layout, so after a shuffle, "
                      "a retry or new input files a join on them pairs rows that do not belong together")
    severity = "error"
    triggers = ("monotonically_increasing_id",)
    doc_setup = _SETUP.split("spark = SparkSession.builder.getOrCreate()\n")[1]

    invalid = (
        Invalid(_SETUP + "left = names.withColumn('row_id', F.monotonically_increasing_id())\n"
                "right = scores.withColumn('row_id', F.monotonically_increasing_id())\n"
                "zipped = left.join(right, 'row_id')\n"),
        Invalid(_SETUP + "left = names.withColumn('id', F.monotonically_increasing_id())\n"
                "right = scores.select(F.monotonically_increasing_id().alias('id'), 'score')\n"
                "zipped = left.join(right, left.id == right.id, 'inner')\n"),
        Invalid(_SETUP + "w = Window.orderBy(F.monotonically_increasing_id())\n"
                "left = names.withColumn('n', F.row_number().over(w))\n"
                "right = scores.withColumn('n', F.row_number().over(w)).filter(F.col('score') > 0)\n"
                "zipped = left.join(right, on=['n'], how='left')\n"),
    )
    valid = (
        Valid(_SETUP + "left = names.withColumn('row_id', F.monotonically_increasing_id())\n"
              "left.write.parquet('s3://curated/names/')\n"),
        Valid(_SETUP + "left = names.withColumn('row_id', F.monotonically_increasing_id())\n"
              "zipped = left.join(scores, 'name')\n"),
        Valid(_SETUP + "left = names.withColumn('row_id', F.monotonically_increasing_id())\n"
              "left = left.withColumn('row_id', F.col('name'))\nzipped = left.join(scores, 'row_id')\n"),
        Valid(_SETUP + "left = names.withColumn('row_id', F.lit(1))\nzipped = left.join(scores, 'row_id')\n"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        lineage.enter_function(self.ctx, node)

    def leave_Assign(self, node: cst.Assign) -> None:
        lineage.leave_assign(self.ctx, node)

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "join" or not self.ctx.semantic.is_dataframe(node.func.value):
            return
        args = positional_args(node)
        other = args[0] if args else None
        on = lineage.join_condition(node)
        if other is None or on is None:
            return
        left, right = lineage.frame_of(self.ctx, node.func.value), lineage.frame_of(self.ctx, other)
        if left is None or right is None:
            return
        monotonic = lineage.tracker(self.ctx).monotonic_tokens
        if not monotonic:
            return
        found = None
        keys = lineage.using_keys(on)
        if keys is not None:
            for key in keys:
                if self._monotonic(left, key, monotonic) or self._monotonic(right, key, monotonic):
                    found = key
                    break
        else:
            for _, (owner, name) in lineage.column_refs(self.ctx, on):
                tokens = lineage.tokens_of_ref(self.ctx, owner, name)
                if tokens and tokens & monotonic:
                    found = name
                    break
            if found is None:
                for call in _col_calls(self.ctx, on):
                    name = literal_string(call.args[0].value)
                    if self._monotonic(left, name, monotonic) or self._monotonic(right, name, monotonic):
                        found = name
                        break
        if found is None:
            return
        self.ctx.report(
            self,
            node,
            f"join on `{found}`, made by `monotonically_increasing_id()`: the ids follow the partition layout, so "
            "rows of the two sides match only by accident",
            help="join on a key the data carries; number rows once and persist them if an index is needed",
            start=node.func.attr,
        )

    @staticmethod
    def _monotonic(frame, name, monotonic) -> bool:
        tokens = frame.tokens(name)
        return bool(tokens and tokens & monotonic)


def _col_calls(ctx, node):
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call) and ctx.semantic.is_function(current.func, {"col", "column"}) \
                and current.args and literal_string(current.args[0].value) is not None:
            yield current
        stack.extend(current.children)
