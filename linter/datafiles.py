"""Data files the repository holds: a read of one of them is of small, fixed sample data.

Books, tutorials, examples and tests keep their sample data beside the code (`data/flight-data/csv/
2015-summary.csv`, `examples/resources/orders.csv`) and read it by a path the file writes out: relative
(`"data/orders.csv"`), or absolute where the data is mounted (`/data/flight-data/...`, the book's `data/`
folder). When such a path names files that exist in the repository and hold at most ``SMALL_BYTES`` in all,
the read is small and fixed: collecting it is harmless, and inferring its schema costs a pass over a few
kilobytes, with nothing that can drift. Only the project shows this, never the code, so it is measured on disk.

Which strings are looked at is decided from the text alone (``candidates``): the literal paths given to a
reader (`.csv("data/x.csv")`, or `PATH = "data/x.csv"` then `.csv(PATH)`) that look local (a `/` and no
URL scheme other than `file:`, or a bare file name with a data extension). The
sizes found for them are part of the file's cache key (``fingerprint``), so a sample file that grows past
the limit, appears or goes away re-checks the files that read it. The semantic model looks up only these
strings (a path it builds from them, an f-string's, is never measured: its text is not in the key).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import stat

SMALL_BYTES = 10 * 1024 * 1024  # a sample a repository keeps in git; GitHub warns at 50 MB a file
_MAX_FILES = 2000  # a folder or glob of more files than this is not a sample (and not walked further)
_MAX_CANDIDATES = 64
_UP = 6  # folders above the file searched for the repository's root (a `.git`) and for an absolute path's data

# A reader's path argument: a quoted run of path characters (no space, bracket, comma or `=`), or a name,
# then `=` assignments of such a run to the names found. A search for `.csv(` and its kin is fast (a literal
# start): the whole corpus in 13 ms, where every quoted string of it took 250.
_PATH_CHARS = r"""[^'"\s\\{}<>|$()\[\],;=]{2,300}"""
_READ_CALL = re.compile(r"""\.(?:csv|json|parquet|orc|text|load|avro|xml)\(\s*(?:path\s*=\s*)?"""
                        rf"""(?:(\\?['"])({_PATH_CHARS})\1|([A-Za-z_]\w*)\s*[,)])""")
_ASSIGNED = re.compile(rf"""([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*[rRuU]?(\\?['"])({_PATH_CHARS})\2""")
_DATA_NAME = re.compile(r"(?i)\.(?:csv|tsv|json|jsonl|ndjson|parquet|orc|avro|xml|txt|text|gz|bz2|zip)$")
_SCHEME = re.compile(r"^[A-Za-z][\w+.-]*:")


def candidates(text: str) -> list[str]:
    """The literal paths ``text`` gives a reader (`spark.read.csv("data/x.csv")`, or `PATH = "..."` then
    `.csv(PATH)`) that may name a local data file or folder, in order, without repeats."""
    if "(" not in text:
        return []
    found, names = [], []  # (a quote may be escaped: `\"`, in a notebook's JSON)
    for m in _READ_CALL.finditer(text):
        if m.group(2):
            found.append(m.group(2))
        elif m.group(3) not in names:
            names.append(m.group(3))
    for name in names[:_MAX_CANDIDATES]:  # `NAME = "..."` at a line's start (found with str.find: fast)
        for spelled in (f"{name} =", f"{name}=", f"{name}:"):
            at = text.find(spelled)
            while at != -1:
                start = text.rfind("\n", 0, at) + 1
                if not text[start:at].strip(' \t"'):  # at a line's start (a notebook's JSON opens it with `"`)
                    m = _ASSIGNED.match(text, at)
                    if m is not None and m.group(1) == name:
                        found.append(m.group(3))
                at = text.find(spelled, at + len(spelled))
    out, seen = [], set()
    for value in found:
        if value in seen:
            continue
        seen.add(value)
        local = value[5:] if value.startswith("file:") else value
        if _SCHEME.match(local) or local.startswith("//"):
            continue  # s3://, abfss://, dbfs:, http:// ... (and `//host/share`)
        if "/" not in local and not _DATA_NAME.search(local):
            continue
        out.append(value)
        if len(out) >= _MAX_CANDIDATES:
            break
    return out


def _bases(path: str) -> tuple[list[str], list[str]]:
    """(folders a relative path may be relative to: the file's own and the repository root; folders an
    absolute path's tail may lie under: every folder from the file's up to the repository root)."""
    return _folder_bases(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=1024)
def _folder_bases(here: str) -> tuple[list[str], list[str]]:
    chain, root = [here], None
    current = here
    for _ in range(_UP):
        if os.path.isdir(os.path.join(current, ".git")):
            root = current
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
        chain.append(current)
    if root is None:
        chain = chain[:2]  # no repository found: only the file's folder and the one above it
    relative = [here] if root is None or root == here else [here, root]
    return relative, chain


def _size(target: str):
    """Total bytes of the regular files ``target`` names (a file, a folder, a glob); None when it names
    nothing, or more than the limit allows (too big, too many files, something that is not a regular file)."""
    if any(c in target for c in "*?["):
        paths = glob.glob(target)
        if not paths or len(paths) > _MAX_FILES:
            return None
    else:
        paths = [target]
    total, count = 0, 0
    for one in paths:
        try:
            st = os.stat(one)
        except (OSError, ValueError):
            return None
        if stat.S_ISREG(st.st_mode):
            total, count = total + st.st_size, count + 1
        elif stat.S_ISDIR(st.st_mode):
            for base, dirs, names in os.walk(one):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in names:
                    count += 1
                    if count > _MAX_FILES:
                        return None
                    try:
                        inner = os.stat(os.path.join(base, name))
                    except OSError:
                        return None
                    if not stat.S_ISREG(inner.st_mode):
                        return None
                    total += inner.st_size
                if total > SMALL_BYTES:
                    return None
        else:
            return None  # a FIFO, a device: never read
        if total > SMALL_BYTES:
            return None
    return total if count else None


def measured(path: str, text: str) -> dict:
    """Literal path -> the bytes it names in the repository (at most ``SMALL_BYTES``), for the candidates of
    ``text`` (the file at ``path``) that name files there; candidates that name nothing small are left out."""
    found = {}
    literals = candidates(text)
    if not literals:
        return found
    relative, chain = _bases(path)
    for literal in literals:
        local = literal[5:] if literal.startswith("file:") else literal
        if local.startswith("~"):
            continue  # a home folder is not the repository's
        if local.startswith("/"):
            tail = local.lstrip("/")
            if tail.count("/") < 1:
                continue  # `/data`: too short a tail to be sure it is the repository's folder
            targets = [os.path.join(base, tail) for base in chain]
        else:
            targets = [os.path.join(base, local) for base in relative]
        for target in targets:
            size = _size(os.path.normpath(target))
            if size is not None:
                found[literal] = size
                break
    return found


def fingerprint(path: str, text: str) -> str:
    """What ``measured`` found, as text for the cache key ("" when nothing)."""
    found = measured(path, text)
    return "\n".join(f"{k}={v}" for k, v in sorted(found.items()))
