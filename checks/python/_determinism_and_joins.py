"""Shared by the determinism and join rules: join arguments, `df.col` references, and column lineage.

Column lineage answers two questions the semantic model does not: does DataFrame
``b`` derive from ``a`` (a self-join), and does DataFrame ``f`` still carry the
column ``a.c`` refers to.  Spark resolves ``a.c`` (``a["c"]``) to one attribute
of ``a``'s plan when the Python line runs; a DataFrame made from ``a`` by
``filter``, ``withColumn``, ``join``, ``groupBy`` (for its keys) ... keeps that
attribute, while ``select``/``drop`` can remove it and ``withColumn``/
``withColumnRenamed`` of the same name replace it.

A ``Frame`` is what this file says about one DataFrame: the sources it was built
from (``roots``), which of their columns it still passes through unchanged, and
the columns it made.  A column is a *token*: ``(root, name)`` for a source's own
column, ``(id(node), name)`` for one made by an expression.  A frame nothing here
decomposes (a helper's result, ``self.df``) is *opaque*: nothing is concluded
about what it lacks.

The tracker is updated as the walk leaves each assignment, so a rule looking at
``df = df.select(...)`` sees the ``df`` of before; it is shared by the rules of
one file (``ctx.memo``) and each assignment is read once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import libcst as cst

from linter.semantic import (
    DATAFRAME,
    UDF,
    keyword_arg,
    literal_string,
    method_name,
    positional_args,
)
from linter.sources.python import source_child_nodes

JOINS = frozenset({"join"})
# Methods after which the columns are those of the receiver, attribute for attribute.
_SAME = frozenset(
    "filter where orderBy sort sortWithinPartitions distinct dropDuplicates drop_duplicates limit cache persist "
    "unpersist repartition repartitionByRange coalesce sample hint localCheckpoint checkpoint offset "
    "withWatermark dropna".split()
)
_GROUPED_RESULTS = frozenset("agg count sum avg mean min max".split())
_SOURCES_BY_NAME = frozenset({"table"})  # `spark.table("t")` twice: the same relation, the same attributes
MONOTONIC = frozenset({"monotonically_increasing_id"})


@dataclass(frozen=True)
class Frame:
    roots: frozenset  # source tokens this frame was built from
    passthrough: frozenset  # roots whose columns it still carries (minus `dropped`)
    dropped: frozenset = frozenset()  # (root, name) pairs removed from the passthrough
    made: tuple = ()  # ((name, frozenset of tokens), ...) columns made or selected by name
    opaque: bool = False  # built from something this file does not show: absence is never concluded
    uncertain: frozenset = frozenset()  # names whose attribute a using-join decides

    def made_dict(self) -> dict:
        return dict(self.made)

    def tokens(self, name: str) -> Optional[frozenset]:
        """The possible tokens of column ``name`` of this frame (None when it is not known to have one)."""
        made = self.made_dict()
        if name in made:
            return made[name]
        found = frozenset((r, name) for r in self.passthrough if (r, name) not in self.dropped)
        return found or None

    def carries(self, token) -> bool:
        root, name = token
        if root in self.passthrough and token not in self.dropped:
            return True
        return any(token in tokens for tokens in self.made_dict().values())

    def with_made(self, name: str, tokens: frozenset, drop_name: bool = True) -> "Frame":
        made = [(n, t) for n, t in self.made if n != name] + [(name, tokens)]
        dropped = self.dropped | {(r, name) for r in self.passthrough} if drop_name else self.dropped
        return replace(self, made=tuple(made), dropped=frozenset(dropped))

    def without(self, name: str) -> "Frame":
        return replace(self, made=tuple((n, t) for n, t in self.made if n != name),
                       dropped=self.dropped | {(r, name) for r in self.passthrough})


@dataclass
class Tracker:
    """Name -> Frame per function (innermost first, then the module), as the walk has met them."""

    frames: dict = field(default_factory=dict)  # (scope id, name) -> Frame or None
    seen: set = field(default_factory=set)
    monotonic_names: set = field(default_factory=set)  # (scope id, name) of a Column/Window built on monotonic ids
    monotonic_tokens: set = field(default_factory=set)
    udf_tokens: dict = field(default_factory=dict)  # token of a column made by a Python UDF -> the UDF's name


def tracker(ctx) -> Tracker:
    found = ctx.memo.get("lineage")
    if found is None:
        found = ctx.memo["lineage"] = Tracker()
    return found


# libcst's node classes are ABCs (a slow isinstance) and none of them has subclasses: the scans below
# compare classes.
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
_BRANCHES = (cst.If, cst.For, cst.While, cst.Try, cst.Else)


def _scopes(ctx) -> list:
    """Ids of the enclosing functions, innermost first, then 0 (the module)."""
    function, lambda_ = _FUNCTIONS
    out = [id(a) for a in reversed(ctx.ancestors) if a.__class__ is function or a.__class__ is lambda_]
    out.append(0)
    return out


def enter_function(ctx, node: cst.FunctionDef) -> None:
    """Parameters hide the module's names of the same spelling."""
    t = tracker(ctx)
    if id(node) in t.seen:
        return
    t.seen.add(id(node))
    params = node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        t.frames[(id(node), p.name.value)] = PARAM


PARAM = "param"  # the tracker's value for a function parameter


def _lookup(ctx, name: str):
    t = tracker(ctx)
    for scope in _scopes(ctx):
        if (scope, name) in t.frames:
            return True, t.frames[(scope, name)], scope
    return False, None, None


def is_monotonic_name(ctx, name: str) -> bool:
    t = tracker(ctx)
    if not t.monotonic_names:
        return False
    for scope in _scopes(ctx):
        if (scope, name) in t.monotonic_names:
            return True
        if (scope, name) in t.frames:
            return False
    return False


def leave_assign(ctx, node: cst.Assign) -> None:
    """Record what each plain name target now holds."""
    t = tracker(ctx)
    if id(node) in t.seen:
        return
    t.seen.add(id(node))
    targets = [tg.target for tg in node.targets if isinstance(tg.target, cst.Name)]
    if not targets:
        return
    value = node.value
    frame = frame_of(ctx, value) if ctx.semantic.is_dataframe(value) else None
    scope = _scopes(ctx)[0]
    monotonic = contains_monotonic(ctx, value)
    conditional = _conditional(ctx, node)
    for target in targets:
        before = t.frames.get((scope, target.value))
        if conditional and before is not None:
            # either value may reach what follows: what both could carry, and no conclusion about absence
            old = before if isinstance(before, Frame) else name_frame(ctx, target.value)
            if old is None or frame is None:
                frame = None
            else:
                made = dict(old.made)
                for n, ts in frame.made:
                    made[n] = made.get(n, frozenset()) | ts
                frame = Frame(old.roots | frame.roots, old.passthrough | frame.passthrough,
                              old.dropped & frame.dropped, tuple(made.items()), True, old.uncertain | frame.uncertain)
        t.frames[(scope, target.value)] = frame
        if monotonic and not ctx.semantic.is_dataframe(value):
            t.monotonic_names.add((scope, target.value))
        else:
            t.monotonic_names.discard((scope, target.value))


def udf_call(ctx, node) -> Optional[str]:
    """The name of a Python UDF of this file called in the expression, as written."""
    stack = [node]
    call = cst.Call
    while stack:
        current = stack.pop()
        cls = current.__class__
        if cls is call:
            value = ctx.semantic.infer(current.func)
            if value is not None and value.kind == UDF:
                return " ".join(ctx.code_for(current.func).split())
        elif cls in _FUNCTIONS:
            continue
        children = source_child_nodes(current)
        children.reverse()
        stack.extend(children)
    return None


def _conditional(ctx, node) -> bool:
    """An assignment inside an if, loop or try of its own function."""
    module = cst.Module
    for a in reversed(ctx.ancestors):
        if a is node:
            continue
        cls = a.__class__
        if cls in _FUNCTIONS or cls is module:
            return False
        if cls in _BRANCHES:
            return True
    return False


def contains_monotonic(ctx, node) -> bool:
    """``F.monotonically_increasing_id()`` inside the expression, directly or through a name built on it."""
    # Children in libcst's order (the same semantic questions asked in the same order: the model computes
    # some answers once, when first asked), without the whitespace and punctuation that hold no expression.
    names = tracker(ctx).monotonic_names  # what is_monotonic_name reads: nothing to find while it is empty
    is_function = ctx.semantic.is_function
    call, name, attribute = cst.Call, cst.Name, cst.Attribute
    stack = [node]
    while stack:
        current = stack.pop()
        cls = current.__class__
        if cls is call:
            func = current.func
            # `F.other(...)`: is_function's own first test, made here without the call
            if (func.__class__ is not attribute or func.attr.value in MONOTONIC) and is_function(func, MONOTONIC):
                return True
        elif cls is name:
            if names and is_monotonic_name(ctx, current.value):
                return True
            continue  # a Name has no child that is an expression
        elif cls in _FUNCTIONS:
            continue
        stack.extend(source_child_nodes(current))
    return False


def frame_of(ctx, node) -> Optional[Frame]:
    """The Frame of a DataFrame expression; None when its columns are not followed."""
    memo = ctx.memo
    key = ("frame", id(node))
    if key not in memo:
        memo[key] = _frame_of(ctx, node)
    return memo[key]


def _frame_of(ctx, node) -> Optional[Frame]:
    if isinstance(node, cst.Name):
        return name_frame(ctx, node.value) if ctx.semantic.is_dataframe(node) else None
    if isinstance(node, cst.Attribute):
        if not ctx.semantic.is_dataframe(node):
            return None
        root = ("attr", _scopes(ctx)[0], ctx.code_for(node))  # `self.orders`: one DataFrame, not followed
        return Frame(frozenset({root}), frozenset({root}), opaque=True)
    if not isinstance(node, cst.Call):
        return None
    method = method_name(node)
    if method is None:
        if ctx.semantic.is_function(node.func, {"broadcast"}) and positional_args(node):
            return frame_of(ctx, positional_args(node)[0])
        return _new_source(ctx, node)
    receiver_node = node.func.value
    value = ctx.semantic.infer(receiver_node)
    if value is None or value.kind != DATAFRAME:
        if method in _GROUPED_RESULTS and isinstance(receiver_node, cst.Call):
            return _grouped(ctx, receiver_node, node)
        return _new_source(ctx, node)
    receiver = frame_of(ctx, receiver_node)
    if receiver is None:
        return None
    return _apply(ctx, receiver, method, node)


def _new_source(ctx, node: cst.Call) -> Optional[Frame]:
    value = ctx.semantic.infer(node)
    if value is None or value.kind != DATAFRAME:
        return None
    method = method_name(node)
    args = positional_args(node)
    made_here = method in ("table", "sql", "createDataFrame", "range", "load", "csv", "json", "parquet", "orc",
                           "text", "jdbc", "avro", "delta", "xml")
    root = ("node", id(node))
    if method in _SOURCES_BY_NAME and args and literal_string(args[0]) is not None:
        root = ("table", literal_string(args[0]))
    # a helper's result, a library's DataFrame: what it carries is not in this file (opaque)
    return Frame(frozenset({root}), frozenset({root}), opaque=not made_here)


def _grouped(ctx, grouping: cst.Call, result: cst.Call) -> Optional[Frame]:
    """``df.groupBy(keys).agg(...)``: the keys keep their attributes; aggregates are new columns."""
    if method_name(grouping) not in ("groupBy", "groupby") or not ctx.semantic.is_dataframe(grouping.func.value):
        return None
    base = frame_of(ctx, grouping.func.value)
    if base is None:
        return None
    out = Frame(base.roots, frozenset(), opaque=base.opaque)
    for arg in grouping.args:
        if arg.star:
            return None
        item = _item(ctx, base, arg.value)
        if item is None:
            return None
        name, tokens = item
        out = out.with_made(name, tokens, drop_name=False)
    for arg in result.args:
        call = arg.value
        if arg.keyword is None and not arg.star and isinstance(call, cst.Call) and method_name(call) == "alias":
            alias_args = positional_args(call)
            name = literal_string(alias_args[0]) if alias_args else None
            if name is not None:
                out = out.with_made(name, frozenset({(id(call), name)}), drop_name=False)
    return out


def _item(ctx, frame: Frame, node):
    """(output name, tokens) of a plain select or grouping item; None when it is not plain."""
    text = literal_string(node)
    if text is not None:
        if text == "*" or "." in text or "`" in text:
            return None
        tokens = frame.tokens(text)
        return (text, tokens) if tokens is not None else ((text, frozenset({("unknown", text)})) if frame.opaque else None)
    if isinstance(node, cst.Call) and ctx.semantic.is_function(node.func, {"col", "column"}):
        args = positional_args(node)
        return _item(ctx, frame, args[0]) if args and literal_string(args[0]) is not None else None
    ref = column_ref(ctx, node)
    if ref is not None:
        owner, name = ref
        tokens = tokens_of_ref(ctx, owner, name)
        return (name, tokens) if tokens is not None else None
    if isinstance(node, cst.Call) and method_name(node) in ("alias", "name"):
        args = positional_args(node)
        name = literal_string(args[0]) if args else None
        if name is None:
            return None
        return name, frozenset({(id(node), name)})
    return None


def _apply(ctx, frame: Frame, method: str, node: cst.Call) -> Optional[Frame]:
    args = positional_args(node)
    if method in _SAME:
        return frame
    if method == "alias":
        return frame  # a subquery alias keeps the attributes: `a.c` still names the shared one
    if method == "withColumn" and len(args) == 2 and literal_string(args[0]) is not None:
        name = literal_string(args[0])
        token = (id(node), name)
        if contains_monotonic(ctx, args[1]):
            tracker(ctx).monotonic_tokens.add(token)
        udf = udf_call(ctx, args[1])
        if udf is not None:
            tracker(ctx).udf_tokens[token] = udf
        return frame.with_made(name, frozenset({token}))
    if method == "withColumnRenamed" and len(args) == 2 and literal_string(args[0]) and literal_string(args[1]):
        old, new = literal_string(args[0]), literal_string(args[1])
        tokens = frame.tokens(old)
        renamed = frame.without(old).with_made(new, frozenset({(id(node), new)}))
        if tokens is not None and tokens & tracker(ctx).monotonic_tokens:
            tracker(ctx).monotonic_tokens.add((id(node), new))
        return renamed
    if method == "drop":
        out = frame
        for arg in args:
            text = literal_string(arg)
            if text is not None:
                out = out.without(text)
                continue
            ref = column_ref(ctx, arg)
            if ref is None:
                return None
            tokens = tokens_of_ref(ctx, *ref) or frozenset()
            out = replace(out, dropped=out.dropped | {t for t in tokens if t[0] in out.passthrough},
                          made=tuple((n, ts - tokens) for n, ts in out.made if ts - tokens))
        return out
    if method == "select":
        items = list(node.args)
        if len(items) == 1 and isinstance(items[0].value, (cst.List, cst.Tuple)) and not items[0].star:
            items = [cst.Arg(e.value) for e in items[0].value.elements]
        out = Frame(frame.roots, frozenset(), opaque=frame.opaque, uncertain=frame.uncertain)
        for arg in items:
            if arg.star or arg.keyword is not None:
                return None
            if literal_string(arg.value) == "*":
                out = replace(out, passthrough=frame.passthrough, dropped=frame.dropped, made=frame.made + out.made)
                continue
            item = _item(ctx, frame, arg.value)
            if item is None:
                return None
            name, tokens = item
            if isinstance(arg.value, cst.Call) and method_name(arg.value) in ("alias", "name") \
                    and contains_monotonic(ctx, arg.value):
                tracker(ctx).monotonic_tokens.update(tokens)
            out = out.with_made(name, tokens, drop_name=False)
        return out
    if method == "join":
        other_node = args[0] if args else keyword_arg(node, "other")
        other = frame_of(ctx, other_node) if other_node is not None else None
        if other is None:
            return None
        made = dict(frame.made)
        for n, t in other.made:
            made[n] = made.get(n, frozenset()) | t
        on = join_condition(node)
        uncertain = frame.uncertain | other.uncertain | frozenset(using_keys(on) or ())
        return Frame(frame.roots | other.roots, frame.passthrough | other.passthrough, frame.dropped | other.dropped,
                     tuple(made.items()), frame.opaque or other.opaque, uncertain)
    if method in ("union", "unionAll", "unionByName"):
        return frame
    return None


def join_condition(call: cst.Call):
    """The ``on`` argument of ``a.join(b, on, how)``."""
    given = keyword_arg(call, "on")
    if given is not None:
        return given
    args = positional_args(call)
    return args[1] if len(args) > 1 else None


def using_keys(on) -> Optional[list]:
    """``"id"`` or ``["id", "day"]``: the names of a join by column names."""
    if on is None:
        return None
    text = literal_string(on)
    if text is not None:
        return [text]
    if isinstance(on, (cst.List, cst.Tuple)):
        names = [literal_string(e.value) for e in on.elements]
        return names if names and all(n is not None for n in names) else None
    return None


def column_ref(ctx, node) -> Optional[tuple]:
    """``(owner name, column)`` for ``orders.amount`` or ``orders["amount"]`` on a DataFrame name."""
    cls = node.__class__
    if cls is cst.Attribute and node.value.__class__ is cst.Name:
        value = ctx.semantic.infer(node)
        if value is not None and value.kind == "Column" and ctx.semantic.is_dataframe(node.value):
            return node.value.value, node.attr.value
        return None
    if cls is cst.Subscript and node.value.__class__ is cst.Name and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and literal_string(index.value) is not None \
                and ctx.semantic.is_dataframe(node.value):
            return node.value.value, literal_string(index.value)
    return None


def column_refs(ctx, node) -> list:
    """Every ``df.c`` / ``df["c"]`` in an expression, in source order, with its node."""
    out = []
    stack = [node]
    while stack:
        current = stack.pop()
        ref = column_ref(ctx, current)
        if ref is not None:
            out.append((current, ref))
            continue
        if current.__class__ in _FUNCTIONS:
            continue
        children = source_child_nodes(current)
        children.reverse()
        stack.extend(children)
    return out


def tokens_of_ref(ctx, owner: str, name: str) -> Optional[frozenset]:
    frame = name_frame(ctx, owner)
    if frame is None:
        return None
    return frame.tokens(name)


def name_frame(ctx, owner: str) -> Optional[Frame]:
    """The Frame a DataFrame name holds here."""
    found, frame, scope = _lookup(ctx, owner)
    if found and isinstance(frame, Frame):
        return frame
    value = ctx.semantic.lookup(owner)
    if value is None:
        scope_node = ctx.semantic.binding_scope(owner)
        value = ctx.semantic.evidence_value(owner, scope_node.node) if scope_node is not None else None
    if value is None or value.kind != DATAFRAME:
        return None
    if found and frame == PARAM:
        root = ("name", scope, owner)  # a parameter: one DataFrame, whose columns it passes through
        return Frame(frozenset({root}), frozenset({root}))
    root = ("name", scope if found else _scopes(ctx)[0], owner)
    return Frame(frozenset({root}), frozenset({root}), opaque=True)


def receiver_chain(node: cst.Call):
    """The calls of a method chain from its first, and the expression it starts from."""
    calls = []
    expr = node
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        calls.append(expr)
        expr = expr.func.value
    return expr, list(reversed(calls))
