"""Terraform's HCL read into the tree of linter/sources/tree.py: enough of it for the settings of clusters.

A body is a ``Map``: an attribute `name = expr` is an entry; a block `type "label" "label" { ... }` is an
entry `type` whose value nests one ``Map`` per label, so `resource "databricks_cluster" "etl" { ... }` reads
like Terraform's own JSON syntax (`{"resource": {"databricks_cluster": {"etl": {...}}}}`) and one walker
reads both. Blocks that repeat (`task { }`, `task { }`) are repeated entries.

Expressions: strings (with `${...}` kept as written), numbers, `true`/`false`/`null`, lists, objects
(`{ k = v }` and `{ "k" : v }`), heredocs (`<<EOF`, `<<-EOF`: the value is the body's raw text, so JSON inside
keeps its offsets), `jsonencode(x)` (read as ``x``) and `merge(a, b, ...)` (the entries of the objects among
its arguments). Anything else (references, other calls, conditionals, `for` expressions) is one unquoted
``Scalar`` of its text, which no rule reads as a number or a switch.

Written for this purpose rather than taken from a package: the pure-Python HCL2 parser on PyPI
(python-hcl2) returns the values as plain dicts and strings, not where each is written, and would add
lark to what the pre-commit hook installs; sparkcheck reports at the value's line and column, and needs
only the blocks and maps above. Never raises: text it cannot read ends the body it is in.
"""

from __future__ import annotations

import re

from linter.sources.tree import Map, Scalar, Seq

_IDENT = re.compile(r"[A-Za-z_][\w\-]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_HEREDOC = re.compile(r"<<(-?)([A-Za-z_]\w*)[ \t]*\r?\n")
_BLANKS = re.compile(r"[ \t\r\n]*")
_SPACES = re.compile(r"[ \t\r]*")


def read_hcl(text: str) -> Map:
    reader = _Hcl(text)
    body = Map(0)
    try:
        reader.body(0, body, top=True)
    except (IndexError, RecursionError):
        pass
    return body


class _Hcl:
    def __init__(self, text: str):
        self.text = text
        self.end = len(text)

    def skip(self, i: int, newlines: bool = True) -> int:
        """Past blanks and comments (`#`, `//`, `/* */`); line breaks too unless ``newlines`` is False."""
        text, end = self.text, self.end
        blanks = _BLANKS if newlines else _SPACES
        while i < end:
            c = text[i]
            if c in " \t\r" or (c == "\n" and newlines):
                i = blanks.match(text, i).end()
            elif c == "#" or (c == "/" and text.startswith("//", i)):
                newline = text.find("\n", i)
                i = end if newline == -1 else newline
            elif c == "/" and text.startswith("/*", i):
                close = text.find("*/", i + 2)
                i = end if close == -1 else close + 2
            else:
                break
        return i

    def body(self, i: int, node: Map, top: bool = False) -> int:
        """Reads entries into ``node`` up to the `}` that closes it (returned: the offset after it)."""
        text = self.text
        while True:
            i = self.skip(i)
            if i >= self.end:
                node.end = i
                return i
            if text[i] == "}":
                if top:  # a stray brace at the top: passed over
                    i += 1
                    continue
                node.end = i + 1
                return i + 1
            m = _IDENT.match(text, i)
            if m is None:
                i = self._next_line(i)
                continue
            name, name_start = m.group(0), m.start()
            j = self.skip(m.end(), newlines=False)
            if j < self.end and text[j] == "=" and not text.startswith("==", j):
                value, i = self.expression(self.skip(j + 1, newlines=False))
                node.items.append((name, name_start, value))
                continue
            labels = []
            while j < self.end and (text[j] == '"' or _IDENT.match(text, j)):
                if text[j] == '"':
                    label, j = self.string(j)
                    labels.append((label.value, label.start))
                else:
                    lm = _IDENT.match(text, j)
                    labels.append((lm.group(0), lm.start()))
                    j = lm.end()
                j = self.skip(j, newlines=False)
            if j < self.end and text[j] == "{":
                inner = Map(j)
                outer = inner
                for label, start in reversed(labels):
                    wrapper = Map(start)
                    wrapper.items.append((label, start, outer))
                    outer = wrapper
                node.items.append((name, name_start, outer))
                i = self.body(j + 1, inner)
                for wrapper in self._wrappers(outer, inner):
                    wrapper.end = inner.end
                continue
            i = self._next_line(j)

    @staticmethod
    def _wrappers(outer: Map, inner: Map):
        while outer is not inner:
            yield outer
            outer = outer.items[0][2]

    def _next_line(self, i: int) -> int:
        newline = self.text.find("\n", i)
        return self.end if newline == -1 else newline + 1

    def expression(self, i: int) -> tuple:
        """(node, offset after it): a value, and with anything after it on the line (an operator, an
        index, a conditional), the whole expression as one unquoted Scalar."""
        node, after = self.primary(i)
        j = self.skip(after, newlines=False)
        if j < self.end and self.text[j] not in "\n,}])" and not self.text.startswith(("//", "#"), j):
            stop = self._expression_end(j)
            raw = self.text[i:stop].rstrip()
            return Scalar(raw, i, i + len(raw)), stop
        return node, after

    def _expression_end(self, i: int) -> int:
        """The end of an expression that goes on at ``i``: the line's end, a `,` or a closing bracket,
        outside brackets and strings."""
        text = self.text
        depth = 0
        while i < self.end:
            c = text[i]
            if c == '"':
                _, i = self.string(i)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    return i
                depth -= 1
            elif depth == 0 and (c in "\n," or text.startswith(("//", "#"), i)):
                return i
            i += 1
        return i

    def primary(self, i: int) -> tuple:
        text = self.text
        if i >= self.end:
            return Scalar("", i, i), i
        c = text[i]
        if c == '"':
            return self.string(i)
        if c == "<" and text.startswith("<<", i):
            m = _HEREDOC.match(text, i)
            if m:
                return self.heredoc(m)
        if c == "[":
            if re.match(r"\[\s*for\b", text[i:i + 40]):
                return self._raw_bracket(i)
            return self.sequence(i)
        if c == "{":
            if re.match(r"\{\s*for\b", text[i:i + 40]):
                return self._raw_bracket(i)
            return self.object(i)
        m = _NUMBER.match(text, i)
        if m and not _IDENT.match(text, m.end()):
            return Scalar(m.group(0), i, m.end()), m.end()
        m = re.compile(r"[A-Za-z_][\w\-]*(?:\.[\w\-*]+|\[[^\]\n]*\])*").match(text, i)
        if m is None:
            stop = self._expression_end(i)
            return Scalar(text[i:stop].rstrip(), i, i + len(text[i:stop].rstrip())), stop
        j = self.skip(m.end(), newlines=False)
        if j < self.end and text[j] == "(":
            return self.call(m.group(0), i, j)
        return Scalar(m.group(0), i, m.end()), m.end()

    def _raw_bracket(self, i: int) -> tuple:
        close = self._matching(i)
        return Scalar(self.text[i:close], i, close), close

    def _matching(self, i: int) -> int:
        depth = 0
        j = i
        while j < self.end:
            c = self.text[j]
            if c == '"':
                _, j = self.string(j)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return self.end

    def call(self, name: str, start: int, paren: int) -> tuple:
        if name in ("jsonencode", "yamlencode", "tomap", "tolist", "merge"):
            args = []
            j = self.skip(paren + 1)
            while j < self.end and self.text[j] != ")":
                value, j = self.expression(j)
                args.append(value)
                j = self.skip(j)
                if j < self.end and self.text[j] == ",":
                    j = self.skip(j + 1)
                elif j < self.end and self.text[j] != ")":
                    j = self._matching(paren) - 1
                    break
            after = min(j + 1, self.end)
            if name == "merge":
                merged = Map(start)
                for arg in args:
                    if isinstance(arg, Map):
                        merged.items.extend(arg.items)
                merged.end = after
                return merged, after
            if len(args) == 1:
                return args[0], after
        close = self._matching(paren)
        return Scalar(self.text[start:close], start, close), close

    def string(self, i: int) -> tuple:
        """A quoted template: the value with its escapes read, `${...}` and `%{...}` kept as written."""
        text = self.text
        chars: list = []
        offsets: list = []
        j = i + 1
        while j < self.end:
            c = text[j]
            if c == '"' or c == "\n":
                break
            if c == "\\" and j + 1 < self.end:
                e = text[j + 1]
                chars.append({"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}.get(e, e))
                offsets.append(j)
                j += 2
                continue
            if c in "$%" and text.startswith("{", j + 1):
                close = self._matching(j + 1)
                chars.extend(text[j:close])
                offsets.extend(range(j, close))
                j = close
                continue
            chars.append(c)
            offsets.append(j)
            j += 1
        value = "".join(chars)
        plain = len(value) == j - i - 1
        return Scalar(value, i + 1, j, True, None if plain else offsets), min(j + 1, self.end)

    def heredoc(self, m) -> tuple:
        body = m.end()
        marker = re.compile(r"(?m)^[ \t]*" + re.escape(m.group(2)) + r"[ \t]*\r?$")
        close = marker.search(self.text, body)
        stop = close.start() if close else self.end
        after = close.end() if close else self.end
        return Scalar(self.text[body:stop], body, stop, True), after

    def sequence(self, i: int) -> tuple:
        node = Seq(i)
        j = self.skip(i + 1)
        while j < self.end and self.text[j] != "]":
            value, j = self.expression(j)
            node.items.append(value)
            j = self.skip(j)
            if j < self.end and self.text[j] == ",":
                j = self.skip(j + 1)
            elif j < self.end and self.text[j] != "]":
                j = self._matching(i) - 1
                break
        node.end = min(j + 1, self.end)
        return node, node.end

    def object(self, i: int) -> tuple:
        node = Map(i)
        text = self.text
        j = self.skip(i + 1)
        while j < self.end and text[j] != "}":
            if text[j] == '"':
                key, j = self.string(j)
                name, name_start = key.value, key.start
            else:
                m = _IDENT.match(text, j)
                if m is None:
                    j = self._matching(i) - 1
                    break
                name, name_start, j = m.group(0), m.start(), m.end()
            j = self.skip(j, newlines=False)
            if j >= self.end or text[j] not in "=:":
                j = self._matching(i) - 1
                break
            value, j = self.expression(self.skip(j + 1, newlines=False))
            node.items.append((name, name_start, value))
            j = self.skip(j)
            if j < self.end and text[j] == ",":
                j = self.skip(j + 1)
        node.end = min(j + 1, self.end)
        return node, node.end
