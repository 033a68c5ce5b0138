import libcst as cst

from linter.registry import Invalid, PythonRule, Valid

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)


def _bitwise(node) -> bool:
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr)) and not node.lpar


class BitwiseOperatorPrecedence(PythonRule):
    """
    ## What it does
    Finds comparisons of Columns combined with `&` or `|` without
    parentheses: `F.col("a") > 1 & F.col("b") < 2`.

    ## Why is this bad?
    In Python `&` and `|` bind more tightly than `>`, `==` and friends, so the
    expression above means `F.col("a") > (1 & F.col("b")) < 2`: a chained
    comparison, which fails with `Cannot convert column into bool`, or, in
    other shapes (`F.col("a") == 1 | F.col("b") == 2`), quietly computes
    something else.

    ## Example
    ```python
    x = orders.filter(F.col("amount") > 100 & F.col("country") == "DE")
    ```

    ## Use instead
    ```python
    x = orders.filter((F.col("amount") > 100) & (F.col("country") == "DE"))
    ```

    ## Fix safety
    No fix yet; adding the parentheses is safe and will be offered by `--fix`.

    ## References
    - Python language reference, "Operator precedence".
    """

    code = "SPK304"
    name = "bitwise-operator-precedence"
    summary = "`a > 1 & b < 2` compares with `1 & b`: parenthesise each comparison"
    severity = "error"
    triggers = ("&", "|")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "x = orders.filter(F.col('amount') > 100 & F.col('country') == 'DE')\n"),
        Invalid(_SETUP + "x = orders.where(orders.a == 1 | orders.b == 2)\n"),
    )
    valid = (
        Valid(_SETUP + "x = orders.filter((F.col('amount') > 100) & (F.col('country') == 'DE'))\n"),
        Valid("flags = 3\nok = flags & 1 == 1\n"),
        Valid(_SETUP + "x = orders.filter(F.col('a') & F.col('b'))\n"),
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        bitwise = [o for o in operands if _bitwise(o)]
        if not bitwise:
            return
        semantic = self.ctx.semantic
        parts = [o.left for o in bitwise] + [o.right for o in bitwise] + operands
        if not any(semantic.is_column(p) for p in parts):
            return
        op = "&" if isinstance(bitwise[0].operator, cst.BitAnd) else "|"
        self.ctx.report(
            self,
            node,
            f"`{op}` binds more tightly than the comparisons around it: this compares with "
            f"`{self.ctx.code_for(bitwise[0]).strip()}`",
            help=f"parenthesise each comparison: `(a > 1) {op} (b < 2)`",
        )
