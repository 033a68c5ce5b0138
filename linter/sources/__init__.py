"""Turn a file into the units checks read, with a map back to the user's file.

A ``Document`` is one input file.  It holds one or more ``Unit``s: the Python
text of a ``.py`` file or of a notebook's code cells joined together, and the
SQL of a ``.sql`` file or of each ``%sql`` cell.  Every unit can place a
character offset of its own text back in the file: row and column in the file,
or cell and row within the cell for Jupyter notebooks.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from linter.diagnostics import Location

PYTHON = "python"
SQL = "sql"
CONFIG = "config"  # spark-defaults.conf, cluster .properties, shell scripts and YAML, Hadoop XML, JSON, Terraform
CONFIG_LANGUAGES = ("spark-defaults", "properties", "shell", "yaml", "hadoop-xml", "json", "terraform")
# Config languages that discovery in directories picks by content as well as by name: most JSON, YAML and
# Terraform files in a repository set nothing of Spark's (linter/sources/sparkconf.py's ``may_hold_settings``).
BY_CONTENT = ("json", "yaml", "terraform")


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
    raw_key: int = -1  # a .ipynb cell: the offset of its `"source"` key in the raw JSON
    # per line, the column in the raw JSON line of each character (None where not known), made when a finding
    # first needs one (linter/sources/notebook.py, raw_column)
    raw_columns: Optional[list] = None


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
        file_row = file_column = None
        if cell is not None:
            c = self.document.cells[cell - 1]
            if row < len(c.raw_rows):
                file_row = c.raw_rows[row]
            if c.raw_key >= 0:
                from linter.sources.notebook import raw_column

                file_column = raw_column(self.document, c, row, col + delta)
        return Location(row + 1, col + delta + 1, cell, file_row, file_column)

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
    language: Optional[str] = None  # what it was read as (one of LANGUAGES), for re-reading it the same way
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


# The languages a file can be read as (`--extension SUFFIX:LANGUAGE`, `extension = {SUFFIX = "LANGUAGE"}`).
# The config formats name the settings file they read; `pyi` is Python, as ruff has it.
LANGUAGES = ("python", "pyi", "ipynb", "sql", "spark-defaults", "properties", "shell", "yaml", "hadoop-xml", "json",
             "terraform")
# What a file is read as by its name alone, for messages (see ``language_of``).
KNOWN_NAMES = (".py", ".pyi", ".ipynb", ".sql", "spark-defaults*.conf", ".properties", ".sh", ".bash", ".yml",
               ".yaml", "capacity-scheduler.xml", "yarn-site.xml", ".json", ".tf", ".tfvars")
_SHEBANG = re.compile(r"#![ \t]*(?:\S*/)?(?:env(?:[ \t]+-\S+)*[ \t]+(?:\S*/)?)?(python|pypy|sh|bash|zsh|ksh|dash)[\d.]*(?:\s|$)")


def suffix_of(path: str) -> str:
    """The last suffix of a file name, lower case, without its dot (`Cluster.TXT` -> `txt`; none -> ``""``)."""
    name = os.path.basename(path)
    return os.path.splitext(name)[1][1:].lower()


def language_of(path: str, extension: Optional[dict] = None, head: Optional[str] = None) -> Optional[str]:
    """What sparkcheck reads a file as: the `extension` mapping of its suffix, else its name, else (a file
    without a suffix) its `#!` line when ``head`` (the start of its text) is known; None: a file it does not read.

    Nothing unknown is read as Python: a suffix sparkcheck does not know is skipped unless mapped.
    """
    suffix = suffix_of(path)
    if extension and suffix in extension:
        return extension[suffix]
    name = os.path.basename(path).lower()
    if suffix in ("py", "pyi", "ipynb", "sql"):
        return {"py": "python"}.get(suffix, suffix)
    if name.startswith("spark-defaults") and suffix == "conf":
        return "spark-defaults"
    if suffix == "properties":
        return "properties"
    if suffix in ("sh", "bash"):
        return "shell"
    if suffix in ("yml", "yaml"):
        return "yaml"
    if name in ("capacity-scheduler.xml", "yarn-site.xml"):
        return "hadoop-xml"
    if suffix == "json":
        return "json"
    if suffix in ("tf", "tfvars"):
        return "terraform"
    if not suffix and head is not None:
        m = _SHEBANG.match(head.lstrip("\ufeff"))
        if m:
            return "python" if m.group(1) in ("python", "pypy") else "shell"
    return None


def load_document(path: str, data: bytes, language: Optional[str] = None) -> Document:
    """Decode and split a file into units; raises SourceError when it cannot.

    ``language`` (one of LANGUAGES) says what to read the file as; by default its name (and for a file
    without a suffix, its `#!` line) decides, and what is still unknown is read as Python, as callers
    that name no language (the API, tests) always had it. The command line skips unknown files before.
    """
    from linter.sources.decoding import decode  # not linter.sources.python: that imports libcst

    if language is None:
        language = language_of(path, head=data[:200].decode("utf-8", "replace") if "." not in
                               os.path.basename(path) else None) or "python"
    if language == "ipynb":
        from linter.sources.notebook import load_ipynb

        doc = load_ipynb(path, data)
        doc.language = language
        return doc
    if language in CONFIG_LANGUAGES:
        try:
            text, encoding, bom = decode(data)
        except SourceError:
            if language != "properties" or b"\x00" in data[:8192]:
                raise
            # Java reads .properties files as ISO 8859-1: a Latin-1 properties file is not a broken one.
            text, encoding, bom = data.decode("latin-1"), "latin-1", False
        doc = Document(path, "config", text, encoding=encoding, bom=bom, language=language)
        doc.units.append(Unit(CONFIG, text, doc))
        return doc
    text, encoding, bom = decode(data)
    if language == "sql":
        from linter.sources.notebook import is_databricks_export, is_databricks_sql, load_databricks_sql

        if is_databricks_sql(text) or is_databricks_export(text, "--"):
            doc = load_databricks_sql(path, text, encoding, bom)
            doc.language = language
            return doc
        doc = Document(path, "sql", text, encoding=encoding, bom=bom, language=language)
        doc.units.append(Unit(SQL, text, doc))
        return doc
    from linter.sources.notebook import DATABRICKS_HEADER, FABRIC_HEADER, is_databricks_export, load_databricks

    head = text.lstrip("\ufeff")
    if head.startswith(DATABRICKS_HEADER) or is_databricks_export(text, "#"):
        doc = load_databricks(path, text, encoding, bom)
    elif head.startswith(FABRIC_HEADER):
        doc = load_databricks(path, text, encoding, bom, fabric=True)
    else:
        doc = Document(path, "python", text, encoding=encoding, bom=bom)
        doc.units.append(Unit(PYTHON, text, doc))
    doc.language = language
    return doc
