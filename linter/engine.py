"""Run the checks on one file: parse once, walk once, suppress, place the findings."""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

from linter import noqa, registry
from linter.diagnostics import Diagnostic, Edit, Finding, Fix, Location, NodeEdit
from linter.sources import CONFIG, PYTHON, SQL, Document, SourceError, Unit, is_test_path, load_document
from linter.sources.decoding import SPARK_HINT as _SPARK_HINT  # one pattern: the engine's and the cache key's

PARSE_ERROR = "SPK001"
UNUSED_NOQA = "SPK002"


class PythonContext:
    """What a Python rule sees: the semantic model, the ancestors, ``report``."""

    def __init__(self, unit: Unit, module, settings, semantic):
        self.unit = unit
        self.module = module
        self.settings = settings
        self.semantic = semantic
        self.ancestors: list = []
        self.pending: list = []  # (code, node, message, fix, help, start)
        self.memo: dict = {}  # answers several rules ask for, per node (see checks/python/_udf.py)
        # id(statement) -> the statements around the walk's place when a node was reported, innermost first (that
        # statement the first): where node_spans looks first
        self.statements: dict = {}

    @property
    def parent(self):
        a = self.ancestors
        return a[-2] if len(a) >= 2 else None

    @property
    def function(self):
        """The innermost `def` the walk is in, or None at a module's or class's top level."""
        # by the class's name: this module does not import libcst until a Python file needs it
        return next((a for a in reversed(self.ancestors) if a.__class__.__name__ == "FunctionDef"), None)

    def parent_of(self, node, skip=()):
        """The nearest ancestor of ``node`` (on the current path) that is not a ``skip`` type."""
        a = self.ancestors
        for i in range(len(a) - 1, -1, -1):
            if a[i] is node:
                for j in range(i - 1, -1, -1):
                    if not isinstance(a[j], skip):
                        return a[j]
                return None
        return None

    def code_for(self, node) -> str:
        """The node's code as written in the file.

        libcst's ``Module.code_for_node`` generates it with no enclosing block:
        continuation lines inside brackets (``ParenthesizedWhitespace`` with
        ``indent=True``) lose the indentation of the blocks around the node.
        """
        import libcst as cst
        from libcst._nodes.internal import CodegenState

        module = self.module
        block = cst.IndentedBlock  # an exact class: libcst's are ABCs, with a slow isinstance
        blocks = [b for b in self._path_to(node) if b.__class__ is block]
        if not blocks:
            return module.code_for_node(node)
        indent = [b.indent if b.indent is not None else module.default_indent for b in blocks]
        state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                             indent_tokens=indent)
        node._codegen(state)
        return "".join(state.tokens)

    def _path_to(self, node) -> list:
        """The nodes from the module down to ``node`` (excluded): the walk's ancestors, then a search below."""
        a = self.ancestors
        for i in range(len(a) - 1, -1, -1):
            if a[i] is node:
                return a[:i]
        if len(a) > 1:  # below the module (as the module's leave quotes its nodes), the map below is as good
            below = _search(a[-1], node)
            if below is not None:
                return a[:-1] + below
        # elsewhere in the module (a binding's node, met earlier): climb a map of parents made once per file,
        # not a search of the whole tree for each such node (one per message that quotes the code)
        parents = self.memo.get("\0parents")
        if parents is None:
            parents = self.memo["\0parents"] = _parents(self.module)
        path = []
        current = parents.get(id(node))
        while current is not None:
            path.append(current)
            current = parents.get(id(current))
        path.reverse()
        return path

    def report(self, rule, node, message: str, fix: Optional[Fix] = None, help: Optional[str] = None,
               start=None):
        """Report ``node``; ``start`` (a node inside it) narrows where the span begins."""
        self.pending.append((rule.code, node, message, fix, help, start))
        note_statement(self.statements, self.ancestors)


def note_statement(statements: dict, ancestors: list) -> None:
    """Note the statements around the walk's place, which most likely hold what is reported (see node_spans)."""
    from linter.sources.python import statements_around

    around = statements_around(ancestors) if len(ancestors) > 1 else ()
    if around:
        statements.setdefault(id(around[0][0]), around)


def _parents(module) -> dict:
    """id(child) -> parent for every node of the module (the nodes live as long as the module does).

    Children as the walk sees them (``child_nodes``: no whitespace or punctuation), not libcst's ``children``,
    which builds every whitespace node again: 40 ms of a 35-line file's check."""
    from linter.sources.python import child_nodes

    parents = {}
    stack = [module]
    while stack:
        current = stack.pop()
        for child in child_nodes(current):
            parents[id(child)] = current
            stack.append(child)
    return parents


def _search(root, node):
    """The path from ``root`` (included) down to ``node`` (excluded), or None.

    Depth first, noting each node's parent (not a copy of the path per node), then climbing back."""
    from linter.sources.python import child_nodes

    parents = {}
    stack = [root]
    while stack:
        current = stack.pop()
        for child in child_nodes(current):
            if child is node:
                path = [current]
                while current is not root:
                    current = parents[id(current)]
                    path.append(current)
                path.reverse()
                return path
            parents[id(child)] = current
            stack.append(child)
    return None


def _methods(rule_cls) -> list[tuple[str, type, str]]:
    cached = rule_cls.__dict__.get("_walk_methods")
    if cached is not None:
        return cached
    import libcst as cst

    out = []
    for attr in dir(rule_cls):
        for prefix in ("visit_", "leave_"):
            if attr.startswith(prefix):
                node_cls = getattr(cst, attr[len(prefix):], None)
                if isinstance(node_cls, type):
                    out.append((prefix, node_cls, attr))
    rule_cls._walk_methods = out
    return out


# Every Python rule reasons about Spark objects, which sparkcheck only knows from
# pyspark imports, the names `spark` and `sc`, Databricks Connect's session, or
# configured DataFrame functions: a file that mentions none of them cannot produce
# a finding and is not parsed.


def _mentions_spark(text: str, settings) -> bool:
    # (the pattern's first three alternatives are these words: most texts hold one, found without the regex)
    if "spark" in text or "Spark" in text or "SPARK" in text or _SPARK_HINT.search(text):
        return True
    return any(name.rsplit(".", 1)[-1] in text for name in settings["dataframe-functions"])


def _code_mentions_spark(text: str, settings) -> bool:
    """``_mentions_spark`` of the code alone, its strings and comments left out: a file that does not parse
    gets its SPK001 only when Spark is named in code (a notebook whose one "spark" is a product's name in a
    list of strings is no Spark notebook). Text the tokenizer cannot read to the end (an unterminated string)
    is taken as it is."""
    import io
    import tokenize

    words = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME or token.type == tokenize.OP:
                words.append(token.string)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return _mentions_spark(text, settings)
    return _mentions_spark(" ".join(words), settings)


@functools.lru_cache(maxsize=64)
def _selection(codes: frozenset) -> tuple[tuple, bool]:
    """(the enabled Python rules, as the index describes them, whether SQL is linted) for a set of enabled codes:
    the same for most files. No rule module is imported here: only those a file's text triggers are."""
    rules = registry.infos()
    python_rules = tuple(r for r in rules if r.kind == "python" and r.code in codes)
    return python_rules, PARSE_ERROR in codes or any(r.kind == "sql" and r.code in codes for r in rules)


_PLAIN_WORD = re.compile(r"[A-Za-z0-9_]+")  # a trigger word of these only (most are) is looked for in the runs
_PLAIN: dict = {}  # trigger word -> whether it is plain
_PUNCTUATION_TO_SPACE = str.maketrans({c: " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"})


def _word_chunks(text: str) -> str:
    """The text's distinct runs of anything but blanks and ASCII punctuation, one a line: a word of letters,
    digits and `_` is in the text exactly when it is in these (each of its occurrences lies inside one run,
    and each run is a piece of the text). About half the length of the text, so a trigger word absent from the
    file (most of the 133 are, in most files, and each such test reads all of it) is found absent in half the
    time, and the runs cost less to make than the scans they save."""
    return "\n".join(set(text.translate(_PUNCTUATION_TO_SPACE).split()))


_EMBEDDED_HINT = re.compile(r"\.sql\(|expr\(|selectExpr|\.filter\(|\.where\(")


def _compiles(text: str) -> bool:
    """Whether CPython's parser (linear, no libcst needed) reads the text: a Spark file no rule looks into is
    still parsed when it does not, so its syntax error gets its SPK001."""
    import ast

    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def run_python(unit: Unit, settings, codes: frozenset) -> list[Diagnostic]:
    out = _run_python(unit, settings, codes)
    from linter.sources.clusters import wanted

    if wanted(unit.text):  # a cluster defined in Python literals: an Airflow DAG, a CDK app (linter/sources/pydicts.py)
        out += _python_clusters(unit, settings, codes)
    return out


def _python_clusters(unit: Unit, settings, codes: frozenset) -> list[Diagnostic]:
    from linter import configcheck

    if is_test_path(unit.document.path):
        codes = codes - {r.code for r in registry.infos() if r.kind == "config" and r.skip_in_tests}
    if not configcheck.config_rules(codes):
        return []
    from linter.sources.clusters import cluster_sets
    from linter.sources.pydicts import cluster_trees
    from linter.sources.sparkconf import mentions_object_store

    out: list[Diagnostic] = []

    def sink(rule, setting, message, help):
        out.append(Diagnostic(rule.code, message, setting.start, setting.end, None, help))

    for conf in cluster_sets(cluster_trees(unit.text), unit.text, mentions_object_store(unit.text)):
        configcheck.run_rules(conf, settings, codes, sink)
    return out


def _run_python(unit: Unit, settings, codes: frozenset) -> list[Diagnostic]:
    text = unit.text
    if not _mentions_spark(text, settings):
        return []
    # A rule runs only where one of its trigger words occurs; a file no rule and no SQL wants is not parsed.
    python_rules, sql_wanted = _selection(codes)
    in_tests = is_test_path(unit.document.path)
    found: dict = {}  # trigger word -> whether the text has it: rules share words (`collect`, `.join`)
    chunks = None  # the text's distinct runs of all but blanks and punctuation (see _word_chunks)

    def triggered(words) -> bool:
        nonlocal chunks
        for w in words:
            hit = found.get(w)
            if hit is None:
                plain = _PLAIN.get(w)
                if plain is None:
                    plain = _PLAIN[w] = _PLAIN_WORD.fullmatch(w) is not None
                if plain:
                    if chunks is None:
                        chunks = _word_chunks(text)
                    hit = found[w] = w in chunks
                else:
                    hit = found[w] = w in text
            if hit:
                return True
        return False

    rules = [r.load() for r in python_rules if (r.triggers is None or triggered(r.triggers))
             and not (in_tests and r.skip_in_tests)]
    embedded_wanted = sql_wanted and _EMBEDDED_HINT.search(text) is not None
    from linter.configcheck import python_wants_config

    if in_tests:  # a configuration rule may be off in test modules too (a test session's settings on purpose)
        codes = codes - {r.code for r in registry.infos() if r.kind == "config" and r.skip_in_tests}
    config_wanted = python_wants_config(text, codes)
    if not rules and not embedded_wanted and not config_wanted:
        if PARSE_ERROR not in codes or _compiles(text):
            return []
        # nothing to check, but the file does not parse: libcst's parse below says where and why (SPK001)
    import libcst as cst
    from linter.project import NO_FACTS, project_facts
    from linter.semantic import Semantic
    from linter.budget import guard
    from linter.sources.python import node_spans, parse, walk

    guard(unit.text, settings)  # a chain libcst would take minutes on: one SPK001, skipped (linter/budget.py)
    module = parse(unit.text)
    facts = project_facts(unit.document.path, unit.document.text) if unit.document.kind != "ipynb" else NO_FACTS
    semantic = Semantic(frozenset(settings["dataframe-functions"]) | facts.dataframe_functions, text,
                        facts.constants, facts.callers, settings["small-tables"],
                        (unit.document.path, unit.document.text), neighbours=unit.document.is_notebook,
                        project_sessions=facts.sessions)
    ctx = PythonContext(unit, module, settings, semantic)
    visit, leave = {}, {}
    sem_visit, sem_leave = semantic.hooks()
    for cls, fn in sem_visit.items():
        visit.setdefault(cls, []).append(fn)
    # Rules see a node before the model records it (an assignment's value is
    # read with the bindings before the assignment), so semantic leave hooks
    # run after the rules' own.
    for rule_cls in rules:
        rule = rule_cls(ctx)
        for prefix, node_cls, attr in _methods(rule_cls):
            (visit if prefix == "visit_" else leave).setdefault(node_cls, []).append(getattr(rule, attr))
    collector = EmbeddedSql(semantic, ctx.ancestors, ctx.statements) if embedded_wanted else None
    if collector is not None:
        visit.setdefault(cst.Call, []).append(collector.visit_Call)
    python_settings = None
    if config_wanted:
        from linter.sources.sparkconf import PythonSettings

        python_settings = PythonSettings(text)
        visit.setdefault(cst.Call, []).append(python_settings.visit_Call)
    for cls, fn in sem_leave.items():
        leave.setdefault(cls, []).append(fn)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 12000))  # inference recurses along method chains
    try:
        walk(module, visit, leave, ctx.ancestors)
    finally:
        sys.setrecursionlimit(limit)
    if python_settings is not None and python_settings.conf.settings:
        from linter import configcheck

        def sink(rule, setting, message, help):
            ctx.pending.append((rule.code, setting.node, message, None, help, None))

        configcheck.run_rules(python_settings.conf, settings, codes, sink)
    literals = collector.found if collector is not None else []
    if not ctx.pending and not literals:
        return []
    # One code-generation pass places the reported nodes and the SQL literals alike.
    nodes = [node for node, _, _, _ in literals]
    for _, node, _, fix, _, first in ctx.pending:
        nodes.append(node)
        if first is not None:
            nodes.append(first)
        if fix is not None:
            for e in fix.edits:
                if isinstance(e, NodeEdit):
                    nodes.append(e.node)
                    if e.start_node is not None:
                        nodes.append(e.start_node)
    spans = node_spans(module, nodes, unit.text, ctx.statements.values())
    out = collector.diagnostics(unit, spans, settings, codes) if literals else []
    comments = None  # the unit's comments, read once, when a fix replaces text holding a "#"
    for code, node, message, fix, help, first in ctx.pending:
        start, end = spans.get(node, (0, 0))
        if first is not None and first in spans:
            start = spans[first][0]
        if fix is not None:
            edits = tuple(_place_edit(e, spans, unit.text) for e in fix.edits)
            fix = Fix(fix.message, edits, fix.applicability)
            if any(e.content and "#" in unit.text[e.start:e.end] for e in edits):
                if comments is None:
                    comments = _comments(unit.text)
                if any(_drops_comment(e, comments) for e in edits):
                    fix = None  # the replacement would lose a comment written inside the code it rewrites
        out.append(Diagnostic(code, message, start, end, fix, help))
    return out


def _comments(text: str) -> Optional[list]:
    """(start offset, comment) of each comment of a Python text; None when the tokenizer cannot read it."""
    import io
    import tokenize

    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    try:
        return [(starts[t.start[0] - 1] + t.start[1], t.string)
                for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None


def _drops_comment(edit: Edit, comments: Optional[list]) -> bool:
    """Whether an edit replaces text holding a comment its new text does not keep (a deletion may: the comment
    goes with the code it was about). Without the tokenizer's reading, any "#" in the replaced text counts."""
    if not edit.content:
        return False
    if comments is None:
        return "#" not in edit.content
    return any(edit.start <= at < edit.end and comment not in edit.content for at, comment in comments)


# What a `spark.sql(...)` result may be narrowed or looked at with, straight away, for SPK501 (`ctx.projected`)
_NARROWING_CALLS = frozenset({"select", "show", "printSchema", "display"})
_LOOKED_AT_ATTRIBUTES = frozenset({"columns", "schema", "dtypes"})


class EmbeddedSql:
    """Finds SQL in string arguments during the walk, then lints it as SQL.

    `spark.sql(...)` holds statements; `F.expr(...)`, `df.selectExpr(...)` and a
    string given to `df.filter(...)`/`df.where(...)` hold expressions, read as
    ``SELECT <expression>``. A literal, a `.format(...)` or `%` template of one,
    or a variable assigned one (found where it was written) are read; findings
    land on their place in the literal and nothing that depends on a template
    field is reported.
    """

    def __init__(self, semantic, ancestors=(), statements=None):
        self.semantic = semantic
        self.ancestors = ancestors  # the walk's path, to see what is done with a `spark.sql(...)` result
        self.found: list = []  # (literal node, "statement" or "expression", template, projected)
        self.statements = {} if statements is None else statements  # (see PythonContext.statements)

    def visit_Call(self, node) -> None:
        from linter.semantic import DATAFRAME, SESSION, method_name

        method = method_name(node)
        semantic = self.semantic
        if method == "sql":
            receiver = semantic.infer(node.func.value)
            if receiver is not None and receiver.kind == SESSION and node.args:
                self._add(node.args[0].value, "statement", self._projected(node))
        elif semantic.is_function(node.func, {"expr"}) and node.args:
            self._add(node.args[0].value, "expression")
        elif method in ("selectExpr", "filter", "where"):
            receiver = semantic.infer(node.func.value)
            if receiver is None or receiver.kind != DATAFRAME:
                return
            for arg in (node.args if method == "selectExpr" else node.args[:1]):
                self._add(arg.value, "expression")

    def _projected(self, call) -> bool:
        """The DataFrame `spark.sql(...)` makes is narrowed by a `select` straight away: `spark.sql(q).select(cols)`,
        or `df = spark.sql(q)` with `df = df.select(cols)` (or `x = df.select(...)`) as the next statement; or it is
        only looked at, straight away: `.show()`, `.printSchema()`, `display(...)` (a star is how one looks at a
        table, as in notebooks; SPK411 judges a `show` left in a job)."""
        import libcst as cst

        path = self.ancestors
        if len(path) < 2 or path[-1] is not call:
            return False
        parent = path[-2]
        if isinstance(parent, cst.Attribute) and parent.attr.value in _LOOKED_AT_ATTRIBUTES:
            return True  # `spark.sql("SELECT * FROM t").columns`: no scan at all
        if isinstance(parent, cst.Attribute) and parent.attr.value in _NARROWING_CALLS and len(path) >= 3 \
                and isinstance(path[-3], cst.Call) and path[-3].func is parent:
            return True
        if isinstance(parent, cst.Arg) and len(path) >= 3 and isinstance(path[-3], cst.Call) \
                and isinstance(path[-3].func, cst.Name) and path[-3].func.value == "display":
            return True  # `display(spark.sql("SELECT * FROM t"))`: looking at a table, as in a notebook
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)) or len(path) < 4:
            return False
        name, line, block = parent.targets[0].target.value, path[-3], path[-4]
        body = list(getattr(block, "body", ()))
        following = body[body.index(line) + 1] if line in body and body.index(line) + 1 < len(body) else None
        if not isinstance(following, cst.SimpleStatementLine) or len(following.body) != 1:
            return False
        statement = following.body[0]
        value = statement.value if isinstance(statement, (cst.Assign, cst.Expr)) else None
        return (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "select" and isinstance(value.func.value, cst.Name)
                and value.func.value.value == name)

    def _add(self, value, mode: str, projected: bool = False) -> None:
        import libcst as cst

        from linter.semantic import STRING

        template = None
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "format":
            value, template = value.func.value, "format"
        elif isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Modulo):
            value, template = value.left, "percent"
        elif isinstance(value, cst.Name):
            bound = self.semantic.lookup(value.value)
            value = bound.node if bound is not None and bound.kind == STRING else None
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            self.found.append((value, mode, template, projected))
            note_statement(self.statements, self.ancestors)

    def diagnostics(self, unit: Unit, spans: dict, settings, codes) -> list[Diagnostic]:
        """Findings of the SQL found, placed in the Python text (``spans``: offsets of the literals)."""
        from linter.sources.embedded import decode

        out = []
        seen = set()
        for node, mode, template, projected in self.found:
            if node not in spans or id(node) in seen:
                continue
            seen.add(id(node))
            embedded = decode(unit.text, *spans[node], template)
            if embedded is None or not embedded.text.strip():
                continue
            if mode == "expression":
                embedded = embedded.wrapped("SELECT ")
            sql_unit = Unit(SQL, embedded.text, unit.document)
            for d in run_sql(sql_unit, settings, codes, expression=mode == "expression", embedded=True,
                             projected=projected):
                if d.code == PARSE_ERROR and embedded.placeholders:
                    continue  # a template field may be what does not parse
                span = embedded.source_span(d.start, d.end)
                if span is None:
                    continue
                out.append(Diagnostic(d.code, d.message, span[0], span[1], _embedded_fix(d.fix, embedded), d.help))
        return out


def _embedded_fix(fix, embedded):
    """A SQL fix mapped into the Python literal, when its text needs no Python escaping."""
    if fix is None:
        return None
    edits = []
    for e in fix.edits:
        if any(c in e.content for c in "'\"\\\n"):
            return None
        span = embedded.source_span(e.start, e.end) if e.end > e.start else (
            (embedded.offsets[e.start], embedded.offsets[e.start]) if e.start >= embedded.wrapper else None)
        if span is None:
            return None
        edits.append(Edit(span[0], span[1] if e.end > e.start else span[0], e.content))
    return Fix(fix.message, tuple(edits), fix.applicability)


def run_sql(unit: Unit, settings, codes: frozenset, expression: bool = False, embedded: bool = False,
            projected: bool = False) -> list[Diagnostic]:
    """``expression``: the text is ``SELECT <an expression from F.expr, selectExpr, filter>``;
    ``embedded``: the text is a string literal of Python code (``spark.sql("...")``);
    ``projected``: the Python code narrows the result with a ``select`` right away."""
    from linter.sources.sql import is_templated, parse_statements, untemplate

    fields: list = []
    text = unit.text
    if is_templated(text):
        # Jinja/dbt: fields become same-length identifiers; a parse error may be the
        # template's doing, so it is not reported, and nothing on a field is.
        text, fields = untemplate(text)
        unit = Unit(SQL, text, unit.document, unit.line_map)
    statements, errors = parse_statements(text, settings.dialect_for(unit.document.path))
    out = [] if fields else [Diagnostic(PARSE_ERROR, e.message, e.start, e.end) for e in errors]
    in_tests = is_test_path(unit.document.path)
    rules = [r for r in registry.load_rules("sql", codes) if not (in_tests and r.skip_in_tests)]
    if not rules or not statements:
        return out
    ctx = SqlContext(unit, settings)
    ctx.expression = expression
    ctx.embedded = embedded
    ctx.projected = projected
    dispatch: dict[str, list] = {}
    for rule_cls in rules:
        rule = rule_cls(ctx)
        for attr in dir(rule_cls):
            if attr.startswith("visit_"):
                dispatch.setdefault(attr[6:], []).append(getattr(rule, attr))
    for statement in statements:
        ctx.statement = statement
        for node in statement.expression.walk():
            for fn in dispatch.get(type(node).__name__, ()):
                fn(node)
    for d in ctx.diagnostics:
        if not any(d.start < e and s < max(d.end, d.start + 1) for s, e in fields):
            out.append(d)
    return out


_REASON_LEAD = " \t,;:-\u2013\u2014"  # what may stand between a directive's codes and its reason


def _rows_inside_strings(code: str) -> set:
    """The 1-based rows of ``code`` that begin inside a string token (the second line of `\"\"\"x\ny\"\"\"` on)."""
    if '"""' not in code and "'''" not in code and "\\\n" not in code:
        return set()
    import io
    import tokenize

    rows: set = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                rows.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return set(range(1, code.count("\n") + 2))  # not readable: leave every line as it is
    return rows


def _place_edit(edit, spans, text: str) -> Edit:
    if not isinstance(edit, NodeEdit):
        return edit
    start, end = spans[edit.node]
    if edit.start_node is not None:
        start = spans[edit.start_node][0]
    if edit.before:
        return Edit(start, start, edit.content)
    if edit.from_start_line:
        line_start = text.rfind("\n", 0, start) + 1
        line = text[line_start:start]
        lead = line[:len(line) - len(line.lstrip(" \t"))]
        first, *rest = edit.content.split("\n")
        inside = _rows_inside_strings(edit.content)  # a multi-line string's own lines keep their text
        if "\t" in lead:
            rest = [r if i + 2 in inside else "\t" * ((len(r) - len(r.lstrip(" "))) // 4) + r.lstrip(" ")
                    for i, r in enumerate(rest)]
        return Edit(start, end, "\n".join([first, *(lead + r if r and i + 2 not in inside else r
                                                     for i, r in enumerate(rest))]))
    if edit.whole_lines:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end == -1 else line_end + 1
        rest = text[end:line_end].strip()
        if not text[line_start:start].strip() and (not rest or rest.startswith("#")):
            start, end = line_start, line_end
    return Edit(start, end, edit.content)


class SqlContext:
    def __init__(self, unit: Unit, settings):
        self.unit = unit
        self.settings = settings
        self.statement = None
        self.expression = False  # the outermost SELECT is sparkcheck's wrapper around an expression
        self.embedded = False  # SQL in a Python string literal
        self.projected = False  # ...whose DataFrame the Python code narrows with a `select` straight away
        self.diagnostics: list[Diagnostic] = []

    def report(self, rule, node, message: str, fix: Optional[Fix] = None, help: Optional[str] = None):
        from linter.sources.sql import node_span

        span = node_span(node) or (self.statement.start, self.statement.end)
        self.diagnostics.append(Diagnostic(rule.code, message, span[0], span[1], fix, help))


@dataclass
class UnitResult:
    unit: Unit
    diagnostics: list = field(default_factory=list)
    suppressions: Optional[noqa.Suppressions] = None


def run_config(unit: Unit, settings, codes: frozenset) -> list[Diagnostic]:
    """Settings in spark-defaults.conf, spark-submit lines of shell and YAML files, Hadoop XML."""
    from linter import configcheck
    from linter.sources.sparkconf import config_sets

    if not configcheck.config_rules(codes) or not re.search(r"spark|yarn", unit.text):
        return []
    out: list[Diagnostic] = []

    def sink(rule, setting, message, help):
        out.append(Diagnostic(rule.code, message, setting.start, setting.end, None, help))

    for conf in config_sets(unit.document.path, unit.text, unit.document.language):
        configcheck.run_rules(conf, settings, codes, sink)
    return out


def check_document(doc: Document, settings, codes: frozenset) -> list[UnitResult]:
    """Diagnostics per unit, suppressions applied, SPK002 added.

    A file-level `# sparkcheck: noqa` in any unit of a document speaks for the whole document, as ruff's
    `# ruff: noqa` in one cell does for a notebook: written in the first Python cell, it also silences the
    notebook's `%%sql` cells (separate units). So SPK002 is decided once every unit has been matched."""
    checked = []
    python_text = None  # the document's Python, joined once, when a unit of it does not parse
    for unit in doc.units:
        diags: list[Diagnostic] = []
        try:
            if unit.error is not None:  # a notebook cell that does not parse alone, in a Spark notebook
                if python_text is None:
                    python_text = "\n".join(u.text for u in doc.units if u.kind == PYTHON)
                if _code_mentions_spark(python_text, settings):
                    raise unit.error
            elif unit.kind == PYTHON:
                diags = run_python(unit, settings, codes)
            elif unit.kind == SQL:
                diags = run_sql(unit, settings, codes)
            elif unit.kind == CONFIG:
                diags = run_config(unit, settings, codes)
        except SourceError as exc:
            offset = unit.offset(exc.row - 1, exc.column - 1)
            diags = [Diagnostic(PARSE_ERROR, exc.message, offset, offset)]
            if unit.kind == PYTHON and unit.error is None and not _code_mentions_spark(unit.text, settings):
                diags = []  # "spark" only in its strings or comments: not a file the rules are for
        checked.append((unit, diags, _suppressions(unit, diags)))
    whole = [d for _, _, sup in checked for d in sup.directives if d.kind == "file"]
    results = [UnitResult(unit, _suppress(unit, diags, codes, sup, whole), sup) for unit, diags, sup in checked]
    # under a bare file-level directive the document is silenced whole, its other directives included (ruff's
    # `# ruff: noqa` alike), so that taking that line out later brings back findings and their suppressions
    if UNUSED_NOQA in codes and not any(d.codes is None for d in whole):
        for result in results:
            for directive, bad, why in noqa.unused(result.suppressions, codes):
                result.diagnostics.append(_unused_diagnostic(result.unit, directive, bad, why))
    return results


def _suppressions(unit: Unit, diags: list[Diagnostic]) -> noqa.Suppressions:
    """The unit's directives; one tokenization per unit. With findings in Python, the tokenization also maps
    lines inside multi-line strings (where a noqa comment has to go), for ``place``."""
    if unit.kind == PYTHON:
        return noqa.python_suppressions(unit.text, strings=bool(diags))
    if unit.kind == CONFIG:
        return noqa.hash_suppressions(unit.text, continued=bool(diags))
    return noqa.sql_suppressions(unit.text)


def _suppress(unit: Unit, diags: list[Diagnostic], codes: frozenset, sup: noqa.Suppressions, whole: list):
    """The diagnostics no directive of the unit, nor a file-level one of another unit (``whole``), silences."""
    elsewhere = [d for d in whole if not any(d is own for own in sup.directives)]  # by identity: equal fields
    # (the same comment at the same place of two cells) are two directives
    if not sup.directives and not elsewhere:
        return [d for d in diags if d.code in codes or d.code == PARSE_ERROR and PARSE_ERROR in codes]
    kept = []
    for d in diags:
        if d.code not in codes:
            continue
        line, _ = unit.line_col(d.start)
        suppressed, bare = sup.match(d.code, line)
        if suppressed or noqa.file_silences(elsewhere, d.code):
            continue
        if bare:
            note = f"a bare `noqa` does not silence sparkcheck: write `noqa: {d.code}`"
            d.help = f"{d.help}\n{note}" if d.help else note
        kept.append(d)
    return kept


def _unused_diagnostic(unit: Unit, d, bad: list[str], why: str) -> Diagnostic:
    remaining = [c for c in d.codes if c not in bad]
    text = unit.text
    if remaining:
        sep = ", "
        prefix = text[d.start:d.end]
        head = prefix[: prefix.lower().index("noqa") + 4]
        rest = text[d.start:d.end][len(head):]
        action = ""
        m = re.match(r"\s*:\s*((?:disable|enable)\s*=\s*)?", rest, re.I)
        if m and m.group(1):
            action = m.group(1).replace(" ", "")
        content = f"{head}: {action}{sep.join(remaining)}"
        edit = Edit(d.start, d.end, content)
        title = f"Remove {', '.join(bad)} from the `noqa` comment"
    elif d.whole_comment:
        start = d.comment_start
        line_start = text.rfind("\n", 0, start) + 1
        before = text[line_start:start]
        if before.strip():
            start = line_start + len(before.rstrip(" \t"))
            edit = Edit(start, d.comment_end, "")
        else:  # a comment alone on its line: drop the line
            line_end = text.find("\n", d.comment_end)
            edit = Edit(line_start, len(text) if line_end == -1 else line_end + 1, "")
        title = "Remove the `noqa` comment"
    elif d.start == d.comment_start and text[d.end:d.comment_end].strip(_REASON_LEAD):
        # `# noqa: SPK101 small table`, `# noqa: SPK101 - small table`: the reason after the codes stays, as a
        # comment of its own, without the punctuation that tied it to them
        rest = text[d.end:d.comment_end]
        marker = "-- " if text.startswith("--", d.start) else "# "
        edit = Edit(d.start, d.end + len(rest) - len(rest.lstrip(_REASON_LEAD)), marker)
        title = "Remove the `noqa` directive"
    else:
        edit = Edit(d.start, d.end, "")
        title = "Remove the `noqa` directive"
    return Diagnostic(UNUSED_NOQA, f"`noqa` directive: {why}", d.start, d.end, Fix(title, (edit,)))


def place(unit: Unit, d: Diagnostic, settings, suppressions=None) -> Finding:
    """A diagnostic in the user's coordinates, with its line for code frames."""
    rule = registry.info(d.code)
    start = unit.position(d.start)
    end = unit.position(max(d.end, d.start))
    line, _ = unit.line_col(d.start)
    context = []
    for i in range(max(0, line - 1), min(len(unit.line_starts), line + 2)):
        loc = unit.position(unit.line_starts[i])
        # (a notebook's last cell without a final line break: the unit's closing line maps to that cell's last row)
        if loc.cell == start.cell and not any(row == loc.row for row, _ in context):
            context.append((loc.row, unit.real_line_text(i)))
    noqa_line = suppressions.noqa_line(line) if suppressions is not None else line
    noqa_row = unit.position(unit.line_starts[noqa_line]).row if noqa_line < len(unit.line_starts) else start.row
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": settings.applicability(d.code, d.fix.applicability),
            "message": d.fix.message,
            "edits": [_edit_dict(unit, e) for e in d.fix.edits],
        }
    return Finding(
        code=d.code,
        name=rule.name,
        message=d.message,
        severity=rule.severity,
        filename=unit.document.path,
        location=start,
        end_location=end,
        fix=fix,
        help=d.help,
        noqa_row=noqa_row,
        source_line=unit.real_line_text(line),
        context=context,
    )


def _edit_dict(unit: Unit, e: Edit) -> dict:
    s, t = unit.position(e.start), unit.position(e.end)
    return {
        "content": e.content,
        "location": {"row": s.row, "column": s.column},
        "end_location": {"row": t.row, "column": t.column},
        "start": e.start,
        "end": e.end,
    }


# What a check reads besides the file itself, each module with its function to read it afresh: imported by the
# first file that needs it, so a module not imported yet holds nothing to forget.
_FILE_FACTS = (("linter.project", "clear_caches"), ("linter.datafiles", "forget"), ("linter.neighbours", "forget"),
               ("linter.semantic.neighbours", "forget"))


def forget_file_facts() -> None:
    """A run (a `check`, a server check) starts: the project's modules, the sample files and a notebook's
    neighbours are read as they are now, not as an earlier run in this process saw them."""
    for name, function in _FILE_FACTS:
        module = sys.modules.get(name)
        if module is not None:
            getattr(module, function)()


def error_finding(path: str, message: str, loc: Optional[Location] = None, data: Optional[bytes] = None) -> Finding:
    loc = loc or Location(1, 1)
    rule = registry.info(PARSE_ERROR)
    finding = Finding(PARSE_ERROR, rule.name, message, rule.severity, path, loc, loc)
    if data is not None and loc.cell is None and b"\0" not in data[:8192]:
        # the file's own lines around the place, for the code frame (a notebook that is not JSON, a bad encoding)
        lines = data.decode("utf-8", "replace").split("\n")
        finding.context = [(row, lines[row - 1].rstrip("\r")) for row in range(max(1, loc.row - 1), loc.row + 2)
                           if row <= len(lines)]
    return finding


def read_file(path: str, max_size: int) -> bytes:
    """The file's bytes; SourceError for what cannot or should not be read."""
    try:
        size = os.path.getsize(path)
        if max_size and size > max_size:
            raise SourceError(
                f"file too large to check: {size / 1048576:.1f} MiB > max-file-size "
                f"({max_size / 1048576:.1f} MiB); raise `max-file-size` or exclude it"
            )
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from None


def check_source(path: str, data: bytes, settings) -> list[Finding]:
    """All findings for one file's bytes (what the cache stores)."""
    codes = settings.codes_for(path)
    try:
        doc = load_document(path, data, settings.language_for(path))
    except SourceError as exc:
        if PARSE_ERROR not in codes:
            return []
        return [error_finding(path, exc.message, Location(exc.row, exc.column, exc.cell), data)]
    findings = []
    for result in check_document(doc, settings, codes):
        for d in result.diagnostics:
            findings.append(place(result.unit, d, settings, result.suppressions))
    findings.sort(key=Finding.sort_key)
    return findings
