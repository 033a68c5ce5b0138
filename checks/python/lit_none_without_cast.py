import libcst as cst

from checks.python._fixes import replace, source
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, Schema, literal_string, method_name, positional_args

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
    Unsafe (the output's schema changes, from a void column to the declared
    type, which is the point), and offered only where the type is certain:
    `withColumn(name, F.lit(None))` replacing a column whose type the file declares in a DDL
    schema (`spark.read.schema("id BIGINT, discount DECIMAL(10,2)")`) gets
    `.cast("DECIMAL(10,2)")`. The values stay null; the column keeps the type
    it had instead of becoming void.

    ## References
    - Spark SQL data types: `NullType`; Parquet data source limitations.
    """

    code = "SPK305"
    name = "lit-none-without-cast"
    summary = "`F.lit(None)` without a cast makes a column of type void"
    default_reason = ("an uncast `F.lit(None)` column has the void type: a Parquet, ORC or Delta write "
                      "fails and a union fails or widens; inside typed expressions it is not reported")
    triggers = ("lit",)
    fix = "unsafe"
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders = orders.withColumn('discount', F.lit(None))\n"),
        Invalid(_SETUP + "o = spark.read.schema('id BIGINT, discount DECIMAL(10,2)').parquet('/o')\n"
                "o = o.filter('id > 0').withColumn('discount', F.lit(None))\n",
                unsafe=True, fixed=_SETUP + "o = spark.read.schema('id BIGINT, discount DECIMAL(10,2)').parquet('/o')\n"
                "o = o.filter('id > 0').withColumn('discount', F.lit(None).cast('DECIMAL(10,2)'))\n"),
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

    def _report(self, node, declared=None) -> None:
        fix = None
        if declared is not None:
            fix = replace(node, f"{source(self.ctx, node)}.cast({declared!r})", f"Cast to {declared}", safe=False)
        self.ctx.report(
            self,
            node,
            "`F.lit(None)` without a cast makes a column of type void: writes to Parquet fail and unions break",
            help="give it its type: `F.lit(None).cast('string')` (or the column's real type)",
            fix=fix,
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
        declared = None
        if method == "withColumn" and isinstance(receiver.detail, Schema):
            # Replacing a column whose DDL type the file declares: keep that type.
            declared = receiver.detail.raw.get(literal_string(node.args[0].value) or "")
        for value in values:
            inner = self._unwrap_alias(value)
            if self._is_lit_none(inner):
                self._report(inner, declared)
