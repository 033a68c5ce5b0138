from typing import Optional

import libcst as cst

from checks.python._udf import _is_docstring, site_for_call, site_for_def
from checks.python.udf_replaceable_by_builtin import _Scan, replacement
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import literal_string, literal_type

_SETUP = (
    "from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf\n"
    "from pyspark.sql.types import ArrayType, DoubleType, StringType\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
# Python reductions over a whole array and the array functions that compute them in the JVM
_REDUCTIONS = {"sum": "F.aggregate", "max": "F.array_max", "min": "F.array_min", "len": "F.size",
               "sorted": "F.array_sort"}
# module calls a HOF lambda has no faithful twin for (Python's regex dialect, digests, parsers)
_FOREIGN_MODULES = ("re.", "hashlib.", "json.")


class _ArrayScan(_Scan):
    """SPK201's scan, plus comprehensions and reductions over the UDF's array parameters."""

    def ok(self, node) -> bool:
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self._comprehension(node)
        return super().ok(node)

    def call(self, node: cst.Call) -> bool:
        func = node.func
        qualified = self.ctx.semantic.qualified_name(func) if isinstance(func, (cst.Attribute, cst.Name)) else None
        if qualified is not None and qualified.startswith(_FOREIGN_MODULES):
            return False
        args = [a.value for a in node.args]
        if any(a.keyword is not None or a.star for a in node.args):
            return False
        if isinstance(func, cst.Name) and func.value in _REDUCTIONS and len(args) == 1 \
                and not self.ctx.semantic.is_bound(func.value) and self._array(args[0]):
            self.add(_REDUCTIONS[func.value])
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "join" and len(args) == 1 \
                and literal_string(func.value) and self._array(args[0]):
            self.add("F.array_join")  # `", ".join(...)`; `"".join(...)` is more often over a string's characters
            return True
        return super().call(node)

    def _array(self, node) -> bool:
        """An array parameter, or a comprehension over one."""
        if isinstance(node, cst.Name) and node.value in self.arrays:
            self.uses_param = True
            return True
        return isinstance(node, (cst.ListComp, cst.GeneratorExp)) and self._comprehension(node)

    @property
    def arrays(self):
        return self.params - getattr(self, "elements", set())

    def _comprehension(self, node) -> bool:
        loop = node.for_in
        if loop.inner_for_in is not None:
            return False
        targets = _loop_targets(self.ctx, loop, self.arrays)
        if targets is None:
            return False
        elements, index = targets
        inner = _ArrayScan(self.ctx, [*self.params, *elements, *index])
        inner.elements = set(elements) | set(index) | getattr(self, "elements", set())
        if not all(inner.ok(test.test) for test in loop.ifs) or not inner.ok(node.elt):
            return False
        if loop.ifs:
            self.add("F.filter")
        if not (isinstance(node.elt, cst.Name) and node.elt.value in elements):
            self.add("F.transform")
        for name in inner.builtins:
            self.add(name)
        self.uses_param = True
        return True


def _loop_targets(ctx, loop, arrays) -> Optional[tuple[list, list]]:
    """([element names], [index names]) for ``for x in xs`` / ``for i, x in enumerate(xs)`` over an array parameter."""
    iterable, target = loop.iter, loop.target
    if isinstance(iterable, cst.Name) and iterable.value in arrays and isinstance(target, cst.Name):
        return [target.value], []
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate" \
            and not ctx.semantic.is_bound("enumerate") and len(iterable.args) == 1 \
            and isinstance(iterable.args[0].value, cst.Name) and iterable.args[0].value.value in arrays \
            and isinstance(target, cst.Tuple) and len(target.elements) == 2 \
            and all(isinstance(e.value, cst.Name) for e in target.elements):
        return [target.elements[1].value.value], [target.elements[0].value.value]
    return None


def _guard(statement, params) -> bool:
    """``if xs is None: return None`` / ``if not xs: return []``: a null or empty input handled up front."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return False
    test = statement.test
    name = None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        name = test.expression.value
    elif isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1 \
            and isinstance(test.comparisons[0].operator, cst.Is) \
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None":
        name = test.left.value
    if name not in params:
        return False
    body = _simple_body(statement.body)
    return body is not None and len(body) == 1 and isinstance(body[0], cst.Return) and \
        (body[0].value is None or _literal(body[0].value))


def _simple_body(block) -> Optional[list]:
    """The small statements of a block made only of simple lines (``if c: return True``, one per line)."""
    if isinstance(block, cst.SimpleStatementSuite):
        return list(block.body)
    out = []
    for line in block.body:
        if not isinstance(line, cst.SimpleStatementLine):
            return None
        out.extend(line.body)
    return out


def _literal(node) -> bool:
    if isinstance(node, cst.Name):
        return node.value in ("None", "True", "False")
    if isinstance(node, (cst.List, cst.Tuple)):
        return not node.elements
    return literal_type(node) is not None


def _loop_function(ctx, function) -> Optional[list[str]]:
    """The array functions a UDF body of one loop over an array parameter translates to, or None.

    The body: a docstring, null/empty guards, accumulators set to literals, one ``for x in xs:`` whose
    body appends to a list, adds to an accumulator, or returns True/False on a condition, and a
    ``return`` of what was accumulated; or a single ``return`` of comprehensions and reductions
    over the arrays (``[x * 2 for x in xs]``, ``sum(xs)``).
    """
    if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
        return None
    params = [p.name.value for p in function.params.params]
    if not params or function.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) \
            or function.params.star_kwarg is not None:
        return None
    if isinstance(function, cst.Lambda):
        return _expression(ctx, params, function.body)
    if isinstance(function.body, cst.SimpleStatementSuite):
        line = function.body.body
        if len(line) == 1 and isinstance(line[0], cst.Return) and line[0].value is not None:
            return _expression(ctx, params, line[0].value)
        return None
    statements = list(function.body.body)
    if statements and _is_docstring(statements[0]):
        statements = statements[1:]
    while statements and _guard(statements[0], params):
        statements = statements[1:]
    accumulators: dict = {}
    while statements and isinstance(statements[0], cst.SimpleStatementLine) and len(statements[0].body) == 1 \
            and isinstance(statements[0].body[0], cst.Assign):
        assign = statements[0].body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) \
                or not _literal(assign.value) or assign.targets[0].target.value in params:
            return None
        accumulators[assign.targets[0].target.value] = assign.value
        statements = statements[1:]
    if len(statements) == 1:  # `return <expression>`
        line = _simple_body(cst.IndentedBlock(body=statements)) or []
        if len(line) == 1 and isinstance(line[0], cst.Return) and line[0].value is not None and not accumulators:
            return _expression(ctx, params, line[0].value)
        return None
    if len(statements) != 2 or not isinstance(statements[0], cst.For) or statements[0].orelse is not None:
        return None
    loop, last = statements
    end = _simple_body(cst.IndentedBlock(body=[last])) if isinstance(last, cst.SimpleStatementLine) else None
    if not end or len(end) != 1 or not isinstance(end[0], cst.Return) or end[0].value is None:
        return None
    targets = _loop_targets(ctx, loop, set(params))
    if targets is None:
        return None
    elements, index = targets
    scope = [*params, *accumulators, *elements, *index]
    found = _loop_body(ctx, loop.body, scope, accumulators, end[0].value)
    if found is None:
        return None
    outer = _ArrayScan(ctx, [*params, *accumulators])
    if not (outer.ok(end[0].value) or _literal(end[0].value)):
        return None
    return found + [b for b in outer.builtins if b not in found]


def _loop_body(ctx, body, scope, accumulators, returned) -> Optional[list[str]]:
    statements = _simple_body(body)
    condition = None
    if statements is None and isinstance(body, cst.IndentedBlock) and len(body.body) == 1 \
            and isinstance(body.body[0], cst.If) and body.body[0].orelse is None:
        condition = body.body[0].test
        statements = _simple_body(body.body[0].body)
    if not statements or len(statements) != 1:
        return None
    statement = statements[0]
    scan = _ArrayScan(ctx, scope)
    scan.elements = set(scope) - set(accumulators)
    if condition is not None and not scan.ok(condition):
        return None
    out = ["F.filter"] if condition is not None else []
    if isinstance(statement, cst.Return):  # `if p(x): return True` ... `return False`
        if condition is None or not isinstance(statement.value, cst.Name) or not isinstance(returned, cst.Name) \
                or {statement.value.value, returned.value} != {"True", "False"}:
            return None
        out = ["F.exists" if statement.value.value == "True" else "F.forall"]
    elif isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
        call = statement.value
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name)
                and func.value.value in accumulators and len(call.args) == 1):
            return None
        if not scan.ok(call.args[0].value):
            return None
        out.append("F.transform")
    elif isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name) \
            and statement.target.value in accumulators and isinstance(statement.operator, (cst.AddAssign, cst.MultiplyAssign)):
        if not scan.ok(statement.value):
            return None
        out = ["F.size(F.filter(...))"] if condition is not None and _is_one(statement.value) else out + ["F.aggregate"]
    elif isinstance(statement, cst.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0].target, cst.Name) and statement.targets[0].target.value in accumulators:
        if not scan.ok(statement.value):  # `best = max(best, x)`, `total = total + x`
            return None
        out.append("F.aggregate")
    else:
        return None
    return out + [b for b in scan.builtins if b not in out and b != "column arithmetic"]


def _is_one(node) -> bool:
    return isinstance(node, cst.Integer) and node.value == "1"


def _expression(ctx, params, expression) -> Optional[list[str]]:
    scan = _ArrayScan(ctx, params)
    scan.elements = set()
    if not scan.ok(expression) or not scan.uses_param:
        return None
    loops = [b for b in scan.builtins if b in ("F.transform", "F.filter", "F.aggregate", "F.array_max", "F.array_min",
                                                "F.array_sort", "F.array_join", "F.size")]
    if not any(b in ("F.transform", "F.filter", "F.aggregate", "F.array_max", "F.array_min", "F.array_join")
               for b in loops):
        return None  # no loop over an array (`len(s)` is a string's length)
    return scan.builtins


class UdfLoopOverArray(PythonRule):
    """
    ## What it does
    Finds a plain Python UDF (`@udf`, `udf(f, T)`, `spark.udf.register`) whose
    body is a loop over one of its array arguments that Spark's higher-order
    array functions express: a list comprehension (`[x.upper() for x in
    tags]`, with or without an `if`), `sum(...)`, `max(xs)`, `min(xs)`,
    `", ".join(...)` over the array, or a `for x in xs:` loop that appends to a
    list, adds to a total or counter, or returns `True`/`False` on a condition.
    Only when everything else in the body is arithmetic, comparisons, string
    methods with a built-in twin or `math` functions: a loop that calls other
    Python (`re`, `json`, a model, a dictionary lookup) is not reported. A
    one-expression body that SPK201 reports (`any(x > 0 for x in xs)`) is
    left to SPK201.

    On by default: only bodies whose every step has a Spark twin are
    reported, so the rewrite always exists.

    ## Why is this bad?
    The UDF ships every row's array to a Python worker, pickles it element by
    element and runs the loop in the interpreter. `transform`, `filter`,
    `aggregate`, `exists`, `forall`, `array_max`, `array_join` (Python API
    since Spark 3.1) run the same loop inside the JVM, with code generation, on
    data that never leaves the executor, and the optimizer can see through
    them.

    ## Example
    ```python
    @udf(returnType=ArrayType(StringType()))
    def clean_tags(tags):
        return [t.strip().lower() for t in tags if t != ""]
    ```

    ## Use instead
    ```python
    listings = listings.withColumn(
        "tags", F.transform(F.filter("tags", lambda t: t != ""), lambda t: F.lower(F.trim(t)))
    )
    ```

    ## Fix safety
    No fix: the loop has to be rewritten as lambdas over Columns. Python and
    Spark differ at the edges: a `None` array makes the Python loop fail where
    the higher-order function returns null, `strip()` also removes tabs, and
    integer `sum` does not overflow in Python.

    ## References
    - PySpark API: `pyspark.sql.functions.transform`, `filter`, `aggregate`,
      `exists`, `forall` (3.1.0), `array_max`, `array_min`, `array_join`.
    """

    code = "SPK210"
    name = "udf-loop-over-array"
    summary = "a Python UDF loops over an array that `transform`/`filter`/`aggregate` process in the JVM"
    default_reason = ("the UDF pickles each array into Python to run a loop that `transform`, `filter` or "
                      "`aggregate` run in the JVM; only bodies whose every step has a Spark twin are reported")
    min_spark = "3.1"
    triggers = ("udf",)
    doc_setup = (
        "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import ArrayType, StringType\n"
        "listings = spark.table('listings')\n"
    )

    invalid = (
        Invalid(_SETUP + "@udf(returnType=ArrayType(StringType()))\ndef upper_all(tags):\n"
                "    return [t.upper() for t in tags]\n"),
        Invalid(_SETUP + "@udf(returnType=ArrayType(DoubleType()))\ndef with_tax(prices):\n    out = []\n"
                "    for p in prices:\n        out.append(p * 1.2)\n    return out\n"),
        Invalid(_SETUP + "def total(amounts):\n    if amounts is None:\n        return None\n    s = 0\n"
                "    for a in amounts:\n        if a > 0:\n            s += a\n    return s\n\n"
                "total_udf = udf(total, DoubleType())\n"),
        Invalid(_SETUP + "@udf('boolean')\ndef has_refund(amounts):\n    for a in amounts:\n        if a < 0:\n"
                "            return True\n    return False\n"),
        Invalid(_SETUP + "spark.udf.register('sum_sq', lambda xs: sum(x * x for x in xs), 'double')\n"),
        Invalid(_SETUP + "label = udf(lambda tags: ', '.join(t.title() for t in tags), StringType())\n"),
        Invalid(_SETUP + "@udf('int')\ndef n_big(xs):\n    n = 0\n    for x in xs:\n        if x > 100:\n"
                "            n += 1\n    return n\n"),
    )
    valid = (
        Valid(_SETUP + "import re\n\n@udf(returnType=ArrayType(StringType()))\ndef digits(values):\n"
              "    return [re.sub(r'\\\\D', '', v) for v in values]\n"),
        Valid(_SETUP + "import json\n\n@udf(returnType=ArrayType(StringType()))\ndef ids(docs):\n"
              "    return [json.loads(d)['id'] for d in docs]\n"),
        Valid(_SETUP + "@udf('boolean')\ndef any_big(xs):\n    return any(x > 100 for x in xs)\n"),
        Valid(_SETUP + "@udf(returnType=ArrayType(StringType()))\ndef names(codes):\n"
              "    return [COUNTRIES.get(c) for c in codes]\n"),
        Valid(_SETUP + "@udf(returnType=ArrayType(StringType()))\ndef scored(items):\n    out = []\n"
              "    for item in items:\n        out.append(model.predict(item))\n    return out\n"),
        Valid(_SETUP + "@udf('string')\ndef up(s):\n    return s.upper()\n"),
        Valid(_SETUP + "@udf('int')\ndef upper_count(s):\n    return sum(1 for c in s if c.isupper())\n"),
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql.functions import pandas_udf\n\n"
              "@pandas_udf('double')\ndef total(v: pd.Series) -> pd.Series:\n    return sum(x for x in v)\n"),
        Valid("def udf(f):\n    return f\n\n@udf\ndef upper_all(tags):\n    return [t.upper() for t in tags]\n"),
    )

    def _check(self, site) -> None:
        if site is None or site.function is None or site.factory == "pandas_udf":
            return
        found = _loop_function(self.ctx, site.function)
        if found is None or replacement(self.ctx, site.function) is not None:
            return  # SPK201 reports what a built-in expression replaces as a whole
        names = ", ".join(f"`{b}`" for b in found if b != "column arithmetic")
        self.ctx.report(
            self,
            site.report,
            f"UDF `{site.name}` loops over an array in Python: Spark's {names} do the same inside the JVM",
            help=f"write it as a column expression with {names} (Spark 3.1+) and drop the UDF",
        )

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))
