"""Shared by the rules about values made on the driver and handed to Spark: the driver's clock, driver-side text.

- ``clock_call``: whether a call reads the driver's clock (``datetime.now()``, ``date.today()``, ``time.time()``);
- ``streaming``: whether a DataFrame expression comes from ``readStream`` (or is written with ``writeStream``),
  through the assignments the semantic model records.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from linter.semantic import DATAFRAME, FUNCTION, RDD, method_name

# Qualified names (after imports are resolved) of the calls that read the clock, and how a message names them.
CLOCKS = {
    "datetime.datetime.now": "datetime.now()",
    "datetime.datetime.utcnow": "datetime.utcnow()",
    "datetime.datetime.today": "datetime.today()",
    "datetime.date.today": "date.today()",
    "time.time": "time.time()",
    "time.time_ns": "time.time_ns()",
    "pandas.Timestamp.now": "pd.Timestamp.now()",
    "pandas.Timestamp.today": "pd.Timestamp.today()",
    "pandas.Timestamp.utcnow": "pd.Timestamp.utcnow()",
}
_CLOCK_ATTRS = frozenset({"now", "utcnow", "today", "time", "time_ns"})


def clock_call(ctx, node: cst.Call) -> Optional[str]:
    """The qualified name of the clock ``node`` reads, or None."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _CLOCK_ATTRS:
        if not (isinstance(func, cst.Name) and func.value in _CLOCK_ATTRS):
            return None  # `from time import time; time()` is the only bare form
    name = ctx.semantic.qualified_name(func)
    return name if name in CLOCKS else None


_WRITE_STREAM = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\)\s*)?\.\s*writeStream\b")


def _written_as_stream(ctx, name: str) -> bool:
    memo = ctx.memo
    key = ("driver-values", "write-stream")
    if key not in memo:
        memo[key] = set(_WRITE_STREAM.findall(ctx.semantic.text or ""))
    return name in memo[key]


_WATERMARKED = re.compile(r"^[ \t]*([A-Za-z_]\w*)\s*=[^\n]*\.withWatermark\(", re.M)


def _watermarked(ctx, name: str) -> bool:
    """``clicks = read_clicks().withWatermark(...)`` (the semantic model keeps where a frame was made, not the
    same-rows methods after it)."""
    memo = ctx.memo
    key = ("driver-values", "watermarked")
    if key not in memo:
        text = ctx.semantic.text or ""
        memo[key] = set(_WATERMARKED.findall(text)) if "withWatermark" in text else set()
    return name in memo[key]


def _reads_stream(ctx, function: cst.FunctionDef) -> bool:
    memo = ctx.memo
    key = ("driver-values", "reads-stream", id(function))
    if key not in memo:
        found = False
        stack = [function.body]
        while stack and not found:
            current = stack.pop()
            if isinstance(current, cst.Attribute) and current.attr.value == "readStream":
                found = True
            elif isinstance(current, cst.Call) and ctx.semantic.qualified_name(current.func) == "dlt.read_stream":
                found = True
            stack.extend(current.children)
        memo[key] = found
    return memo[key]


def streaming(ctx, node, depth: int = 0) -> bool:
    """Whether the DataFrame ``node`` is a streaming one: ``readStream``, ``dlt.read_stream``, ``withWatermark``
    in its lineage, or a name the file writes with ``.writeStream``."""
    if depth > 12 or node is None:
        return False
    if isinstance(node, cst.Attribute):
        if node.attr.value == "readStream":
            return True
        return streaming(ctx, node.value, depth + 1)
    if isinstance(node, cst.Call):
        if ctx.semantic.qualified_name(node.func) == "dlt.read_stream":
            return True
        if method_name(node) == "withWatermark":
            return True
        if isinstance(node.func, cst.Attribute):
            return streaming(ctx, node.func.value, depth + 1)
        if isinstance(node.func, cst.Name):  # `read_clicks()`: a function of this file that reads a stream
            value = ctx.semantic.lookup(node.func.value)
            return value is not None and value.kind == FUNCTION and isinstance(value.node, cst.FunctionDef) \
                and _reads_stream(ctx, value.node)
        return False
    if isinstance(node, cst.Name):
        if _written_as_stream(ctx, node.value) or _watermarked(ctx, node.value):
            return True
        value = ctx.semantic.infer(node)
        if value is not None and value.kind in (DATAFRAME, RDD) and value.node is not None and value.node is not node \
                and not isinstance(value.node, (cst.Name, cst.FunctionDef, cst.Param)):
            return streaming(ctx, value.node, depth + 1)
    return False
