"""Python text: decoding, parsing with libcst, one walk, positions on demand."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import operator
import re
import sys
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.internal import CodegenState

from linter.sources import SourceError
from linter.sources.decoding import _CODING, decode  # noqa: F401 - re-exported (the server, older imports)

_PY2_HINTS = re.compile(
    r"^\s*(print\s+[\"'\w]|exec\s+[\"']|except\s+[\w.]+\s*,\s*\w+\s*:|raise\s+\w+\s*,)", re.M
)
_ERROR_AT = re.compile(r"error at (\d+):(\d+)")
# Scala written in a Python file (books and notebooks keep both languages side by side): what each construct
# is in PySpark, said when the line that does not parse holds it; and other lines pasted from elsewhere (quotes
# of a document, a folder name with `-` imported as a module). {0}: what the pattern found, {1}...: its groups.
_SCALA_HINTS = (
    (re.compile(r"\)\s+as\s+[\"'`]|\)\s+as\s+[A-Za-z_]\w*\s*[,)]"), "`expr as \"name\"` is Scala or SQL: in Python "
     "write `expr.alias(\"name\")`"),
    (re.compile(r"^\s*val\s+[A-Za-z_]\w*\s*(?::[^=]+)?=(?!=)"), "`val x = ...` is Scala: in Python write `x = ...`"),
    (re.compile(r"\$\"[^\"]*\""), "`$\"col\"` is Scala: in Python write `F.col(\"col\")`"),
    (re.compile(r"=>"), "`=>` is not Python: `>=` for a comparison, `lambda x: ...` for a Scala function"),
    (re.compile(r"^\s*import\s+org\.apache\.spark"), "this is a Scala import: PySpark's are `from pyspark... import ...`"),
    # (the literal found is quoted in place of {0}, without its suffix in place of {1})
    (re.compile(r"(?<![\w.])(\d+)[lL]\b"), "`{0}` is a long literal of Scala or Python 2: in Python 3 write `{1}`"),
    (re.compile("[\u2018\u2019\u201c\u201d]"), "typographic quotes, pasted from a document: write straight quotes"),
    (re.compile(r"^\s*(?:from|import)\s+([\w.]*\w-[\w.-]*)"), "`{1}` is no module name: Python's names cannot "
     "hold `-`; rename the folder, or load the file with `importlib`"),
)


def _risky(text: str) -> bool:
    """Whether the text could be nested deep enough to hurt libcst's parser.

    libcst's native parser overflows its stack on brackets nested thousands deep
    (a segfault) and is quadratic on very long method chains.  CPython refuses
    both (over 200 nested brackets, chains of about 1,500), so such text is not
    valid Python anyway.  This estimate costs far less than CPython's parse
    (which would add about 10% to every file): bracket depth from a byte
    translation and C-level running sums, chain length bounded by ``).`` count.
    """
    if text.count(").") + text.count("].") > 900:
        return True
    brackets = text.encode("utf-8", "surrogatepass").translate(_BRACKETS, _NOT_BRACKETS)
    if len(brackets) < 400:
        return False
    # opens are 2, closes 0: depth after i brackets = running sum - i
    depth = max(map(operator.sub, itertools.accumulate(brackets), range(1, len(brackets) + 1)), default=0)
    return depth > 200


_BRACKETS = bytes.maketrans(b"([{)]}", b"\x02\x02\x02\x00\x00\x00")
_NOT_BRACKETS = bytes(b for b in range(256) if chr(b) not in "([{)]}")


def _cpython(text: str):
    """CPython's verdict: None, or its SyntaxError; SourceError for what it cannot nest."""
    try:
        ast.parse(text)
    except SyntaxError as exc:
        if "too many nested" in str(exc.msg):
            raise SourceError(f"cannot parse Python: {exc.msg}", exc.lineno or 1, exc.offset or 1) from None
        return exc
    except (RecursionError, MemoryError):
        raise SourceError("cannot parse Python: nesting too deep for Python itself") from None
    return None


_post_init = cst.CSTNode.__post_init__


def _no_validation(self) -> None:
    pass


@contextmanager
def _unvalidated():
    """libcst nodes made by its own parser, without re-validating each one.

    Every node's ``__post_init__`` checks its fields (``_validate``): needed for
    nodes built by hand (fixes), not for what the parser has just accepted.
    libcst's own comment there says as much ("avoid validating the tree when
    parsing a file").  Skipping it saves about 12% of the parse (bench/README.md).
    Nodes made after the parse (fixes) are validated as before.
    """
    cst.CSTNode.__post_init__ = _no_validation
    try:
        yield
    finally:
        cst.CSTNode.__post_init__ = _post_init


# Trees parsed before their own check: a notebook's neighbours are parsed to read the tables they write
# (linter/semantic/neighbours.py), and most of them are checked later in the same run (72 of the 95 such parses
# of the shared corpus). libcst's nodes are immutable, so that check takes the tree kept here instead of parsing
# the same text again. At most _AHEAD_CHARS characters of text are kept (a tree takes about 36 bytes a character);
# a run starts with none (``forget_parsed_ahead``).
_AHEAD_CHARS = 512 * 1024
_ahead: dict = {}  # text -> its tree, oldest first


def parse_ahead(text: str) -> cst.Module:
    """``parse``, keeping the tree for the text's own check later in this run."""
    module = parse(text)
    if len(text) <= _AHEAD_CHARS:
        _ahead[text] = module
        while sum(map(len, _ahead)) > _AHEAD_CHARS:
            del _ahead[next(iter(_ahead))]
    return module


def forget_parsed_ahead() -> None:
    _ahead.clear()


def parse(text: str) -> cst.Module:
    """Parse Python 3 text; a syntax error becomes a SourceError at its place.

    Text that could be nested deep enough to crash libcst is first read by
    CPython's own parser (see ``_risky``); on a syntax error CPython's message
    is used, as it is the better one.  Syntax CPython rejects but libcst reads
    (a newer Python than the one running sparkcheck) is still checked.
    """
    if _ahead:
        module = _ahead.pop(text, None)
        if module is not None:
            return module
    if _risky(text):
        _cpython(text)
    try:
        with _unvalidated():
            return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        hint = " (this looks like Python 2, which Spark 3+ no longer runs)" if _PY2_HINTS.search(text) else ""
        cpython_error = _cpython(text)
        if cpython_error is not None and cpython_error.lineno:
            hint = hint or _scala_hint(text, cpython_error.lineno)
            raise SourceError(
                f"cannot parse Python: {cpython_error.msg}{hint}", cpython_error.lineno, cpython_error.offset or 1
            ) from None
        message = exc.message
        row, col = exc.raw_line, exc.raw_column + 1
        m = _ERROR_AT.search(message)
        if m:
            row, col = int(m.group(1)), int(m.group(2))
            message = message[m.end():].lstrip(": ")
        if message.startswith("expected one of") or len(message) > 100:
            message = "invalid syntax"
        hint = hint or _scala_hint(text, row)
        raise SourceError(f"cannot parse Python: {message}{hint}", row, max(col, 1)) from None
    except RecursionError:
        raise SourceError("cannot parse Python: nesting too deep") from None


_STRING_TEXT = re.compile(r"'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"")
_NOT_AN_ALIAS = re.compile(r"^\s*(?:with|async\s+with|except|import|from|case)\b")


def _scala_hint(text: str, row: int) -> str:
    """" (`val x = ...` is Scala: ...)" when the line that does not parse holds Scala (read without its strings'
    text and its comment), or typographic quotes; else ""."""
    lines = text.splitlines()
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    code = _STRING_TEXT.sub(lambda m: m.group(0)[0] * 2, line).split("#", 1)[0]
    for pattern, hint in _SCALA_HINTS:
        if hint.startswith("typographic"):
            if pattern.search(line):
                return f" ({hint})"
            continue
        if hint.startswith("`expr as") and _NOT_AN_ALIAS.match(code):
            continue  # `with open(a) as f`, `except E as e`, `import x as y`: Python's own `as`
        found = pattern.search(code)
        if found:
            return f" ({hint.format(found.group(0), *found.groups())})" if "{" in hint else f" ({hint})"
    return ""


# Fields that hold only punctuation, whitespace or comments: the walk skips them.
_TRIVIA = frozenset(
    "lpar rpar comma semicolon colon dot equal lbrace rbrace lbracket rbracket "
    "leading_lines lines_after_decorators header footer trailing_whitespace newline "
    "asynchronous operator first_colon second_colon empty_lines leading_whitespace "
    "star separator whitespace".split()
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN = (str, bool, int)


def _child_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that can hold child nodes (no trivia, no plain str/bool/int)."""
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(cls)
            if f.name not in _TRIVIA and not f.name.startswith("whitespace") and f.type not in _PLAIN
        )
        _CHILD_FIELDS[cls] = names
    return names


_IS_NODE: dict = {}


def _is_node(cls) -> bool:
    """``issubclass(cls, CSTNode)``, memoised: CSTNode is an ABC and isinstance on it is slow."""
    known = _IS_NODE.get(cls)
    if known is None:
        known = _IS_NODE[cls] = isinstance(cls, type) and issubclass(cls, cst.CSTNode)
    return known


_LEAVE = object()  # on the walk's stack: the node below it is left next


def child_nodes(node) -> list:
    """A node's children as the walk visits them: no whitespace, punctuation or plain values.

    Several times faster than libcst's ``node.children``, which builds every
    whitespace node too; for the few passes that read a subtree on demand (the
    walk itself inlines the same loop).
    """
    fn = _CHILD_NODES.get(node.__class__)
    if fn is None:
        fn = _CHILD_NODES[node.__class__] = _fields_function(_child_fields(node.__class__))
    return fn(node)


_CHILD_NODES: dict = {}  # class -> its child_nodes function
_FIELDS_FUNCTIONS: dict = {}  # fields -> the function giving the nodes they hold, as _field_nodes does


def _fields_function(fields: tuple):
    """``lambda node: _field_nodes(node, fields)``, written out for these fields: child_nodes runs about a
    million times over the corpus (the subtree scans of the model and the rules), and the loop over field names
    with ``getattr`` was half of its cost. The same tests in the same order, so the same list."""
    fn = _FIELDS_FUNCTIONS.get(fields)
    if fn is not None:
        return fn
    if not fields:
        def fn(node) -> list:
            return []
    else:
        lines = ["def fn(node):", "    out = []"]
        for name in fields:
            lines += [
                f"    value = node.{name}",
                "    vcls = value.__class__",
                "    if vcls is tuple or vcls is list:",
                "        for item in value:",
                "            icls = item.__class__",
                "            if is_node(icls) or (icls not in known and _is_node(icls)):",
                "                out.append(item)",
                "    elif is_node(vcls) or (vcls not in known and _is_node(vcls)):",
                "        out.append(value)",
            ]
        lines.append("    return out")
        namespace = {"is_node": _IS_NODE.get, "known": _IS_NODE, "_is_node": _is_node}
        exec("\n".join(lines), namespace)  # noqa: S102 - field names of libcst's own classes
        fn = namespace["fn"]
    _FIELDS_FUNCTIONS[fields] = fn
    return fn


def contains(root, node) -> bool:
    """Whether ``node`` is ``root`` or inside it."""
    stack = [root]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(child_nodes(current))
    return False


def _field_nodes(node, fields) -> list:
    """The nodes held in ``fields`` of ``node``, in that order (a field may hold a node or a sequence of them)."""
    out = []
    for name in fields:
        value = getattr(node, name)
        vcls = value.__class__
        if vcls is tuple or vcls is list:
            for item in value:
                icls = item.__class__
                if _IS_NODE.get(icls) or (icls not in _IS_NODE and _is_node(icls)):
                    out.append(item)
        elif _IS_NODE.get(vcls) or (vcls not in _IS_NODE and _is_node(vcls)):
            out.append(value)
    return out


# libcst's ``CSTNode.children`` runs the node's ``_visit_and_replace_children`` with a collecting visitor:
# every field is visited and a copy of the node is built and validated, to be thrown away. The rules that
# read a subtree on demand call it about 500,000 times on the shared corpus (a quarter of a cold run under
# the profiler). ``_children`` returns the same list: the node's fields in the order that method visits
# them, recorded once per class by running it with a visitor that only notes the fields. A method may skip
# a field (an f-string's ``format_spec`` when it is None) but never reorders them (every method of libcst's
# nodes is one constructor call of visit_* arguments); a field the recorded order lacks that holds a node
# here is recorded again from this node, so the order only grows. tests/test_lean_run.py compares both on
# every node of the fixtures and of a sample of the corpus.
_LIBCST_CHILDREN = cst.CSTNode.children
_VISIT_ORDER: dict = {}  # class -> (fields in visit order, the other fields)


class _FieldRecorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.fields: list = []

    def on_visit(self, node) -> bool:
        return False

    def on_leave(self, original_node) -> None:
        return None

    def on_visit_attribute(self, node, attribute: str) -> None:
        self.fields.append(attribute)

    def on_leave_attribute(self, original_node, attribute: str) -> None:
        return None


def _record_order(node) -> tuple:
    recorder = _FieldRecorder()
    node._visit_and_replace_children(recorder)
    order = tuple(dict.fromkeys(recorder.fields))
    known = _VISIT_ORDER.get(node.__class__)
    if known is not None and known[0] != tuple(f for f in order if f in known[0]):
        return None  # not the same order as before: libcst's own way for this class
    others = tuple(f.name for f in dataclasses.fields(node) if f.name not in order)
    entry = _VISIT_ORDER[node.__class__] = (order, others)
    return entry


def _holds_node(value) -> bool:
    vcls = value.__class__
    if vcls is tuple or vcls is list:
        return any(_IS_NODE.get(v.__class__) or _is_node(v.__class__) for v in value)
    return bool(_IS_NODE.get(vcls) or (vcls not in _IS_NODE and _is_node(vcls)))


def _children(self) -> list:
    entry = _VISIT_ORDER.get(self.__class__)
    if entry is None or any(_holds_node(getattr(self, name)) for name in entry[1]):
        entry = _record_order(self)
        if entry is None:
            return _LIBCST_CHILDREN.fget(self)
    out = []
    for name in entry[0]:
        value = getattr(self, name)
        vcls = value.__class__
        if vcls is tuple or vcls is list:
            out.extend(value)
        elif _IS_NODE.get(vcls) or (vcls not in _IS_NODE and _is_node(vcls)):
            out.append(value)
        elif value is not None and vcls is not cst.MaybeSentinel:
            return _LIBCST_CHILDREN.fget(self)  # a value of a kind no field of libcst's nodes holds
    return out


cst.CSTNode.children = property(_children, doc=_LIBCST_CHILDREN.__doc__)


# The child fields of a class in the order libcst's ``children`` lists them (the order of the source, which
# the dataclass order is not for Arg, IfExp, FunctionDef, ClassDef, ExceptHandler, ImportFrom ...), and the
# child fields libcst's method skipped on the node the order was recorded from (a None it does not visit):
# a node holding a child there records the order again (see ``_children``).
_SOURCE_FIELDS: dict = {}  # class -> (child fields in visit order, child fields not seen visited, their function)


def _source_fields(node):
    fields = _child_fields(node.__class__)
    entry = _record_order(node)
    if entry is None:
        return None
    order = entry[0]
    in_order = tuple(f for f in order if f in fields)
    found = _SOURCE_FIELDS[node.__class__] = (in_order, tuple(f for f in fields if f not in order),
                                              _fields_function(in_order))
    return found


def source_child_nodes(node) -> list:
    """``child_nodes`` in the order of libcst's ``children`` (``[c for c in node.children if c in
    child_nodes(node)]``), for the scans that stop at the first match or list what they find in source order,
    at the cost of ``child_nodes`` (whitespace and punctuation, which hold no expression, are not built)."""
    entry = _SOURCE_FIELDS.get(node.__class__)
    if entry is None or (entry[1] and any(_holds_node(getattr(node, name)) for name in entry[1])):
        entry = _source_fields(node)
        if entry is None or entry[1] and any(_holds_node(getattr(node, name)) for name in entry[1]):
            wanted = {id(c) for c in child_nodes(node)}
            return [c for c in node.children if id(c) in wanted]
    return entry[2](node)


_REVERSED_FIELDS: dict[type, tuple[str, ...]] = {}


def _reversed_fields(cls: type) -> tuple[str, ...]:
    names = _REVERSED_FIELDS[cls] = tuple(reversed(_child_fields(cls)))
    return names


def walk(module: cst.Module, visit: dict, leave: dict, ancestors: list) -> None:
    """Visit every node once, in source order, without recursion.

    ``visit``/``leave`` map a node class to a list of callables taking the node.
    ``ancestors`` is kept up to date so callbacks can look at a node's parents:
    during a visit it ends with the node itself.  A node's leave is queued as
    the node itself under a ``_LEAVE`` marker (no tuple per node); a node of a
    class without child fields (Name, strings, numbers: two in five of the nodes
    walked) is left as soon as it is visited.  Children are pushed straight
    onto the stack, last field first, so that the first is visited first. A child of a class with no child
    fields and no hook (a string, a number, a Name when no rule reads names: a fifth of the nodes) is not
    pushed at all: visiting it would do nothing anyone can see.
    """
    stack: list = [module]
    pop, push = stack.pop, stack.append
    pushed: dict = {}  # class -> pushed (a node with child fields or hooks), False (a node that is not), None
    kind_of = pushed.get

    def kind(cls):
        if not _is_node(cls):
            found = None
        else:
            fields = fields_of(cls)
            if fields is None:
                fields = _reversed_fields(cls)
            found = bool(fields) or cls in visit or cls in leave
        pushed[cls] = found
        return found

    fields_of = _REVERSED_FIELDS.get
    visit_get, leave_get = visit.get, leave.get
    add_ancestor, drop_ancestor = ancestors.append, ancestors.pop
    no_hooks = ()
    leave_marker = _LEAVE
    while stack:
        node = pop()
        if node is leave_marker:
            node = pop()
            for fn in leave_get(node.__class__, no_hooks):
                fn(node)
            drop_ancestor()
            continue
        cls = node.__class__
        add_ancestor(node)
        for fn in visit_get(cls, no_hooks):
            fn(node)
        fields = fields_of(cls)
        if fields is None:
            fields = _reversed_fields(cls)
        if not fields:
            for fn in leave_get(cls, no_hooks):
                fn(node)
            drop_ancestor()
            continue
        push(node)
        push(leave_marker)
        for name in fields:
            value = getattr(node, name)
            vcls = value.__class__
            if vcls is tuple or vcls is list:
                for item in reversed(value):
                    icls = item.__class__
                    if kind_of(icls) or (icls not in pushed and kind(icls)):
                        push(item)
            elif kind_of(vcls) or (vcls not in pushed and kind(vcls)):
                push(value)


class _Done(Exception):
    pass


class _NoRecord:
    """What ``record_syntactic_position`` gives for a node whose span nobody needs."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_NO_RECORD = _NoRecord()


class _Record:
    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node):
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start = state.offset

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        spans = self.state.spans
        start = self.start
        if self.start_node is not None and self.start_node in spans:
            start = spans[self.start_node][0]
        end_node = self.end_node
        spans[self.node] = (start, spans[end_node][1] if end_node is not None and end_node in spans else self.state.offset)
        return False


class _OffsetState(CodegenState):
    """Code generation that only counts characters and records node spans.

    libcst's PositionProvider computes line and column for every node of the
    module (about four times the cost of parsing).  Reporting needs the spans of
    a handful of nodes, so this state counts offsets and stops as soon as all
    wanted nodes have been generated.  Spans are recorded only inside a wanted
    node (a node's span can be cut by those of its descendants: ``start_node``,
    ``end_node``), and wanted nodes are known by ``id``: CSTNode's ``__hash__``
    is a Python method.
    """

    def __init__(self, module: cst.Module, wanted: set):
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.offset = 0
        self.spans: dict = {}
        self.starts: dict = {}
        self.wanted = {id(n) for n in wanted}
        self.open = 0  # wanted nodes being generated
        self.remaining = len(wanted)

    def add_token(self, value: str) -> None:
        self.offset += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)

    def pop_trailing_newline(self) -> None:
        pass

    def before_codegen(self, node) -> None:
        if id(node) in self.wanted:
            self.starts[node] = self.offset
            self.open += 1

    def after_codegen(self, node) -> None:
        if id(node) in self.wanted:
            # Nodes without a syntactic position of their own (Arg, Param, ...)
            # get the span of everything they generated.
            self.spans.setdefault(node, (self.starts[node], self.offset))
            self.open -= 1
            self.remaining -= 1
            if self.remaining <= 0:
                raise _Done

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        if not self.open:
            return _NO_RECORD
        return _Record(self, node, start_node, end_node)


class _StatementState(_OffsetState):
    """``_OffsetState`` for one of the module's statements, generated alone: it keeps the statement's text (to
    find where the statement is in the module's) and runs to the statement's end."""

    def add_token(self, value: str) -> None:
        self.offset += len(value)
        self.tokens.append(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)
        self.tokens.extend(self.indent_tokens)

    def after_codegen(self, node) -> None:
        if id(node) in self.wanted:
            self.spans.setdefault(node, (self.starts[node], self.offset))
            self.open -= 1


def statements_around(ancestors: list) -> tuple:
    """The statements of the walk's path (``ancestors``, from the module down), innermost first, each with the
    indentation of the blocks around it: ``((statement, indent tokens), ...)``, as ``node_spans`` takes them."""
    module = ancestors[0]
    around = []
    indent: tuple = ()
    parent = module
    for node in ancestors[1:]:
        if parent.__class__ is cst.Module or parent.__class__ is cst.IndentedBlock:  # (exact classes: ABCs)
            around.append((node, indent))
        if node.__class__ is cst.IndentedBlock:
            indent = (*indent, node.indent if node.indent is not None else module.default_indent)
        parent = node
    around.reverse()
    return tuple(around)


def node_spans(module: cst.Module, nodes, text: str, places=()) -> dict:
    """Character offsets ``(start, end)`` in ``text`` (the module's) of the syntactic span of each node.

    ``places`` are where the nodes likely are: for each, the statements around it (``statements_around``),
    innermost first. Such a statement generated alone, with the indentation of its blocks, gives the module's
    text from where the statement starts (but the newline the module drops at its end when the file has none),
    so when that text occurs once in the module's, the statement is there, and the spans of the nodes in it
    are those the whole module's generation gives; when it occurs more than once, the statement around it is
    tried. The module is generated up to the last node still without a span (all of it when the guesses were
    wrong)."""
    wanted = set(nodes)
    if not wanted:
        return {}
    found: dict = {}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 12000))  # code generation recurses once per nesting level
    try:
        for around in places:
            for statement, indent in around:
                state = _StatementState(module, wanted)
                state.indent_tokens = list(indent)
                try:
                    statement._codegen(state)
                except RecursionError:
                    break
                code = "".join(state.tokens).rstrip("\r\n")
                at = text.find(code)
                if at < 0:
                    break  # (not the module's text: nothing around it is placed this way either)
                if text.find(code, at + 1) >= 0:
                    continue  # twice in the module: the statement around it
                for node, (start, end) in state.spans.items():
                    if node in wanted:
                        found[node] = (start + at, end + at)
                break
        rest = wanted.difference(found)
        if rest:
            state = _OffsetState(module, rest)
            try:
                module._codegen(state)
            except _Done:
                pass
            except RecursionError:
                pass  # nodes not reached keep no span; they are reported at the start of the file
            found.update((n, state.spans[n]) for n in rest if n in state.spans)
    finally:
        sys.setrecursionlimit(limit)
    return found
