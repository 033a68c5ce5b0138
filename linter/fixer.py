"""Apply fixes: edits on spans, in rounds, re-checked, written atomically.

Each round checks the file, takes the fixes allowed (``fixable``/``unfixable``,
safe or with ``--unsafe-fixes`` also unsafe), applies those whose edits do not
overlap an edit already taken, and re-parses.  A fix that would leave the file
unparseable is dropped and reported; the rest go on.  Rounds repeat until
nothing changes (at most ``MAX_ROUNDS``).  The file is written once, at the end,
through a temporary file and a rename, with its encoding, BOM, newline style
and permissions; notebooks are written back cell by cell in their own layout.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from linter.diagnostics import Edit
from linter.engine import check_document
from linter.sources import Document, SourceError, load_document

MAX_ROUNDS = 10


@dataclass
class FixResult:
    path: str
    original: bytes
    fixed: Optional[bytes] = None  # None: nothing changed
    applied: Counter = field(default_factory=Counter)
    dropped: list[str] = field(default_factory=list)
    language: Optional[str] = None  # what the file is read as, when the `extension` setting says

    @property
    def changed(self) -> bool:
        return self.fixed is not None and self.fixed != self.original


def _real_edit(doc: Document, unit, e: Edit):
    """(cell number or None, start, end, content) in the file or cell text."""
    start, end = unit.position(e.start), unit.position(e.end)
    if start.cell != end.cell:
        return None
    if doc.kind == "ipynb":
        text = doc.cells[start.cell - 1].text
    else:
        text = doc.text
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)

    def offset(loc):
        row = min(loc.row - 1, len(starts) - 1)
        return min(starts[row] + loc.column - 1, len(text))

    return start.cell, offset(start), offset(end), e.content


def _apply(text: str, edits: list[tuple[int, int, str]], newline: str) -> str:
    out, last = [], 0
    for start, end, content in sorted(edits):
        if newline != "\n":
            content = content.replace("\r\n", "\n").replace("\n", newline)
        out.append(text[last:start])
        out.append(content)
        last = end
    out.append(text[last:])
    return "".join(out)


def _newline(text: str) -> str:
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def _with_edits(doc: Document, edits) -> Document:
    """A new document with the real edits applied (raises SourceError if unreadable)."""
    if doc.kind == "ipynb":
        by_cell: dict = {}
        for cell, s, e, content in edits:
            by_cell.setdefault(cell, []).append((s, e, content))
        nb = json.loads(json.dumps(doc.notebook))
        cells = notebook_cells(nb)
        sources = {}  # cell number -> its new source, as the notebook holds it (a list of strings or one)
        for number, cell_edits in by_cell.items():
            cell = cells[number - 1]
            key = cell_key(nb, cell)
            old = doc.cells[number - 1].text
            new = _apply(old, cell_edits, "\n")
            if isinstance(cell.get(key), list):
                cell[key] = source_strings(cell[key], cell_edits, new)
            else:
                cell[key] = new
            sources[number] = cell[key]
        if notebook_layout(doc) is not None:
            text = dump_notebook(doc, nb)
        else:
            text = _raw_sources_replaced(doc, sources)
            if json.loads(text) != nb:
                raise _NotWritable("the notebook's JSON would not read back as the fixed notebook")
        return load_document(doc.path, (b"\xef\xbb\xbf" if doc.bom else b"") + text.encode("utf-8"), doc.language)
    text = _apply(doc.text, [(s, e, c) for _, s, e, c in edits], _newline(doc.text))
    return load_document(doc.path, encode(doc, text), doc.language)


class _NotWritable(Exception):
    """A notebook sparkcheck cannot write its fixes into without touching more than their text."""


def _raw_sources_replaced(doc: Document, sources: dict) -> str:
    """The notebook's raw JSON with only the edited cells' source values rewritten, for a layout ``json.dumps``
    cannot reproduce (tabs, a hand-made layout, a repeated key): every byte outside those values is kept, and
    so is each string of a list that no edit touched, as it was written. The rest of a new list is written with
    the list's own separators, escaping non-ASCII characters where the old value did."""
    from linter.sources.tree import Scalar, Seq, TreeError, read_json_value

    raw = doc.text
    replacements = []
    for number, source in sources.items():
        cell = doc.cells[number - 1]
        if cell.raw_key < 0:
            raise _NotWritable("a fixed cell's source was not found in the notebook's JSON")
        try:
            node = read_json_value(raw, raw.find(":", cell.raw_key) + 1)
        except TreeError:
            raise _NotWritable("a fixed cell's source was not found in the notebook's JSON") from None
        pieces = node.items if isinstance(node, Seq) else [node]
        if not all(isinstance(p, Scalar) and p.quoted for p in pieces) or \
                "".join(p.value for p in pieces) != cell.text or isinstance(source, list) != isinstance(node, Seq):
            raise _NotWritable("a fixed cell's source in the notebook's JSON does not read as its text")
        escaped = any(ord(c) > 127 for c in cell.text) and raw[node.start:node.end].isascii()
        if not isinstance(source, list):
            replacements.append((node.start - 1, node.end + 1, json.dumps(source, ensure_ascii=escaped)))
            continue
        written: dict = {}  # an old string's value -> how it was written, for the strings no edit touched
        for p in pieces:
            written.setdefault(p.value, []).append(raw[p.start - 1:p.end + 1])
        items = [written[v].pop(0) if written.get(v) else json.dumps(v, ensure_ascii=escaped) for v in source]
        if pieces:
            lead, tail = raw[node.start + 1:pieces[0].start - 1], raw[pieces[-1].end + 1:node.end - 1]
        else:
            lead, tail = "", ""
        gaps = [raw[a.end + 1:b.start - 1] for a, b in zip(pieces, pieces[1:])] or [", "]  # the list's own, in order
        body = "".join((gaps[min(i - 1, len(gaps) - 1)] if i else "") + item for i, item in enumerate(items))
        replacements.append((node.start, node.end, "[" + lead + body + tail + "]" if items else "[]"))
    for start, end, content in sorted(replacements, reverse=True):
        raw = raw[:start] + content + raw[end:]
    return raw


def source_strings(strings: list, edits, new: str) -> list:
    """A cell's new source as a list of strings, like the old list ``strings``.

    Each string of the old list that no edit touches is kept as it was (the
    JSON outside the edits stays byte-identical, whatever the list's layout:
    one string per line as nbformat writes, or one string for the whole cell
    as some exporters do); the new text around them is cut the way the old
    strings it replaces were: after each newline when they held a line each,
    else kept whole.
    """
    spans = sorted((s, e, len(c) - (e - s)) for s, e, c in edits)
    out: list = []
    pos = 0  # in the new text
    run: list = []  # the old strings that edits touch, since the last kept one
    start = 0  # of the current old string, in the old text

    def flush(upto: int) -> None:
        chunk = new[pos:upto]
        if len(run) == 1 and run[0].count("\n") > run[0].endswith("\n"):
            if chunk:
                out.append(chunk)  # one string for several lines: keep it one
        elif chunk:
            out.extend(_lines(chunk))

    for string in strings:
        end = start + len(string)
        touched = any(s < end and start < e for s, e, _ in spans)  # an insertion: strictly inside
        if touched:
            run.append(string)
        else:
            new_start = start + sum(delta for s, e, delta in spans if e <= start)
            flush(new_start)
            out.append(string)
            pos = new_start + len(string)
            run = []
        start = end
    flush(len(new))
    return out if "".join(out) == new else _lines(new)


def _lines(text: str) -> list:
    """``text`` cut after each line feed (``str.splitlines`` also cuts at form feeds, ``\\r`` and others)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def notebook_cells(nb: dict) -> list:
    if nb.get("nbformat") == 3:
        return [c for ws in nb.get("worksheets") or [] for c in ws.get("cells") or []]
    return nb["cells"]


def cell_key(nb: dict, cell: dict) -> str:
    if nb.get("nbformat") == 3 and cell.get("cell_type") == "code":
        return "input"
    return "source"


def _layouts():
    # nbformat writes indent=1, sorted keys, non-ASCII kept; Jupyter front ends
    # and VS Code use these too, with or without a final newline. Fabric and other
    # services write the JSON on one line, some without spaces (`{"cells":[...`);
    # a few editors indent by 3 or by tabs.
    for indent, separators in ((1, None), (2, None), (4, None), (None, None), (None, (",", ":")), (3, None),
                               ("\t", None)):
        for sort_keys in (True, False):
            for ensure_ascii in (False, True):
                yield {"indent": indent, "separators": separators, "sort_keys": sort_keys, "ensure_ascii": ensure_ascii}


def notebook_layout(doc: Document) -> Optional[tuple[dict, str]]:
    """The json.dumps arguments that reproduce the notebook byte for byte."""
    raw = doc.text
    body = raw.rstrip("\n")
    tail = raw[len(body):]
    for layout in _layouts():
        if json.dumps(doc.notebook, **layout) == body:
            return layout, tail
    return None


def dump_notebook(doc: Document, nb: dict) -> str:
    found = notebook_layout(doc)
    if found is None:
        raise SourceError("the notebook's JSON layout is not one sparkcheck can reproduce; not rewritten")
    layout, tail = found
    return json.dumps(nb, **layout) + tail


def encode(doc: Document, text: str) -> bytes:
    data = text.encode(doc.encoding)
    return (b"\xef\xbb\xbf" + data) if doc.bom else data


def render(doc: Document) -> bytes:
    if doc.kind == "ipynb":  # UTF-8 always (nbformat); a BOM the file had is kept
        return (b"\xef\xbb\xbf" if doc.bom else b"") + doc.text.encode("utf-8")
    return encode(doc, doc.text)


def fix_source(path: str, data: bytes, settings, unsafe: bool) -> FixResult:
    result = FixResult(path, data, language=settings.language_for(path))
    try:
        doc = load_document(path, data, result.language)
    except SourceError:
        return result
    codes = settings.codes_for(path)
    fixable = settings.fixable_codes()
    refused: set = set()
    for _ in range(MAX_ROUNDS):
        candidates = []
        for unit_result in check_document(doc, settings, codes):
            unit = unit_result.unit
            limit = _reliable_until(unit)
            for d in unit_result.diagnostics:
                if d.fix is None or d.code not in fixable:
                    continue
                if limit is not None and any(e.end > limit for e in d.fix.edits):
                    message = (f"{path}: the fix for {d.code} was not applied: libcst does not keep the form feed "
                               f"at the start of line {unit.position(limit).row}, so positions after it are off")
                    if message not in result.dropped:
                        result.dropped.append(message)
                    continue
                applicability = settings.applicability(d.code, d.fix.applicability)
                if applicability == "unsafe" and not unsafe:
                    continue
                key = (d.code, d.start, d.end, d.fix.message)
                if key in refused:
                    continue
                real = [_real_edit(doc, unit, e) for e in d.fix.edits]
                if any(r is None for r in real):
                    continue
                candidates.append((key, real))
        if not candidates:
            break
        taken, used = [], []
        for key, real in sorted(candidates, key=lambda c: min((r[0] or 0, r[1]) for r in c[1])):
            spans = [(r[0], r[1], r[2]) for r in real]
            if any(c == c2 and s < e2 and s2 < e or (c == c2 and s == s2 == e == e2)
                   for c, s, e in spans for c2, s2, e2 in used):
                continue  # overlaps an edit of this round: next round
            taken.append((key, real))
            used.extend(spans)
        try:
            new_doc = _try(doc, [r for _, real in taken for r in real])
        except _NotWritable as exc:
            result.dropped.append(f"{path}: no fix applied: {exc}")
            break
        if new_doc is None:
            # Together they break the file: try them one by one and keep the good ones.
            for key, real in taken:
                try:
                    single = _try(doc, real)
                except _NotWritable:
                    single = None
                if single is None:
                    refused.add(key)
                    result.dropped.append(f"{path}: the fix for {key[0]} would leave the file unparseable; not applied")
                else:
                    doc = single
                    result.applied[key[0]] += 1
            continue
        doc = new_doc
        for key, _ in taken:
            result.applied[key[0]] += 1
    fixed = render(doc)
    if result.applied and fixed != data:  # no fix applied: the file is left as it is, byte for byte
        result.fixed = fixed
    return result


def _reliable_until(unit) -> Optional[int]:
    """Where libcst's copy of a Python unit first differs from its text (None: nowhere).

    Spans come from libcst's code generation, which drops a form feed at the
    start of a line: every offset after it is off by one, so edits there
    would land beside their text.
    """
    from linter.sources import PYTHON
    from linter.sources.python import parse

    text = unit.text
    if unit.kind != PYTHON or "\f" not in text:
        return None
    try:
        code = parse(text).code
    except SourceError:
        return None
    if code == text:
        return None
    return len(os.path.commonprefix([code, text]))


def _try(doc: Document, edits) -> Optional[Document]:
    """The document with the edits, or None when they break it (it no longer parses)."""
    try:
        new = _with_edits(doc, edits)
    except SourceError:
        return None
    from linter.sources import PYTHON, SQL
    from linter.sources.python import parse

    if [u.error is None for u in new.units] != [u.error is None for u in doc.units]:
        return None  # a unit more or less, or a cell that no longer parses
    for old_unit, unit in zip(doc.units, new.units):
        if unit.kind == PYTHON and unit.error is None:  # a cell that did not parse before the fixes either
            try:
                parse(unit.text)
            except SourceError:
                return None
        elif unit.kind == SQL and _sql_errors(unit.text) > _sql_errors(old_unit.text):
            return None
    return new


def _sql_errors(text: str) -> int:
    from linter.sources.sql import is_templated, parse_statements

    if is_templated(text):
        return 0
    return len(parse_statements(text)[1])


def write_atomic(path: str, data: bytes) -> None:
    """Write through a temporary file in the same directory and rename over the original."""
    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".sparkcheck-tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(result: FixResult) -> str:
    try:
        old_doc = load_document(result.path, result.original, result.language)
        new_doc = load_document(result.path, result.fixed or result.original, result.language)
    except SourceError:
        return ""
    if old_doc.kind == "ipynb":
        out = []
        for old, new in zip(old_doc.cells, new_doc.cells):
            if old.text != new.text:
                out.extend(_diff(old.text, new.text, f"{result.path}:cell {old.number}"))
        return "".join(out)
    return "".join(_diff(old_doc.text, new_doc.text, result.path))


def _diff(old: str, new: str, name: str):
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    for line in difflib.unified_diff(a, b, fromfile=name, tofile=name):
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"

