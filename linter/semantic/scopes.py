"""Scopes and bindings: imports, assignments, parameters, returns, recorded as the walk meets them."""

from __future__ import annotations

import builtins
import functools
import re
from typing import Optional

import libcst as cst

from linter.semantic.api import DLT_DATASETS, SESSION_ATTRIBUTES
from linter.semantic.bounds import BOUNDED, UNBOUNDED, may_write
from linter.semantic.function_names import STAR_EXPORTS
from linter.semantic.values import (
    CLASS, CONTEXT, DATAFRAME, DATAFRAMES, FUNCTION, FUNCTIONS, IMPORT, INSTANCE, RDD, SESSION, UDF, WRITER,
    Value, _TYPES, _normalise, dotted_name, keyword_arg, literal_string, merge, method_name, positional_args,
    target_names,
)

# pyspark names read as pyspark's where the file binds them nowhere, imports no other frame library and
# star-imports nothing but pyspark (``Evidence.free_name``): a snippet, or a notebook cell after the one that imports
# them. Only names no other library's snippet would use bare; Python's own (`abs`, `filter`, `max`) are never free.
_FREE_NAMES = {
    **{name: f"{FUNCTIONS}.{name}" for name in (
        "udf pandas_udf col lit when expr broadcast rand randn uuid monotonically_increasing_id".split())},
    "F": FUNCTIONS, "Window": "pyspark.sql.Window", "StorageLevel": "pyspark.StorageLevel",
}

_TRANSPARENT_DECORATORS = frozenset(
    "staticmethod classmethod property cached_property abstractmethod override overload wraps cache lru_cache "
    "setter getter deleter total_ordering final".split()
)


class _Scope:
    __slots__ = ("kind", "names", "cond", "returns", "node", "attrs", "params")

    def __init__(self, kind: str, node=None):
        self.kind = kind  # module, function, class, lambda, comprehension
        self.names: dict[str, Optional[Value]] = {}
        self.cond = 0  # depth of if/for/while/try blocks inside this scope
        self.returns: list = []
        self.node = node  # the Module, FunctionDef or ClassDef (evidence reads it); None for lambdas, comprehensions
        self.attrs: dict[str, Optional[Value]] = {}  # a class's `self.x` assignments
        self.params: dict[str, Optional[Value]] = {}  # a function's parameters as they came in



# a writer's last call, the one that writes (not `insertInto`: it adds to what the table holds)
_WRITE_TERMINALS = frozenset("save saveAsTable parquet csv json orc delta insertInto".split())


_TAINTED = "\0tainted"  # the key of `written_small` holding the targets a function writes with a frame not proven small


def _replaces(mode) -> bool:
    """Whether a write in this save mode (a node, or None for none given) leaves only what it writes."""
    return mode is None or (literal_string(mode) or "").lower() in ("overwrite", "error", "errorifexists")


def written_spellings(key: str) -> tuple:
    """The records a read of ``key`` (as ``_written_key`` spells it) matches: the key, a Fabric lakehouse's
    `Tables/key`, and for `lakehouse.key` or `database.key`, `Tables/key` (the default lakehouse's table)."""
    if "/" in key or ":" in key:
        return (key,)
    if "." in key:
        return key, "Tables/" + key, "Tables/" + key.rsplit(".", 1)[1]
    return key, "Tables/" + key


def _written_key(key: str) -> str:
    """Table and view names match in any case (Spark's catalog does); paths keep theirs."""
    key = key.rstrip("/")
    if key.startswith("Tables/") and "/" not in key[7:]:
        return "Tables/" + key[7:].lower()  # a Fabric lakehouse's table, named in any case
    return key if "/" in key or ":" in key else key.lower()


_VIEWS = frozenset("createOrReplaceTempView createTempView createOrReplaceGlobalTempView createGlobalTempView".split())


@functools.lru_cache(maxsize=4096)
def _parsed_annotation(text: str):
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None


def _string_annotation(node):
    """The expression a string annotation (``"DataFrame"``) holds; each text parsed once per process."""
    text = literal_string(node)
    return None if text is None else _parsed_annotation(text)



def _placeholder(expr) -> bool:
    """`None` assigned to an attribute: a slot filled later (`self.dataframe = None` in `__init__`). A method that
    calls a DataFrame's method on the attribute runs after it is filled, so its value is what the other
    assignments give, not a merge with "unknown"."""
    return expr.__class__ is cst.Name and expr.value == "None"


def _statements(block, returns: list, attrs: dict, local: set) -> None:  # block: an IndentedBlock or an If
    """The `return` values, `self.x = ...` values and bound names of a function body, not of its nested scopes."""
    for stmt in (block,) if isinstance(block, cst.If) else block.body:  # an `elif` is an If in `orelse`
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Return):
                    returns.append(small.value)
                elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    for target in targets:
                        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                                and target.value.value == "self":
                            value = small.value if not isinstance(small, cst.AugAssign) else None
                            if not _placeholder(value):
                                attrs.setdefault(target.attr.value, []).append(value)
                        else:
                            target_names(target, local)
                elif isinstance(small, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
                    local.add("\0any")  # names bound in ways not read here: nothing in this method is decided
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            local.add(stmt.name.value)
        else:
            if isinstance(stmt, cst.For):
                target_names(stmt.target, local)
            elif isinstance(stmt, cst.With):
                for item in stmt.items:
                    if item.asname is not None:
                        target_names(item.asname.name, local)
            elif isinstance(stmt, cst.Try):
                for handler in stmt.handlers:
                    if handler.name is not None:
                        target_names(handler.name.name, local)
            for name in ("body", "orelse", "finalbody"):
                part = getattr(stmt, name, None)
                if isinstance(part, (cst.Else, cst.Finally)):
                    part = part.body
                if part is not None:
                    _statements(part, returns, attrs, local)
            for handler in getattr(stmt, "handlers", ()):
                _statements(handler.body, returns, attrs, local)


def _names_bound_here(expr, local: set) -> bool:
    """Does ``expr`` read a name its method binds (a parameter other than `self`, a local), or hold a scope of
    its own (a lambda, a comprehension, a walrus), which the class-level reading does not model?"""
    if "\0any" in local:
        return True
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            if node.value in local and node.value != "self":
                return True
            continue
        if isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.NamedExpr)):
            return True
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # `x.name`: only `x` is a name read
            continue
        if isinstance(node, cst.Arg):
            stack.append(node.value)  # `f(k=v)`: `k` names a parameter, not a variable
            continue
        stack.extend(node.children)
    return False


_MISSING = object()  # a name not bound before a block


class _Block:
    """An `if`, a loop or a `try` being walked: the names its branches bind, with what they held before it.

    Inside a branch a binding replaces the name's value (the statements after it in the branch see that value);
    when the statement ends, each name holds the join (``merge``) of what every way through it leaves: each
    branch of an `if`, and the state before it when there is no `else`, before a loop (which may run no
    round). A branch of an `if` that ends in `return` or `raise` leaves nothing after the statement and is not
    joined (a `break` or `continue` still carries its values out of the loop). A `try` ends with what its body
    (and `else`) left, or what one of its handlers left; a handler starts from either the state before the
    body or the one after it (the body may stop anywhere); a `finally` runs on the joined state. A walrus in
    an `if`'s test binds before either branch runs: it belongs to the enclosing statement."""

    __slots__ = ("scope", "node", "saved", "results", "constant", "body_end", "started", "finally_run")

    def __init__(self, scope, node, constant=None):
        self.scope = scope
        self.node = node
        self.saved: dict = {}  # name -> its value before the statement (_MISSING when it had none)
        # per finished way: an `if`'s branches as (name -> the value it left, whether it ends in return/raise),
        # a `try`'s handlers as name -> the value
        self.results: list = []
        self.constant = constant  # an `if` on a module flag: True / False when only one branch can run
        self.body_end: dict = {}  # a `try`: what its body left (a name it did not bind keeps its value)
        self.started = not isinstance(node, cst.If)  # an `if`: its test walked, its body entered
        self.finally_run = False  # a `try` whose `finally` started from the joined state

    def _state(self) -> dict:
        names = self.scope.names
        return {name: names.get(name, _MISSING) for name in self.saved}

    def _set(self, state: dict) -> None:
        names = self.scope.names
        for name, value in state.items():
            if value is _MISSING:
                names.pop(name, None)
            else:
                names[name] = value

    def finish_branch(self) -> None:
        """The end of an `if`'s body: keep what it left, and give the next branch the names as they were."""
        self.results.append((self._state(), _exits(self.node.body)))
        self._set(self.saved)

    def start_handler(self) -> None:
        """An `except` block of a `try`: the body stopped before its first binding or after its last."""
        self._set({name: _joined([old, self.body_end.get(name, old)]) for name, old in self.saved.items()})

    def start_try_else(self) -> None:
        self._set({name: self.body_end.get(name, old) for name, old in self.saved.items()})

    def join_try(self) -> None:
        """After a `try`: its body ran to its end (then its `else`), or one of its handlers ran."""
        if self.finally_run:
            return  # joined when the `finally` started: what it binds stands
        success = self._state() if self.node.orelse is not None else self.body_end
        self._join([success, *self.results])

    def join(self) -> None:
        """After an `if` or a loop (a `try` is ``join_try``'s)."""
        node = self.node
        has_else = isinstance(node, cst.If) and node.orelse is not None  # a loop may run no round
        last = self._state()
        if self.constant is True:
            ways = [self.results[0][0]] if self.results else [last]
        elif self.constant is False:
            ways = [last]
        else:
            if not isinstance(node, cst.If):
                last_exits = False
            elif node.orelse is None:
                last_exits = _exits(node.body)
            else:
                last_exits = isinstance(node.orelse, cst.Else) and _exits(node.orelse.body)
            ways = [*self.results, (last, last_exits)]
            if not has_else:
                ways.append((self.saved, False))  # no `else`, or a loop that may run no round: the state before it
            staying = [way for way, exits in ways if not exits]
            ways = staying or [way for way, _ in ways]
        self._join(ways)

    def _join(self, ways: list) -> None:
        self._set({name: _joined([way.get(name, old) for way in ways]) for name, old in self.saved.items()})


def _exits(body) -> bool:
    """Whether a block's last statement is a `return` or a `raise`: nothing after its statement runs."""
    statements = getattr(body, "body", ())
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def _joined(values: list):
    """The value a name may hold after ways through a statement left these (_MISSING: unbound there)."""
    values = [v for v in values if v is not _MISSING]
    if not values:
        return _MISSING
    joined = values[0]
    for value in values[1:]:
        if value is not joined:
            joined = merge(joined, value)
    return joined


class Scopes:
    """Scopes and bindings, fed by the engine's walk (see ``hooks``): the part of the model that reads statements."""

    def __init__(self, dataframe_functions: frozenset = frozenset(), text: Optional[str] = None):
        self.text = text  # the module's source, for the evidence pre-filter
        self.scopes: list[_Scope] = [_Scope("module")]
        self.later_defs: dict = {}  # see _enter_module
        self.call_sites: dict = {}
        self.star_modules: list[str] = []
        self.loop_depth = 0
        self.blocks: list[_Block] = []  # the `if`, loop and `try` statements the walk is in, innermost last
        self.extra_dataframe_functions = dataframe_functions
        # `if isinstance(df, DataFrame):` makes `df` a DataFrame inside the block (body id -> (name, value))
        self.narrowed: dict[str, Value] = {}
        self._narrowing: dict[int, tuple] = {}
        # `IS_SAMPLE = False` ... `if IS_SAMPLE: df = df.limit(n)`: the ids of blocks that never run, and how
        # deep the walk is inside one (bindings there are not recorded)
        self._dead_blocks: set[int] = set()
        self.dead = 0
        self._flags: Optional[dict[str, bool]] = None
        # tables and paths this file wrote (overwrite, not append) from a frame proven small: target -> bound
        self.written_small: dict[str, object] = {_TAINTED: set()}
        # every SQL that may write taints, even before any record (linter/neighbours.py reads a file so)
        self.scan_writes = False

    # -- hooks called by the walk ------------------------------------------------
    def hooks(self):
        visit = {
            cst.Module: self._enter_module,
            cst.Import: self._import,
            cst.ImportFrom: self._import_from,
            cst.FunctionDef: self._enter_function,
            cst.Lambda: self._enter_lambda,
            cst.ClassDef: self._enter_class,
            cst.ListComp: self._enter_comp,
            cst.SetComp: self._enter_comp,
            cst.DictComp: self._enter_comp,
            cst.GeneratorExp: self._enter_comp,
            cst.CompFor: self._comp_for,
            cst.Return: self._return,
            cst.If: self._enter_if,
            cst.IndentedBlock: self._enter_body,
            cst.SimpleStatementSuite: self._enter_body,
            cst.Try: self._enter_try,
            cst.ExceptHandler: self._enter_handler,
            cst.While: self._enter_loop,
            cst.For: self._enter_for,
            cst.Call: self._record_call,
        }
        leave = {
            cst.Assign: self._assign,
            cst.AnnAssign: self._ann_assign,
            cst.Expr: self._write,
            cst.AugAssign: self._aug_assign,
            cst.NamedExpr: lambda n: self._bind_target(n.target, self.infer(n.value)),
            cst.FunctionDef: self._leave_function,
            cst.Lambda: lambda n: self.scopes.pop(),
            cst.ClassDef: lambda n: self.scopes.pop(),
            cst.ListComp: lambda n: self.scopes.pop(),
            cst.SetComp: lambda n: self.scopes.pop(),
            cst.DictComp: lambda n: self.scopes.pop(),
            cst.GeneratorExp: lambda n: self.scopes.pop(),
            cst.If: self._leave_if,
            cst.IndentedBlock: self._leave_body,
            cst.SimpleStatementSuite: self._leave_body,
            cst.Try: self._leave_try,
            cst.ExceptHandler: self._leave_handler,
            cst.While: self._leave_loop,
            cst.For: self._leave_loop,
        }
        return visit, leave

    @property
    def in_loop(self) -> bool:
        return self.loop_depth > 0

    def _enter_module(self, node: cst.Module) -> None:
        self.scopes[0].node = node
        # the module's own functions defined after code that calls them (`main()` at the top, helpers below)
        self.later_defs = {s.name.value: s for s in node.body if isinstance(s, cst.FunctionDef)}
        self.call_sites: dict = {}  # function name -> [{parameter: Value of the argument}], in walk order

    def _record_call(self, node: cst.Call) -> None:
        """What a call of one of the module's functions passes, read where the call is (the caller's names):
        a parameter then knows the rows its callers give it (``Inference._with_call_sites``)."""
        func = node.func
        if func.__class__ is not cst.Name:
            return
        function = self.later_defs.get(func.value)
        if function is None or self.is_bound(func.value):
            return  # not the module's, or already walked (its rules have run): nothing to tell it
        params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        passed: dict = {}
        for i, arg in enumerate(a for a in node.args if a.keyword is None and not a.star):
            if i < len(params):
                passed[params[i]] = self.infer(arg.value)
        for arg in node.args:
            if arg.keyword is not None:
                passed[arg.keyword.value] = self.infer(arg.value)
        self.call_sites.setdefault(func.value, []).append(passed)

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.bind(alias.asname.name.value, Value(IMPORT, detail=full))
            else:
                top = full.split(".")[0]
                self.bind(top, Value(IMPORT, detail=top))

    def _import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module)
        if module is None:
            return
        if isinstance(node.names, cst.ImportStar):
            self.star_modules.append(_normalise(module))
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.bind(local, Value(IMPORT, detail=_normalise(f"{module}.{name}")))

    def _enter_function(self, node: cst.FunctionDef) -> None:
        returns = self.annotation_value(node.returns.annotation) if node.returns else None
        # Bound now so recursive and later calls see it; the return kind is
        # refined when the body has been read.
        decorators = [d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator for d in node.decorators]
        if any(self.is_function(d, {"udf", "pandas_udf"}) for d in decorators):
            self.bind(node.name.value, Value(UDF, detail=node, node=node))
        else:
            flags = None
            if returns is None and any(self.qualified_name(d) in DLT_DATASETS for d in decorators):
                returns = Value(DATAFRAME, UNBOUNDED, node=node)  # a Delta Live Tables dataset returns a DataFrame
            elif any(not self._transparent(d) for d in decorators):
                # a decorator of its own may return anything (a StreamingQuery, a wrapper): calls are unknown
                returns, flags = None, {"opaque"}
            self.bind(node.name.value, Value(FUNCTION, detail=returns, node=node, flags=flags))
        scope = _Scope("function", node)
        self.scopes.append(scope)
        params = node.params
        enclosing = self.scopes[-2].node if len(self.scopes) > 1 and self.scopes[-2].kind == "function" else None
        batch, kind = self.batch_parameter(node, enclosing), DATAFRAME
        if batch is None:
            batch, kind = self.rdd_callback_parameter(node), RDD
        first = node.params.params[0].name.value if node.params.params else None
        if batch is not None and first in ("self", "cls"):
            batch += 1  # `self` comes first (as `callback_params` reads it): the micro-batch is a later parameter
        for i, p in enumerate((*params.posonly_params, *params.params, *params.kwonly_params)):
            value = self._param_value(p)
            if value is None and i == batch:
                value = Value(kind, UNBOUNDED, flags={"inferred"},
                              why="`foreachBatch` gives it each micro-batch" if kind == DATAFRAME else
                              "`foreachRDD` gives it each micro-batch's RDD")
            scope.names[p.name.value] = scope.params[p.name.value] = value
        for p in (params.star_arg, params.star_kwarg):
            if isinstance(p, cst.Param):
                scope.names[p.name.value] = None

    def _leave_function(self, node: cst.FunctionDef) -> None:
        scope = self.scopes.pop()
        binding = self.lookup(node.name.value)
        if binding is None or binding.kind != FUNCTION or binding.node is not node:
            return
        if binding.detail is None and scope.returns and not binding.flags:
            result = scope.returns[0]
            for other in scope.returns[1:]:
                result = merge(result, other)
            binding.detail = result

    def _transparent(self, decorator) -> bool:
        """A decorator that keeps what the function returns (``staticmethod``, ``functools.cache`` ...)."""
        name = self.qualified_name(decorator) or dotted_name(decorator) or ""
        return name.split(".")[-1] in _TRANSPARENT_DECORATORS or name.startswith(("functools.", "typing.", "abc."))

    def _enter_class(self, node: cst.ClassDef) -> None:
        self.bind(node.name.value, Value(CLASS, detail=node.name.value, node=node))
        scope = _Scope("class", node)
        self.scopes.append(scope)
        # Methods annotated `-> DataFrame` are known before the methods that call them are read.
        if isinstance(node.body, cst.IndentedBlock):
            for stmt in node.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.returns is not None and all(
                    self._transparent(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                    for d in stmt.decorators
                ):
                    returns = self.annotation_value(stmt.returns.annotation)
                    if returns is not None:
                        scope.names[stmt.name.value] = Value(FUNCTION, detail=returns, node=stmt)
            self._prebind_methods(scope, node.body.body)

    def _param_value(self, p: cst.Param) -> Optional[Value]:
        """What a parameter is by its annotation, or by its name when it is `spark`; None when the caller decides."""
        value = self.annotation_value(p.annotation.annotation) if p.annotation else None
        return Value(SESSION) if value is None and p.name.value == "spark" else value

    def _prebind_methods(self, scope: _Scope, body) -> None:
        """What the class's methods return and assign to `self.x`, read before any method is walked, so a method
        defined first knows `self.load()` and `self.orders` of the methods after it. Only expressions the class
        alone decides are read here (built from `self`, module names and builtins, no name the method binds);
        and only DataFrames are recorded: the walk refines them when it reaches each method."""
        methods = [s for s in body if isinstance(s, cst.FunctionDef) and not s.asynchronous and all(
            self._transparent(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            for d in s.decorators)]
        for method in methods:
            returns, attrs, local = [], {}, set()
            _statements(method.body, returns, attrs, local)
            if not attrs and not (returns and method.returns is None and method.name.value not in scope.names):
                continue
            # read as in this method: `self.x` through the class, a parameter only when its annotation (or the
            # name `spark`) says what it is; any other parameter is the caller's and leaves the expression unread
            here = _Scope("function", None)
            for p in (*method.params.posonly_params, *method.params.params, *method.params.kwonly_params):
                value = self._param_value(p)
                if value is None:
                    local.add(p.name.value)
                elif p.name.value not in local:
                    here.names[p.name.value] = value
            for p in (method.params.star_arg, method.params.star_kwarg):
                if isinstance(p, cst.Param):
                    local.add(p.name.value)
            self.scopes.append(here)
            try:
                if returns and method.returns is None and method.name.value not in scope.names:
                    value = self._class_decided(returns, local)
                    if value is not None:
                        scope.names[method.name.value] = Value(FUNCTION, detail=value, node=method)
                for attr, exprs in attrs.items():
                    value = self._class_decided(exprs, local)
                    if value is not None and attr not in scope.attrs:
                        scope.attrs[attr] = value
            finally:
                self.scopes.pop()

    def _class_decided(self, exprs: list, local: set) -> Optional[Value]:
        """The merged DataFrame value of expressions that name nothing bound in their method; None otherwise."""
        result = None
        for expr in exprs:
            if expr is None or _names_bound_here(expr, local):
                return None
            value = self.infer(expr)
            if value is None or value.kind != DATAFRAME:
                return None
            result = value if result is None else merge(result, value)
        return result

    def _enter_lambda(self, node: cst.Lambda) -> None:
        scope = _Scope("lambda")
        self.scopes.append(scope)
        for p in node.params.params:
            scope.names[p.name.value] = None

    def _enter_comp(self, node) -> None:
        self.scopes.append(_Scope("comprehension"))

    def _comp_for(self, node: cst.CompFor) -> None:
        self._bind_target(node.target, None)

    def _return(self, node: cst.Return) -> None:
        scope = self._function_scope()
        if scope is not None:
            scope.returns.append(self.infer(node.value) if node.value is not None else None)

    def _enter_if(self, node: cst.If) -> None:
        self.scopes[-1].cond += 1
        constant = self._constant_test(node.test)
        self.blocks.append(_Block(self.scopes[-1], node, constant))
        if constant is not None:
            dead = node.body if constant is False else node.orelse
            if dead is not None:
                self._dead_blocks.add(id(dead.body if isinstance(dead, cst.Else) else dead))
        test = node.test
        while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            test = test.right  # `if pyspark.DataFrame and isinstance(data, pyspark.DataFrame):`
        if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance" \
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name):
            classes = test.args[1].value
            items = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
            values = [self.annotation_value(item) for item in items]
            if values and all(v is not None and v.kind == DATAFRAME for v in values):  # not (pd.DataFrame, DataFrame)
                self._narrowing[id(node.body)] = (
                    test.args[0].value.value,
                    Value(DATAFRAME, UNBOUNDED, flags={"inferred"}, why="`isinstance` says so"),
                )

    def _constant_test(self, test) -> Optional[bool]:
        """The value of an `if` test on a module flag (`IS_SAMPLE`, `not DEBUG`) assigned once, to a literal
        True or False, and not rebound in the current function; None when it may be either."""
        negate = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negate = test.expression, not negate
        if not isinstance(test, cst.Name) or self.text is None or test.value not in self.text:
            return None
        if self._flags is None:
            self._flags = self._module_flags()
        value = self._flags.get(test.value)
        if value is None:
            return None
        scope = self._function_scope()
        if scope is not None and test.value in scope.names:
            return None  # a parameter or a local of the same name
        return value != negate

    def module_assignment(self, name: str):
        """The value of the one top-level `NAME = value` of the module (an assignment statement of its own,
        `a = b = v` included); None when the module's top level assigns ``name`` never or more than once."""
        found = self._top_assignments().get(name)
        return found[0] if found is not None and len(found) == 1 else None

    def _top_assignments(self) -> dict:
        """name -> the values the module's top-level assignment statements give it (read once, when first asked)."""
        index = self.__dict__.get("_top_assignment_index")
        if index is None:
            index = self.__dict__["_top_assignment_index"] = {}
            for stmt in getattr(self.scopes[0].node, "body", ()):
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, cst.Assign):
                            for t in small.targets:
                                if isinstance(t.target, cst.Name):
                                    index.setdefault(t.target.value, []).append(small.value)
        return index

    def _module_flags(self) -> dict[str, bool]:
        """Module names assigned exactly once in the file, at the top level, to True or False."""
        flags: dict[str, bool] = {}
        for name in self._top_assignments():
            value = self.module_assignment(name)
            if isinstance(value, cst.Name) and value.value in ("True", "False"):
                flags[name] = value.value == "True"
        for name in list(flags):
            # once: no other assignment, augmented assignment, loop/with target or `global` rebinding in the text
            n = re.escape(name)
            assigned = re.findall(rf"(?m)^[ \t]*{n}[ \t]*(?::[^=\n]*)?=(?!=)", self.text)
            if len(assigned) != 1 or re.search(rf"\b{n}[ \t]*(?:[-+*/|&%]=|,[^=\n]*=(?!=))|"
                                               rf"\b(?:global|nonlocal|for|as)[ \t]+(?:\w+[ \t]*,[ \t]*)*{n}\b",
                                               self.text):
                del flags[name]
        return flags

    def _enter_body(self, node) -> None:
        """An indented block or a one-line suite (`if c: x = 1`)."""
        if id(node) in self._dead_blocks:
            self.dead += 1
        block = self.blocks[-1] if self.blocks else None
        if block is not None:
            if block.node.body is node:
                block.started = True  # an `if`'s test is behind: what it binds (a walrus) came before the branches
            elif isinstance(block.node, cst.Try):
                if block.node.orelse is not None and block.node.orelse.body is node:
                    block.start_try_else()  # a `try`'s `else` runs after a body that ran to its end
                elif block.node.finalbody is not None and block.node.finalbody.body is node:
                    block.join_try()  # `finally` runs on every way out
                    block.finally_run = True
        narrowing = self._narrowing.get(id(node))
        if narrowing is not None:
            name, value = narrowing
            narrowing += (self.narrowed.get(name),)
            self._narrowing[id(node)] = narrowing
            self.narrowed[name] = value

    def _leave_body(self, node) -> None:
        if id(node) in self._dead_blocks:
            self.dead -= 1
        block = self.blocks[-1] if self.blocks else None
        if block is not None and block.node.body is node:
            if isinstance(block.node, cst.If) and block.node.orelse is not None:
                block.finish_branch()  # the `else` (or `elif`) starts from the names as they were before the `if`
            elif isinstance(block.node, cst.Try):
                block.body_end = block._state()  # what a body that ran to its end leaves
        narrowing = self._narrowing.pop(id(node), None)
        if narrowing is not None:
            name, _, before = narrowing
            if before is None:
                self.narrowed.pop(name, None)
            else:
                self.narrowed[name] = before

    def _leave_if(self, node: cst.If) -> None:
        self.scopes[-1].cond -= 1
        self._end_block()

    def _end_block(self) -> None:
        block = self.blocks.pop()
        if isinstance(block.node, cst.Try):
            block.join_try()
        else:
            block.join()
        outer = self.blocks[-1] if self.blocks else None
        if outer is not None and outer.scope is block.scope:
            for name, old in block.saved.items():  # the enclosing branch bound them too
                outer.saved.setdefault(name, old)

    def _enter_try(self, node) -> None:
        self.scopes[-1].cond += 1
        self.blocks.append(_Block(self.scopes[-1], node))

    def _leave_try(self, node) -> None:
        self.scopes[-1].cond -= 1
        self._end_block()

    def _try_block(self) -> Optional[_Block]:
        """The `try` being walked whose handler is being entered or left, in the current scope."""
        block = self.blocks[-1] if self.blocks else None
        if block is not None and isinstance(block.node, cst.Try) and block.scope is self.scopes[-1]:
            return block
        return None

    def _enter_handler(self, node: cst.ExceptHandler) -> None:
        block = self._try_block()
        if block is not None:
            block.start_handler()

    def _leave_handler(self, node: cst.ExceptHandler) -> None:
        block = self._try_block()
        if block is not None:
            block.results.append(block._state())  # (a try's ways are states; an if's are (state, exits))

    def _enter_loop(self, node) -> None:
        self.scopes[-1].cond += 1
        self.loop_depth += 1
        self.blocks.append(_Block(self.scopes[-1], node))

    def _enter_for(self, node: cst.For) -> None:
        self._enter_loop(node)
        self._bind_target(node.target, None)

    def _leave_loop(self, node) -> None:
        self.scopes[-1].cond -= 1
        self.loop_depth -= 1
        self._end_block()

    def _write(self, node: cst.Expr) -> None:
        """`spark.createDataFrame(pdf).write.mode("overwrite").save("Tables/x")`: a later `load("Tables/x")` or
        `spark.table("x")` of this file reads back as few rows as were written (a notebook's own small table);
        `df.createOrReplaceTempView(name)` the same way: `spark.sql` over the view reads what `df` holds.
        Only a write that surely happens, of a frame proven small, vouches for a later read: one in a loop or
        under a condition, an append, an `insertInto`, a frame not proven small records the target as unbounded
        from then on; a write or view whose name the file cannot spell, and SQL that writes or defines (`INSERT`,
        `CREATE ... VIEW`, `MERGE`, SQL the file does not show), forget every target recorded before."""
        call = node.value
        if not isinstance(call, cst.Call) or self.dead:
            return
        method = method_name(call)
        if method in _VIEWS:
            args = positional_args(call)
            self._record_written(args[0] if args else keyword_arg(call, "name"), self.infer(call.func.value))
            return
        if method == "sql" and (len(self.written_small) > 1 or self.scan_writes):
            receiver = self.infer(call.func.value)
            args = positional_args(call)
            if receiver is not None and receiver.kind == SESSION and args:
                text = self.sql_text(args[0])
                if text is None or may_write(text):
                    self._forget_written()  # it may write or define any table or view
            return
        if method == "to_lakehouse_table":
            # sempy's FabricDataFrame, a pandas frame on the driver, saved as a table of the default lakehouse:
            # as many rows as the driver held (Spark's DataFrame has no such method)
            args = positional_args(call)
            mode = keyword_arg(call, "mode") or (args[1] if len(args) > 1 else None)
            self._record_written(args[0] if args else keyword_arg(call, "name"),
                                 Value(DATAFRAME, BOUNDED) if _replaces(mode) else None, "Tables/")
            return
        if method not in _WRITE_TERMINALS:
            return
        writer = self.infer(call.func.value)
        if writer is None or writer.kind != WRITER or not isinstance(writer.node, cst.Attribute):
            return
        mode = keyword_arg(call, "mode")
        inner = call.func.value
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
            if method_name(inner) == "mode" and inner.args:
                mode = inner.args[0].value
            inner = inner.func.value
        args = positional_args(call)
        target = args[0] if args else keyword_arg(call, "path") or keyword_arg(call, "name") \
            or keyword_arg(call, "tableName")
        replaces = method != "insertInto" and _replaces(mode)
        self._record_written(target, self.infer(writer.node.value) if replaces else None)

    def _forget_written(self) -> None:
        tainted = self.written_small[_TAINTED]
        self.written_small.clear()
        self.written_small[_TAINTED] = tainted | {None}  # None: every name is tainted from now on

    def _record_written(self, target, frame: Optional[Value], prefix: str = "") -> None:
        """What a table, path or view named by ``target`` (after ``prefix``) holds from now on: the frame's bound
        when the write surely happens and the frame is proven small, else UNBOUNDED (a later read must not take
        an earlier small write's bound); every record is forgotten when the name cannot be spelled."""
        key = self.target_key(target) if target is not None else None
        if key is None:
            self._forget_written()
            return
        key = prefix + key
        sure = not self.in_loop and not self.scopes[-1].cond
        small = sure and frame is not None and frame.kind == DATAFRAME and frame.bound not in (None, UNBOUNDED)
        key = _written_key(key)
        self.written_small[key] = frame.bound if small else UNBOUNDED
        if not small and len(self.scopes) > 1:
            # in a function: it may run at any time, after any small write of the module (a `refresh()`)
            self.written_small[_TAINTED].add(key)

    def _assign(self, node: cst.Assign) -> None:
        value = self.infer(node.value)
        if value is None and isinstance(node.value, cst.Call):
            # `spark = get_spark_session()`, `spark = set_up_delta()`: a helper whose result is named `spark`
            # makes the session, as a parameter named `spark` is one (a foreign call is not None: it stays foreign)
            callee = dotted_name(node.value.func)
            if callee is not None and not hasattr(builtins, callee) and any(
                    isinstance(t.target, cst.Name) and t.target.value in SESSION_ATTRIBUTES for t in node.targets):
                value = Value(SESSION)  # (not `spark = object()`, `spark = dict(...)`: a builtin makes no session)
        for target in node.targets:
            if _placeholder(node.value) and isinstance(target.target, cst.Attribute):
                continue  # `self.dataframe = None` in `__init__`: no frame yet, not a frame of unknown rows
            self._bind_target(target.target, value)

    def _ann_assign(self, node: cst.AnnAssign) -> None:
        # What the value is made of beats what the annotation says (`reader: DataFrame = spark.read.format(...)`)
        value = self.infer(node.value) if node.value is not None else None
        if value is None:
            value = self.annotation_value(node.annotation.annotation)
        self._bind_target(node.target, value)

    def _aug_assign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, None)

    def _bind_target(self, target, value: Optional[Value]) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            cls = self.class_scope()
            if cls is not None:
                attr = target.attr.value
                cls.attrs[attr] = merge(cls.attrs[attr], value) if attr in cls.attrs else value
        elif isinstance(target, (cst.Tuple, cst.List)):
            element = Value(DATAFRAME, value.bound) if value is not None and value.kind == DATAFRAMES else None
            for el in target.elements:
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    element_value = None
                else:
                    element_value = element
                self._bind_target(inner, element_value)

    # -- scopes -------------------------------------------------------------------
    def class_scope(self) -> Optional[_Scope]:
        """The class whose method the walk is in (through nested functions), for ``self``."""
        scopes = self.scopes
        for i in range(len(scopes) - 1, 0, -1):
            if scopes[i].kind == "function" and scopes[i - 1].kind == "class":
                return scopes[i - 1]
        return None

    def binding_scope(self, name: str) -> Optional[_Scope]:
        """The function, class body or module whose code decides what ``name`` is (for evidence)."""
        scopes = self.scopes
        last = len(scopes) - 1
        owner = None
        for i in range(last, -1, -1):
            scope = scopes[i]
            if scope.kind == "class" and i != last:
                continue
            if name in scope.names:
                owner = i
                break
        if owner is None:
            owner = last  # not bound here: a global the code uses, judged where it is used
        for i in range(owner, -1, -1):
            if scopes[i].node is not None:
                return scopes[i]
        return None

    def _function_scope(self) -> Optional[_Scope]:
        for scope in reversed(self.scopes):
            if scope.kind == "function":
                return scope
            if scope.kind == "lambda":
                return None
        return None

    def bind(self, name: str, value: Optional[Value]) -> None:
        if self.dead:
            return  # inside `if FLAG:` with FLAG False for the whole module: never runs
        scope = self.scopes[-1]
        for block in reversed(self.blocks):
            if block.scope is not scope:
                break
            if block.started:  # (an `if` whose test binds: the enclosing statement's binding)
                if name not in block.saved:
                    block.saved[name] = scope.names.get(name, _MISSING)
                break
        scope.names[name] = value

    def lookup(self, name: str) -> Optional[Value]:
        scopes = self.scopes
        last = len(scopes) - 1
        for i in range(last, -1, -1):
            scope = scopes[i]
            if scope.kind == "class" and i != last:
                continue
            if name in scope.names:
                return scope.names[name]
        if name == "spark" or name == "sqlContext":  # what notebooks and Databricks jobs provide
            return Value(SESSION)
        if name == "sc":
            return Value(CONTEXT)
        for module in self.star_modules:
            if module == FUNCTIONS and name in STAR_EXPORTS:  # not every unbound name: `df` stays unknown
                return Value(IMPORT, detail=f"{module}.{name}")
        if name in _FREE_NAMES and self.free_name(name):
            # `udf(lambda x: x.strip())` in a file that never binds `udf` (a snippet, a notebook whose first cell
            # or a `%run` notebook imports it): nothing else can it be
            return Value(IMPORT, detail=_FREE_NAMES[name])
        return None

    def is_bound(self, name: str) -> bool:
        return any(name in s.names for s in self.scopes)

    # -- inference ----------------------------------------------------------------
    def annotation_value(self, node) -> Optional[Value]:
        if isinstance(node, cst.SimpleString):
            node = _string_annotation(node)
            if node is None:
                return None
        if isinstance(node, cst.Subscript):  # Optional[DataFrame]
            name = dotted_name(node.value) or ""
            if name.split(".")[-1] == "Optional" and len(node.slice) == 1:
                el = node.slice[0].slice
                if isinstance(el, cst.Index):
                    inner = self.annotation_value(el.value)
                    return Value(inner.kind, inner.bound) if inner is not None else None
            return None
        value = self.infer(node)
        if value is not None and value.kind == IMPORT:
            kind = _TYPES.get(value.detail)
            if kind is not None:
                return Value(kind, UNBOUNDED if kind in (DATAFRAME, RDD) else None, node=node)
        if value is not None and value.kind == CLASS:
            return Value(INSTANCE, detail=value.detail, node=node)
        return None
