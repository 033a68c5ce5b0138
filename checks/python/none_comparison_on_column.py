import libcst as cst

from checks.python._driver import shown
from checks.python._fixes import atom, replace
from linter.registry import Invalid, PythonRule, Valid

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)


def _is_none(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


class NoneComparisonOnColumn(PythonRule):
    """
    ## What it does
    Finds a Column compared with `None` through `==` or `!=`:
    `F.col("email") == None`, `df.email != None`. Comparisons of plain Python
    values with `None` are not reported.

    ## Why is this bad?
    In SQL, any comparison with null is null, never true: `col == None`
    builds `email = NULL`, and a filter on it drops every row, including the
    ones whose email is missing. Nothing fails; the result is silently empty.

    ## Example
    ```python
    missing = orders.filter(F.col("email") == None)
    ```

    ## Use instead
    ```python
    missing = orders.filter(F.col("email").isNull())
    ```

    ## Fix safety
    Unsafe (ruff's definition: a safe fix keeps what the code computes):
    `col == None` keeps no row and `col.isNull()` keeps the null ones, so the
    fix changes the job's output, from the always-empty result to the one the
    author surely meant. It is applied with `--unsafe-fixes`, never by the
    pre-commit fix hook on its own. (`tests/test_fix_equivalence.py` runs both
    on Spark.)

    ## References
    - Spark SQL guide, "NULL Semantics" (comparison operators return null
      when an operand is null).
    """

    code = "SPK302"
    name = "none-comparison-on-column"
    summary = "`col == None` is never true; use `isNull()`"
    default_reason = ("`col == None` is never true, so a filter on it silently returns no rows, "
                      "not even the null ones; comparisons of plain Python values are not reported")
    severity = "error"
    fix = "unsafe"
    triggers = ("None",)
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "missing = orders.filter(F.col('email') == None)\n",
                unsafe=True, fixed=_SETUP + "missing = orders.filter(F.col('email').isNull())\n"),
        Invalid(_SETUP + "known = orders.where(orders.email != None)\n",
                unsafe=True, fixed=_SETUP + "known = orders.where(orders.email.isNotNull())\n"),
        Invalid(_SETUP + "flag = F.when(None == orders['email'], 1)\n",
                unsafe=True, fixed=_SETUP + "flag = F.when(orders['email'].isNull(), 1)\n"),
        Invalid(_SETUP + "x = orders.filter((F.col('a') + F.col('b')) == None)\n",
                unsafe=True, fixed=_SETUP + "x = orders.filter((F.col('a') + F.col('b')).isNull())\n"),
    )
    valid = (
        Valid(_SETUP + "missing = orders.filter(F.col('email').isNull())\n"),
        Valid("value = None\nif value == None:\n    pass\n"),
        Valid(_SETUP + "if orders.schema == None:\n    pass\n"),
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return
        column = None
        if _is_none(target.comparator) and self.ctx.semantic.is_column(node.left):
            column = node.left
        elif _is_none(node.left) and self.ctx.semantic.is_column(target.comparator):
            column = target.comparator
        if column is None:
            return
        equal = isinstance(target.operator, cst.Equal)
        method = "isNull" if equal else "isNotNull"
        op = "==" if equal else "!="
        self.ctx.report(
            self,
            node,
            f"`{shown(self.ctx, column)} {op} None` compares with null, which is never true: "
            "a filter on it keeps no rows",
            help=f"use `{shown(self.ctx, column)}.{method}()`",
            fix=replace(node, f"{atom(self.ctx, column)}.{method}()", f"Use `.{method}()`", safe=False),
        )
