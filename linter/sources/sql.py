"""SQL text: statements parsed one by one with sqlglot, with their offsets.

sqlglot is imported here and only here, when a file holds SQL: importing it costs
about 0.1 s, which pre-commit runs on Python files should not pay.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Optional

_TEMPLATE = re.compile(r"\{\{|\{%|\$\{")


@dataclass
class Statement:
    start: int  # offset of the statement's first token in the unit text
    end: int  # offset after its last token
    expression: Any  # sqlglot Expression


@dataclass
class SqlError:
    message: str
    start: int
    end: int


def _dialect(name: str):
    import logging

    from sqlglot.dialects.dialect import Dialect

    # sqlglot logs a warning for statements it keeps as raw commands (OPTIMIZE ...);
    # sparkcheck's output is its own, on stdout and in one-line errors.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    return Dialect.get_or_raise(name)


def is_templated(text: str) -> bool:
    return bool(_TEMPLATE.search(text))


_FIELDS = re.compile(r"\{\{.*?\}\}|\$\{[^}]*\}|\{%.*?%\}|\{#.*?#\}", re.S)


def untemplate(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Jinja/dbt text made parseable without moving a character.

    ``{{ ref('x') }}`` and ``${var}`` become an identifier of the same length
    (``spk________``), ``{% ... %}`` and ``{# ... #}`` become spaces, so every
    offset stays where it was. Returns the text and the spans of the fields, on
    which nothing is reported.
    """
    fields = []

    def blank(token: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in token)

    def replace(m: re.Match) -> str:
        token = m.group(0)
        fields.append((m.start(), m.end()))
        if token.startswith(("{%", "{#")) or "\n" in token:
            return blank(token)
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        alone = not text[line_start:m.start()].strip() and not text[m.end():None if line_end == -1 else line_end].strip()
        if alone:
            return blank(token)  # `{{ config(...) }}` on its own line is not part of the query
        return "spk" + "_" * (len(token) - 3)

    return _FIELDS.sub(replace, text), fields


# Delta Lake and Databricks statements Spark runs that sqlglot's Spark dialect does not parse: kept as commands
# (as sqlglot keeps `OPTIMIZE` and `VACUUM`), not reported as SQL that cannot be parsed.
_UNPARSED_COMMANDS = re.compile(
    r"\s*(DESC(?:RIBE)?(?=\s+(?:DETAIL|HISTORY)\b)|CONVERT(?=\s+TO\s+DELTA\b)|RESTORE(?=\s)|FSCK(?=\s+REPAIR\b)"
    r"|GENERATE(?=\s+\w+\s+FOR\s+TABLE\b))",
    re.IGNORECASE,
)


def parse_statements(text: str, dialect: str = "spark") -> tuple[list[Statement], list[SqlError]]:
    """Every statement of ``text`` that parses, and an error for each that does not."""
    from sqlglot import exp
    from sqlglot.errors import ErrorLevel, ParseError, TokenError
    from sqlglot.tokens import TokenType

    d = _dialect(dialect)
    try:
        tokens = d.tokenize(text)
    except TokenError as exc:
        return [], [SqlError(f"cannot tokenize SQL: {exc}", 0, len(text))]
    chunks, current = [], []
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            if current:
                chunks.append(current)
            current = []
        else:
            current.append(token)
    if current:
        chunks.append(current)

    statements, errors = [], []
    for chunk in chunks:
        start, end = chunk[0].start, chunk[-1].end + 1
        command = _UNPARSED_COMMANDS.match(text, start, end)
        if command is not None:
            statements.append(Statement(start, end, exp.Command(
                this=command.group(1).upper(), expression=exp.Literal.string(text[command.end(1):end].strip()))))
            continue
        try:
            parsed = d.parser(error_level=ErrorLevel.RAISE).parse(chunk, text)
        except ParseError as exc:
            errors.append(_error(text, exc, start, end))
            continue
        for expression in parsed:
            if expression is not None:
                statements.append(Statement(start, end, expression))
    return statements, errors


def _error(text: str, exc, start: int, end: int) -> SqlError:
    info: Optional[dict] = exc.errors[0] if getattr(exc, "errors", None) else None
    if not info:
        return SqlError(f"cannot parse SQL: {exc}", start, end)
    description = str(info.get("description") or exc).split(". Line")[0]
    description = re.sub(r"<Token token_type: TokenType\.(\w+), text: ([^,]*),.*?>", r"\2", description)
    description = description.replace("got SENTINEL", "reached the end of the statement")
    description = re.sub(r"<class '(?:\w+\.)*(\w+)'>", r"\1", description)
    description = _REQUIRED.sub(_plain_required, description)
    line, col = info.get("line") or 1, info.get("col") or 1
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    last = starts[min(line, len(starts)) - 1] + col - 1
    highlight = info.get("highlight") or ""
    first = max(start, last - len(highlight) + 1)
    return SqlError(f"cannot parse SQL: {description}{_missing_semicolon(text, start, first)}", first,
                    max(first + 1, last + 1))


# sqlglot names what is missing by its own expression classes ("Required keyword: 'expression' missing for
# GT"); said in SQL's words, sqlglot's kept after them for a search
_REQUIRED = re.compile(r"Required keyword: '(\w+)' missing for (\w+)")
_OPERATORS = {"GT": ">", "GTE": ">=", "LT": "<", "LTE": "<=", "EQ": "=", "NEQ": "<>", "NullSafeEQ": "<=>",
              "Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Mod": "%", "BitwiseOr": "|", "BitwiseAnd": "&",
              "BitwiseXor": "^", "DPipe": "||", "And": "AND", "Or": "OR", "Like": "LIKE", "ILike": "ILIKE",
              "Is": "IS", "In": "IN"}
_CLAUSES = {"Where": "WHERE", "Having": "HAVING", "Qualify": "QUALIFY", "Group": "GROUP BY", "Order": "ORDER BY",
            "Limit": "LIMIT", "Join": "JOIN", "From": "FROM", "Alias": "AS", "Cast": "CAST"}


def _plain_required(m) -> str:
    what, where = m.group(1), m.group(2)
    if where == "Between":
        plain = f"`BETWEEN` without its {'lower' if what == 'low' else 'upper'} bound (`BETWEEN low AND high`)" \
            if what in ("low", "high") else "`BETWEEN` with no expression before it"
    elif where in _OPERATORS:
        plain = f"`{_OPERATORS[where]}` with no expression on its {'left' if what == 'this' else 'right'}"
    elif where in _CLAUSES:
        plain = f"`{_CLAUSES[where]}` with no expression after it"
    else:
        return m.group(0)
    return f"{plain} ({m.group(0)})"


_STATEMENT_START = re.compile(r"(?i)(select|with|insert|create|drop|alter|update|delete|merge|set|show|describe|"
                              r"explain|use|cache|uncache|refresh|msck|analyze|truncate|optimize|vacuum)\b")


def _missing_semicolon(text: str, start: int, at: int) -> str:
    """" (a new statement starts on this line: end the one before it with `;`)" when the error is at the first
    word of a line, that word starts a statement, and the line before it (comments and blank lines aside) is part
    of the same statement, not ended with `;`; else ""."""
    line_start = text.rfind("\n", 0, at) + 1
    if text[line_start:at].strip() or not _STATEMENT_START.match(text, at):
        return ""
    before = [ln.split("--", 1)[0].rstrip() for ln in text[start:line_start].splitlines()]
    before = [ln for ln in before if ln.strip()]
    if not before or before[-1].endswith(";"):
        return ""
    return " (a new statement starts on this line: end the one before it with `;`)"


def node_span(node) -> Optional[tuple[int, int]]:
    """Offsets of a sqlglot node from its own or its descendants' token metadata."""
    lo = hi = None
    for n in node.walk():
        meta = n.meta if hasattr(n, "_meta") and n._meta else None
        if meta and "start" in meta:
            s, e = meta["start"], meta["end"] + 1
            lo = s if lo is None or s < lo else lo
            hi = e if hi is None or e > hi else hi
    return (lo, hi) if lo is not None else None


_TEMP_VIEW_CALL = re.compile(
    r"""(?:createOrReplaceTempView|createTempView|createGlobalTempView|createOrReplaceGlobalTempView|"""
    r"""registerTempTable)\(\s*(?:viewName\s*=\s*)?[rR]?([fF]?)[rR]?(['"])([^'"\n]+)\2"""
)
_TEMP_VIEW_SQL = re.compile(
    r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:GLOBAL\s+)?TEMP(?:ORARY)?\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.`{}]+)", re.I
)
_FIELD = re.compile(r"\{[^{}]*\}|spk_param_\d+")


class TempViews:
    """Names of the temporary views a file registers; a template field (``{name}``) matches any name part."""

    def __init__(self, names: list):
        self.exact = {n.lower() for n in names if "\0" not in n}
        self.shapes = {n.lower() for n in names if "\0" in n}

    def matches(self, name: str) -> bool:
        name = name.lower().split(".")[-1]
        shape = _FIELD.sub("\0", name)
        if shape in self.exact or shape in self.shapes:
            return True
        if "\0" in shape:  # the query's name is templated: a registered name of the same shape
            pattern = re.compile("".join(r"\w*" if c == "\0" else re.escape(c) for c in shape))
            return any(pattern.fullmatch(n) for n in self.exact)
        return False


@functools.lru_cache(maxsize=64)
def temp_view_names(text: str) -> TempViews:
    """The temporary views ``text`` (a Python file, notebook or SQL script) registers."""
    names = []
    if "TempView" in text or "registerTempTable" in text:
        for m in _TEMP_VIEW_CALL.finditer(text):
            names.append(_FIELD.sub("\0", m.group(3).strip("`").split(".")[-1]) if m.group(1) else m.group(3).split(".")[-1])
    if re.search(r"(?i)\btemp", text):
        for m in _TEMP_VIEW_SQL.finditer(text):
            names.append(_FIELD.sub("\0", m.group(1).strip("`").split(".")[-1]))
    return TempViews(names)
