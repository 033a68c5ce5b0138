"""SPK201's fix: a Python UDF body rewritten as the Column expression of built-ins.

``template`` turns the body into Column code with a placeholder per parameter;
``instantiate`` fills the placeholders with the Column expressions of one call.
Anything not covered raises ``NoFix``: the finding stays, without a fix.
"""

from __future__ import annotations

import re

import libcst as cst

from checks.python._fixes import source
from linter.semantic import literal_int, literal_string, literal_type

_UNARY_FUNCTIONS = {"upper": "upper", "lower": "lower", "strip": "trim", "lstrip": "ltrim", "rstrip": "rtrim",
                    "title": "initcap"}
_MATH = {"math.sqrt": "sqrt", "math.log": "log", "math.log10": "log10", "math.exp": "exp", "math.floor": "floor",
         "math.ceil": "ceil", "math.fabs": "abs"}
_CASTS = {"str": "string", "int": "bigint", "float": "double"}
_COMPARE = {cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
            cst.GreaterThan: ">", cst.GreaterThanEqual: ">="}
_ARITHMETIC = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.Modulo: "%"}


class NoFix(Exception):
    pass


def placeholder(i: int) -> str:
    return f"\x00{i}\x00"


def instantiate(template: str, columns: list[str]) -> str:
    return re.sub("\x00(\\d+)\x00", lambda m: columns[int(m.group(1))], template)


class _Translator:
    def __init__(self, ctx, params: list[str], fn: str, target: tuple):
        self.ctx = ctx
        self.env = {p: placeholder(i) for i, p in enumerate(params)}
        self.fn = fn  # the alias of pyspark.sql.functions in this file
        self.target = target

    # A Column expression, in parentheses when it is an operator expression.
    def atom(self, node) -> str:
        code, is_operator = self.column(node)
        return f"({code})" if is_operator else code

    def value(self, node) -> str:
        """A branch value: literals stay literals (`F.when` accepts them)."""
        if literal_type(node) is not None:
            return source(self.ctx, node)
        return self.column(node)[0]

    def lit(self, node) -> str:
        if literal_type(node) is not None:
            return f"{self.fn}.lit({source(self.ctx, node)})"
        return self.column(node)[0]

    def column(self, node) -> tuple[str, bool]:
        """(code, whether it is an operator expression needing parentheses when nested)."""
        fn = self.fn
        if isinstance(node, cst.Name) and node.value in self.env:
            return self.env[node.value], False
        if literal_type(node) is not None:
            return f"{fn}.lit({source(self.ctx, node)})", False
        if isinstance(node, cst.Call):
            return self.call(node), False
        if isinstance(node, cst.Subscript):
            return self.subscript(node), False
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node)
        if isinstance(node, cst.Comparison):
            return self.comparison(node)
        if isinstance(node, cst.BooleanOperation):
            op = "&" if isinstance(node.operator, cst.And) else "|"
            return f"{self.atom_bool(node.left)} {op} {self.atom_bool(node.right)}", True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return f"~{self.atom_bool(node.expression)}", False
        if isinstance(node, cst.IfExp):
            return self.ifexp(node), False
        raise NoFix

    def atom_bool(self, node) -> str:
        code, _ = self.column(node)
        simple = isinstance(node, (cst.Call, cst.Name)) or (
            isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not))
        return code if simple else f"({code})"

    def call(self, node: cst.Call) -> str:
        fn = self.fn
        func = node.func
        args = [a.value for a in node.args]
        if any(a.keyword is not None or a.star for a in node.args):
            raise NoFix
        if isinstance(func, cst.Attribute):
            qualified = self.ctx.semantic.qualified_name(func)
            if qualified in _MATH and len(args) == 1:
                return f"{fn}.{_MATH[qualified]}({self.column(args[0])[0]})"
            if qualified == "re.sub" and len(args) == 3:
                pattern, repl = literal_string(args[0]), literal_string(args[1])
                if pattern is None or repl is None or "\\" in repl or "$" in repl:
                    raise NoFix  # Java's replacement syntax differs from Python's
                return f"{fn}.regexp_replace({self.column(args[2])[0]}, {pattern!r}, {repl!r})"
            method = func.attr.value
            receiver = func.value
            if method in _UNARY_FUNCTIONS and not args:
                return f"{fn}.{_UNARY_FUNCTIONS[method]}({self.column(receiver)[0]})"
            if method in ("startswith", "endswith") and len(args) == 1 and literal_string(args[0]) is not None:
                return f"{self.atom(receiver)}.{method}({source(self.ctx, args[0])})"
            if method == "replace" and len(args) == 2 and self.target >= (3, 5) and \
                    literal_string(args[0]) is not None and literal_string(args[1]) is not None:
                return (f"{fn}.replace({self.column(receiver)[0]}, {fn}.lit({source(self.ctx, args[0])}), "
                        f"{fn}.lit({source(self.ctx, args[1])}))")
            if method == "split" and len(args) == 1 and literal_string(args[0]):
                return f"{fn}.split({self.column(receiver)[0]}, {re.escape(literal_string(args[0]))!r})"
            raise NoFix
        if isinstance(func, cst.Name) and not self.ctx.semantic.is_bound(func.value):
            name = func.value
            if name == "len" and len(args) == 1:
                inner = args[0]
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value == "split":
                    return f"{fn}.size({self.column(inner)[0]})"
                return f"{fn}.length({self.column(inner)[0]})"
            if name == "abs" and len(args) == 1:
                return f"{fn}.abs({self.column(args[0])[0]})"
            if name == "round" and len(args) in (1, 2):
                digits = f", {literal_int(args[1])}" if len(args) == 2 and literal_int(args[1]) is not None else ""
                if len(args) == 2 and not digits:
                    raise NoFix
                return f"{fn}.round({self.column(args[0])[0]}{digits})"
            if name in _CASTS and len(args) == 1:
                return f"{self.atom(args[0])}.cast({_CASTS[name]!r})"
        raise NoFix

    def subscript(self, node: cst.Subscript) -> str:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
            raise NoFix
        s = node.slice[0].slice
        lower = 0 if s.lower is None else literal_int(s.lower)
        upper = literal_int(s.upper) if s.upper is not None else None
        if s.step is not None or lower is None or upper is None or lower < 0 or upper < lower:
            raise NoFix
        return f"{self.fn}.substring({self.column(node.value)[0]}, {lower + 1}, {upper - lower})"

    def binary(self, node: cst.BinaryOperation) -> tuple[str, bool]:
        op = _ARITHMETIC.get(type(node.operator))
        if op is None:
            raise NoFix
        if op == "+" and self._stringy(node):
            parts = []
            self._concat_parts(node, parts)
            return f"{self.fn}.concat({', '.join(parts)})", False
        if not (literal_type(node.left) in ("int", "float") or literal_type(node.right) in ("int", "float")):
            raise NoFix  # `a + b` of two values: numbers or strings? Spark's `+` would cast strings to numbers
        return f"{self.atom(node.left)} {op} {self.atom(node.right)}", True

    def _stringy(self, node) -> bool:
        for side in (node.left, node.right):
            if literal_type(side) == "str":
                return True
            if isinstance(side, cst.Call) and isinstance(side.func, cst.Attribute) and side.func.attr.value in _UNARY_FUNCTIONS:
                return True
            if isinstance(side, cst.BinaryOperation) and isinstance(side.operator, cst.Add) and self._stringy(side):
                return True
        return False

    def _concat_parts(self, node, parts: list) -> None:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) and not node.lpar:
            self._concat_parts(node.left, parts)
            self._concat_parts(node.right, parts)
        else:
            parts.append(self.lit(node))

    def comparison(self, node: cst.Comparison) -> tuple[str, bool]:
        if len(node.comparisons) != 1:
            raise NoFix
        target = node.comparisons[0]
        op, right = target.operator, target.comparator
        if isinstance(op, (cst.In, cst.NotIn)):
            if not isinstance(right, (cst.Set, cst.List, cst.Tuple)):
                raise NoFix
            values = ", ".join(source(self.ctx, e.value) for e in right.elements)
            code = f"{self.atom(node.left)}.isin([{values}])"
            return (f"~{code}", False) if isinstance(op, cst.NotIn) else (code, False)
        if isinstance(op, (cst.Is, cst.IsNot)):
            if not (isinstance(right, cst.Name) and right.value == "None"):
                raise NoFix
            return f"{self.atom(node.left)}.{'isNull' if isinstance(op, cst.Is) else 'isNotNull'}()", False
        symbol = _COMPARE.get(type(op))
        if symbol is None:
            raise NoFix
        left = source(self.ctx, node.left) if literal_type(node.left) else self.atom(node.left)
        right_code = source(self.ctx, right) if literal_type(right) else self.atom(right)
        return f"{left} {symbol} {right_code}", True

    def ifexp(self, node: cst.IfExp) -> str:
        none_else = isinstance(node.orelse, cst.Name) and node.orelse.value == "None"
        if none_else and self._null_guard(node.test):
            body = self.column(node.body)[0]
            if propagates_null(node.body):
                return body  # built-ins return null for null input anyway
            return f"{self.fn}.when({self.atom(node.test.left)}.isNotNull(), {body})"
        cond = self.column(node.test)[0]
        if none_else:
            return f"{self.fn}.when({cond}, {self.value(node.body)})"
        return f"{self.fn}.when({cond}, {self.value(node.body)}).otherwise({self.value(node.orelse)})"

    def _null_guard(self, test) -> bool:
        """`x is not None` (the only guard whose removal keeps results: `if x` also drops "")."""
        return (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.IsNot)
                and isinstance(test.left, cst.Name) and test.left.value in self.env
                and isinstance(test.comparisons[0].comparator, cst.Name)
                and test.comparisons[0].comparator.value == "None")


def propagates_null(expression) -> bool:
    """Whether the translation returns null whenever an input is null.

    Functions, casts, arithmetic and comparisons do; `F.when` (an `if`
    expression), null tests and `and`/`or` do not, so a `None` guard around
    them has to stay.
    """
    stack = [expression]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.IfExp, cst.BooleanOperation)):
            return False
        if isinstance(node, cst.Comparison) and any(isinstance(t.operator, (cst.Is, cst.IsNot)) for t in node.comparisons):
            return False
        if isinstance(node, cst.Lambda):
            continue
        stack.extend(node.children)
    return True


def template(ctx, function, fn: str) -> str:
    """The body as Column code with a placeholder per parameter; NoFix when not expressible."""
    from checks.python._udf import body_expression

    body = body_expression(function)
    if body is None or (isinstance(function, cst.FunctionDef) and isinstance(function.params.star_arg, cst.Param)):
        raise NoFix
    params, expression, guards = body
    if any(not is_none for _, is_none in guards):
        raise NoFix  # `if not x: return None` also catches "", which built-ins keep
    translator = _Translator(ctx, params, fn, ctx.settings.target_spark)
    code, _ = translator.column(expression)
    if guards and not propagates_null(expression):
        checks = " & ".join(f"{translator.env[name]}.isNotNull()" for name, _ in guards)
        code = f"{fn}.when({checks}, {code})"
    return code
