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

The tables are read in linter/semantic/neighbours.py; this module lists and hashes the files, without
libcst (the cache key needs it).

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
_LARGEST = 2_000_000  # bytes: a neighbour larger than this is not read (generated code, a notebook of outputs)
_MOST = 200  # files in a folder: a folder larger than this is a package, not a notebook series
_WRITES = (b".write", b"sql", b"save", b"insertInto", b"to_lakehouse_table", b"merge", b"toTable",
           b"urlretrieve", b"wget")  # (and the downloads of a series' sample: `urlretrieve(URL, path)`)
_FABRIC_CONTENT = "notebook-content.py"
_HEADERS = (b"# Databricks notebook source", b"# Fabric notebook source")


def forget() -> None:
    """List the folders afresh (a run starts: files may have changed since the last one in this process)."""
    _files.cache_clear()
    _folder_fingerprint.cache_clear()


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


def files_of(path: str):
    """((path, bytes or None, lower-case bytes or None, digest), ...) of the files beside ``path`` that could
    write a table (``_files``), the file itself included; None or () when there are none to read."""
    return _files(*_folder(path))


def folder_of(path: str) -> str:
    """The folder whose files are the neighbours of a notebook at ``path`` (the runner keeps them together)."""
    return _folder(path)[0]


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
