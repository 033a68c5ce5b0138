"""Shared by the UDF rules: where a Python UDF is declared, what it wraps, its return type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from linter.semantic import (
    DATAFRAME, FUNCTION, GROUPED, RDD, SESSION, UDF, keyword_arg, literal_int, method_name, positional_args,
)

UDF_FACTORIES = frozenset({"udf", "pandas_udf"})
# Methods whose first argument is a function that runs on the executors.
RDD_SHIPPED = frozenset(
    "map flatMap filter foreach foreachPartition mapPartitions mapPartitionsWithIndex mapValues flatMapValues "
    "reduceByKey reduce aggregate fold keyBy sortBy groupBy combineByKey aggregateByKey".split()
)
DF_SHIPPED = frozenset("applyInPandas mapInPandas mapInArrow foreach foreachPartition".split())


@dataclass
class UdfSite:
    """One declaration of a Python UDF."""

    report: object  # the node to report (the decorator or the call)
    function: Optional[object]  # the FunctionDef or Lambda it wraps, when in this file
    return_type: Optional[object]  # the node giving the return type, None when absent
    factory: str  # "udf", "pandas_udf" or "register"
    name: str  # the UDF's name for messages
    declared: object = None  # the Call that wraps the UDF (for `.asNondeterministic()` checks)


def _factory(ctx, func) -> Optional[str]:
    return ctx.semantic.is_function(func, UDF_FACTORIES)


def _function_for(ctx, node):
    if isinstance(node, cst.Lambda):
        return node
    if isinstance(node, cst.Name):
        value = ctx.semantic.lookup(node.value)
        if value is not None and value.kind == FUNCTION and isinstance(value.node, cst.FunctionDef):
            return value.node
    return None


def _type_arg(call: cst.Call, position: int):
    given = keyword_arg(call, "returnType")
    if given is not None:
        return given
    args = positional_args(call)
    return args[position] if len(args) > position else None


_NAMES = frozenset({"udf", "pandas_udf", "register"})


def function_type_arg(site: UdfSite):
    """The node a `pandas_udf` declaration gives its kind with (`functionType=...`, or the argument after the
    return type: `pandas_udf("double", PandasUDFType.SCALAR)`, `pandas_udf(f, "double", 200)`), or None."""
    call = site.declared
    if not isinstance(call, cst.Call):
        return None
    given = keyword_arg(call, "functionType")
    if given is not None:
        return given
    args = positional_args(call)
    position = 1 if isinstance(site.report, cst.Decorator) else 2
    return args[position] if len(args) > position else None


# `PandasUDFType`'s kinds, and the PythonEvalType numbers sometimes written instead of the names
PANDAS_UDF_KINDS = ("SCALAR", "SCALAR_ITER", "GROUPED_MAP", "GROUPED_AGG", "GROUPED_AGG_ITER")
_EVAL_TYPES = {200: "SCALAR", 204: "SCALAR_ITER", 201: "GROUPED_MAP", 202: "GROUPED_AGG"}


def pandas_udf_kind(ctx, site: UdfSite) -> Optional[str]:
    """The kind a `pandas_udf` declaration sets the old way (`PandasUDFType.GROUPED_MAP`, or its number 201):
    one of PANDAS_UDF_KINDS; None when it sets none (type hints decide) or the file does not show it."""
    given = function_type_arg(site)
    if isinstance(given, cst.Attribute) and given.attr.value in PANDAS_UDF_KINDS:
        return given.attr.value if (ctx.semantic.qualified_name(given.value) or "").endswith("PandasUDFType") else None
    number = literal_int(given) if given is not None else None
    return _EVAL_TYPES.get(number) if number is not None else None


def frame_udf(ctx, site: UdfSite) -> bool:
    """A pandas UDF over whole frames rather than columns: declared a grouped map (`PandasUDFType.GROUPED_MAP`),
    or a function with a parameter annotated as a pandas DataFrame (`def f(key, pdf: pd.DataFrame)`). It is
    handed a group's rows, not a column's values."""
    if site.factory != "pandas_udf":
        return False
    if pandas_udf_kind(ctx, site) == "GROUPED_MAP":
        return True
    function = site.function
    return isinstance(function, cst.FunctionDef) and any(
        p.annotation is not None and ctx.code_for(p.annotation.annotation).split(".")[-1] == "DataFrame"
        for p in function.params.params)


def site_for_call(ctx, call: cst.Call) -> Optional[UdfSite]:
    """``udf(f, T)``, ``F.udf(lambda x: ..., T)``, ``spark.udf.register("n", f, T)``.

    Several rules ask for every call: the answer is kept per call node.
    """
    func = call.func
    if isinstance(func, cst.Attribute):
        if func.attr.value not in _NAMES:
            return None
    elif isinstance(func, cst.Name):
        # an aliased import (`from pyspark.sql.functions import udf as make_udf`) needs the lookup
        if func.value not in _NAMES and ctx.semantic.lookup(func.value) is None:
            return None
    else:
        return None
    memo = ctx.memo
    key = ("udf-site", id(call))
    if key not in memo:
        memo[key] = _site_for_call(ctx, call)
    return memo[key]


def _site_for_call(ctx, call: cst.Call) -> Optional[UdfSite]:
    factory = _factory(ctx, call.func)
    if factory is not None:
        args = positional_args(call)
        if not args:
            return None  # `udf(returnType=...)`: a decorator factory, handled with its def
        target = args[0]
        if isinstance(target, (cst.SimpleString, cst.ConcatenatedString)) or _is_type(ctx, target):
            return None  # `udf("int")`, `udf(IntegerType())`: decorator factories too
        function = _function_for(ctx, target)
        if isinstance(target, cst.Name):
            name = target.value
        elif isinstance(target, cst.Lambda):
            name = _assigned_name(ctx, call) or "lambda"
        else:
            name = " ".join(ctx.code_for(target).split())[:40]
        return UdfSite(call, function, _type_arg(call, 1), factory, name, call)
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "register" and isinstance(func.value, cst.Attribute) \
            and func.value.attr.value == "udf":
        session = ctx.semantic.infer(func.value.value)
        if session is None or session.kind != SESSION:
            return None
        args = positional_args(call)
        if len(args) < 2:
            return None
        registered = ctx.semantic.infer(args[1])
        if registered is not None and registered.kind == UDF:
            return None  # a UDF object keeps its own return type (pyspark: `returnType` "should not be specified")
        function = _function_for(ctx, args[1])
        name = ctx.code_for(args[0]).strip("'\"")
        return UdfSite(call, function, _type_arg(call, 2), "register", name, call)
    return None


def _assigned_name(ctx, call):
    """``to_upper`` in ``to_upper = udf(lambda ...)`` (through ``.asNondeterministic()`` too)."""
    node = call
    parent = ctx.parent_of(node)
    while isinstance(parent, (cst.Attribute, cst.Call)):
        node, parent = parent, ctx.parent_of(parent)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        return parent.targets[0].target.value
    return None


def _is_type(ctx, node) -> bool:
    """``IntegerType()`` / ``T.StringType()``-like return type expressions."""
    target = node.func if isinstance(node, cst.Call) else node
    name = ctx.code_for(target)
    return name.endswith("Type")


def site_for_def(ctx, node: cst.FunctionDef) -> Optional[UdfSite]:
    """``@udf``, ``@udf("int")``, ``@F.udf(returnType=...)``, ``@pandas_udf(...)``."""
    for decorator in node.decorators:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
            factory = _factory(ctx, expr.func)
            if factory is not None:
                return UdfSite(decorator, node, _type_arg(expr, 0), factory, node.name.value, expr)
        else:
            factory = _factory(ctx, expr)
            if factory is not None:
                return UdfSite(decorator, node, None, factory, node.name.value, None)
    return None


def body_expression(function) -> Optional[tuple[list[str], object, list[tuple[str, bool]]]]:
    """(parameter names, the returned expression, guards).

    Accepts a lambda, or a def whose body is an optional docstring, optional
    ``if x is None: return None`` (or ``if not x: return None``) guards, and one
    ``return <expr>``. Each guard is ``(name, is_none)``: ``is_none`` is False for
    ``if not x``, which also catches ``""`` and ``0``.
    """
    if isinstance(function, cst.Lambda):
        params = [p.name.value for p in function.params.params]
        return params, function.body, []
    if not isinstance(function, cst.FunctionDef):
        return None
    params = [p.name.value for p in function.params.params]
    guarded: list[tuple[str, bool]] = []
    if isinstance(function.body, cst.SimpleStatementSuite):  # `def up(s): return s.upper()` on one line
        line = function.body.body
        if len(line) != 1 or not isinstance(line[0], cst.Return) or line[0].value is None:
            return None
        return params, line[0].value, guarded
    statements = _after_guards(function, params, guarded)
    if statements is None or len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    line = statements[0].body
    if len(line) != 1 or not isinstance(line[0], cst.Return) or line[0].value is None:
        return None
    return params, line[0].value, guarded


def _after_guards(function: cst.FunctionDef, params: list, guarded: list) -> Optional[list]:
    """The def's statements after its docstring and its `if x is None: return None` guards (added to
    `guarded`); None when an `if` at the top is something else."""
    statements = list(function.body.body)
    if statements and _is_docstring(statements[0]):
        statements = statements[1:]
    while statements and isinstance(statements[0], cst.If):
        guard = _none_guard(statements[0], params)
        if guard is None:
            return None
        guarded.append(guard)
        statements = statements[1:]
    return statements


def inlined_body_expression(function) -> Optional[tuple[list[str], object, list[tuple[str, bool]]]]:
    """As `body_expression`, also for a def whose return is reached through local assignments
    (`digest = hashlib.md5(s.encode()).hexdigest()` then `return digest[-8:]`, `a, b = x[0], x[1]`): each
    assigned name is replaced by its expression in what follows, so the result is the one expression the
    function computes. For deciding what a UDF does, not for rewriting it (the expression is not source text
    that was written)."""
    found = body_expression(function)
    if found is not None or not isinstance(function, cst.FunctionDef) \
            or not isinstance(function.body, cst.IndentedBlock):
        return found
    params = [p.name.value for p in function.params.params]
    guarded: list[tuple[str, bool]] = []
    statements = _after_guards(function, params, guarded)
    if statements is None:  # an `if` at the top that is no None guard: a chain of returns, perhaps
        guarded = []
        statements = list(function.body.body)[1 if function.body.body and _is_docstring(function.body.body[0]) else 0:]
    chained = _returned(statements)
    if chained is not None:
        return params, chained, guarded  # `if x < 1: return 3 / elif x < 2: return 4 / else: return 20`
    if any(isinstance(s, cst.If) for s in statements):
        return None
    values: dict = {}
    for statement in statements[:-1]:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 \
                or not isinstance(statement.body[0], cst.Assign) or len(statement.body[0].targets) != 1:
            return None
        assign = statement.body[0]
        target, value = assign.targets[0].target, substituted(assign.value, values)
        if isinstance(target, cst.Name):
            pairs = [(target, value)]
        elif isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) \
                and len(target.elements) == len(value.elements):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        else:
            return None
        for name, expression in pairs:
            if not isinstance(name, cst.Name):
                return None
            values[name.value] = expression
    if not statements or not isinstance(statements[-1], cst.SimpleStatementLine):
        return None
    line = statements[-1].body
    if len(line) != 1 or not isinstance(line[0], cst.Return) or line[0].value is None or not values:
        return None
    return params, substituted(line[0].value, values), guarded


def _returned(statements: list):
    """The one expression a block returns when it is `return e`, or an `if` whose branches each return one
    (`if c: return a / elif d: return b / else: return e`, or the `else` as a `return` after the `if`), as
    nested conditional expressions; None for anything else."""
    if len(statements) == 1 and isinstance(statements[0], cst.SimpleStatementLine):
        line = statements[0].body
        if len(line) == 1 and isinstance(line[0], cst.Return) and line[0].value is not None:
            return line[0].value
        return None
    if not statements or not isinstance(statements[0], cst.If) or not isinstance(statements[0].body, cst.IndentedBlock):
        return None
    branch, rest = statements[0], statements[1:]
    body = _returned(list(branch.body.body))
    if branch.orelse is None:
        orelse = _returned(rest)
    elif rest:
        return None
    elif isinstance(branch.orelse, cst.If):
        orelse = _returned([branch.orelse])
    else:
        orelse = _returned(list(branch.orelse.body.body)) if isinstance(branch.orelse.body, cst.IndentedBlock) else None
    if body is None or orelse is None:
        return None
    return cst.IfExp(test=branch.test, body=body, orelse=orelse)


class _Substitute(cst.CSTTransformer):
    def __init__(self, values: dict):
        self.values = values

    def visit_Lambda(self, node) -> bool:
        return False  # its own parameters may shadow the names

    def leave_Name(self, original, updated):
        return self.values.get(original.value, updated)

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)  # `x.upper`: the attribute is no variable

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)  # `f(key=...)`: the keyword is no variable


def substituted(expression, values: dict):
    return expression.visit(_Substitute(values)) if values else expression


def _is_docstring(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _none_guard(node: cst.If, params) -> Optional[tuple[str, bool]]:
    """``if x is None: return None`` (or ``if not x: return None``): (the guarded name, is_none)."""
    if node.orelse is not None or not isinstance(node.body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return None
    body = node.body.body
    if isinstance(node.body, cst.IndentedBlock):
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
            return None
        body = body[0].body
    if len(body) != 1 or not isinstance(body[0], cst.Return):
        return None
    value = body[0].value
    if value is not None and not (isinstance(value, cst.Name) and value.value == "None"):
        return None
    test = node.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        name, is_none = test.expression.value, False
    elif (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1
          and isinstance(test.comparisons[0].operator, cst.Is)
          and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"):
        name, is_none = test.left.value, True
    else:
        return None
    return (name, is_none) if name in params else None


def walk_expression(node):
    """Every node of an expression or body, in source order (not entering nested lambdas)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, cst.Lambda) and current is not node:
            continue
        stack.extend(reversed(current.children))


def shipped_function(ctx, call: cst.Call):
    """(the function argument, a description) when ``call`` sends a function to the executors.

    UDF declarations (``udf(f)``, ``spark.udf.register("n", f)``), RDD
    transformations and actions taking a function, and ``applyInPandas``,
    ``mapInPandas``, ``mapInArrow``, ``foreach``, ``foreachPartition`` on
    DataFrames.  ``foreachBatch`` runs its function on the driver: not included.
    """
    site = site_for_call(ctx, call)
    if site is not None:
        args = positional_args(call)
        target = args[1] if site.factory == "register" and len(args) > 1 else (args[0] if args else None)
        return (target, f"UDF `{site.name}`") if target is not None else None
    method = method_name(call)
    if method is None or not call.args or (method not in RDD_SHIPPED and method not in DF_SHIPPED):
        return None
    receiver = ctx.semantic.infer(call.func.value)
    if receiver is None:
        return None
    if (method in RDD_SHIPPED and receiver.kind == RDD) or (method in DF_SHIPPED and receiver.kind in (DATAFRAME, GROUPED)):
        return call.args[0].value, f"the function passed to `{method}`"
    return None


def function_node(ctx, target):
    """The Lambda or FunctionDef a function argument stands for, when it is in this file."""
    if isinstance(target, (cst.Lambda, cst.FunctionDef)):
        return target
    return _function_for(ctx, target)
