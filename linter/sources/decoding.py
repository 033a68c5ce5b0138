"""Python source bytes to text (a BOM, a PEP 263 coding cookie, UTF-8), without importing libcst:
a file that mentions no Spark is decoded and passed over without it (linter/sources/python.py re-exports)."""

from __future__ import annotations

import codecs
import re

from linter.sources import SourceError

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")

# What makes a file one the Python rules look into: a Spark name, or a call of `udf(...)` (a snippet, or a
# `%run` notebook's cell, that never names Spark; linter/semantic/scopes.py reads an unbound `udf` as
# pyspark's). One pattern for the engine (text) and the cache key (bytes): were they to differ, a file the
# engine checks could get a key blind to what its findings depend on.
SPARK_HINT_PATTERN = r"spark|Spark|SPARK|\bsc\b|\bsqlContext\b|DatabricksSession|\b(?:pandas_)?udf\s*\("
SPARK_HINT = re.compile(SPARK_HINT_PATTERN)
SPARK_HINT_BYTES = re.compile(SPARK_HINT_PATTERN.encode())


def decode(data: bytes) -> tuple[str, str, bool]:
    """Bytes to text: a BOM, then a PEP 263 coding cookie, then UTF-8."""
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[3:]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or data.startswith((codecs.BOM_UTF32_LE,
                                                                                         codecs.BOM_UTF32_BE)):
        # (editors on Windows save SQL so): text, but not in an encoding Python and Spark read by default
        raise SourceError("UTF-16 or UTF-32 text (a byte-order mark): sparkcheck reads UTF-8, save the file as UTF-8")
    if b"\x00" in data[:8192]:
        raise SourceError("binary file: contains NUL bytes, not text")
    encoding = "utf-8"
    if not bom:
        for line in data.split(b"\n", 2)[:2]:
            m = _CODING.match(line)
            if m:
                encoding = m.group(1).decode("ascii", "replace").lower()
                break
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r} in the coding declaration") from None
    try:
        return data.decode(encoding), encoding, bom
    except UnicodeDecodeError as exc:
        row = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start : exc.start + 1].hex()
        raise SourceError(
            f"not valid {encoding}: byte 0x{byte} at line {row}, column {col}", row, col
        ) from None
