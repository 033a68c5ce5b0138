"""Tables a notebook's neighbours write from rows the driver held: a notebook series that passes small data on.

A series of notebooks in one folder (Fabric's and Databricks' tutorials: `1-ingest`, `2-explore`,
`3-train`) hands its data on through tables: `2-explore` turns a cleaned pandas frame back into Spark,
`spark.createDataFrame(df_clean).write.mode("overwrite").save("Tables/df_clean")`, and `3-train` reads
`Tables/df_clean` and calls `toPandas()`. In one file the model already knows that a table it wrote from a
frame proven small reads back as small (Scopes._write); here the same holds for a notebook (`.ipynb`, a
Databricks or Fabric source notebook) and the files of its folder, so `3-train`'s `toPandas()` is not a
driver overflow: the rows were on a driver a notebook ago. A Python module is not a notebook of a series
and takes nothing from its folder (a package's folder changes too often to re-check every file on each edit).

Which files: those of the notebook's own folder (not below, not above) read as Python (`.py`, `.ipynb`; for
a Fabric workspace in git, where each notebook is a folder `NAME.Notebook/notebook-content.py`, the other
`*.Notebook` folders' contents), the notebook itself included, that could write a table (their text names
`.write`, `sql`, `save`, `insertInto`, `merge`, `toTable` or sempy's `to_lakehouse_table`); each is parsed
once per content and walked by the model alone, no rule. What such a file holds in the table at its end is
what the table holds when the notebook runs (the notebook's own later write counts: a rerun reads what the
last run left). Every file that writes the table must have written it, each time, from a frame proven
small; any doubt vouches for nothing:
- an append, a write in a loop, under a condition or in a function, a frame not proven small;
- the same table under another spelling written so (`saveAsTable("sales_clean")` against a read of
  `lake.sales_clean`, a path ending in `Tables/sales_clean`, backquoted names);
- a write the model does not read (`writeTo(...)`, `writeStream.toTable(...)`, a `DeltaTable` merge) in a
  file naming the table;
- a write or SQL whose target the file cannot spell (a widget, a constant of another module), or SQL that
  may write (`INSERT`, `CREATE ... AS`, `MERGE`), anywhere in any of the files;
- a cell that does not parse and names the table; a file over 2 MB, or a `.sql`, `.scala` or `.r` notebook,
  naming it; a folder of more than 200 files.
Reads of other files' tables inside a neighbour are not followed (one step only).

Cache: the neighbours' bytes and the sizes of the sample files they read (linter/datafiles.py) are part of
the notebook's cache key (``fingerprint``): editing `2-explore`, or the CSV it reads, re-checks `3-train`.
Each folder is listed, and each file read and hashed, once per run; a file's tables are kept by its digest.
"""

from __future__ import annotations

import functools
import hashlib
import os

_SUFFIXES = (".py", ".ipynb")
_OTHER_SUFFIXES = (".sql", ".scala", ".r")  # notebooks of a series in another language: not read, they may write
# writes the model does not record (`writeTo(t).append()`, `writeStream.toTable(t)`, Delta's `merge`): a file
# naming the table and one of these vouches for nothing
_UNREAD_WRITES = (b"writeto", b"totable", b"deltatable")  # (a Delta merge starts from a DeltaTable: pandas has `.merge(`)
_LARGEST = 2_000_000  # bytes: a neighbour larger than this is not read (generated code, a notebook of outputs)
_MOST = 200  # files in a folder: a folder larger than this is a package, not a notebook series
_WRITES = (b".write", b"sql", b"save", b"insertInto", b"to_lakehouse_table", b"merge", b"toTable")
_TAINTED = "\0tainted"
_UNREAD = "\0unread"  # the texts of a neighbour's cells that do not parse
_FABRIC_CONTENT = "notebook-content.py"
_HEADERS = (b"# Databricks notebook source", b"# Fabric notebook source")
UNBOUNDED = "unbounded"  # (linter.semantic.values: not imported here, the cache key needs no libcst)
BOUNDED = "bounded"
_KEPT = 2048  # files' tables kept by digest and sample sizes, across runs (never stale)
_tables: dict = {}
_asked: dict = {}  # (notebook, table) -> what the other files of its folder leave the table with, in this run
_samples: dict = {}  # digest -> the key of its tables in this run (digest and its sample files' sizes)


def forget() -> None:
    """List the folders afresh (a run starts: files may have changed since the last one in this process)."""
    _files.cache_clear()
    _folder_fingerprint.cache_clear()
    _samples.clear()
    _asked.clear()


def is_notebook(path: str, data: bytes) -> bool:
    """A notebook, by name or first line: the files that take tables from their folder."""
    return path.lower().endswith(".ipynb") or data.lstrip(b"\xef\xbb\xbf").startswith(_HEADERS)


@functools.lru_cache(maxsize=32)
def _files(folder: str, fabric: bool):
    """((path, bytes or None, the bytes in lower case, digest), ...) of the folder's files that could write a
    table (bytes None: too large to read), or None for a folder too large to be a notebook series. ``fabric``: the
    `notebook-content.py` of each of its `*.Notebook` folders (a Fabric workspace as git holds it)."""
    try:
        with os.scandir(folder) as entries:
            if fabric:
                paths = [os.path.join(e.path, _FABRIC_CONTENT) for e in entries if e.name.endswith(".Notebook")]
            else:
                paths = [e.path for e in entries if e.name.lower().endswith(_SUFFIXES + _OTHER_SUFFIXES)
                         and not e.name.startswith(".")]
    except OSError:
        return ()
    if len(paths) > _MOST:
        return None
    found = []
    for path in sorted(paths):
        try:
            st = os.stat(path)
            if not os.path.isfile(path):
                continue
            if st.st_size > _LARGEST:
                found.append((path, None, None, f"{st.st_size}:{st.st_mtime_ns}"))
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if path.lower().endswith(_OTHER_SUFFIXES):
            found.append((path, None, data.lower(), "other:" + hashlib.blake2b(data, digest_size=16).hexdigest()))
        elif any(token in data for token in _WRITES):
            found.append((path, data, data.lower(), hashlib.blake2b(data, digest_size=16).hexdigest()))
    return tuple(found)


def _folder(path: str) -> tuple:
    """(the folder whose files are the neighbours, whether it is a Fabric workspace's) of a file."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path) == _FABRIC_CONTENT and folder.endswith(".Notebook"):
        return os.path.dirname(folder), True
    return folder, False


def fingerprint(path: str, data: bytes) -> str:
    """The files that may vouch for a notebook's tables, by name and content, and the sample files they read:
    part of the cache key ("" for a file that is not a notebook)."""
    if not is_notebook(path, data):
        return ""
    return _folder_fingerprint(*_folder(path))  # (the notebook's own line too: its content is in the key anyway)


@functools.lru_cache(maxsize=32)
def _folder_fingerprint(folder: str, fabric: bool) -> str:
    files = _files(folder, fabric)
    if files is None:
        return "too many files"
    from linter import datafiles

    lines = []
    for path, data, _, digest in files:
        lines.append(f"{path}={digest}")
        if data is not None:  # (relative paths below: a cache restored in another checkout holds)
            lines.append(datafiles.fingerprint(path, data.decode("utf-8", "replace")))
    return "\n".join(line.replace(folder, ".") for line in lines)


def written_spellings(key: str) -> tuple:
    """The records a read of ``key`` (as Scopes._written_key spells it) matches: the key, a Fabric lakehouse's
    `Tables/key`, and for `lakehouse.key` or `database.key`, `Tables/key` (the default lakehouse's table)."""
    if "/" in key or ":" in key:
        return (key,)
    if "." in key:
        return key, "Tables/" + key, "Tables/" + key.rsplit(".", 1)[1]
    return key, "Tables/" + key


def neighbour_bound(path: str, text: str, spellings: tuple):
    """The bound the notebook at ``path`` (holding ``text``) and its neighbours leave the table spelled
    ``spellings`` with (see ``written_spellings``), or None when none writes it, one wrote it from a frame not
    proven small, or one cannot vouch for what it wrote."""
    here = os.path.abspath(path)
    asked = (here, spellings)
    bounds = _asked.get(asked)
    if bounds is None:
        bounds = _asked[asked] = _others_bounds(here, spellings)  # (the model asks of a read many times)
    if not bounds:
        return None
    tail = _tail(spellings)
    own = text.encode("utf-8", "surrogatepass")
    mine = _bound_in(here, own, own.lower(), hashlib.blake2b(own, digest_size=16).hexdigest(), tail, spellings)
    if mine is False:
        return None  # its own later write leaves more rows for the next run to read
    if mine is not None:
        bounds = (*bounds, mine)
    return BOUNDED if any(b == BOUNDED for b in bounds) else max(bounds)


def _others_bounds(here: str, spellings: tuple) -> tuple:
    """The bounds the other files of the folder leave the table with; () when none vouches or one cannot."""
    folder, fabric = _folder(here)
    files = _files(folder, fabric)
    tail = _tail(spellings)
    if not files or not tail:
        return ()  # (no folder to read, or too large a one: nothing vouches)
    bounds = []
    for neighbour, data, lowered, digest in files:
        if neighbour == here:
            continue  # (its text on disk may be older than the one checked: read last, from the text checked)
        if data is None:
            if lowered is None or tail in lowered:
                return ()  # too large to read, or in another language, and naming the table: it may write it
            continue
        bound = _bound_in(neighbour, data, lowered, digest, tail, spellings)
        if bound is False:
            return ()
        if bound is not None:
            bounds.append(bound)
    return tuple(bounds)


def _tail(spellings: tuple) -> bytes:
    return _last(spellings[-1])


def _bound_in(path: str, data: bytes, lowered: bytes, digest: str, tail: bytes, spellings: tuple):
    """The bound one file leaves the table with; None when it does not write it; False when it cannot vouch
    (it writes a table whose name it cannot spell, or this one in a way not read, or from big data under
    another spelling)."""
    named = tail in lowered
    if named and any(token in lowered for token in _UNREAD_WRITES):
        return False
    key = _samples.get(digest)
    if key is None:
        from linter import datafiles

        # (the sample files it reads decide what it writes from them: their sizes, as this run sees them, are
        # part of the key)
        key = _samples[digest] = digest + "\0" + datafiles.fingerprint(path, data.decode("utf-8", "replace"))
    written = _tables.get(key)
    if written is None:
        if len(_tables) >= _KEPT:
            _tables.clear()
        written = _tables[key] = _written(path, data)
    if written is False:
        return False  # it writes or runs something it cannot name: it may have written this table too
    if not named:
        return None
    if any(tail in t for t in written[_UNREAD]):
        return False
    # any spelling whose last part is the table's (`sales_clean`, `lake.sales_clean`, a path ending in
    # `Tables/sales_clean`) written from a frame not proven small, or in a function, taints it
    if any(_last(key) == tail for key in written[_TAINTED] if key is not None) or any(
            _last(key) == tail and bound == UNBOUNDED for key, bound in written.items() if key[0] != "\0"):
        return False
    return next((written[s] for s in spellings if s in written), None)


def _last(key: str) -> bytes:
    """A table or path's last part, as a read's tail is spelled: `Tables/x`, `db.x`, `` `db`.`x` `` all `x`."""
    key = key.replace("`", "").rstrip("/")
    return (key.rsplit("/", 1)[-1] if "/" in key else key.rsplit(".", 1)[-1]).lower().encode()


def _written(path: str, data: bytes):
    """What one file leaves in each table it writes, as Scopes.written_small at the end of its walk, or False
    when it cannot be read or vouches for nothing."""
    from linter.budget import _possible
    from linter.semantic import Semantic
    from linter.semantic.bounds import may_write
    from linter.sources import PYTHON, SQL, SourceError, load_document
    from linter.sources.python import parse, walk

    try:
        document = load_document(path, data)
    except SourceError:
        return False
    result: dict = {_TAINTED: set(), _UNREAD: []}
    for unit in document.units:
        if unit.error is not None:
            result[_UNREAD].append(unit.text.lower().encode())  # a cell it cannot read may write what it names
            continue
        if unit.kind != PYTHON:
            if unit.kind == SQL and may_write(unit.text):
                return False  # a `%%sql` cell that inserts, creates or merges
            continue
        if _possible(unit.text) is not None:
            return False  # a chain that could take libcst long: not worth a neighbour's table
        try:
            module = parse(unit.text)
            semantic = Semantic(text=unit.text, bundled_source=(path, document.text))
            semantic.scan_writes = True
            visit, leave = semantic.hooks()
            walk(module, {k: [v] for k, v in visit.items()}, {k: [v] for k, v in leave.items()}, [])
        except (SourceError, RecursionError):
            return False  # part of it is not read: it may write anything there
        tainted = semantic.written_small[_TAINTED]
        if None in tainted:
            return False
        result[_TAINTED] |= tainted
        for key, bound in semantic.written_small.items():
            if key != _TAINTED:
                result[key] = bound
    return result
