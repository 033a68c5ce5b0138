"""Paths of data shipped with the code: a read of a file the code finds next to itself, or of a sample the
repository holds (linter/datafiles.py measures those).

``os.path.join(os.path.dirname(__file__), "..", "resources", "orders.csv")`` names a file on the local disk,
beside the module that reads it: sample or fixture data that travels with the code (an example's input, a
lookup file in the package). On a cluster Spark's executors read such a ``file:`` path from their own disks,
so a job can use one only when it runs in local mode or ships a small file along; either way it is not the
big table a driver rule or an inference pass is about. Decided from the code alone (the file need not exist:
the corpus copy of a repository may leave its data out), so the cache needs no key for it.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from linter.semantic.values import FUNCTION, IMPORT, dotted_name, literal_string, target_names
from linter.sources.python import child_nodes, walk

# Functions and methods whose result is a path under their first argument (or their receiver).
_PATH_FUNCTIONS = frozenset((
    "os.path.join", "os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.normpath",
    "os.path.expanduser", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "str", "os.fspath",
))
_PATH_METHODS = frozenset(("joinpath", "resolve", "absolute", "as_posix", "with_name", "with_suffix", "format"))
_PATH_ATTRIBUTES = frozenset(("parent", "parents"))


class ShippedFiles:
    """Mixed into ``Semantic``: whether a path expression is built from ``__file__``, or names sample data the
    repository holds (linter/datafiles.py)."""

    bundled_source = None  # (path, document text) of the file checked (Semantic's argument); None: nothing measured

    def local_sample(self, node) -> bool:
        """A read's path that names sample data: built from ``__file__``, or a literal path (directly or
        through a name, as ``text_of`` reads it) of small files the repository holds."""
        if self.shipped_with_code(node):
            return True
        if self.bundled_source is None:
            return False
        found = self.__dict__.get("_bundled")
        if found is None:
            from linter.datafiles import measured

            found = self.__dict__["_bundled"] = measured(*self.bundled_source)
        if not found:
            return False
        text = self.text_of(node)
        return text is not None and text in found

    def downloaded_sample(self, node) -> bool:
        """A read's path inside a folder this file fills from a fixed URL: `requests.get(f"{URL}/{name}")` saved
        with `open(f"{folder}/{name}", "wb")`, `urlretrieve(URL, path)`. The tutorials of Fabric and Databricks
        fetch their published sample this way before reading it: fixed data, whose types cannot drift. Its size
        is not known, so this vouches for no bound on its rows."""
        folders = self.__dict__.get("_download_folders")
        if folders is None:
            folders = self.download_folders()
            if self.neighbours:  # a notebook: its series' other notebooks may have fetched the sample
                from linter.semantic.neighbours import neighbour_downloads

                folders += neighbour_downloads(self.bundled_source[0])
            self.__dict__["_download_folders"] = folders
        if not folders:
            return False
        text = self.text_of(node)
        if text is None:
            return False
        path = _normal_path(text)
        return any(path == folder or path.startswith(folder + "/") for folder in folders)

    def download_folders(self) -> tuple:
        """The folders (as `_normal_path` writes them) of the files this file writes when it also downloads
        from a fixed `http(s)://` address; () when it downloads nothing."""
        if not _DOWNLOAD_HINT.search(self.text or ""):
            return ()
        calls: list = []
        if self.scopes[0].node is not None:
            walk(self.scopes[0].node, {cst.Call: [calls.append]}, {}, [])
        fetched, written = False, []
        for call in calls:
            name = self.qualified_name(call.func) or dotted_name(call.func) or ""
            args = [a.value for a in call.args if a.keyword is None and not a.star]
            if name in _DOWNLOADS and args and _FIXED_URL.match(self._text_prefix(args[0]) or ""):
                fetched = True
                if name.endswith(("urlretrieve", "download")) and len(args) > 1:
                    written.append(args[1])  # `urlretrieve(URL, path)`, `wget.download(URL, path)`
            elif name == "open" and len(args) > 1 and literal_string(args[1]) in ("wb", "xb"):
                written.append(args[0])  # a download is saved as bytes (a text file written is the job's own)
        if not fetched:
            return ()
        folders = []
        for path in written:
            prefix = self._text_prefix(path)
            folder = _normal_path(prefix.rsplit("/", 1)[0]) if prefix and "/" in prefix else ""
            levels = [part for part in folder.split(":", 1)[-1].split("/") if part]
            if len(levels) >= 2:  # at least two levels (`Files/churn`, `/tmp/demo`), never a bare `/tmp` or `/mnt`
                folders.append(folder)
        return tuple(folders)

    def _text_prefix(self, node) -> Optional[str]:
        """The start of a string expression that the file proves: all of ``text_of``, or an f-string's (or a
        `+`'s) parts up to the first one it does not (`f"{folder}/{name}"` with a loop's `name`)."""
        text = self.text_of(node)
        if text is not None:
            return text
        if isinstance(node, cst.FormattedString):
            out = []
            for part in node.parts:
                text = part.value if isinstance(part, cst.FormattedStringText) else \
                    self.text_of(part.expression) if part.format_spec is None and part.conversion is None else None
                if text is None:
                    break
                out.append(text)
            return "".join(out) or None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self._text_prefix(node.left)
        return None

    def shipped_with_code(self, node, depth: int = 0, function=None) -> bool:
        """Whether ``node`` (a read's path) is built from the module's own location: ``__file__``, directly or
        through a name bound once to such a path (`HERE = Path(__file__).parent`, then `HERE / "data.csv"`),
        joined, made absolute or formatted into an f-string's start, or returned by a function of the module
        that builds it so (``sample_path("orders.csv")``). ``function``: the module's function whose own
        names ``node`` reads (a return statement's), when it is not the one being walked."""
        if node is None or depth > 16:  # (a name bound to itself is not followed around forever)
            return False
        cls = node.__class__
        if cls is cst.Name:
            if node.value == "__file__":
                return self.bindings("__file__") == 0  # (a file that assigns `__file__` says what it holds)
            bound = self._path_binding(node.value, function)
            return bound is not None and self.shipped_with_code(bound, depth + 1, function)
        if cls is cst.Call:
            func = node.func
            if func.__class__ is cst.Attribute and func.attr.value in _PATH_METHODS:
                if func.attr.value == "format":  # "{}/data.csv".format(HERE): the first field starts the path
                    return bool(node.args) and self.shipped_with_code(node.args[0].value, depth + 1, function) \
                        and _starts_with_field(func.value)
                return self.shipped_with_code(func.value, depth + 1, function)
            name = self.qualified_name(func) if func.__class__ is cst.Attribute else None
            if name is None and func.__class__ is cst.Name:
                value = self.lookup(func.value)
                defined = self.later_defs.get(func.value)
                if defined is not None and function is None and self.bindings(func.value) == 0 and \
                        (value is None or value.kind == FUNCTION and value.node is defined):
                    # the module's own helper, defined once; not given a path of its own (`data("/mnt/x")`:
                    # joined under the helper's folder, an absolute path starts afresh)
                    return not any(_rooted(a.value) for a in node.args) and self._returns_shipped(defined, depth)
                name = value.detail if value is not None and value.kind == IMPORT else func.value
            return name in _PATH_FUNCTIONS and bool(node.args) and node.args[0].keyword is None \
                and not any(_rooted(a.value) for a in node.args[1:]) \
                and self.shipped_with_code(node.args[0].value, depth + 1, function)  # (join(HERE, "/mnt/x"): /mnt/x)
        if cls is cst.Attribute:
            return node.attr.value in _PATH_ATTRIBUTES and self.shipped_with_code(node.value, depth + 1, function)
        if cls is cst.Subscript:  # Path(__file__).parents[1]
            return self.shipped_with_code(node.value, depth + 1, function)
        if cls is cst.BinaryOperation and isinstance(node.operator, (cst.Divide, cst.Add)):
            if isinstance(node.operator, cst.Divide) and _rooted(node.right):
                return False  # Path(__file__).parent / "/mnt/x" is /mnt/x
            return self.shipped_with_code(node.left, depth + 1, function)  # HERE / "data.csv", HERE + "/data.csv"
        if cls is cst.FormattedString:
            # f"{HERE}/data.csv"; in a function of the module also f"{scheme}{path}", a parameter put before
            # the path (the `file:` a caller may add), but never literal text before it (f"s3://{path}")
            for part in node.parts:
                if part.__class__ is not cst.FormattedStringExpression:
                    return False
                if self.shipped_with_code(part.expression, depth + 1, function):
                    return True
                if function is None or not _parameter(function, part.expression):
                    return False
            return False
        if cls is cst.IfExp and function is not None:  # `path if prepend is None else f"{prepend}{path}"`
            return self.shipped_with_code(node.body, depth + 1, function) and \
                self.shipped_with_code(node.orelse, depth + 1, function)
        return False

    def _returns_shipped(self, function, depth: int) -> bool:
        """Whether every return of the module's function ``function`` (not a nested one's) gives a path
        shipped with the code: `def sample_path(name): return os.path.join(HERE, "data", name)`."""
        if not isinstance(function, cst.FunctionDef) or function.asynchronous or function.decorators:
            return False
        returns = []
        for node in own_nodes(function):
            if node.__class__ is cst.Return:
                returns.append(node.value)
            elif node.__class__ is cst.Yield:
                return False
        return bool(returns) and all(self.shipped_with_code(r, depth + 1, function) for r in returns)

    def _path_binding(self, name: str, function=None) -> Optional[cst.BaseExpression]:
        """What ``name`` is bound to, when one assignment binds it: in the function being walked (its own
        statements) or in ``function``, else at the module's top level."""
        if function is not None:
            if _parameter(function, cst.Name(name)) or assigns(function, name):
                return single_assignment(function, name)
            return self.module_assignment(name) if self.bindings(name) == 1 else None
        for scope in reversed(self.scopes):
            if scope.kind == "function" and isinstance(scope.node, cst.FunctionDef):
                if name in scope.names:
                    return single_assignment(scope.node, name)
            elif scope.kind == "module":
                break
            elif scope.kind != "class" and name in scope.names:
                return None  # a lambda's parameter, a comprehension's target
        # the module's one top-level assignment, and no other binding anywhere (`if args: HERE = args[0]`)
        return self.module_assignment(name) if self.bindings(name) == 1 else None

    def assigned_expression(self, name: str) -> Optional[cst.BaseExpression]:
        """The expression ``name`` is assigned, when one assignment binds it (in the function being walked, or at
        the module's top level with no other binding anywhere); None otherwise."""
        return self._path_binding(name)

    def assigned_expressions(self, name: str) -> list:
        """Every value the function being walked assigns ``name``, one per branch (`if len(cols) > 1: key =
        F.concat_ws("|", *cols)` / `else: key = cols[0]`), or, when it binds it no other way, the one assignment
        ``assigned_expression`` finds; [] when neither is known."""
        for scope in reversed(self.scopes):
            if scope.kind == "function" and isinstance(scope.node, cst.FunctionDef):
                if name in scope.names:
                    return assignments(scope.node, name) or []
                break
            if scope.kind == "module":
                break
        single = self.assigned_expression(name)
        return [single] if single is not None else []

    def bindings(self, name: str) -> int:
        """How many statements anywhere in the module bind ``name`` (assignments, loop and `with` targets,
        imports, `global` declarations): counted once per name, on first ask."""
        counts = self.__dict__.setdefault("_binding_counts", {})
        if name not in counts:
            counts[name] = _count_bindings(self.scopes[0].node, name)
        return counts[name]


_DOWNLOAD_HINT = re.compile(r"\b(?:requests|httpx|urlopen|urlretrieve|wget)\b")
_DOWNLOADS = frozenset(("requests.get", "httpx.get", "urllib.request.urlopen", "urllib.request.urlretrieve",
                        "wget.download"))
_FIXED_URL = re.compile(r"https?://[^/{}]+/")  # a scheme and a host the file spells out


def _normal_path(text: str) -> str:
    """A path as a read and a download both spell it: no doubled or trailing `/`, no `file:` scheme, and
    Fabric's mount of the default lakehouse (`/lakehouse/default/Files/x`) as Spark's relative `Files/x`,
    `/dbfs/x` as `dbfs:/x`."""
    text = text.strip()
    if text.startswith("file:"):  # `file:///tmp/x`, `file:/tmp/x`: the local disk, as `open` names it
        text = "/" + text[len("file:"):].lstrip("/")
    text = re.sub(r"(?<!:)/{2,}", "/", text).rstrip("/")
    if text.startswith("/lakehouse/default/"):
        return text[len("/lakehouse/default/"):]
    if text.startswith("/dbfs/"):
        return "dbfs:/" + text[len("/dbfs/"):]
    return text


def _rooted(node) -> bool:
    """A string literal that starts a path afresh: `/mnt/x`, `s3://x` (a join or `/` with it drops the left)."""
    text = getattr(node, "evaluated_value", None) if isinstance(node, cst.SimpleString) else None
    return isinstance(text, str) and (text.startswith(("/", "\\")) or ":" in text.split("/", 1)[0])


def _count_bindings(module, name: str) -> int:
    if module is None:
        return 0
    count, stack = 0, [module]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is cst.AssignTarget or cls is cst.AugAssign or cls is cst.AnnAssign or cls is cst.For \
                or cls is cst.NamedExpr or cls is cst.AsName or cls is cst.CompFor:
            names: set = set()
            target_names(getattr(node, "target", None) or getattr(node, "name", None), names)
            count += name in names
        elif cls is cst.Global and any(n.name.value == name for n in node.names):
            count += 1
        elif cls is cst.ImportAlias and node.asname is None and dotted_name(node.name) == name:
            count += 1
        stack.extend(child_nodes(node))
    return count


def parameter_names(function) -> list:
    """The names of a function's positional and keyword parameters, in order (not `*args` or `**kwargs`)."""
    params = function.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def _parameter(function, node) -> bool:
    """``node`` is a name of one of ``function``'s parameters."""
    if node.__class__ is not cst.Name:
        return False
    params = function.params
    return any(p.name.value == node.value for p in (*params.posonly_params, *params.params, *params.kwonly_params,
                                                    params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))


def assigns(function, name: str) -> bool:
    """Whether ``function``'s own statements bind ``name`` at all (then the module's value is not the one read)."""
    for node in own_nodes(function):
        if node.__class__ in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.AsName):
            names: set = set()
            target_names(getattr(node, "target", None) or getattr(node, "name", None), names)
            if name in names:
                return True
    return False


def own_nodes(function):
    """The nodes of a function's own body, depth first; nested functions, classes and lambdas left out (their
    names are theirs)."""
    stack = list(child_nodes(function.body))
    while stack:
        node = stack.pop()
        if node.__class__ in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        yield node
        stack.extend(child_nodes(node))


def _starts_with_field(node) -> bool:
    """A format string whose text starts with its first field: ``"{}/data.csv"``, ``"{0}/x"``."""
    text = getattr(node, "value", None)
    return isinstance(text, str) and text.lstrip("rbuRBU").lstrip("'\"").startswith(("{}", "{0}"))


def single_assignment(function, name: str):
    """The value of the one ``name = value`` among a function's own statements (nested definitions aside);
    None when it assigns the name never, more than once, or otherwise (a loop target, a parameter). Rules ask
    it too (SPK301's `env = "" if x is None else x`, then `F.lit(env)`)."""
    found = assignments(function, name)
    return found[0] if found is not None and len(found) == 1 else None


def assignments(function, name: str) -> Optional[list]:
    """The values of every ``name = value`` among a function's own statements (nested definitions aside), in no
    particular order: each is what the name may hold after its branch (`if len(cols) > 1: key = F.concat_ws("|", *cols)`
    / `else: key = cols[0]`). None when the name is bound otherwise too (a parameter, a loop target, `+=`)."""
    found = []
    params = function.params
    if any(p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
        return None
    for node in own_nodes(function):
        cls = node.__class__
        if cls is cst.Assign:
            for target in node.targets:
                if target.target.__class__ is cst.Name and target.target.value == name:
                    found.append(node.value)
        elif cls in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr) and \
                getattr(node.target, "value", None) == name:
            return None
    return found
