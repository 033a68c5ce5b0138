"""What a call to a function of this file does to the DataFrames it is given: the actions its body runs.

`SPK104` (action-in-loop) and `SPK109` (repeated-action-without-cache) see an
action where it is written: `df.count()`. Real code hides its actions in
helpers, and calls the helper in a loop, or twice:

    def null_share(df, column):
        return df.filter(F.col(column).isNull()).count() / df.count()

    for column in columns:
        print(column, null_share(orders, column))      # two jobs over `orders` per column

Here a call is resolved to the function it runs when this file defines it
(a `def` or a `name = lambda ...` of an enclosing scope, a method through
`self.`/`cls.` or its class's name), and that function's body is read once
for the actions it runs on its parameters and on the names it reads from the
scope around it (a closure: `evaluate = lambda m: evaluator.evaluate(predictions)`).
Only one level is followed: a helper calling another helper is not read.

The callee's body is read without the semantic model (it is not where the walk
is): whether the argument is a DataFrame is the caller's to prove, with what
the model knows at the call. A parameter the body rebinds is not followed.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import libcst as cst

from linter.semantic import FUNCTION, WRITES, method_name
from linter.sources.python import child_nodes
from linter.semantic.values import target_names

# DataFrame actions: each runs a Spark job (SPK104 and SPK109 take them from here).
ACTIONS = frozenset("collect count toPandas show first take head tail toLocalIterator isEmpty".split())


class CalleeAction(NamedTuple):
    """An action a callee runs: on the caller's expression `target` (an argument, or a name of the caller's scope
    the callee reads), by `method` (`count`, `collect`, `write`, `evaluate` ...)."""

    target: cst.BaseExpression
    method: str


def callee_definition(ctx, call: cst.Call):
    """The `FunctionDef` or `Lambda` this call runs when this file defines it, with how many leading parameters
    the call does not pass (`self`, `cls`); (None, 0) otherwise."""
    func = call.func
    if isinstance(func, cst.Name):
        value = ctx.semantic.lookup(func.value)
        node = value.node if value is not None else None
        if isinstance(node, cst.FunctionDef) and node.name.value == func.value:
            return node, 0
        if value is not None and value.kind != FUNCTION:
            return None, 0  # a class, an import, a DataFrame: not a lambda of this file
        return _lambda_bound(ctx, func.value), 0
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        owner = func.value.value
        cls = None
        if owner in ("self", "cls"):
            cls = next((a for a in reversed(ctx.ancestors) if isinstance(a, cst.ClassDef)), None)
        else:
            value = ctx.semantic.lookup(owner)
            if value is not None and isinstance(value.node, cst.ClassDef):
                cls = value.node
        if cls is None or not isinstance(cls.body, cst.IndentedBlock):
            return None, 0
        method = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef)
                       and s.name.value == func.attr.value), None)
        if method is None:
            return None, 0
        decorators = {d.decorator.value for d in method.decorators if isinstance(d.decorator, cst.Name)}
        if "staticmethod" in decorators:
            return method, 0
        if owner in ("self", "cls") or "classmethod" in decorators:
            return method, 1
        return None, 0  # `Class.method(obj, ...)` through the class: rare, and the first argument is the instance
    return None, 0


def _lambda_bound(ctx, name: str) -> Optional[cst.Lambda]:
    """The lambda `name = lambda ...` binds in the innermost enclosing body that assigns `name` exactly once."""
    for ancestor in reversed(ctx.ancestors):
        if not isinstance(ancestor, (cst.Module, cst.IndentedBlock)):
            continue
        assigned = _assigned_in(ctx, ancestor)
        if name in assigned:
            return assigned[name]
    return None


def _assigned_in(ctx, body) -> dict:
    """The names a body's own statements assign: to their lambda when assigned once a lambda, else to None.
    Read once per body (every call in it asks)."""
    key = ("\0assigned-in", id(body))
    found = ctx.memo.get(key)
    if found is None:
        values: dict = {}
        for statement in body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        if isinstance(t.target, cst.Name):
                            values.setdefault(t.target.value, []).append(small.value)
        found = ctx.memo[key] = {n: v[0] if len(v) == 1 and isinstance(v[0], cst.Lambda) else None
                                 for n, v in values.items()}
    return found


def assigned_names(nodes) -> set:
    """Names bound anywhere in these nodes (not inside nested functions, classes or lambdas)."""
    names: set = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.add(node.name.value)
            continue
        if isinstance(node, cst.Lambda):
            continue
        if isinstance(node, cst.Assign):
            for t in node.targets:
                target_names(t.target, names)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            target_names(node.target, names)
        elif isinstance(node, cst.AsName):
            target_names(node.name, names)
        stack.extend(child_nodes(node))
    return names


def callee_actions(ctx, call: cst.Call) -> list[CalleeAction]:
    """The actions the function this call runs performs on the caller's expressions: an argument (mapped to its
    parameter by position or keyword) or a name the function reads from around it."""
    definition, skipped = callee_definition(ctx, call)
    if definition is None:
        return []
    key = ("\0callee-actions", id(definition))
    summary = ctx.memo.get(key)
    if summary is None:
        summary = ctx.memo[key] = _summary(definition)
    if not summary:
        return []
    params, on_params, on_free = summary
    passed: dict = {}
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for i, arg in enumerate(positional):
        if skipped + i < len(params):
            passed[params[skipped + i]] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            passed[arg.keyword.value] = arg.value
    found = [CalleeAction(passed[p], m) for p, m in on_params if p in passed]
    found += [CalleeAction(cst.Name(name), m) for name, m in on_free]
    return found


def _summary(definition):
    """(parameter names, [(parameter, action)], [(free name, action)]) of a function's body, or () when it runs none."""
    params_node = definition.params
    params = [p.name.value for p in (*params_node.posonly_params, *params_node.params, *params_node.kwonly_params)]
    body = definition.body
    rebound = assigned_names([body])
    calls = []
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) or (isinstance(node, cst.Lambda) and node is not body):
            continue  # defined here, run later (or never)
        if isinstance(node, cst.Call):
            calls.append(node)
        stack.extend(child_nodes(node))
    on_params, on_free = [], []
    for node in calls:
        method = method_name(node)
        if method is None:
            continue
        if method == "evaluate" and node.args and node.args[0].keyword is None \
                and isinstance(node.args[0].value, cst.Name):
            name = node.args[0].value.value  # an ML evaluator's `evaluate(df)` runs a job over `df`
        elif method in ACTIONS or (method in WRITES and _writes(node.func.value)):
            root = _root(node.func.value)
            if root is None:
                continue
            name = root.value
            method = "write" if method in WRITES else method
        else:
            continue
        if name in rebound or name in ("self", "cls"):
            continue
        entry = (name, method)
        if name in params:
            if entry not in on_params:
                on_params.append(entry)
        elif entry not in on_free:
            on_free.append(entry)
    return (params, on_params, on_free) if on_params or on_free else ()


def _writes(node) -> bool:
    """Whether a chain goes through `.write` (`df.write.mode(...).saveAsTable(...)`)."""
    while isinstance(node, (cst.Call, cst.Attribute)):
        if isinstance(node, cst.Attribute) and node.attr.value in ("write", "writeTo"):
            return True
        node = node.func if isinstance(node, cst.Call) else node.value
    return False


def _root(node) -> Optional[cst.Name]:
    while True:
        if isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        else:
            return node if isinstance(node, cst.Name) else None
