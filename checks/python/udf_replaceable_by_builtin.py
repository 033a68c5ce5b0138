from typing import Optional

import libcst as cst

from checks.python._builtin_fix import NoFix, instantiate, template
from checks.python._fixes import atom, functions_alias, source
from checks.python._callees import module_function
from checks.python._udf import frame_udf, inlined_body_expression, site_for_call, site_for_def, substituted
from linter.diagnostics import UNSAFE, Fix, NodeEdit
from linter.registry import Invalid, PythonRule, Valid
from linter.semantic import FUNCTION, UDF, literal_string, literal_type
from linter.sources.python import source_child_nodes

_SETUP = (
    "import re\nfrom pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import IntegerType, StringType\n"
    "spark = SparkSession.builder.getOrCreate()\n"
)
_STR_METHODS = {
    "upper": "F.upper", "lower": "F.lower", "strip": "F.trim", "lstrip": "F.ltrim", "rstrip": "F.rtrim",
    "title": "F.initcap", "startswith": "Column.startswith", "endswith": "Column.endswith",
    "replace": "F.regexp_replace", "split": "F.split", "zfill": "F.lpad", "ljust": "F.rpad", "rjust": "F.lpad",
    "find": "F.instr",
    # character-class tests: a regular expression over the column (`rlike("^[0-9]+$")`; Java's classes are ASCII)
    "isascii": "Column.rlike", "isdigit": "Column.rlike", "isalpha": "Column.rlike", "isalnum": "Column.rlike",
    "isspace": "Column.rlike",
}
_BUILTIN_CALLS = {"len": "F.length", "abs": "F.abs", "round": "F.round", "str": ".cast('string')",
                  "int": ".cast('int')", "float": ".cast('double')", "bool": ".cast('boolean')",
                  "max": "F.greatest", "min": "F.least"}
_MODULE_CALLS = {
    "math.sqrt": "F.sqrt", "math.log": "F.log", "math.log10": "F.log10", "math.exp": "F.exp",
    "math.floor": "F.floor", "math.ceil": "F.ceil", "math.pow": "F.pow", "math.fabs": "F.abs",
    "re.sub": "F.regexp_replace", "re.match": "Column.rlike", "re.search": "Column.rlike",
    "re.fullmatch": "Column.rlike",
    **{f"math.{name}": f"F.{name}" for name in
       "cos sin tan acos asin atan atan2 cosh sinh tanh degrees radians log2 log1p expm1 hypot".split()},
}
# numpy ufuncs, in a plain UDF or a pandas_udf over Series: Spark has each as a function of the same meaning.
_NUMPY = {
    **{n: f"F.{n}" for n in "cos sin tan cosh sinh tanh log log2 log10 log1p exp expm1 sqrt cbrt floor ceil abs "
                            "degrees radians hypot".split()},
    "arccos": "F.acos", "arcsin": "F.asin", "arctan": "F.atan", "arctan2": "F.atan2", "sign": "F.signum",
    "power": "F.pow", "absolute": "F.abs", "maximum": "F.greatest", "minimum": "F.least",
}
_CONSTANTS = frozenset({"math.pi", "math.e", "math.tau", "numpy.pi", "numpy.e"})
_HASHES = {"hashlib.md5": "F.md5", "hashlib.sha1": "F.sha1", "hashlib.sha256": "F.sha2", "hashlib.sha512": "F.sha2"}
# Columns Spark ML's models and assemblers make vectors of (`VectorUDT`), by their default names.
_ML_VECTORS = frozenset(("probability", "rawPrediction", "features", "scaledFeatures", "normFeatures"))
_ARITHMETIC = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.Modulo: "%",
               cst.Power: "**", cst.FloorDivide: "//"}


def _uses(node, names) -> bool:
    """Whether a Name of `names` occurs in the expression (a generator's own target aside, no scope is read)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value in names:
            return True
        stack.extend(source_child_nodes(current))
    return False


class _Scan:
    """Decides whether an expression over the UDF's parameters has a built-in equivalent."""

    def __init__(self, ctx, params, pandas: bool = False):
        self.ctx = ctx
        self.params = set(params)
        self.builtins: list[str] = []
        self.uses_param = False
        self.pandas = pandas  # a pandas_udf: only arithmetic and numpy ufuncs over the Series translate
        self.inlining = False  # inside a helper's body (see `_helper`)

    def add(self, name):
        if name not in self.builtins:
            self.builtins.append(name)

    def ok(self, node) -> bool:
        if isinstance(node, (cst.Name, cst.Attribute)) and self.ctx.semantic.qualified_name(node) in _CONSTANTS:
            return True  # `pi`: a number, as Spark's `F.pi()` or a literal
        if isinstance(node, cst.Name):
            if node.value in self.params:
                self.uses_param = True
                return True
            return node.value in ("None", "True", "False")
        if literal_type(node) is not None:
            return True
        if isinstance(node, (cst.Set, cst.List, cst.Tuple)):
            if all(literal_type(e.value) is not None for e in node.elements):
                return True
            if isinstance(node, cst.Set) or not node.elements or not all(
                    isinstance(e, cst.Element) and self.ok(e.value) for e in node.elements):
                return False
            # `lambda x, y: (x, y)` with a struct return type: `F.struct`; `[x, y]`: `F.array`
            self.add("F.struct (F.array for an array return type)" if isinstance(node, cst.Tuple) else "F.array")
            return True
        if isinstance(node, cst.Call):
            return self.call(node)
        if self.pandas and not isinstance(node, cst.BinaryOperation):
            return False
        if isinstance(node, cst.Subscript):
            if len(node.slice) != 1:
                return False
            s = node.slice[0].slice
            if isinstance(s, cst.Slice) and all(
                part is None or self._constant_int(part) for part in (s.lower, s.upper)
            ) and s.step is None:
                self.add("F.substring")
                return self.ok(node.value)
            if isinstance(s, cst.Index) and literal_type(s.value) == "int":
                self.add("Column.getItem")
                return self.ok(node.value)
            return False
        if isinstance(node, cst.BinaryOperation):
            op = _ARITHMETIC.get(type(node.operator))
            if op is None:
                return False
            if op == "*" and "str" in (literal_type(node.left), literal_type(node.right)):
                if not all(self._constant_int(side) or literal_type(side) == "str" for side in (node.left, node.right)):
                    self.add("F.repeat")
                return self.ok(node.left) and self.ok(node.right)
            if op == "+" and ("str" in (literal_type(node.left), literal_type(node.right)) or self._stringy(node)):
                self.add("F.concat")
            elif op == "**":
                self.add("F.pow")
            else:
                self.add("column arithmetic")
            return self.ok(node.left) and self.ok(node.right)
        if isinstance(node, cst.Comparison):
            for target in node.comparisons:
                op = target.operator
                if isinstance(op, (cst.In, cst.NotIn)):
                    comparator = target.comparator
                    if isinstance(comparator, cst.Name) and comparator.value in self.params:
                        # `code in codes`, both columns: an array's membership, or a string's substring
                        self.add("Column.isin (values passed in) / F.array_contains (an array column)")
                        return self.ok(node.left)
                    if isinstance(comparator, cst.Name) and comparator.value not in self.params:
                        comparator = _module_literal(self.ctx, comparator.value)  # `CODES = {...}` at the top
                        if comparator is None:
                            return False
                        self.add("Column.isin")
                        return self.ok(node.left)
                    if literal_type(node.left) == "str" and _string_valued(comparator):
                        # `'bot' in agent.lower()`: a substring test of a string the UDF makes from its input
                        self.add("Column.contains")
                        if not self.ok(comparator):
                            return False
                        continue
                    if not isinstance(comparator, (cst.Set, cst.List, cst.Tuple)):
                        return False
                    self.add("Column.isin")
                elif isinstance(op, (cst.Is, cst.IsNot)):
                    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
                        return False
                    self.add("Column.isNull / isNotNull")
                if not self.ok(target.comparator):
                    return False
            return self.ok(node.left)
        if isinstance(node, cst.BooleanOperation):
            return self.ok(node.left) and self.ok(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self.ok(node.expression)
        if isinstance(node, cst.IfExp):
            none_branch = any(isinstance(b, cst.Name) and b.value == "None" for b in (node.body, node.orelse))
            if not none_branch:
                self.add("F.when")
            return self.ok(node.test) and self.ok(node.body) and self.ok(node.orelse)
        return False

    def _argmax(self, node: cst.Call) -> bool:
        """`max(range(len(xs)), key=lambda i: xs[i])` (or `key=xs.__getitem__`) over an array parameter `xs`."""
        positional = [a for a in node.args if a.keyword is None]
        key = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
        if len(positional) != 1 or key is None:
            return False
        array = _range_of_len(positional[0].value)
        if array is None or array not in self.params:
            return False
        if isinstance(key, cst.Attribute) and key.attr.value == "__getitem__":
            return isinstance(key.value, cst.Name) and key.value.value == array
        if not (isinstance(key, cst.Lambda) and len(key.params.params) == 1):
            return False
        index, body = key.params.params[0].name.value, key.body
        return (isinstance(body, cst.Subscript) and isinstance(body.value, cst.Name) and body.value.value == array
                and len(body.slice) == 1 and isinstance(body.slice[0].slice, cst.Index)
                and isinstance(body.slice[0].slice.value, cst.Name) and body.slice[0].slice.value.value == index)

    def _exists(self, which: str, arg) -> bool:
        """``any(map(f, xs))`` / ``all(p(x) for x in xs)`` over an array parameter: ``F.exists`` / ``F.forall``."""
        if isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value == "map" \
                and len(arg.args) == 2 and isinstance(arg.args[0].value, cst.Lambda):
            function, items = arg.args[0].value, arg.args[1].value
            inner_params, predicate = [p.name.value for p in function.params.params], function.body
        elif isinstance(arg, cst.GeneratorExp) and arg.for_in.inner_for_in is None and not arg.for_in.ifs \
                and isinstance(arg.for_in.target, cst.Name):
            items, inner_params, predicate = arg.for_in.iter, [arg.for_in.target.value], arg.elt
        else:
            return False
        if not (isinstance(items, cst.Name) and items.value in self.params):
            return self._any_of(inner_params, predicate, items)
        inner = _Scan(self.ctx, [*self.params, *inner_params])
        if not inner.ok(predicate):
            return False
        self.add("F.exists" if which == "any" else "F.forall")
        for name in inner.builtins:
            self.add(name)
        self.uses_param = True
        return True

    def _any_of(self, inner_params: list, predicate, items) -> bool:
        """``all(c not in str(v) for c in CHARS)`` / ``any(w in s for w in WORDS)`` over characters or words fixed
        when the UDF is made (a constant, `string.punctuation`, a list built from them): one `rlike` of a pattern
        of them (a character class, an alternation) tests the same."""
        if len(inner_params) != 1 or not isinstance(predicate, cst.Comparison) or len(predicate.comparisons) != 1:
            return False
        test = predicate.comparisons[0]
        if not isinstance(test.operator, (cst.In, cst.NotIn)) or not isinstance(predicate.left, cst.Name) \
                or predicate.left.value != inner_params[0] or _uses(items, self.params) \
                or not _fixed_strings(self.ctx, items):
            return False
        if not self.ok(test.comparator) or not self.uses_param:
            return False
        self.add("`Column.rlike` with one pattern of the fixed strings (or `F.arrays_overlap` on an array)")
        return True

    def _constant_int(self, node) -> bool:
        """An int the UDF fixes when it is made: a literal, or arithmetic of literals and names of the scope
        around it (`s[-1 * digits:]`), never of its parameters. Spark's functions take it as a Python int."""
        if literal_type(node) == "int":
            return True
        if isinstance(node, cst.Name):
            return node.value not in self.params and node.value not in ("None", "True", "False")
        if isinstance(node, cst.UnaryOperation):
            return self._constant_int(node.expression)
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in _ARITHMETIC:
            return self._constant_int(node.left) and self._constant_int(node.right)
        return False

    def _helper(self, node: cst.Call) -> bool:
        """A call of a function this module defines at its top level, read as the expression it returns with the
        arguments in place of its parameters (one level: a helper's helpers are not read)."""
        func = node.func
        if self.inlining or not isinstance(func, cst.Name):
            return False
        bound = self.ctx.semantic.lookup(func.value)
        if bound is not None and bound.kind != FUNCTION:
            return False
        definition = module_function(self.ctx, func.value)
        if definition is not None and definition.decorators:
            definition = None
        body = inlined_body_expression(definition) if definition is not None else None
        if body is None or body[2]:
            return False
        params, expression, _ = body
        if len(node.args) != len(params) or any(a.keyword is not None or a.star for a in node.args):
            return False
        inner = substituted(expression, {p: a.value for p, a in zip(params, node.args)})
        self.inlining = True
        try:
            return self.ok(inner)
        finally:
            self.inlining = False

    def _stringy(self, node) -> bool:
        for side in (node.left, node.right):
            if isinstance(side, cst.BinaryOperation) and isinstance(side.operator, cst.Multiply) \
                    and "str" in (literal_type(side.left), literal_type(side.right)):
                return True  # `"*" * 12 + rest`
            if isinstance(side, cst.Call) and isinstance(side.func, cst.Attribute) and side.func.attr.value in _STR_METHODS:
                return True
        return False

    def call(self, node: cst.Call) -> bool:
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("max", "min") and not self.ctx.semantic.is_bound(func.value) \
                and self._argmax(node):
            # `max(range(len(xs)), key=lambda i: xs[i])`: the index of the largest element
            self.add(f"F.array_position(xs, F.array_{func.value}(xs)) - 1")
            self.uses_param = True
            return True
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(args) != len(node.args):
            return False
        qualified = self.ctx.semantic.qualified_name(func) if isinstance(func, (cst.Attribute, cst.Name)) else None
        if qualified is not None and qualified.startswith("numpy.") and qualified[6:] in _NUMPY:
            self.add(_NUMPY[qualified[6:]])
            return all(self.ok(a) for a in args)
        if self.pandas:
            return False
        if isinstance(func, cst.Attribute) and func.attr.value in ("hexdigest",) and not args \
                and isinstance(func.value, cst.Call):
            inner = func.value  # hashlib.md5(s.encode()).hexdigest()
            digest = self.ctx.semantic.qualified_name(inner.func)
            # (not `getattr(hashlib, name)(...)`: the name may be `blake2b` or `sha3_256`, which Spark lacks)
            if digest in _HASHES and len(inner.args) == 1:
                self.add(_HASHES[digest])
                value = inner.args[0].value
                if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                        and value.func.attr.value == "encode":
                    value = value.func.value
                return self.ok(value)
            return False
        if isinstance(func, cst.Name) and func.value in ("any", "all") and len(args) == 1 \
                and not self.ctx.semantic.is_bound(func.value):
            return self._exists(func.value, args[0])
        if isinstance(func, cst.Name) and func.value == "list" and len(args) == 1 and isinstance(args[0], cst.Call) \
                and isinstance(args[0].func, cst.Name) and args[0].func.value == "zip" \
                and not self.ctx.semantic.is_bound("list"):
            return self.call(args[0])  # list(zip(a, b)): an array of structs either way
        if isinstance(func, cst.Name) and func.value == "zip" and len(args) >= 2 \
                and not self.ctx.semantic.is_bound("zip"):
            self.add("F.arrays_zip")
            return all(isinstance(a, cst.Name) and a.value in self.params for a in args) and self.ok(args[0])
        if isinstance(func, cst.Name) and qualified in _MODULE_CALLS:
            self.add(_MODULE_CALLS[qualified])  # `from math import sqrt`
            return all(self.ok(a) for a in args)
        if self._helper(node):
            return True
        if isinstance(func, cst.Attribute):
            if qualified in _MODULE_CALLS:
                self.add(_MODULE_CALLS[qualified])
                return all(self.ok(a) for a in args)
            builtin = _STR_METHODS.get(func.attr.value)
            if builtin is None:
                return False
            if func.attr.value in ("strip", "lstrip", "rstrip") and args:
                return False  # strip("x") with characters: F.trim takes none before 3.4
            if not all(literal_type(a) is not None for a in args):
                return False
            self.add(builtin)
            return self.ok(func.value)
        if isinstance(func, cst.Name) and func.value in _BUILTIN_CALLS and not self.ctx.semantic.is_bound(func.value):
            if func.value == "len" and len(args) == 1 and isinstance(args[0], cst.Call) and \
                    isinstance(args[0].func, cst.Attribute) and args[0].func.attr.value == "split":
                self.add("F.size")  # len of a list: the array's size
                return self.ok(args[0])
            if func.value in ("max", "min") and len(args) == 1:
                self.add(f"F.array_{func.value}")  # `max(xs)`: the largest element of one array
                return self.ok(args[0])
            self.add(_BUILTIN_CALLS[func.value])
            return all(self.ok(a) for a in args)
        return False


def _string_valued(node) -> bool:
    """A string method's result (`s.lower()`, `s.strip()`) or a slice of one: a string, never a list."""
    while isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
        node = node.value
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _STRINGS


_STRINGS = frozenset(("upper", "lower", "strip", "lstrip", "rstrip", "title", "replace", "zfill", "ljust", "rjust"))


def _range_of_len(node) -> str | None:
    """``xs`` of ``range(len(xs))``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range" \
            and len(node.args) == 1:
        inner = node.args[0].value
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "len" \
                and len(inner.args) == 1 and isinstance(inner.args[0].value, cst.Name):
            return inner.args[0].value.value
    return None


_STRING_CONSTANTS = frozenset(f"string.{n}" for n in (
    "punctuation digits ascii_letters ascii_lowercase ascii_uppercase whitespace printable hexdigits "
    "octdigits".split()))


def _fixed_strings(ctx, node, depth: int = 0) -> bool:
    """Strings the file shows, fixed when a UDF is made: a literal, a literal list of them, `string.punctuation`,
    a module constant bound once to such a list, `list(...)`/`set(...)` of them, or a comprehension keeping some
    of them (`[c for c in string.punctuation if c not in allowed]`: a filter only drops)."""
    if depth > 6:
        return False
    if literal_type(node) == "str":
        return True
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return bool(node.elements) and all(literal_type(e.value) == "str" for e in node.elements)
    if isinstance(node, (cst.Name, cst.Attribute)) and ctx.semantic.qualified_name(node) in _STRING_CONSTANTS:
        return True
    if isinstance(node, cst.Name):
        found = ctx.semantic.module_assignment(node.value)  # `BAD = "!@#"`, `BAD = ["--", ";"]` bound once
        return found is not None and _fixed_strings(ctx, found, depth + 1)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("list", "set", "tuple",
                                                                                              "sorted") \
            and len(node.args) == 1 and not ctx.semantic.is_bound(node.func.value):
        return _fixed_strings(ctx, node.args[0].value, depth + 1)
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and node.for_in.inner_for_in is None \
            and isinstance(node.for_in.target, cst.Name) and isinstance(node.elt, cst.Name) \
            and node.elt.value == node.for_in.target.value:
        return _fixed_strings(ctx, node.for_in.iter, depth + 1)
    return False


def _module_literal(ctx, name: str):
    """The literal list/set/tuple a module-level ``NAME = [...]`` binds, if the module binds it once."""
    found = ctx.semantic.module_assignment(name)
    if isinstance(found, (cst.Set, cst.List, cst.Tuple)) and all(literal_type(e.value) for e in found.elements):
        return found
    return None


def replacement(ctx, function, pandas: bool = False) -> Optional[list[str]]:
    body = inlined_body_expression(function)
    if body is None:
        return None
    params, expression, _ = body
    if not params:
        return None
    scan = _Scan(ctx, params, pandas)
    if not scan.ok(expression) or not scan.uses_param:
        return None
    return scan.builtins or ["column comparisons and arithmetic"]  # `lambda x: x > 0` needs no function


class UdfReplaceableByBuiltin(PythonRule):
    """
    ## What it does
    Finds Python UDFs (`@udf` functions, `udf(...)`/`F.udf(...)` of a lambda or
    a function of this file, `spark.udf.register`) whose whole body (its
    local assignments read into the expression it returns, and a call of a
    plain function of this module read as that function's body) is
    something Spark's built-in functions already do: string methods (`upper`,
    `lower`, `strip`, `startswith`, `replace`, `split`, slicing, `len`), `+`
    concatenation or arithmetic, `re.sub` / `re.match`, `x in {...}`,
    a literal's substring test of a string method's result
    (`'bot' in s.lower()`: `contains`), conditional
    expressions and `None` checks, `math` functions, `abs`,
    `round`, casts with `str()`/`int()`/`float()`, `**` (`F.pow`), `hashlib`
    digests (`F.md5`, `F.sha1`, `F.sha2`), `x in NAMES` of a module-level
    literal list (`isin`), `any(map(f, xs))` / `all(p(x) for x in xs)` over an
    array (`F.exists` / `F.forall`, Spark 3.1+), `any(c in s for c in CHARS)`
    / `all(c not in s ...)` over characters or words fixed when the UDF is
    made (`string.punctuation`, a constant: one `rlike` of a character class
    or an alternation), `zip` (`F.arrays_zip`), and
    numpy ufuncs (`np.log2`, `np.cosh`, `np.degrees` ...). A `if x is None:
    return None` guard at the top is accepted: built-ins return null for null
    input anyway. The message names the built-ins to use.

    A `pandas_udf` is reported only when its body is arithmetic and numpy
    ufuncs over its Series: Arrow batches are cheaper than pickled rows, but
    still a round trip through Python that the built-in does not make.

    ## Why is this bad?
    A Python UDF moves every row from the JVM to a Python worker and back
    (pickled, row by row for a plain `udf`), and is a black box to the
    optimizer: no predicate pushdown through it, no code generation. The
    built-in runs inside the JVM, typically ten times faster or more.

    ## Example
    ```python
    @udf(returnType=StringType())
    def normalise(name):
        return name.strip().upper()

    customers = customers.withColumn("name", normalise("name"))
    ```

    ## Use instead
    ```python
    customers = customers.withColumn("name", F.upper(F.trim("name")))
    ```

    ## Fix safety
    Unsafe: every call of the UDF in the file (`normalise("name")`,
    `normalise(F.col("name"))`) is replaced by the built-in expression, the
    UDF's definition is removed when nothing else uses it, and
    `from pyspark.sql import functions as F` is added when the file has no
    name for `pyspark.sql.functions` yet. Offered only when every call's
    arguments are column names or Columns and the whole body translates.
    Built-ins and Python differ at the edges: Python's `strip()` also removes
    tabs and newlines where `F.trim` removes spaces only; `round` rounds half to
    even in Python 3 and half up in Spark; `title()` and `F.initcap` capitalise
    differently after digits and apostrophes; `int()` of a float string fails
    in Python where a cast gives null. A `if x is None: return None` guard is
    dropped (built-ins return null for null); an `if not x:` guard, which also
    catches `""`, prevents the fix.

    ## References
    - PySpark user guide, "Python User-defined Table/Scalar Functions"
      (performance) and the list of built-in functions, `pyspark.sql.functions`.
    """

    code = "SPK201"
    name = "udf-replaceable-by-builtin"
    summary = "a Python UDF does what a built-in function does"
    default_reason = ("a UDF doing what a built-in does sends every row through Python and blinds the "
                      "optimizer; only bodies that map onto built-ins are reported, and the message names them")
    triggers = ("udf",)
    fix = "unsafe"
    doc_setup = (
        "from pyspark.sql.functions import udf\nfrom pyspark.sql.types import StringType\n"
        "customers = spark.table('customers')\n"
    )

    invalid = (
        Invalid(
            _SETUP + "@udf(returnType=StringType())\ndef normalise(name):\n    return name.strip().upper()\n\n\n"
            "people = spark.table('people').withColumn('name', normalise('name'))\n",
            unsafe=True,
            fixed=_SETUP + "\n\npeople = spark.table('people').withColumn('name', F.upper(F.trim(F.col('name'))))\n",
        ),
        Invalid(
            "from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf, col\n"
            "spark = SparkSession.builder.getOrCreate()\n"
            "label = udf(lambda n: 'high' if n > 100 else 'low', 'string')\n"
            "out = spark.table('t').select(label(col('amount')).alias('band'), 'id')\n",
            unsafe=True,
            fixed="from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf, col\n"
            "from pyspark.sql import functions as F\nspark = SparkSession.builder.getOrCreate()\n"
            "out = spark.table('t').select(F.when(col('amount') > 100, 'high').otherwise('low').alias('band'), 'id')\n",
        ),
        Invalid(_SETUP + "@udf(returnType=StringType())\ndef normalise(name):\n    return name.strip().upper()\n"),
        Invalid(_SETUP + "to_upper = F.udf(lambda s: s.upper() if s is not None else None, StringType())\n"),
        Invalid(_SETUP + "@udf('string')\ndef prefix(code):\n    if code is None:\n        return None\n    return code[:3]\n"),
        Invalid(_SETUP + "def is_vip(tier):\n    return tier in {'gold', 'platinum'}\n\nvip = udf(is_vip, 'boolean')\n"),
        Invalid(_SETUP + "def is_valid(code, codes):\n    return code in codes\n\nvalid = udf(is_valid, 'boolean')\n"),
        Invalid(_SETUP + "def is_ascii(val):\n    return str(val).isascii()\n\nascii_only = udf(is_ascii, 'boolean')\n"),
        Invalid(_SETUP + "def argmax(scores):\n    return max(range(len(scores)), key=lambda i: scores[i])\n\n"
                "best = udf(argmax, IntegerType())\n"),
        Invalid(_SETUP + "clean = udf(lambda s: re.sub(r'\\\\s+', ' ', s))\n"),
        Invalid(_SETUP + "spark.udf.register('name_len', lambda s: len(s), IntegerType())\n"),
        Invalid(_SETUP + "full = udf(lambda a, b: a + ' ' + b, StringType())\n"),
        Invalid(_SETUP + "label = udf(lambda x: 'high' if x > 100 else 'low', StringType())\n"),
        Invalid(_SETUP + "def power3(value):\n    return value ** 3\n\nspark.udf.register('power3py', power3, 'double')\n"),
        Invalid(_SETUP + "import math\nbearing = udf(lambda a, b: math.atan2(a, b) * 2, 'double')\n"),
        Invalid(_SETUP + "import hashlib\nkey = udf(lambda s: hashlib.md5(s.encode()).hexdigest(), StringType())\n"),
        # an ML model's probability vector: named with vector_to_array, and no fix (a vector has no getItem)
        Invalid(_SETUP + "from pyspark.sql.types import FloatType\nget_p = F.udf(lambda v: float(v[1]), FloatType())\n"
                "scored = spark.table('scored').withColumn('p', get_p('probability'))\n"),
        Invalid(_SETUP + "CODES = ['USD', 'EUR', 'GBP']\n\n@udf('boolean')\ndef known(code):\n    return code in CODES\n"),
        Invalid(_SETUP + "any_big = udf(lambda xs: any(map(lambda x: x > 100, xs)), 'boolean')\n"),
        Invalid(_SETUP + "all_set = udf(lambda xs: all(x is not None for x in xs), 'boolean')\n"),
        Invalid(_SETUP + "pairs = udf(lambda a, b: list(zip(a, b)), 'array<struct<a:int,b:int>>')\n"),
        Invalid(_SETUP + "combine = udf(lambda x, y: (x, y), 'struct<id:string,n:bigint>')\n"),
        Invalid(_SETUP + "def limitation_years(max_penalty):\n    if max_penalty < 1:\n        return 3\n"
                "    elif max_penalty < 4:\n        return 8\n    else:\n        return 20\n\n"
                "years = udf(lambda p: limitation_years(p), IntegerType())\n"),
        Invalid(_SETUP + "both = udf(lambda a, b: [a, b * 2], 'array<int>')\n"),
        Invalid(_SETUP + "@udf('string')\ndef up(s): return s.upper()\n"),
        Invalid(_SETUP + "@udf('boolean')\ndef is_bot(agent):\n    return agent is not None and 'bot' in agent.lower()\n"),
        Invalid(_SETUP + "@udf(returnType=StringType())\ndef mask(card):\n    digits = card[-4:]\n    return '*' * 12 + digits\n"),
        Invalid(_SETUP + "from math import cos, sqrt\n\ndef distance(a, b):\n    dx, dy = a[0] - b[0], a[1] - b[1]\n"
                "    return sqrt(dx ** 2 + dy ** 2) * cos(a[0])\n\nkm = udf(lambda p: distance(p, (52.5, 13.4)), 'double')\n"),
        Invalid(_SETUP + "import numpy as np\nimport pandas as pd\nfrom pyspark.sql.functions import pandas_udf\n\n"
                "@pandas_udf('double')\ndef bits(v: pd.Series) -> pd.Series:\n    return np.log2(v)\n"),
        # characters fixed when the UDF is made: `~F.col(c).rlike("[...]")` tests the same
        Invalid(_SETUP + "import string\n\ndef checker(allowed):\n    def clean(val):\n"
                "        special = [c for c in string.punctuation if c not in allowed]\n"
                "        return all(c not in str(val) for c in special)\n"
                "    clean_udf = udf(clean, 'boolean')\n    return clean_udf\n"),
    )
    valid = (
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql.functions import pandas_udf, PandasUDFType\n\n"
              "@pandas_udf('ticker string, close double', PandasUDFType.GROUPED_MAP)\ndef keep(pdf):\n    return pdf\n"),
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql.functions import pandas_udf\n\n"
              "@pandas_udf('ticker string, close double')\ndef keep(key, pdf: pd.DataFrame) -> pd.DataFrame:\n"
              "    return pdf\n"),
        Valid(_SETUP + "@udf(IntegerType())\ndef tier(score):\n    if score < 1:\n        return 0\n"
              "    return lookup_tier(score)\n"),
        # the words depend on the row itself: no one pattern holds them
        Valid(_SETUP + "@udf('boolean')\ndef known(s):\n    return any(w in s for w in lookup_words(s))\n"),
        Valid(_SETUP + "import json\nparse = udf(lambda s: json.loads(s)['id'], StringType())\n"),
        Valid(_SETUP + "@udf(returnType=StringType())\ndef mask(card):\n    digits = card[-4:]\n    return '*' * 12 + digits.swapcase()\n"),
        Valid(_SETUP + "def lookup(code):\n    return COUNTRIES.get(code)\n\ncountry = udf(lookup, StringType())\n"),
        Valid(_SETUP + "now = udf(lambda: 'x', StringType())\n"),
        Valid("def udf(f):\n    return f\n\n@udf\ndef up(s):\n    return s.upper()\n"),
        Valid(_SETUP + "strip_zeros = udf(lambda s: s.strip('0'), StringType())\n"),
        Valid(_SETUP + "import pandas as pd\nfrom pyspark.sql.functions import pandas_udf\n\n"
              "@pandas_udf('double')\ndef score(v: pd.Series) -> pd.Series:\n    return model.predict(v)\n"),
        Valid(_SETUP + "has_bad = udf(lambda s: any(c in s for c in BAD_CHARACTERS), 'boolean')\n"),
        Valid(_SETUP + "import hashlib\nkey = udf(lambda s: getattr(hashlib, algo)(s.encode()).hexdigest(), StringType())\n"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.found: list = []  # (site, names, the statement defining it, start node for deletion)
        self.tracked: dict = {}  # id(UDF value's node) -> index in found
        self.names: set = set()
        self.calls: dict = {}  # index -> [call nodes]
        self.other_uses: dict = {}  # index -> uses that are not calls

    def _check(self, site) -> None:
        if site is None or site.function is None or frame_udf(self.ctx, site):
            return  # (a grouped map's function is given a group's rows: no column expression replaces it)
        builtins = replacement(self.ctx, site.function, pandas=site.factory == "pandas_udf")
        if builtins is None:
            return
        names = ", ".join(b if "`" in b else f"`{b}`" for b in builtins)  # (an entry may quote its own names)
        definition, start = None, None
        if isinstance(site.report, cst.Decorator):
            definition, start = site.function, site.function.decorators[0]
            key = site.function
        else:
            assign = self.ctx.parent_of(site.declared)
            line = self.ctx.parent_of(assign) if isinstance(assign, cst.Assign) else None
            if (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and len(assign.targets) == 1
                    and isinstance(assign.targets[0].target, cst.Name)):
                definition = line
            key = site.declared
        self.tracked[id(key)] = len(self.found)
        self.names.add(site.name)
        self.found.append((site, names, definition, start))

    def visit_Call(self, node: cst.Call) -> None:
        self._check(site_for_call(self.ctx, node))
        if isinstance(node.func, cst.Name) and node.func.value in self.names:
            index = self._index(node.func)
            if index is not None:
                self.calls.setdefault(index, []).append(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self.names:
            return
        parent = self.ctx.parent_of(node)
        if isinstance(parent, (cst.AssignTarget, cst.FunctionDef)) or (isinstance(parent, cst.Call) and parent.func is node):
            return
        index = self._index(node)
        if index is not None:
            self.other_uses[index] = self.other_uses.get(index, 0) + 1

    def _index(self, name: cst.Name):
        value = self.ctx.semantic.lookup(name.value)
        if value is None or value.kind != UDF or value.node is None:
            return None
        return self.tracked.get(id(value.node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(site_for_def(self.ctx, node))

    def leave_Module(self, node: cst.Module) -> None:
        fn, import_edit = functions_alias(self.ctx, node)
        for index, (site, names, definition, start) in enumerate(self.found):
            fix = None
            vector = "`Column.getItem`" in names and self._on_ml_vector(index)
            if vector:
                # an ML model's `probability`/`rawPrediction`/`features` column is a vector: no getItem, no fix
                names = names.replace("`Column.getItem`", "`vector_to_array(...)[i]` of pyspark.ml.functions, "
                                      "a vector having no `getItem`")
            elif fn is not None:
                fix = self._fix(index, site, definition, start, fn, import_edit)
            how = ("a pandas UDF still ships every batch to a Python worker" if site.factory == "pandas_udf"
                   else "a Python UDF ships every row to a Python worker")
            self.ctx.report(
                self,
                site.report,
                f"UDF `{site.name}` does what built-ins do ({names}): {how}",
                help=f"write it as a column expression with {names}",
                fix=fix,
            )

    def _on_ml_vector(self, index) -> bool:
        """Whether a call of the UDF is given a column an ML model or assembler makes a vector of, by its
        conventional name (`probability`, `rawPrediction`, `features`, `*_vec`, `*Vector`); not `raw_features`,
        which may as well be an array."""
        for call in self.calls.get(index, ()):
            for arg in call.args:
                name = literal_string(arg.value) or ""
                if name in _ML_VECTORS or name.endswith(("_vec", "Vector", "_vector")):
                    return True
        return False

    def _fix(self, index, site, definition, start, fn, import_edit):
        calls = self.calls.get(index)
        if not calls:
            return None
        try:
            body = template(self.ctx, site.function, fn)
            edits = []
            for call in calls:
                columns = [self._column_arg(a, fn) for a in call.args]
                n_params = len(site.function.params.params)
                if len(columns) != n_params:
                    raise NoFix
                edits.append(NodeEdit(call, instantiate(body, columns)))
        except NoFix:
            return None
        if definition is not None and not self.other_uses.get(index):
            edits.append(NodeEdit(definition, "", start_node=start, whole_lines=True))
        if import_edit is not None:
            edits.append(import_edit)
        return Fix(f"Replace UDF `{site.name}` with built-ins", tuple(edits), UNSAFE)

    def _column_arg(self, arg: cst.Arg, fn: str) -> str:
        if arg.keyword is not None or arg.star:
            raise NoFix
        value = arg.value
        if literal_string(value) is not None:
            return f"{fn}.col({source(self.ctx, value)})"
        if self.ctx.semantic.is_column(value):
            return atom(self.ctx, value)
        raise NoFix
