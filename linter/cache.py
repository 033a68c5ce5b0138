"""Content-hash cache: one pack file, ``.sparkcheck_cache/<version>/pack.json``, read once and written once per run.

The key covers the file's bytes, its kind (extension), the enabled rules for it,
the settings that change findings and sparkcheck's version; the entry holds the
findings without the file name, so a renamed file is still a hit.

The pack (JSON: plain data, nothing executed when it is read) maps each key to
``[stamp, findings as JSON text]``: the findings stay text until a run asks for
that key, so reading the pack parses only its outer structure, and an entry no
one asked for is written back as it was read.

- **One write per run**, at its end, and only when the run checked a file the
  pack did not hold: the new pack goes to a temporary file in the same folder
  and replaces the old one with ``os.replace``, so a reader sees the old pack or
  the new one, never half of one.
- **Concurrent runs merge**: before writing, a run whose pack changed on disk
  since it read it (another run wrote meanwhile) reads it again and adds its own
  entries to it. Two runs that finish in the same instant can still lose one's
  new entries (the last replace wins); they are checked again next time. A pack
  that cannot be read (damaged, another format) is an empty cache.
- **Entries of files not seen in a run are kept** (a pre-commit run checks a
  few files). The pack is bounded: each entry carries the number of the last run
  that wrote or used it (``stamp``), and when the pack holds more than
  ``max(MIN_ENTRIES, ENTRIES_PER_FILE x the most files one run has checked)``
  entries, the least recently used are dropped. Entries of old versions of a
  file are never used again, so they go first. A run that found every file in
  the pack writes nothing, and its hits keep the stamp they had.
- The per-file entries of earlier sparkcheck releases
  (``<version>/<key[:2]>/<key>.json``) are never read; the first pack written in
  that folder removes them. Another version's folder is left alone (another
  install may be using it); deleting the whole cache folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil

from linter import __version__
from linter.diagnostics import Finding
from linter.sources.decoding import SPARK_HINT_BYTES as _SPARK_HINT  # one pattern: the engine's and the cache key's

TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by sparkcheck.\n"

PACK = "pack.json"
FORMAT = 2  # 2: a location carries file_column (a notebook finding's column in its JSON line)
MIN_ENTRIES = 4096
ENTRIES_PER_FILE = 2

_LEGACY_FOLDER = re.compile(r"[0-9a-f]{2}")


class Cache:
    def __init__(self, directory: str, version: str = __version__):
        self.root = directory
        self.version = version
        self.dir = os.path.join(directory, version)
        self.path = os.path.join(self.dir, PACK)
        self._entries: dict | None = None  # key -> [stamp, findings JSON]: the pack as read
        self._run = 0  # the pack's run counter as read
        self._largest = 0  # the most files one run has checked, as read
        self._stat = None  # (inode, size, mtime) of the pack as read, to see another run's write
        self._new: dict = {}  # key -> findings JSON, checked in this run
        self._used: set = set()  # keys this run found in the pack

    def key(self, path: str, data: bytes, settings, codes: frozenset) -> str:
        h = hashlib.blake2b(digest_size=20)
        h.update(self.version.encode())
        h.update(settings.fingerprint.encode())
        h.update(",".join(sorted(codes)).encode())
        h.update(os.path.splitext(path)[1].lower().encode())
        h.update(b"\0")
        h.update(data)
        spark = _SPARK_HINT.search(data) is not None
        if b"import" in data and spark:  # the engine reads no other file's facts
            # what the file takes from its project's modules (linter/project.py): an edit there re-checks it
            from linter.project import project_facts

            h.update(project_facts(path, data.decode("utf-8", "replace"), facts=False).fingerprint.encode())
        if spark and (b"/" in data or b"." in data):
            # the sizes of the repository's sample files it names (linter/datafiles.py): one that grows, appears
            # or goes away re-checks it
            from linter.datafiles import fingerprint

            h.update(b"\0data\0" + fingerprint(path, data.decode("utf-8", "replace")).encode())
        if spark:
            # a notebook: the files beside it that may write a table it reads from small frames (linter/neighbours.py)
            from linter import neighbours

            h.update(b"\0neighbours\0" + neighbours.fingerprint(path, data).encode())
        return h.hexdigest()

    # -- reading ---------------------------------------------------------------------------------------

    def _read(self) -> tuple[dict, int, int, tuple | None]:
        """(entries, run counter, largest run, stat) of the pack on disk; an empty cache for any failure."""
        try:
            with open(self.path, "rb") as f:
                st = os.fstat(f.fileno())
                data = json.loads(f.read())
            if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != self.version:
                raise ValueError("another format")
            entries = data["entries"]
            if not isinstance(entries, dict):
                raise TypeError("no entries")
            return entries, int(data.get("run", 0)), int(data.get("largest", 0)), _stat_key(st)
        except (OSError, ValueError, KeyError, TypeError):
            return {}, 0, 0, None

    def _load(self) -> dict:
        if self._entries is None:
            self._entries, self._run, self._largest, self._stat = self._read()
        return self._entries

    def get(self, key: str, filename: str) -> list[Finding] | None:
        text = self._new.get(key)
        if text is None:
            entry = self._load().get(key)
            if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[1], str):
                return None
            text = entry[1]
        try:
            out = []
            for e in json.loads(text):
                e["filename"] = filename
                out.append(Finding.from_dict(e))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        self._used.add(key)
        return out

    # -- writing ---------------------------------------------------------------------------------------

    def put(self, key: str, findings: list[Finding]) -> None:
        self.put_dicts(key, [f.to_dict() for f in findings])

    def put_dicts(self, key: str, dicts: list[dict]) -> None:
        """An entry from findings as dicts (``Finding.to_dict``, as worker processes send them back)."""
        entries = []
        for d in dicts:
            d = dict(d)
            d.pop("filename", None)
            entries.append(d)
        self._new[key] = json.dumps(entries, separators=(",", ":"))

    def save(self, files: int = 0) -> bool:
        """Write the pack if this run added entries (``files``: how many files the run checked). True if written."""
        if not self._new:
            return False
        self._load()
        try:
            os.makedirs(self.dir, exist_ok=True)
            self._prepare()
            entries, run, largest = self._entries, self._run, self._largest
            try:
                changed = _stat_key(os.stat(self.path)) != self._stat
            except OSError:
                changed = self._stat is not None  # it was deleted meanwhile: start from what this run read
            if changed:  # another run wrote the pack since this one read it: merge into theirs
                theirs, their_run, their_largest, _ = self._read()
                for key in self._used:
                    if key not in theirs and key in entries:
                        theirs[key] = entries[key]
                entries, run, largest = theirs, max(run, their_run), max(largest, their_largest)
            run += 1
            for key in self._used:
                entry = entries.get(key)
                if isinstance(entry, list) and len(entry) == 2:
                    entry[0] = run
            for key, text in self._new.items():
                entries[key] = [run, text]
            largest = max(largest, files)
            bound = max(MIN_ENTRIES, ENTRIES_PER_FILE * largest)
            if len(entries) > bound:
                def stamp(item):
                    value = item[1][0] if isinstance(item[1], list) and item[1] else 0
                    return value if isinstance(value, int) else 0

                entries = dict(sorted(entries.items(), key=stamp, reverse=True)[:bound])
            pack = {"format": FORMAT, "version": self.version, "run": run, "largest": largest, "entries": entries}
            tmp = f"{self.path}.{os.getpid()}.{id(self):x}.tmp"
            try:
                with open(tmp, "w", encoding="utf-8") as out:
                    json.dump(pack, out, separators=(",", ":"))
                os.replace(tmp, self.path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            self._entries, self._run, self._largest = entries, run, largest
            try:
                self._stat = _stat_key(os.stat(self.path))
            except OSError:
                self._stat = None
            self._new, self._used = {}, set()
            self._remove_legacy()
            return True
        except OSError:
            return False  # a read-only checkout still gets checked, just not cached

    def _remove_legacy(self) -> None:
        """The per-file entries (``<key[:2]>/<key>.json``) earlier releases wrote in this version's folder."""
        try:
            names = os.listdir(self.dir)
        except OSError:
            return
        for name in names:
            if _LEGACY_FOLDER.fullmatch(name):
                shutil.rmtree(os.path.join(self.dir, name), ignore_errors=True)

    def _prepare(self) -> None:
        for name, content in (("CACHEDIR.TAG", TAG), (".gitignore", "# Created by sparkcheck.\n*\n")):
            path = os.path.join(self.root, name)
            if not os.path.exists(path):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(content)


def _stat_key(st) -> tuple:
    return (st.st_ino, st.st_size, st.st_mtime_ns)
