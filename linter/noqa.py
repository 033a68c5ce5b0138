"""Suppression comments: ``# noqa: SPK101`` in Python, ``-- noqa`` in SQL.

- Python: ``# noqa: SPK101, collect-on-unbounded-dataframe`` on the line where a
  finding starts (for a finding inside a multi-line string: on the line where the
  string ends), and ``# sparkcheck: noqa`` / ``# sparkcheck: noqa: SPK101`` for a
  whole file.
- SQL: ``-- noqa: SPK501`` on the line, and ``-- noqa: disable=SPK501`` ...
  ``-- noqa: enable=SPK501`` (or ``=all``) for a range of lines, as sqlfluff.

A bare ``# noqa`` (or ``-- noqa``) is left to the other linters that share the
comment: it never silences sparkcheck, and findings on such a line say so.
Codes that look like sparkcheck's and suppress nothing are reported by SPK002.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Optional

from linter import registry

# A Python directive's codes, as ruff reads them: codes (`SPK101`, `E501`, a prefix such as `SPK1`) or rule names
# (`collect-on-unbounded-dataframe`), split by commas or blanks; the list ends at the first other word, so that
# `# noqa: SPK101 small lookup table` gives a reason, not codes.
# Other tools' codes are upper case (`E501`, `PLR0913`: `v2` is a word); a hyphenated word is a code only when it
# is one of sparkcheck's rule names (`small-table` is a word).


@functools.lru_cache(maxsize=1)
def _py_patterns() -> tuple:
    """(line directive, file directive) patterns, made once: they name the registry's rule names."""
    names = "|".join(sorted((re.escape(i.name) for i in registry.infos() if "-" in i.name), key=len, reverse=True))
    code = rf"(?:SPK\w*|(?-i:[A-Z]+[0-9]+)|(?:{names}))\b"
    # a lower-case `e501` is a code in a comma-separated list (`# noqa: e501,SPK101`), a word after a blank
    listed = r"(?:[A-Za-z]+[0-9]+)\b"
    codes = rf"(?P<codes>(?:{listed}(?=\s*,)|{code})(?:\s*,\s*(?:{code}|{listed})|\s+{code})*)"
    return (re.compile(rf"#\s*noqa(?:\s*:\s*{codes})?", re.I),
            re.compile(rf"#\s*sparkcheck\s*:\s*noqa(?:\s*:\s*{codes})?", re.I))
_SQL_NOQA = re.compile(
    r"--\s*noqa(?:\s*:\s*(?:(?P<action>disable|enable)\s*=\s*)?(?P<codes>[A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*))?",
    re.I,
)
_SPK_CODE = re.compile(r"^SPK\d{3}$", re.I)
_SPK_LIKE = re.compile(r"^SPK\w*$", re.I)  # SPK1, SPK10, SPK1011: meant as sparkcheck's, named wrong
ALL = "all"


@dataclass
class Directive:
    line: int  # 0-based line of the unit text
    start: int  # offset of the comment (or of the noqa part of it) in the unit text
    end: int
    codes: Optional[list[str]]  # None: bare noqa
    kind: str = "line"  # "line", "file", "disable", "enable"
    used: set = field(default_factory=set)
    comment_start: int = 0  # the whole comment, for removing it
    comment_end: int = 0
    whole_comment: bool = True  # the directive is all the comment says


def own_code(token: str) -> Optional[str]:
    """The sparkcheck code a noqa token names, or None if it is another tool's."""
    if _SPK_CODE.match(token):
        return token.upper()
    rule = registry.find(token) if "-" in token else None
    return rule.code if rule else None


def _split(codes: Optional[str]) -> Optional[list[str]]:
    if codes is None:
        return None
    return [c for c in re.split(r"[\s,]+", codes.strip()) if c]


@dataclass
class Suppressions:
    directives: list = field(default_factory=list)
    string_end_line: dict = field(default_factory=dict)  # line inside a multi-line string -> its end line
    ranges: list = field(default_factory=list)  # (start_line, end_line, codes or ALL, directive)
    # a line ended by a `\` continuation -> the last line of its logical line, where a comment can go (ruff
    # reads a noqa there too: a comment after the backslash is a syntax error, or in a shell, a broken command)
    continued_end_line: dict = field(default_factory=dict)

    def noqa_line(self, line: int) -> int:
        """Where a comment for ``line`` can go: past the multi-line strings and `\\` continuations it is in,
        in turn, until neither moves it (a continued statement whose last line opens a string ends after it)."""
        for _ in range(len(self.string_end_line) + len(self.continued_end_line) + 1):
            moved = self.continued_end_line.get(self.string_end_line.get(line, line), line)
            moved = self.string_end_line.get(moved, moved)
            if moved == line:
                break
            line = moved
        return line

    def match(self, code: str, line: int) -> tuple[bool, bool]:
        """(suppressed, bare noqa on the line)."""
        bare = False
        target = self.noqa_line(line)
        if file_silences(self.directives, code):
            return True, False
        for d in self.directives:
            if d.kind == "line" and d.line == target:
                if d.codes is None:
                    bare = True
                elif _names(d, code):
                    d.used.add(code)
                    return True, False
        for start, end, codes, d in self.ranges:
            if start <= line <= end and (codes == ALL or code in codes):
                d.used.add(code)
                return True, False
        return False, bare


def file_silences(directives: list, code: str) -> bool:
    """Whether a file-level directive among ``directives`` silences ``code`` (marking it used)."""
    for d in directives:
        if d.kind == "file" and (d.codes is None or _names(d, code)):
            d.used.add(code)
            return True
    return False


def _names(d: Directive, code: str) -> bool:
    return any(own_code(c) == code for c in d.codes or ())


def python_suppressions(text: str, strings: bool = False) -> Suppressions:
    """Directives of a Python text; ``strings`` also maps lines of multi-line strings."""
    sup = Suppressions()
    if not strings and not _may_name_own_code(text):
        return sup
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        tokens = None
    if tokens is None:  # unreadable Python: fall back to plain lines
        return _hash_comments(sup, text, starts)
    previous = None
    continued = []  # 0-based lines a backslash continues onto the next
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            _python_comment(sup, tok.string, row - 1, starts[row - 1] + col)
        elif tok.type == tokenize.STRING and tok.start[0] != tok.end[0]:
            for line in range(tok.start[0] - 1, tok.end[0] - 1):
                sup.string_end_line[line] = tok.end[0] - 1
        if strings and previous is not None and tok.start[0] > previous.end[0] and previous.type not in _LINE_ENDS:
            continued.extend(range(previous.end[0] - 1, tok.start[0] - 1))  # no token between: a `\` joined them
        previous = tok
    _chain(sup, continued)
    return sup


_LINE_ENDS = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.COMMENT)


def _chain(sup: Suppressions, continued: list) -> None:
    """Map each line of a run of backslash-continued lines to the line that ends the run."""
    ends = set(continued)
    for line in sorted(ends, reverse=True):
        sup.continued_end_line[line] = sup.continued_end_line.get(line + 1, line + 1)


def _may_name_own_code(text: str) -> bool:
    """Whether some ``noqa`` in the raw text could name a sparkcheck code.

    Without findings, a Python file's directives matter only when they name
    sparkcheck codes (SPK002 reports those that suppress nothing), or silence
    a whole document (a bare ``# sparkcheck: noqa``, whose notebook may hold
    SQL cells); a bare ``# noqa`` or ``# noqa: F401`` says nothing to sparkcheck.  Matching the raw
    text (strings included) finds a superset of the comments, so the tokenizer
    (about 8% of a check of pyspark's own sources) runs only when it may matter.
    """
    line_pattern, file_pattern = _py_patterns()
    for pattern in (line_pattern, file_pattern):
        for m in pattern.finditer(text):
            if pattern is file_pattern and m.group("codes") is None:
                return True  # a bare file-level directive: it silences a notebook's `%%sql` cells too
            if any(own_code(token) or _SPK_LIKE.match(token) for token in _split(m.group("codes")) or ()):
                return True
    return False


def _hash_comments(sup: Suppressions, text: str, starts: list[int]) -> Suppressions:
    for i in range(len(starts)):
        line_end = starts[i + 1] if i + 1 < len(starts) else len(text)
        line = text[starts[i]:line_end]
        pos = line.find("#")
        if pos != -1:
            _python_comment(sup, line[pos:].rstrip("\r\n"), i, starts[i] + pos)
    return sup


def hash_suppressions(text: str, continued: bool = False) -> Suppressions:
    """Directives in `#` comments of configuration files (spark-defaults.conf, shell, YAML)."""
    sup = Suppressions()
    if continued:  # (with findings to place) a shell command, or a YAML `run:` block's, continued with `\`
        # takes its comment on its last line
        _chain(sup, [i for i, line in enumerate(text.split("\n")) if line.rstrip("\r").endswith("\\")
                     and not _in_shell_comment(line)])
    if "noqa" not in text.lower():
        return sup
    return _hash_comments(sup, text, [0] + [m.end() for m in re.finditer("\n", text)])


def _in_shell_comment(line: str) -> bool:
    """Whether the line's last character is inside a `#` comment (at the start or after a blank, outside
    quotes): a `\\` there continues nothing."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return True
    return False


def _python_comment(sup: Suppressions, comment: str, line: int, offset: int) -> None:
    line_pattern, file_pattern = _py_patterns()
    m = file_pattern.search(comment)
    kind = "file"
    if m is None:
        m = line_pattern.search(comment)
        kind = "line"
    if m is None:
        return
    whole = m.start() == 0 and not comment[m.end():].strip()
    sup.directives.append(
        Directive(line, offset + m.start(), offset + m.end(), _split(m.group("codes")), kind,
                  comment_start=offset, comment_end=offset + len(comment), whole_comment=whole)
    )


def sql_comments(text: str):
    """(offset, comment text) of every ``--`` comment outside quotes."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and c != "`":
                    j += 2
                    continue
                if text[j] == c:
                    break
                j += 1
            i = j + 1
        elif c == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j == -1 else j
            yield i, text[i:j].rstrip("\r")
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j == -1 else j + 2
        else:
            i += 1


def sql_suppressions(text: str) -> Suppressions:
    sup = Suppressions()
    if "noqa" not in text.lower():
        return sup
    open_ranges: dict = {}
    for offset, comment in sql_comments(text):
        m = _SQL_NOQA.search(comment)
        if m is None:
            continue
        line = text.count("\n", 0, offset)
        codes = _split(m.group("codes"))
        action = (m.group("action") or "").lower()
        whole = m.start() == 0 and not comment[m.end():].strip()
        d = Directive(line, offset + m.start(), offset + m.end(), codes, action or "line",
                      comment_start=offset, comment_end=offset + len(comment), whole_comment=whole)
        sup.directives.append(d)
        if action == "disable":
            key = ALL if any(c.lower() == ALL for c in codes) else frozenset(filter(None, map(own_code, codes)))
            open_ranges[key] = (line, d)
        elif action == "enable":
            closing = [k for k in open_ranges if k == ALL or any(c.lower() == ALL for c in codes)
                       or (k != ALL and k & set(filter(None, map(own_code, codes))))]
            for key in closing:
                start, opened = open_ranges.pop(key)
                sup.ranges.append((start, line, key, opened))
    for key, (start, opened) in open_ranges.items():
        sup.ranges.append((start, 10**9, key, opened))
    return sup


def unused(sup: Suppressions, enabled: frozenset) -> list[tuple[Directive, list[str], str]]:
    """Directives naming sparkcheck codes that suppressed nothing: (directive, codes, why). The caller leaves
    this out under a bare file-level `# sparkcheck: noqa` of the document (engine.check_document)."""
    out = []
    for d in sup.directives:
        if d.codes is None or d.kind == "enable":
            continue
        bad, reasons = [], []
        for token in d.codes:
            if token.lower() == ALL and d.kind == "disable":
                if not d.used:
                    bad.append(token)
                    reasons.append("suppresses nothing")
                continue
            code = own_code(token)
            if code is None and _SPK_LIKE.match(token):
                bad.append(token)  # a prefix (`SPK1`) silences nothing: directives name whole codes, as ruff's do
                reasons.append(f"{token} is not a code (name whole codes, such as SPK101)")
                continue
            if code is None:
                continue  # another tool's code
            if registry.find(code) is None:
                bad.append(token)
                reasons.append(f"unknown code {token}")
            elif code not in d.used:
                bad.append(token)
                reasons.append(f"{token} is not enabled" if code not in enabled else f"unused {token}")
        if bad:
            out.append((d, bad, "; ".join(reasons)))
    return out
