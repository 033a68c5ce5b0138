"""``--add-noqa``: write a ``noqa`` comment for every finding, merging into existing ones."""

from __future__ import annotations

import json
import re

from linter.engine import PARSE_ERROR, UNUSED_NOQA
from linter.fixer import cell_key, dump_notebook, encode, notebook_cells, write_atomic
from linter.sources import SQL, SourceError, load_document

_EXISTING = {
    "#": re.compile(r"#\s*noqa\s*:\s*[A-Za-z0-9_-]+(?:[\s,]+[A-Za-z0-9_-]+)*", re.I),
    "--": re.compile(r"--\s*noqa\s*:\s*[A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*", re.I),
}


def _add(line: str, marker: str, codes: list[str]) -> str:
    body = line.rstrip("\r")
    cr = line[len(body):]
    m = _EXISTING[marker].search(body)
    if m:
        present = {c.upper() for c in re.split(r"[\s,:]+", m.group(0)) if c}
        new = [c for c in codes if c not in present]
        if not new:
            return line
        return body[: m.end()] + ", " + ", ".join(new) + body[m.end():] + cr
    return f"{body.rstrip()}  {marker} noqa: {', '.join(codes)}{cr}"


def _sql_lines(doc) -> set:
    """(cell, row) of every line that is SQL text of the document (a .sql file, a %sql cell, a Databricks SQL
    notebook's statements): where a noqa comment is `-- noqa`. Every other line takes `# noqa`."""
    out = set()
    for unit in doc.units:
        if unit.kind != SQL:
            continue
        if unit.line_map is None:
            out.update((None, row) for row in range(unit.text.count("\n") + 1))
        else:
            out.update((cell, row) for cell, row, _ in unit.line_map)
    return out


# Files where `#` after a value is part of the value (Java properties, spark-defaults.conf): Spark would read
# `false` and the comment after it as the setting's value. A comment there must be a line of its own, which no line-level
# directive is: such findings are left for a file-level directive naming their codes.
_VALUE_COMMENTS = (".conf", ".properties")


def takes_comment(path: str, line: str, marker: str) -> bool:
    """Whether a trailing ``noqa`` comment can go at the end of ``line`` without changing what the file means."""
    if marker != "#":
        return True
    return not (path.lower().endswith(_VALUE_COMMENTS) or line.rstrip().endswith("\\"))


def add_noqa(findings, resolver) -> tuple[int, int]:
    """Add the comments; returns (lines changed, findings left because their line cannot take a comment)."""
    skipped = 0
    by_file: dict = {}
    for f in findings:
        if f.code in (PARSE_ERROR, UNUSED_NOQA) or f.noqa_row is None:
            continue
        by_file.setdefault(f.filename, []).append(f)
    changed = 0
    for path, group in by_file.items():
        try:
            with open(path, "rb") as fh:
                data = fh.read()
            doc = load_document(path, data, resolver.for_path(path).language_for(path))
        except (OSError, SourceError):
            continue
        wanted: dict = {}
        sql_lines = _sql_lines(doc)
        for f in group:
            # the comment the line's own language takes: SQL embedded in a Python string is on a Python line
            marker = "--" if (f.location.cell, f.noqa_row - 1) in sql_lines else "#"
            key = (f.location.cell, f.noqa_row - 1, marker)
            wanted.setdefault(key, [])
            if f.code not in wanted[key]:
                wanted[key].append(f.code)
        if doc.kind == "ipynb":
            texts = {c.number: c.text.split("\n") for c in doc.cells}
        else:
            texts = {None: doc.text.split("\n")}
        for (cell, row, marker), codes in wanted.items():
            lines = texts.get(cell)
            if lines is None or not 0 <= row < len(lines):
                continue
            if not takes_comment(path, lines[row], marker):
                skipped += len(codes)  # the comment would change a value, or break a `\` continuation
                continue
            new = _add(lines[row], marker, codes)
            if new != lines[row]:
                lines[row] = new
                changed += 1
        if doc.kind == "ipynb":
            nb = json.loads(json.dumps(doc.notebook))
            for number, cell in enumerate(notebook_cells(nb), start=1):
                key = cell_key(nb, cell)
                new_text = "\n".join(texts[number])
                if new_text != doc.cells[number - 1].text:
                    cell[key] = new_text.splitlines(keepends=True) if isinstance(cell.get(key), list) else new_text
            try:
                out = dump_notebook(doc, nb).encode("utf-8")
            except SourceError:
                continue
        else:
            out = encode(doc, "\n".join(texts[None]))
        if out != data:
            write_atomic(path, out)
    return changed, skipped
