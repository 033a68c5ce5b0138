"""Helpers for SQL rules: text offsets of sqlglot nodes in the unit."""

from __future__ import annotations

import re
from typing import Optional

from linter.sources.sql import node_span


def closing_paren(text: str, node) -> Optional[int]:
    """Offset of the `)` that closes a function call node (after its last argument)."""
    span = node_span(node)
    if span is None:
        return None
    i = span[1]
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i if i < len(text) and text[i] == ")" else None


def is_string(node) -> bool:
    from sqlglot import exp

    return isinstance(node, exp.Literal) and node.is_string


def numeric_text(text: str) -> Optional[str]:
    """"INT" or "DOUBLE" when the text is a plain number, else None."""
    stripped = text.strip()
    if not stripped or stripped != text:
        return None
    try:
        int(stripped)
        return "INT" if len(stripped.lstrip("+-")) < 10 else "BIGINT"
    except ValueError:
        pass
    try:
        float(stripped)
        return "DOUBLE"
    except ValueError:
        return None


def table_name(table) -> str:
    """A sqlglot Table's name as `catalog.db.name`, lower-cased, the parts it has."""
    return ".".join(p for p in (table.catalog, table.db, table.name) if p).lower()


def spelled_name(name: str) -> str:
    """A regex for a table name as a script may write it (backticks around any part)."""
    return r"`?\.`?".join(re.escape(part) for part in name.split("."))


def normalise(text: str) -> str:
    return text.strip().strip("`").replace("`", "").rstrip("/").lower()


_PARTITIONED_TABLE = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.`{}]+)"
    r"(?:(?!CREATE|;)[\s\S])*?PARTITIONED\s+BY\s*\(([^)]*)\)", re.IGNORECASE)


def partitioned_tables(text: str) -> dict:
    """Data source tables (`USING ...`) the file creates `PARTITIONED BY (...)`: normalised name -> columns."""
    out = {}
    if "PARTITIONED" not in text.upper():
        return out
    for m in _PARTITIONED_TABLE.finditer(text):
        if not re.search(r"\bUSING\b", m.group(0), re.IGNORECASE) or re.search(r"\bSTORED\s+AS\b", m.group(0), re.IGNORECASE):
            continue  # a Hive table: an insert overwrite replaces only the partitions it writes
        columns = [part.split()[0].strip("`") for part in m.group(2).split(",") if part.split()]
        out[normalise(m.group(1))] = columns
    return out
