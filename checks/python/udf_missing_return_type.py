from typing import Optional

import libcst as cst

from checks.python._fixes import replace, source
from checks.python._udf import body_expression, site_for_call, site_for_def
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_type

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import IntegerType\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
_STR_METHODS = frozenset("upper lower strip lstrip rstrip title capitalize replace join format zfill".split())
_CALL_TYPES = {"len": "int", "int": "int", "float": "float", "str": "str", "bool": "bool", "round": "number"}


def body_type(ctx, function) -> Optional[str]:
    """The Python type a UDF body certainly returns, when it is plain."""
    body = body_expression(function)
    if body is None:
        return None
    return _type(ctx, body[1])


def _type(ctx, node) -> Optional[str]:
    known = literal_type(node)
    if known is not None:
        return known
    if isinstance(node, cst.FormattedString):
        return "str"
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _STR_METHODS:
            return "str"
        if isinstance(node.func, cst.Name) and node.func.value in _CALL_TYPES and not ctx.semantic.is_bound(node.func.value):
            return _CALL_TYPES[node.func.value]
        return None
    if isinstance(node, (cst.Comparison, cst.BooleanOperation)) or (
        isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)
    ):
        return "bool"
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Divide):
            return "float"  # Python 3's / always returns a float
        if isinstance(node.operator, (cst.Power, cst.Subtract, cst.FloorDivide)):
            return "number"  # no str operand survives `**`, `-` or `//`
        if isinstance(node.operator, cst.Add) and "str" in (_type(ctx, node.left), _type(ctx, node.right)):
            return "str"
        return None
    if isinstance(node, cst.IfExp):
        a, b = _type(ctx, node.body), _type(ctx, node.orelse)
        if a == "None":
            return b
        if b == "None" or a == b:
            return a
    return None


def _returns_a_value(function) -> bool:
    """Whether a def (or lambda) can return something other than None."""
    if isinstance(function, cst.Lambda):
        return not (isinstance(function.body, cst.Name) and function.body.value == "None")
    stack = list(function.body.children)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, cst.Return) and node.value is not None and not (
                isinstance(node.value, cst.Name) and node.value.value == "None"):
            return True
        if isinstance(node, cst.Yield):
            return True
        stack.extend(node.children)
    return False


_SPARK_TYPES = {"int": "IntegerType() (or LongType())", "float": "DoubleType()", "bool": "BooleanType()",
                "number": "DoubleType() or IntegerType()"}
# The DDL type a fix declares (no import needed). Python ints are unbounded: bigint, so
# large values do not turn into nulls the way they would with int.
DDL = {"int": "bigint", "float": "double", "bool": "boolean"}


class UdfMissingReturnType(PythonRule):
    """
    ## What it does
    Finds Python UDFs declared without a return type: `@udf` without
    arguments, `udf(f)`, `F.udf(lambda ...)` and `spark.udf.register("name",
    f)` with no `returnType` for a plain function (a UDF object given to
    `register` keeps its own type, and pyspark refuses a second). Spark then
    types the result as a string (`StringType`). A UDF whose body certainly returns a string (a string
    method, an f-string, `str(...)`) is not reported: the default is right.

    ## Why is this bad?
    Whatever the function returns is converted to text: numbers become
    strings, so `max` and `orderBy` compare them as text ("9" > "10"), sums
    need casts, and the schema written out says `string`. The mistake is
    silent: nothing fails.

    ## Example
    ```python
    word_count = udf(lambda s: len(s.split()))
    ```

    ## Use instead
    ```python
    word_count = udf(lambda s: len(s.split()), IntegerType())
    ```

    ## Fix safety
    Unsafe, and offered only where the body's type is certain (`len(...)`,
    `int(...)`, `/`, comparisons, ...): the fix declares it as a DDL string
    (`"bigint"`, `"double"`, `"boolean"`; Python ints are unbounded, so
    `bigint` rather than `int`). The column's type changes from string to that
    type, which is the point, but anything downstream that handled it as text
    sees numbers.

    ## References
    - PySpark API: `pyspark.sql.functions.udf` ("returnType ... defaults to
      StringType").
    """

    code = "SPK202"
    name = "udf-missing-return-type"
    summary = "a Python UDF without a return type returns strings"
    default_reason = ("without a return type a UDF's values become strings: numbers compare as text and the "
                      "schema says string, and nothing fails; bodies that return strings are not reported")
    triggers = ("udf",)
    fix = "unsafe"
    doc_setup = "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import IntegerType\n"

    invalid = (
        Invalid(_SETUP + "def power3(value):\n    return value ** 3\n\npower3udf = udf(power3)\n"),
        Invalid(_SETUP + "word_count = udf(lambda s: len(s.split()))\n", unsafe=True,
                fixed=_SETUP + "word_count = udf(lambda s: len(s.split()), \"bigint\")\n"),
        Invalid(_SETUP + "@udf\ndef score(a, b):\n    return a * 2 + b\n"),
        Invalid(_SETUP + "def ratio(a, b):\n    return a / b if b else None\n\nspark.udf.register('ratio', ratio)\n",
                unsafe=True,
                fixed=_SETUP + "def ratio(a, b):\n    return a / b if b else None\n\n"
                "spark.udf.register('ratio', ratio, \"double\")\n"),
        Invalid(_SETUP + "is_even = F.udf(lambda n: n % 2 == 0)\n", unsafe=True,
                fixed=_SETUP + "is_even = F.udf(lambda n: n % 2 == 0, \"boolean\")\n"),
        Invalid(_SETUP + "@udf\ndef count_words(s):\n    return len(s.split())\n", unsafe=True,
                fixed=_SETUP + "@udf(\"bigint\")\ndef count_words(s):\n    return len(s.split())\n"),
    )
    valid = (
        Valid(_SETUP + "word_count = udf(lambda s: len(s.split()), IntegerType())\n"),
        Valid(_SETUP + "@udf(returnType=IntegerType())\ndef score(a, b):\n    return a * 2 + b\n"),
        Valid(_SETUP + "@udf('int')\ndef score(a, b):\n    return a * 2 + b\n"),
        Valid(_SETUP + "shout = udf(lambda s: s.upper() + '!' if s else None)\n"),
        Valid(_SETUP + "label = udf(lambda n: f'#{n}')\n"),
        Valid(_SETUP + "spark.udf.register('ratio', lambda a, b: a / b, 'double')\n"),
        # registering a UDF object: it keeps its own return type (pyspark rejects a second one)
        Valid(_SETUP + "@udf(IntegerType())\ndef score(a, b):\n    return a * 2 + b\n\nspark.udf.register('score', score)\n"),
        Valid(_SETUP + "ratio = udf(lambda a, b: a / b if b else None, 'double')\nspark.udf.register('ratio', ratio)\n"),
        Valid(_SETUP + "import random\nroll = udf(lambda: random.randint(0, 100), IntegerType()).asNondeterministic()\n"
              "spark.udf.register('roll', roll)\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.factory == "pandas_udf" or site.return_type is not None:
            return
        returns = body_type(self.ctx, site.function) if site.function is not None else None
        if returns == "str" or (site.function is not None and not _returns_a_value(site.function)):
            return  # a string, or nothing at all (a UDF that only asserts): the default type changes nothing
        if returns is not None and returns in _SPARK_TYPES:
            detail = f"; its body returns {returns}, which becomes text: declare {_SPARK_TYPES[returns]}"
        else:
            detail = ": whatever it returns becomes text"
        self.ctx.report(
            self,
            site.report,
            f"UDF `{site.name}` has no return type, so Spark types its result as a string{detail}",
            help="pass the type it returns: `udf(f, IntegerType())`, `@udf(returnType=...)` or a DDL string like 'int'",
            fix=self._fix(site, DDL.get(returns)),
        )

    def _fix(self, site, ddl):
        if ddl is None:
            return None
        message = f'Declare the return type "{ddl}"'
        if isinstance(site.report, cst.Decorator):
            expr = site.report.decorator
            return replace(expr, f'{source(self.ctx, expr)}("{ddl}")', message, safe=False)
        args = [a for a in site.declared.args if a.keyword is None and not a.star]
        position = 2 if site.factory == "register" else 1
        if len(args) != position or any(a.keyword is not None for a in site.declared.args):
            return None
        last = args[-1].value
        return replace(last, f'{source(self.ctx, last)}, "{ddl}"', message, safe=False)

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))
