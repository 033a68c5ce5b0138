"""An edit re-checks what it can change, not the whole file: the language server's fast first answer.

A Python file is cut into *chunks*: its top-level statements, and, inside a
top-level class, its header (decorators, the ``class`` line, class attributes)
and each method. For each chunk CPython's ``ast`` notes the names it binds at
module level and the free names it reads (scope-aware: a function's locals and
parameters are its own), plus ``self.x`` / ``cls.x`` attributes of its class
and the table and view names its strings mention. Chunks that only set up
(imports, a session or configuration, literal constants, the docstring) are
*common*: every partial check keeps them, and the names they bind link nothing.

After an edit, the lines that changed are found against the last checked text,
and only the chunks they fall in are read again with ``ast`` (a few lines, not
the file). What the edit can change is then:

- the edited chunks, every chunk that shares a linked name with one of them (a
  caller, a callee, another user of the same DataFrame), and, transitively,
  every chunk reading what any of those binds;
- checked with their *context*: the chunks defining what they read
  (transitively), the other users of the names they share, and the common ones.

A module name links only the chunks of one *binding* of it (``_Links``): one bound
afresh further down (``orders = spark.read...`` in the next job of a file of
jobs) starts another. An edit of a few statements of a long constructor
(``_focus``) links only what those statements bind and read, and the
constructor's other statements keep their items. The partial file leaves out
what no check reads: an import binding names to what they are bound to already,
a comment of no statement that is neither a ``noqa`` nor a notebook's marker
(its items are kept), the statements of a setup function or block that neither
configure the session nor touch a kept chunk's names, and the definitions of
what a chunk kept only for a table name it shares reads.

That part of the file is checked as a file of its own: the kept chunks' lines
and the comments between statements, in order, whole lines so that columns are
the file's; its findings, their rows mapped back, replace those of the chunks
it recomputes, and every other chunk keeps the findings it had (moved by the
lines the edit added or removed). When the part is most of the
file, or the edit is in a common chunk or a line naming a notebook's magic or
cell (a Databricks or Fabric source notebook is Python with comments to
CPython; the rows of its ``%sql`` cells belong to no chunk and every partial
check reads them again), or the changed rows do not parse alone, the whole
file is checked.

Rules may look further than names (a setting written as a string, a table
another chunk registers, a fact about the whole file), so a partial answer is
not proven equal to a whole-file check. The server therefore publishes it at
once and then checks the whole file in the background (linter/server/verify.py),
publishing again only if the answer differs; bench/server.py measures how often
it does. A partial answer is never the base of an exact claim: ``State.exact``
is False after one, and True again only after a whole-file check (or when the
edit changed no statement, only comments or blank lines between them, of an
exact answer: its items just move).
"""

from __future__ import annotations

import ast
import bisect
import copy
import re
from dataclasses import dataclass, field, replace

from linter.diagnostics import Location

# Calls whose first string argument names a table or view that later SQL and reads can refer to.
_REGISTERS = frozenset({
    "createOrReplaceTempView", "createTempView", "createGlobalTempView", "createOrReplaceGlobalTempView",
    "registerTempTable", "saveAsTable", "insertInto", "toTable", "table", "writeTo", "forName",
})
_SQL_TARGET = re.compile(r"(?i)\b(?:view|table|into|overwrite|merge\s+into)\s+(?:if\s+(?:not\s+)?exists\s+)?"
                         r"([`\w.]+)")  # what a statement creates or writes (its reads are words it uses)
_WORD = re.compile(r"[A-Za-z_][\w.]*")
_LAKEHOUSE_TABLE = re.compile(r"^Tables/[\w.]+$")
_NAME_STRING = re.compile(r"^`?[A-Za-z_][\w.]*`?$")
_SQL_START = re.compile(r"(?is)^\s*(?:\(\s*)?(?:select|insert|create|merge|with|delete|update|drop|alter|replace|cache|"
                        r"uncache|truncate|refresh|from|msck|analyze|optimize|vacuum|set|describe|show)\b")
_SETUP_CALLS = ("SparkSession.builder", "SparkConf(", "SparkContext(", ".config(", "conf.set(", "setConf(",
                "getOrCreate(")
# imports a partial check keeps whether or not its chunks read them: what tells a file's frames apart
_SPARK_IMPORT = re.compile(r"\b(?:pyspark|delta|awsglue|dlt|databricks|pandas|polars|dask|ibis|sqlalchemy|django|"
                           r"__future__)\b")
_SQL_SET = re.compile(r"(?i)[\"']\s*set\s+spark\.")  # spark.sql("SET spark.sql....=...")
_WHOLE_FILE_WORDS = ("noqa", "sparkcheck", "magic", "command ---", "cell ***", "metadata ***", "coding")
FORWARD_STEPS = 2  # a value derived from a derived value: further chains are left to the whole-file check
BINDER_NAMES = 8  # a definition binding more names is context, not rechecked (see _closure)
SHARED_READERS = 6  # a value read by more chunks links them no more (a session, a logger, `self._context`)
DEFINITION_STEPS = 2  # the callees of callees (a helper's return type read from its own helper)
FULL_SHARE = 0.5  # a partial check of more than this share of the file's code lines is a whole-file check


@dataclass(frozen=True)
class Chunk:
    start: int  # first row, 0-based (decorators included)
    end: int  # one past the last row
    text: str  # its lines, joined with "\n"
    binds: frozenset
    uses: frozenset
    common: bool = False
    parent: int | None = None  # index of its class's header chunk (a method)
    indent: int = 0  # columns of the statement's first line (4 for a method)
    defs: frozenset = frozenset()  # the names it binds by `def` or `class`
    imports: bool = False  # an import statement (kept in a partial check only when read, or Spark's)
    cuts: frozenset = frozenset()  # module names it binds afresh, reading no earlier value of them (see _Links)


@dataclass
class State:
    """The last answer for a document: its text, chunks and items; ``exact`` when it is a whole-file check's."""

    text: str
    chunks: list
    items: list
    exact: bool = True
    lines: list = field(default_factory=list)

    def __post_init__(self):
        if not self.lines:
            self.lines = self.text.split("\n")


@dataclass
class Plan:
    """What to check for a new text: ``keep`` rows (the partial file), the chunks whose items are new."""

    chunks: list  # the new text's chunks
    recheck: set  # indices of chunks whose items come from the partial check
    keep: set  # indices of chunks in the partial file (recheck, context, common)
    reused: dict  # new chunk index -> (old chunk index, rows moved)
    text: str  # the partial file: the rows below, joined
    moves: Moves = None
    rows: list = field(default_factory=list)  # the partial file's rows, as rows of the new text
    old_owner: list = field(default_factory=list)  # chunk_of_rows of the old text and of the new one
    new_owner: list = field(default_factory=list)
    focus: Focus | None = None


@dataclass(frozen=True)
class Focus:
    """An edit of a few statements of a long function (a constructor setting 130 attributes): the statements it
    can change are rechecked, the function's other statements keep their items (``_focus``)."""

    chunk: int  # the function's index among the new chunks
    old: int  # and among the old ones
    rows: frozenset  # rows (of the new text) whose items come from the partial check: those statements', its `def`
    names: frozenset  # what those statements bind and read (old and new): what the edit links
    binds: frozenset
    statements: frozenset  # their indices in the function's body
    moves: Moves = None  # old rows to new ones inside the function: the rows the edit replaced, exactly


# ----- chunks -----

def split(text: str) -> list | None:
    """The chunks of a whole file; None when CPython cannot parse it (the engine then says why)."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.split("\n")
    return _chunks(module.body, lines, first=True)


def _chunks(body: list, lines: list, first: bool = False) -> list:
    """Chunks of top-level statements (``first``: the module's, whose first may be its docstring)."""
    out: list = []
    for i, node in enumerate(body):
        start = _first_row(node)
        end = node.end_lineno  # end_lineno is 1-based inclusive: one past, 0-based
        if isinstance(node, ast.ClassDef):
            out.extend(_class_chunks(node, lines, len(out)))
            continue
        common = _is_common(node, first and i == 0, lines[start:end])
        binds, uses = _names(node)
        defs = frozenset({node.name}) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else frozenset()
        out.append(Chunk(start, end, "\n".join(lines[start:end]), frozenset(binds), frozenset(uses), common,
                         None, 0, defs, isinstance(node, (ast.Import, ast.ImportFrom)), _cuts(node) - uses))
    return out


def _cuts(node) -> frozenset:
    """The module names a top-level statement binds whenever it runs to its end: a ``def``'s or ``class``'s
    name, the plain names an assignment's targets are (not a loop's, a ``with``'s or a branch's: those may
    not run, and the earlier value stays)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return frozenset({node.name})
    if isinstance(node, ast.Assign):
        stack = list(node.targets)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        stack = [node.target]
    else:
        return frozenset()
    names = set()
    while stack:
        target = stack.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            stack.extend(target.elts)
        elif isinstance(target, ast.Starred):
            stack.append(target.value)
    return frozenset(names)


def _first_row(node) -> int:
    decorators = getattr(node, "decorator_list", None)
    return (decorators[0].lineno if decorators else node.lineno) - 1


def _class_chunks(node: ast.ClassDef, lines: list, index: int) -> list:
    """The header (everything but the methods) and one chunk per method, each method with its class's index."""
    methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    start = _first_row(node)
    end = node.end_lineno
    method_rows = set()
    for m in methods:
        method_rows.update(range(_first_row(m), m.end_lineno))
    header_rows = [r for r in range(start, end) if r not in method_rows]
    others = [s for s in node.body if s not in methods]
    binds = {node.name}
    uses: set = set()
    for part in node.decorator_list + node.bases + [k.value for k in node.keywords] + others:
        b, u = _names(part, cls=node.name)
        uses |= u | {f"{node.name}.{n}" for n in b}  # a class attribute is read through self
        binds |= {f"{node.name}.{n}" for n in b}
    header_text = "\n".join(lines[r] for r in header_rows)
    header = Chunk(start, end, header_text, frozenset(binds), frozenset(uses),
                   _is_common(node, False, [lines[r] for r in header_rows]) and not methods, None, 0,
                   frozenset({node.name}), cuts=frozenset({node.name}) - uses)
    return [header] + [_method_chunk(m, lines, node.name, index) for m in methods]


def _method_chunk(m, lines: list, cls: str, parent: int | None) -> Chunk:
    """A method: it binds ``Class.name`` (what ``self.name(...)`` reads) and the ``self`` attributes it sets."""
    b, u = _names(m, cls=cls)
    start, end = _first_row(m), m.end_lineno
    binds = {f"{cls}.{m.name}"} | (b - {m.name})  # `global` stores inside it stay module names
    return Chunk(start, end, "\n".join(lines[start:end]), frozenset(binds), frozenset(u), False, parent,
                 m.col_offset, frozenset({f"{cls}.{m.name}"}))


def _is_common(node, docstring_position: bool, lines: list) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if docstring_position and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
        return False  # a constant links its users (a module flag `IS_SAMPLE = False` decides their branches)
    if isinstance(node, (ast.Try, ast.If)) and all(
            isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass)) or
            (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant))
            for s in ast.walk(node) if isinstance(s, ast.stmt) and s is not node
            and not isinstance(s, (ast.Try, ast.If, ast.ExceptHandler))):
        return True  # `try: import x / except ImportError: x = None`
    text = "\n".join(lines)
    return any(word in text for word in _SETUP_CALLS) or _SQL_SET.search(text) is not None


# ----- names -----

class _Scope:
    __slots__ = ("globals", "loads", "locals")

    def __init__(self):
        self.locals: set = set()
        self.globals: set = set()
        self.loads: set = set()


def _names(node, cls: str | None = None) -> tuple[set, set]:
    """(module-level names the statement binds, names it reads that a module-level binding may give).

    Attributes of ``self`` and ``cls`` inside class ``cls`` count as ``Class.attr``; table and view names
    in strings as ``table:name`` (bound by the calls and SQL that create or write them)."""
    binds: set = set()
    uses: set = set()
    _Walker(binds, uses, cls).run(node)
    return binds, uses


class _Walker:
    def __init__(self, binds: set, uses: set, cls: str | None):
        self.binds, self.uses, self.cls = binds, uses, cls

    def run(self, node) -> None:
        if isinstance(node, ast.expr):
            self.expr_module(node)
        else:
            self.module_stmt(node)

    # module scope: stores bind, loads use
    def module_stmt(self, node) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.binds.add(node.name)
            for d in node.decorator_list:
                self.expr_module(d)
            self.function(node)
            return
        if isinstance(node, ast.ClassDef):
            self.binds.add(node.name)
            for part in node.decorator_list + node.bases + [k.value for k in node.keywords]:
                self.expr_module(part)
            for s in node.body:
                self.class_stmt(s, node.name)
            return
        for child in ast.iter_child_nodes(node):
            self.any_module(child)

    def class_stmt(self, node, name: str) -> None:
        saved = self.cls
        self.cls = name
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                self.expr_module(d)
            self.function(node)
        else:
            for child in ast.walk(node):  # a class attribute: what it reads (its own names are the class's)
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                    self.uses.add(child.id)
                self.strings(child)
        self.cls = saved

    def any_module(self, node) -> None:
        if isinstance(node, ast.stmt):
            self.module_stmt(node)
        elif isinstance(node, ast.expr):
            self.expr_module(node)
        elif isinstance(node, ast.alias):
            name = node.asname or node.name.split(".")[0]
            if name != "*":
                self.binds.add(name)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                self.binds.add(node.name)
            for child in ast.iter_child_nodes(node):
                self.any_module(child)
        else:
            for child in ast.iter_child_nodes(node):
                self.any_module(child)

    def expr_module(self, node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Name):
                if isinstance(current.ctx, ast.Load):
                    self.uses.add(current.id)
                else:
                    self.binds.add(current.id)
                continue
            if isinstance(current, ast.Lambda):
                self.function(current)
                continue
            if isinstance(current, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                self.function(current)
                continue
            if isinstance(current, ast.Attribute):
                if not isinstance(current.ctx, ast.Load):
                    self.attribute_store(current)
                elif isinstance(current.value, ast.Name):
                    self.uses.add(f"{current.value.id}.{current.attr}")  # `Report.build(...)` at module level
            self.strings(current)
            stack.extend(ast.iter_child_nodes(current))

    def attribute_store(self, node: ast.Attribute) -> None:
        base = node.value
        if isinstance(base, ast.Name):
            self.binds.add(base.id)  # `obj.attr = v` at module level changes what readers of `obj` see
            self.uses.add(base.id)

    # function scope: locals are its own; free loads are uses; `global` stores bind
    def function(self, node) -> None:
        scope = _Scope()
        args = getattr(node, "args", None)  # none for a comprehension
        if args is not None:
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if a is not None:
                    scope.locals.add(a.arg)
                    if a.annotation is not None:
                        self.expr_module(a.annotation)
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                self.expr_module(default)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            self.expr_module(node.returns)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in node.generators:
                for n in ast.walk(gen.target):
                    if isinstance(n, ast.Name):
                        scope.locals.add(n.id)
            body = [node]
        elif isinstance(node, ast.Lambda):
            body = [node.body]
        else:
            body = node.body
        nested: list = []
        for stmt in body:
            self._collect(stmt, scope, nested, top=node)
        for name in scope.loads:
            if name not in scope.locals or name in scope.globals:
                self.uses.add(name)
        for inner in nested:
            before = set(self.uses)
            self.uses = set()
            self.function(inner)
            free = self.uses
            self.uses = before | {n for n in free if n not in scope.locals or n in scope.globals}

    def _collect(self, node, scope: _Scope, nested: list, top) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current is not top and isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                                           ast.ListComp, ast.SetComp, ast.DictComp,
                                                           ast.GeneratorExp, ast.ClassDef)):
                if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    scope.locals.add(current.name)
                    stack.extend(current.decorator_list)
                if isinstance(current, ast.ClassDef):
                    # approximate: a local class's body read as the function's
                    stack.extend(current.bases + [k.value for k in current.keywords] + current.body)
                    continue
                if isinstance(current, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                    stack.append(current.generators[0].iter)  # evaluated in the enclosing scope
                nested.append(current)
                continue
            if isinstance(current, ast.Global):
                scope.globals.update(current.names)
                continue
            if isinstance(current, ast.Nonlocal):
                scope.loads.update(current.names)
                continue
            if isinstance(current, ast.Name):
                if isinstance(current.ctx, ast.Load):
                    scope.loads.add(current.id)
                else:
                    scope.locals.add(current.id)
                    if current.id in scope.globals:
                        self.binds.add(current.id)
                continue
            if isinstance(current, ast.alias):
                scope.locals.add(current.asname or current.name.split(".")[0])
                continue
            if isinstance(current, ast.ExceptHandler) and current.name:
                scope.locals.add(current.name)
            if isinstance(current, ast.Attribute):
                base = current.value
                if self.cls and isinstance(base, ast.Name) and base.id in ("self", "cls"):
                    key = f"{self.cls}.{current.attr}"
                    (self.uses if isinstance(current.ctx, ast.Load) else self.binds).add(key)
                elif isinstance(base, ast.Name):
                    self.uses.add(f"{base.id}.{current.attr}")  # `Actions.helper(...)`: a class of the file's
            self.strings(current)
            stack.extend(ast.iter_child_nodes(current))
        for name in scope.globals:
            if name in scope.locals:
                self.binds.add(name)

    def strings(self, node) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in _REGISTERS and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                table = "table:" + node.args[0].value.strip("`").lower()
                self.binds.add(table)
                self.uses.add(table)
            elif name in ("save", "load") and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                # a path written and read back (`save("Tables/x")`, then `load("Tables/x")`: Fabric's table `x`)
                path = node.args[0].value.rstrip("/")
                table = "table:" + (path[7:].lower() if _LAKEHOUSE_TABLE.match(path) else path)
                self.binds.add(table)
                self.uses.add(table)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 20000:
            value = node.value
            if _NAME_STRING.match(value):  # spark.table("db.orders"), a view's name in a constant
                self.uses.add("table:" + value.strip("`").lower())
            elif _SQL_START.match(value):  # SQL: what it creates or writes, and every word it reads
                for m in _SQL_TARGET.finditer(value):
                    self.binds.add("table:" + m.group(1).strip("`").lower())
                for word in _WORD.findall(value):
                    self.uses.add("table:" + word.lower())


# ----- planning -----

last_reason = ""  # why the last plan() gave the whole file (bench/server.py prints the reasons)


def _whole(reason: str):
    global last_reason
    last_reason = reason


def plan(old: State, text: str) -> Plan | None:
    """What to check for ``text`` after ``old``; None: check the whole file."""
    if not old.chunks:
        return _whole("the last text CPython could read had no statements")
    new_lines = text.split("\n")
    old_lines = old.lines
    limit = min(len(old_lines), len(new_lines))
    prefix = 0
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    if prefix == len(old_lines) == len(new_lines):
        return _whole('the same text (a save): the whole file, as at open')
    suffix = 0
    while suffix < limit - prefix and old_lines[-1 - suffix] == new_lines[-1 - suffix]:
        suffix += 1
    a, b = prefix, len(old_lines) - suffix  # old rows [a, b) changed (empty: lines inserted before row a)
    delta = len(new_lines) - len(old_lines)
    changed = old_lines[a:b] + new_lines[a:len(new_lines) - suffix]
    if any(word in line.lower() for line in changed for word in _WHOLE_FILE_WORDS):
        return _whole('a suppression comment, a magic or a cell marker: what reaches past its chunk')
    owner = chunk_of_rows(old.chunks, len(old_lines))
    rows = range(a, min(max(b, a + 1), len(old_lines)))
    touched = {owner[r] for r in rows if owner[r] != -1}
    chunks_old = old.chunks
    if any(chunks_old[i].common or _is_header(chunks_old, i) for i in touched):
        return _whole("imports, setup, a class's own lines: what every other chunk reads")
    parents = {chunks_old[i].parent for i in touched}
    if len(parents) > 1:
        return _whole('edits in two classes')
    parent = parents.pop() if parents else None
    lo = min([a] + [chunks_old[i].start for i in touched])
    hi = max([b] + [chunks_old[i].end for i in touched])
    if parent is not None:
        header = chunks_old[parent]
        members = [c for c in chunks_old if c.parent == parent]
        if lo < min(c.start for c in members) or hi > max(c.end for c in members):
            return _whole("past its class's first or last method")
        fresh = _reparse(new_lines[lo:hi + delta], lo, members[0].indent, _class_name(header), parent)
    else:
        fresh = _reparse(new_lines[lo:hi + delta], lo, 0, None, None)
    if fresh is None:
        return _whole('the changed rows do not parse alone')
    entries = []  # (chunk with its parent as an old index, old index or None)
    for i, c in enumerate(chunks_old):
        if i in touched:
            continue
        if c.end <= lo:
            entries.append((c, i))
        elif c.start >= hi:
            entries.append((replace(c, start=c.start + delta, end=c.end + delta) if delta else c, i))
        elif i == parent:
            entries.append((replace(c, end=c.end + delta), i))
        else:
            return _whole('a chunk the region cuts through')
    entries.extend((replace(c, parent=parent), None) for c in fresh)
    entries.sort(key=lambda e: (e[0].start, e[0].parent is not None))
    where = {old_i: k for k, (_, old_i) in enumerate(entries) if old_i is not None}
    chunks, reused, edited = [], {}, set()
    for k, (c, old_i) in enumerate(entries):
        chunks.append(c if c.parent is None else replace(c, parent=where[c.parent]))
        if old_i is None:
            edited.add(k)
        else:
            reused[k] = (old_i, 0 if c.start == chunks_old[old_i].start else delta)
    for k in range(1, len(chunks)):
        if chunks[k].parent is None and chunks[k - 1].parent is None and chunks[k].start < chunks[k - 1].end:
            return _whole('chunks overlap')
    removed = set()  # names the edited chunks had: a name the edit removed still reaches its old readers
    for i in touched:
        removed |= chunks_old[i].binds | chunks_old[i].uses
    moves = Moves(lo, hi, delta)
    old_to_new = {old_i: k for k, (old_i, _) in reused.items()}
    stale = set()  # chunks whose items fix or quote rows the edit changed
    for item in old.items:
        row = item.finding.location.row - 1
        if 0 <= row < len(owner) and owner[row] in old_to_new and moves.touches(item):
            stale.add(old_to_new[owner[row]])
    focus = None
    if _same_code([chunks_old[i] for i in sorted(touched)], [chunks[i] for i in sorted(edited)]):
        if len(touched) == 1 and len(edited) == 1:  # a comment in a constructor: its statement's items only
            focus = _focus(chunks, next(iter(edited)), chunks_old[next(iter(touched))], next(iter(touched)),
                           Moves(a, b, delta), old.items, owner, same=True)
        recheck, keep = _closure(chunks, edited, set(), stale, alone=True, focus=focus)  # nothing else changes
    else:
        if len(touched) == 1 and len(edited) == 1:
            old_i, new_i = next(iter(touched)), next(iter(edited))
            focus = _focus(chunks, new_i, chunks_old[old_i], old_i, Moves(a, b, delta), old.items, owner)
            if focus is not None:
                removed = set(focus.names)
        unbound, bound, cuts_before, cuts_after = set(), set(), set(), set()
        for i in touched:
            unbound |= chunks_old[i].binds
            cuts_before |= chunks_old[i].cuts
        for i in edited:
            bound |= chunks[i].binds
            cuts_after |= chunks[i].cuts
        moved = (bound - unbound) | (cuts_before ^ cuts_after)  # a binding added, or one that now cuts or not
        unbound -= bound
        recheck, keep = _closure(chunks, edited, removed | unbound, stale, unbound=frozenset(unbound),
                                 moved=frozenset(moved), focus=focus)
    for i in list(keep):  # a method needs its class; a class kept needs a body
        if chunks[i].parent is not None:
            keep.add(chunks[i].parent)
    for i in list(keep):
        if _is_header(chunks, i) and not any(chunks[j].parent == i for j in keep):
            keep.add(next(j for j, c in enumerate(chunks) if c.parent == i))
    code = sum(_own_rows(chunks, i) for i, c in enumerate(chunks) if not c.common) or 1
    kept = sum(_own_rows(chunks, i) for i in keep if not chunks[i].common)
    if kept > FULL_SHARE * code:
        return _whole('too much of the file')
    for i in recheck:
        reused.pop(i, None)
    new_owner = chunk_of_rows(chunks, len(new_lines))
    rows = _partial_rows(new_lines, new_owner, keep, _headers(chunks))
    cut = _unread_rows(chunks, keep, recheck, focus) | (_setup_rows(chunks, keep) if SETUP_CUTS else set())
    if cut:
        rows = [r for r in rows if r not in cut]
    return Plan(chunks, recheck, keep, reused, "\n".join(new_lines[r] for r in rows), moves, rows, owner, new_owner,
                focus)


def _focus(chunks: list, e: int, before: Chunk, old_i: int, moves: Moves, items: list, owner: list,
           same: bool = False) -> Focus | None:
    """The statements of function chunk ``e`` an edit can change, when it binds more than ``BINDER_NAMES`` names
    (a constructor): linking its every name would reach every method reading any attribute it sets (edits of
    the 169-row ``__post_init__`` of spark-expectations' context.py were whole-file checks, 450 to 600 ms).

    The edit is focused when the function's signature and number of statements stay, and its changed
    statements call no method of the class, ``super()``, ``setattr`` and the like, nor return or yield (what
    reaches further than names show). Linked to them, transitively: statements sharing a local with them (the
    ``self`` or ``cls`` parameter aside), an attribute of the class, or a module value (not a function, class
    or import); every statement calling a method of the class or returning; and the statement of any old item
    whose fix reaches into the changed rows. Their rows and the ``def`` line's are rechecked; the function's
    other statements keep their items, and the partial file keeps of them only what the checked chunks read
    (``_unread_statements``). ``same``: the edit changed no code (a comment), so nothing else is linked."""
    c = chunks[e]
    if len(c.binds) <= BINDER_NAMES or not c.defs or c.defs != before.defs or c.parent is None:
        return None
    try:
        new_fn, old_fn = ast.parse(_dedented(c)).body, ast.parse(_dedented(before)).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(new_fn) != 1 or len(old_fn) != 1:
        return None
    new_fn, old_fn = new_fn[0], old_fn[0]
    count = len(new_fn.body)
    if not isinstance(new_fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or type(new_fn) is not type(old_fn) \
            or len(old_fn.body) != count or count < 2:
        return None
    offset, old_offset = c.start - _first_row(new_fn), before.start - _first_row(old_fn)
    body_row = c.start + new_fn.body[0].lineno - 1 - _first_row(new_fn)  # the body's first statement's row
    # the rows the edit changed: [lo, hi) of the old text, [lo, hi + delta) of the new
    lo, hi, delta = moves.lo, moves.hi, moves.delta
    if lo < body_row:
        return None  # the signature or a decorator: the whole function
    changed = set()
    for k in range(count):
        n, o = new_fn.body[k], old_fn.body[k]
        n_rows = (_first_row(n) + offset, n.end_lineno + offset)
        o_rows = (_first_row(o) + old_offset, o.end_lineno + old_offset)
        if o_rows[1] <= lo and n_rows == o_rows or o_rows[0] >= max(hi, lo + 1) and n_rows == (
                o_rows[0] + delta, o_rows[1] + delta):
            continue  # wholly above or below the changed rows: the same lines, the same statement
        if same or ast.dump(n) != ast.dump(o):
            changed.add(k)
    if not changed and not same:
        return None
    cls = _class_name(chunks[c.parent])
    values, callables = set(), set()
    for d in chunks:
        if not d.common:
            values |= d.binds - d.defs
            callables |= d.defs
    values -= callables
    args = new_fn.args
    first = (args.posonlyargs + args.args)[:1]
    own = first[0].arg if first else None
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a}
    prefix = cls + "."

    def links_of(stmt) -> tuple[set, set, bool]:
        """(names read or stored, attributes of ``own`` or module values; whether it reaches further)"""
        names, attrs, further = set(), set(), False
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == own:
                attrs.add(prefix + node.attr)
            elif isinstance(node, _KEEPS_STATEMENT):
                further = True
        further = further or bool(names & _KEEPS_NAMES) or bool(attrs & callables)
        return names, attrs, further

    new_links = [links_of(stmt) for stmt in new_fn.body]
    old_links = {k: links_of(old_fn.body[k]) for k in changed}
    if any(new_links[k][2] or old_links[k][2] for k in changed):
        return None  # the edit is in a call of the class's own methods, a return: what reaches further
    stores = set(params)
    for node in ast.walk(new_fn):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores.add(node.id)
    stores.discard(own)

    def shared(entry) -> set:
        names, attrs, _ = entry
        return {"local:" + n for n in names & stores} | (names & values) | (attrs - callables)

    def statement_of(row: int) -> int | None:
        for k, stmt in enumerate(new_fn.body):
            if _first_row(stmt) + offset <= row < stmt.end_lineno + offset:
                return k
        return None

    affected = set(changed)
    if not same:
        affected |= {k for k, entry in enumerate(new_links) if entry[2]}
    for item in items:
        row = item.finding.location.row - 1
        if 0 <= row < len(owner) and owner[row] == old_i and not moves.inside(row) and moves.touches(item):
            k = statement_of(moves.row(row))
            if k is not None:
                affected.add(k)
    if not same:
        links = set()
        for k in changed:
            links |= shared(old_links[k])
        sets = [shared(entry) for entry in new_links]
        frontier = set(affected)
        while frontier:
            for k in frontier:
                links |= sets[k]
            frontier = {k for k in range(count) if k not in affected and sets[k] & links}
            affected |= frontier
    rows = set(range(c.start, body_row))  # decorators, the `def` line(s)
    names, binds = set(), set()
    for fn, ks in ((new_fn, affected), (old_fn, () if same else changed)):
        for k in ks:
            b, u = set(), set()
            _Walker(b, u, cls).function(_alone(fn, fn.body[k]))
            names |= b | u
            if fn is new_fn:
                binds |= b
    for k in affected:
        stmt = new_fn.body[k]
        rows.update(range(_first_row(stmt) + offset, stmt.end_lineno + offset))
    return Focus(e, old_i, frozenset(rows), frozenset(names), frozenset(binds), frozenset(affected), moves)


def _unread_rows(chunks: list, keep: set, recheck: set, focus: Focus | None = None) -> set:
    """Rows of a context constructor the partial file can leave out: the statements of a function kept for what
    it binds (its items are kept, not recomputed) that bind nothing another kept chunk reads and read nothing
    another binds. A dataclass's ``__post_init__`` setting 130 attributes was 169 of the 396 rows of a partial
    check of the 3,058-line context.py of spark-expectations when the edited method reads a few of them.

    Cut only: a function (or method) of more than ``BINDER_NAMES`` bound names, not rechecked; its first
    statement (a docstring, or what keeps the body a body) stays, and so does every statement that binds a local
    a kept one reads, returns, yields, declares names global, or calls ``super()``, ``setattr`` and the like."""
    cut: set = set()
    linked = None
    for i in keep:
        c = chunks[i]
        focused = focus is not None and i == focus.chunk
        if (i in recheck and not focused) or c.common or not c.defs or len(c.binds) <= BINDER_NAMES \
                or _is_header(chunks, i):
            continue
        if linked is None:
            linked = set().union(*(d.binds for d in chunks if not d.common))
        bound, read = set(), set()
        for j in keep:
            if j != i and not chunks[j].common:
                bound |= chunks[j].binds
                read |= chunks[j].uses
        cls = _class_name(chunks[c.parent]) if c.parent is not None else None
        cut |= _unread_statements(c, bound, read & linked, cls, focus.statements if focused else frozenset())
    return cut


def _setup_rows(chunks: list, keep: set) -> set:
    """Rows of the setup chunks a partial file can leave out. A function or an ``if __name__ == "__main__":``
    block that creates or configures a session is common (in every partial check, its items kept) as a whole,
    though only its setup is what the checked chunks read: of the 156 rows of a partial check of the 2,000-line
    bench file, 75 were such jobs' ``main`` functions and blocks.

    Of its statements stay: the first; every one whose text names a setup call (``_SETUP_CALLS``, ``SET
    spark.``); every one that returns, yields or declares names global; every one that reads or binds a name a
    kept chunk binds or reads (a kept function's call site, a kept frame's use); and those binding what the
    ones kept read."""
    cut: set = set()
    bound = read = None
    for i in keep:
        c = chunks[i]
        if not c.common or c.imports or c.parent is not None or c.end - c.start < 4:
            continue
        statements = _setup_statements(c.text)
        if not statements:
            continue
        if bound is None:
            bound, read = set(), set()
            for j in keep:
                if not chunks[j].common:
                    bound |= chunks[j].binds
                    read |= chunks[j].uses
        kept, cut_here, needed = set(statements[0]), set(), set()  # its header and first statement
        for rows, keeps, stores, loads, binds, uses in statements[1:]:
            if keeps or binds & read or uses & bound or stores & needed:
                needed |= loads
                kept.update(rows)
            else:
                cut_here.update(rows)
        cut |= {c.start + r for r in cut_here - kept}
    return cut


_SETUPS: dict = {}


def _setup_statements(text: str) -> list | None:
    """A setup function's or ``if`` block's statements, last first after the header's rows: (rows, kept
    whatever they read, stores, loads, binds, uses); None when it is neither. Read once per text."""
    got = _SETUPS.get(text, False)
    if got is not False:
        return got
    out = None
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        module = None
    node = module.body[0] if module is not None and len(module.body) == 1 else None
    body = function = None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body, function = node.body, node
    elif isinstance(node, ast.If) and not node.orelse:
        body = node.body
    if body is not None and len(body) >= 2:
        lines = text.split("\n")
        out = [range(body[0].end_lineno)]
        for stmt in reversed(body[1:]):
            rows = range(_first_row(stmt), stmt.end_lineno)
            source = "\n".join(lines[r] for r in rows)
            stores, loads, keeps = set(), set(), False
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name):
                    (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
                elif isinstance(n, _KEEPS_STATEMENT):
                    keeps = True
            binds, uses = set(), set()
            if function is not None:
                _Walker(binds, uses, None).function(_alone(function, stmt))
            else:
                _Walker(binds, uses, None).run(stmt)
            keeps = keeps or any(word in source for word in _SETUP_CALLS) or _SQL_SET.search(source) is not None \
                or bool(loads & _KEEPS_NAMES)
            out.append((rows, keeps, stores, loads, binds, uses))
    if len(_SETUPS) > 1024:
        _SETUPS.clear()
    _SETUPS[text] = out
    return out


_KEEPS_STATEMENT = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)
# what sets or reads attributes the names do not show (a base class's constructor, attributes by name)
_KEEPS_NAMES = frozenset({"super", "setattr", "delattr", "getattr", "vars", "locals", "globals", "exec", "eval"})


def _unread_statements(c: Chunk, bound: set, read: set, cls: str | None, forced: frozenset = frozenset()) -> set:
    """The rows of the statements of function chunk ``c`` that bind nothing in ``read`` and read nothing in
    ``bound`` or ``read`` (the other kept chunks' names: what they bind, and what they read that the file
    binds; an import or a builtin links nothing). ``forced``: indices in its body of statements kept anyway
    (a focused edit's, ``_focus``), with the locals they read."""
    try:
        module = ast.parse(_dedented(c))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    fn = module.body[0] if len(module.body) == 1 else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(fn.body) < 2:
        return set()
    cut: set = set()
    kept = set(range(fn.body[0].end_lineno))  # the `def`, its decorators and first statement
    needed: set = set()  # locals the statements kept below read
    for k in range(len(fn.body) - 1, 0, -1):
        stmt = fn.body[k]
        stores, loads, keeps = set(), set(), k in forced
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
            elif isinstance(node, _KEEPS_STATEMENT):
                keeps = True
        binds: set = set()
        uses: set = set()
        _Walker(binds, uses, cls).function(_alone(fn, stmt))
        rows = range(_first_row(stmt), stmt.end_lineno)
        if keeps or binds & read or uses & (bound | read) or stores & needed or loads & _KEEPS_NAMES:
            needed |= loads
            kept.update(rows)
        else:
            cut.update(rows)
    return {c.start + r for r in cut - kept}  # a row shared with a kept statement (`a = 1; b = 2`) stays


def _alone(fn, stmt):
    """``fn`` with ``stmt`` as its only statement (its parameters kept: they are its locals)."""
    one = copy.copy(fn)
    one.body, one.decorator_list, one.returns = [stmt], [], None
    return one


def _own_rows(chunks: list, i: int) -> int:
    c = chunks[i]
    if _is_header(chunks, i):
        return c.end - c.start - sum(m.end - m.start for m in chunks if m.parent == i)
    return c.end - c.start


def _is_header(chunks: list, i: int) -> bool:
    return i in _headers(chunks)


def _headers(chunks: list) -> frozenset:
    """The indices of class headers (chunks some method names as its class), computed once per list."""
    key = id(chunks), len(chunks)
    cached = _HEADERS.get(key)
    if cached is None or cached[0] is not chunks:
        cached = (chunks, frozenset(c.parent for c in chunks if c.parent is not None))
        _HEADERS.clear()
        _HEADERS[key] = cached
    return cached[1]


_HEADERS: dict = {}


def _class_name(header: Chunk) -> str:
    names = [n for n in header.binds if "." not in n and not n.startswith("table:")]
    return names[0] if len(names) == 1 else "\0"


def _reparse(region: list, row_offset: int, indent: int, cls: str | None, parent: int | None) -> list | None:
    """The chunks of the changed rows, read alone (a class's methods without their indentation)."""
    if indent:
        pad = " " * indent
        stripped = []
        for line in region:
            if not line.strip():
                stripped.append("")
            elif line.startswith(pad):
                stripped.append(line[indent:])
            else:
                return None  # a line out of the class (or a tab-indented one): the file is split again
        source = "\n".join(stripped)
    else:
        source = "\n".join(region)
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if indent:
        if not all(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in module.body):
            return None  # a class attribute between methods: the header changed
        chunks = [_method_chunk(n, stripped, cls, parent) for n in module.body]
        return [replace(c, start=c.start + row_offset, end=c.end + row_offset, indent=indent,
                        text="\n".join(region[c.start:c.end])) for c in chunks]
    if any(isinstance(n, ast.ClassDef) for n in module.body):
        return None  # a class edited as a whole: the file is split again
    return [replace(c, start=c.start + row_offset, end=c.end + row_offset)
            for c in _chunks(module.body, region)]


def _same_code(old: list, new: list) -> bool:
    """The chunks say the same to Python (an edit of comments, blank lines or spacing only)."""
    if not old or len(old) != len(new):
        return False
    for a, b in zip(old, new):
        if a.indent != b.indent or a.parent is None and b.parent is not None:
            return False
        try:
            if ast.dump(ast.parse(_dedented(a))) != ast.dump(ast.parse(_dedented(b))):
                return False
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def _dedented(c: Chunk) -> str:
    if not c.indent:
        return c.text
    return "\n".join(line[c.indent:] for line in c.text.split("\n"))


def _closure(chunks: list, edited: set, removed: set, stale: set = frozenset(),
             alone: bool = False, unbound: frozenset = frozenset(), moved: frozenset = frozenset(),
             focus: Focus | None = None) -> tuple[set, set]:
    """(chunks whose items are recomputed, chunks in the partial file).

    A function's or class's name (``defs``) links its definition to its callers and no further: two callers
    of one helper do not change each other. A value's name (a DataFrame, a constant) links every chunk that
    binds or reads the same binding of it (``_Links``): a second action on a frame, a cache, a flag deciding a
    branch. ``moved``: names whose bindings the edit added, removed or made read their earlier value (every
    binding of them is linked, as ``removed`` names are)."""
    linked: set = set()
    callables: set = set()
    for c in chunks:
        if not c.common:
            linked |= c.binds
            callables |= c.defs
    callables -= {n for c in chunks if not c.common for n in c.binds - c.defs}  # also assigned: a value
    linked |= unbound  # a name the edit stopped binding: its readers now read nothing
    links = _Links(chunks, linked, frozenset(unbound) | moved)
    names = [set() if c.common else (c.binds | c.uses) & linked for c in chunks]
    if focus is not None:  # a focused edit of a long function: its changed statements' names only
        names[focus.chunk] = set(focus.names & linked)
    start = set()  # (chunk, name): the edited chunks' names, at their place (a removed one: at theirs too)
    for i in edited:
        start |= {(i, name) for name in names[i] | (set(removed) & linked)}
    recheck = set(edited)
    forward = set(edited)
    context: set = set()
    for i, name in () if alone else start:  # the same code (comments, spacing): no other chunk's items change
        if name in callables:
            recheck.update(links.binders(i, name))  # its call sites changed: its own findings may
        else:
            for j in links.binders(i, name):  # a frame's definition, where a use-count is reported (a cache)
                if len(chunks[j].binds & linked) <= BINDER_NAMES and not _is_header(chunks, j):
                    recheck.add(j)
                else:
                    context.add(j)  # a constructor setting every attribute: context, its items kept
            readers = links.users(i, name)
            if len(readers) <= SHARED_READERS:  # not a session, logger or context object every method reads
                forward.update(readers)  # its other readers, and what they derive from it
    def readers_of(i: int, limit: int | None = None, tables: bool = True):
        bound = (focus.binds if focus is not None and i == focus.chunk else chunks[i].binds) & linked
        if i not in edited and len(bound) > BINDER_NAMES:
            return  # a constructor setting every attribute: what it derives from the edit is not followed
        for name in bound:
            if not tables and name.startswith("table:"):
                continue
            found = links.users(i, name)
            if limit is None or len(found) <= limit:
                yield from found

    # and whoever reads what those bind, so many steps on
    forward |= _reach(forward, 0 if alone else FORWARD_STEPS, readers_of)
    recheck |= forward | stale
    keep = recheck | context
    tables: set = set()  # chunks kept only as other readers or writers of a table: their definitions stay out
    for i in recheck:
        if i not in edited and len(chunks[i].binds & linked) > BINDER_NAMES:
            continue  # a constructor: the readers of every attribute it sets would be the whole class
        for name in names[i]:
            if name in callables:
                if name in chunks[i].binds:
                    keep.update(links.users(i, name))  # every call site of a function rechecked
            else:
                into = tables if TABLE_CONTEXT_ALONE and name.startswith("table:") else keep
                into.update(links.binders(i, name))
                readers = links.users(i, name)
                if len(readers) <= SHARED_READERS:
                    into.update(readers)
    # what their values flow into (a repartition two names before its join)
    if TABLE_CONTEXT_ALONE:
        keep |= _reach(recheck, FORWARD_STEPS, lambda i: readers_of(i, SHARED_READERS, tables=False))
        tables |= _reach(recheck, FORWARD_STEPS, lambda i: readers_of(i, SHARED_READERS))
    else:
        keep |= _reach(recheck, FORWARD_STEPS, lambda i: readers_of(i, SHARED_READERS))
    return _context(chunks, recheck, keep, linked, links, tables - keep)


TABLE_CONTEXT_ALONE = True  # False: a chunk kept for a table it shares brings the definitions it reads
SETUP_CUTS = True  # False: a setup chunk (a `main` creating the session) goes into a partial file whole
REBINDING_CUTS = True  # False: every binding of a name links every reader of it (the fourth round's linking)


class _Links:
    """Which chunks bind and read the binding of a module name that chunk ``i`` binds or reads.

    The engine walks a file in order, and a name's value at a statement (or in a function's body, read where
    the ``def`` stands) is the nearest binding above it. A name bound afresh (``Chunk.cuts``: an assignment
    or a ``def`` reading no earlier value of it) therefore starts a *segment* of it: the statements down to
    its next such binding read this one and no earlier one. A chunk's name links the binders and readers of
    its own segment: an edit of the fifth of seventeen jobs each binding ``orders = spark.read...`` reaches
    the fifth's readers, not every job's. A binding that reads the name (``orders = orders.filter(...)``),
    or may not run (in a loop, a branch, a ``global`` store in a function), cuts nothing: it is one more
    binder of its segment. Readers above a name's first binding (a function defined before the value it
    reads, called later) and every dotted or table name link every binding, as do ``moved`` names (whose
    segments the edit changed)."""

    def __init__(self, chunks: list, linked: set, moved: frozenset):
        self.chunks, self.moved = chunks, moved
        self._binders: dict = {}
        self._users: dict = {}
        self._cuts: dict = {}
        for i, c in enumerate(chunks):
            if c.common:
                continue
            for name in c.binds & linked:
                self._binders.setdefault(name, []).append(i)
                if name in c.cuts and c.parent is None:
                    self._cuts.setdefault(name, []).append(i)
            for name in c.uses & linked:
                self._users.setdefault(name, []).append(i)
        self._segments: dict = {}

    def binders(self, i: int, name: str) -> list:
        return self._of(i, name, 0)

    def users(self, i: int, name: str) -> list:
        return self._of(i, name, 1)

    def _of(self, i: int, name: str, which: int) -> list:
        every = (self._binders, self._users)[which].get(name, [])
        cuts = self._cuts.get(name)
        if not cuts or not REBINDING_CUTS or name in self.moved or "." in name or ":" in name:
            return every
        segments = self._segments.get(name)
        if segments is None:
            segments = self._segments[name] = self._split(name, cuts)
        k = bisect.bisect_right(cuts, i)
        if k == 0 and not segments[0][0]:
            return every  # above every binding of it: it reads whichever is there when it is called
        return segments[k][which] + (segments[0][1] if k and not segments[0][0] else [])

    def _split(self, name: str, cuts: list) -> list:
        """For each segment (before the first cut, then from each cut): (its binders, its readers)."""
        segments = [([], []) for _ in range(len(cuts) + 1)]
        for which, rows in enumerate((self._binders.get(name, []), self._users.get(name, []))):
            for i in rows:
                segments[bisect.bisect_right(cuts, i)][which].append(i)
        return segments


def _reach(start: set, steps: int, neighbours) -> set:
    """The chunks ``steps`` or fewer steps from ``start`` along ``neighbours(i)``, ``start`` left out."""
    seen, frontier, reached = set(start), list(start), set()
    for _ in range(steps):
        step = []
        for i in frontier:
            for j in neighbours(i):
                if j not in seen:
                    seen.add(j)
                    step.append(j)
        reached.update(step)
        frontier = step
    return reached


def _context(chunks: list, recheck: set, keep: set, linked: set, links: _Links,
             tables: set = frozenset()) -> tuple[set, set]:
    """Add to ``keep`` the definitions of what its chunks read, and of what those read; then ``tables`` (chunks
    kept as other readers and writers of a table a checked chunk reads or writes, without what they read: the
    second copy of a job in the 2,000-line bench file brought its seven functions in); and the common chunks."""
    if TABLE_CONTEXT_ALONE:
        keep |= _reach(keep, DEFINITION_STEPS, lambda i: (j for name in chunks[i].uses & linked
                                                          if not name.startswith("table:")
                                                          for j in links.binders(i, name)))
        keep |= tables | {j for i in keep for name in chunks[i].uses & linked if name.startswith("table:")
                          for j in links.binders(i, name)}  # a view's or table's writers, without their own context
    else:
        keep |= _reach(keep, DEFINITION_STEPS, lambda i: (j for name in chunks[i].uses & linked
                                                          for j in links.binders(i, name)))
    used: set = set()
    for i in keep:
        used |= chunks[i].uses
    imported: dict = {}  # a name -> what the partial file's imports above bind it to (None: something else)
    for i, c in enumerate(chunks):
        wanted = c.common and (not c.imports or c.binds & used or _SPARK_IMPORT.search(c.text))
        if not wanted and i not in keep:
            continue
        sources = _imported(c.text) if c.imports and c.parent is None else None
        if sources is not None:
            if all(imported.get(name) == source for name, source in sources.items()):
                continue  # every name it binds is bound to the same already: an import again, left out
            imported.update(sources)
        else:
            imported.update(dict.fromkeys(c.binds))
        keep.add(i)  # setup always; an import when a kept chunk reads it, or when it is Spark's own
    return recheck, keep


_IMPORTS: dict = {}


def _imported(text: str) -> dict | None:
    """What an import statement binds: name -> (module, member); None for a star import (or what fails).

    Seventeen jobs one after another import ``functions as F`` and ``SparkSession`` seventeen times: a
    partial file keeps an import only where it binds a name to something new (71 import rows of a 219-row
    partial file of the 2,000-line bench file came down to 21, 20 of its 105 ms of check)."""
    got = _IMPORTS.get(text, False)
    if got is not False:
        return got
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, ValueError, RecursionError, MemoryError, IndexError):
        node = None
    out = None
    if isinstance(node, ast.Import):
        out = {(a.asname or a.name.split(".")[0]): (a.name, None) for a in node.names}  # `import a.b`: a.b
    elif isinstance(node, ast.ImportFrom) and not any(a.name == "*" for a in node.names):
        out = {(a.asname or a.name): ("." * node.level + (node.module or ""), a.name) for a in node.names}
    if len(_IMPORTS) > 4096:
        _IMPORTS.clear()
    _IMPORTS[text] = out
    return out


def _partial_rows(lines: list, owner: list, keep: set, headers: frozenset = frozenset()) -> list:
    """The rows of the partial file, in order: those of the kept chunks (a kept class: its own lines and its kept
    methods') and the comments of no chunk. Left out: every other chunk's rows, blank rows of no chunk, and a
    class's blank rows between its statements (the lines between two methods: its header owns them). libcst
    parses a blank line as a node of its own: a file of blank lines costs half a full parse, and the blank
    lines of a long class were half of a partial file of it (314 of 655 rows of one edit of the 3,058-line
    context.py of spark-expectations, 15 of its 46 ms of parse).

    A class's blank rows are left out only where a row next to them (past the other blank rows) is another
    chunk's, a method's or no chunk's: a statement's first and last rows are not blank, so such rows are in
    no statement of the class, where a blank row between two of its own statements may be inside a string."""
    kept = []  # ``owner``: chunk_of_rows, so a method's rows are the method's, the rest of a class its header's
    n = len(lines)
    r = 0
    while r < n:
        i = owner[r]
        if i == -1:
            if _read_comment(lines[r], r):  # a `noqa`, a cell marker: what the check reads of a comment
                kept.append(r)
        elif i in keep:
            if i in headers and not lines[r].strip():
                end = r + 1
                while end < n and owner[end] == i and not lines[end].strip():
                    end += 1
                if (r > 0 and owner[r - 1] != i) or end == n or owner[end] != i:
                    r = end  # between its methods (or before the first, after the last): no statement's
                    continue
                kept.extend(range(r, end))
                r = end
                continue
            kept.append(r)
        r += 1
    return kept


_COMMENT_WORDS = _WHOLE_FILE_WORDS + ("databricks", "fabric", "notebook", "type:", "fmt:")


def _read_comment(line: str, row: int) -> bool:
    """Whether a row of no statement (a comment: blank ones are left out) goes into a partial file. Only a
    ``noqa`` or ``sparkcheck`` comment and a notebook's markers change what the check says, and the file's
    first two rows (a notebook's header, a coding line); the others' items are kept (``merge``). The seventeen
    jobs of the 2,000-line bench file have 28 section comments in a partial file of 165 rows, 11 ms of its
    check."""
    if not line.strip():
        return False
    lower = line.lower()
    return row < 2 or any(word in lower for word in _COMMENT_WORDS)


# ----- merging -----

def chunk_of_rows(chunks: list, nrows: int) -> list:
    """For each row (0-based), the index of the innermost chunk holding it, or -1."""
    owner = [-1] * nrows
    for i, c in enumerate(chunks):
        if c.parent is None:
            for r in range(max(0, c.start), min(nrows, c.end)):
                owner[r] = i
    for i, c in enumerate(chunks):
        if c.parent is not None:
            for r in range(max(0, c.start), min(nrows, c.end)):
                owner[r] = i
    return owner


def merge(old: State, p: Plan, partial_items: list, new_text: str) -> State:
    """The new answer: the partial check's items for the rechecked chunks and the rows of no chunk, every other
    chunk's old items moved by the rows the edit added or removed."""
    new_lines = new_text.split("\n")
    new_owner, old_owner = p.new_owner, p.old_owner
    items = []
    focus = p.focus
    for item in partial_items:
        row = item.finding.location.row - 1
        owner = new_owner[row] if 0 <= row < len(new_owner) else -1
        if focus is not None and owner == focus.chunk and row not in focus.rows:
            continue  # a statement of a focused function the edit cannot change: its old items stay
        if owner == -1 or owner in p.recheck:
            items.append(item)
    old_to_new = {old_i: new_i for new_i, (old_i, _) in p.reused.items()}
    checked = set(p.rows) if p.recheck else set()
    for item in old.items:
        row = item.finding.location.row - 1
        owner = old_owner[row] if 0 <= row < len(old_owner) else -1
        if focus is not None and owner == focus.old:
            fine = focus.moves
            if not fine.inside(row) and not fine.touches(item) and fine.row(row) not in focus.rows:
                items.append(moved_item(item, fine))
            continue
        if owner == -1:
            if 0 <= row < len(old_owner) and not p.moves.inside(row) and p.moves.row(row) not in checked:
                items.append(moved_item(item, p.moves))  # a comment's the partial file left out (or none checked)
            continue
        if owner not in old_to_new:
            continue
        items.append(moved_item(item, p.moves))
    items.sort(key=lambda i: i.finding.sort_key())
    return State(new_text, p.chunks, items, exact=False, lines=new_lines)


class Moves:
    """Old rows to new ones around an edit that replaced old rows [lo, hi) (0-based) and added ``delta`` rows."""

    def __init__(self, lo: int, hi: int, delta: int):
        self.lo, self.hi, self.delta = lo, hi, delta
        self.identity = delta == 0

    def row(self, row0: int) -> int:
        return row0 if row0 < self.lo else row0 + self.delta

    def inside(self, row0: int) -> bool:
        return self.lo <= row0 < self.hi

    def touches(self, item) -> bool:
        """An item with an edit (a fix, its noqa) in the rows that changed: stale wherever it is reported."""
        edits = list(item.fix_edits or []) + ([item.noqa_edit] if item.noqa_edit is not None else [])
        return any(self.inside(e.start[0]) or self.inside(e.end[0]) or (e.start[0] < self.lo and e.end[0] >= self.hi)
                   for e in edits)


class RowMap:
    """The partial file's rows to the new text's: the k-th row of the partial file is ``rows[k]``."""

    identity = False

    def __init__(self, rows: list):
        self.rows = rows

    def row(self, row0: int) -> int:
        rows = self.rows
        if 0 <= row0 < len(rows):
            return rows[row0]
        return (rows[-1] if rows else -1) + row0 - len(rows) + 1

    def edit(self, edit):
        """An edit's span in the new text. An end at the start of a row is the end of the row before it (a
        statement deleted with its newline): mapped from that row, not across the rows left out after it."""
        (r1, c1), (r2, c2) = edit.start, edit.end
        end = (self.row(r2 - 1) + 1, 0) if c2 == 0 and r2 > r1 else (self.row(r2), c2)
        return replace(edit, start=(self.row(r1), c1), end=end)

    def place(self, item):
        """The partial check's item at the new text's rows. A fix spanning rows the partial file left out
        (from one kept chunk to another) is dropped: the whole-file check that follows has it."""
        placed = moved_item(item, self)
        edits = list(item.fix_edits or []) + ([item.noqa_edit] if item.noqa_edit is not None else [])
        if any(self._gap(e) for e in edits):
            return replace(placed, fix_edits=None, applicability=None)
        return replace(placed, fix_edits=None if item.fix_edits is None else [self.edit(e) for e in item.fix_edits],
                       noqa_edit=None if item.noqa_edit is None else self.edit(item.noqa_edit))

    def _gap(self, edit) -> bool:
        (r1, _), (r2, c2) = edit.start, edit.end
        last = r2 - 1 if c2 == 0 and r2 > r1 else r2
        return self.row(last) - self.row(r1) != last - r1


def _moved_location(loc: Location, moves: Moves) -> Location:
    row = moves.row(loc.row - 1) + 1
    if row == loc.row:
        return loc
    return replace(loc, row=row, file_row=None if loc.file_row is None else loc.file_row + row - loc.row)


def _moved_edit(edit, moves: Moves):
    if edit is None:
        return None
    return replace(edit, start=(moves.row(edit.start[0]), edit.start[1]), end=(moves.row(edit.end[0]), edit.end[1]))


def moved_item(item, moves):
    """An item with every row it names moved (``moves.row``): past the edit, or from the partial file."""
    if moves.identity:
        return item
    f = item.finding
    fix = f.fix
    if fix is not None:
        fix = dict(fix)
        fix["edits"] = [_moved_fix_edit(e, moves) for e in fix.get("edits", [])]
    finding = replace(f, location=_moved_location(f.location, moves),
                      end_location=_moved_location(f.end_location, moves),
                      noqa_row=None if f.noqa_row is None else moves.row(f.noqa_row - 1) + 1, fix=fix,
                      context=[(moves.row(r - 1) + 1, text) for r, text in f.context])
    return replace(item, finding=finding,
                   fix_edits=None if item.fix_edits is None else [_moved_edit(e, moves) for e in item.fix_edits],
                   noqa_edit=_moved_edit(item.noqa_edit, moves))


def _moved_fix_edit(edit: dict, moves: Moves) -> dict:
    out = dict(edit)
    for key in ("location", "end_location"):
        loc = out.get(key)
        if isinstance(loc, dict) and isinstance(loc.get("row"), int):
            loc = dict(loc)
            loc["row"] = moves.row(loc["row"] - 1) + 1
            out[key] = loc
    return out


# ----- the entry point -----

def check(old: State | None, path: str, text: str, settings, language: str) -> tuple:
    """(the Analysis of ``text``, the State to keep): a partial check when ``old`` allows one, else the file's."""
    from linter.server.analysis import Analysis, analyse, text_bytes

    p = plan(old, text) if old is not None and old.chunks and language == "python" else None
    if p is None:
        analysis = analyse(path, text_bytes(text), settings, language)
        chunks = split(text) if language == "python" else None
        if chunks is None and old is not None and old.chunks and language == "python":
            # half-typed (`rows = orders.`): the next edit is planned from the last text that parsed
            return analysis, old
        return analysis, State(text, chunks or [], analysis.items, exact=True)
    # nothing to recheck (an edit of comments or blank lines between statements): the items only move
    items = []
    if p.recheck:
        rows = RowMap(p.rows)
        items = [rows.place(i) for i in analyse(path, text_bytes(p.text), settings, language).items]
    state = merge(old, p, items, text)
    state.exact = old.exact and not p.recheck  # only moved: as exact as the answer it moved
    return Analysis(items=state.items, texts={None: text}), state
