"""Tables a file's neighbours write from rows the driver held: a notebook series that passes small data on.

A series of notebooks in one folder (Fabric's and Databricks' tutorials: `1-ingest`, `2-explore`,
`3-train`) hands its data on through tables: `2-explore` turns a cleaned pandas frame back into Spark,
`spark.createDataFrame(df_clean).write.mode("overwrite").save("Tables/df_clean")`, and `3-train` reads
`Tables/df_clean` and calls `toPandas()`. In one file the model already knows that a table it wrote from a
frame proven small reads back as small (Scopes._write); here the same holds across the files of one folder,
so `3-train`'s `toPandas()` is not a driver overflow: the rows were on a driver a notebook ago.

Which neighbours: the files of the reading file's own folder (not below, not above) read as Python (`.py`,
`.ipynb`, Databricks and Fabric source notebooks; for a Fabric workspace in git, where each notebook is a
folder `NAME.Notebook/notebook-content.py`, the other `*.Notebook` folders' contents) whose text names `createDataFrame` and a write call
(`save`, `saveAsTable`), or sempy's `to_lakehouse_table` (a pandas frame saved as a lakehouse table); of those, only the ones whose text also names the table are read (parsed once per
run and content, walked by the model alone, no rule). What such a file holds in the table at its end is
what the reading file gets. Every neighbour that writes the table must have written it, each time, from a
frame proven small (an append, a write in a loop or under a condition, a frame not proven small make it
unknown), and a neighbour that writes a table or runs SQL whose name it cannot spell vouches for nothing,
as in one file, nor does one with a cell that does not parse and names the table. The neighbours' own reads of other neighbours' tables are not followed (one step only).

The neighbours' bytes are part of the reading file's cache key (``fingerprint``): editing `2-explore`
re-checks `3-train`.
"""

from __future__ import annotations

import functools
import hashlib
import os

_SUFFIXES = (".py", ".ipynb")
_LARGEST = 4_000_000  # bytes: a neighbour larger than this is not read (generated code, a notebook of outputs)
_MOST = 200  # files in a folder: a folder larger than this is a package, not a notebook series
_TAINTED = "\0tainted"
_UNREAD = "\0unread"  # the texts of a neighbour's cells that do not parse
_FABRIC_CONTENT = "notebook-content.py"
UNBOUNDED = "unbounded"  # (linter.semantic.values: not imported here, the cache key needs no libcst)
BOUNDED = "bounded"


def forget() -> None:
    """Read the folders afresh (a run starts: files may have changed since the last one in this process)."""
    _writers.cache_clear()


@functools.lru_cache(maxsize=256)
def _writers(folder: str, fabric: bool) -> tuple:
    """((path, bytes), ...) of the folder's files that may write a table from a frame they made; ``fabric``:
    the `notebook-content.py` of each of its `*.Notebook` folders (a Fabric workspace as git holds it)."""
    try:
        with os.scandir(folder) as entries:
            if fabric:
                files = [os.path.join(e.path, _FABRIC_CONTENT) for e in entries if e.name.endswith(".Notebook")]
            else:
                files = [e.path for e in entries if e.name.endswith(_SUFFIXES) and not e.name.startswith(".")]
    except OSError:
        return ()
    if len(files) > _MOST:
        return ()
    found = []
    for file in sorted(files):
        try:
            if not os.path.isfile(file) or os.path.getsize(file) > _LARGEST:
                continue
            with open(file, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"createDataFrame" in data and b"save" in data or b"to_lakehouse_table" in data:
            found.append((file, data))
    return tuple(found)


def _neighbours(path: str) -> tuple:
    here = os.path.abspath(path)
    folder = os.path.dirname(here)
    if os.path.basename(here) == _FABRIC_CONTENT and folder.endswith(".Notebook"):
        return tuple(w for w in _writers(os.path.dirname(folder), True) if w[0] != here)
    return tuple(w for w in _writers(folder, False) if w[0] != here)


def fingerprint(path: str) -> str:
    """The neighbours that may vouch for a table, by name and content: part of the cache key."""
    here = os.path.dirname(os.path.abspath(path))  # (relative: a cache restored in another checkout holds)
    return "\n".join(f"{os.path.relpath(p, here)}={hashlib.blake2b(data, digest_size=16).hexdigest()}"
                     for p, data in _neighbours(path))


def written_spellings(key: str) -> tuple:
    """The records a read of ``key`` (as Scopes._written_key spells it) matches: the key, a Fabric lakehouse's
    `Tables/key`, and for `lakehouse.key` or `database.key`, `Tables/key` (the default lakehouse's table)."""
    if "/" in key or ":" in key:
        return (key,)
    if "." in key:
        return key, "Tables/" + key, "Tables/" + key.rsplit(".", 1)[1]
    return key, "Tables/" + key


def neighbour_bound(path: str, spellings: tuple):
    """The bound the neighbours of ``path`` wrote the table spelled ``spellings`` with (see
    ``written_spellings``), or None when none writes it, one wrote it from a frame not proven small, or one
    cannot vouch for what it wrote."""
    tail = spellings[-1].rsplit("/", 1)[-1].lower().encode()
    if not tail:
        return None
    bounds = []
    for neighbour, data in _neighbours(path):
        if tail not in data.lower():
            continue
        written = _written(neighbour, data)
        if written is None:
            return None  # it writes or runs something it cannot name: it may have written this table too
        if any(spelling in written[_TAINTED] for spelling in spellings) or any(tail in t for t in written[_UNREAD]):
            return None
        bound = next((written[s] for s in spellings if s in written), None)
        if bound is None:
            continue  # it names the table, but does not write it
        if bound == UNBOUNDED:
            return None
        bounds.append(bound)
    if not bounds:
        return None
    return BOUNDED if any(b == BOUNDED for b in bounds) else max(bounds)


@functools.lru_cache(maxsize=64)
def _written(path: str, data: bytes):
    """What one neighbour leaves in each table it writes, as Scopes.written_small at the end of its walk, or
    None when it cannot be read or vouches for nothing."""
    from linter.budget import _possible
    from linter.semantic import Semantic
    from linter.semantic.bounds import may_write
    from linter.sources import PYTHON, SQL, SourceError, load_document
    from linter.sources.python import parse, walk

    try:
        document = load_document(path, data)
    except SourceError:
        return None
    result: dict = {_TAINTED: set(), _UNREAD: []}
    for unit in document.units:
        if unit.error is not None:
            result[_UNREAD].append(unit.text.lower().encode())  # a cell it cannot read may write what it names
            continue
        if unit.kind != PYTHON:
            if unit.kind == SQL and may_write(unit.text):
                return None  # a `%%sql` cell that inserts, creates or merges
            continue
        if _possible(unit.text) is not None:
            return None  # a chain that could take libcst long: not worth a neighbour's table
        try:
            module = parse(unit.text)
            semantic = Semantic(text=unit.text, bundled_source=(path, document.text), neighbours=False)
            visit, leave = semantic.hooks()
            walk(module, {k: [v] for k, v in visit.items()}, {k: [v] for k, v in leave.items()}, [])
        except (SourceError, RecursionError):
            return None  # part of it is not read: it may write anything there
        tainted = semantic.written_small[_TAINTED]
        if None in tainted:
            return None
        result[_TAINTED] |= tainted
        for key, bound in semantic.written_small.items():
            if key != _TAINTED:
                result[key] = bound
    return result
