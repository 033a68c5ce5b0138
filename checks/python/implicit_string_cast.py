import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import COLUMN, literal_string

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Modulo, cst.Power)
_NUMERIC_FUNCTIONS = frozenset(
    "count sum avg mean max min length size abs round floor ceil sqrt log exp pow countDistinct "
    "count_distinct approx_count_distinct datediff year month dayofmonth hour minute second".split()
)


def _string_lit(ctx, node):
    """The text of a string literal or of ``F.lit("...")``."""
    text = literal_string(node)
    if text is None and isinstance(node, cst.Call) and ctx.semantic.is_function(node.func, {"lit"}):
        args = [a.value for a in node.args]
        text = literal_string(args[0]) if len(args) == 1 else None
    return text


def _numeric(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


class ImplicitStringCast(PythonRule):
    """
    ## What it does
    Finds arithmetic between a Column and a string (`F.col("price") * "100"`,
    `F.lit("5") + 1`), and comparisons of a Column that is certainly numeric
    (an aggregate, `F.length`, a date part, a number literal) with a string
    (`F.count("*") > "10"`).

    ## Why is this bad?
    Spark casts the string to a number at run time without a word. A numeric
    string works, by accident, until the value changes; a string that is not
    a number, including `""` and `" "`, becomes null, so `5 * " "` is null and
    the row silently drops out of sums and filters (with ANSI mode on, as in
    Spark 4, the job fails instead). Comparing a number with a string may
    compare as strings, where "9" > "10".

    ## Example
    ```python
    orders = orders.withColumn("cents", F.col("amount") * "100")
    ```

    ## Use instead
    ```python
    orders = orders.withColumn("cents", F.col("amount") * 100)
    ```

    ## Fix safety
    No fix yet; replacing a numeric string with the number is safe and will be
    offered; an explicit `CAST` will be offered for the rest.

    ## References
    - Spark SQL guide, "ANSI Compliance" (implicit casts and store assignment).
    """

    code = "SPK306"
    name = "implicit-string-cast"
    summary = "a Column combined with a string is cast silently: non-numbers become null"
    default_reason = ("Spark casts the string silently: one that is not a number becomes null and "
                      "its row drops out of sums and filters (or the job fails under ANSI mode)")
    triggers = ('"', "'")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "orders = orders.withColumn('cents', F.col('amount') * '100')\n"),
        Invalid(_SETUP + "x = F.lit('5') + 1\n"),
        Invalid(_SETUP + "x = F.col('qty') * ' '\n"),
        Invalid(_SETUP + "big = orders.groupBy('c').agg(F.count('*').alias('n')).filter(F.count('*') > '10')\n"),
    )
    valid = (
        Valid(_SETUP + "orders = orders.withColumn('cents', F.col('amount') * 100)\n"),
        Valid(_SETUP + "x = F.col('name') == 'Alice'\n"),
        Valid(_SETUP + "x = F.concat(F.col('a'), F.lit('-'))\n"),
        Valid("label = 'x' * 3\n"),
        Valid(_SETUP + "x = F.col('day') > '2024-01-01'\n"),
    )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not isinstance(node.operator, _ARITHMETIC):
            return
        semantic = self.ctx.semantic
        for side, other in ((node.left, node.right), (node.right, node.left)):
            text = _string_lit(self.ctx, side)
            if text is None:
                continue
            other_text = _string_lit(self.ctx, other)
            if other_text is not None and not isinstance(side, cst.Call):
                continue  # str * str: Python's own business
            other_value = semantic.infer(other)
            side_is_lit = isinstance(side, cst.Call)
            if (other_value is not None and other_value.kind == COLUMN) or side_is_lit:
                what = "a number" if _numeric(text) else "null (not a number)"
                self.ctx.report(
                    self,
                    side,
                    f"arithmetic with the string {text!r}: Spark casts it silently and it becomes {what}",
                    help="use a number literal, or an explicit `.cast(...)` where a string column must be read as a number",
                )
                return

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        right = node.comparisons[0].comparator
        for column, other in ((node.left, right), (right, node.left)):
            text = _string_lit(self.ctx, other)
            if text is None or not self._numeric_column(column):
                continue
            self.ctx.report(
                self,
                other,
                f"a numeric Column compared with the string {text!r}: Spark casts one side silently",
                help="compare with a number literal",
            )
            return

    def _numeric_column(self, node) -> bool:
        semantic = self.ctx.semantic
        if isinstance(node, cst.Call):
            if semantic.is_function(node.func, _NUMERIC_FUNCTIONS):
                return True
            value = semantic.infer(node)
            if value is not None and value.kind == COLUMN and value.detail in ("int", "float"):
                return True
        return False
