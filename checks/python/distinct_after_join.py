import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
    "orders = spark.table('orders')\ncustomers = spark.table('customers')\n"
)


class DistinctAfterJoin(PythonRule):
    """
    ## What it does
    Finds `distinct()` or `dropDuplicates()` (without a column subset) applied
    directly to the result of a `join`.

    ## Why is this bad?
    A join that creates duplicates is a join on a key that is not unique on one
    side: a fan-out. `distinct()` hides the symptom at the price of a second
    full shuffle of the (already multiplied) join output, and the numbers
    downstream are still wrong wherever the duplicates were not exact. Fix the
    key, or deduplicate the side that should be unique before the join.

    ## Example
    ```python
    enriched = orders.join(customers, "customer_id").distinct()
    ```

    ## Use instead
    ```python
    enriched = orders.join(customers.dropDuplicates(["customer_id"]), "customer_id")
    ```

    ## Fix safety
    No fix.

    ## References
    - Spark SQL guide, "Performance Tuning" (shuffles).
    """

    code = "SPK407"
    name = "distinct-after-join"
    summary = "`distinct()` right after a join hides a fan-out with another shuffle"
    default_reason = ("`distinct()` right after a join hides a fan-out behind a second full shuffle of "
                      "the multiplied rows, and the numbers stay wrong where the duplicates were not exact")
    triggers = ("distinct", "dropDuplicates", "drop_duplicates")
    doc_setup = 'orders = spark.table("orders")\ncustomers = spark.table("customers")\n'

    invalid = (
        Invalid(_SETUP + "enriched = orders.join(customers, 'customer_id').distinct()\n"),
        Invalid(_SETUP + "enriched = orders.join(customers, 'customer_id', 'left').dropDuplicates()\n"),
    )
    valid = (
        Valid(_SETUP + "enriched = orders.join(customers.dropDuplicates(['customer_id']), 'customer_id')\n"),
        Valid(_SETUP + "ids = orders.select('customer_id').distinct()\n"),
        Valid(_SETUP + "latest = orders.join(customers, 'customer_id').dropDuplicates(['order_id'])\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("distinct", "dropDuplicates", "drop_duplicates") or node.args:
            return
        inner = node.func.value
        if not (isinstance(inner, cst.Call) and method_name(inner) == "join"):
            return
        if not self.ctx.semantic.is_dataframe(inner):
            return
        self.ctx.report(
            self,
            node,
            f"`{method}()` right after a join: the join fans out, and deduplicating costs another full shuffle",
            help="join on a key that is unique on one side, or deduplicate that side before the join",
            start=node.func.attr,
        )
