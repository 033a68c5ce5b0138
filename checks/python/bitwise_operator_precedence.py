import libcst as cst

from checks.python._fixes import replace, source
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
    Unsafe (ruff's definition: a safe fix keeps what the code computes): the
    parentheses give the expression the meaning its layout shows, but as
    written it fails or compares with a bitwise value, and where it runs the
    fix changes which rows the job keeps. Applied with `--unsafe-fixes`.

    ## References
    - Python language reference, "Operator precedence".
    """

    code = "SPK304"
    name = "bitwise-operator-precedence"
    summary = "`a > 1 & b < 2` compares with `1 & b`: parenthesise each comparison"
    default_reason = ("`&` binds tighter than comparisons, so `a > 1 & b < 2` fails with `Cannot "
                      "convert column into bool` or, in other shapes, quietly computes something else")
    severity = "error"
    fix = "unsafe"
    triggers = ("&", "|")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "x = orders.filter(F.col('amount') > 100 & F.col('country') == 'DE')\n",
                unsafe=True, fixed=_SETUP + "x = orders.filter((F.col('amount') > 100) & (F.col('country') == 'DE'))\n"),
        Invalid(_SETUP + "x = orders.where(orders.a == 1 | orders.b == 2)\n",
                unsafe=True, fixed=_SETUP + "x = orders.where((orders.a == 1) | (orders.b == 2))\n"),
        Invalid(_SETUP + "x = orders.where(orders.a > 0 & orders.flag)\n",
                unsafe=True, fixed=_SETUP + "x = orders.where((orders.a > 0) & orders.flag)\n"),
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
            fix=self._fix(node, op),
        )

    def _fix(self, node: cst.Comparison, op: str):
        """`a > 1 & b < 2` (parsed `a > (1 & b) < 2`) -> `(a > 1) & (b < 2)`; `a > 1 & b` -> `(a > 1) & b`."""
        c = node.comparisons
        first = c[0].comparator
        if not _bitwise(first) or any(_bitwise(t.comparator) for t in c[1:]) or len(c) > 2:
            return None
        code = self.ctx.code_for
        left = f"({source(self.ctx, node.left)} {code(c[0].operator).strip()} {source(self.ctx, first.left)})"
        if len(c) == 2:
            right = f"({source(self.ctx, first.right)} {code(c[1].operator).strip()} {source(self.ctx, c[1].comparator)})"
        else:
            right = source(self.ctx, first.right)
        return replace(node, f"{left} {op} {right}", "Parenthesise each comparison", safe=False)
