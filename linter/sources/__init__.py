"""Turn a file into the units checks read, with a map back to the user's file.

A ``Document`` is one input file.  It holds one or more ``Unit``s: the Python
text of a ``.py`` file or of a notebook's code cells joined together, and the
SQL of a ``.sql`` file or of each ``%sql`` cell.  Every unit can place a
character offset of its own text back in the file: row and column in the file,
or cell and row within the cell for Jupyter notebooks.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Optional

from linter.diagnostics import Location

PYTHON = "python"
SQL = "sql"
CONFIG = "config"  # spark-defaults.conf, shell scripts and YAML with spark-submit, Hadoop XML


class SourceError(Exception):
    """The input cannot be read or parsed; becomes an SPK001 finding."""

    def __init__(self, message: str, row: int = 1, column: int = 1, cell: Optional[int] = None):
        super().__init__(message)
        self.message = message
        self.row = row
        self.column = column
        self.cell = cell


@dataclass
class Cell:
    """A notebook cell: its number (1-based among all cells) and its text."""

    number: int
    kind: str  # "code", "markdown", "raw", "sql", ...
    text: str
    raw_rows: list[int] = field(default_factory=list)  # file row of each line, best effort


class Unit:
    """A piece of text that one family of checks reads.

    ``line_map[i]`` says where line ``i`` (0-based) of ``text`` comes from:
    ``(cell_number or None, row_in_file_or_cell (0-based), column_delta)``.
    ``line_map`` is None when the text is the file itself.
    ``error``: a notebook cell that does not parse on its own; reported as SPK001, not checked.
    """

    __slots__ = ("kind", "text", "line_map", "document", "_starts", "error")

    def __init__(self, kind: str, text: str, document: "Document", line_map=None,
                 error: Optional[SourceError] = None):
        self.kind = kind
        self.text = text
        self.line_map = line_map
        self.document = document
        self._starts: Optional[list[int]] = None
        self.error = error

    @property
    def line_starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            text = self.text
            find = text.find
            i = find("\n")
            while i != -1:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._starts = starts
        return self._starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """0-based line and column of an offset in ``text``."""
        starts = self.line_starts
        line = bisect.bisect_right(starts, offset) - 1
        return line, offset - starts[line]

    def offset(self, line: int, col: int) -> int:
        starts = self.line_starts
        line = max(0, min(line, len(starts) - 1))
        return starts[line] + col

    def line_text(self, line: int) -> str:
        starts = self.line_starts
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self.text)
        return self.text[starts[line]:end].rstrip("\r")

    def position(self, offset: int) -> Location:
        line, col = self.line_col(offset)
        if self.line_map is None:
            return Location(line + 1, col + 1)
        cell, row, delta = self.line_map[line]
        file_row = None
        if cell is not None:
            c = self.document.cells[cell - 1]
            if row < len(c.raw_rows):
                file_row = c.raw_rows[row]
        return Location(row + 1, col + delta + 1, cell, file_row)

    def real_line_text(self, line: int) -> str:
        """The text of a line as the user sees it in the file or cell."""
        if self.line_map is None:
            return self.line_text(line)
        cell, row, _ = self.line_map[line]
        return self.document.real_line(cell, row)


NOTEBOOK_KINDS = ("ipynb", "databricks", "fabric")


@dataclass
class Document:
    path: str  # as given by the user, for messages
    kind: str  # "python", "sql", "ipynb", "databricks", "fabric" (see NOTEBOOK_KINDS), "config"
    text: str  # decoded file (for .ipynb: the JSON text)
    units: list[Unit] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)
    encoding: str = "utf-8"
    bom: bool = False
    notebook: Optional[dict] = None  # parsed .ipynb JSON
    _file_lines: Optional[list[str]] = None

    @property
    def is_notebook(self) -> bool:
        """A notebook of any kind: where `show()`, `SELECT *` and literal dates are how one explores data."""
        return self.kind in NOTEBOOK_KINDS

    def real_line(self, cell: Optional[int], row: int) -> str:
        if cell is not None and self.kind == "ipynb":
            lines = self.cells[cell - 1].text.split("\n")
        else:
            if self._file_lines is None:
                self._file_lines = self.text.split("\n")
            lines = self._file_lines
        return lines[row].rstrip("\r") if 0 <= row < len(lines) else ""


def is_test_path(path: str) -> bool:
    """A test module (``test_*.py``, ``*_test.py``, ``conftest.py``, anything under ``tests/``): it runs on small data."""
    path = path.replace("\\", "/")
    name = path.rsplit("/", 1)[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or "/tests/" in f"/{path}" or "/test/" in f"/{path}")


def load_document(path: str, data: bytes) -> Document:
    """Decode and split a file into units; raises SourceError when it cannot."""
    from linter.sources.python import decode

    lower = path.lower()
    if lower.endswith(".ipynb"):
        from linter.sources.notebook import load_ipynb

        return load_ipynb(path, data)
    text, encoding, bom = decode(data)
    from linter.sources.sparkconf import is_config_file

    if is_config_file(path):
        doc = Document(path, "config", text, encoding=encoding, bom=bom)
        doc.units.append(Unit(CONFIG, text, doc))
        return doc
    if lower.endswith(".sql"):
        from linter.sources.notebook import is_databricks_export, is_databricks_sql, load_databricks_sql

        if is_databricks_sql(text) or is_databricks_export(text, "--"):
            return load_databricks_sql(path, text, encoding, bom)
        doc = Document(path, "sql", text, encoding=encoding, bom=bom)
        doc.units.append(Unit(SQL, text, doc))
        return doc
    from linter.sources.notebook import DATABRICKS_HEADER, FABRIC_HEADER, is_databricks_export, load_databricks

    head = text.lstrip("\ufeff")
    if head.startswith(DATABRICKS_HEADER) or is_databricks_export(text, "#"):
        return load_databricks(path, text, encoding, bom)
    if head.startswith(FABRIC_HEADER):
        return load_databricks(path, text, encoding, bom, fabric=True)
    doc = Document(path, "python", text, encoding=encoding, bom=bom)
    doc.units.append(Unit(PYTHON, text, doc))
    return doc
