"""Helpers for SQL rules: text offsets of sqlglot nodes in the unit."""

from __future__ import annotations

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
