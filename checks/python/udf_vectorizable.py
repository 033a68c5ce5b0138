
import libcst as cst

from checks.python._udf import _is_docstring, _none_guard, site_for_call, site_for_def
from checks.python.udf_replaceable_by_builtin import replacement
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import keyword_arg

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
# str methods with a pandas `Series.str` twin of the same meaning
_STR = frozenset(
    "upper lower strip lstrip rstrip title capitalize swapcase startswith endswith replace zfill center ljust rjust "
    "find rfind count isdigit isalpha isalnum isnumeric isspace islower isupper".split()
)
_BUILTINS = frozenset({"abs", "round", "len", "float", "int", "str", "min", "max"})
_MATH = frozenset("log log10 log2 log1p exp expm1 sqrt sin cos tan asin acos atan atan2 floor ceil fabs pow hypot".split())
_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


class _Simple:
    """Whether a body is plain numeric/string logic over its parameters and locals."""

    def __init__(self, ctx, names):
        self.ctx = ctx
        self.names = set(names)

    def ok(self, node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.names or node.value in ("True", "False", "None")
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        if isinstance(node, cst.ConcatenatedString):
            return self.ok(node.left) and self.ok(node.right)
        if isinstance(node, cst.FormattedString):
            return all(self.ok(p.expression) for p in node.parts if isinstance(p, cst.FormattedStringExpression))
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, _OPS) and self.ok(node.left) and self.ok(node.right)
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, (cst.Minus, cst.Plus, cst.Not)) and self.ok(node.expression)
        if isinstance(node, cst.Comparison):
            return all(not isinstance(c.operator, (cst.In, cst.NotIn)) and self.ok(c.comparator)
                       for c in node.comparisons) and self.ok(node.left)
        if isinstance(node, cst.BooleanOperation):
            return self.ok(node.left) and self.ok(node.right)
        if isinstance(node, cst.IfExp):
            return self.ok(node.test) and self.ok(node.body) and self.ok(node.orelse)
        if isinstance(node, cst.Subscript):
            if not self.ok(node.value) or len(node.slice) != 1:
                return False
            index = node.slice[0].slice
            if isinstance(index, cst.Slice):
                return all(p is None or self.ok(p) for p in (index.lower, index.upper, index.step))
            return isinstance(index, cst.Index) and isinstance(index.value, (cst.Integer, cst.UnaryOperation)) \
                and self.ok(index.value)
        if isinstance(node, cst.Call):
            if any(a.star or a.keyword is not None for a in node.args) or not all(self.ok(a.value) for a in node.args):
                return False
            func = node.func
            if isinstance(func, cst.Name):
                return func.value in _BUILTINS and func.value not in self.names
            if isinstance(func, cst.Attribute):
                q = self.ctx.semantic.qualified_name(func) or ""
                if q.startswith("math."):
                    return q[len("math."):] in _MATH
                return func.attr.value in _STR and self.ok(func.value)
        return False


def _simple_body(ctx, function) -> bool:
    """A def of docstring, `None` guards, `name = <expr>` lines and one final `return <expr>`, all simple."""
    if not isinstance(function, cst.FunctionDef) or not isinstance(function.body, cst.IndentedBlock):
        return False
    params = [p.name.value for p in function.params.params]
    if not params or isinstance(function.params.star_arg, cst.Param) or function.params.star_kwarg is not None:
        return False
    scan = _Simple(ctx, params)
    statements = list(function.body.body)
    if statements and _is_docstring(statements[0]):
        statements = statements[1:]
    while statements and isinstance(statements[0], cst.If) and _none_guard(statements[0], params) is not None:
        statements = statements[1:]
    if len(statements) < 2:
        return False  # one `return <expr>` is SPK201's to judge
    for statement in statements[:-1]:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return False
        assign = statement.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
                or not isinstance(assign.targets[0].target, cst.Name) or not scan.ok(assign.value):
            return False
        scan.names.add(assign.targets[0].target.value)
    last = statements[-1]
    if not isinstance(last, cst.SimpleStatementLine) or len(last.body) != 1 or not isinstance(last.body[0], cst.Return):
        return False
    value = last.body[0].value
    return value is not None and scan.ok(value)


class UdfVectorizable(PythonRule):
    """
    ## What it does
    Finds a plain Python UDF (`@udf`, `udf(f, T)`, `spark.udf.register("n", f)`)
    whose function is a few lines of plain numeric or string logic over its
    arguments: local assignments and one `return`, built from arithmetic,
    comparisons, conditional expressions, slicing, `str` methods that pandas'
    `Series.str` also has, `math` functions, `abs`/`round`/`len` and casts. A
    body that built-ins compute (SPK201 reads through local assignments too) is
    left to SPK201, whose advice is the better one; UDFs given
    `useArrow=True` are not reported.

    Preview: whether the rewrite is worth it depends on the data volume and on
    how much the logic relies on Python's own semantics (nulls arrive as
    `None` in a `udf`, as `NaN`/`None` in a pandas Series).

    ## Why is this bad?
    A plain `udf` pickles every row to a Python worker and calls the function
    once per row. A `pandas_udf` (Spark 3.0+) receives Arrow batches as pandas
    Series and runs the same logic vectorized: for arithmetic and `.str`
    methods it is typically several times faster, with no change in what it
    computes for non-null values.

    ## Example
    ```python
    from pyspark.sql.functions import udf

    @udf("string")
    def label(code):
        head = code.strip().swapcase()
        return head.center(12, "*")
    ```

    ## Use instead
    ```python
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("string")
    def label(code: pd.Series) -> pd.Series:
        return code.str.strip().str.swapcase().str.center(12, "*")
    ```
    On Spark 3.5+, `@udf("string", useArrow=True)` keeps the row function and
    moves the rows with Arrow.

    ## Fix safety
    No fix: the function body must be rewritten for Series.

    ## References
    - PySpark API: `pyspark.sql.functions.pandas_udf`, `pyspark.sql.functions.udf`
      (`useArrow`, Spark 3.5+).
    - Spark SQL guide: "Apache Arrow in PySpark" (Pandas UDFs).
    """

    code = "SPK209"
    name = "udf-vectorizable"
    summary = "a row-at-a-time Python UDF of plain numeric/string logic that a `pandas_udf` runs on Arrow batches"
    preview = True
    min_spark = "3.0"
    triggers = ("udf",)

    invalid = (
        Invalid(_SETUP + "@udf('string')\ndef label(code):\n    head = code.strip().swapcase()\n"
                "    return head.center(12, '*')\n"),
        Invalid(_SETUP + "import math\n\ndef score(clicks, views):\n    if views is None:\n        return None\n"
                "    rate = clicks / views\n    return f'{math.log1p(rate) * 100}%'\n\nscore_udf = udf(score, 'string')\n"),
        Invalid(_SETUP + "def code(sku):\n    head = sku.strip().capitalize()\n    return head[:3] + '-' + head[-2:]\n\n"
                "spark.udf.register('sku_code', code, 'string')\n"),
    )
    valid = (
        Valid(_SETUP + "@udf('string')\ndef up(s):\n    return s.upper()\n"),
        Valid(_SETUP + "@udf('string', useArrow=True)\ndef mask(card):\n    digits = card[-4:]\n"
              "    return '*' * 12 + digits\n"),
        Valid(_SETUP + "COUNTRIES = {'DE': 'Germany'}\n\n@udf('string')\ndef country(code):\n"
              "    key = code.upper()\n    return COUNTRIES.get(key)\n"),
        Valid(_SETUP + "import json\n\n@udf('string')\ndef field(doc):\n    data = json.loads(doc)\n"
              "    return data['name']\n"),
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql.functions import pandas_udf\n\n"
              "@pandas_udf('string')\ndef mask(card: pd.Series) -> pd.Series:\n    digits = card.str[-4:]\n"
              "    return '*' * 12 + digits\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.factory == "pandas_udf" or site.function is None:
            return
        declared = site.declared
        if isinstance(declared, cst.Call):
            arrow = keyword_arg(declared, "useArrow")
            if isinstance(arrow, cst.Name) and arrow.value == "True":
                return
        if "pythonUDF.arrow.enabled" in self.ctx.unit.text:
            return
        if not _simple_body(self.ctx, site.function) or replacement(self.ctx, site.function) is not None:
            return
        self.ctx.report(
            self,
            site.report,
            f"UDF `{site.name}` runs once per pickled row, but its body is plain numeric/string logic that a "
            "`pandas_udf` runs on whole Arrow batches",
            help="rewrite it as a `pandas_udf` over Series (`.str` methods, arithmetic), or on Spark 3.5+ pass "
            "`useArrow=True` to `udf`",
        )

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))
