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
the model knows at the call. Inside the body a parameter is followed through
the frames made from it by DataFrame transformations (`exploded =
df.select(F.explode(...))`, then `exploded.groupBy(...).count().collect()`;
`df = df.withColumn(...)`; a writer `w = df.write.mode(...)`, then
`w.saveAsTable(...)`): their actions scan the caller's frame all the same. A
name bound any other way (`df = spark.table("other")` on some path, a loop
target) is not followed, and `groupBy(...).count()` is a transformation, not
the action `count()`. The instance's frames the body acts on (`self.errors.count()`)
are reported as `self.errors`, for the caller's method to say what it holds
(SPK109 follows the `self.x` its method assigned), unless the body assigns them.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from linter.semantic import FUNCTION, WRITES, method_name
from linter.semantic.api import (
    _COMBINE,
    _GROUPED_RESULT,
    _GROUPING,
    _RDD_SAME,
    _SAME_ROWS,
    WRITER_CONFIG,
)
from linter.semantic.values import target_names
from linter.sources.python import child_nodes

# DataFrame actions: each runs a Spark job (SPK104 and SPK109 take them from here).
ACTIONS = frozenset(["collect", "count", "toPandas", "show", "first", "take", "head", "tail", "toLocalIterator", "isEmpty"])


class CalleeAction(NamedTuple):
    """An action a callee runs: on the caller's expression `target` (an argument, or a name of the caller's scope
    the callee reads), by `method` (`count`, `collect`, `write`, `evaluate` ...)."""

    target: cst.BaseExpression
    method: str
    call: cst.Call | None = None  # the action's call in the callee's body (its chain: `spark.sql(...).rdd...`)


def module_function(ctx, name: str):
    """The one top-level `def name` of the module, also one defined further down than the walk has come (a
    call in a function body runs once the module is loaded); None when there is none or several."""
    defined = [s for s in ctx.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return defined[0] if len(defined) == 1 else None


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


def _lambda_bound(ctx, name: str) -> cst.Lambda | None:
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
    found = [CalleeAction(passed[p], m, c) for p, m, c in on_params if p in passed]
    for name, m, c in on_free:
        owner, _, attr = name.partition(".")
        target = cst.Attribute(cst.Name(owner), cst.Name(attr)) if attr else cst.Name(name)
        found.append(CalleeAction(target, m, c))  # `self.errors`: the instance's frame, as the caller holds it
    return found


# Exact classes (libcst's node classes are ABCs, slow in isinstance, and none has subclasses).
_NESTED = frozenset((cst.FunctionDef, cst.ClassDef, cst.Lambda))  # bodies defined here, run later (or never)
_TARGETED = frozenset((cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor))
_SCOPE_STATEMENTS = frozenset((cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom))


def assigned_self_attributes(ctx, definition) -> frozenset:
    """The `self.x` a function's body assigns (not in nested functions or classes); read once per function (SPK109
    asks at every `self.method()` call)."""
    key = ("\0self-attributes", id(definition))
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = _assigned_self_attributes(definition)
    return found


def _assigned_self_attributes(definition) -> frozenset:
    names = set()
    stack = [definition.body]
    while stack:
        node = stack.pop()
        cls = node.__class__  # exact classes: libcst's are ABCs, slow to test, and none has subclasses
        if cls in _NESTED:
            continue
        targets = ([t.target for t in node.targets] if cls is cst.Assign else
                   [node.target] if cls is cst.AugAssign or cls is cst.AnnAssign else ())
        for target in targets:
            if target.__class__ is cst.Attribute and target.value.__class__ is cst.Name and \
                    target.value.value == "self":
                names.add(target.attr.value)
        stack.extend(child_nodes(node))
    return frozenset(names)


def _summary(definition):
    """(parameter names, [(parameter, action, call)], [(free name, action, call)]) of a function's body, or () when
    it runs none."""
    params_node = definition.params
    params = [p.name.value for p in (*params_node.posonly_params, *params_node.params, *params_node.kwonly_params)]
    body = definition.body
    calls = []
    stack = [body]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls in _NESTED and (cls is not cst.Lambda or node is not body):
            continue  # defined here, run later (or never)
        if cls is cst.Call:
            calls.append(node)
        stack.extend(child_nodes(node))
    if not calls:
        return ()
    derived = _Derivations(body, params)
    own_attributes = _assigned_self_attributes(definition)  # (the summary itself is read once per function)
    on_params, on_free, seen = [], [], set()
    for node in calls:
        method = method_name(node)
        if method is None:
            continue
        found = None
        if method == "evaluate" and node.args and node.args[0].keyword is None \
                and isinstance(node.args[0].value, cst.Name):
            name, state = node.args[0].value.value, _FRAME  # an ML evaluator's `evaluate(df)` runs a job over `df`
        elif method in ACTIONS or method in WRITES:
            found = derived.chain(node.func.value)
            if found is None:
                continue
            name, state = found[:2]
            if method in ACTIONS and state not in (_FRAME, _RDD):
                continue  # `df.groupBy("k").count()`: a transformation; `w.mode(...).count`: not a frame's
            if method in WRITES and method not in ACTIONS:
                if state != _WRITER:
                    continue
                method = "write"
        else:
            continue
        if name == "self" and found is not None and len(found) == 3:
            name = found[2]  # `self.errors.count()`: the instance's frame, unless this body assigns it
            if name.partition(".")[2] in own_attributes:
                continue
        elif name in ("self", "cls"):
            continue
        root = derived.root(name) if "." not in name else name
        if root is None:
            continue  # bound here from something else: not the caller's frame
        entry = (root, method)
        if entry in seen:
            continue
        seen.add(entry)
        (on_params if root in params else on_free).append((root, method, node))
    return (params, on_params, on_free) if on_params or on_free else ()


# What a chain of calls and attributes holds, walked from its root name outward (see _Derivations.chain).
_FRAME, _GROUPED, _NA, _RDD, _WRITER = "frame", "grouped", "na", "rdd", "writer"
# DataFrame methods whose result is a DataFrame made from the receiver (its actions scan the receiver).
_FRAME_STEPS = _SAME_ROWS | _COMBINE | frozenset(("limit", "agg", "describe", "summary", "transform"))


def _step(state: str, member: str, called: bool) -> str | None:
    """The state after `.member` (called or not) on a value in `state`; None when it is no longer a frame's."""
    if state == _FRAME:
        if not called:
            return {"write": _WRITER, "na": _NA, "rdd": _RDD}.get(member)
        if member in _GROUPING:
            return _GROUPED
        if member == "writeTo":
            return _WRITER
        return _FRAME if member in _FRAME_STEPS else None
    if state == _GROUPED and called:
        return _FRAME if member in _GROUPED_RESULT else _GROUPED if member == "pivot" else None
    if state == _NA and called:
        return _FRAME if member in ("fill", "drop", "replace") else None
    if state == _RDD and called:
        return _RDD if member in _RDD_SAME else None
    if state == _WRITER and called:
        return _WRITER if member in WRITER_CONFIG else None
    return None


class _Derivations:
    """The names a function body binds by DataFrame transformations of one name (a parameter, a name of the
    scope around it, or another such name): `exploded = df.select(...)`, `df = df.withColumn(...)` (also in some
    branches only), `w = df.write.mode("overwrite")`. A name bound in any other way on any path is the body's own."""

    def __init__(self, body, params):
        self.values: dict = {}  # name -> the expressions its plain assignments give it
        self.opaque: set = set()  # names bound in other ways (loop targets, tuples, with, augmented ...)
        self.params = set(params)
        self.memo: dict = {}
        stack = [body]
        while stack:
            node = stack.pop()
            cls = node.__class__
            if cls is cst.FunctionDef or cls is cst.ClassDef:
                self.opaque.add(node.name.value)
                continue
            if cls is cst.Lambda:
                continue
            if cls is cst.Assign:
                for t in node.targets:
                    if t.target.__class__ is cst.Name:
                        self.values.setdefault(t.target.value, []).append(node.value)
                    else:
                        target_names(t.target, self.opaque)
            elif cls is cst.AnnAssign and node.value is not None and node.target.__class__ is cst.Name:
                self.values.setdefault(node.target.value, []).append(node.value)
            elif cls in _TARGETED:
                target_names(node.target, self.opaque)
            elif cls is cst.AsName:
                target_names(node.name, self.opaque)
            elif cls in _SCOPE_STATEMENTS:
                self.opaque.add("\0any")
            stack.extend(child_nodes(node))

    def chain(self, node) -> tuple | None:
        """(root name, state) of an action's receiver chain: lenient on methods it does not know (a frame stays a
        frame), strict on what groups (`groupBy(...)` then `count()` is a frame again) or writes."""
        steps = []
        while True:
            if isinstance(node, cst.Call):
                if not isinstance(node.func, cst.Attribute) or _empty(node):
                    return None
                steps.append((node.func.attr.value, True))
                node = node.func.value
            elif isinstance(node, cst.Attribute):
                steps.append((node.attr.value, False))
                node = node.value
            elif isinstance(node, cst.Subscript):
                node = node.value
            else:
                break
        if not isinstance(node, cst.Name):
            return None
        attribute = None
        if node.value == "self" and steps and not steps[-1][1]:
            attribute = "self." + steps.pop()[0]  # `self.errors.filter(...).count()`: from `self.errors` on
        state = _FRAME if attribute else self.state(node.value) or _FRAME
        for member, called in reversed(steps):
            after = _step(state, member, called)
            if after is None:
                if state in (_FRAME, _RDD) and called:
                    continue  # a method this reading does not know: the frame stays the caller's
                return None  # `df.columns.count(c)`, `w.mode(...).count`: no longer a frame
            state = after
        return (node.value, state, attribute) if attribute else (node.value, state)

    def state(self, name: str) -> str | None:
        found = self._resolve(name)
        return found[1] if found else None

    def root(self, name: str) -> str | None:
        """The parameter or outer name `name` is made from; None when the body binds it from something else."""
        if "\0any" in self.opaque:
            return None
        found = self._resolve(name)
        return found[0] if found else None

    def _resolve(self, name: str, depth: int = 0):
        if name in self.memo:
            return self.memo[name]
        if name in self.opaque or depth > 20:
            return None
        values = self.values.get(name)
        if not values:
            return (name, _FRAME)  # a parameter or a name read from around the function
        self.memo[name] = None  # in progress: a cycle proves nothing
        chains = [_chain_steps(v) for v in values]
        result = None
        if all(c is not None for c in chains):
            others = [c for c in chains if c[0] != name]
            if name in self.params:
                # the parameter, rebound only from itself (`df = df.withColumn(...)`): still the caller's frame
                result = (name, _FRAME) if not others else None
            else:
                for base, steps in others:
                    found = self._resolve(base, depth + 1)
                    made = _apply(found, steps) if found is not None else None
                    if made is None or (result is not None and made != result):
                        result = None
                        break
                    result = made
            for base, steps in chains:
                if result is not None and base == name and _apply(result, steps) != result:
                    result = None  # `x = x.groupBy(...)`: a name whose kind changes on the way
        self.memo[name] = result
        return result


def _chain_steps(value) -> tuple | None:
    """(base name, [(member, called)] from the base outward) of a chain `base.a(...).b.c(...)`; None otherwise."""
    steps = []
    node = value
    while isinstance(node, (cst.Call, cst.Attribute)):
        if isinstance(node, cst.Call):
            if not isinstance(node.func, cst.Attribute) or _empty(node):
                return None
            steps.append((node.func.attr.value, True))
            node = node.func.value
        else:
            steps.append((node.attr.value, False))
            node = node.value
    if not isinstance(node, cst.Name) or not steps:
        return None
    return node.value, steps[::-1]


def _empty(call: cst.Call) -> bool:
    """`limit(0)`: the schema without a row; Spark plans it as an empty relation, no scan of what it is made from."""
    return method_name(call) == "limit" and len(call.args) == 1 and isinstance(call.args[0].value, cst.Integer) \
        and call.args[0].value.value == "0"


def _apply(found: tuple, steps) -> tuple | None:
    """(root, state) after the steps (strict: every step is a known transformation)."""
    root, state = found
    for member, called in steps:
        state = _step(state, member, called)
        if state is None:
            return None
    return root, state


