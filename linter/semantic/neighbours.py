"""What the files beside a notebook leave a table with (linter/neighbours.py lists them and says which vouch)."""

from __future__ import annotations

import hashlib
import os

from linter.neighbours import files_of
from linter.semantic.bounds import BOUNDED, UNBOUNDED
from linter.semantic.scopes import _TAINTED
from linter.sources.python import forget_parsed_ahead

# writes the model does not record (`writeTo(t).append()`, `writeStream.toTable(t)`, a Delta merge, which starts
# from a DeltaTable: pandas has `.merge(` too): a file naming the table and one of these vouches for nothing
_UNREAD_WRITES = (b"writeto", b"totable", b"deltatable")
_UNREAD = "\0unread"  # the texts of a neighbour's cells that do not parse
_DOWNLOADS = "\0downloads"  # the folders a neighbour fills from a fixed URL (Paths.download_folders)
_KEPT = 2048  # files' tables kept by digest and sample sizes, across runs (never stale)
_tables: dict = {}
_asked: dict = {}  # (notebook, table) -> what the other files of its folder leave the table with, in this run
_samples: dict = {}  # digest -> the key of its tables in this run (digest and its sample files' sizes)


def forget() -> None:
    """A run starts: the folders' files may have changed (their tables stay kept by digest)."""
    _samples.clear()
    _asked.clear()
    forget_parsed_ahead()


def neighbour_bound(path: str, text: str, spellings: tuple):
    """The bound the notebook at ``path`` (holding ``text``) and its neighbours leave the table spelled
    ``spellings`` with (see Scopes' ``written_spellings``), or None when none writes it, one wrote it from a frame not
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


def neighbour_downloads(path: str) -> tuple:
    """The folders the other files of the notebook's folder fill from a fixed `http(s)` URL (a series'
    `1-ingest-data` fetching the sample `2-explore` reads), as ``Paths.download_folders`` finds them in each."""
    here = os.path.abspath(path)
    folders = []
    for neighbour, data, _, digest in files_of(here) or ():
        if neighbour == here or data is None:
            continue
        written = _tables_of(neighbour, data, digest)
        if written is not False:
            folders.extend(written[_DOWNLOADS])
    return tuple(folders)


def _others_bounds(here: str, spellings: tuple) -> tuple:
    """The bounds the other files of the folder leave the table with; () when none vouches or one cannot."""
    files = files_of(here)
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
    written = _tables_of(path, data, digest)
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


def _tables_of(path: str, data: bytes, digest: str):
    """``_written`` of one file, kept by its digest and its sample files' sizes."""
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
    return written


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
    from linter.sources.python import parse_ahead, walk

    try:
        document = load_document(path, data)
    except SourceError:
        return False
    result: dict = {_TAINTED: set(), _UNREAD: [], _DOWNLOADS: []}
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
            module = parse_ahead(unit.text)  # (its own check, later in this run, takes the same tree)
            semantic = Semantic(text=unit.text, bundled_source=(path, document.text))
            semantic.scan_writes = True
            visit, leave = semantic.hooks()
            walk(module, {k: [v] for k, v in visit.items()}, {k: [v] for k, v in leave.items()}, [])
        except (SourceError, RecursionError):
            return False  # part of it is not read: it may write anything there
        result[_DOWNLOADS].extend(semantic.download_folders())
        tainted = semantic.written_small[_TAINTED]
        if None in tainted:
            return False
        result[_TAINTED] |= tainted
        for key, bound in semantic.written_small.items():
            if key != _TAINTED:
                result[key] = bound
    return result
