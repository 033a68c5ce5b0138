import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import method_name

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class ShowInCode(PythonRule):
    """
    ## What it does
    Finds `df.show()`, `df.display()` and the notebook builtin `display(df)`
    in Python modules (not notebooks, where it is how one looks at data). Off
    by default, like ruff's T201 for `print`: select it by its code
    (`--select SPK411`).

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
    triggers = ("show", "display")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.show()\n"),
        Invalid(_SETUP + "orders.display()\n"),
        Invalid(_SETUP + "display(orders.groupBy('day').count())\n"),
    )
    valid = (
        Valid(_SETUP + "orders.write.parquet('s3://x/')\n"),
        Valid("menu.show()\n"),
        Valid("import pandas as pd\nfrom IPython.display import display\nfrom pyspark.sql import SparkSession\n"
              "display(pd.DataFrame())\n"),
        Valid("# Databricks notebook source\n" + _SETUP + "display(orders)\n", path="look.py"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.unit.document.kind in ("ipynb", "databricks"):
            return
        method = method_name(node)
        if method in ("show", "display"):
            shown = node.func.value
        elif isinstance(node.func, cst.Name) and node.func.value == "display" and node.args \
                and self.ctx.semantic.lookup("display") is None:
            shown = node.args[0].value  # the notebook's builtin `display(df)`, undefined outside one
        else:
            return
        if not self.ctx.semantic.is_dataframe(shown):
            return
        if method == "show":
            message = "`show()` runs a Spark job to print a table to the log"
        else:
            message = ("`display()` renders a DataFrame for a notebook: in a job it runs a Spark job for output "
                       "nobody sees (and `display` is undefined outside Databricks)")
        self.ctx.report(self, node, message, help="remove it, or log a count or a sample you need",
                        start=node.func.attr if method else node.func)
