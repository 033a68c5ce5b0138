"""Content-hash cache: ``.sparkcheck_cache/<version>/<key[:2]>/<key>.json``.

The key covers the file's bytes, its kind (extension), the enabled rules for it,
the settings that change findings and sparkcheck's version; the entry holds the
findings without the file name, so a renamed file is still a hit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Optional

from linter import __version__
from linter.diagnostics import Finding

TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by sparkcheck.\n"


# linter/engine.py's `_SPARK_HINT`, on bytes: a file without it gets no Python finding, whatever it imports
_SPARK_HINT = re.compile(rb"spark|Spark|SPARK|\bsc\b|\bsqlContext\b")


class Cache:
    def __init__(self, directory: str):
        self.root = directory
        self.dir = os.path.join(directory, __version__)
        self._ready = False
        self._folders: set = set()

    def key(self, path: str, data: bytes, settings, codes: frozenset) -> str:
        h = hashlib.blake2b(digest_size=20)
        h.update(__version__.encode())
        h.update(settings.fingerprint.encode())
        h.update(",".join(sorted(codes)).encode())
        h.update(os.path.splitext(path)[1].lower().encode())
        h.update(b"\0")
        h.update(data)
        if b"import" in data and _SPARK_HINT.search(data):  # the engine reads no other file's facts
            # what the file takes from its project's modules (linter/project.py): an edit there re-checks it
            from linter.project import project_facts

            h.update(project_facts(path, data.decode("utf-8", "replace"), facts=False).fingerprint.encode())
        return h.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.dir, key[:2], key + ".json")

    def get(self, key: str, filename: str) -> Optional[list[Finding]]:
        try:
            with open(self._path(key), encoding="utf-8") as f:
                entries = json.load(f)
        except (OSError, ValueError):
            return None
        try:
            out = []
            for e in entries:
                e["filename"] = filename
                out.append(Finding.from_dict(e))
            return out
        except (KeyError, TypeError):
            return None

    def put(self, key: str, findings: list[Finding]) -> None:
        try:
            self._prepare()
            target = self._path(key)
            folder = os.path.dirname(target)
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            entries = []
            for f in findings:
                d = f.to_dict()
                d.pop("filename")
                entries.append(d)
            # written beside the entry and renamed: a reader never sees half an entry
            tmp = f"{target}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as out:
                out.write(json.dumps(entries, separators=(",", ":")))
            os.replace(tmp, target)
        except OSError:
            pass  # a read-only checkout still gets checked, just not cached

    def _prepare(self) -> None:
        if self._ready:
            return
        os.makedirs(self.dir, exist_ok=True)
        for name, content in (("CACHEDIR.TAG", TAG), (".gitignore", "# Created by sparkcheck.\n*\n")):
            path = os.path.join(self.root, name)
            if not os.path.exists(path):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(content)
        self._ready = True
