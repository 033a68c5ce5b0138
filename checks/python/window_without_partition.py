import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession, Window\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_WINDOW = ("pyspark.sql.Window", "pyspark.sql.window.Window")


class WindowWithoutPartition(PythonRule):
    """
    ## What it does
    Finds window specifications built from `Window` without a
    `partitionBy(...)` of at least one column: `Window.orderBy("ts")`,
    `Window.rowsBetween(...)`, `Window.partitionBy()`.

    ## Why is this bad?
    A window without partitions puts every row into a single partition and a
    single task, to be sorted and scanned on one core. Spark says so in its
    log ("No Partition Defined for Window operation! Moving all data to a
    single partition, this can cause serious performance degradation").

    ## Example
    ```python
    ranked = orders.withColumn("rank", F.row_number().over(Window.orderBy(F.desc("amount"))))
    ```

    ## Use instead
    ```python
    ranked = orders.withColumn(
        "rank", F.row_number().over(Window.partitionBy("country").orderBy(F.desc("amount")))
    )
    ```
    For a global top-N use `orderBy(...).limit(n)`; for a global row id,
    `F.monotonically_increasing_id()`.

    ## Fix safety
    No fix: the partitioning is a change of meaning.

    ## References
    - Spark's `WindowExec` warning, quoted above.
    """

    code = "SPK404"
    name = "window-without-partition"
    summary = "a window without `partitionBy` moves all rows into one partition"
    triggers = ("Window",)
    doc_setup = 'from pyspark.sql import Window\norders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "w = Window.orderBy('ts')\n"),
        Invalid(_SETUP + "w = Window.partitionBy().orderBy('ts').rowsBetween(-1, 0)\n"),
        Invalid(_SETUP + "r = orders.withColumn('n', F.row_number().over(Window.orderBy(F.desc('amount'))))\n"),
    )
    valid = (
        Valid(_SETUP + "w = Window.partitionBy('country').orderBy('ts')\n"),
        Valid(_SETUP + "w = Window.orderBy('ts').partitionBy('country')\n"),
        Valid("class Window:\n    @staticmethod\n    def orderBy(x):\n        return x\nw = Window.orderBy('a')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and isinstance(self.ctx.parent_of(parent), cst.Call) \
                and self.ctx.parent_of(parent).func is parent:
            return  # not the outermost call of the chain
        partitioned, inner = False, node
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
            if method_name(inner) == "partitionBy" and inner.args:
                partitioned = True
            inner = inner.func.value
        if inner is node or self.ctx.semantic.qualified_name(inner) not in _WINDOW or partitioned:
            return
        self.ctx.report(
            self,
            node,
            "a window without `partitionBy` sends every row to one partition, sorted and scanned by one task",
            help="partition the window by a key (`Window.partitionBy(key).orderBy(...)`); "
            "for a global top-N use `orderBy(...).limit(n)`",
        )
