"""Shared by the collection rules (SPK420, SPK421): naming a `pyspark.sql.functions` function in a fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from checks.python._fixes import source


def callee_prefix(ctx, like: cst.Call, name: str) -> Optional[str]:
    """How to write function ``name`` next to the call ``like`` (itself a pyspark.sql.functions call).

    ``F.collect_list(x)`` gives ``"F."``; a bare ``collect_list(x)`` gives ``""`` when ``name`` is
    reachable bare too (imported by name, ``import *``); None when the file has no name for it
    (the caller then adds ``from pyspark.sql import functions as F``).
    """
    func = like.func
    if isinstance(func, cst.Attribute):
        return source(ctx, func.value) + "."
    if ctx.semantic.is_function(cst.Name(name), {name}) is not None:
        return ""
    return None
