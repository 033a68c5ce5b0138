import libcst as cst

from checks.python._driver import shown
from checks.python._fixes import atom, replace
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import DATAFRAME, literal_int, method_name

_SETUP = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"

# (operator, literal) pairs that test for "empty" / "not empty" against count().
_EMPTY = {("==", 0), ("<", 1), ("<=", 0)}
_NOT_EMPTY = {(">", 0), ("!=", 0), (">=", 1)}
_OPS = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
        cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


class CountEmptinessCheck(PythonRule):
    """
    ## What it does
    Finds `count()` of a DataFrame used only to learn whether it has rows:
    `df.count() > 0`, `== 0`, `>= 1`, `!= 0`, `< 1`, `if df.count():`,
    `not df.count()`, `bool(df.count())`, and `len(df.collect()) > 0` (or
    `len(df.take(n))` of the same kind). A `count()` whose number is used
    (printed, logged, stored) is not reported.

    ## Why is this bad?
    `count()` runs a job that reads every row of every partition to produce a
    number that is then thrown away. `isEmpty()` (Spark 3.3+) stops at the
    first row it finds; `len(df.collect())` is worse still, as it also ships
    every row to the driver.

    ## Example
    ```python
    if orders.count() > 0:
        orders.write.parquet("s3://lake/orders")
    ```

    ## Use instead
    ```python
    if not orders.isEmpty():
        orders.write.parquet("s3://lake/orders")
    ```
    Before Spark 3.3: `len(orders.head(1)) > 0`.

    ## Fix safety
    Safe, when the target Spark is 3.3 or newer (`target-spark`; no fix
    otherwise): `df.count() > 0` becomes `not df.isEmpty()`, `== 0` becomes
    `df.isEmpty()`, `if df.count():` becomes `if not df.isEmpty():`, and
    `len(df.collect()) > 0` becomes `not df.isEmpty()`. The test's value is the
    same for every DataFrame; only the work to compute it shrinks.

    ## References
    - PySpark API: `DataFrame.isEmpty` (new in 3.3.0).
    """

    code = "SPK103"
    name = "count-emptiness-check"
    summary = "`count()` (or `len(collect())`) used only to test for rows"
    triggers = ("count", "collect", "take")
    fix = "safe"
    min_spark = "3.3"
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "if orders.count() > 0:\n    print('rows')\n",
                fixed=_SETUP + "if not orders.isEmpty():\n    print('rows')\n"),
        Invalid(_SETUP + "empty = orders.filter('amount < 0').count() == 0\n",
                fixed=_SETUP + "empty = orders.filter('amount < 0').isEmpty()\n"),
        Invalid(_SETUP + "if not orders.count():\n    raise SystemExit(1)\n",
                fixed=_SETUP + "if orders.isEmpty():\n    raise SystemExit(1)\n"),
        Invalid(_SETUP + "if orders.count():\n    pass\n", fixed=_SETUP + "if not orders.isEmpty():\n    pass\n"),
        Invalid(_SETUP + "assert 0 < orders.count()\n", fixed=_SETUP + "assert not orders.isEmpty()\n"),
        Invalid(_SETUP + "if len(orders.collect()) > 0:\n    pass\n",
                fixed=_SETUP + "if not orders.isEmpty():\n    pass\n"),
        Invalid(_SETUP + "has_rows = orders.count() >= 1\n", fixed=_SETUP + "has_rows = not orders.isEmpty()\n"),
        Invalid(_SETUP + "while orders.count() != 0:\n    break\n",
                fixed=_SETUP + "while not orders.isEmpty():\n    break\n"),
        Invalid(_SETUP + "ok = flag and not orders.count()\n", fixed=_SETUP + "ok = flag and orders.isEmpty()\n"),
    )
    valid = (
        Valid(_SETUP + "print('rows:', orders.count())\n"),
        Valid(_SETUP + "n = orders.count()\nif n > 0:\n    print(n)\n"),
        Valid(_SETUP + "if orders.count() > 1000:\n    print('big')\n"),
        Valid(_SETUP + "if not orders.isEmpty():\n    pass\n"),
        Valid("items = [1, 2]\nif items.count(1) > 0:\n    pass\n"),
        Valid(_SETUP + "if len(orders.head(1)) > 0:\n    pass\n"),
    )

    def _counted(self, node):
        """The DataFrame of ``x.count()`` / ``len(x.collect())``, with the call text; else None."""
        if not isinstance(node, cst.Call):
            return None
        if method_name(node) == "count" and not node.args:
            receiver = node.func.value
            if self.ctx.semantic.is_dataframe(receiver):
                return receiver, f"{shown(self.ctx, receiver)}.count()"
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            inner = node.args[0].value
            if isinstance(inner, cst.Call) and method_name(inner) in ("collect", "take") and not self.ctx.semantic.is_bound("len"):
                receiver = inner.func.value
                value = self.ctx.semantic.infer(receiver)
                if value is not None and value.kind == DATAFRAME:
                    return receiver, f"len({shown(self.ctx, inner)})"
        return None

    def _report(self, node, found, empty: bool, replaced=None):
        """``empty``: the test is true when there are no rows; ``replaced``: the node the fix rewrites."""
        receiver, text = found
        name = shown(self.ctx, receiver)
        fix = None
        if self.ctx.settings.target_spark >= (3, 3):
            help = f"use `{name}.isEmpty()`, which stops at the first row"
            test = f"{atom(self.ctx, receiver)}.isEmpty()"
            fix = replace(replaced if replaced is not None else node, test if empty else f"not {test}",
                          "Use `isEmpty()`")
        else:
            help = f"use `len({name}.head(1)) == 0` (`isEmpty()` needs Spark 3.3; target-spark is older)"
        self.ctx.report(self, node, f"`{text}` reads every row only to test whether `{name}` has any",
                        help=help, fix=fix)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        op = _OPS.get(type(target.operator))
        if op is None:
            return
        left, right = node.left, target.comparator
        found, number = self._counted(left), literal_int(right)
        if found is None:
            found, number, op = self._counted(right), literal_int(left), _FLIP[op]
        if found is None or number is None:
            return
        if (op, number) in _EMPTY or (op, number) in _NOT_EMPTY:
            self._report(node, found, empty=(op, number) in _EMPTY)

    def _truthiness(self, test) -> None:
        whole, negated = test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "bool" and len(test.args) == 1:
            test = test.args[0].value
        found = self._counted(test)
        if found is not None:
            self._report(test, found, empty=negated, replaced=whole)

    def visit_If(self, node: cst.If) -> None:
        self._truthiness(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._truthiness(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._truthiness(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._truthiness(node.test)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        parent = self.ctx.parent_of(node)
        if isinstance(node.operator, cst.Not) and not isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)):
            found = self._counted(node.expression)
            if found is not None:
                self._report(node.expression, found, empty=True, replaced=node)
