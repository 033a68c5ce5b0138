"""SQL built from Python values: the parts of an f-string, ``"...".format(...)``, ``"..." % args`` or ``+``.

One reading serves the row bounds of ``spark.sql(template)`` (``bounds.template_text``)
and the rules about what is formatted into SQL (SPK522).
"""

from __future__ import annotations

import re
import string

import libcst as cst

from linter.semantic.values import literal_string, positional_args


def _format_fields(text: str, call: cst.Call):
    """(literal parts and field indexes) of a `"...".format(...)` template; None when it is not simple."""
    positional = positional_args(call)
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    parts, auto = [], 0
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for literal, name, _spec, _conv in parsed:
        parts.append(literal)
        if name is None:
            continue
        if name == "":
            node = positional[auto] if auto < len(positional) else None
            auto += 1
        elif name.isdigit():
            index = int(name)
            node = positional[index] if index < len(positional) else None
        else:
            node = keywords.get(name.split(".")[0].split("[")[0])
        parts.append(("field", node))
    return parts


_PERCENT = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]|%%")


def _percent_fields(text: str, right):
    values = None
    named = None
    if isinstance(right, cst.Tuple):
        values = [e.value for e in right.elements]
    elif isinstance(right, cst.Dict):
        named = {literal_string(e.key): e.value for e in right.elements if isinstance(e, cst.DictElement)}
    else:
        values = [right]
    parts, pos, index = [], 0, 0
    for m in _PERCENT.finditer(text):
        parts.append(text[pos:m.start()])
        pos = m.end()
        if m.group(0) == "%%":
            parts.append("%")
            continue
        if m.group(1) is not None:
            node = named.get(m.group(1)) if named is not None else None
        else:
            node = values[index] if values is not None and index < len(values) else None
            index += 1
        parts.append(("field", node))
    parts.append(text[pos:])
    return parts


def sql_template(node):
    """The parts of a SQL string built from Python values: a list of text and ``("field", expr)``; None when the
    node is a plain literal or not a string built from literals (an unknown function's result)."""
    if isinstance(node, cst.FormattedString):
        parts = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value.replace("{{", "{").replace("}}", "}"))
            else:
                parts.append(("field", part.expression))
        return parts if any(isinstance(p, tuple) for p in parts) else None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        text = literal_string(node.func.value)
        if text is None:
            return None
        parts = _format_fields(text, node)
        return parts if parts and any(isinstance(p, tuple) for p in parts) else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        text = literal_string(node.left)
        if text is None:
            return None
        parts = _percent_fields(text, node.right)
        return parts if any(isinstance(p, tuple) for p in parts) else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        operands, stack = [], [node]
        while stack:
            part = stack.pop()
            if isinstance(part, cst.BinaryOperation) and isinstance(part.operator, cst.Add):
                stack += [part.right, part.left]
            else:
                operands.append(part)
        if not any(literal_string(p) is not None for p in operands):
            return None  # a + b of two unknowns: maybe not a string at all
        parts = []
        for part in operands:
            text = literal_string(part)
            if text is not None:
                parts.append(text)
            else:
                inner = sql_template(part)  # "..." + f"..."
                if inner is not None:
                    parts.extend(inner)
                elif isinstance(part, cst.FormattedString):
                    parts.extend(p.value if isinstance(p, cst.FormattedStringText) else ("field", p.expression)
                                 for p in part.parts)
                else:
                    parts.append(("field", part))
        return parts if any(isinstance(p, tuple) for p in parts) else None
    if isinstance(node, cst.ConcatenatedString):  # f"SELECT * FROM {t} " "WHERE ..." written over two lines
        parts = []
        for piece in (node.left, node.right):
            text = literal_string(piece)
            if text is not None:
                parts.append(text)
                continue
            inner = sql_template(piece)
            if inner is None and isinstance(piece, cst.FormattedString):
                inner = ["".join(p.value for p in piece.parts if isinstance(p, cst.FormattedStringText))]
            if inner is None:
                return None
            parts.extend(inner)
        return parts if any(isinstance(p, tuple) for p in parts) else None
    return None


def template_parts(node):
    """``sql_template``'s parts, and an f-string without fields as its one text; None otherwise."""
    if node is None:
        return None
    parts = sql_template(node)
    if parts is None and isinstance(node, cst.FormattedString):
        return ["".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))]
    return parts
