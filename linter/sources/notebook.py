"""Notebooks: Jupyter ``.ipynb`` (nbformat 3 and 4) and Databricks source files.

Jupyter: the code cells are joined into one Python text (a variable defined in
cell 2 is known in cell 5), IPython magics are blanked out, ``%%sql`` / ``%sql``
cells become SQL units.  Findings are reported with the cell number (1-based
among all cells of all worksheets, markdown included, as Jupyter shows them)
and the row inside the cell.  A cell says its own language where the notebook
format allows it (nbformat 3's ``language``, Synapse/Fabric's
``metadata.microsoft.language``, VS Code's ``metadata.vscode.languageId``);
otherwise the notebook's language applies.

Databricks source notebooks are files that git and GitHub show as files, so
findings keep the file's own rows (no cell number): annotations then land on
the right line of the pull request.

- ``.py`` (``# Databricks notebook source``): the file is the Python text;
  ``# MAGIC %sql`` cells become SQL units whose positions point into the
  ``# MAGIC`` lines.
- ``.sql`` (``-- Databricks notebook source``): each cell is SQL of its own
  (a cell ends its last statement, with or without ``;``), one SQL unit per
  cell; ``-- MAGIC %sql`` cells likewise; ``-- MAGIC %python`` cells are
  joined into one Python unit placed on the ``-- MAGIC`` lines; ``%md`` and
  other languages are skipped.

Python that does not parse as a whole is read cell by cell, as Jupyter and
Databricks run it: each cell that does not parse alone becomes a unit carrying
its error (one SPK001 at that cell), the cells that parse are joined and
checked as usual.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import warnings
from typing import Optional

from linter.sources import PYTHON, SQL, Cell, Document, SourceError, Unit
from linter.sources.tree import Scalar, Seq, TreeError, read_json_value

DATABRICKS_HEADER = "# Databricks notebook source"
DATABRICKS_SQL_HEADER = "-- Databricks notebook source"
FABRIC_HEADER = "# Fabric notebook source"
_COMMAND = re.compile(r"^# COMMAND -+\s*$")
# Microsoft Fabric's git format: each cell opens with one of these lines and its `# META` JSON follows it.
_FABRIC_CELL = re.compile(r"^# (?:PARAMETERS CELL|CELL|MARKDOWN|METADATA) \*{4,}\s*$")
_SQL_COMMAND = re.compile(r"^-- COMMAND -+\s*$")
_MAGIC = re.compile(r"^# MAGIC ?")
_SQL_MAGIC = re.compile(r"^-- MAGIC ?")
_SQL_MAGICS = ("%%sql", "%%sparksql", "%sql")
# Cell magics whose body is still Python.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun", "%%python", "%%spark", "%%pyspark")
# Databricks (and Synapse) language magics: alone on a cell's first line, they make the whole cell that
# language (IPython has no such line magics).
_OTHER_LANGUAGE_MAGICS = frozenset(("%sh", "%md", "%md-sandbox", "%scala", "%r", "%fs"))
_LINE_MAGIC = re.compile(r"^(\s*)(?:[%!]|\w[\w.]*\s*=\s*[%!])")
_HELP_LINE = re.compile(r"^(\s*)(?:[\w.]+\?\??|\?\??[\w.]+)\s*$")
# IPython's automagic: line magics written without their `%`; never valid Python.
_AUTOMAGIC = re.compile(
    r"^(\s*)(?:(?:pip|conda)\s+(?:install|uninstall|list|show|freeze|download|config|update|create|remove)\b"
    r"|matplotlib\s+(?:inline|notebook|widget|ipympl|qt\w*|tk)\s*$|(?:re|un)?load_ext\s+[\w.]+\s*$)"
)
_PYTHON_LANGUAGES = ("python", "pyspark", "ipython")
_SPARK_SQL_LANGUAGES = ("sparksql", "spark_sql", "spark-sql")  # Synapse and Fabric cells; their "sql" is T-SQL
_SPARK_SQL = "spark-sql"


def _source_text(value) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    if isinstance(value, str):
        return value
    return ""


def _first_word(text: str) -> str:
    """The first word of the first line that is not blank."""
    for line in text.split("\n"):
        if line.strip():
            return line.split(None, 1)[0]
    return ""


def _python_lines(text: str) -> list[str] | None:
    """A code cell's lines with magics made harmless; None when not Python.

    A magic or shell line continued with a trailing backslash takes its
    continuation lines with it, as IPython reads them.
    """
    lines = text.split("\n")
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%"):
        if not first.startswith(_PYTHON_CELL_MAGICS):
            return None
    if first and first.split(None, 1)[0] in _OTHER_LANGUAGE_MAGICS:
        return None
    out = []
    continued = False
    for line in lines:
        if continued:
            continued = line.rstrip().endswith("\\")
            out.append("")
            continue
        m = _LINE_MAGIC.match(line) or _HELP_LINE.match(line) or _AUTOMAGIC.match(line)
        if m:
            continued = line.rstrip().endswith("\\")
            line = m.group(1) + "pass"
        out.append(line)
    return out


def _language(value) -> Optional[str]:
    """"python", ``_SPARK_SQL``, another language's name, or None when not said."""
    if not isinstance(value, str) or not value.strip():
        return None
    name = value.strip().lower()
    if any(p in name for p in _PYTHON_LANGUAGES):
        return "python"  # also Glue's "Python_Glue_Session", "python3"
    if name in _SPARK_SQL_LANGUAGES:
        return _SPARK_SQL
    return name


def _get(d, *keys):
    for key in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def _notebook_language(meta) -> str:
    """The language of cells that do not say theirs.

    Synapse and Fabric keep the PySpark kernel for every notebook and say the
    notebook's own language (R, Scala, SQL) in ``language_info``; elsewhere the
    two agree.
    """
    info = _language(_get(meta, "language_info", "name"))
    spec = _language(_get(meta, "kernelspec", "language"))
    if info is not None and info != "python":
        return info
    return info or spec or "python"


def _cell_language(c: dict) -> Optional[str]:
    """The language a code cell says it is in, if it says."""
    return (
        _language(c.get("language"))  # nbformat 3
        or _language(_get(c, "metadata", "microsoft", "language"))  # Synapse, Fabric
        or _language(_get(c, "metadata", "vscode", "languageId"))  # VS Code
    )


def _json_error(exc: json.JSONDecodeError) -> SourceError:
    return SourceError(f"not a valid notebook: invalid JSON: {exc.msg}", exc.lineno, exc.colno)


def _raw_rows(raw: str, key_positions: list[int], cell_lines: list[int]) -> list[list[int]]:
    """For each cell, the file row of each of its lines (best effort)."""
    rows = []
    counted, newlines = 0, 0  # the newlines before `counted`: the keys come in order, each counted from the last
    for pos, count in zip(key_positions, cell_lines):
        if pos < 0:
            rows.append([])
            continue
        if pos < counted:
            counted, newlines = 0, 0
        newlines += raw.count("\n", counted, pos)
        counted = pos
        row = newlines + 1
        bracket = raw.find("[", pos)
        newline = raw.find("\n", pos)
        if bracket != -1 and newline != -1 and bracket < newline and not raw[bracket + 1 : newline].strip():
            rows.append([row + 1 + i for i in range(count)])  # one JSON string per line
        else:
            rows.append([row] * count)
    return rows


def _raw_columns(raw: str, key_pos: int, text: str) -> list:
    """For each line of a cell's text, the 0-based column in the raw file's line of each of its characters and
    of the place after its last one (``"source": ["line\\n", ...]`` or one string); None for a line whose
    characters are not all on one raw line (a line split over two strings of the list), and for every line
    when the strings do not read back as the cell's text (a source the loader joined differently)."""
    lines = text.split("\n")
    unknown = [None] * len(lines)
    if key_pos < 0:
        return unknown
    try:
        node = read_json_value(raw, raw.find(":", key_pos) + 1)
    except TreeError:
        return unknown
    pieces = node.items if isinstance(node, Seq) else [node]
    if not all(isinstance(p, Scalar) and p.quoted for p in pieces) or "".join(p.value for p in pieces) != text:
        return unknown
    per_line, current = [], []
    for piece in pieces:
        for i, char in enumerate(piece.value):
            current.append(piece.at(i))  # a line's newline: the place after its last character
            if char == "\n":
                per_line.append(current)
                current = []
    if pieces:
        current.append(pieces[-1].end)  # the last line ends at the last string's closing quote
    per_line.append(current)
    columns = []
    for offsets in per_line[:len(lines)]:
        if not offsets or raw.find("\n", offsets[0], offsets[-1]) != -1:
            columns.append(None)
        else:
            start = raw.rfind("\n", 0, offsets[0]) + 1
            columns.append([o - start for o in offsets])
    return columns + [None] * (len(lines) - len(columns))


def raw_column(doc: Document, cell: Cell, row: int, column: int) -> Optional[int]:
    """The 1-based column, in the raw file's line, of character ``column`` (0-based) of line ``row`` of a cell
    (its JSON string's escapes counted as written); None where the place is not known. The table is made on
    the cell's first finding, not when the notebook loads, and then read for each position."""
    if cell.raw_columns is None:
        cell.raw_columns = _raw_columns(doc.text, cell.raw_key, cell.text)
    columns = cell.raw_columns[row] if row < len(cell.raw_columns) else None
    if columns is None or column >= len(columns):
        return None
    return columns[column] + 1


def _notebook_cells(nb: dict) -> tuple[list, dict]:
    """The raw cells of all worksheets, in order, and the key holding each cell type's text."""
    major = nb.get("nbformat")
    if major == 4 or (major is None and "cells" in nb):
        raw_cells = nb.get("cells")
        text_key = {"code": "source"}
    elif major == 3:
        worksheets = nb.get("worksheets")
        if worksheets is None:
            worksheets = []
        if not isinstance(worksheets, list) or not all(isinstance(ws, dict) for ws in worksheets):
            raise SourceError("not a valid notebook: 'worksheets' is not a list of objects")
        raw_cells = []
        for ws in worksheets:
            cells = ws.get("cells")
            if cells is None:
                continue
            if not isinstance(cells, list):
                raise SourceError("not a valid notebook: a worksheet's 'cells' is not a list")
            raw_cells.extend(cells)
        text_key = {"code": "input"}
    else:
        raise SourceError(f"not a valid notebook: unsupported nbformat {major!r}")
    if not isinstance(raw_cells, list) or not all(isinstance(c, dict) for c in raw_cells):
        raise SourceError("not a valid notebook: 'cells' is not a list of objects")
    return raw_cells, text_key


def _cell_key_positions(raw: str, keys: set) -> list:
    """The offset of each cell's text key (`"source"`, nbformat 3's `"input"`), in order: the objects with a
    `cell_type` and one of ``keys``, read with their offsets (only when a plain search would be misled)."""
    try:
        root = read_json_value(raw, 0)
    except TreeError:
        return []
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Seq):
            stack.extend(reversed(node.items))
        elif not isinstance(node, Scalar):
            names = {k: (start, value) for k, start, value in node.items}
            if "cell_type" in names:
                key = next((k for k in names if k in keys), None)
                found.append(-1 if key is None else names[key][0] - 1)  # (the key's opening quote)
                continue
            stack.extend(reversed([value for _, _, value in node.items]))
    return found


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
    except RecursionError:
        raise SourceError("not a valid notebook: JSON nested too deep") from None
    if not isinstance(nb, dict):
        raise SourceError("not a valid notebook: the top level is not a JSON object")
    raw_cells, text_key = _notebook_cells(nb)
    default_language = _notebook_language(nb.get("metadata"))

    doc = Document(path, "ipynb", raw, notebook=nb, bom=data.startswith(b"\xef\xbb\xbf"))
    key_positions, counts = [], []
    search_from = 0
    keys = [text_key.get(str(c.get("cell_type", "code")), "source") for c in raw_cells]
    exact = None
    key_patterns = {k: re.compile(rf'"{k}"\s*:') for k in set(keys)}  # a key, not a value saying "source"
    if sum(len(p.findall(raw)) for p in key_patterns.values()) != len(keys):
        exact = _cell_key_positions(raw, set(keys))  # a `"source"` key in some metadata too: read where each is
    for number, (c, key) in enumerate(zip(raw_cells, keys), start=1):
        kind = str(c.get("cell_type", "code"))
        text = _source_text(c.get(key))
        doc.cells.append(Cell(number, kind, text))
        if exact is not None:
            pos = exact[number - 1] if number - 1 < len(exact) else -1
        else:
            found = key_patterns[key].search(raw, search_from)
            pos = found.start() if found is not None else -1
        key_positions.append(pos)
        doc.cells[-1].raw_key = pos
        if pos >= 0:
            search_from = pos + 1
        counts.append(text.count("\n") + 1)
    for cell, rows in zip(doc.cells, _raw_rows(raw, key_positions, counts)):
        cell.raw_rows = rows

    pieces = []  # (lines, line_map) of each Python cell
    for cell, c in zip(doc.cells, raw_cells):
        if cell.kind != "code":
            continue
        if _first_word(cell.text) in _SQL_MAGICS:
            _add_sql_cell(doc, cell, magic=True)
            continue
        language = _cell_language(c) or default_language
        if language == _SPARK_SQL:
            _add_sql_cell(doc, cell, magic=False)
            continue
        if language != "python":
            continue
        lines = _python_lines(cell.text)
        if lines is None:
            continue
        pieces.append((lines, [(cell.number, i, 0) for i in range(len(lines))]))
    _add_python(doc, pieces)
    return doc


def _add_sql_cell(doc: Document, cell: Cell, magic: bool) -> None:
    """A SQL cell as a SQL unit: after its magic line, or all of it.

    AWS Glue interactive sessions continue ``%%sql`` lines with a trailing
    backslash, which is not SQL: it becomes a space, so every other character
    keeps its column.
    """
    lines = cell.text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    first = start + 1 if magic else 0
    body = [_without_continuation(line) for line in lines[first:]]
    if not "\n".join(body).strip():
        return
    line_map = [(cell.number, first + i, 0) for i in range(len(body))]
    doc.units.append(Unit(SQL, "\n".join(body), doc, line_map))


def _without_continuation(line: str) -> str:
    body = line.rstrip()
    if body.endswith("\\"):
        return body[:-1] + " " + line[len(body):]
    return line


# A notebook is read again when it is checked after a notebook of its folder has read it as a neighbour
# (linter/semantic/neighbours.py): 382 of the 940 tests of the shared corpus are of a text tested before.
# Kept by the text's digest, not the text (a language server sees a new text at every edit of a notebook).
_PARSED: dict = {}


def is_cell_marker(line: str) -> bool:
    """Whether a comment line starts a source notebook's cell: Databricks' `# COMMAND ----------`, Fabric's
    `# CELL ****...` (and its MARKDOWN, METADATA and PARAMETERS CELL lines)."""
    return _COMMAND.match(line) is not None or _FABRIC_CELL.match(line) is not None


def _parses(text: str) -> bool:
    """Whether CPython reads the text, remembered by digest for up to 1,024 texts (then forgotten at once)."""
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    known = _PARSED.get(key)
    if known is None:
        if len(_PARSED) >= 1024:
            _PARSED.clear()
        known = _PARSED[key] = _cpython_reads(text)
    return known


def _cpython_reads(text: str) -> bool:
    """Whether CPython reads the text (a quick test: about ten times faster than libcst)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for "\d" and the like: not ours to print
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return False
    return True


def _cell_error(text: str) -> Optional[SourceError]:
    """Why a cell does not parse alone (message and place from ``python.parse``), or None."""
    if _parses(text):
        return None
    from linter.sources.python import parse

    try:
        parse(text)  # libcst may read syntax newer than the running CPython
    except SourceError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - whatever libcst makes of odd input, it is a parse error
        return SourceError(f"cannot parse Python: {type(exc).__name__}")
    return None


def _add_python(doc: Document, pieces: list) -> None:
    """One Python unit of the cells ``pieces`` ((lines, line_map) each), and one per cell that does not parse."""
    lines = [line for piece, _ in pieces for line in piece]
    if not lines:
        return
    text = "\n".join(lines) + "\n"
    errors: list = []
    if not _parses(text):
        good = []
        for piece, line_map in pieces:
            error = _cell_error("\n".join(piece) + "\n")
            if error is None:
                good.append((piece, line_map))
            else:
                errors.append((piece, line_map, error))
        if errors:
            pieces = good
            lines = [line for piece, _ in pieces for line in piece]
            text = "\n".join(lines) + "\n"
    if lines:
        line_map = [entry for _, piece_map in pieces for entry in piece_map]
        doc.units.append(Unit(PYTHON, text, doc, line_map + [line_map[-1]]))
    for piece, line_map, error in errors:
        doc.units.append(Unit(PYTHON, "\n".join(piece) + "\n", doc, line_map + [line_map[-1]], error=error))


def _cell_ranges(lines: list[str], command) -> list[tuple[int, int]]:
    """(first row, row after the last) of each cell of a Databricks source file, the header line excluded."""
    ranges = []
    first = lines[0].lstrip("\ufeff").rstrip("\r") if lines else ""
    start = 1 if first in (DATABRICKS_HEADER, DATABRICKS_SQL_HEADER, FABRIC_HEADER) else 0  # an export without its header
    for i in range(start, len(lines) + 1):
        if i == len(lines) or command.match(lines[i].rstrip("\r")):
            ranges.append((start, i))
            start = i + 1
    return ranges


def load_databricks(path: str, text: str, encoding: str, bom: bool, fabric: bool = False) -> Document:
    """A Databricks source notebook, or (``fabric``) a Microsoft Fabric one: the same shape with other cell lines.

    Fabric's git format (``# Fabric notebook source``) opens each cell with ``# CELL ****...`` (or
    ``# MARKDOWN``, ``# METADATA``, ``# PARAMETERS CELL``) and writes a Spark SQL cell on ``# MAGIC %%sql``
    lines, as Databricks does; its ``# META`` lines are comments to Python.
    """
    doc = Document(path, "fabric" if fabric else "databricks", text, encoding=encoding, bom=bom)
    original = lines = text.split("\n")
    ranges = _cell_ranges(lines, _FABRIC_CELL if fabric else _COMMAND)
    if fabric:
        # Fabric writes a cell's magics as they are typed (`%pip install imblearn`), not behind `# MAGIC`: made
        # harmless as in a Jupyter cell, row for row, so the file's rows and a fix's places stay the same
        lines = list(lines)
        for start, end in ranges:
            cell = _python_lines("\n".join(lines[start:end]))
            if cell is not None and len(cell) == end - start:
                lines[start:end] = cell
        if lines != original:
            text = "\n".join(lines)
        else:
            lines = original
    errors = []
    if not _parses(text):
        for start, end in ranges:
            error = _cell_error("\n".join(lines[start:end]) + "\n")
            if error is not None:
                errors.append((start, end, error))
    if errors:
        # The cells that parse, in place (the others blanked), so rows stay the file's.
        kept = list(lines)
        for start, end, _ in errors:
            kept[start:end] = [""] * (end - start)
        doc.units.append(Unit(PYTHON, "\n".join(kept), doc, [(None, row, 0) for row in range(len(kept))]))
        for start, end, error in errors:
            line_map = [(None, row, 0) for row in range(start, end)]
            doc.units.append(Unit(PYTHON, "\n".join(lines[start:end]) + "\n", doc, line_map + [line_map[-1]],
                                  error=error))
    elif lines is not original:
        doc.units.append(Unit(PYTHON, text, doc, [(None, row, 0) for row in range(len(lines))]))
    else:
        doc.units.append(Unit(PYTHON, text, doc))
    for start, end in ranges:
        _databricks_cell(doc, original, start, end)
    return doc


def _databricks_cell(doc: Document, lines: list[str], start: int, end: int) -> None:
    body = [(row, lines[row].rstrip("\r")) for row in range(start, end)]
    magic = [(row, line) for row, line in body if line.strip()]
    if not magic or not _MAGIC.match(magic[0][1]):
        return
    first_row, first = magic[0]
    m = _MAGIC.match(first)
    if _first_word(first[m.end():]) not in _SQL_MAGICS:
        return
    _add_magic_sql(doc, body, first_row, _MAGIC)


def _add_magic_sql(doc: Document, body: list, first_row: int, prefix) -> None:
    """The SQL of a ``%sql`` cell written on MAGIC lines, placed on them."""
    sql_lines, line_map = [], []
    for row, line in body:
        if row <= first_row:
            continue
        m = prefix.match(line)
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


def is_databricks_export(text: str, comment: str) -> bool:
    """A Databricks notebook exported without its header line: cells still split by ``COMMAND ----------`` lines.

    Books and repositories often keep these (the header was cut when the files
    were collected); read them as the notebooks they are, cell by cell.
    """
    return "COMMAND ---" in text and re.search(rf"(?m)^{re.escape(comment)} COMMAND -{{4,}}[ \t\r]*$", text) is not None


def is_databricks_sql(text: str) -> bool:
    return text.lstrip("\ufeff").startswith(DATABRICKS_SQL_HEADER)


def load_databricks_sql(path: str, text: str, encoding: str, bom: bool) -> Document:
    """A Databricks SQL source notebook: a SQL unit per SQL cell, its ``%python`` cells as one Python unit."""
    doc = Document(path, "databricks", text, encoding=encoding, bom=bom)
    lines = text.split("\n")
    pieces = []
    for start, end in _cell_ranges(lines, _SQL_COMMAND):
        body = [(row, lines[row].rstrip("\r")) for row in range(start, end)]
        first_row = next((row for row, line in body if line.strip()), None)
        if first_row is None:
            continue
        first = lines[first_row].rstrip("\r")
        m = _SQL_MAGIC.match(first)
        if m is None:
            # A SQL cell, from its first line that is not blank: the cell's end ends its last statement.
            body = [(row, line) for row, line in body if row >= first_row]
            doc.units.append(Unit(SQL, "\n".join(line for _, line in body), doc, [(None, row, 0) for row, _ in body]))
            continue
        magic = _first_word(first[m.end():])
        if magic in _SQL_MAGICS:
            _add_magic_sql(doc, body, first_row, _SQL_MAGIC)
        elif magic == "%python":
            piece, line_map = [], []
            for row, line in body:
                if row <= first_row:
                    continue
                m = _SQL_MAGIC.match(line)
                piece.append(line[m.end():] if m else "")
                line_map.append((None, row, m.end() if m else 0))
            if piece:
                pieces.append((piece, line_map))
        # %md, %scala, %r, %sh, %run, %pip ...: not SQL, not Python
    _add_python(doc, pieces)
    return doc
