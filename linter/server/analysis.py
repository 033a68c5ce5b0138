"""The engine run on text held in memory: what the language server shows for one document.

Nothing here knows the protocol (no pygls import): a document is a path, its
text (or a notebook's cells) and the settings found for it; the answer is the
command line's findings, each with its fix and its ``noqa`` line placed where
they land (the cell of a notebook they are in, 0-based rows and columns in code
points), and the safe fixes of the whole document applied by linter/fixer.py.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from linter.diagnostics import Finding, Location
from linter.engine import PARSE_ERROR, check_document, error_finding, forget_file_facts, place
from linter.fixer import _reliable_until, fix_source
from linter.sources import SQL, SourceError, language_of, load_document

UNUSED_NOQA = "SPK002"
NOTEBOOK = "ipynb"


@dataclass(frozen=True)
class CellText:
    """A notebook cell as the editor holds it."""

    kind: str  # "code" or "markdown"
    text: str
    language: str | None = None  # the cell's language id ("python", "sql", ...)


@dataclass(frozen=True)
class Edit:
    """Replace rows/columns (0-based, code points) of one text: the file, or cell ``cell`` (1-based)."""

    cell: int | None
    start: tuple[int, int]
    end: tuple[int, int]
    content: str


@dataclass
class Item:
    """A finding, with the edits of its fix and of a ``noqa`` comment for its line."""

    finding: Finding
    fix_edits: list[Edit] | None = None  # None: no fix the settings let be applied
    applicability: str | None = None  # "safe" or "unsafe", after extend-safe-fixes / extend-unsafe-fixes
    noqa_edit: Edit | None = None

    @property
    def cell(self) -> int | None:
        return self.finding.location.cell

    def start(self) -> tuple[int, int]:
        return self.finding.location.row - 1, self.finding.location.column - 1

    def end(self) -> tuple[int, int]:
        return self.finding.end_location.row - 1, self.finding.end_location.column - 1


@dataclass
class Analysis:
    items: list[Item] = field(default_factory=list)
    texts: dict = field(default_factory=dict)  # cell (None for the file) -> the text checked
    verify: tuple | None = None  # a partial answer (linter/server/incremental.py): what its whole-file check needs


def notebook_bytes(cells: list[CellText], metadata: dict | None = None) -> bytes:
    """The cells as an nbformat 4 notebook, as sparkcheck reads one from disk.

    A cell whose language is not Python says so the way VS Code saves it
    (``metadata.vscode.languageId``), which linter/sources/notebook.py reads.
    The layout is nbformat's own (indent 1, sorted keys), so linter/fixer.py
    can write fixes back into it.
    """
    nb_cells = []
    for cell in cells:
        entry: dict = {"cell_type": cell.kind, "metadata": {}, "source": cell.text}
        if cell.kind == "code":
            entry["execution_count"] = None
            entry["outputs"] = []
            if cell.language and cell.language != "python":
                entry["metadata"] = {"vscode": {"languageId": cell.language}}
        nb_cells.append(entry)
    meta = metadata if isinstance(metadata, dict) else {}
    nb = {"cells": nb_cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def text_bytes(text: str) -> bytes:
    """The editor's text as the bytes a save would write: in the encoding its coding cookie names."""
    from linter.sources.python import _CODING

    encoding = "utf-8"
    for line in text.encode("utf-8", "surrogatepass").split(b"\n", 2)[:2]:
        m = _CODING.match(line)
        if m:
            encoding = m.group(1).decode("ascii", "replace")
            break
    try:
        return text.encode(encoding, "replace")  # one character for one: columns stay where they were
    except LookupError:
        return text.encode("utf-8", "surrogatepass")  # the engine reports the unknown encoding (SPK001)


def document_language(path: str, language_id: str | None, settings) -> str | None:
    """What to read the document as (one of linter.sources.LANGUAGES); None: not a file sparkcheck reads."""
    language = settings.language_for(path) or language_of(path, settings["extension"])
    if language is not None:
        return language
    return {"python": "python", "pyspark": "python", "sql": "sql", "sparksql": "sql"}.get((language_id or "").lower())


def too_large(data: bytes, settings) -> str | None:
    limit = settings["max-file-size"]
    if limit and len(data) > limit:
        return (f"file too large to check: {len(data) / 1048576:.1f} MiB > max-file-size "
                f"({limit / 1048576:.1f} MiB); raise `max-file-size` or exclude it")
    return None


def analyse(path: str, data: bytes, settings, language: str | None) -> Analysis:
    """Every finding of the document, as ``sparkcheck check`` reports them, with fixes and noqa edits placed."""
    codes = settings.codes_for(path)
    out = Analysis()
    reason = too_large(data, settings)
    if reason is not None:
        if PARSE_ERROR in codes:
            out.items.append(Item(error_finding(path, reason)))
        return out
    try:
        doc = load_document(path, data, language)
    except SourceError as exc:
        if PARSE_ERROR in codes:
            out.items.append(Item(error_finding(path, exc.message, Location(exc.row, exc.column, exc.cell))))
        return out
    if doc.kind == NOTEBOOK:
        out.texts = {c.number: c.text for c in doc.cells}
    else:
        out.texts = {None: doc.text}
    fixable = settings.fixable_codes()
    forget_file_facts()  # a module, a sample file or a neighbour may have changed since the last check
    for result in check_document(doc, settings, codes):
        unit = result.unit
        limit = None
        for d in result.diagnostics:
            finding = place(unit, d, settings, result.suppressions)
            item = Item(finding)
            if d.fix is not None and d.code in fixable:
                if limit is None:
                    limit = _reliable_until(unit) or -1
                if limit < 0 or all(e.end <= limit for e in d.fix.edits):  # as the fixer: not past a form feed
                    edits = [_edit(unit, e.start, e.end, e.content) for e in d.fix.edits]
                    if all(e is not None for e in edits):
                        item.fix_edits = edits
                        item.applicability = finding.fix["applicability"]
            item.noqa_edit = _noqa_edit(doc, unit, finding, out.texts)
            out.items.append(item)
    out.items.sort(key=lambda i: i.finding.sort_key())
    return out


def _edit(unit, start: int, end: int, content: str) -> Edit | None:
    s, e = unit.position(start), unit.position(max(start, end))
    if s.cell != e.cell:
        return None
    return Edit(s.cell, (s.row - 1, s.column - 1), (e.row - 1, e.column - 1), content)


def _noqa_edit(doc, unit, finding: Finding, texts: dict) -> Edit | None:
    """The ``noqa`` comment ``sparkcheck check --add-noqa`` writes for the finding (linter/suppress_add.py's merge).

    The comment's language is the text's the line is in: ``--`` in SQL (a .sql file, a ``%sql`` cell, the
    ``# MAGIC`` lines of a Databricks SQL cell), ``#`` in Python, embedded SQL strings included.
    """
    from linter.suppress_add import _add, takes_comment

    if finding.code in (PARSE_ERROR, UNUSED_NOQA) or finding.noqa_row is None:
        return None
    cell = finding.location.cell if doc.kind == NOTEBOOK else None
    text = texts.get(cell)
    if text is None:
        return None
    lines = text.split("\n")
    row = finding.noqa_row - 1
    if not 0 <= row < len(lines):
        return None
    marker = "--" if unit.kind == SQL else "#"
    old = lines[row]
    if not takes_comment(finding.filename, old, marker):
        return None  # a setting's value, or a `\` continuation: no line comment can go there
    new = _add(old, marker, [finding.code])
    if new == old:
        return None
    old, new = old.rstrip("\r"), new.rstrip("\r")
    start = len(os.path.commonprefix([old, new]))
    keep = len(os.path.commonprefix([old[start:][::-1], new[start:][::-1]]))  # the same at the end
    return Edit(cell, (row, start), (row, len(old) - keep), new[start:len(new) - keep])


def fix_all(path: str, data: bytes, settings, language: str | None) -> dict | None:
    """The document's text after every safe fix, through linter/fixer.py (as ``sparkcheck check --fix``):
    ``{None: text}`` for a file, ``{cell: text}`` for each changed notebook cell; None when nothing changes."""
    if too_large(data, settings) is not None:
        return None
    result = fix_source(path, data, settings, False)
    if not result.changed:
        return None
    try:
        old = load_document(path, data, language)
        new = load_document(path, result.fixed, language)
    except SourceError:
        return None
    if new.kind == NOTEBOOK:
        changed = {c.number: c.text for c, o in zip(new.cells, old.cells) if c.text != o.text}
        return changed or None
    return {None: new.text}


def document_path(uri_path: str | None, fallback_dir: str, language_id: str | None) -> str:
    """A path for settings and messages: the file's, or for an unsaved buffer a name in the workspace."""
    if uri_path:
        return uri_path
    suffix = {"sql": ".sql"}.get((language_id or "").lower(), ".py")
    return os.path.join(fallback_dir, "untitled" + suffix)
