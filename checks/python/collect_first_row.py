import libcst as cst

from checks.python._driver import shown
from linter.diagnostics import UNSAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, UNBOUNDED, literal_int, method_name

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)


def first_row_index(ctx, call: cst.Call):
    """The ``[0]`` subscript applied to ``call`` (``x.collect()[0]``), or None."""
    parent = ctx.parent_of(call)
    if not isinstance(parent, cst.Subscript) or parent.value is not call or len(parent.slice) != 1:
        return None
    index = parent.slice[0].slice
    if isinstance(index, cst.Index) and literal_int(index.value) == 0:
        return parent
    return None


class CollectFirstRow(PythonRule):
    """
    ## What it does
    Finds `df.collect()[0]` (and `collect()[0][0]`) on a DataFrame whose rows
    nothing bounds, or that holds more than one row (`limit(1000)`). A
    DataFrame known to hold one row (a global aggregate such as
    `df.agg(F.max("x"))`, or `limit(1)`) is not reported:
    `df.agg(F.max("x")).collect()[0][0]` is the idiomatic way to read a scalar;
    nor are rows made on the driver, or a frame whose size nothing in the file
    says (what an ML transformer nobody saw fitted returns, a frame assigned
    differently in two branches).

    SPK101 (collect-on-unbounded-dataframe) leaves these calls to this rule.

    ## Why is this bad?
    `collect()` ships every row to the driver to keep the first one: on a real
    table that is a driver OutOfMemoryError for one row. `first()` (or
    `head()`) runs a job that stops after one row.

    ## Example
    ```python
    latest = orders.orderBy(F.desc("ts")).collect()[0]
    ```

    ## Use instead
    ```python
    latest = orders.orderBy(F.desc("ts")).first()
    ```

    ## Fix safety
    Unsafe: `first()` returns `None` on an empty DataFrame where
    `collect()[0]` raises `IndexError`, so code that relied on the exception
    (or that goes on to index the row) behaves differently for empty inputs.
    On non-empty inputs the row is the same.

    ## References
    - PySpark API: `DataFrame.first`, `DataFrame.head`.
    """

    code = "SPK105"
    skip_in_tests = True
    name = "collect-first-row"
    summary = "`collect()[0]` brings every row to the driver to keep one"
    default_reason = ("`collect()[0]` ships every row to the driver to keep one, a driver OutOfMemoryError "
                      "on a real table; frames known to hold one row (a global aggregate) are left alone")
    triggers = ("collect",)
    fix = "unsafe"
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "latest = orders.orderBy(F.desc('ts')).collect()[0]\n", unsafe=True,
                fixed=_SETUP + "latest = orders.orderBy(F.desc('ts')).first()\n"),
        Invalid(_SETUP + "top_id = orders.select('id').collect()[0][0]\n", unsafe=True,
                fixed=_SETUP + "top_id = orders.select('id').first()[0]\n"),
        Invalid(_SETUP + "x = orders.limit(1000).collect()[0]\n"),
    )
    valid = (
        # a global aggregate written as SQL text: one row
        Valid(_SETUP + "median = orders.select(F.expr('percentile_approx(ms, 0.5)').alias('median')).collect()[0]['median']\n"),
        Valid(_SETUP + "def mad(df, m):\n    spread = F.expr(f'percentile_approx(abs(ms - {m}), 0.5)')\n"
              "    return df.select(spread.alias('mad')).collect()[0]['mad']\n"),
        # a wrapper of `spark.sql` reads as `spark.sql` of its argument: a SELECT without FROM is one row
        Valid(_SETUP + "from pyspark.sql import DataFrame\n\ndef run_sql(query: str) -> DataFrame:\n"
              "    return spark.sql(query)\n\nuser = run_sql('SELECT current_user() AS who').collect()[0].who\n"),
        Valid(_SETUP + "mx = orders.agg(F.max('amount')).collect()[0][0]\n"),
        Valid(_SETUP + "one = orders.limit(1).collect()[0]\n"),
        Valid(_SETUP + "row = orders.first()\n"),
        Valid(_SETUP + "rows = orders.limit(5).collect()\nsecond = rows[1]\n"),
        Valid("rows = cursor.collect()[0]\n"),
        Valid(_SETUP + "stats = ComputeModelStatistics(scoredLabelsCol='p').transform(orders)\n"
              "auc = stats.select('AUC').collect()[0][0]\n"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "collect" or node.args:
            return
        subscript = first_row_index(self.ctx, node)
        if subscript is None:
            return
        value = self.ctx.semantic.infer(node.func.value)
        if value is None or value.kind != DATAFRAME:
            return
        if value.bound != UNBOUNDED and not (isinstance(value.bound, int) and value.bound > 1):
            return  # one row, rows made on the driver, or a frame whose rows nothing here says (an ML statistic)
        name = shown(self.ctx, node.func.value)
        self.ctx.report(
            self,
            subscript,
            f"`{name}.collect()[0]` brings every row of `{name}` to the driver to keep the first",
            help=f"use `{name}.first()` (None when empty) or `{name}.head()`",
            start=node.func.attr,
            # Only `collect()[0]` is rewritten: the receiver keeps its own text (a copy
            # regenerated from libcst loses the indentation of its continuation lines).
            fix=Fix("Use `first()`", (NodeEdit(subscript, "first()", start_node=node.func.attr),), UNSAFE),
        )
