"""What the rest of a file's package passes to its functions: the callers in other modules.

A library method declared `def set_stats_dict(self, df: DataFrame)` collects the frame it is given; whether
that is a driver OutOfMemoryError depends on its callers, and they are in other modules
(`self._context.set_stats_dict(df)` in `sinks/utils/writer.py`, after `df = spark.createDataFrame(rows)`).
One file alone cannot say; the package can.

For a file inside a package (a folder with `__init__.py`), the functions and methods it defines with a
parameter annotated `DataFrame` are looked up, by name, in the other modules of the same top package
(test modules left out: they pass what a test needs, not what the library is given): every call
`x.name(...)` or `name(...)` found there, read with CPython's `ast` (no libcst: this costs a few
milliseconds), gives for each argument whether it is **small**, as its own file shows by the same rules as
the semantic model: a frame from `createDataFrame` of rows the driver holds, `limit(n)`, a small
`spark.range(n)`, followed back through the names it was assigned to and through methods that keep rows
(`withColumn`, `select`, `filter` ...). Anything else is **unknown**.

The inference then takes a parameter for small when the file itself calls its function nowhere and every
call found in the package passes a small frame there (``Inference._with_package_callers``). The modules that
call are part of the file's cache key (their bytes), and so is where none did: a module that starts calling
the function re-checks the file.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re

SMALL, UNKNOWN = "small", "unknown"

_DEF = re.compile(r"def[ \t]+([A-Za-z_]\w*)[ \t]*\(")
_PARAMS_END = re.compile(r"\)[ \t]*(?:->[^:\n]*)?:")
_DATAFRAME_PARAM = re.compile(r":[ \t]*['\"]?(?:[A-Za-z_][\w.]*\.)?DataFrame\b")
_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test|conftest)\.py$|(?:^|/)tests?/")
_SKIPPED_DIRS = frozenset(("__pycache__", ".git", ".venv", "venv", "node_modules", "build", "dist", "tests", "test"))
_MAX_FILES = 1000  # a package larger than this is not searched: the look-up must stay cheap (a one-file run)
_MAX_SMALL_RANGE = 1_000_000
# Methods that keep a frame's rows (a subset of linter.semantic.api._SAME_ROWS: those a library passes along)
_KEEPS_ROWS = frozenset(
    "select filter where withColumn withColumns withColumnRenamed withColumnsRenamed drop dropDuplicates distinct "
    "orderBy sort alias cache persist repartition coalesce hint fillna dropna replace selectExpr toDF".split()
)
_RDD_MARKS = frozenset(("rdd", "parallelize", "textFile", "wholeTextFiles", "map", "flatMap", "mapPartitions"))


def dataframe_functions_defined(text: str) -> frozenset:
    """Names of the functions and methods `text` defines with a parameter annotated `DataFrame`."""
    if "DataFrame" not in text:
        return frozenset()  # most files: one search in C
    names = set()
    for m in _DATAFRAME_PARAM.finditer(text):  # each `x: DataFrame`, then the `def` whose parameters hold it
        start = text.rfind("def ", 0, m.start())
        d = _DEF.match(text, start) if start >= 0 else None
        end = _PARAMS_END.search(text, d.end()) if d is not None else None
        if end is not None and m.start() < end.start():
            names.add(d.group(1))
    return frozenset(names)


def package_callers(path: str, text: str, read, analyse: bool = True) -> tuple:
    """(fingerprint parts, {function name: ((positional sizes, keyword sizes), ...)}) of the calls the other
    modules of `path`'s package make to the DataFrame functions `text` defines. `read(path)` gives a file's
    bytes (the project's reader, which keeps them while they do not change). With ``analyse=False`` (the cache
    key) the calling modules are only found and hashed."""
    if not path.endswith(".py"):
        return (), {}
    names = dataframe_functions_defined(text)
    if not names:
        return (), {}
    own = os.path.abspath(path)
    root = _package_root(os.path.dirname(own))
    if root is None:
        return (), {}
    files = _package_files(root)
    if not files:
        return (), {}
    pattern = re.compile(rb"(?<![\w])(" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\s*\(")
    needles = [n.encode() for n in names]
    seen, calls = [], {}
    for other in files:
        if other == own:
            continue
        data = read(other)
        if data is None or not any(n in data for n in needles) or pattern.search(data) is None:
            continue  # (the plain look for the names first: most modules hold none of them)
        seen.append(f"calls:{os.path.relpath(other, root)}={_digest(data)}")
        if analyse:
            for name, found in _calls_in(data, names).items():
                calls.setdefault(name, []).extend(found)
    if not seen:
        seen.append(f"calls:none:{','.join(sorted(names))}")  # a module that starts calling must change the key
    return tuple(seen), {name: tuple(found) for name, found in calls.items()}


@functools.lru_cache(maxsize=4096)
def _package_root(here: str):
    """The top package folder `here` is in (the highest folder up with an `__init__.py`), or None."""
    if not os.path.isfile(os.path.join(here, "__init__.py")):
        return None
    top = here
    while os.path.isfile(os.path.join(os.path.dirname(top), "__init__.py")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    return top


@functools.lru_cache(maxsize=256)
def _package_files(root: str) -> tuple:
    """The package's Python modules, test modules left out; () when there are more than `_MAX_FILES`."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                full = os.path.join(folder, name)
                if not _TEST_FILE.search(os.path.relpath(full, root).replace(os.sep, "/")):
                    out.append(full)
        if len(out) > _MAX_FILES:
            return ()
    return tuple(out)


def clear_caches() -> None:
    """Forget the packages' folders and modules (files may have been created or removed); what a module's
    bytes hold is kept, by those bytes."""
    _package_root.cache_clear()
    _package_files.cache_clear()


@functools.lru_cache(maxsize=1024)
def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@functools.lru_cache(maxsize=1024)
def _calls_in(data: bytes, names: frozenset) -> dict:
    """{name: [(positional sizes, ((keyword, size), ...)), ...]} of the calls of `names` in one module."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {}
    out: dict = {}
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        assigned: dict = {}
        calls = []
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned.setdefault(node.targets[0].id, []).append((node.lineno, node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                assigned.setdefault(node.target.id, []).append((node.lineno, node.value))
            elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
                targets = [i.optional_vars for i in node.items if i.optional_vars is not None] \
                    if isinstance(node, (ast.With, ast.AsyncWith)) else [node.target]
                for target in (t for part in targets for t in ast.walk(part)):
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append((node.lineno, None))  # unknown from here on
            elif isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                if name in names:
                    calls.append((name, node))
        for name, call in calls:
            positional = tuple(UNKNOWN if isinstance(a, ast.Starred) else _size(a, assigned, call.lineno)
                               for a in call.args)
            keywords = tuple((k.arg, _size(k.value, assigned, call.lineno)) for k in call.keywords if k.arg)
            if any(k.arg is None for k in call.keywords):
                positional, keywords = (UNKNOWN,) * 8, ()  # `f(**kwargs)`: anything may arrive anywhere
            out.setdefault(name, []).append((positional, keywords))
    return out


def _own_nodes(scope):
    """The nodes of a module or function body, not those of the functions, classes and lambdas inside it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _size(node, assigned: dict, line: int, depth: int = 0) -> str:
    """SMALL when the expression is a frame its module shows to be small; UNKNOWN otherwise."""
    while depth < 16:
        depth += 1
        if isinstance(node, ast.Name):
            earlier = [(n, v) for n, v in assigned.get(node.id, ()) if n < line]
            if not earlier:
                return UNKNOWN
            line, node = max(earlier, key=lambda item: item[0])
            if node is None:
                return UNKNOWN
            continue
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return UNKNOWN
        method = node.func.attr
        if method == "createDataFrame":
            data = node.args[0] if node.args else None
            return UNKNOWN if data is None or _from_rdd(data, assigned, line) else SMALL
        if method == "limit":
            n = node.args[0] if node.args else None
            return SMALL if isinstance(n, ast.Constant) and isinstance(n.value, int) else UNKNOWN
        if method == "range":
            ints = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
            if ints and len(ints) == len(node.args) and ints[-1 if len(ints) > 1 else 0] <= _MAX_SMALL_RANGE:
                return SMALL
            return UNKNOWN
        if method not in _KEEPS_ROWS:
            return UNKNOWN
        node = node.func.value
    return UNKNOWN


def _from_rdd(node, assigned: dict, line: int) -> bool:
    """Whether `createDataFrame`'s data may be an RDD (whose rows nothing bounds) rather than the driver's rows."""
    for _ in range(8):
        if isinstance(node, ast.Name):
            earlier = [(n, v) for n, v in assigned.get(node.id, ()) if n < line]
            if not earlier:
                return True  # a parameter, or a name from elsewhere: it may be anything
            line, node = max(earlier, key=lambda item: item[0])
            if node is None:
                return True
            continue
        break
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp, ast.Dict, ast.Constant)):
        return False
    return any(isinstance(n, ast.Attribute) and n.attr in _RDD_MARKS for n in ast.walk(node)) or \
        not isinstance(node, ast.Call)
