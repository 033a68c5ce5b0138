import libcst as cst

from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_type, method_name, positional_args

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
_NUMBERS = {"int", "float"}


class MixedTypeBranches(PythonRule):
    """
    ## What it does
    Finds `F.when(...)` chains whose values are literals of different types:
    `F.when(c, 1).otherwise("none")`, `F.when(a, "yes").when(b, 0)`. `None`
    is ignored (it takes the other branches' type); ints and floats mix fine.

    ## Why is this bad?
    A column has one type. Spark finds a common one by casting: `1` and
    `"none"` become the strings `"1"` and `"none"`, so the numbers stop
    being numbers (they sort as text, and sums need casts); with ANSI mode
    on (Spark 4) some combinations fail the query instead.

    ## Example
    ```python
    score = F.when(F.col("clicks") > 0, 1).otherwise("none")
    ```

    ## Use instead
    ```python
    score = F.when(F.col("clicks") > 0, 1).otherwise(None)
    ```

    ## Fix safety
    No fix: the intended type is the author's.

    ## References
    - Spark SQL guide, "ANSI Compliance" (type coercion of CASE WHEN branches).
    """

    code = "SPK307"
    name = "mixed-type-branches"
    summary = "`F.when(...).otherwise(...)` branches of different types are cast to a common type"
    default_reason = ("a `when` chain mixing numbers and strings turns the numbers into text that sorts "
                      "as text and needs casts to sum; `None` and mixes of ints and floats are left alone")
    triggers = ("when",)

    invalid = (
        Invalid(_SETUP + "score = F.when(F.col('clicks') > 0, 1).otherwise('none')\n"),
        Invalid(_SETUP + "flag = F.when(F.col('a'), 'yes').when(F.col('b'), F.lit(0))\n"),
    )
    valid = (
        Valid(_SETUP + "score = F.when(F.col('clicks') > 0, 1).otherwise(None)\n"),
        Valid(_SETUP + "score = F.when(F.col('clicks') > 0, 1).otherwise(0.5)\n"),
        Valid(_SETUP + "label = F.when(F.col('x') > 0, 'pos').when(F.col('x') < 0, 'neg').otherwise('zero')\n"),
        Valid(_SETUP + "v = F.when(F.col('x') > 0, F.col('x')).otherwise('n/a')\n"),
    )

    def _value_type(self, node):
        if isinstance(node, cst.Call) and self.ctx.semantic.is_function(node.func, {"lit"}):
            args = positional_args(node)
            node = args[0] if args else None
        return literal_type(node) if node is not None else None

    def visit_Call(self, node: cst.Call) -> None:
        parent = self.ctx.parent_of(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in ("when", "otherwise"):
            return  # report the whole chain once, at its outermost call
        values, inner = [], node
        while True:
            if not isinstance(inner, cst.Call):
                return  # not a chain that starts with F.when
            method = method_name(inner)
            if self.ctx.semantic.is_function(inner.func, {"when"}):
                if len(inner.args) < 2:
                    return
                values.append(inner.args[1].value)
                break
            if method == "otherwise" and inner.args:
                values.append(inner.args[0].value)
            elif method == "when" and len(inner.args) >= 2:
                values.append(inner.args[1].value)
            else:
                return
            inner = inner.func.value
        types = [self._value_type(v) for v in values]
        if None in types:
            return  # a branch that is not a literal: its type is unknown
        kinds = {("number" if t in _NUMBERS else t) for t in types if t != "None"}
        if len(kinds) > 1:
            self.ctx.report(
                self,
                node,
                f"the branches of this `F.when` are {' and '.join(sorted(kinds))}: Spark casts them to one type "
                "(numbers become strings)",
                help="give every branch the same type; use None for 'no value'",
            )
