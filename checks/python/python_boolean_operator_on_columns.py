import libcst as cst

from linter.registry import Invalid, PythonRule, Valid

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)


class PythonBooleanOperatorOnColumns(PythonRule):
    """
    ## What it does
    Finds Python's `and`, `or` and `not` applied to Columns, and chained
    comparisons with a Column (`0 < F.col("x") < 10`).

    ## Why is this bad?
    Python asks each operand for its truth value, and a Column has none:
    `F.col("a") > 1 and F.col("b") < 2` raises `ValueError: Cannot convert
    column into bool: please use '&' for 'and', '|' for 'or', '~' for 'not'`
    when the job runs, after whatever ran before it. A chained comparison
    expands to an `and` and fails the same way.

    ## Example
    ```python
    big = orders.filter(F.col("amount") > 100 and F.col("country") == "DE")
    ```

    ## Use instead
    ```python
    big = orders.filter((F.col("amount") > 100) & (F.col("country") == "DE"))
    ```

    ## Fix safety
    No fix yet; rewriting to `&`, `|`, `~` with the needed parentheses is safe
    and will be offered by `--fix`.

    ## References
    - PySpark API: `Column` ("Cannot convert column into bool").
    """

    code = "SPK303"
    name = "python-boolean-operator-on-columns"
    summary = "`and` / `or` / `not` or a chained comparison on Columns fails at run time"
    severity = "error"
    triggers = ("and", "or", "not", "<", ">")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "big = orders.filter(F.col('amount') > 100 and F.col('country') == 'DE')\n"),
        Invalid(_SETUP + "x = orders.where(orders.a.isNull() or orders.b.isNull())\n"),
        Invalid(_SETUP + "x = orders.filter(not F.col('active'))\n"),
        Invalid(_SETUP + "x = orders.filter(0 < F.col('amount') < 10)\n"),
    )
    valid = (
        Valid(_SETUP + "x = orders.filter((F.col('amount') > 100) & (F.col('country') == 'DE'))\n"),
        Valid(_SETUP + "x = orders.filter(~F.col('active'))\n"),
        Valid("a, b = 1, 2\nok = a > 0 and b > 0\nnone = not a\nc = 0 < a < 10\n"),
        Valid(_SETUP + "cols = orders.columns\nok = 'a' in cols and not cols\n"),
        Valid(
            "from typing import Optional\nfrom pyspark.sql import Column\n"
            "def join(on: Optional[Column] = None, how=None):\n"
            "    if on is None and how is None:\n        return 1\n"
            "    assert on is not None and isinstance(on, Column)\n"
        ),
    )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        semantic = self.ctx.semantic
        if semantic.is_column(node.left) or semantic.is_column(node.right):
            word = "and" if isinstance(node.operator, cst.And) else "or"
            symbol = "&" if word == "and" else "|"
            self.ctx.report(
                self,
                node,
                f"Python's `{word}` on Columns raises `ValueError: Cannot convert column into bool` at run time",
                help=f"use `{symbol}` and parenthesise each comparison: `(a > 1) {symbol} (b < 2)`",
            )

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and self.ctx.semantic.is_column(node.expression):
            self.ctx.report(
                self,
                node,
                "Python's `not` on a Column raises `ValueError: Cannot convert column into bool` at run time",
                help="use `~` (with parentheses around a comparison: `~(a > 1)`)",
            )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) < 2:
            return
        semantic = self.ctx.semantic
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        if any(isinstance(o, cst.BinaryOperation) and isinstance(o.operator, (cst.BitAnd, cst.BitOr)) for o in operands):
            return  # `a > 1 & b < 2`: SPK304 (bitwise-operator-precedence) explains it better
        if any(semantic.is_column(o) for o in operands):
            self.ctx.report(
                self,
                node,
                "a chained comparison on a Column expands to `and`, which raises `ValueError: Cannot convert "
                "column into bool` at run time",
                help="use `col.between(low, high)` or `(low < col) & (col < high)`",
            )
