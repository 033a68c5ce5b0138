import libcst as cst

from checks.python._driver import shown
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, method_name, positional_args

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


class SelectStarOnDataframe(PythonRule):
    """
    ## What it does
    Finds `df.select("*")` (or `select(F.col("*"))`) with nothing else in
    it, on a DataFrame, whose result is written (`.write...`, `writeTo`,
    `writeStream` in the same chain). `select("*", F.col(...).alias(...))`,
    the idiom for adding columns, says "every column, plus these" on
    purpose and is reported only before `insertInto`, where the positions
    matter; nor is SQL text (`SELECT *` in SQL is SPK501's); nor a star
    that is only looked at, counted or transformed further
    (`df.select("*").show()`, `df.select("*").groupBy("k").count()`): there
    it is a no-op that costs nothing, since Catalyst prunes columns by what
    the plan uses.

    Preview (`--preview`): the star before a write only says what the write
    does anyway, except before `insertInto`, where it hides a real hazard.

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
    summary = '`df.select("*")` before a write chooses no columns: whatever upstream adds is written'
    preview = True
    triggers = ("select",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders.select('*').write.insertInto('mart.orders')\n"),
        Invalid("from pyspark.sql import functions as F\n\ndef copy(df):\n"
                "    df.select(F.col('*')).write.mode('overwrite').saveAsTable('mart.orders_copy')\n"),
        Invalid(_SETUP + "from pyspark.sql import functions as F\n"
                "orders.select('*', F.current_date().alias('load_date')).write.insertInto('mart.orders')\n"),
    )
    valid = (
        Valid(_SETUP + "from pyspark.sql import functions as F\n"
              "more = orders.select('*', F.col('amount').alias('gross'))\n"),
        Valid(_SETUP + "few = orders.select('order_id', 'amount')\n"),
        Valid(_SETUP + "from pyspark.sql import functions as F\n"
              "orders.select('*', F.current_date().alias('load_date')).write.saveAsTable('mart.orders_log')\n"),
        Valid(_SETUP + "rows = spark.sql('SELECT order_id FROM orders')\n"),
        Valid("import polars as pl\nframe = pl.DataFrame()\nsame = frame.select('*')\n"),
        # looked at, counted or transformed further: a no-op, Catalyst prunes by later use
        Valid(_SETUP + "orders.select('*').show(10)\nn = orders.select('*').count()\n"),
        Valid(_SETUP + "counts = orders.select('*').groupBy('status').count()\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "select":
            return
        args = positional_args(node)
        if not args or len(node.args) != len(args) or not any(self._star(a) for a in args):
            return
        if not self.ctx.semantic.is_dataframe(node.func.value):
            return
        written = self._write_in_chain(node)
        if written is None or len(args) > 1 and written != "insertInto":
            # looked at or transformed further: a no-op that costs nothing; with added columns, "every column,
            # plus these" is meant, and only a write by position makes it a hazard
            return
        call = 'select("*")' if len(args) == 1 else 'select("*", ...)'
        if written == "insertInto":
            message = (f"`{call}` on `{shown(self.ctx, node.func.value)}` before `insertInto`, which matches "
                       "columns by position: a column added upstream shifts the columns after it")
        else:
            message = (f"`{call}` on `{shown(self.ctx, node.func.value)}` before a write chooses no columns: "
                       "whatever upstream adds is written too")
        self.ctx.report(self, node, message, help="name the columns the job needs, or drop the call",
                        start=node.func.attr)

    def _star(self, arg) -> bool:
        if literal_string(arg) == "*":
            return True
        if isinstance(arg, cst.Call) and self.ctx.semantic.is_function(arg.func, {"col", "column"}):
            inner = positional_args(arg)
            return len(inner) == 1 and literal_string(inner[0]) == "*"
        return False

    def _write_in_chain(self, node):
        """"insertInto" when the chain the select starts goes on to `insertInto`, "write" when it goes on to
        another write (`.write`, `.writeTo`, `.writeStream`), else None."""
        current, writes = node, False
        while True:
            parent = self.ctx.parent_of(current)
            if isinstance(parent, cst.Attribute) and parent.value is current:
                if parent.attr.value == "insertInto":
                    return "insertInto"
                writes = writes or parent.attr.value in ("write", "writeTo", "writeStream")
                current = parent
            elif isinstance(parent, cst.Call) and parent.func is current:
                current = parent
            else:
                return "write" if writes else None
