"""What the rest of a file's package passes to its functions: the callers in other modules.

A library method declared `def set_stats_dict(self, df: DataFrame)` collects the frame it is given; whether
that is a driver OutOfMemoryError depends on its callers, and they are in other modules
(`self._context.set_stats_dict(df)` in `sinks/utils/writer.py`, after `df = spark.createDataFrame(rows)`).
One file alone cannot say; the package can.

For a file inside a package (a folder with `__init__.py`), the functions and methods it defines with a
parameter annotated `DataFrame` are looked up, by name, in the other modules of the same top package
(test modules, examples, demos, docs and scripts left out: they pass what a test or a demo needs, not what
the library is given): every call `x.name(...)` or `name(...)` found there, read with CPython's `ast` (no
libcst: this costs a few milliseconds), gives for each argument whether it is **small**, as its own file
shows: a frame from `createDataFrame` of literal rows, `limit(n)`, a `spark.range` of known size, followed back
through the one name it was assigned to in straight-line code (rebinding in one block, as
`df = df.withColumn(...)`, is followed; a name bound in two branches, by a loop, a `with`, a tuple, an import
or an `except` is not) and through methods that keep rows (`withColumn`, `select`, `filter` ...). Anything else
is **unknown**, and so is every other mention of the name: passed as a callback (`foreachBatch(upsert)`),
stored, imported under another name, or in a module that does not parse. One unknown keeps the finding.

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
import stat

from linter.sources import is_test_path

SMALL, UNKNOWN = "small", "unknown"

_DEF = re.compile(r"def[ \t]+([A-Za-z_]\w*)[ \t]*\(")
_PARAMS_END = re.compile(r"\)[ \t]*(?:->[^:\n]*)?:")
_DATAFRAME_PARAM = re.compile(r":[ \t]*['\"]?(?:[A-Za-z_][\w.]*\.)?DataFrame\b")
# Besides test modules (linter.sources.is_test_path): code that calls a library the way a demo does
_NOT_LIBRARY = re.compile(r"(?:^|/)__main__\.py$|(?:^|/)(?:examples?|demos?|docs?|scripts|samples?)/")
_SKIPPED_DIRS = frozenset(("__pycache__", ".git", ".venv", "venv", "node_modules"))
_MAX_FILES = 1000  # a package larger than this is not searched: the look-up must stay cheap (a one-file run)
_MAX_FILE_SIZE = 2_000_000  # a larger module (generated code) is not read: a call there would be unknown
_MAX_ROWS = 100_000  # `limit(n)` and `range` above this are not small (SPK101's `max-rows`)
# Methods that keep a frame's rows (a subset of linter.semantic.api._SAME_ROWS: those a library passes along)
_KEEPS_ROWS = frozenset(
    "select filter where withColumn withColumns withColumnRenamed withColumnsRenamed drop dropDuplicates distinct "
    "orderBy sort alias cache persist repartition coalesce hint fillna dropna replace selectExpr toDF".split()
)
_LITERAL_ROWS = (ast.List, ast.Tuple, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp)


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
    """(fingerprint parts, {function name: ((positional sizes, keyword sizes), ...)}) of what the other
    modules of `path`'s package pass to the DataFrame functions `text` defines (a size: an int, SMALL or
    UNKNOWN). `read(path)` gives a file's bytes (the project's reader, which keeps them while they do not
    change). With ``analyse=False`` (the cache key) the modules that mention the names are only found and
    hashed."""
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
    watched, index = _package_index(files, read)
    mentioning = sorted({f for name in names for f in index.get(name, ())} - {own})
    missing = names - watched
    if missing:  # names only this file defines with a DataFrame parameter (a file outside the listing)
        mentioning = sorted(set(mentioning) | set(_mentioning(files, frozenset(missing), read)) - {own})
        watched = watched | missing
    seen, calls = [], {}
    for other in mentioning:
        data = read(other)
        if data is None:
            continue
        seen.append(_file_key(other, root, data))
        if analyse:  # (read for every name the package watches: one reading of a module serves every file)
            for name, found in _calls_in(data, watched).items():
                if name in names:
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
    """The package's modules (regular files only: a FIFO named `x.py` is never opened), test modules,
    examples, demos, docs and scripts left out; () when there are more than `_MAX_FILES`."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if is_test_path(rel) or _NOT_LIBRARY.search(rel):
                continue
            try:
                st = os.stat(full)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size <= _MAX_FILE_SIZE:
                out.append(full)
        if len(out) > _MAX_FILES:
            return ()
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _package_index(files: tuple, read) -> tuple:
    """(the names some module of the package defines with a DataFrame parameter, {name: modules mentioning
    it}): one pass over each module per run, whatever the number of files that ask; kept across runs (the
    language server) while no module's stamp changes."""
    stamps = []
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        stamps.append((path, st.st_mtime_ns, st.st_size))
    return _index_of(tuple(stamps), read)


@functools.lru_cache(maxsize=64)
def _index_of(stamps: tuple, read) -> tuple:
    datas = {path: read(path) for path, _, _ in stamps}
    watched = set()
    for data in datas.values():
        if data is not None and b"DataFrame" in data:
            watched |= dataframe_functions_defined(data.decode("utf-8", "replace"))
    watched = frozenset(watched)
    if not watched:
        return watched, {}
    found: dict = {}
    for path, data in datas.items():
        if data is not None:
            for name in _mentions(data, watched):
                found.setdefault(name, []).append(path)
    return watched, {name: tuple(paths) for name, paths in found.items()}


def _mentioning(files: tuple, names: frozenset, read) -> list:
    return [path for path in files if (data := read(path)) is not None and _mentions(data, names)]


def _mentions(data: bytes, names: frozenset) -> set:
    """The names the module mentions as whole words (not inside a longer name)."""
    encoded = _ascii_names(names)
    if encoded is None:
        return {m.decode() for m in _mention_pattern(names).findall(data)}
    # What the pattern finds, without trying its alternation of every name at every byte (a tenth of a check
    # of pyspark's sources): a whole-word mention of an ASCII name is a run of word bytes equal to that name.
    return {w.decode() for w in encoded.intersection(_WORD_BYTES.findall(data))}


_WORD_BYTES = re.compile(rb"\w+")  # (ASCII word bytes, as the pattern's own `\w`)


@functools.lru_cache(maxsize=256)
def _ascii_names(names: frozenset):
    """The names as bytes when all are ASCII; None otherwise (a name with other letters has bytes that are no
    word bytes, and only the pattern finds it), or when there are none (the pattern then finds empty words)."""
    if not names or not all(name.isascii() for name in names):
        return None
    return frozenset(name.encode() for name in names)


@functools.lru_cache(maxsize=256)
def _mention_pattern(names: frozenset):
    return re.compile(rb"(?<![\w])(" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")(?![\w])")


def clear_caches() -> None:
    """Forget the packages' folders and modules (files may have been created or removed); what a module's
    bytes hold is kept, by those bytes, and the index by the modules' stamps."""
    _package_root.cache_clear()
    _package_files.cache_clear()
    _package_index.cache_clear()


@functools.lru_cache(maxsize=8192)
def _file_key(path: str, root: str, data: bytes) -> str:
    """A calling module's part of the cache key: where it is and what it holds."""
    return f"calls:{os.path.relpath(path, root)}={hashlib.blake2b(data, digest_size=16).hexdigest()}"


_EVERYTHING_UNKNOWN = ((UNKNOWN,) * 12, ())


@functools.lru_cache(maxsize=1024)
def _calls_in(data: bytes, names: frozenset) -> dict:
    """{name: [(positional sizes, ((keyword, size), ...)), ...]} of the calls of `names` in one module; a mention
    that is not a call (a callback, an alias, a stored function), or a module that does not parse, counts as a
    call with every argument unknown."""
    mentioned = _mentions(data, names)
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {name: [_EVERYTHING_UNKNOWN] for name in mentioned}
    out: dict = {}
    called = set()  # the callees of the calls met (`ast.walk` meets a call before its callee: breadth first)
    functions = []
    try:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called.add(id(node.func))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append(node)
            name = None
            if isinstance(node, ast.Name) and node.id in names and id(node) not in called:
                name = node.id
            elif isinstance(node, ast.Attribute) and node.attr in names and id(node) not in called:
                name = node.attr
            elif isinstance(node, ast.alias) and (node.name.rsplit(".", 1)[-1] in names):
                name = node.name.rsplit(".", 1)[-1]  # `from app.stats import summarize as report`
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                name = node.value  # `getattr(stats, "summarize")`
            if name is not None:
                out.setdefault(name, []).append(_EVERYTHING_UNKNOWN)
        for scope in [tree, *functions]:
            bindings, calls = _scope(scope, names)
            for name, call, path in calls:
                line = call.lineno
                positional = tuple(UNKNOWN if isinstance(a, ast.Starred) else _size(a, bindings, line, path)
                                   for a in call.args)
                keywords = tuple((k.arg, _size(k.value, bindings, line, path)) for k in call.keywords if k.arg)
                if any(k.arg is None for k in call.keywords):
                    positional, keywords = _EVERYTHING_UNKNOWN  # `f(**kwargs)`: anything may arrive anywhere
                out.setdefault(name, []).append((positional, keywords))
    except RecursionError:
        return {name: [_EVERYTHING_UNKNOWN] for name in mentioned}
    return out


def _scope(scope, names: frozenset):
    """The bindings ({name: [(line, value or None, block path)]}) and the calls of `names` ([(name, call, block
    path)]) of a module or function body, not those of the functions, classes and lambdas inside it. A block
    path is the chain of statement lists around a statement: two bindings with different paths are two branches
    (or a loop and what is before it), and only a value bound in the same straight-line block is followed."""
    bindings: dict = {}
    calls: list = []

    def bind(name, line, value, path):
        bindings.setdefault(name, []).append((line, value, path))

    def own(node, line, path):
        """The expressions of one statement outside its nested blocks: their calls and the names they bind."""
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Call):
                func = current.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                if name in names:
                    calls.append((name, current, path))
            elif isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
                bind(current.id, line, None, path)
            elif isinstance(current, ast.alias):
                bind((current.asname or current.name).split(".")[0], line, None, path)
            elif isinstance(current, (ast.MatchAs, ast.MatchStar)) and current.name:
                bind(current.name, line, None, path)
            elif isinstance(current, ast.MatchMapping) and current.rest:
                bind(current.rest, line, None, path)
            stack.extend(ast.iter_child_nodes(current))

    def block(stmts, path, loop=False):
        path = (*path, (id(stmts), loop))
        for stmt in stmts:
            line = stmt.lineno
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(stmt.name, line, None, path)
                for decorator in stmt.decorator_list:
                    own(decorator, line, path)
                continue
            if isinstance(stmt, (ast.Global, ast.Nonlocal)):
                for name in stmt.names:
                    bind(name, line, None, path)
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                bind(stmt.targets[0].id, line, stmt.value, path)
                own(stmt.value, line, path)
                continue
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                bind(stmt.target.id, line, stmt.value, path)
                own(stmt.value, line, path)
                continue
            looping = isinstance(stmt, (ast.For, ast.AsyncFor, ast.While))
            for field, value in ast.iter_fields(stmt):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    block(value, path, looping and field == "body")
                elif isinstance(value, list) and value and isinstance(value[0], (ast.ExceptHandler, ast.match_case)):
                    for part in value:
                        inner = (*path, (id(part), False))
                        if isinstance(part, ast.ExceptHandler):
                            if part.name:
                                bind(part.name, part.lineno, None, inner)
                            if part.type is not None:
                                own(part.type, part.lineno, inner)
                        else:
                            own(part.pattern, line, inner)
                            if part.guard is not None:
                                own(part.guard, line, inner)
                        block(part.body, inner)
                elif isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            own(item, line, path)
                elif isinstance(value, ast.AST):
                    own(value, line, path)

    block(scope.body, ())
    return bindings, calls


def _size(node, bindings: dict, line: int, path: tuple, depth: int = 0):
    """An int (at most that many rows) or SMALL when the expression is a frame its module shows to be small;
    UNKNOWN otherwise."""
    while depth < 16:
        depth += 1
        if isinstance(node, ast.Name):
            found = _bound_value(node.id, bindings, line, path)
            if found is None:
                return UNKNOWN
            line, node = found
            continue
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return UNKNOWN
        method = node.func.attr
        if method == "createDataFrame":
            data = node.args[0] if node.args else None
            while isinstance(data, ast.Name):
                found = _bound_value(data.id, bindings, line, path)
                data = found[1] if found is not None else None
            return SMALL if isinstance(data, _LITERAL_ROWS) else UNKNOWN  # a call may return an RDD
        if method == "limit":
            n = node.args[0] if node.args else None
            ok = isinstance(n, ast.Constant) and isinstance(n.value, int) and 0 <= n.value <= _MAX_ROWS
            return n.value if ok else UNKNOWN
        if method == "range":
            count = _range_size(node)
            return count if count is not None and count <= _MAX_ROWS else UNKNOWN
        if method not in _KEEPS_ROWS:
            return UNKNOWN
        node = node.func.value
    return UNKNOWN


def _bound_value(name: str, bindings: dict, line: int, path: tuple):
    """(line, value) of the one straight-line binding of `name` in force at `line`: every binding of the name
    that can reach the use (those before it; all of them when the use is in a loop) is a plain assignment in one
    block that holds the use (or a block around it); else None."""
    found = bindings.get(name)
    if found and not any(loop for _, loop in path):
        found = [b for b in found if b[0] < line]
    if not found:
        return None
    paths = {p for _, _, p in found}
    if len(paths) != 1 or any(value is None for _, value, _ in found):
        return None
    block = next(iter(paths))
    if path[:len(block)] != block:
        return None
    earlier = [(n, v) for n, v, _ in found if n < line]
    return max(earlier, key=lambda item: item[0]) if earlier else None


def _range_size(node: ast.Call):
    """The number of rows of `spark.range(...)` with literal arguments, or None."""
    args = node.args
    if not args or len(args) > 3 or node.keywords:
        return None
    ints = []
    for a in args:
        value = a.value if isinstance(a, ast.Constant) else None
        if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and isinstance(a.operand, ast.Constant):
            value = -a.operand.value if isinstance(a.operand.value, int) else None
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        ints.append(value)
    start, end, step = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
    if step == 0:
        return None
    return max(0, -((start - end) // step)) if step > 0 else max(0, -((end - start) // -step))
