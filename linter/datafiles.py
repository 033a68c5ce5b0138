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
import itertools
import os
import re
import stat

SMALL_BYTES = 10 * 1024 * 1024  # a sample a repository keeps in git; GitHub warns at 50 MB a file
_MAX_FILES = 500  # a folder or glob of more entries than this is not a sample (and not walked further)
_BUDGET = 2000  # entries one file's reads may make us look at in all: past it, the rest count as unmeasured
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
                if _at_line_start(text, at):
                    m = _ASSIGNED.match(text, at)
                    if m is not None and m.group(1) == name:
                        found.append(m.group(3))
                at = text.find(spelled, at + len(spelled))
    out, seen = [], set()
    for value in found:
        if value in seen:
            continue
        seen.add(value)
        local = _local(value)
        if _SCHEME.match(local) or local.startswith("//"):
            continue  # s3://, abfss://, dbfs:, http:// ... (and `//host/share`)
        if "/" not in local and not _DATA_NAME.search(local):
            continue
        out.append(value)
        if len(out) >= _MAX_CANDIDATES:
            break
    return out


def _local(value: str) -> str:
    """A path without its `file:` scheme: `file:///data/x` and `file:/data/x` are `/data/x`."""
    if value.startswith("file://"):
        return value[7:]
    return value[5:] if value.startswith("file:") else value


def _at_line_start(text: str, at: int) -> bool:
    """Whether only blanks (or a notebook's JSON quote) stand between ``at`` and the start of its line: a real
    newline, or the `\\n` escape of a notebook saved on one line. Looks back over those characters only, so a
    file of one long line costs no more than a short one."""
    j = at
    while j > 0 and text[j - 1] in ' \t",':
        j -= 1
    return j == 0 or text[j - 1] in "\n[" or text[j - 2:j] == "\\n"  # (`[`: a cell's first line, in JSON)


def _bases(path: str) -> tuple[list[str], list[str], str]:
    """(folders a relative path may be relative to: the file's own and the repository root; folders an
    absolute path's tail may lie under: every folder from the file's up to the repository root; the folder
    every target must lie inside: the repository root, or with none found the file's parent folder)."""
    return _folder_bases(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=1024)
def _folder_bases(here: str) -> tuple[list[str], list[str], str]:
    chain, root = [here], None
    current = here
    for _ in range(_UP):
        if os.path.exists(os.path.join(current, ".git")):  # (a file in a worktree or a submodule)
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
    return relative, chain, os.path.realpath(root if root is not None else chain[-1])


def _size(target: str, budget: list):
    """Total bytes of the regular files ``target`` names (a file, a folder, a glob); None when it names
    nothing, or more than the limit allows (too big, more than ``_MAX_FILES`` entries looked at, something
    that is not a regular file). Stops at the first entry past a limit: a huge glob or folder costs little."""
    if any(c in target for c in "*?["):
        paths = list(itertools.islice(glob.iglob(target), _MAX_FILES + 1))
        if not paths or len(paths) > _MAX_FILES:
            return None
    else:
        paths = [target]
    total, seen, files = 0, 0, 0
    stack = list(paths)
    while stack:
        one = stack.pop()
        seen += 1
        budget[0] -= 1
        if seen > _MAX_FILES or budget[0] < 0:
            return None
        try:
            st = os.stat(one)
        except (OSError, ValueError):
            return None
        if stat.S_ISREG(st.st_mode):
            total, files = total + st.st_size, files + 1
            if total > SMALL_BYTES:
                return None
        elif stat.S_ISDIR(st.st_mode):
            try:
                with os.scandir(one) as entries:
                    for entry in entries:
                        if not entry.name.startswith("."):
                            stack.append(entry.path)
                            if len(stack) + seen > _MAX_FILES:
                                return None
            except OSError:
                return None  # a folder it cannot read: its size is not known
        else:
            return None  # a FIFO, a device: never read
    return total if files else None


def measured(path: str, text: str) -> dict:
    """Literal path -> the bytes it names in the repository (at most ``SMALL_BYTES``), for the candidates of
    ``text`` (the file at ``path``) that name files there; candidates that name nothing small are left out."""
    literals = candidates(text)
    if not literals:
        return {}
    return dict(_measured(os.path.abspath(path), tuple(literals)))


def forget() -> None:
    """Measure afresh from now on: called when a run (a `check` command, a server check) starts, so that a
    process checking again sees the files as they are then."""
    _measured.cache_clear()


@functools.lru_cache(maxsize=256)
def _measured(path: str, literals: tuple) -> tuple:
    """``measured`` for the candidates found: once in a run for the cache key and the model alike."""
    found = {}
    relative, chain, inside = _bases(path)
    sizes: dict = {}  # target -> size, for spellings of one place
    budget = [_BUDGET]
    for literal in literals:
        local = _local(literal)
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
            target = os.path.realpath(target)
            if os.path.commonpath((target, inside)) != inside:
                continue  # `../../etc/hostname`: outside the repository, not its sample
            if target not in sizes:
                if budget[0] <= 0:
                    return tuple(found.items())  # enough looked at for one file: the rest stay unmeasured
                sizes[target] = _size(target, budget)
            if sizes[target] is not None:
                found[literal] = sizes[target]
                break
    return tuple(found.items())


def fingerprint(path: str, text: str) -> str:
    """What ``measured`` found, as text for the cache key ("" when nothing)."""
    found = measured(path, text)
    return "\n".join(f"{k}={v}" for k, v in sorted(found.items()))
