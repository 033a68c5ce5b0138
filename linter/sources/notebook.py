"""Notebooks: Jupyter ``.ipynb`` (nbformat 3 and 4) and Databricks source files.

Jupyter: the code cells are joined into one Python text (a variable defined in
cell 2 is known in cell 5), IPython magics are blanked out, ``%%sql`` / ``%sql``
cells become SQL units.  Findings are reported with the cell number (1-based
among all cells, markdown included, as Jupyter shows them) and the row inside
the cell.

Databricks source notebooks are ``.py`` files that git and GitHub show as
files, so findings keep the file's own rows (no cell number): annotations then
land on the right line of the pull request.  ``# MAGIC %sql`` cells become SQL
units whose positions point into the ``# MAGIC`` lines.
"""

from __future__ import annotations

import json
import re

from linter.sources import PYTHON, SQL, Cell, Document, SourceError, Unit

DATABRICKS_HEADER = "# Databricks notebook source"
_COMMAND = re.compile(r"^# COMMAND -+\s*$")
_MAGIC = re.compile(r"^# MAGIC ?")
_SQL_MAGICS = ("%%sql", "%%sparksql", "%sql")
# Cell magics whose body is still Python.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun", "%%python", "%%spark")
_LINE_MAGIC = re.compile(r"^(\s*)(?:[%!]|\w[\w.]*\s*=\s*[%!])")
_HELP_LINE = re.compile(r"^(\s*)[\w.]+\?\??\s*$")


def _source_text(value) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    if isinstance(value, str):
        return value
    return ""


def _python_lines(text: str) -> list[str] | None:
    """A code cell's lines with magics made harmless; None when not Python."""
    lines = text.split("\n")
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%"):
        if not first.startswith(_PYTHON_CELL_MAGICS):
            return None
    out = []
    for line in lines:
        m = _LINE_MAGIC.match(line) or _HELP_LINE.match(line)
        if m:
            line = m.group(1) + "pass"
        out.append(line)
    return out


def _json_error(exc: json.JSONDecodeError) -> SourceError:
    return SourceError(f"not a valid notebook: invalid JSON: {exc.msg}", exc.lineno, exc.colno)


def _raw_rows(raw: str, key_positions: list[int], cell_lines: list[int]) -> list[list[int]]:
    """For each cell, the file row of each of its lines (best effort)."""
    rows = []
    for pos, count in zip(key_positions, cell_lines):
        if pos < 0:
            rows.append([])
            continue
        row = raw.count("\n", 0, pos) + 1
        bracket = raw.find("[", pos)
        newline = raw.find("\n", pos)
        if bracket != -1 and newline != -1 and bracket < newline and not raw[bracket + 1 : newline].strip():
            rows.append([row + 1 + i for i in range(count)])  # one JSON string per line
        else:
            rows.append([row] * count)
    return rows


def load_ipynb(path: str, data: bytes) -> Document:
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"not a valid notebook: not UTF-8 (byte at offset {exc.start})") from None
    if not raw.strip():
        raise SourceError("not a valid notebook: the file is empty")
    try:
        nb = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _json_error(exc) from None
    if not isinstance(nb, dict):
        raise SourceError("not a valid notebook: the top level is not a JSON object")
    major = nb.get("nbformat")
    if major == 4 or (major is None and "cells" in nb):
        raw_cells = nb.get("cells")
        text_key = {"code": "source"}
    elif major == 3:
        raw_cells = [c for ws in nb.get("worksheets") or [] for c in (ws.get("cells") or [])]
        text_key = {"code": "input"}
    else:
        raise SourceError(f"not a valid notebook: unsupported nbformat {major!r}")
    if not isinstance(raw_cells, list) or not all(isinstance(c, dict) for c in raw_cells):
        raise SourceError("not a valid notebook: 'cells' is not a list of objects")

    meta = nb.get("metadata") or {}
    language = (
        (meta.get("kernelspec") or {}).get("language")
        or (meta.get("language_info") or {}).get("name")
        or "python"
    )
    is_python = str(language).lower() in ("python", "python3", "pyspark", "ipython")

    doc = Document(path, "ipynb", raw, notebook=nb)
    key_positions, counts = [], []
    search_from = 0
    for number, c in enumerate(raw_cells, start=1):
        kind = str(c.get("cell_type", "code"))
        key = text_key.get(kind, "source")
        text = _source_text(c.get(key))
        doc.cells.append(Cell(number, kind, text))
        pos = raw.find(f'"{key}"', search_from)
        key_positions.append(pos)
        if pos >= 0:
            search_from = pos + 1
        counts.append(text.count("\n") + 1)
    for cell, rows in zip(doc.cells, _raw_rows(raw, key_positions, counts)):
        cell.raw_rows = rows

    py_lines: list[str] = []
    py_map: list = []
    for cell in doc.cells:
        if cell.kind != "code":
            continue
        first = cell.text.lstrip().split("\n", 1)[0].strip()
        if first.split(" ")[0] in _SQL_MAGICS:
            _add_sql_cell(doc, cell)
            continue
        if not is_python:
            continue
        lines = _python_lines(cell.text)
        if lines is None:
            continue
        for i, line in enumerate(lines):
            py_lines.append(line)
            py_map.append((cell.number, i, 0))
    if py_lines:
        doc.units.append(Unit(PYTHON, "\n".join(py_lines) + "\n", doc, py_map + [py_map[-1]]))
    return doc


def _add_sql_cell(doc: Document, cell: Cell) -> None:
    lines = cell.text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip())
    body = lines[start + 1 :]
    if not "\n".join(body).strip():
        return
    line_map = [(cell.number, start + 1 + i, 0) for i in range(len(body))]
    doc.units.append(Unit(SQL, "\n".join(body), doc, line_map))


def load_databricks(path: str, text: str, encoding: str, bom: bool) -> Document:
    doc = Document(path, "databricks", text, encoding=encoding, bom=bom)
    doc.units.append(Unit(PYTHON, text, doc))
    lines = text.split("\n")
    cell_start = 1  # skip the header line
    number = 0
    for i in range(1, len(lines) + 1):
        if i == len(lines) or _COMMAND.match(lines[i].rstrip("\r")):
            number += 1
            _databricks_cell(doc, lines, cell_start, i, number)
            cell_start = i + 1
    return doc


def _databricks_cell(doc: Document, lines: list[str], start: int, end: int, number: int) -> None:
    body = [(row, lines[row].rstrip("\r")) for row in range(start, end)]
    magic = [(row, line) for row, line in body if line.strip()]
    if not magic or not _MAGIC.match(magic[0][1]):
        return
    first_row, first = magic[0]
    m = _MAGIC.match(first)
    if first[m.end():].strip().split(" ")[0] not in _SQL_MAGICS:
        return
    sql_lines, line_map = [], []
    for row, line in body:
        if row <= first_row:
            continue
        m = _MAGIC.match(line)
        if m:
            sql_lines.append(line[m.end():])
            line_map.append((None, row, m.end()))
        elif not line.strip():
            sql_lines.append("")
            line_map.append((None, row, 0))
        else:
            break
    if "".join(sql_lines).strip():
        doc.units.append(Unit(SQL, "\n".join(sql_lines), doc, line_map))
