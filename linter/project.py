"""What a Python file takes from its own project: module constants and functions that return DataFrames.

Real jobs spell their reader options and table names in a constants module (``constants.CSV_INFER_SCHEMA``,
``from jobs.config import ORDERS_TABLE``) and load their frames through a helper of the same repository
(``from jobs.io import load_orders``, annotated ``-> DataFrame``).  One file alone does not show either, so
the model would not know ``.option(constants.CSV_INFER_SCHEMA, True)`` from any other option.

For each file checked, the modules it imports absolutely (``import a.b as c``, ``from a.b import x``) are
looked up beside it, as ``a/b.py`` or ``a/b/__init__.py``: above each folder of the file's own path named
``a`` (``src/a/jobs/x.py`` importing ``a.util``: namespace packages have no ``__init__.py``), above the top
of its package (the first folder up without ``__init__.py``), and in its own folder.  Only what is found there is
read, so a one-file run (pre-commit, the editor) sees the same facts as a run over the whole tree, and a
repository of thousands of modules costs one look-up per import.  From each module found, without parsing
it: the top-level names assigned exactly once, to a plain string literal (``CSV_HEADER = "header"``), and
the top-level functions whose return annotation is ``DataFrame`` in a module that imports pyspark, and the
top-level names such a module binds once to its SparkSession (``spark = SparkSession.builder...``).  Relative
imports, star imports, class attributes and computed values are not read.

The facts are part of the file's cache key (``ProjectFacts.fingerprint``: the bytes of every module found
and the paths where none was), so editing a constants module re-checks the files that import it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
from dataclasses import dataclass, field

_FROM_IMPORT = re.compile(r"[ \t]*from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+(\([^)]*\)?|[^\n#;]+)")
_IMPORT = re.compile(r"[ \t]*import[ \t]+([^\n#;]+)")
_ASSIGNED = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=(?!=)", re.M)
_STRING_CONSTANT = re.compile(
    r"^([A-Za-z_]\w*)[ \t]*(?::[ \t]*(?:str|Final(?:\[str\])?)[ \t]*)?=[ \t]*[uU]?(['\"])((?:(?!\2)[^\\\n])*)\2[ \t]*(?:#[^\n]*)?$",
    re.M,
)
_DEF = re.compile(r"^def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.M)
# A module's own session: `spark = SparkSession.builder...getOrCreate()`, `spark = glue_context.spark_session`,
# `spark = SparkSession.getActiveSession()` (the name imported elsewhere is that session).
_SESSION = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]+)?=[ \t]*\(?[ \t\\\n]*(?:SparkSession[ \t]*\.[ \t]*(?:builder\b|"
                      r"getActiveSession[ \t]*\()|[A-Za-z_]\w*[ \t]*\.[ \t]*spark_session\b)", re.M)
_RETURNS_DATAFRAME = re.compile(r"\s*->\s*['\"]?(?:[\w.]+\.)?DataFrame['\"]?\s*:")
# Modules no project defines for itself: not looked for beside the file
_NOT_OURS = frozenset(sys.stdlib_module_names) | {"pyspark", "delta", "pandas", "numpy", "pyarrow", "awsglue", "dlt"}


@dataclass(frozen=True)
class ProjectFacts:
    constants: dict  # qualified name (`pkg.constants.CSV_HEADER`) -> its text
    dataframe_functions: frozenset  # qualified names of functions annotated `-> DataFrame`
    fingerprint: str  # what the facts were read from: part of the cache key
    # name of a function this file defines with a DataFrame parameter -> what each call in the rest of the
    # package passes it (linter/callers.py)
    callers: dict = field(default_factory=dict)
    sessions: frozenset = frozenset()  # qualified names of module-level SparkSessions (`jobs.base.spark`)


NO_FACTS = ProjectFacts({}, frozenset(), "")


def imported_modules(text: str) -> list[str]:
    """The absolute module names a file imports, and for `from a import x` also `a.x` (x may be a module)."""
    found = []
    start = 0
    while True:
        at = text.find("import", start)  # a plain search, then the line it is on: cheaper than a regex per line
        if at < 0:
            break
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        if line_end < 0:
            line_end = len(text)
        start = line_end
        line = text[line_start:line_end]
        m = _FROM_IMPORT.match(line)
        if m is not None:
            module, names = m.group(1), m.group(2)
            if names.startswith("(") and ")" not in names:
                close = text.find(")", line_end)
                names = text[line_start + m.start(2):close if close > 0 else len(text)]
                start = max(start, close)
            found.append(module)
            for name in names.strip("() \t\n").split(","):
                words = name.split()
                if words and words[0] != "*" and words[0].isidentifier():
                    found.append(f"{module}.{words[0]}")
            continue
        m = _IMPORT.match(line)
        if m is not None:
            for part in m.group(1).split(","):
                words = part.split()
                if words and all(w.isidentifier() for w in words[0].split(".")):
                    found.append(words[0])
    return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=4096)
def _package_top(here: str) -> str:
    """The folder above the top of the package `here` is in (by its `__init__.py` files), or `here`."""
    top = here
    while os.path.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    return top


@functools.lru_cache(maxsize=8192)
def _roots(here: str, top_name: str) -> tuple:
    """Where `top_name.x.y` is looked for, for a file in the folder `here`: above each folder of its path named
    `top_name` (nearest first: namespace packages have no `__init__.py`), above the top of its package, and
    beside it. No file is looked at to find these."""
    roots = []
    folder = here
    while True:
        parent, name = os.path.split(folder)
        if name == top_name:
            roots.append(parent)
        if parent == folder or not name:
            break
        folder = parent
    roots.append(_package_top(here))
    roots.append(here)
    return tuple(dict.fromkeys(roots))


@functools.lru_cache(maxsize=8192)
def _holds(root: str, top: str) -> bool:
    """Does `root` hold a package or module named `top`? (Most imports are of installed packages: one look.)"""
    return os.path.isdir(os.path.join(root, top)) or os.path.isfile(os.path.join(root, top + ".py"))


def _module_file(roots: tuple, module: str):
    top = module.split(".", 1)[0]
    for root in roots:
        if _holds(root, top):
            found = _find_in(root, module)
            if found is not None:
                return found
    return None


@functools.lru_cache(maxsize=8192)
def _find_in(root: str, module: str):
    rel = module.replace(".", os.sep)
    for candidate in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


_READ: dict = {}  # path -> ((mtime_ns, size), data): a module is read again only when it changed


def _module_data(path: str):
    """The bytes of one module file, or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    known = _READ.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    _READ[path] = (stamp, data)
    return data


def clear_caches() -> None:
    """Forget where modules were found and what they held (a long-running process, after files changed)."""
    from linter.callers import clear_caches as clear_callers

    clear_callers()
    _package_top.cache_clear()
    _roots.cache_clear()
    _holds.cache_clear()
    _find_in.cache_clear()
    _READ.clear()


@functools.lru_cache(maxsize=1024)
def _facts_of(data: bytes) -> tuple:
    """({name: text}, frozenset of DataFrame function names, frozenset of session names) of one module's bytes."""
    text = data.decode("utf-8", "replace")
    counts: dict = {}
    for m in _ASSIGNED.finditer(text):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    constants = {m.group(1): m.group(3) for m in _STRING_CONSTANT.finditer(text) if counts.get(m.group(1)) == 1}
    functions, sessions = set(), set()
    if re.search(r"\bpyspark\b", text):
        for m in _DEF.finditer(text):
            end = _closing_paren(text, m.end())
            if end is not None and _RETURNS_DATAFRAME.match(text, end + 1):
                functions.add(m.group(1))
        sessions = {m.group(1) for m in _SESSION.finditer(text) if counts.get(m.group(1)) == 1}
    return constants, frozenset(functions), frozenset(sessions)


@functools.lru_cache(maxsize=1024)
def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _closing_paren(text: str, start: int):
    depth = 1
    for i in range(start, min(len(text), start + 5000)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def project_facts(path: str, text: str, facts: bool = True) -> ProjectFacts:
    """The constants and DataFrame functions `text` (the file at `path`) imports from its project (a
    notebook's JSON text imports nothing here: its cells' imports are not read). With ``facts=False`` only
    the fingerprint is made (the cache key's part: the modules are found and hashed, not read for names)."""
    from linter.callers import package_callers

    calls_seen, callers = package_callers(path, text, _module_data, analyse=facts)
    modules = imported_modules(text)
    if not modules and not calls_seen:
        return NO_FACTS
    own = os.path.abspath(path)
    here = os.path.dirname(own)
    constants, functions, sessions, seen, found_any = {}, set(), set(), [], False
    for module in modules:
        top = module.split(".", 1)[0]
        if top in _NOT_OURS:
            continue
        found = _module_file(_roots(here, top), module)
        data = _module_data(found) if found is not None and found != own else None
        if data is None:
            seen.append("-" + module)  # where none is today: one created there must change the fingerprint
            continue
        found_any = True
        seen.append(f"{module}={_digest(data)}")
        if facts:
            names, dataframe_functions, module_sessions = _facts_of(data)
            for name, value in names.items():
                constants[f"{module}.{name}"] = value
            functions.update(f"{module}.{name}" for name in dataframe_functions)
            sessions.update(f"{module}.{name}" for name in module_sessions)
    if not found_any and not calls_seen:
        return NO_FACTS
    seen.extend(calls_seen)
    return ProjectFacts(constants, frozenset(functions),
                        hashlib.blake2b("\n".join(seen).encode(), digest_size=16).hexdigest(), callers,
                        frozenset(sessions))
