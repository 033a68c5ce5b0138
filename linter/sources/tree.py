"""Documents read as trees of maps, lists and scalars, every value keeping where it is written.

The cluster definitions sparkcheck reads (linter/sources/clusters.py) come as JSON, YAML and Terraform;
one small tree model lets one walker read them all. The readers here are tolerant and small on purpose:

- ``read_json``: JSON, also with `//` and `/* */` comments and trailing commas (JSONC, as editors and
  CDK context files write it); a file that still does not parse raises ``TreeError`` with its place.
- ``read_yaml``: the YAML that configuration files use: block mappings and sequences, flow `{...}` and
  `[...]`, plain, quoted and block (`|`, `>`) scalars, comments, `---` documents, tags (`!Ref`, `!!str`,
  skipped), anchors, aliases and `<<` merge keys. It never raises: a line it cannot read ends the
  collection it is in, and what was read before stays (a Helm template's `{{ ... }}` is not YAML).
  Left out: a plain scalar's continuation lines (its value is its first line), `?` complex keys.
  On 3,000 YAML files of this machine's packages (gcloud's among them) it reads the same structure as
  PyYAML's BaseLoader for all but 7: five with `?` keys, two with `<<` merges (which BaseLoader does not
  apply); scalar values differ in 80, in the multi-line plain scalars looked at (tests/test_config_formats.py
  compares the fixtures with PyYAML).

A ``Scalar`` keeps the offsets of its text in the file (inside the quotes); ``Scalar.at(i)`` places the
``i``-th character of its decoded value, where escapes make the two differ.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from typing import Optional


class TreeError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


class Scalar:
    __slots__ = ("end", "offsets", "quoted", "start", "value")

    def __init__(self, value: str, start: int, end: int, quoted: bool = False, offsets: Optional[list] = None):
        self.value = value
        self.start = start
        self.end = end
        self.quoted = quoted
        self.offsets = offsets  # text offset of each character of ``value`` (only where escapes shift them)

    def at(self, i: int) -> int:
        """The offset in the text of character ``i`` of the value (``len(value)``: just after it)."""
        if self.offsets is None:
            return self.start + i
        if i < len(self.offsets):
            return self.offsets[i]
        return self.end

    def __repr__(self) -> str:
        return f"Scalar({self.value!r}@{self.start})"


class Map:
    """A mapping, its entries in order: ``(key, key offset, value node)``; a key may repeat (HCL blocks)."""

    __slots__ = ("end", "items", "start")

    def __init__(self, start: int = 0):
        self.items: list = []
        self.start = start
        self.end = start

    def get(self, key: str, fold: bool = False):
        """The value of ``key`` (the last one written, `<<` merges included); ``fold``: any letter case."""
        want = key.lower() if fold else key
        found = None
        for k, _, v in self.items:
            if (k.lower() if fold else k) == want:
                found = v
        if found is None:
            for k, _, v in self.items:
                if k == "<<":
                    for merged in maps(v):
                        got = merged.get(key, fold)
                        if got is not None:
                            found = got
        return found

    def all(self, key: str) -> list:
        """Every value written under ``key`` (HCL repeats a block's name: `task { }` `task { }`)."""
        return [v for k, _, v in self.items if k == key]

    def text(self, key: str, fold: bool = False) -> Optional[str]:
        value = self.get(key, fold)
        return value.value if isinstance(value, Scalar) else None

    def entries(self) -> Iterator[tuple]:
        """``(key, value)`` pairs, the entries `<<` merges in first (later keys override them)."""
        for k, _, v in self.items:
            if k == "<<":
                for merged in maps(v):
                    yield from merged.entries()
        for k, _, v in self.items:
            if k != "<<":
                yield k, v


class Seq:
    __slots__ = ("end", "items", "start")

    def __init__(self, start: int = 0):
        self.items: list = []
        self.start = start
        self.end = start


def maps(node) -> list:
    """The mappings a value holds: itself, or those of a list (Terraform JSON writes a block as a list)."""
    if isinstance(node, Map):
        return [node]
    if isinstance(node, Seq):
        return [item for item in node.items if isinstance(item, Map)]
    return []


# ---------------------------------------------------------------------------------------------------- JSON

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_BLANKS = re.compile(r"[ \t\r\n\ufeff]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"true|false|null")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


def read_json(text: str, start: int = 0, end: Optional[int] = None):
    """The value of a JSON document (or of ``text[start:end]``, offsets kept in ``text``)."""
    reader = _Json(text, end if end is not None else len(text))
    node = reader.value(reader.skip(start))
    if reader.skip(reader.pos) < reader.end:
        raise TreeError("cannot parse JSON: text after the end of the document", reader.pos)
    return node


def read_json_value(text: str, start: int):
    """The JSON value at ``start`` (after blanks), offsets kept in ``text``; what follows it is not read."""
    reader = _Json(text, len(text))
    return reader.value(reader.skip(start))


class _Json:
    def __init__(self, text: str, end: int):
        self.text = text
        self.end = end
        self.pos = 0

    def skip(self, i: int) -> int:
        text, end = self.text, self.end
        while i < end:
            c = text[i]
            if c in " \t\r\n\ufeff":
                i = _BLANKS.match(text, i, end).end()
            elif c == "/" and text.startswith("//", i):
                newline = text.find("\n", i, end)
                i = end if newline == -1 else newline + 1
            elif c == "/" and text.startswith("/*", i):
                close = text.find("*/", i + 2, end)
                if close == -1:
                    raise TreeError("cannot parse JSON: unterminated comment", i)
                i = close + 2
            else:
                break
        self.pos = i
        return i

    def value(self, i: int):
        if i >= self.end:
            raise TreeError("cannot parse JSON: the document ends where a value was expected", i)
        c = self.text[i]
        if c == "{":
            return self.object(i)
        if c == "[":
            return self.array(i)
        if c == '"':
            return self.string(i)
        m = _NUMBER.match(self.text, i, self.end) or _WORD.match(self.text, i, self.end)
        if m is None:
            raise TreeError(f"cannot parse JSON: unexpected {self.text[i]!r}", i)
        self.pos = m.end()
        return Scalar(m.group(0), m.start(), m.end())

    def string(self, i: int) -> Scalar:
        text, end = self.text, self.end
        j = i + 1
        close = text.find('"', j, end)
        if close != -1 and text.find("\\", j, close) == -1:  # no escapes: the value is the text
            if "\n" in text[j:close]:
                raise TreeError("cannot parse JSON: a line break inside a string", j)
            self.pos = close + 1
            return Scalar(text[j:close], j, close, quoted=True)
        chars: list = []
        offsets: list = []
        while j < end:
            c = text[j]
            if c == '"':
                self.pos = j + 1
                return Scalar("".join(chars), i + 1, j, quoted=True, offsets=offsets)
            if c == "\n":
                break
            if c == "\\" and j + 1 < end:
                e = text[j + 1]
                if e == "u" and _HEX4.fullmatch(text, j + 2, j + 6):
                    code = int(text[j + 2:j + 6], 16)
                    offsets.append(j)
                    j += 6
                    if 0xD800 <= code < 0xDC00 and text.startswith("\\u", j) and _HEX4.fullmatch(text, j + 2, j + 6):
                        low = int(text[j + 2:j + 6], 16)
                        if 0xDC00 <= low < 0xE000:  # a surrogate pair (`\ud83d\ude00`): one character
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            j += 6
                    chars.append(chr(code))
                    continue
                if e not in _ESCAPES:
                    raise TreeError(f"cannot parse JSON: unknown escape \\{e}", j)
                chars.append(_ESCAPES[e])
                offsets.append(j)
                j += 2
                continue
            chars.append(c)
            offsets.append(j)
            j += 1
        raise TreeError("cannot parse JSON: unterminated string", i)

    def object(self, i: int) -> Map:
        node = Map(i)
        j = self.skip(i + 1)
        while True:
            if j < self.end and self.text[j] == "}":
                node.end = j + 1
                self.pos = j + 1
                return node
            if j >= self.end or self.text[j] != '"':
                raise TreeError("cannot parse JSON: expected a key in double quotes", j)
            key = self.string(j)
            j = self.skip(self.pos)
            if j >= self.end or self.text[j] != ":":
                raise TreeError("cannot parse JSON: expected ':' after a key", j)
            value = self.value(self.skip(j + 1))
            node.items.append((key.value, key.start, value))
            j = self.skip(self.pos)
            if j < self.end and self.text[j] == ",":
                j = self.skip(j + 1)
            elif j >= self.end or self.text[j] != "}":
                raise TreeError("cannot parse JSON: expected ',' or '}'", j)

    def array(self, i: int) -> Seq:
        node = Seq(i)
        j = self.skip(i + 1)
        while True:
            if j < self.end and self.text[j] == "]":
                node.end = j + 1
                self.pos = j + 1
                return node
            node.items.append(self.value(j))
            j = self.skip(self.pos)
            if j < self.end and self.text[j] == ",":
                j = self.skip(j + 1)
            elif j >= self.end or self.text[j] != "]":
                raise TreeError("cannot parse JSON: expected ',' or ']'", j)


def remap(node, offsets: list) -> None:
    """Moves a tree read from a piece of text (a shell word) to the file: ``offsets[i]`` is where the
    piece's character ``i`` is in the file."""
    def at(i: int) -> int:
        if i < len(offsets):
            return offsets[i]
        return offsets[-1] + 1 if offsets else 0

    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Scalar):
            n.offsets = [at(n.at(k)) for k in range(len(n.value))]
            n.start, n.end = at(n.start), (at(n.end - 1) + 1 if n.end > n.start else at(n.start))
        elif isinstance(n, Map):
            n.items = [(k, at(ks), v) for k, ks, v in n.items]
            n.start, n.end = at(n.start), at(n.end)
            stack.extend(v for _, _, v in n.items)
        elif isinstance(n, Seq):
            n.start, n.end = at(n.start), at(n.end)
            stack.extend(n.items)


def line_col(text: str, offset: int) -> tuple:
    """1-based line and column of an offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# ---------------------------------------------------------------------------------------------------- YAML

_KEY = re.compile(r"""(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\n]|'')*)'|((?:[^\s#'"{\[\]},&*!|>%@`?\-]|[-?](?=\S))"""
                  r"""(?:[^\n#]|(?<=\S)#)*?))[ \t]*:(?=[ \t\r]|\n|$)""")
_NEWLINE = re.compile(r"\n")
_PROPERTY = re.compile(r"[^\s,\[\]{}]*")
_ALIAS = re.compile(r"[^\s,\[\]{}]+")
_FLOW_PLAIN = re.compile(r"(?:[^,\[\]{}:#\n]|:(?![ \t\n,\]}]))*")
_DOCUMENT = re.compile(r"(?m)^(?:---|\.\.\.)(?=[ \t\r]|$)")


def read_yaml(text: str) -> list:
    """The documents of a YAML stream (``None`` for an empty one), never raising."""
    documents = []
    starts = [0]
    for m in _DOCUMENT.finditer(text):
        starts.append(m.start())
    starts.append(len(text))
    for a, b in itertools.pairwise(starts):
        if a == b:
            continue
        begin = a
        if text.startswith(("---", "..."), a):
            if text.startswith("...", a):
                continue
            begin = a + 3
        reader = _Yaml(text, b)
        try:
            documents.append(reader.document(begin))
        except (TreeError, RecursionError, IndexError):
            documents.append(reader.partial)
    return documents


class _Yaml:
    def __init__(self, text: str, end: int):
        self.text = text
        self.end = end
        self.anchors: dict = {}
        self.partial = None
        self.starts: Optional[list] = None

    # -- positions
    def line_start(self, i: int) -> int:
        starts = self.starts
        if starts is None:
            starts = self.starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        return starts[bisect.bisect_right(starts, i) - 1]

    def column(self, i: int) -> int:
        return i - self.line_start(i)

    def next_content(self, i: int) -> int:
        """The next character that is not blank, a comment, a line break or a directive."""
        text, end = self.text, self.end
        while i < end:
            c = text[i]
            if c in " \t\r\n":
                i = _BLANKS.match(text, i, end).end()
            elif c == "#" and (i == 0 or text[i - 1] in " \t\n") or c == "%" and i == self.line_start(i):
                newline = text.find("\n", i, end)
                i = end if newline == -1 else newline + 1
            else:
                break
        return i

    def following(self, after: int, column: int) -> int:
        """Where the next entry of a block at ``column`` can start, after a value that ended at ``after``:
        text left on the value's line, and deeper lines this reader does not place (the continuation of a
        plain scalar), are passed over."""
        i = self.next_content(after)
        while i < self.end and self.text[self.line_start(i):i].strip():
            i = self.next_content(self.rest_of_line(i))
        while i < self.end and self.column(i) > column:
            i = self.next_content(self.rest_of_line(i))
        return i

    def rest_of_line(self, i: int) -> int:
        newline = self.text.find("\n", i, self.end)
        return self.end if newline == -1 else newline

    # -- documents and blocks
    def document(self, i: int):
        i = self.next_content(i)
        if i >= self.end:
            return None
        node, _ = self.block(i, -1)
        return node

    def properties(self, i: int) -> tuple:
        """Skips a node's tag (`!Ref`, `!!str`) and anchor (`&base`): (offset after them, anchor name)."""
        anchor = None
        text = self.text
        while i < self.end and text[i] in "!&":
            m = _PROPERTY.match(text, i + 1, self.end)
            if text[i] == "&":
                anchor = m.group(0)
            i = m.end()
            while i < self.end and text[i] in " \t":
                i += 1
        return i, anchor

    def block(self, i: int, parent: int, in_mapping: bool = False):
        """The node at ``i`` (its first character), inside a block whose indentation is ``parent``:
        (node, offset after it). ``in_mapping``: the node is a mapping's value, which may be a sequence
        written at the key's own indentation."""
        i, anchor = self.properties(i)
        if i >= self.end or text_at(self.text, i) in "\r\n#":
            # Properties alone on their line: the node is on the next lines.
            j = self.next_content(i)
            if j >= self.end or self.column(j) < parent or self.column(j) == parent and not (
                    in_mapping and self.text.startswith(("- ", "-\n"), j)):
                return self.remember(anchor, Scalar("", i, i)), i
            i = j
        text = self.text
        c = text[i]
        if c == "*":
            m = _ALIAS.match(text, i + 1, self.end)
            name = m.group(0) if m else ""
            return self.anchors.get(name, Scalar("", i, i)), (m.end() if m else i + 1)
        if c == "-" and (i + 1 >= self.end or text[i + 1] in " \t\r\n"):
            node, after = self.sequence(i)
        elif c in "[{":
            try:
                node, after = self.flow(i)
            except TreeError:  # not a flow collection after all (a template's `{{ ... }}`): the line's text
                node, after = self.scalar(i)
        elif c in "|>":
            node, after = self.block_scalar(i, parent)
        elif _KEY.match(text, i, self.rest_of_line(i)):
            node, after = self.mapping(i)
        else:
            node, after = self.scalar(i)
        return self.remember(anchor, node), after

    def remember(self, anchor, node):
        if anchor:
            self.anchors[anchor] = node
        return node

    def mapping(self, i: int) -> tuple:
        column = self.column(i)
        node = Map(i)
        if self.partial is None:
            self.partial = node
        while True:
            line_end = self.rest_of_line(i)
            m = _KEY.match(self.text, i, line_end)
            if m is None:
                break
            if m.group(1) is not None:
                key, key_start = _unescape(m.group(1)), m.start(1)
            elif m.group(2) is not None:
                key, key_start = m.group(2).replace("''", "'"), m.start(2)
            else:
                key, key_start = m.group(3).strip(), m.start(3)
            j = m.end()
            while j < line_end and self.text[j] in " \t\r":
                j += 1
            if j >= line_end or self.text[j] == "#":
                k = self.next_content(j)
                nested = k < self.end and (self.column(k) > column or
                                           self.column(k) == column and self.text.startswith(("- ", "-\n"), k))
                if nested:
                    value, after = self.block(k, column)
                else:
                    value, after = Scalar("", j, j), j
            else:
                value, after = self.block(j, column, in_mapping=True)
            node.items.append((key, key_start, value))
            node.end = after
            i = self.following(after, column)
            if i >= self.end or self.column(i) != column:
                break
        return node, node.end

    def sequence(self, i: int) -> tuple:
        column = self.column(i)
        node = Seq(i)
        while i < self.end and self.text[i] == "-" and (i + 1 >= self.end or self.text[i + 1] in " \t\r\n"):
            j = i + 1
            while j < self.end and self.text[j] in " \t\r":
                j += 1
            if j >= self.end or self.text[j] in "\n#":
                k = self.next_content(j)
                if k < self.end and self.column(k) > column:
                    item, after = self.block(k, column)
                else:
                    item, after = Scalar("", j, j), j
            else:
                item, after = self.block(j, column)
            node.items.append(item)
            node.end = after
            i = self.following(after, column)
            if i >= self.end or self.column(i) != column:
                break
        return node, node.end

    def block_scalar(self, i: int, parent: int) -> tuple:
        """`|` / `>` text: the lines indented past the parent. The value is their raw text, indentation
        included, so that every character keeps its offset (the readers of these values split on blanks)."""
        text = self.text
        first = min(self.rest_of_line(i) + 1, self.end)
        j = first
        last = first
        while j < self.end:
            line_end = self.rest_of_line(j)
            line = text[j:line_end]
            if line.strip():
                if len(line) - len(line.lstrip(" ")) <= parent:
                    break
                last = line_end
            j = line_end + 1
        return Scalar(text[first:last], first, last), last

    def scalar(self, i: int) -> tuple:
        text = self.text
        c = text[i]
        line_end = self.rest_of_line(i)
        if c == '"':
            j = i + 1
            while j < self.end and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            raw = text[i + 1:j]
            if "\\" in raw:
                value, offsets = _unescape_with_offsets(raw, i + 1)
                return Scalar(value, i + 1, j, True, offsets), j + 1
            return Scalar(raw, i + 1, j, True), j + 1
        if c == "'":
            j = i + 1
            while j < self.end:
                if text[j] == "'":
                    if text.startswith("''", j):
                        j += 2
                        continue
                    break
                j += 1
            raw = text[i + 1:j]
            if "''" in raw:
                chars, offsets, k = [], [], 0
                while k < len(raw):
                    chars.append(raw[k])
                    offsets.append(i + 1 + k)
                    k += 2 if raw.startswith("''", k) else 1
                return Scalar("".join(chars), i + 1, j, True, offsets), j + 1
            return Scalar(raw, i + 1, j, True), j + 1
        comment = text.find(" #", i, line_end)
        stop = line_end if comment == -1 else comment
        raw = text[i:stop].rstrip(" \t\r")
        return Scalar(raw, i, i + len(raw)), i + len(raw)

    # -- flow collections (JSON is one)
    def flow(self, i: int) -> tuple:
        text = self.text
        opening = text[i]
        closing = "}" if opening == "{" else "]"
        node = Map(i) if opening == "{" else Seq(i)
        j = self.next_content(i + 1)
        while j < self.end and text[j] != closing:
            if opening == "{":
                key_node, j = self.flow_item(j, key=True)
                j = self.next_content(j)
                value = Scalar("", j, j)
                if j < self.end and text[j] == ":":
                    value, j = self.flow_item(self.next_content(j + 1))
                if isinstance(key_node, Scalar):
                    node.items.append((key_node.value, key_node.start, value))
            else:
                item, j = self.flow_item(j)
                node.items.append(item)
            j = self.next_content(j)
            if j < self.end and text[j] == ",":
                j = self.next_content(j + 1)
            elif j < self.end and text[j] != closing:
                raise TreeError("cannot read a flow collection", j)
        node.end = min(j + 1, self.end)
        return node, node.end

    def flow_item(self, i: int, key: bool = False) -> tuple:
        i, anchor = self.properties(i)
        if i >= self.end:
            raise TreeError("a flow collection is not closed", i)
        c = self.text[i]
        if c in "[{":
            node, after = self.flow(i)
        elif c in "\"'":
            node, after = self.scalar(i)
        elif c == "*":
            m = _ALIAS.match(self.text, i + 1, self.end)
            return self.anchors.get(m.group(0) if m else "", Scalar("", i, i)), (m.end() if m else i + 1)
        else:
            m = _FLOW_PLAIN.match(self.text, i, self.end)
            raw = m.group(0).rstrip(" \t\r")
            node, after = Scalar(raw, i, i + len(raw)), i + len(raw)
            if not raw and not key:
                raise TreeError("an empty flow item", i)
        return self.remember(anchor, node), after


def text_at(text: str, i: int) -> str:
    return text[i] if i < len(text) else "\n"


_YAML_ESCAPES = dict(_ESCAPES, **{"0": "\0", "a": "\a", "e": "\x1b", " ": " ", "N": "\x85", "_": "\xa0"})


def _unescape(raw: str) -> str:
    return _unescape_with_offsets(raw, 0)[0]


def _unescape_with_offsets(raw: str, base: int) -> tuple:
    chars: list = []
    offsets: list = []
    k = 0
    while k < len(raw):
        c = raw[k]
        if c == "\\" and k + 1 < len(raw):
            e = raw[k + 1]
            if e in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[e]
                digits = raw[k + 2:k + 2 + width]
                if re.fullmatch(r"[0-9a-fA-F]+", digits or "") and len(digits) == width:
                    chars.append(chr(int(digits, 16)))
                    offsets.append(base + k)
                    k += 2 + width
                    continue
            chars.append(_YAML_ESCAPES.get(e, e))
            offsets.append(base + k)
            k += 2
            continue
        chars.append(c)
        offsets.append(base + k)
        k += 1
    return "".join(chars), offsets
