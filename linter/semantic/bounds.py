"""Row bounds: how many rows a DataFrame can hold, as far as the code proves it."""

from __future__ import annotations

import re
from typing import Optional

from linter.semantic.templates import template_parts
from linter.semantic.values import BOUNDED, UNBOUNDED  # the names rules import from here

# A proven bound up to this many rows is small: one task sorts, collects, broadcasts or holds such a frame in
# no time (each rule that asks says what it does with them).
FEW_ROWS = 100_000


def _combine_bounds(bounds) -> object:
    """The bound of a join or union of frames: unbounded when one side is (whatever the other holds, nothing
    proves the result small), unknown when one side is unknown, bounded when all are."""
    if any(b == UNBOUNDED for b in bounds):
        return UNBOUNDED
    if any(b is None for b in bounds):
        return None
    return BOUNDED



def declared_small(name: Optional[str], patterns) -> bool:
    """Whether the project's `small-tables` setting says a table, view or path is small.

    Only the project knows that a reference table holds a few hundred rows; the code never proves it. A pattern
    is a glob (`*`, `?`, `[...]`). Table and view names match in any case, as Spark's catalog does: the whole
    name as the code writes it (`"ref.countries"`, `"ref.*"`), or, for a pattern with no dot, its last part
    (`"countries"` matches `spark.table("gold.ref.countries")`). A path (a name with `/` or `:`) matches as
    written, trailing slashes aside (`"s3://lake/ref/*"`).
    """
    if not name or not patterns:
        return False
    from fnmatch import fnmatchcase

    name = name.strip().rstrip("/")
    if "/" in name or ":" in name:
        return any(fnmatchcase(name, p.rstrip("/")) for p in patterns if "/" in p or ":" in p)
    name = name.replace("`", "").lower()
    last = name.rsplit(".", 1)[-1]
    for pattern in patterns:
        if "/" in pattern or ":" in pattern:
            continue
        pattern = pattern.replace("`", "").lower()
        if fnmatchcase(name, pattern) or ("." not in pattern and fnmatchcase(last, pattern)):
            return True
    return False


_SQL_SELECT = re.compile(r"^\s*(\(\s*)*(select|with|from|values|table)\b", re.I)
_SQL_LIMIT = re.compile(r"\blimit\s+(\d+)\s*;?\s*$", re.I)
_SQL_ANY_LIMIT = re.compile(r"\blimit\s+[\w.]+\s*;?\s*$", re.I)
_SQL_READS = re.compile(r"^\s*(show|describe|desc|explain|set|use)\b", re.I)
_SQL_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def sql_bound(text: str):
    """Row bound of the result of a SQL statement.

    Statements that are not queries (``SET``, ``SHOW``, ``DESCRIBE``, ``EXPLAIN``,
    DDL, DML) return a handful of rows; a query is unbounded unless it proves
    otherwise: a ``LIMIT``, no ``FROM`` (``SELECT current_user()``), or only
    aggregates without ``GROUP BY``.  Text that does not parse is a query over
    tables all the same: unbounded.
    """
    text = _SQL_COMMENT.sub(" ", text).strip()
    if not _SQL_SELECT.match(text):
        return BOUNDED
    m = _SQL_LIMIT.search(text)
    if m:
        return int(m.group(1))
    if _SQL_ANY_LIMIT.search(text):
        return BOUNDED  # `LIMIT {n}`: a bound all the same
    from linter.sources.sql import is_templated, untemplate

    if is_templated(text):
        text = untemplate(text)[0]
    try:
        import sqlglot
        from sqlglot import exp

        tree = sqlglot.parse_one(text.rstrip(";"), read="spark")
    except Exception:  # noqa: BLE001 - not readable: nothing proves it small
        return UNBOUNDED
    if isinstance(tree, exp.Values):
        return BOUNDED  # `VALUES (1, 'a'), (2, 'b')`: the rows are in the text
    if isinstance(tree, exp.Select):
        if tree.args.get("limit") is not None:
            return BOUNDED
        if tree.args.get("from_", tree.args.get("from")) is None and not tree.args.get("joins"):
            return 1  # `SELECT current_user()`, `SELECT 1 AS ok`
        if not tree.args.get("group"):
            projections = tree.expressions
            if projections and all(
                p.find(exp.AggFunc) is not None and p.find(exp.Window) is None for p in projections
            ):
                return 1
    return UNBOUNDED


def template_text(node) -> Optional[str]:
    """The SQL a template builds (see ``templates.template_parts``), each field read as a name ``x``."""
    parts = template_parts(node)
    return None if parts is None else "".join(p if isinstance(p, str) else " x " for p in parts)


def may_write(text: str) -> bool:
    """Whether a SQL statement may write or define a table or view: anything but a query, `SHOW`, `DESCRIBE`,
    `EXPLAIN`, `SET` or `USE` (comments aside)."""
    text = _SQL_COMMENT.sub(" ", text)
    return not _SQL_SELECT.match(text) and not _SQL_READS.match(text)


def source_bound(text: str, bound_of):
    """Row bound of a query that reads one table or view and keeps at most its rows: ``SELECT ... FROM v``
    (filtered, grouped, sorted, windowed), or ``v`` `LEFT ANTI`/`LEFT SEMI JOIN` anything, with ``bound_of(name)``
    the bound of ``v`` (None when nothing is known of it). None when the query may hold more rows than ``v``: an
    inner or outer join, a set operation, a CTE, a generator (`explode`, `inline`, `stack`, `LATERAL VIEW`)."""
    try:
        import sqlglot
        from sqlglot import exp

        tree = sqlglot.parse_one(_SQL_COMMENT.sub(" ", text).strip().rstrip(";"), read="spark")
    except Exception:  # noqa: BLE001 - not readable: nothing proven
        return None
    if not isinstance(tree, exp.Select) or tree.args.get("with") or tree.args.get("with_"):
        return None
    source = tree.args.get("from_", tree.args.get("from"))
    if source is None or not isinstance(source.this, exp.Table) or source.this.args.get("pivots"):
        return None
    for join in tree.args.get("joins") or ():
        if (join.side or "LEFT").upper() != "LEFT" or (join.kind or "").upper() not in ("ANTI", "SEMI"):
            return None  # only a left anti or semi join keeps the left side's rows, and no more
    if tree.find(exp.Explode, exp.Inline, exp.Stack, exp.Unnest, exp.Lateral, exp.Cube, exp.Rollup,
                 exp.GroupingSets) is not None:
        return None  # (a subquery in WHERE or in the select list adds no rows; grouping sets may add a few times)
    group = tree.args.get("group")
    if group is not None and any(group.args.get(k) for k in ("rollup", "cube", "totals", "grouping_sets")):
        return None
    table = source.this
    name = ".".join(part.name for part in table.parts)
    bound = bound_of(name)
    return None if bound == UNBOUNDED else bound
