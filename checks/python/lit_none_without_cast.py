import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)


class LitNoneWithoutCast(PythonRule):
    """
    ## What it does
    Finds a column made of `F.lit(None)` with no `.cast(...)`: the value of
    `withColumn(name, F.lit(None))`, or an item of `select(...)`
    (`F.lit(None).alias("x")`). Inside `F.when`, `F.coalesce` and other
    expressions the other operands give it a type, and it is not reported.

    ## Why is this bad?
    `F.lit(None)` has Spark's `void` (NullType) type. Writing it to Parquet,
    ORC or Delta fails (`Parquet data source does not support void data
    type`), a `union` with a typed column fails or widens in surprising ways,
    and downstream readers see a column with no type.

    ## Example
    ```python
    orders = orders.withColumn("discount", F.lit(None))
    ```

    ## Use instead
    ```python
    orders = orders.withColumn("discount", F.lit(None).cast("decimal(10,2)"))
    ```

    ## Fix safety
    No fix yet; adding the cast needs the column's intended type, which a fix
    can only take from context where it is certain.

    ## References
    - Spark SQL data types: `NullType`; Parquet data source limitations.
    """

    code = "SPK305"
    name = "lit-none-without-cast"
    summary = "`F.lit(None)` without a cast makes a column of type void"
    triggers = ("lit",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders = orders.withColumn('discount', F.lit(None))\n"),
        Invalid(_SETUP + "out = orders.select('id', F.lit(None).alias('note'))\n"),
    )
    valid = (
        Valid(_SETUP + "orders = orders.withColumn('discount', F.lit(None).cast('double'))\n"),
        Valid(_SETUP + "c = F.when(F.col('x') > 0, F.col('x')).otherwise(F.lit(None))\n"),
        Valid(_SETUP + "c = F.coalesce(F.col('x'), F.lit(None))\n"),
        Valid(_SETUP + "orders = orders.withColumn('source', F.lit('crm'))\n"),
    )

    def _is_lit_none(self, node) -> bool:
        if not isinstance(node, cst.Call) or not self.ctx.semantic.is_function(node.func, {"lit"}):
            return False
        args = positional_args(node)
        return len(args) == 1 and isinstance(args[0], cst.Name) and args[0].value == "None"

    def _unwrap_alias(self, node):
        if isinstance(node, cst.Call) and method_name(node) in ("alias", "name") and isinstance(node.func, cst.Attribute):
            return node.func.value
        return node

    def _report(self, node) -> None:
        self.ctx.report(
            self,
            node,
            "`F.lit(None)` without a cast makes a column of type void: writes to Parquet fail and unions break",
            help="give it its type: `F.lit(None).cast('string')` (or the column's real type)",
        )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in ("withColumn", "select"):
            return
        receiver = self.ctx.semantic.infer(node.func.value)
        if receiver is None or receiver.kind != DATAFRAME:
            return
        values = [node.args[1].value] if method == "withColumn" and len(node.args) == 2 else (
            [a.value for a in node.args] if method == "select" else [])
        for value in values:
            inner = self._unwrap_alias(value)
            if self._is_lit_none(inner):
                self._report(inner)
