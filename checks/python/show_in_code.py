import re

import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import BOUNDED, method_name

# A branch taken only when someone asked for output: `if debug:`, `if self._debugger_mode:`, `if args.verbose:`,
# `if logger.isEnabledFor(logging.DEBUG):`.
_DEBUG_TEST = re.compile(r"debug|verbose", re.IGNORECASE)
# A function whose job is to show something: `print_dataframe_with_debugger`, `show_sample`, `display_report`.
_DISPLAY_FUNCTION = re.compile(r"^_*(?:print|show|display|debug|peek|preview|inspect|describe|dump)"
                               r"|debug", re.IGNORECASE)

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class ShowInCode(PythonRule):
    """
    ## What it does
    Finds `df.show()`, `df.display()` and the notebook builtin `display(df)`
    in job code: Python modules, not notebooks (Jupyter, Databricks or Fabric
    sources), where showing a table is how one looks at data, and not test
    modules. It stays quiet where printing is the point: inside a branch
    taken only on request (`if debug:`, `if self.verbose:`,
    `if logger.isEnabledFor(logging.DEBUG):`), inside a function whose name
    says it shows something (`print_*`, `show_*`, `display_*`, `*debug*`),
    and on rows made on the driver (`spark.createDataFrame([...])`).

    Off by default, like ruff's T201 for `print`: select it by its code
    (`--select SPK411`). `show()` prints 20 rows and computes only what they
    need (often one partition), so in hand-judged samples of real code most
    of its findings were demos and examples printing a few rows on purpose.
    `show(n=df.count())`, which brings every row to the driver, is SPK101's
    (collect-on-unbounded-dataframe) and on by default.

    `printSchema()` and `explain()` are not reported: neither is an action.
    They print the analysed schema or the query plans, which the driver
    computes without running a Spark job, so they cost the cluster nothing
    (in a job's log, a plan is often what one wants to find after a slow
    run).

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
        Invalid(_SETUP + "def load(df):\n    df = df.withColumn('day', df.ts.cast('date'))\n    df.show()\n"
                "    df.write.parquet('s3://x/')\n"),
        Invalid(_SETUP + "debug = True\nif debug:\n    pass\nelse:\n    orders.show()\n"),
        Invalid(_SETUP + "orders.display()\n"),
        Invalid(_SETUP + "display(orders.groupBy('day').count())\n"),
        # a frame nothing in the file binds (another notebook's, run with `%run`): `display` is Databricks' own member
        Invalid("from pyspark.sql import SparkSession\n\ndf.display()\n"),
    )
    valid = (
        Valid(_SETUP + "orders.write.parquet('s3://x/')\n"),
        Valid("menu.show()\n"),
        Valid("from pyspark.sql import SparkSession\nimport polars as pl\n\ndf.display()\n"),
        Valid("import pandas as pd\nfrom IPython.display import display\nfrom pyspark.sql import SparkSession\n"
              "display(pd.DataFrame())\n"),
        Valid("# Databricks notebook source\n" + _SETUP + "display(orders)\n", path="look.py"),
        Valid("# Fabric notebook source\n\n# CELL ********************\n\n" + _SETUP + "orders.show()\n",
              path="look.py"),
        Valid(_SETUP + "debug = True\nif debug:\n    orders.show()\n"),
        Valid(_SETUP + "import logging\nlog = logging.getLogger(__name__)\n"
              "if log.isEnabledFor(logging.DEBUG):\n    orders.show(5, truncate=False)\n"),
        Valid(_SETUP + "def print_sample(df):\n    df.show(truncate=False)\n\nprint_sample(orders)\n"),
        Valid(_SETUP + "demo = spark.createDataFrame([('Alice', 1), ('Bob', 2)], ['name', 'age'])\ndemo.show()\n"),
        Valid(_SETUP + "def test_orders():\n    orders.show()\n", path="tests/test_orders.py"),
        # no Spark job: the schema and the plans are the driver's
        Valid(_SETUP + "debug = False\norders.printSchema()\norders.explain()\nif debug:\n    orders.show()\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.unit.document.is_notebook:
            return
        method = method_name(node)
        if method in ("show", "display"):
            shown = node.func.value
        elif isinstance(node.func, cst.Name) and node.func.value == "display" and node.args \
                and self.ctx.semantic.lookup("display") is None:
            shown = node.args[0].value  # the notebook's builtin `display(df)`, undefined outside one
        else:
            return
        if not self.ctx.semantic.is_dataframe(shown) or self._on_request(node):
            return
        value = self.ctx.semantic.infer(shown)
        if value is not None and value.bound == BOUNDED:
            return  # rows made on the driver: nothing to compute
        if method == "show":
            message = "`show()` runs a Spark job to print a table to the log"
        else:
            message = ("`display()` renders a DataFrame for a notebook: in a job it runs a Spark job for output "
                       "nobody sees (and `display` is undefined outside Databricks)")
        self.ctx.report(self, node, message, help="remove it, or log a count or a sample you need",
                        start=node.func.attr if method else node.func)

    def _on_request(self, node) -> bool:
        """Inside an `if debug:` body or a function whose name says it shows things."""
        path = self.ctx.ancestors
        for i in range(len(path) - 1, 0, -1):
            outer, inner = path[i - 1], path[i]
            if isinstance(outer, cst.If) and inner is outer.body and _DEBUG_TEST.search(self.ctx.code_for(outer.test)):
                return True
            if isinstance(outer, cst.FunctionDef) and _DISPLAY_FUNCTION.search(outer.name.value):
                return True
        return False
