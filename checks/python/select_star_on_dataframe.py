import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class SelectStarOnDataframe(PythonRule):
    """
    ## What it does
    Finds `df.select("*")` (or `select(F.col("*"))`) with nothing else in
    it, on a DataFrame. `select("*", F.col(...).alias(...))`, the idiom for
    adding columns, is not reported; nor is SQL text (`SELECT *` in SQL is
    SPK501's).

    Preview (`--preview`): on its own `select("*")` costs nothing, so this
    is about reading the code, except before `insertInto`, where it hides a
    real hazard.

    ## Why is this bad?
    Unlike `SELECT *` over a table in SQL, `select("*")` on a DataFrame is not
    what decides which columns are read: Catalyst prunes columns by what the
    rest of the plan uses, with or without it. So it is a projection in name
    only: it suggests the columns were chosen when they were not, and a
    column added upstream flows through it into whatever comes next. Before
    `write.insertInto(...)`, which matches columns by position, one new
    upstream column shifts every column after it into the wrong place of
    the table (or fails the write), silently if the types still fit.

    ## Example
    ```python
    orders.select("*").write.insertInto("mart.orders")
    ```

    ## Use instead
    ```python
    orders.select("order_id", "customer_id", "amount").write.insertInto("mart.orders")
    ```

    ## Fix safety
    No fix: the columns a job needs are the author's choice (removing the
    call keeps the plan as it is, and says so).

    ## References
    - PySpark API: `DataFrame.select`, `DataFrameWriter.insertInto` ("it
      requires that the schema of the DataFrame is the same as the schema of
      the table").
    """

    code = "SPK412"
    name = "select-star-on-dataframe"
    summary = '`df.select("*")` chooses no columns: it prunes nothing and lets upstream columns through'
    preview = True
    triggers = ("select",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.select('*').write.insertInto('mart.orders')\n"),
        Invalid(_SETUP + "counts = orders.select('*').groupBy('status').count()\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef copy(df):\n"
                "    return df.select(F.col('*')).withColumn('x', F.lit(1))\n"),
    )
    valid = (
        Valid(_SETUP + "from pyspark.sql import functions as F\n"
              "more = orders.select('*', F.col('amount').alias('gross'))\n"),
        Valid(_SETUP + "few = orders.select('order_id', 'amount')\n"),
        Valid(_SETUP + "rows = spark.sql('SELECT order_id FROM orders')\n"),
        Valid("import polars as pl\nframe = pl.DataFrame()\nsame = frame.select('*')\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "select":
            return
        args = positional_args(node)
        if len(args) != 1 or len(node.args) != 1 or not self._star(args[0]):
            return
        if not self.ctx.semantic.is_dataframe(node.func.value):
            return
        if self._feeds_insert_into(node):
            message = (f"`select(\"*\")` on `{shown(self.ctx, node.func.value)}` before `insertInto`, which matches "
                       "columns by position: a column added upstream shifts the columns after it")
        else:
            message = (f"`select(\"*\")` on `{shown(self.ctx, node.func.value)}` selects nothing: Spark prunes by the "
                       "columns used later anyway, and columns added upstream pass through")
        self.ctx.report(self, node, message, help="name the columns the job needs, or drop the call",
                        start=node.func.attr)

    def _star(self, arg) -> bool:
        if literal_string(arg) == "*":
            return True
        if isinstance(arg, cst.Call) and self.ctx.semantic.is_function(arg.func, {"col", "column"}):
            inner = positional_args(arg)
            return len(inner) == 1 and literal_string(inner[0]) == "*"
        return False

    def _feeds_insert_into(self, node) -> bool:
        current = node
        while True:
            parent = self.ctx.parent_of(current)
            if isinstance(parent, cst.Attribute) and parent.value is current:
                if parent.attr.value == "insertInto":
                    return True
                current = parent
            elif isinstance(parent, cst.Call) and parent.func is current:
                current = parent
            else:
                return False
