import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import keyword_arg, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\ncustomers = spark.table('customers')\n"
)


class CrossJoin(PythonRule):
    """
    ## What it does
    Finds joins that pair every row with every row: `crossJoin(...)`,
    `join(other)` without a condition (or with `how="cross"`), and join
    conditions that compare a column with itself (`orders.id == orders.id`,
    `F.col("id") == F.col("id")`), which are always true.

    ## Why is this bad?
    A cartesian product of a million by a million rows is a trillion rows; it
    runs as a `CartesianProduct` or `BroadcastNestedLoopJoin`, the slowest
    joins Spark has. A condition that compares a column with itself usually
    means both sides were written with the same DataFrame's column by mistake.

    ## Example
    ```python
    pairs = orders.join(customers)
    ```

    ## Use instead
    ```python
    pairs = orders.join(customers, "customer_id")
    ```

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `DataFrame.crossJoin`, `DataFrame.join`.
    """

    code = "SPK403"
    name = "cross-join"
    summary = "a join that pairs every row with every row"
    default_reason = ("a join pairing every row with every row makes a trillion rows of a million by a million, "
                      "in Spark's slowest joins; a condition comparing a column with itself is always true")
    triggers = ("join", "crossJoin")
    doc_setup = 'orders = spark.table("orders")\ncustomers = spark.table("customers")\n'

    invalid = (
        Invalid(_SETUP + "pairs = orders.crossJoin(customers)\n"),
        Invalid(_SETUP + "pairs = orders.join(customers)\n"),
        Invalid(_SETUP + "pairs = orders.join(customers, how='cross')\n"),
        Invalid(_SETUP + "def pairs(lookup):\n    return orders.join(lookup, None, 'cross')\n"),
        Invalid(_SETUP + "pairs = orders.join(customers, None, 'left')\n"),
        Invalid(_SETUP + "pairs = orders.join(customers, orders.customer_id == orders.customer_id)\n"),
        Invalid(_SETUP + "pairs = orders.join(customers, F.col('id') == F.col('id'), 'left')\n"),
    )
    valid = (
        Valid(_SETUP + "pairs = orders.join(customers, 'customer_id')\n"),
        Valid(_SETUP + "pairs = orders.join(customers, orders.customer_id == customers.id, 'left')\n"),
        Valid(_SETUP + "pairs = orders.join(customers, on=['customer_id'], how='inner')\n"),
        Valid("path = os.path.join(base)\nwords = ' '.join(parts)\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("join", "crossJoin"):
            return
        semantic = self.ctx.semantic
        if not semantic.is_dataframe(node.func.value):
            return
        args = positional_args(node)
        if method == "crossJoin":
            self._report(node, "`crossJoin` pairs every row with every row of the other side")
            return
        if not args:
            return
        on = args[1] if len(args) > 1 else keyword_arg(node, "on")
        how = args[2] if len(args) > 2 else keyword_arg(node, "how")
        if isinstance(how, cst.SimpleString) and how.evaluated_value == "cross":
            # `how=` (or a third argument) is no `str.join`: the receiver being a DataFrame is enough
            self._report(node, "`join(..., how='cross')` pairs every row with every row")
            return
        if not semantic.is_dataframe(args[0]):
            return  # `x.join(y)` alone is also `str.join`: both sides must be known
        if on is None or (isinstance(on, cst.Name) and on.value == "None"):
            self._report(node, "`join` without a condition is a cartesian product: every row with every row")
            return
        if isinstance(on, cst.Comparison) and len(on.comparisons) == 1 and isinstance(on.comparisons[0].operator, cst.Equal):
            left, right = self.ctx.code_for(on.left).strip(), self.ctx.code_for(on.comparisons[0].comparator).strip()
            if left == right:
                self._report(on, f"the join condition `{left} == {right}` compares a column with itself: always true")

    def _report(self, node, message: str) -> None:
        self.ctx.report(self, node, message, help="join on a key of both sides; if a cartesian product is intended, "
                        "keep one side small and broadcast it")
