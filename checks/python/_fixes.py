"""Building blocks for fixes: source text of nodes, parenthesised where precedence needs it."""

from __future__ import annotations

import libcst as cst

from linter.diagnostics import SAFE, UNSAFE, Fix, NodeEdit

# Expressions that bind at least as tightly as `&`, `|`, `~` and `.method()`.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.ConcatenatedString,
          cst.Integer, cst.Float, cst.FormattedString, cst.List, cst.Tuple, cst.Dict, cst.Set)


def source(ctx, node) -> str:
    return ctx.code_for(node).strip()


def atom(ctx, node) -> str:
    """The node's code, in parentheses unless it already binds tightly (for `x.method()`, `a & b`)."""
    text = source(ctx, node)
    if isinstance(node, _ATOMS) or getattr(node, "lpar", None):
        return text
    return f"({text})"


def replace(node, content: str, message: str, safe: bool = True) -> Fix:
    return Fix(message, (NodeEdit(node, content),), SAFE if safe else UNSAFE)
