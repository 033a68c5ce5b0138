"""SQL inside Python string literals, with a map from each SQL character back to the source.

The literal's own source text is decoded here (prefixes, quotes, escapes, line
continuations, implicit concatenation, f-string fields), so that a finding at
offset ``i`` of the SQL lands on the exact line and column of the Python file.
Template fields (f-string ``{...}``, ``.format`` ``{...}``, ``%s``-style) become
placeholder identifiers; their offsets are remembered so that nothing is
reported that depends on them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Optional

_PREFIX = re.compile(r"[rRbBuUfF]{0,2}")
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b",
                   "f": "\f", "v": "\v"}
_PERCENT = re.compile(r"%(\([^)]*\))?[#0\- +]*(\*|\d+)?(\.(\*|\d+))?[diouxXeEfFgGcrsa%]")


@dataclass
class Embedded:
    text: str  # the SQL
    offsets: list[int]  # source offset of each SQL character, plus one past the end
    placeholders: set = field(default_factory=set)  # SQL offsets that stand for template fields
    wrapper: int = 0  # characters of a "SELECT " wrapper at the start (expressions)

    def source_span(self, start: int, end: int) -> Optional[tuple[int, int]]:
        """The source span of SQL ``[start, end)``; None when it touches a placeholder or the wrapper."""
        if start < self.wrapper or any(i in self.placeholders for i in range(start, max(end, start + 1))):
            return None
        end = max(end, start + 1)
        return self.offsets[start], self.offsets[min(end, len(self.offsets) - 1) - 1] + 1

    def wrapped(self, prefix: str) -> "Embedded":
        first = self.offsets[0] if self.offsets else 0
        return Embedded(prefix + self.text, [first] * len(prefix) + self.offsets,
                        {i + len(prefix) for i in self.placeholders}, len(prefix))


class _Builder:
    def __init__(self):
        self.chars: list[str] = []
        self.offsets: list[int] = []
        self.placeholders: set = set()
        self.count = 0

    def add(self, ch: str, offset: int) -> None:
        self.chars.append(ch)
        self.offsets.append(offset)

    def placeholder(self, offset: int) -> None:
        name = f"spk_param_{self.count}"
        self.count += 1
        for ch in name:
            self.placeholders.add(len(self.chars))
            self.add(ch, offset)

    def build(self, end: int) -> Embedded:
        return Embedded("".join(self.chars), self.offsets + [end], self.placeholders)


def decode(source: str, start: int, end: int, template: Optional[str] = None) -> Optional[Embedded]:
    """Decode the string literal(s) at ``source[start:end]``.

    ``template``: "format" treats ``{...}`` as fields, "percent" treats ``%s``
    and friends as fields; f-strings are always templates. None for bytes.
    """
    out = _Builder()
    i = start
    while i < end:
        ch = source[i]
        if ch in " \t\r\n\f(" or ch == ")":
            i += 1
            continue
        if ch == "\\" and source.startswith("\n", i + 1):
            i += 2
            continue
        if ch == "#":
            i = source.find("\n", i)
            i = end if i == -1 else i
            continue
        m = _PREFIX.match(source, i)
        prefix = m.group(0).lower()
        j = m.end()
        if j >= end or source[j] not in "'\"":
            return None
        if "b" in prefix:
            return None
        quote = source[j] * 3 if source.startswith(source[j] * 3, j) else source[j]
        body_start = j + len(quote)
        close = _find_close(source, body_start, end, quote, raw="r" in prefix)
        if close is None:
            return None
        _decode_part(source, body_start, close, out, raw="r" in prefix, fstring="f" in prefix)
        i = close + len(quote)
    embedded = out.build(end)
    if template == "format":
        embedded = _fields(embedded, re.compile(r"\{\{|\}\}|\{[^{}]*\}"))
    elif template == "percent":
        embedded = _fields(embedded, _PERCENT)
    return embedded


def _find_close(source: str, i: int, end: int, quote: str, raw: bool) -> Optional[int]:
    while i < end:
        if source[i] == "\\":
            i += 2
            continue
        if source.startswith(quote, i):
            return i
        i += 1
    return None


def _decode_part(source: str, i: int, end: int, out: _Builder, raw: bool, fstring: bool) -> None:
    while i < end:
        ch = source[i]
        if fstring and ch in "{}":
            if source.startswith(ch * 2, i):
                out.add(ch, i)
                i += 2
                continue
            if ch == "{":
                depth, j = 1, i + 1
                while j < end and depth:
                    depth += {"{": 1, "}": -1}.get(source[j], 0)
                    j += 1
                out.placeholder(i)
                i = j
                continue
        if ch == "\\" and not raw and i + 1 < end:
            nxt = source[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if nxt in _SIMPLE_ESCAPES:
                out.add(_SIMPLE_ESCAPES[nxt], i)
                i += 2
                continue
            if nxt in "01234567":
                m = re.match(r"[0-7]{1,3}", source[i + 1 : i + 4])
                out.add(chr(int(m.group(0), 8)), i)
                i += 1 + len(m.group(0))
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(nxt)
            if width and re.fullmatch(r"[0-9a-fA-F]+", source[i + 2 : i + 2 + width] or "x"):
                out.add(chr(int(source[i + 2 : i + 2 + width], 16)), i)
                i += 2 + width
                continue
            if nxt == "N" and source.startswith("{", i + 2):
                close = source.find("}", i + 3)
                try:
                    out.add(unicodedata.lookup(source[i + 3 : close]), i)
                    i = close + 1
                    continue
                except KeyError:
                    pass
        out.add(ch, i)
        i += 1


def _fields(embedded: Embedded, pattern: re.Pattern) -> Embedded:
    """Replace template fields in already-decoded text by placeholders."""
    out = _Builder()
    text, offsets = embedded.text, embedded.offsets
    last = 0
    for m in pattern.finditer(text):
        for k in range(last, m.start()):
            if k in embedded.placeholders:
                out.placeholders.add(len(out.chars))
            out.add(text[k], offsets[k])
        token = m.group(0)
        if token in ("{{", "}}", "%%"):
            out.add(token[0], offsets[m.start()])
        else:
            out.placeholder(offsets[m.start()])
        last = m.end()
    for k in range(last, len(text)):
        if k in embedded.placeholders:
            out.placeholders.add(len(out.chars))
        out.add(text[k], offsets[k])
    return out.build(offsets[-1])
