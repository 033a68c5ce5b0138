"""Shared by the rerun-safety rules: what a DataFrame write does when the job runs again.

A write is read from its terminal call back to ``df.write`` (``WriteInfo``): the
mode, the options and the target (a table or a path) as the code spells them.
Targets are compared by ``target_key``: a literal's value, an f-string's text
with its fields as written, or a variable's name, so that ``DROP TABLE {t}`` and
``saveAsTable(t)`` are the same place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from checks.sql._sql import normalise
from linter.semantic import (
    DATAFRAME,
    STRING,
    WRITER,
    keyword_arg,
    literal_string,
    method_name,
    positional_args,
)

# DataFrameWriter (v1) calls that write, with the position of their `mode` parameter (None: they have none).
TERMINALS = {"save": 2, "saveAsTable": 2, "insertInto": None, "parquet": 1, "csv": 1, "json": 1, "orc": 1,
             "text": None, "jdbc": 2, "avro": None, "xml": 2}
# DataFrameWriterV2 (`df.writeTo(t)`) calls.
V2_TERMINALS = frozenset({"append", "overwrite", "overwritePartitions", "create", "replace", "createOrReplace"})
_TARGET_KEYWORDS = ("path", "name", "tableName", "table")
# Sinks where the save mode does not decide whether a second run works.
_MODELESS_FORMATS = frozenset({"kafka", "console", "noop", "memory"})


@dataclass
class WriteInfo:
    terminal: cst.Call
    method: str
    configs: list = field(default_factory=list)  # the writer's config calls, from `.write` outwards
    dataframe: cst.BaseExpression | None = None  # `df` in `df.write...`; None when the writer is a variable
    v2: bool = False

    def config(self, name: str) -> cst.Call | None:
        found = [c for c in self.configs if method_name(c) == name]
        return found[-1] if found else None

    def mode(self) -> str | None:
        """The save mode as written, lower-case ("append", "overwrite", ...); "?" when not a literal; None if unset."""
        value = keyword_arg(self.terminal, "mode")
        if value is None:
            index = TERMINALS.get(self.method)
            args = positional_args(self.terminal)
            if index is not None and len(args) > index:
                value = args[index]
        if value is None:
            call = self.config("mode")
            args = positional_args(call) if call is not None else []
            value = args[0] if args else (keyword_arg(call, "saveMode") if call is not None else None)
            if call is not None and value is None:
                return "?"
        if value is None:
            return None
        text = literal_string(value)
        return text.lower().replace("_", "") if text is not None else "?"

    def option(self, key: str) -> cst.BaseExpression | None:
        """The value given to option `key` (`.option(k, v)`, `.options(k=v)`, a keyword of the terminal call)."""
        lowered = key.lower()
        for call in reversed(self.configs):
            name = method_name(call)
            args = positional_args(call)
            if name == "option" and len(args) == 2 and (literal_string(args[0]) or "").lower() == lowered:
                return args[1]
            if name == "options":
                for a in call.args:
                    if a.keyword is not None and a.keyword.value.lower() == lowered:
                        return a.value
        for a in self.terminal.args:
            if a.keyword is not None and a.keyword.value.lower() == lowered:
                return a.value
        return None

    def format(self) -> str | None:
        call = self.config("format")
        args = positional_args(call) if call is not None else []
        text = literal_string(args[0]) if args else None
        if text is None and self.method not in ("save", "saveAsTable", "insertInto"):
            return self.method
        return text.lower() if text else None

    def target(self) -> cst.BaseExpression | None:
        """The table name or path written to."""
        if self.v2:
            call = self.terminal.func.value
            while isinstance(call, cst.Call) and method_name(call) != "writeTo":
                call = call.func.value
            args = positional_args(call) if isinstance(call, cst.Call) else []
            return args[0] if args else None
        if self.method == "jdbc":
            args = positional_args(self.terminal)
            return args[1] if len(args) > 1 else keyword_arg(self.terminal, "table")
        args = positional_args(self.terminal)
        if args:
            return args[0]
        for key in _TARGET_KEYWORDS:
            value = keyword_arg(self.terminal, key)
            if value is not None:
                return value
        return self.option("path")

    def partition_columns(self, semantic) -> list | None:
        """The literal columns of `partitionBy(...)` (or the `partitionBy=` keyword); [] when there is none;
        None when they are not literals."""
        call = self.config("partitionBy")
        if call is not None:
            args = positional_args(call)
        else:
            value = keyword_arg(self.terminal, "partitionBy")
            if value is None:
                return []
            args = [value]
        if any(a.star for a in (call.args if call is not None else ())):
            return None
        if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
            args = [e.value for e in args[0].elements]
        out = []
        for arg in args:
            text = literal_string(arg)
            if text is None:
                value = semantic.infer(arg)
                text = value.detail if value is not None and value.kind == STRING else None
            if not text:
                return None
            out.append(text)
        return out


def write_info(ctx, node: cst.Call) -> WriteInfo | None:
    """The write a terminal call makes, when its receiver is a DataFrameWriter (`df.write...`, `df.writeTo(t)...`)."""
    method = method_name(node)
    if method not in TERMINALS and method not in V2_TERMINALS:
        return None
    configs = []
    expr = node.func.value
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and method_name(expr) != "writeTo":
        configs.append(expr)
        expr = expr.func.value
    configs.reverse()
    if isinstance(expr, cst.Call) and method_name(expr) == "writeTo":
        # the semantic model knows `df.writeTo` but not the writer its call returns
        if method not in V2_TERMINALS or not is_dataframe(ctx, expr.func.value):
            return None
        return WriteInfo(node, method, configs, expr.func.value, True)
    if method not in TERMINALS:
        return None
    value = ctx.semantic.infer(node.func.value)
    if value is None or value.kind != WRITER:
        return None
    dataframe = expr.value if isinstance(expr, cst.Attribute) and expr.attr.value == "write" else None
    return WriteInfo(node, method, configs, dataframe, False)


def stream_write_calls(node: cst.Call) -> list | None:
    """The calls between `df.writeStream` and ``node`` (the last first: `format`, `option`, `foreachBatch`...),
    when ``node`` ends a streaming writer's chain (`...writeStream.format("delta").toTable("t")`); else None."""
    calls, inner = [], node.func.value
    while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
        calls.append(inner)
        inner = inner.func.value
    return calls if isinstance(inner, cst.Attribute) and inner.attr.value == "writeStream" else None


def target_key(ctx, node) -> str | None:
    """The place a table name or path expression names, comparable across statements."""
    if node is None:
        return None
    text = literal_string(node)
    if text is None:
        text = ctx.semantic.text_of(node)  # `T = "db.summary"`: the text, as `f"DROP TABLE {T}"` is read
    if text is not None:
        return normalise(text)
    if isinstance(node, cst.FormattedString):
        return normalise("".join(p.value if isinstance(p, cst.FormattedStringText) else _field(ctx, p.expression)
                                 for p in node.parts))
    if isinstance(node, (cst.Name, cst.Attribute)):
        return normalise("{" + ctx.code_for(node).strip() + "}")  # (as a `{name}` of SQL text is, lower-cased)
    return None


def _field(ctx, expression) -> str:
    """An f-string field as a place's text: the text the file proves it holds (`T = "db.summary"`), else
    `{expression}` as written."""
    text = ctx.semantic.text_of(expression)
    return text if text is not None else "{" + ctx.code_for(expression).strip() + "}"


def same_place(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    if a == b:
        return True
    # `DROP TABLE daily` and `saveAsTable("sales.daily")`: one side unqualified
    if "/" in a or "/" in b or "{" in a or "{" in b:
        return False
    if ("." in a) == ("." in b):
        return False
    return a.rsplit(".", 1)[-1] == b.rsplit(".", 1)[-1]


def scope_of(ctx):
    """The function (or the module) the node being visited is in."""
    for node in reversed(ctx.ancestors):
        if node.__class__ is cst.FunctionDef or node.__class__ is cst.Lambda:  # exact: libcst's ABCs are slow
            return node
    return ctx.module




_MODE_SETTING = re.compile(r"partitionOverwriteMode\b([^)]{0,60})", re.IGNORECASE)  # (its value may be on the next line)
_STATIC_VALUE = re.compile(r"""[\s'"]*[,=:]?[\s'"]*static\b""", re.IGNORECASE)


def sets_overwrite_mode(text: str) -> bool:
    """Whether a file sets `partitionOverwriteMode` (session, `SET`, writer option) to anything but `static`:
    `dynamic`, or a value the text does not show. A mention set to `static` (the default, written out) does not
    count: an overwrite under it still replaces every partition."""
    return any(_STATIC_VALUE.match(m.group(1)) is None for m in _MODE_SETTING.finditer(text))


def is_dataframe(ctx, node) -> bool:
    value = ctx.semantic.infer(node) if node is not None else None
    return value is not None and value.kind == DATAFRAME


def mentions_any(text: str, words) -> bool:
    return any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words)


def sql_text(ctx, node) -> str | None:
    """The text of a SQL argument: a literal, a name bound to one, or an f-string with its fields as written."""
    text = literal_string(node)
    if text is not None:
        return text
    if isinstance(node, cst.FormattedString):
        return "".join(p.value if isinstance(p, cst.FormattedStringText) else _field(ctx, p.expression)
                       for p in node.parts)
    if isinstance(node, cst.Name):
        value = ctx.semantic.infer(node)
        if value is not None and value.kind == STRING:
            if value.detail is not None:
                return value.detail
            if isinstance(value.node, cst.FormattedString):
                return sql_text(ctx, value.node)
    return None


# --- places emptied before a write (SPK322 reports them, SPK323 leaves their writes alone) ---

_DROP = re.compile(r"^\s*DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([\w.`{}\[\]'\"]+)\s*;?\s*$", re.IGNORECASE)
_RM_OWNERS = frozenset({"dbutils", "mssparkutils", "notebookutils"})


@dataclass
class Emptied:
    call: cst.Call  # the spark.sql("DROP TABLE ...") or dbutils.fs.rm(...) call
    key: str
    what: str  # "DROP TABLE x" / "dbutils.fs.rm(path, True)", as a message shows it
    table: bool


def emptied_by(ctx, node: cst.Call) -> Emptied | None:
    """A `spark.sql("DROP TABLE t")`, a recursive `dbutils.fs.rm(path, True)` or a `shutil.rmtree(path)`: the place
    it empties."""
    method = method_name(node)
    if method == "sql":
        args = positional_args(node)
        receiver = ctx.semantic.infer(node.func.value)
        if not args or receiver is None or receiver.kind != "SparkSession":
            return None
        text = sql_text(ctx, args[0])
        m = _DROP.match(text or "")
        if m is None:
            return None
        return Emptied(node, normalise(m.group(1)), f"DROP TABLE {m.group(1)}", True)
    if method == "rm":
        owner = node.func.value
        if not (isinstance(owner, cst.Attribute) and owner.attr.value == "fs" and isinstance(owner.value, cst.Name)
                and owner.value.value in _RM_OWNERS):
            return None
        args = positional_args(node)
        recurse = args[1] if len(args) > 1 else keyword_arg(node, "recurse")
        if not args or not (isinstance(recurse, cst.Name) and recurse.value == "True"):
            return None
        key = target_key(ctx, args[0])
        if key is None:
            return None
        shown = " ".join(ctx.code_for(node).split())
        return Emptied(node, key, shown if len(shown) <= 60 else f"{owner.value.value}.fs.rm(..., True)", False)
    if method == "rmtree" or (isinstance(node.func, cst.Name) and node.func.value == "rmtree"):
        # `shutil.rmtree(path)`: a local (or mounted) directory removed with what it holds
        if ctx.semantic.qualified_name(node.func) != "shutil.rmtree":
            return None
        args = positional_args(node)
        key = target_key(ctx, args[0]) if args else None
        if key is None:
            return None
        return Emptied(node, key, "shutil.rmtree(...)", False)
    return None


def record_emptied(ctx, node: cst.Call) -> None:
    """Remember, per scope, the places emptied so far (shared by the rules through ``ctx.memo``)."""
    found = emptied_by(ctx, node)
    if found is None:
        return
    seen = ctx.memo.setdefault("rerun-safety:seen", set())
    if id(node) in seen:
        return
    seen.add(id(node))
    ctx.memo.setdefault("rerun-safety:emptied", {}).setdefault(id(scope_of(ctx)), []).append(found)


def emptied_before(ctx, key: str | None, table: bool | None = None) -> Emptied | None:
    """The latest place emptied earlier in this scope that is ``key``."""
    if key is None:
        return None
    for found in reversed(ctx.memo.get("rerun-safety:emptied", {}).get(id(scope_of(ctx)), [])):
        if (table is None or found.table == table) and same_place(found.key, key):
            return found
    return None


# --- where a written DataFrame comes from (the calls of its chain, through assignments) ---

def record_assignment(ctx, node) -> None:
    """Remember ``name = value`` per scope, in the order met (shared through ``ctx.memo``)."""
    if isinstance(node, cst.Assign):
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        name, value = node.targets[0].target.value, node.value
    elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
        name, value = node.target.value, node.value
    else:
        return
    seen = ctx.memo.setdefault("rerun-safety:assigned", set())
    if id(node) in seen:
        return
    seen.add(id(node))
    table = ctx.memo.setdefault("rerun-safety:assignments", {})
    table.setdefault((id(scope_of(ctx)), name), []).append((len(seen), value))


def derivation(ctx, expr, limit: int = 40):
    """The calls that make ``expr``: its method chain, then the chains of the names it starts from."""
    table = ctx.memo.get("rerun-safety:assignments", {})
    scopes = [id(scope_of(ctx)), id(ctx.module)]
    before = float("inf")
    steps = 0
    while expr is not None and steps < limit:
        steps += 1
        if isinstance(expr, cst.Call):
            yield expr
            expr = expr.func.value if isinstance(expr.func, cst.Attribute) else None
        elif isinstance(expr, cst.Attribute):
            expr = expr.value
        elif isinstance(expr, cst.Name):
            found = None
            for scope in scopes:
                earlier = [(seq, v) for seq, v in table.get((scope, expr.value), ()) if seq < before]
                if earlier:
                    found = earlier[-1]
                    break
            if found is None:
                return
            before, expr = found
        else:
            return


_CONSTANT_FUNCTIONS = frozenset({"lit", "current_date", "current_timestamp", "now", "curdate", "localtimestamp"})
_COLUMN_FUNCTIONS = frozenset({"col", "column", "expr"})


def _names_column(ctx, node, columns) -> bool:
    """Whether a filter argument refers to one of ``columns``: `col("ds")`, `df.ds`, `df["ds"]`, `"ds = ..."`."""
    found = False

    class Finder(cst.CSTVisitor):
        def visit_SimpleString(self, s):
            nonlocal found
            text = literal_string(s)
            if text is not None and (text in columns or (" " in text and mentions_any(text, columns))):
                found = True

        def visit_Attribute(self, a):
            nonlocal found
            if a.attr.value in columns and is_dataframe(ctx, a.value):
                found = True

    node.visit(Finder())
    return found


def _is_constant(ctx, node) -> bool:
    calls = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, c):
            calls.append(c)

    node.visit(Finder())
    functions = [ctx.semantic.is_function(c.func, _CONSTANT_FUNCTIONS | _COLUMN_FUNCTIONS) for c in calls]
    return any(f in _CONSTANT_FUNCTIONS for f in functions) and not any(f in _COLUMN_FUNCTIONS for f in functions)


_WHERE = re.compile(r"\bWHERE\b(.*)", re.IGNORECASE | re.DOTALL)


def slice_on(ctx, dataframe, columns) -> tuple | None:
    """(column, the call) when the DataFrame keeps only some values of a partition column: a `filter`/`where` on
    it, a constant `withColumn(column, lit(...))`, or SQL whose WHERE names it."""
    if dataframe is None or not columns:
        return None
    for call in derivation(ctx, dataframe):
        method = method_name(call)
        args = positional_args(call)
        if method in ("filter", "where") and args:
            for column in columns:
                if _names_column(ctx, args[0], [column]):
                    return column, call
        elif method == "withColumn" and len(args) == 2 and literal_string(args[0]) in columns:
            if _is_constant(ctx, args[1]):
                return literal_string(args[0]), call
        elif method == "sql" and args:
            receiver = ctx.semantic.infer(call.func.value)
            text = sql_text(ctx, args[0]) if receiver is not None and receiver.kind == "SparkSession" else None
            where = _WHERE.search(text or "")
            if where is not None:
                for column in columns:
                    if mentions_any(where.group(1), [column]):
                        return column, call
    return None


_FRESH_CALLS = frozenset({"uuid1", "uuid4", "mkdtemp", "TemporaryDirectory", "mktemp", "now", "utcnow", "today",
                          "time", "time_ns", "strftime", "token_hex", "random"})


def fresh_each_run(ctx, node, depth: int = 0) -> bool:
    """Whether a path is new on every run: built from `uuid4()`, `now()`, `tempfile.mkdtemp()`, a `tmp_path` ...
    (through the assignments of the names it uses)."""
    if node is None or depth > 3:
        return False
    found = False
    names = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, call):
            nonlocal found
            func = call.func
            last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            if last in _FRESH_CALLS:
                found = True

        def visit_FormattedStringExpression(self, part):
            nonlocal found
            if isinstance(part.expression, cst.Call) and method_name(part.expression) not in ("format", "join"):
                found = True  # f"s3://scratch/{uuid4()}", f"{base}/{run_id()}"

        def visit_Name(self, name):
            names.append(name.value)

    node.visit(Finder())
    if found:
        return True
    table = ctx.memo.get("rerun-safety:assignments", {})
    for name in names:
        if "tmp" in name.lower() or "temp" in name.lower():
            return True
        for scope in (id(scope_of(ctx)), id(ctx.module)):
            assigned = table.get((scope, name))
            if assigned:
                if fresh_each_run(ctx, assigned[-1][1], depth + 1):
                    return True
                break
    return False
