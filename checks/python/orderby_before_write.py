import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class OrderbyBeforeWrite(PythonRule):
    """
    ## What it does
    Finds a global `orderBy` / `sort` immediately followed by `.write`, or by
    an action without a limit (`count()`, `collect()`, `toPandas()`,
    `toLocalIterator()`). Preview rule (`--preview`).

    ## Why is this bad?
    A global sort samples the data to pick range boundaries (an extra job),
    then shuffles every row into ordered ranges. Readers of Parquet, ORC or
    Delta rarely need a total order across files; sorting within each output
    partition (`sortWithinPartitions`) gives files that compress and skip
    just as well, without the range shuffle.

    ## Example
    ```python
    orders.orderBy("customer_id").write.parquet("s3://curated/orders/")
    ```

    ## Use instead
    ```python
    orders.sortWithinPartitions("customer_id").write.parquet("s3://curated/orders/")
    ```

    ## Fix safety
    No fix: a total order may be required by a consumer.

    ## References
    - PySpark API: `DataFrame.sortWithinPartitions`.
    """

    code = "SPK409"
    name = "orderby-before-write"
    summary = "a global sort feeding a write or a limit-less action shuffles all rows into ranges"
    preview = True
    triggers = ("orderBy", "sort")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.orderBy('customer_id').write.parquet('s3://curated/orders/')\n"),
        Invalid(_SETUP + "n = orders.orderBy('amount').count()\n"),
    )
    valid = (
        Valid(_SETUP + "orders.sortWithinPartitions('customer_id').write.parquet('s3://curated/orders/')\n"),
        Valid(_SETUP + "top = orders.orderBy('amount').limit(10)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("count", "collect", "toPandas", "toLocalIterator") or not isinstance(node.func.value, cst.Call):
            return
        sort = node.func.value
        if method_name(sort) not in ("orderBy", "sort") or not self.ctx.semantic.is_dataframe(sort):
            return
        what = "a count does not depend on order" if method == "count" else "every row is sorted and then all shipped to the driver"
        self.ctx.report(
            self,
            sort,
            f"a global `{method_name(sort)}` feeding `{method}()`: {what}",
            help="drop the sort, or bound the result (`orderBy(...).limit(n)`) before the action",
            start=sort.func.attr,
        )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "write" or not isinstance(node.value, cst.Call):
            return
        call = node.value
        if method_name(call) not in ("orderBy", "sort") or not self.ctx.semantic.is_dataframe(call):
            return
        self.ctx.report(
            self,
            call,
            f"a global `{method_name(call)}` before a write: an extra sampling job and a range shuffle of every row",
            help="use `sortWithinPartitions(...)` unless readers need one total order across files",
            start=call.func.attr,
        )
