import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_int, method_name, positional_args

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class HardcodedPartitionCount(PythonRule):
    """
    ## What it does
    Finds `repartition(n)` and `coalesce(n)` with a literal number of
    partitions above 1 (`repartition(1)` is SPK402). Off by default: select
    it by its code (`--select SPK408`).

    ## Why is this bad?
    A partition count that suited last year's data is wrong for this year's:
    too few makes huge tasks that spill, too many makes thousands of tiny
    tasks and small files. With adaptive query execution (on by default since
    Spark 3.2) Spark sizes shuffle partitions from the data
    (`spark.sql.adaptive.coalescePartitions`); `repartition` by columns
    without a number lets it.

    ## Example
    ```python
    orders.repartition(200, "customer_id").write.parquet("s3://x/")
    ```

    ## Use instead
    ```python
    orders.repartition("customer_id").write.parquet("s3://x/")
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL guide, "Adaptive Query Execution: Coalescing Post Shuffle Partitions".
    """

    code = "SPK408"
    name = "hardcoded-partition-count"
    summary = "a literal partition count in `repartition` / `coalesce` does not follow the data"
    explicit = True
    triggers = ("repartition", "coalesce")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.repartition(200, 'customer_id').write.parquet('s3://x/')\n"),
        Invalid(_SETUP + "x = orders.coalesce(16)\n"),
    )
    valid = (
        Valid(_SETUP + "orders.repartition('customer_id').write.parquet('s3://x/')\n"),
        Valid(_SETUP + "x = orders.repartition(n)\n"),
        Valid(_SETUP + "x = orders.repartition(1)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in ("repartition", "coalesce"):
            return
        args = positional_args(node)
        n = literal_int(args[0]) if args else None
        if n is None or n <= 1 or not self.ctx.semantic.is_dataframe(node.func.value):
            return
        self.ctx.report(
            self,
            args[0],
            f"a fixed {n} partitions does not follow the data's size",
            help="let adaptive query execution size partitions (repartition by columns only), or compute the count from the input size",
        )
