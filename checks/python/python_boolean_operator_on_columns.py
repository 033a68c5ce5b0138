import libcst as cst

from checks.python._fixes import replace, source
from linter.registry import Invalid, PythonRule, Valid

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"
)


def operand(ctx, node) -> str:
    """An operand of `&`/`|`: comparisons and lower-precedence expressions get parentheses."""
    text = source(ctx, node)
    if getattr(node, "lpar", None) or isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript,
                                                          cst.UnaryOperation)):
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) and not node.lpar:
            return f"({text})"
        return text
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr)):
        return text
    return f"({text})"


def rewrite(ctx, node) -> str:
    """`and`/`or`/`not` of a whole expression as `&`/`|`/`~`, nested ones included."""
    if isinstance(node, (cst.BooleanOperation, cst.UnaryOperation)) and node.lpar:
        # `(a or b)`: rewritten inside its own parentheses, which stay as written
        inner = rewrite(ctx, node.with_changes(lpar=[], rpar=[]))
        return "(" * len(node.lpar) + inner + ")" * len(node.rpar)
    if isinstance(node, cst.BooleanOperation) and not node.lpar:
        symbol = "&" if isinstance(node.operator, cst.And) else "|"
        parts = []
        for side in (node.left, node.right):
            if isinstance(side, cst.BooleanOperation) and not side.lpar:
                inner = rewrite(ctx, side)
                same = isinstance(side.operator, type(node.operator))
                parts.append(inner if same else f"({inner})")
            elif isinstance(side, cst.BooleanOperation):
                parts.append(rewrite(ctx, side))  # parenthesised: rewritten inside its parentheses
            else:
                parts.append(_operand(ctx, side))
        return f"{parts[0]} {symbol} {parts[1]}"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) and not node.lpar:
        inner = node.expression
        if isinstance(inner, cst.BooleanOperation) and not inner.lpar:
            return f"~({rewrite(ctx, inner)})"
        return f"~{_operand(ctx, inner)}"
    return operand(ctx, node)


def _operand(ctx, node) -> str:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) and not node.lpar:
        return rewrite(ctx, node)
    return operand(ctx, node)


class PythonBooleanOperatorOnColumns(PythonRule):
    """
    ## What it does
    Finds Python's `and`, `or` and `not` applied to Columns, and chained
    comparisons with a Column (`0 < F.col("x") < 10`). An `and`/`or` is
    reported when its first operand is a Column: Python asks that one for
    its truth value first. A Column only after a Python value
    (`names and F.col("a").isin(names)`) is reached only when that value is
    truthy, and is then the result, so the code runs: not reported. A
    Column in the middle of a chain (`names and F.col("a").isin(names) and
    F.col("b") > 0`) is asked for its truth value whenever the operands
    before it are truthy, and raises then: reported, without a fix (`&` on
    the Python value would compute something else).

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
    Safe: the code fails today, and `&`, `|`, `~` (with parentheses where
    precedence needs them) are what `and`, `or`, `not` mean on Columns; a chain
    `a < x < b` becomes `(a < x) & (x < b)`, which is what Python's chain means.

    ## References
    - PySpark API: `Column` ("Cannot convert column into bool").
    """

    code = "SPK303"
    name = "python-boolean-operator-on-columns"
    summary = "`and` / `or` / `not` or a chained comparison on Columns fails at run time"
    default_reason = ("Python's `and`, `or` and `not` on Columns raise `Cannot convert "
                      "column into bool` when the job runs, after whatever ran before them")
    severity = "error"
    fix = "safe"
    triggers = ("and", "or", "not", "<", ">")
    doc_setup = 'orders = spark.table("orders")\n'

    invalid = (
        Invalid(_SETUP + "big = orders.filter(F.col('amount') > 100 and F.col('country') == 'DE')\n",
                fixed=_SETUP + "big = orders.filter((F.col('amount') > 100) & (F.col('country') == 'DE'))\n"),
        Invalid(_SETUP + "x = orders.where(orders.a.isNull() or orders.b.isNull())\n",
                fixed=_SETUP + "x = orders.where(orders.a.isNull() | orders.b.isNull())\n"),
        Invalid(_SETUP + "x = orders.filter(not F.col('active'))\n",
                fixed=_SETUP + "x = orders.filter(~F.col('active'))\n"),
        Invalid(_SETUP + "x = orders.filter(0 < F.col('amount') < 10)\n",
                fixed=_SETUP + "x = orders.filter((0 < F.col('amount')) & (F.col('amount') < 10))\n"),
        Invalid(_SETUP + "x = orders.filter(F.col('a') > 1 and F.col('b') > 2 and not F.col('c'))\n",
                fixed=_SETUP + "x = orders.filter((F.col('a') > 1) & (F.col('b') > 2) & ~F.col('c'))\n"),
        Invalid(_SETUP + "x = orders.filter(F.col('a').isNull() or F.col('b') > 2 and F.col('c'))\n",
                fixed=_SETUP + "x = orders.filter(F.col('a').isNull() | ((F.col('b') > 2) & F.col('c')))\n"),
        # parenthesised: rewritten inside the parentheses, which stay as written
        Invalid(_SETUP + "x = orders.filter((F.col('a') > 1 or F.col('b') > 2))\n",
                fixed=_SETUP + "x = orders.filter(((F.col('a') > 1) | (F.col('b') > 2)))\n"),
        Invalid(_SETUP + "x = orders.filter((F.col('a') | F.col('b')) & (F.col('c') or F.col('d')))\n",
                fixed=_SETUP + "x = orders.filter((F.col('a') | F.col('b')) & (F.col('c') | F.col('d')))\n"),
        # a Column in the middle of the chain: asked for its truth value whenever `names` is truthy
        Invalid(_SETUP + "names = [2, 3]\nx = orders.filter(names and F.col('a').isin(names) and F.col('b') > 0)\n"),
    )
    valid = (
        Valid(_SETUP + "x = orders.filter((F.col('amount') > 100) & (F.col('country') == 'DE'))\n"),
        Valid(_SETUP + "x = orders.filter(~F.col('active'))\n"),
        Valid("a, b = 1, 2\nok = a > 0 and b > 0\nnone = not a\nc = 0 < a < 10\n"),
        Valid(_SETUP + "cols = orders.columns\nok = 'a' in cols and not cols\n"),
        Valid(_SETUP + "names = [2, 3]\nx = orders.filter(names and F.col('a').isin(names))\n"),
        Valid(_SETUP + "names = [2, 3]\nx = orders.filter(names and limit and F.col('a').isin(names))\n"),
        Valid(
            "from typing import Optional\nfrom pyspark.sql import Column\n"
            "def join(on: Optional[Column] = None, how=None):\n"
            "    if on is None and how is None:\n        return 1\n"
            "    assert on is not None and isinstance(on, Column)\n"
        ),
    )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        semantic = self.ctx.semantic
        first = node.left
        while first.__class__ is cst.BooleanOperation:
            first = first.left
        # Python calls bool() on the first operand: a Column there raises. A Column only after it is reached
        # when the operands before it are truthy, and is then the result (`names and F.col("a").isin(names)`
        # filters by the Column, or by `names` when it is empty): no error, not reported.
        word = "and" if isinstance(node.operator, cst.And) else "or"
        symbol = "&" if word == "and" else "|"
        if semantic.is_column(first):
            if self._inside_reported(node):
                return  # the outermost operation's fix rewrites this one too
            content = rewrite(self.ctx, _bare(node))
            self.ctx.report(
                self,
                node,
                f"Python's `{word}` on Columns raises `ValueError: Cannot convert column into bool` at run time",
                help=f"use `{symbol}` and parenthesise each comparison: `(a > 1) {symbol} (b < 2)`",
                fix=replace(node, content, f"Use `{symbol}`"),
            )
            return
        if self._inside_reported(node):
            return
        # `names and F.col("a").isin(names) and F.col("b") > 0`: every operand but the last has its truth value
        # asked for once those before it are truthy, so a Column in the middle raises then (no fix: `&` on
        # `names` would compute something else)
        leaves = _leaves(node)
        middle = next((leaf for leaf in leaves[1:-1] if semantic.is_column(leaf)), None)
        if middle is not None:
            self.ctx.report(
                self,
                node,
                f"Python's `{word}` asks the Column `{self.ctx.code_for(middle)}` for its truth value whenever the "
                f"operands before it are {'truthy' if word == 'and' else 'falsy'}: `ValueError: Cannot convert "
                "column into bool` at run time",
                help=f"test the Python value apart (`if names:`), and combine the Columns with `{symbol}`",
            )

    def _inside_reported(self, node) -> bool:
        """Whether an enclosing `and`/`or`/`not` (without parentheses between) is reported already."""
        parent = self.ctx.parent_of(node)
        if getattr(node, "lpar", None):
            return False
        if isinstance(parent, cst.BooleanOperation):
            return True
        return isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and self.ctx.semantic.is_column(node.expression) \
                and not self._inside_reported(node):
            self.ctx.report(
                self,
                node,
                "Python's `not` on a Column raises `ValueError: Cannot convert column into bool` at run time",
                help="use `~` (with parentheses around a comparison: `~(a > 1)`)",
                fix=replace(node, rewrite(self.ctx, _bare(node)), "Use `~`"),
            )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) < 2:
            return
        semantic = self.ctx.semantic
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        if any(isinstance(o, cst.BinaryOperation) and isinstance(o.operator, (cst.BitAnd, cst.BitOr)) for o in operands):
            return  # `a > 1 & b < 2`: SPK304 (bitwise-operator-precedence) explains it better
        if any(semantic.is_column(o) for o in operands):
            parts = []
            for left, target in zip(operands, node.comparisons):
                op = self.ctx.code_for(target.operator).strip()
                parts.append(f"({source(self.ctx, left)} {op} {source(self.ctx, target.comparator)})")
            self.ctx.report(
                self,
                node,
                "a chained comparison on a Column expands to `and`, which raises `ValueError: Cannot convert "
                "column into bool` at run time",
                help="use `col.between(low, high)` or `(low < col) & (col < high)`",
                fix=replace(node, " & ".join(parts), "Split the chain with `&`"),
            )


def _leaves(node) -> list:
    """The operands of a chain of `and`/`or` (parenthesised ones included), left to right."""
    if isinstance(node, cst.BooleanOperation):
        return _leaves(node.left) + _leaves(node.right)
    return [node]


def _bare(node):
    """The node without its own parentheses: its reported span holds what is inside them."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node
