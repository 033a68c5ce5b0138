"""Shared by the rules about literals in job code and about reads: date literals, reader chains, formatted SQL."""

from __future__ import annotations

import datetime
import re
from typing import Optional

import libcst as cst

from linter.semantic import STRING, keyword_arg, literal_int, literal_string, method_name, positional_args

# ---------------------------------------------------------------------------------------------------------------
# Date literals

_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)
_COMPACT = re.compile(r"(\d{4})(\d{2})(\d{2})")
# Column names that hold a day, for the compact `20240101` form (a bare 8-digit string is anything else too)
_DATE_NAME = re.compile(r"(?:^|_)(?:ds|dt|date|day|dte|partition_date|load_date|run_date|snapshot)(?:_|$)|date$",
                        re.I)
# Sentinels and open ends of validity ranges (`valid_to = '9999-12-31'`, `'1900-01-01'`), not a run's window
_FIRST_REAL_YEAR, _LAST_REAL_YEAR = 1971, 2098


def _real_date(year: str, month: str, day: str) -> Optional[datetime.date]:
    try:
        value = datetime.date(int(year), int(month), int(day))
    except ValueError:
        return None  # '2026-13-01': looks like a date, is not one
    return value if _FIRST_REAL_YEAR <= value.year <= _LAST_REAL_YEAR else None


def date_text(text: Optional[str], column: Optional[str] = None) -> bool:
    """Is ``text`` a real calendar date or timestamp (ISO; ``YYYYMMDD`` only against a date-named column)?"""
    if text is None:
        return False
    text = text.strip()
    m = _ISO.fullmatch(text)
    if m:
        return _real_date(*m.group(1, 2, 3)) is not None
    m = _COMPACT.fullmatch(text)
    if m and column and _DATE_NAME.search(column):
        return _real_date(*m.group(1, 2, 3)) is not None
    return False


def date_like_name(name: Optional[str]) -> bool:
    return bool(name) and bool(_DATE_NAME.search(name))


# ---------------------------------------------------------------------------------------------------------------
# SQL predicates (sqlglot)

def _sql_date_literal(node, column: Optional[str]) -> Optional[object]:
    """The string literal holding a date in a side of a comparison that names no column, else None."""
    from sqlglot import exp

    if node is None or any(isinstance(n, exp.Column) for n in node.walk()):
        return None
    for n in node.walk():
        if isinstance(n, exp.Literal) and n.is_string and date_text(n.this, column):
            return n
    return None


def _column_name(node) -> Optional[str]:
    from sqlglot import exp

    for n in node.walk():
        if isinstance(n, exp.Column):
            return n.name
    return None


def _has_column(node) -> bool:
    from sqlglot import exp

    return node is not None and any(isinstance(n, exp.Column) for n in node.walk())


_EQUALITY = ("EQ", "NullSafeEQ")
_RANGES = ("GT", "GTE", "LT", "LTE")


def sql_date_predicates(condition, ranges: bool) -> list:
    """(literal node, column name, operator text) for each column compared with a hard-coded date in ``condition``.

    Equality (`=`, `<=>`, `IN (...)`) always; `<`, `>=`, ... and `BETWEEN` when ``ranges``.
    """
    from sqlglot import exp

    out = []
    for node in condition.walk():
        kind = type(node).__name__
        if kind in _EQUALITY or (ranges and kind in _RANGES):
            left, right = node.this, node.expression
            for column_side, value_side in ((left, right), (right, left)):
                if _has_column(column_side):
                    name = _column_name(column_side)
                    literal = _sql_date_literal(value_side, name)
                    if literal is not None:
                        out.append((literal, name, "=" if kind == "EQ" else kind))
                        break
        elif isinstance(node, exp.In) and _has_column(node.this) and node.expressions:
            name = _column_name(node.this)
            literals = [_sql_date_literal(e, name) for e in node.expressions]
            if all(lit is not None for lit in literals):
                out.append((literals[0], name, "IN"))
        elif ranges and isinstance(node, exp.Between) and _has_column(node.this):
            name = _column_name(node.this)
            literal = _sql_date_literal(node.args.get("low"), name) or _sql_date_literal(node.args.get("high"), name)
            if literal is not None:
                out.append((literal, name, "BETWEEN"))
    return out


def filter_conditions(statement) -> list:
    """The WHERE, HAVING, QUALIFY and JOIN ... ON conditions anywhere in a statement."""
    from sqlglot import exp

    out = []
    for node in statement.walk():
        if isinstance(node, (exp.Where, exp.Having, exp.Qualify)):
            out.append(node.this)
        elif isinstance(node, exp.Join) and node.args.get("on") is not None:
            out.append(node.args["on"])
    return out


# ---------------------------------------------------------------------------------------------------------------
# Reader chains

def reader_chain(call: cst.Call) -> list:
    """The calls of ``spark.read.format(...).option(...).load(...)``, outermost first, down to the reader."""
    chain = []
    inner = call
    while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
        chain.append(inner)
        inner = inner.func.value
    return chain


def reader_options(chain: list, text_of=literal_string) -> tuple[dict, Optional[str]]:
    """(options by lower-cased key, the format) set along a reader chain: option/options/format calls and the
    keywords of the load call itself.  A value is the libcst node (or None when it is not a literal).
    ``text_of`` reads an option's name (``semantic.text_of`` also knows the project's constants)."""
    options: dict = {}
    fmt = None
    for c in reversed(chain):  # innermost first: a later option wins
        m, args = method_name(c), positional_args(c)
        if m == "option" and len(args) == 2 and text_of(args[0]) is not None:
            options[text_of(args[0]).lower()] = args[1]
        elif m == "option" and len(args) < 2:
            key, value = keyword_arg(c, "key"), keyword_arg(c, "value")
            if key is not None and text_of(key) is not None:
                options[text_of(key).lower()] = value
        elif m == "options":
            for a in c.args:
                if a.keyword is not None:
                    options[a.keyword.value.lower()] = a.value
                elif a.star == "**" and isinstance(a.value, cst.Dict):
                    _dict_options(a.value, options)
                elif not a.star and isinstance(a.value, cst.Dict):
                    _dict_options(a.value, options)
                else:
                    options["\0unknown"] = a.value  # `**opts` of a variable: anything may be in it
        elif m == "format" and args:
            fmt = text_of(args[0]) or "\0unknown"
    if chain:
        for a in chain[0].args:
            if a.keyword is not None:
                options.setdefault(a.keyword.value.lower(), a.value)
                if a.keyword.value == "format" and literal_string(a.value):
                    fmt = literal_string(a.value)
            elif a.star == "**":
                options["\0unknown"] = a.value
    return options, fmt


def _dict_options(node: cst.Dict, options: dict) -> None:
    for element in node.elements:
        if isinstance(element, cst.DictElement) and literal_string(element.key) is not None:
            options[literal_string(element.key).lower()] = element.value
        else:
            options["\0unknown"] = node


def truthy(node) -> bool:
    """`True`, `"true"`: an explicit yes."""
    if isinstance(node, cst.Name):
        return node.value == "True"
    text = literal_string(node) if node is not None else None
    return text is not None and text.strip().lower() == "true"


def falsy(node) -> bool:
    """`False`, `"false"`: an explicit no."""
    if isinstance(node, cst.Name):
        return node.value == "False"
    text = literal_string(node) if node is not None else None
    return text is not None and text.strip().lower() == "false"


# ---------------------------------------------------------------------------------------------------------------
# SQL text built from Python values

class Field:
    """One formatted part of a SQL string: its Python expression, and where it stands in the SQL."""

    __slots__ = ("node", "report_node", "marker", "quoted", "role")

    def __init__(self, node, report_node, marker: str):
        self.node = node  # the Python expression formatted in (None when unknown: `%` with a dict of it)
        self.report_node = report_node
        self.marker = marker
        self.quoted = False
        self.role = "identifier"  # "value" when the SQL takes it as a literal value


def constant_field(semantic, node, ancestors=()) -> bool:
    """A formatted part that cannot carry a quote: a literal, a name bound to one, a number the code computes
    (`int(x)`, `d.timestamp()`, also through the name it is assigned to), the item of an enclosing `for` over
    literals (`for year in ["2021", "2020"]`, or a name bound to such a list)."""
    if node is None:
        return False
    if literal_string(node) is not None or isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        if node.value in ("True", "False", "None"):
            return True
        at = next((i for i in range(len(ancestors) - 1, -1, -1) if ancestors[i].__class__ is cst.For
                   and ancestors[i].target.__class__ is cst.Name and ancestors[i].target.value == node.value), None)
        # the loop's item, when nothing else binds the name (no assignment, comprehension or parameter of a
        # function or lambda between the loop and here) and the list is not changed in place
        if at is not None and semantic.bindings(node.value) == 1 and not any(
                a.__class__ in (cst.FunctionDef, cst.Lambda) for a in ancestors[at + 1:]):
            items = ancestors[at].iter
            if isinstance(items, cst.Name):
                items = None if semantic.changed_in_place(items.value) else semantic.assigned_expression(items.value)
            return isinstance(items, (cst.List, cst.Tuple, cst.Set)) and bool(items.elements) and all(
                isinstance(e, cst.Element) and (isinstance(e.value, (cst.Integer, cst.Float))
                                                or _quote_free(literal_string(e.value)))
                for e in items.elements)
        value = semantic.lookup(node.value)
        if value is not None and value.kind == STRING and value.detail is not None and \
                isinstance(value.node, (cst.SimpleString, cst.ConcatenatedString)):
            return True
        return _numeric(semantic.assigned_expression(node.value))  # `start = int(d.timestamp() * 1000)`
    return _numeric(node)


def _quote_free(text) -> bool:
    """A literal's text with no quote or backslash in it: formatted into SQL, it cannot end a string."""
    return text is not None and "'" not in text and '"' not in text and "\\" not in text


def _quote_free_format(call: cst.Call) -> bool:
    """`d.strftime("%Y-%m-%d")`: a date rendered by a literal format with no quote in it."""
    args = positional_args(call)
    return len(args) == 1 and _quote_free(literal_string(args[0]))


def _numeric(node) -> bool:
    """A number (or a date rendered as digits) the code computes: `int(...)`, `float(...)`, `len(...)`,
    `round(...)`, `d.timestamp()`, `d.isoformat()`, `d.strftime("%Y-%m-%d")`, a negative literal, or arithmetic
    of such: no quote can be in its text."""
    if node is None:
        return False
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        return (isinstance(func, cst.Name) and func.value in ("int", "float", "len", "round", "abs")) or (
            isinstance(func, cst.Attribute) and (func.attr.value in ("timestamp", "isoformat") and not node.args
                                                 or func.attr.value == "strftime" and _quote_free_format(node)))
    if isinstance(node, cst.UnaryOperation):
        return literal_int(node.expression) is not None or _numeric(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _numeric(node.left) and _numeric(node.right)
    return False


def place_fields(parts: list) -> tuple[str, list]:
    """The SQL text with each field replaced by a marker, and the fields with whether they sit inside quotes."""
    text, fields, quote = "", [], None
    for part in parts:
        if isinstance(part, tuple):
            marker = f"spkfield{len(fields)}x"
            field = Field(part[1], part[1], marker)
            field.quoted = quote in ("'", '"')
            if quote == "`":
                field.quoted = False
            fields.append(field)
            text += marker
            continue
        for ch in part:
            if quote is None and ch in "'\"`":
                quote = ch
            elif quote is not None and ch == quote:
                quote = None
        text += part
    return text, fields


_STATEMENTS = ("Select", "Union", "Intersect", "Except", "Insert", "Update", "Delete", "Merge", "Subquery", "With")
_COMPARISONS = ("EQ", "NEQ", "GT", "GTE", "LT", "LTE", "NullSafeEQ", "Like", "ILike")


def classify_fields(sql: str, fields: list) -> bool:
    """Set each field's role from where its marker stands in the parsed SQL; False when the SQL does not parse."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    from linter.sources.sql import _dialect

    try:
        statements = sqlglot.parse(sql, dialect=_dialect("spark"))
    except (SqlglotError, ValueError, RecursionError):
        return False
    by_marker = {f.marker: f for f in fields}
    for statement in statements:
        if statement is None:
            continue
        if type(statement).__name__ not in _STATEMENTS:
            continue  # DDL, SET, SHOW...: parameter markers are not allowed there
        for node in statement.walk():
            if isinstance(node, exp.Literal) and node.is_string:
                for marker, field in by_marker.items():
                    if marker in node.this and field.quoted and not _under(node, (exp.Partition, exp.Properties,
                                                                                  exp.Table, exp.Schema)):
                        field.role = "value"
            elif isinstance(node, exp.Column) and node.name in by_marker and not node.table:
                field = by_marker[node.name]
                if field.quoted:
                    continue
                parent = node.parent
                if isinstance(parent, exp.Paren):
                    parent = parent.parent
                if type(parent).__name__ in _COMPARISONS:
                    other = parent.expression if parent.this is node or parent.this is node.parent else parent.this
                    if _real_columns(other, by_marker):
                        field.role = "value"
                elif isinstance(parent, exp.Between) and node is not parent.this and _real_columns(parent.this,
                                                                                                     by_marker):
                    field.role = "value"
    return True


def _under(node, kinds) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent
    return False


def _real_columns(node, markers) -> bool:
    from sqlglot import exp

    return node is not None and any(isinstance(n, exp.Column) and n.name not in markers for n in node.walk())
