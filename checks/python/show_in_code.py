import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class ShowInCode(PythonRule):
    """
    ## What it does
    Finds `df.show()` in Python modules (not notebooks, where it is how one
    looks at data). Off by default: select it by its code (`--select SPK411`).

    ## Why is this bad?
    `show()` is an action: in a scheduled job it runs a Spark job whose only
    output is a log nobody reads, often left over from debugging, sometimes
    on a DataFrame that is then recomputed for the real write.

    ## Example
    ```python
    orders.show()
    orders.write.parquet("s3://x/")
    ```

    ## Use instead
    ```python
    orders.write.parquet("s3://x/")
    ```

    ## Fix safety
    No fix.

    ## References
    - PySpark API: `DataFrame.show`.
    """

    code = "SPK411"
    name = "show-in-code"
    summary = "`show()` left in a job runs a Spark job for a log line"
    explicit = True
    skip_in_tests = True
    triggers = ("show",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (Invalid(_SETUP + "orders.show()\n"),)
    valid = (Valid(_SETUP + "orders.write.parquet('s3://x/')\n"), Valid("menu.show()\n"))

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "show" or self.ctx.unit.document.kind in ("ipynb", "databricks"):
            return
        if not self.ctx.semantic.is_dataframe(node.func.value):
            return
        self.ctx.report(self, node, "`show()` runs a Spark job to print a table to the log",
                        help="remove it, or log a count or a sample you need", start=node.func.attr)
