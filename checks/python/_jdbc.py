"""JDBC reads as SPK414 (jdbc-read-without-partitioning) and SPK429 (jdbc-read-without-fetchsize) see them."""

import re
from typing import NamedTuple, Optional

import libcst as cst

from checks.python._literals_and_reads import reader_chain, reader_options
from linter.semantic import FEW_ROWS, READER, UNBOUNDED, literal_string, method_name, sql_bound

_UNKNOWN = "\0unknown"
# spark.read.jdbc(url, table, column, lowerBound, upperBound, numPartitions, predicates, properties)
_JDBC_PARAMS = ("url", "table", "column", "lowerBound", "upperBound", "numPartitions", "predicates", "properties")


class JdbcRead(NamedTuple):
    partitioned: bool  # a partition column (with its bounds) or predicates
    fetch: bool  # `fetchsize` set
    query: bool  # the `query` option, which cannot be partitioned
    reduced: bool = False  # the table is a subquery the database aggregates itself (DISTINCT, GROUP BY)
    embedded: bool = False  # the database is a local SQLite file (`jdbc:sqlite:`)


def jdbc_read(semantic, node: cst.Call) -> Optional[JdbcRead]:
    """What a `spark.read.jdbc(...)` or `format("jdbc")...load()` call sets; None when it is no JDBC read, when
    options come from a variable (anything may be in them), or when its table is a query proven small."""
    method = method_name(node)
    if method not in ("jdbc", "load"):
        return None
    receiver = semantic.infer(node.func.value)
    if receiver is None or receiver.kind != READER:
        return None
    options, fmt = reader_options(reader_chain(node), semantic.text_of)
    if method == "jdbc":
        return _jdbc_call(semantic, node, options)
    if (fmt or "").lower() != "jdbc" or _UNKNOWN in options:
        return None
    table = options.get("dbtable", options.get("query"))
    table = semantic.text_of(table) if table is not None else None
    if _small(table):
        return None
    url = options.get("url")
    return JdbcRead("partitioncolumn" in options, "fetchsize" in options, "query" in options and "dbtable" not in options,
                    _reduced(table), _embedded(semantic.text_of(url) if url is not None else None))


def _jdbc_call(semantic, node: cst.Call, options: dict) -> Optional[JdbcRead]:
    given = {}
    for i, a in enumerate(node.args):
        if a.star:
            return None  # `jdbc(*args)` / `jdbc(**kw)`: not known here
        name = a.keyword.value if a.keyword is not None else (_JDBC_PARAMS[i] if i < len(_JDBC_PARAMS) else None)
        if name is not None:
            given[name] = a.value
    table = semantic.text_of(given["table"]) if "table" in given else None
    if _UNKNOWN in options or _small(table):
        return None
    partitioned = "column" in given or "predicates" in given or "partitioncolumn" in options
    properties = given.get("properties")
    fetch = "fetchsize" in options
    if isinstance(properties, cst.Dict):
        keys = [literal_string(e.key) for e in properties.elements if isinstance(e, cst.DictElement)]
        if any(k is None for k in keys) or len(keys) != len(properties.elements):
            return None
        fetch = fetch or any(k.lower() == "fetchsize" for k in keys)
    elif properties is not None:
        return None  # properties from a variable may set fetchsize
    url = given.get("url", options.get("url"))
    return JdbcRead(partitioned, fetch, False, _reduced(table), _embedded(semantic.text_of(url) if url is not None else None))


_REDUCING = re.compile(r"\bselect\s+distinct\b|\bgroup\s+by\b", re.I)


def _reduced(text: Optional[str]) -> bool:
    """`(SELECT DISTINCT country FROM flights) q`: the database reduces the rows before they are sent, and a
    partitioned read would run that aggregation once per partition (each with its own WHERE on the column)."""
    return text is not None and _REDUCING.search(text) is not None


def _embedded(url: Optional[str]) -> bool:
    """`jdbc:sqlite:/data/flights.db`: a database file on the reading host, read by one process at a time in
    practice (a demo's or a small reference table), where a partitioned read gains nothing."""
    return url is not None and url.lower().startswith("jdbc:sqlite:")


def _small(text: Optional[str]) -> bool:
    """The table is a query the text proves small (`SELECT max(id) ...`, `LIMIT 10`)."""
    if text is None or "select" not in text.lower():
        return False
    inner = text.strip()
    if inner.startswith("("):
        inner = inner[1:inner.rfind(")")]
    bound = sql_bound(inner)
    return bound != UNBOUNDED and (not isinstance(bound, int) or bound <= FEW_ROWS)
