"""Building blocks for fixes: source text of nodes, parenthesised where precedence needs it."""

from __future__ import annotations

import libcst as cst

from linter.diagnostics import SAFE, UNSAFE, Fix, NodeEdit
from linter.semantic import FUNCTIONS, IMPORT

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


def statement_and_indent(ctx):
    """The statement holding the node being visited, and its indentation.

    Returns (node to insert before, indent) for the innermost statement that is
    directly in a block or the module; for a decorated function or class, the
    insertion point is its first decorator.
    """
    ancestors = ctx.ancestors
    module = ctx.module
    for i in range(len(ancestors) - 1, 0, -1):
        parent = ancestors[i - 1]
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            statement = ancestors[i]
            indent = "".join(
                (b.indent if b.indent is not None else module.default_indent)
                for b in ancestors[:i]
                if isinstance(b, cst.IndentedBlock)
            )
            decorators = getattr(statement, "decorators", ())
            return (decorators[0] if decorators else statement), indent
    return None, ""


def functions_name(ctx):
    """The module-level name the file gives pyspark.sql.functions (`F`, `sf`, ...), or None."""
    for name, value in ctx.semantic.scopes[0].names.items():
        if value is not None and value.kind == IMPORT and value.detail == FUNCTIONS:
            return name
    return None


def functions_alias(ctx, module: cst.Module):
    """The file's name for pyspark.sql.functions, and the import edit to add when it has none.

    Reuses whatever the file already calls it (`F`, `sf`, `psf`, ...); otherwise
    adds `from pyspark.sql import functions as F` (or `sf` when `F` is taken)
    after the last import at the top of the module. Call at the module's end.
    """
    existing = functions_name(ctx)
    if existing is not None:
        return existing, None
    scope = ctx.semantic.scopes[0].names
    alias = next((a for a in ("F", "sf") if a not in scope), None)
    if alias is None:
        return None, None
    body = list(module.body)
    last_import = -1
    for i, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], (cst.Import, cst.ImportFrom)):
            last_import = i
    if last_import + 1 >= len(body):
        return None, None
    anchor = body[last_import + 1]
    decorators = getattr(anchor, "decorators", ())
    return alias, NodeEdit(decorators[0] if decorators else anchor, f"from pyspark.sql import functions as {alias}\n",
                           before=True)
