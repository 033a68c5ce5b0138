"""The other PySpark linters' own published examples, as benchmark cases.

Run by hand:  .venv/bin/python bench/peer_cases.py [--keep DIR] [--show PEER:RULE]

Each peer (bench/_peers.py) ships examples of what its rules must flag and must not flag: fixture
files and code strings in its tests, "bad"/"good" blocks in its rule docs, before/after examples
on its rule classes.  ``CASES`` lists them, one dict per snippet:

    {"peer", "rule": the peer's rule id, "kind": "positive" | "negative",
     "lang": "python" | "sql" (the kind of file to write it to: pipeline-lint also reads .sql),
     "source": path inside the unpacked distribution, "locate": how to cut the snippet out of it,
     "fragment": True for a documentation snippet (no imports, may not be a whole program),
     "note": where it comes from / what it shows,
     and where they apply: "context": import lines to put before a fragment, for the peer and for
     sparkcheck alike (both skip a file that never mentions Spark), "filename": the file name
     the peer's test uses when the rule looks at it (``test_*.py``), "expect_lines": the lines a
     pipeline-lint ``bad_*`` fixture marks with ``# expect:``}

The snippets themselves are not copied here: ``fetch(tmpdir)`` downloads the peers' distributions
(pinned to the versions bench/_peers.py was checked on) with pip and unpacks them, and
``extract(case, roots)`` reads one snippet from them at run time.  A positive case is code the
peer's rule must flag, a negative one code it must not flag, as the peer's own test or doc says
(a multi-rule file is a positive case for each rule it is said to show).

Distributions: the sdist (``pip download --no-binary :all: --no-deps``) of pipeline-lint, cylint,
spark-perf-lint and sparkdoctor; pyspark-antipattern publishes no sdist (wheels only, a compiled
Rust binary), so its wheel is fetched and its cases come from the rule documentation compiled into
the binary (the same markdown its ``show_best_practice`` option prints: "Bad:"/"Good:" blocks).
sparkdoctor 0.1.8's sdist cannot be built (its hatch config force-includes ``../../core/rules``),
so pip stops before saving the archive; fetch() keeps pip's unpacked copy of it instead
(``--no-clean``), which is the sdist's content.

``locate`` forms (line numbers 1-based, ranges inclusive; all but a whole file are dedented):
    {"file": True}                                   the whole file
    {"lines": [[a, b], ...], "strip": RE, "strip_end": RE}
        those lines (dedented), RE removed at each line's start / end
    {"md": HEADING, "occurrence": n, "block": k, "block_lines": [a, b]}
        the k-th fenced code block (0-based) in the section opened by the markdown heading line
        HEADING (its n-th occurrence, 0-based; the section ends at the next heading of the same or
        a higher level), optionally only lines a..b of that block
    {"embedded_md": True, ... the same keys as "md"}  the same, in the markdown compiled into a binary
    {"function": "Class.test_name", "call": NAME, "nth": i, "arg": j | "kw", "param": p,
     "prefix": EXPR}
        a Python test: the argument j of the i-th call (in source order) to NAME (a function or
        method name) in that test function, evaluated as a string expression: string literals,
        f-strings, ``+``, ``*``, ``textwrap.dedent``, str methods, names assigned earlier in the
        function, class attributes, module constants, the test's ``pytest.mark.parametrize``
        value number p, and calls to the test module's small string-building helpers; EXPR (a
        module-level expression) is put before the dedented text, as the peer's test harness does
    {"attr": "Class.name"}                           a string class attribute (or module constant)
"""

from __future__ import annotations

import ast
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import zipfile
from collections import Counter

# The versions bench/_peers.py parses (and /work/labels/peer_rules.md lists).
VERSIONS = {
    "pipeline-lint": "0.1.0",
    "cylint": "0.1.5",
    "spark-perf-lint": "0.1.0",
    "sparkdoctor": "0.1.8",
    "pyspark-antipattern": "0.4.1",
}
WHEEL_ONLY = {"pyspark-antipattern"}  # no sdist on the index: the wheel is unpacked instead
# The wheel is platform-specific; one platform is asked for so that every host reads the same file.
WHEEL_PLATFORM = "manylinux2014_x86_64"
PAP_BINARY = "pyspark_antipattern-0.4.1.data/scripts/pyspark-antipattern"


# --------------------------------------------------------------------------------------------
# fetch


def fetch(tmpdir: str) -> dict:
    """Download and unpack each peer's distribution under ``tmpdir``; return ``{peer: root}``.

    Raises RuntimeError naming the peers whose distribution could not be had.
    """
    roots, failures = {}, {}
    for peer, version in VERSIONS.items():
        dest = os.path.join(tmpdir, "dl", peer)
        os.makedirs(dest, exist_ok=True)
        try:
            roots[peer] = _fetch_one(peer, version, dest, os.path.join(tmpdir, "src"))
        except RuntimeError as exc:
            failures[peer] = str(exc)
    if failures:
        raise RuntimeError("; ".join(f"{p}: {why}" for p, why in failures.items()))
    return roots


def _fetch_one(peer: str, version: str, dest: str, unpack_to: str) -> str:
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", dest]
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    if peer in WHEEL_ONLY:
        cmd = [*pip, "--only-binary", ":all:", "--platform", WHEEL_PLATFORM, f"{peer}=={version}"]
        done = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env)
        wheels = glob.glob(os.path.join(dest, "*.whl"))
        if not wheels:
            raise RuntimeError(f"pip download of the wheel failed: {_tail(done)}")
        root = os.path.join(unpack_to, f"{peer}-{version}-wheel")
        with zipfile.ZipFile(wheels[0]) as zf:
            zf.extractall(root)
        return root
    # pip unpacks an sdist in its own temporary folder to read its metadata; with --no-clean it
    # leaves it there, which is how a sdist whose build fails (sparkdoctor) is still read.
    piptmp = os.path.join(dest, "piptmp")
    os.makedirs(piptmp, exist_ok=True)
    cmd = [*pip, "--no-binary", ":all:", "--no-clean", f"{peer}=={version}"]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, env=dict(env, TMPDIR=piptmp))
    archives = [p for p in glob.glob(os.path.join(dest, "*")) if p.endswith((".tar.gz", ".zip", ".tgz"))]
    try:
        if archives:
            return _unpack(archives[0], unpack_to)
        norm = peer.replace("-", "_")
        for info in glob.glob(os.path.join(piptmp, "pip-*", "*", "PKG-INFO")):
            folder = os.path.dirname(info)
            if os.path.basename(folder).replace("-", "_").lower().startswith(norm):
                root = os.path.join(unpack_to, f"{norm}-{version}")
                shutil.copytree(folder, root, dirs_exist_ok=True)
                return root
        raise RuntimeError(f"pip download of the sdist failed: {_tail(done)}")
    finally:
        shutil.rmtree(piptmp, ignore_errors=True)


def _unpack(archive: str, unpack_to: str) -> str:
    os.makedirs(unpack_to, exist_ok=True)
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            top = {n.split("/")[0] for n in zf.namelist()}
            zf.extractall(unpack_to)
    else:
        with tarfile.open(archive) as tf:
            members = [m for m in tf.getmembers() if not (m.issym() or m.islnk() or m.isdev())]
            for m in members:
                if m.name.startswith("/") or ".." in m.name.split("/"):
                    raise RuntimeError(f"unsafe path in {archive}: {m.name}")
            top = {m.name.split("/")[0] for m in members}
            if hasattr(tarfile, "data_filter"):
                tf.extractall(unpack_to, members=members, filter="data")
            else:
                tf.extractall(unpack_to, members=members)
    if len(top) != 1:
        raise RuntimeError(f"{archive}: expected one top-level folder, found {sorted(top)[:5]}")
    return os.path.join(unpack_to, top.pop())


def _tail(done: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in (done.stderr or done.stdout or "").splitlines()
             if ln.strip() and "is ignored" not in ln]
    return lines[-1].strip()[:300] if lines else f"pip exited {done.returncode}"


# --------------------------------------------------------------------------------------------
# extract


class ExtractError(Exception):
    pass


def extract(case: dict, roots: dict) -> str:
    """The snippet text of ``case``, read from the unpacked distribution ``roots[case["peer"]]``."""
    path = os.path.join(roots[case["peer"]], case["source"])
    loc = case["locate"]
    if loc.get("embedded_md"):
        text = _embedded_markdown(path)
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    if loc.get("file"):
        out = text
    elif "lines" in loc:
        lines = text.splitlines()
        picked = []
        for a, b in loc["lines"]:
            if not 1 <= a <= b <= len(lines):
                raise ExtractError(f"{case['source']}: lines {a}-{b} outside 1-{len(lines)}")
            picked.extend(lines[a - 1:b])
        out = textwrap.dedent("\n".join(picked))
        start, end = loc.get("strip"), loc.get("strip_end")
        if start or end:
            kept = []
            for ln in out.splitlines():
                if start:
                    ln = re.sub(f"^(?:{start})", "", ln, count=1)
                if end:
                    ln = re.sub(f"(?:{end})$", "", ln, count=1)
                kept.append(ln)
            out = textwrap.dedent("\n".join(kept))
        out += "\n"
    elif "md" in loc:
        out = _markdown_block(text, loc)
    elif "function" in loc:
        out = _PyModule(text, case["source"]).call_argument(loc)
    elif "attr" in loc:
        out = textwrap.dedent(_PyModule(text, case["source"]).attribute(loc["attr"]))
    else:
        raise ExtractError(f"unknown locate {loc!r}")
    if not out.endswith("\n"):
        out += "\n"
    return out


_EMBEDDED: dict = {}


def _embedded_markdown(path: str) -> str:
    """The rule documentation compiled into pyspark-antipattern's binary: one run of UTF-8 text
    from the first ``# Rule XXX000`` heading up to the next NUL byte (the pages are stored back to
    back, other string constants follow them), each page's heading put on a line of its own."""
    if path not in _EMBEDDED:
        with open(path, "rb") as f:
            data = f.read()
        m = re.search(rb"# Rule [A-Z]+[0-9]{3}\n", data)
        if m is None:
            raise ExtractError(f"{path}: no embedded rule documentation found")
        end = data.find(b"\x00", m.start())
        text = data[m.start():end if end >= 0 else len(data)].decode("utf-8", "replace")
        # The pages are stored back to back, some without a final newline: "```# Rule D101".
        _EMBEDDED[path] = re.sub(r"(?<!\n)(# Rule [A-Z]+[0-9]{3}\b|# [A-Z]+[0-9]{3} —)", r"\n\1", text)
    return _EMBEDDED[path]


_FENCE = re.compile(r"^\s*(```+|~~~+)")
_HEADING = re.compile(r"^(#{1,6})\s")


def _markdown_block(text: str, loc: dict) -> str:
    lines = text.splitlines()
    want, occurrence = loc["md"].rstrip(), loc.get("occurrence", 0)
    in_fence, start, level, seen = None, None, 0, 0
    for i, line in enumerate(lines):
        fence = _FENCE.match(line)
        if fence:
            in_fence = None if in_fence and fence.group(1).startswith(in_fence) else (in_fence or fence.group(1))
            continue
        if in_fence:
            continue
        head = _HEADING.match(line)
        if head and line.rstrip() == want:
            if seen == occurrence:
                start, level = i + 1, len(head.group(1))
                break
            seen += 1
    if start is None:
        raise ExtractError(f"heading {want!r} (occurrence {occurrence}) not found")
    blocks, current, in_fence = [], None, None
    for line in lines[start:]:
        fence = _FENCE.match(line)
        if fence and in_fence is None:
            in_fence, current = fence.group(1), []
            continue
        if fence and in_fence and fence.group(1).startswith(in_fence) and line.strip() == fence.group(1):
            blocks.append(current)
            in_fence, current = None, None
            continue
        if in_fence is not None:
            current.append(line)
            continue
        head = _HEADING.match(line)
        if head and len(head.group(1)) <= level:
            break
    k = loc.get("block", 0)
    if k >= len(blocks):
        raise ExtractError(f"heading {want!r}: no code block {k} (it has {len(blocks)})")
    block = blocks[k]
    if "block_lines" in loc:
        a, b = loc["block_lines"]
        if not 1 <= a <= b <= len(block):
            raise ExtractError(f"heading {want!r} block {k}: lines {a}-{b} outside 1-{len(block)}")
        block = block[a - 1:b]
    return textwrap.dedent("\n".join(block)) + "\n"


class _Unsupported(ExtractError):
    pass


_STR_METHODS = {"strip", "lstrip", "rstrip", "join", "format", "replace", "lower", "upper",
                "removeprefix", "removesuffix"}


class _PyModule:
    """Reads string expressions out of a peer's test module without importing or running it."""

    def __init__(self, text: str, name: str):
        self.name = name
        self.tree = ast.parse(text)
        self.names, self.funcs, self.classes = {}, {}, {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.names[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                self.names[node.target.id] = node.value
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.funcs[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node

    # -- finding things

    def _class_attrs(self, cls: ast.ClassDef | None) -> dict:
        attrs = {}
        while cls is not None:
            for node in cls.body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    attrs.setdefault(node.targets[0].id, node.value)
            base = cls.bases[0] if cls.bases else None
            cls = self.classes.get(base.id) if isinstance(base, ast.Name) else None
        return attrs

    def _function(self, qualname: str):
        parts = qualname.split(".")
        if len(parts) == 1:
            if parts[0] not in self.funcs:
                raise ExtractError(f"{self.name}: no function {qualname}")
            return None, self.funcs[parts[0]]
        cls = self.classes.get(parts[0])
        if cls is None:
            raise ExtractError(f"{self.name}: no class {parts[0]}")
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == parts[1]:
                return cls, node
        raise ExtractError(f"{self.name}: no method {qualname}")

    def attribute(self, qualname: str) -> str:
        parts = qualname.split(".")
        if len(parts) == 1:
            node = self.names.get(parts[0])
            cls = None
        else:
            cls = self.classes.get(parts[0])
            node = self._class_attrs(cls).get(parts[1]) if cls else None
        if node is None:
            raise ExtractError(f"{self.name}: no attribute {qualname}")
        value = self._eval(node, _Scope(self, cls, None, {}, 10 ** 9))
        if not isinstance(value, str):
            raise ExtractError(f"{self.name}: {qualname} is not a string")
        return value

    def call_argument(self, loc: dict) -> str:
        cls, func = self._function(loc["function"])
        name = loc["call"]
        calls = [n for n in ast.walk(func) if isinstance(n, ast.Call) and _callee(n) == name]
        calls.sort(key=lambda n: (n.lineno, n.col_offset))
        nth = loc.get("nth", 0)
        if nth >= len(calls):
            raise ExtractError(f"{self.name}: {loc['function']} has {len(calls)} calls to {name}, not {nth + 1}")
        call = calls[nth]
        arg = loc.get("arg", 0)
        if isinstance(arg, int):
            if arg >= len(call.args):
                raise ExtractError(f"{self.name}: {loc['function']}: call {name} has no argument {arg}")
            node = call.args[arg]
        else:
            kws = [k.value for k in call.keywords if k.arg == arg]
            if not kws:
                raise ExtractError(f"{self.name}: {loc['function']}: call {name} has no keyword {arg}")
            node = kws[0]
        params = self._params(func, loc.get("param"))
        value = self._eval(node, _Scope(self, cls, func, params, call.lineno))
        if not isinstance(value, str):
            raise ExtractError(f"{self.name}: {loc['function']}: argument is {type(value).__name__}, not str")
        value = textwrap.dedent(value)
        if loc.get("prefix"):
            prefix = self._eval(ast.parse(loc["prefix"], mode="eval").body, _Scope(self, cls, None, {}, 10 ** 9))
            value = prefix + value
        return value

    def _params(self, func, index) -> dict:
        marks = [d for d in func.decorator_list
                 if isinstance(d, ast.Call) and _dotted(d.func).endswith("parametrize")]
        if index is None:
            return {}
        if len(marks) != 1:
            raise _Unsupported(f"{self.name}: {func.name}: {len(marks)} parametrize marks")
        mark = marks[0]
        scope = _Scope(self, None, None, {}, 10 ** 9)
        names = self._eval(mark.args[0], scope)
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        values = mark.args[1]
        if not isinstance(values, (ast.List, ast.Tuple)):
            values = self.names.get(values.id) if isinstance(values, ast.Name) else None
            if not isinstance(values, (ast.List, ast.Tuple)):
                raise _Unsupported(f"{self.name}: {func.name}: parametrize values not a literal list")
        item = values.elts[index]
        if isinstance(item, ast.Call) and _dotted(item.func).endswith("param"):
            elts = item.args
        elif len(names) > 1 and isinstance(item, (ast.Tuple, ast.List)):
            elts = item.elts
        else:
            elts = [item]
        if len(elts) != len(names):
            raise _Unsupported(f"{self.name}: {func.name}: parametrize arity")
        return {n: ("node", e) for n, e in zip(names, elts)}

    # -- evaluating

    def _eval(self, node, scope: _Scope):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(part.value)
                    continue
                value = self._eval(part.value, scope)
                if part.conversion == ord("r"):
                    value = repr(value)
                elif part.conversion == ord("a"):
                    value = ascii(value)
                spec = self._eval(part.format_spec, scope) if part.format_spec else ""
                out.append(format(value, spec))
            return "".join(out)
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, scope), self._eval(node.right, scope)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Mod) and isinstance(left, str):
                return left % right
            raise _Unsupported(f"operator {type(node.op).__name__}")
        if isinstance(node, (ast.Tuple, ast.List)):
            values = [self._eval(e, scope) for e in node.elts]
            return tuple(values) if isinstance(node, ast.Tuple) else values
        if isinstance(node, ast.Name):
            return scope.lookup(node.id, node)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                attrs = self._class_attrs(scope.cls)
                if node.attr in attrs:
                    return self._eval(attrs[node.attr], _Scope(self, scope.cls, None, {}, 10 ** 9))
            if isinstance(node.value, ast.Name) and node.value.id in self.classes:
                attrs = self._class_attrs(self.classes[node.value.id])
                if node.attr in attrs:
                    return self._eval(attrs[node.attr], _Scope(self, self.classes[node.value.id], None, {}, 10 ** 9))
            raise _Unsupported(f"attribute {ast.unparse(node)}")
        if isinstance(node, ast.Subscript):
            value = self._eval(node.value, scope)
            if isinstance(node.slice, ast.Slice):
                s = node.slice
                index = slice(*(self._eval(x, scope) if x is not None else None for x in (s.lower, s.upper, s.step)))
            else:
                index = self._eval(node.slice, scope)
            return value[index]
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
                raise _Unsupported("comprehension")
            gen = node.generators[0]
            out = []
            for item in self._eval(gen.iter, scope):
                out.append(self._eval(node.elt, scope.bind(gen.target, item)))
            return out
        if isinstance(node, ast.Call):
            return self._call(node, scope)
        raise _Unsupported(f"{type(node).__name__}: {ast.unparse(node)[:80]}")

    def _call(self, node: ast.Call, scope: _Scope):
        dotted = _dotted(node.func)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise _Unsupported("starred call")
        if dotted in ("textwrap.dedent", "dedent"):
            return textwrap.dedent(self._eval(node.args[0], scope))
        if dotted in ("pytest.param",):
            return self._eval(node.args[0], scope)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS:
            target = self._eval(node.func.value, scope)
            if isinstance(target, str):
                args = [self._eval(a, scope) for a in node.args]
                kwargs = {k.arg: self._eval(k.value, scope) for k in node.keywords}
                return getattr(target, node.func.attr)(*args, **kwargs)
        if isinstance(node.func, ast.Name) and node.func.id in self.funcs and not scope.shadows(node.func.id):
            args = [self._eval(a, scope) for a in node.args]
            kwargs = {k.arg: self._eval(k.value, scope) for k in node.keywords}
            return self._run_helper(self.funcs[node.func.id], args, kwargs)
        if dotted == "range" and 1 <= len(node.args) <= 3 and not node.keywords:
            bounds = [self._eval(a, scope) for a in node.args]
            if all(isinstance(b, int) for b in bounds) and len(range(*bounds)) <= 10_000:
                return list(range(*bounds))
        if dotted == "str" and len(node.args) == 1:
            return str(self._eval(node.args[0], scope))
        raise _Unsupported(f"call {ast.unparse(node)[:80]}")

    def _run_helper(self, func: ast.FunctionDef, args: list, kwargs: dict):
        """Interpret a small helper of the test module: assignments, then ``return``."""
        a = func.args
        values = {}
        positional = [p.arg for p in a.posonlyargs + a.args]
        defaults = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        for i, pname in enumerate(positional):
            if i < len(args):
                values[pname] = ("value", args[i])
            elif pname in kwargs:
                values[pname] = ("value", kwargs.pop(pname))
            elif pname in defaults:
                values[pname] = ("node", defaults[pname])
            else:
                raise _Unsupported(f"helper {func.name}: missing argument {pname}")
        if a.vararg:
            values[a.vararg.arg] = ("value", tuple(args[len(positional):]))
        elif len(args) > len(positional):
            raise _Unsupported(f"helper {func.name}: too many arguments")
        for kwo, default in zip(a.kwonlyargs, a.kw_defaults):
            if kwo.arg in kwargs:
                values[kwo.arg] = ("value", kwargs.pop(kwo.arg))
            elif default is not None:
                values[kwo.arg] = ("node", default)
        if kwargs:
            raise _Unsupported(f"helper {func.name}: unexpected keywords {sorted(kwargs)}")
        scope = _Scope(self, None, None, values, 10 ** 9)
        for stmt in func.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                scope.values[stmt.targets[0].id] = ("value", self._eval(stmt.value, scope))
                continue
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                return self._eval(stmt.value, scope)
            raise _Unsupported(f"helper {func.name}: statement {type(stmt).__name__}")
        raise _Unsupported(f"helper {func.name}: no return")


class _Scope:
    def __init__(self, module: _PyModule, cls, func, values: dict, before_line: int):
        self.module, self.cls, self.func, self.values, self.before_line = module, cls, func, dict(values), before_line

    def bind(self, target, value) -> _Scope:
        new = _Scope(self.module, self.cls, self.func, self.values, self.before_line)
        if isinstance(target, ast.Name):
            new.values[target.id] = ("value", value)
        elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            items = list(value)
            if len(items) != len(target.elts):
                raise _Unsupported("unpacking arity")
            for e, v in zip(target.elts, items):
                new.values[e.id] = ("value", v)
        else:
            raise _Unsupported("comprehension target")
        return new

    def shadows(self, name: str) -> bool:
        return name in self.values

    def lookup(self, name: str, node):
        if name in self.values:
            how, value = self.values[name]
            return self.module._eval(value, _Scope(self.module, self.cls, None, {}, 10 ** 9)) if how == "node" else value
        if self.func is not None:
            found = _last_assignment(self.func, name, self.before_line)
            if found is not None:
                stmt = found
                inner = _Scope(self.module, self.cls, self.func, self.values, stmt.lineno)
                if isinstance(stmt, ast.AugAssign):
                    if not isinstance(stmt.op, ast.Add):
                        raise _Unsupported("augmented assignment")
                    return inner.lookup(name, node) + self.module._eval(stmt.value, inner)
                return self.module._eval(stmt.value, inner)
        if name in self.module.names:
            return self.module._eval(self.module.names[name], _Scope(self.module, None, None, {}, 10 ** 9))
        raise _Unsupported(f"name {name}")


def _last_assignment(func, name: str, before_line: int):
    """The last plain assignment to ``name`` in ``func`` that starts before ``before_line``."""
    best = None
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            target = node.target
        else:
            continue
        if (isinstance(target, ast.Name) and target.id == name and node.lineno < before_line
                and (best is None or node.lineno > best.lineno)):
            best = node
    return best


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    return ""


# --------------------------------------------------------------------------------------------
# the cases
#
# Found by reading each distribution (tests, fixtures, rule docs, rule classes), classified by the
# assertion or label that goes with each snippet, then checked by running the peer itself on every
# snippet as a file (a fragment with its ``context`` line before it): where the peer does not do
# what its own example says, the note says so ("NB: ...").  Left out: pipeline-lint tests run with
# another SQL dialect (databricks, postgres, sqlite) and spark-perf-lint tests run with non-default
# thresholds, since the peers run with their defaults here; pipeline-lint's ``bad_example`` /
# ``good_example`` class strings (each mixes SQL and Python in one text; its rule pages carry the
# same examples split by language); spark-perf-lint's docs/*.md (the rule classes' examples again)
# and its integration tests (their fixture files are not in the sdist); cylint's samples/ (demo
# jobs with no expected findings); fragments that are not Python (33 of spark-perf-lint's
# before/after examples: a bare ``.config(...)`` line, a chain continued on the next line without
# parentheses); documentation blocks that only illustrate (diagrams, comment-only "Good" blocks,
# single settings) or do not say the rule stays quiet (sparkdoctor's "broadcast it if the cross
# join is intentional").  sparkdoctor's sdist has no tests (its repository
# keeps them out of the sdist): its cases are the code in its rule YAML's suggestions.

# What a documentation fragment needs before it to be read as PySpark: pipeline-lint,
# spark-perf-lint, sparkdoctor and sparkcheck skip a file that never mentions Spark, and names such
# as ``col``, ``udf``, ``collect_list`` or ``F`` are pyspark's only through an import.  The same
# line(s) go before the fragment for every tool, so that none is judged on a file it skips.
FRAGMENT_CONTEXT = (
    "from pyspark.sql import SparkSession, Window\n"
    "from pyspark.sql import functions as F\n"
    "from pyspark.sql.functions import *\n"
    "from pyspark.sql.types import *\n"
)
AIRFLOW_CONTEXT = "from airflow import DAG\n"  # pipeline-lint's DE006/DE007 fragments

_KINDS = {"+": "positive", "-": "negative"}


def _case(peer, rule, kind, source, locate, note, fragment, lang, extra) -> dict:
    case = {"peer": peer, "rule": rule, "kind": _KINDS[kind], "lang": lang, "source": source,
            "locate": locate, "fragment": fragment, "note": note}
    case.update(extra)
    if fragment and case["lang"] == "python" and "context" not in case:
        airflow = peer == "pipeline-lint" and rule in ("DE006", "DE007")
        case["context"] = AIRFLOW_CONTEXT if airflow else FRAGMENT_CONTEXT
    return case


def _cases(peer, source, rows, fragment=False, lang="python") -> list:
    """Rows ``(rule, "+"|"-", locate, note[, extra])``; with ``source=None`` each row names its
    own source after the kind.  A "md" locate in pyspark-antipattern's binary is read from the
    markdown compiled into it (``embedded_md``)."""
    out = []
    for row in rows:
        row = list(row)
        extra = row.pop() if isinstance(row[-1], dict) and len(row) > (5 if source is None else 4) else {}
        if source is None:
            rule, kind, src, locate, note = row
        else:
            (rule, kind, locate, note), src = row, source
        if src == PAP_BINARY:
            locate = {"embedded_md": True, **locate}
        extra = dict(extra)
        out.append(_case(peer, rule, kind, src, locate, note, fragment, extra.pop("lang", lang), extra))
    return out


def _tests(peer, source, rows) -> list:
    """Rows ``(rule, "+"|"-", test function, call, nth, arg[, extra])``: the snippet is argument
    ``arg`` of the ``nth`` call to ``call`` in that test (see ``locate`` above); extra keys
    ``param``/``prefix`` go to the locate, ``note``/``lang``/``filename`` to the case (``filename``:
    the name the peer's test gives the file, where the rule looks at it, e.g. ``test_*.py``)."""
    out = []
    for row in rows:
        rule, kind, function, call, nth, arg, *more = row
        extra = dict(more[0]) if more else {}
        locate = {"function": function, "call": call, "nth": nth, "arg": arg}
        for key in ("param", "prefix"):
            if key in extra:
                locate[key] = extra.pop(key)
        note = f"test {function}" + (f" [parametrize value {locate['param']}]" if "param" in locate else "")
        if extra.get("note"):
            note += ": " + extra.pop("note")
        extra.pop("note", None)
        out.append(_case(peer, rule, kind, source, locate, note, False, extra.pop("lang", "python"), extra))
    return out


CASES: list = []

CASES += _cases('pipeline-lint', None, [
    ('DE001', '+', 'tests/fixtures/DE001/bad_daily_load.sql', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'lang': 'sql', 'expect_lines': [4, 17]}),
    ('DE001', '+', 'tests/fixtures/DE001/bad_databricks_notebook.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [9, 18]}),
    ('DE001', '+', 'tests/fixtures/DE001/bad_pyspark_appends.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [17, 20, 23, 27]}),
    ('DE001', '-', 'tests/fixtures/DE001/good_idempotent_loads.sql', {'file': True},
     'fixture (good_*): no finding expected', {'lang': 'sql'}),
    ('DE001', '-', 'tests/fixtures/DE001/good_pyspark_idempotent.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE002', '+', 'tests/fixtures/DE002/bad_insert_overwrite.sql', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'lang': 'sql', 'expect_lines': [3]}),
    ('DE002', '+', 'tests/fixtures/DE002/bad_overwrite_whole_table.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [17, 22, 27]}),
    ('DE002', '-', 'tests/fixtures/DE002/good_dynamic_mode.sql', {'file': True},
     'fixture (good_*): no finding expected', {'lang': 'sql'}),
    ('DE002', '-', 'tests/fixtures/DE002/good_dynamic_mode_session.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE002', '-', 'tests/fixtures/DE002/good_insert_overwrite_partition.sql', {'file': True},
     'fixture (good_*): no finding expected', {'lang': 'sql'}),
    ('DE002', '-', 'tests/fixtures/DE002/good_scoped_overwrites.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE003', '+', 'tests/fixtures/DE003/bad_pyspark_filters.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [11, 12, 14, 16, 18]}),
    ('DE003', '+', 'tests/fixtures/DE003/bad_report_queries.sql', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'lang': 'sql', 'expect_lines': [6, 7, 10, 17, 23]}),
    ('DE003', '-', 'tests/fixtures/DE003/good_not_spark.py', {'file': True}, 'fixture (good_*): no finding expected'),
    ('DE003', '-', 'tests/fixtures/DE003/good_parameterized_dates.sql', {'file': True},
     'fixture (good_*): no finding expected', {'lang': 'sql'}),
    ('DE003', '-', 'tests/fixtures/DE003/good_pyspark_filters.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE004', '+', 'tests/fixtures/DE004/bad_pyspark_star.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [8, 10, 12]}),
    ('DE004', '+', 'tests/fixtures/DE004/bad_star_writes.sql', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'lang': 'sql', 'expect_lines': [2, 8, 13]}),
    ('DE004', '-', 'tests/fixtures/DE004/good_explicit_columns.sql', {'file': True},
     'fixture (good_*): no finding expected', {'lang': 'sql'}),
    ('DE004', '-', 'tests/fixtures/DE004/good_pyspark_columns.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE005', '+', 'tests/fixtures/DE005/bad_collect_to_driver.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [11, 21, 27]}),
    ('DE005', '+', 'tests/fixtures/DE005/bad_databricks_notebook.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [12]}),
    ('DE005', '-', 'tests/fixtures/DE005/good_bounded_actions.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE005', '-', 'tests/fixtures/DE005/good_not_spark.py', {'file': True}, 'fixture (good_*): no finding expected'),
    ('DE006', '+', 'tests/fixtures/DE006/bad_ingestion_dags.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [15, 25, 41]}),
    ('DE006', '-', 'tests/fixtures/DE006/good_dags_with_retries.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE006', '-', 'tests/fixtures/DE006/good_not_airflow.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE007', '+', 'tests/fixtures/DE007/bad_catchup_dags.py', {'file': True},
     "fixture (bad_*): the lines its expect: comments name", {'expect_lines': [16, 20, 23, 27]}),
    ('DE007', '-', 'tests/fixtures/DE007/good_catchup_dags.py', {'file': True},
     'fixture (good_*): no finding expected'),
    ('DE006', '+', 'examples/dags/daily_revenue_dag.py', {'file': True},
     "example file; the README's sample output shows DE006 in it (also DE007)"),
    ('DE007', '+', 'examples/dags/daily_revenue_dag.py', {'file': True},
     "example file; the README's sample output shows DE007 in it (also DE006)"),
    ('DE001', '+', 'examples/sql/load_orders.sql', {'file': True},
     "example file; the README's sample output shows DE001 in it (also DE004, DE003)", {'lang': 'sql'}),
    ('DE004', '+', 'examples/sql/load_orders.sql', {'file': True},
     "example file; the README's sample output shows DE004 in it (also DE001, DE003)", {'lang': 'sql'}),
    ('DE003', '+', 'examples/sql/load_orders.sql', {'file': True},
     "example file; the README's sample output shows DE003 in it (also DE001, DE004)", {'lang': 'sql'}),
])

CASES += _cases('pipeline-lint', None, [
    ('DE004', '+', 'docs/rules/DE004.md', {'md': '## Example', 'block': 0, 'block_lines': [1, 3]}, 'Problematic',
     {'lang': 'sql'}),
    ('DE004', '-', 'docs/rules/DE004.md', {'md': '## Example', 'block': 0, 'block_lines': [5, 7]},
     'explicit column list', {'lang': 'sql'}),
    ('DE005', '+', 'docs/rules/DE005.md', {'md': '## Example', 'block': 0, 'block_lines': [1, 3]}, 'Problematic'),
    ('DE005', '-', 'docs/rules/DE005.md', {'md': '## Example', 'block': 0, 'block_lines': [5, 6]}, 'Distributed'),
    ('DE005', '-', 'docs/rules/DE005.md', {'md': '## Example', 'block': 0, 'block_lines': [8, 9]},
     'Bounded on purpose (limit before toPandas)'),
    ('DE006', '+', 'docs/rules/DE006.md', {'md': '## Example', 'block': 0, 'block_lines': [1, 8]},
     'DAG without retries'),
    ('DE006', '-', 'docs/rules/DE006.md', {'md': '## Example', 'block': 0, 'block_lines': [10, 15]},
     'default_args with retries (the dict alone)'),
    ('DE007', '+', 'docs/rules/DE007.md', {'md': '## Example', 'block': 0, 'block_lines': [1, 8]},
     'catchup=True with a moving start_date'),
    ('DE007', '-', 'docs/rules/DE007.md', {'md': '## Example', 'block': 0, 'block_lines': [10, 17]},
     'catchup=True with a fixed start_date'),
], fragment=True)

CASES += _cases('pipeline-lint', 'docs/rules/DE001.md', [
    ('DE001', '+', {'md': '## Example', 'block': 0, 'block_lines': [1, 3]}, 'Problematic', {'lang': 'sql'}),
    ('DE001', '-', {'md': '## Example', 'block': 0, 'block_lines': [5, 8]},
     'Idempotent: DELETE then INSERT of the same window', {'lang': 'sql'}),
    ('DE001', '-', {'md': '## Example', 'block': 0, 'block_lines': [10, 14]}, 'Idempotent: MERGE', {'lang': 'sql'}),
    ('DE001', '+', {'md': '## Example', 'block': 1, 'block_lines': [1, 2]}, 'Problematic'),
    ('DE001', '-', {'md': '## Example', 'block': 1, 'block_lines': [4, 10]}, 'overwrite with replaceWhere'),
], fragment=True)

CASES += _cases('pipeline-lint', 'docs/rules/DE002.md', [
    ('DE002', '+', {'md': '## Example', 'block': 0, 'block_lines': [1, 7]},
     'overwrite + partitionBy replaces every day'),
    ('DE002', '-', {'md': '## Example', 'block': 0, 'block_lines': [9, 15]}, 'overwrite with replaceWhere'),
    ('DE002', '+', {'md': '## Example', 'block': 1, 'block_lines': [1, 4]}, 'INSERT OVERWRITE without PARTITION',
     {'lang': 'sql'}),
    ('DE002', '-', {'md': '## Example', 'block': 1, 'block_lines': [6, 9]}, 'INSERT OVERWRITE ... PARTITION (...)',
     {'lang': 'sql'}),
], fragment=True)

CASES += _cases('pipeline-lint', 'docs/rules/DE003.md', [
    ('DE003', '+', {'md': '## Example', 'block': 0, 'block_lines': [1, 2]}, 'Problematic', {'lang': 'sql'}),
    ('DE003', '-', {'md': '## Example', 'block': 0, 'block_lines': [4, 5]}, 'templated date', {'lang': 'sql'}),
    ('DE003', '+', {'md': '## Example', 'block': 1, 'block_lines': [1, 2]}, 'Problematic'),
    ('DE003', '-', {'md': '## Example', 'block': 1, 'block_lines': [4, 6]}, "date from the run's configuration"),
], fragment=True)

CASES += _cases('pipeline-lint', 'examples/daily_revenue_job.py', [
    ('DE003', '+', {'file': True},
     "example file; the README's sample output shows DE003 in it (also DE005, DE001, DE002)"),
    ('DE005', '+', {'file': True},
     "example file; the README's sample output shows DE005 in it (also DE003, DE001, DE002)"),
    ('DE001', '+', {'file': True},
     "example file; the README's sample output shows DE001 in it (also DE003, DE005, DE002)"),
    ('DE002', '+', {'file': True},
     "example file; the README's sample output shows DE002 in it (also DE003, DE005, DE001)"),
])

CASES += _tests('pipeline-lint', 'tests/rules/test_airflow_rules.py', [
    ('DE006', '+', 'test_de006_points_at_dag_name', 'lint', 0, 1, {'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '+', 'test_de006_attribute_dag', 'lint', 0, 1),
    ('DE006', '+', 'test_de006_bare_decorator', 'lint', 0, 1, {'prefix': "'from airflow.decorators import dag\\n'"}),
    ('DE006', '+', 'test_de006_retries_zero', 'lint', 0, 1, {'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 0, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 1, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 2, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 3, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 4, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 5, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_not_flagged', 'lint', 0, 1, {'param': 6, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE006', '-', 'test_de006_ignored_without_airflow_import', 'lint', 0, 1),
    ('DE007', '+', 'test_de007_points_at_catchup_value', 'lint', 0, 1, {'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 0, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 1, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 2, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 3, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 4, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 5, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 6, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_dates', 'lint', 0, 1, {'param': 7, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '+', 'test_de007_dynamic_start_date_in_default_args', 'lint', 0, 1, {'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '-', 'test_de007_not_flagged', 'lint', 0, 1, {'param': 0, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '-', 'test_de007_not_flagged', 'lint', 0, 1, {'param': 1, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '-', 'test_de007_not_flagged', 'lint', 0, 1, {'param': 2, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '-', 'test_de007_not_flagged', 'lint', 0, 1, {'param': 3, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '-', 'test_de007_not_flagged', 'lint', 0, 1, {'param': 4, 'prefix': 'AIRFLOW_IMPORT'}),
    ('DE007', '-', 'test_de007_not_flagged', 'lint', 0, 1, {'param': 5, 'prefix': 'AIRFLOW_IMPORT'}),
])

CASES += _tests('pipeline-lint', 'tests/rules/test_de001.py', [
    ('DE001', '+', 'test_insert_values_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '-', 'test_delete_before_insert_same_table', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '+', 'test_delete_after_insert_does_not_help', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '+', 'test_delete_of_another_table_does_not_help', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '-', 'test_table_names_match_case_insensitively_and_by_suffix', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '-', 'test_truncate_before_insert', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '-', 'test_idempotent_spark_statements', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 0}),
    ('DE001', '-', 'test_idempotent_spark_statements', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 1}),
    ('DE001', '-', 'test_idempotent_spark_statements', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 2}),
    ('DE001', '+', 'test_templated_sql_is_parsed', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '+', 'test_unparsable_statement_becomes_notice_and_rest_is_checked', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE001', '+', 'test_append_mode_points_at_mode_call', 'lint_py', 0, 1),
    ('DE001', '+', 'test_append_mode_keyword_and_case', 'lint_py', 0, 1),
    ('DE001', '+', 'test_append_through_writer_variable', 'lint_py', 0, 1),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 0}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 1}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 2}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 3}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 4}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 5}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 6}),
    ('DE001', '-', 'test_non_append_writes_are_allowed', 'lint_py', 0, 1, {'param': 7}),
    ('DE001', '+', 'test_insert_into_without_overwrite', 'lint_py', 0, 1),
    ('DE001', '+', 'test_writer_v2_append', 'lint_py', 0, 1),
    ('DE001', '-', 'test_delete_in_spark_sql_before_append', 'lint_py', 0, 1),
    ('DE001', '+', 'test_delete_in_spark_sql_after_append_does_not_help', 'lint_py', 0, 1),
    ('DE001', '-', 'test_append_ignored_outside_spark_code', 'lint_py', 0, 1),
    ('DE001', '+', 'test_embedded_sql_line_mapping', 'lint_py', 0, 1),
    ('DE001', '+', 'test_embedded_sql_through_variable', 'lint_py', 0, 1),
    ('DE001', '-', 'test_fstring_sql_is_not_parsed', 'lint_py', 0, 1),
    ('DE001', '+', 'test_plain_insert_is_flagged_with_table_name_and_position', 'lint_sql', 0, 1, {'lang': 'sql'}),
])

CASES += _tests('pipeline-lint', 'tests/rules/test_de002.py', [
    ('DE002', '+', 'test_overwrite_points_at_mode_call', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE002', '+', 'test_partition_by_trap_is_explained', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE002', '+', 'test_partition_by_before_mode_is_also_explained', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 0, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 1, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 2, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 3, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 4, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 5, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 6, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 7, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 8, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_scoped_or_non_overwrite_writes_are_allowed', 'lint_py', 0, 1,
     {'param': 9, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '+', 'test_static_partition_overwrite_mode_is_still_flagged', 'lint_py', 0, 1,
     {'prefix': 'SPARK_IMPORT'}),
    ('DE002', '+', 'test_insert_into_overwrite_is_flagged_once', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE002', '+', 'test_insert_into_overwrite_is_flagged_once', 'lint_py', 1, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_session_dynamic_mode_exempts_the_file', 'lint_py', 0, 1,
     {'param': 0, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_session_dynamic_mode_exempts_the_file', 'lint_py', 0, 1,
     {'param': 1, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_session_dynamic_mode_exempts_the_file', 'lint_py', 0, 1,
     {'param': 2, 'prefix': 'SPARK_IMPORT'}),
    ('DE002', '-', 'test_ignored_outside_spark_code', 'lint', 0, 1),
    ('DE002', '+', 'test_insert_overwrite_without_partition', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE002', '-', 'test_insert_overwrite_with_partition', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE002', '-', 'test_insert_overwrite_with_dynamic_partition_column', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE002', '+', 'test_window_partition_in_select_does_not_count', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE002', '+', 'test_overwrite_in_embedded_sql', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
])

CASES += _tests('pipeline-lint', 'tests/rules/test_de003.py', [
    ('DE003', '+', 'test_points_at_the_literal', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE003', '+', 'test_repeated_literal_is_reported_at_each_position', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 0}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 1}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 2}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 3}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 4}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 5}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 6}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 7}),
    ('DE003', '+', 'test_filter_comparisons_are_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 8}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 0}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 1}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 2}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 3}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 4}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 5}),
    ('DE003', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 6}),
    ('DE003', '+', 'test_join_condition_is_a_filter', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE003', '+', 'test_qualify_is_a_filter', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE003', '+', 'test_python_points_at_the_constant', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE003', '+', 'test_python_sql_expression_string', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE003', '-', 'test_python_sentinel_only_expression_string', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE003', '+', 'test_python_date_constructors', 'lint_py', 0, 1, {'param': 0, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '+', 'test_python_date_constructors', 'lint_py', 0, 1, {'param': 1, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '+', 'test_python_date_constructors', 'lint_py', 0, 1, {'param': 2, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '+', 'test_python_date_constructors', 'lint_py', 0, 1, {'param': 3, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '+', 'test_python_nested_between_reported_once', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE003', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 0, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 1, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 2, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 3, 'prefix': 'SPARK_IMPORT'}),
    ('DE003', '-', 'test_ignored_outside_spark_code', 'lint', 0, 1),
])

CASES += _tests('pipeline-lint', 'tests/rules/test_de004.py', [
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 0}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 1}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 2}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 3}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 4}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 5}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 6}),
    ('DE004', '+', 'test_star_feeding_a_write_is_flagged', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 7}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 0}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 1}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 2}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 3}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 4}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 5}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 6}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 7}),
    ('DE004', '-', 'test_not_flagged_in_sql', 'lint_sql', 0, 1, {'lang': 'sql', 'param': 8}),
    ('DE004', '+', 'test_message_names_the_target_table', 'lint_sql', 0, 1, {'lang': 'sql'}),
    ('DE004', '+', 'test_python_points_at_select', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE004', '+', 'test_python_star_next_to_other_columns', 'lint_py', 0, 1, {'prefix': 'SPARK_IMPORT'}),
    ('DE004', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 0, 'prefix': 'SPARK_IMPORT'}),
    ('DE004', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 1, 'prefix': 'SPARK_IMPORT'}),
    ('DE004', '-', 'test_python_not_flagged', 'lint_py', 0, 1, {'param': 2, 'prefix': 'SPARK_IMPORT'}),
    ('DE004', '-', 'test_ignored_outside_spark_code', 'lint', 0, 1),
])

CASES += _tests('pipeline-lint', 'tests/rules/test_de005.py', [
    ('DE005', '+', 'test_column_points_at_method_name', 'lint', 0, 1),
    ('DE005', '+', 'test_column_is_counted_in_characters_not_bytes', 'lint', 0, 1),
    ('DE005', '+', 'test_multiline_chain_reports_line_of_the_call', 'lint', 0, 1),
    ('DE005', '-', 'test_ignored_without_spark_import', 'lint', 0, 1),
    ('DE005', '+', 'test_spark_detected_from_imports', 'lint', 0, 1, {'param': 0}),
    ('DE005', '+', 'test_spark_detected_from_imports', 'lint', 0, 1, {'param': 1}),
    ('DE005', '+', 'test_spark_detected_from_imports', 'lint', 0, 1, {'param': 2}),
    ('DE005', '+', 'test_databricks_notebook_without_imports', 'lint', 0, 1),
    ('DE005', '-', 'test_limit_through_reassigned_variable', 'lint', 0, 1),
    ('DE005', '+', 'test_unbounded_variable_is_flagged', 'lint', 0, 1),
    ('DE005', '-', 'test_global_aggregate_is_allowed', 'lint', 0, 1),
    ('DE005', '+', 'test_grouped_aggregate_is_flagged', 'lint', 0, 1, {'param': 0}),
    ('DE005', '+', 'test_grouped_aggregate_is_flagged', 'lint', 0, 1, {'param': 1}),
    ('DE005', '+', 'test_grouped_aggregate_is_flagged', 'lint', 0, 1, {'param': 2}),
    ('DE005', '+', 'test_grouped_aggregate_is_flagged', 'lint', 0, 1, {'param': 3}),
    ('DE005', '-', 'test_call_with_arguments_is_not_a_dataframe_action', 'lint', 0, 1),
    ('DE005', '+', 'test_self_referencing_assignment_terminates', 'lint', 0, 1),
])

CASES += _tests('cylint', 'tests/test_rules.py', [
    ('CY001', '+', 'TestCY001Collect.test_unfiltered_collect', 'assert_rule_found', 0, 0),
    ('CY001', '-', 'TestCY001Collect.test_filtered_collect_no_finding', 'assert_no_findings', 0, 0),
    ('CY001', '-', 'TestCY001Collect.test_limited_collect_no_finding', 'assert_no_findings', 0, 0),
    ('CY001', '-', 'TestCY001Collect.test_collect_on_filtered_df', 'assert_no_findings', 0, 0),
    ('CY001', '+', 'TestCY001Collect.test_collect_on_sql', 'assert_rule_found', 0, 0),
    ('CY001', '-', 'TestCY001Collect.test_non_df_collect_no_finding', 'assert_no_findings', 0, 0),
    ('CY002', '+', 'TestCY002UDF.test_lambda_lower', 'assert_rule_found', 0, 0),
    ('CY002', '+', 'TestCY002UDF.test_lambda_upper', 'assert_rule_found', 0, 0),
    ('CY002', '+', 'TestCY002UDF.test_lambda_strip', 'assert_rule_found', 0, 0),
    ('CY002', '+', 'TestCY002UDF.test_lambda_len', 'assert_rule_found', 0, 0),
    ('CY002', '+', 'TestCY002UDF.test_lambda_abs', 'assert_rule_found', 0, 0),
    ('CY002', '-', 'TestCY002UDF.test_complex_udf_no_finding', 'assert_no_findings', 0, 0),
    ('CY002', '+', 'TestCY002UDF.test_none_check_udf', 'assert_rule_found', 0, 0),
    ('CY003', '+', 'TestCY003WithColumnLoop.test_for_loop_withcolumn', 'assert_rule_found', 0, 0),
    ('CY003', '-', 'TestCY003WithColumnLoop.test_single_withcolumn_no_finding', 'assert_no_findings', 0, 0),
    ('CY003', '+', 'TestCY003WithColumnLoop.test_while_loop_withcolumn', 'assert_rule_found', 0, 0),
    ('CY003', '-', 'TestCY003WithColumnLoop.test_withcolumns_in_loop_no_finding', 'assert_no_findings', 0, 0),
    ('CY004', '+', 'TestCY004SelectStar.test_select_star', 'assert_rule_found', 0, 0),
    ('CY004', '+', 'TestCY004SelectStar.test_select_star_with_where', 'assert_rule_found', 0, 0),
    ('CY004', '-', 'TestCY004SelectStar.test_select_columns_no_finding', 'assert_no_findings', 0, 0),
    ('CY004', '+', 'TestCY004SelectStar.test_fstring_select_star', 'assert_rule_found', 0, 0),
    ('CY005', '+', 'TestCY005Cache.test_cache_single_use', 'assert_rule_found', 0, 0),
    ('CY005', '+', 'TestCY005Cache.test_cache_no_use', 'assert_rule_found', 0, 0),
    ('CY005', '-', 'TestCY005Cache.test_cache_multiple_uses_no_finding', 'assert_no_findings', 0, 0),
    ('CY005', '-', 'TestCY005Cache.test_non_df_cache_no_finding', 'assert_no_findings', 0, 0),
    ('CY006', '+', 'TestCY006ToPandas.test_unfiltered_topandas', 'assert_rule_found', 0, 0),
    ('CY006', '-', 'TestCY006ToPandas.test_filtered_topandas_no_finding', 'assert_no_findings', 0, 0),
    ('CY006', '-', 'TestCY006ToPandas.test_agg_topandas_no_finding', 'assert_no_findings', 0, 0),
    ('CY007', '+', 'TestCY007CrossJoin.test_explicit_crossjoin', 'assert_rule_found', 0, 0),
    ('CY007', '+', 'TestCY007CrossJoin.test_join_without_condition', 'assert_rule_found', 0, 0),
    ('CY007', '-', 'TestCY007CrossJoin.test_join_with_on_no_finding', 'assert_no_findings', 0, 0),
    ('CY007', '-', 'TestCY007CrossJoin.test_join_with_positional_condition', 'assert_no_findings', 0, 0),
    ('CY007', '-', 'TestCY007CrossJoin.test_string_join_no_finding', 'assert_no_findings', 0, 0),
    ('CY007', '-', 'TestCY007CrossJoin.test_untracked_join_no_finding', 'assert_no_findings', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_repartition_write', 'assert_rule_found', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_coalesce_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_repartition_without_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_small_count_before_partitioned_write', 'assert_rule_found', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_large_count_before_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_column_no_partition_by', 'assert_rule_found', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_column_different_partition_by', 'assert_rule_found', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_large_count_plus_column_no_finding', 'assert_no_findings', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_small_count_plus_column', 'assert_rule_found', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_broader_columns_than_partition_by', 'assert_rule_found', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_boundary_count_101_no_finding', 'assert_no_findings', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_boundary_count_100_fires', 'assert_rule_found', 0, 0),
    ('CY008', '+', 'TestCY008Repartition.test_no_args_repartition', 'assert_rule_found', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_exact_column_match_suppressed', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_multi_column_match_suppressed', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_subset_of_partition_by_suppressed', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_f_col_style_suppressed', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_col_bare_style_suppressed', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_intermediate_methods_suppressed', 'assert_no_findings', 0, 0),
    ('CY008', '-', 'TestCY008Repartition.test_no_repartition_no_finding', 'assert_no_findings', 0, 0),
])

CASES += _tests('cylint', 'tests/test_rules_phase2.py', [
    ('CY009', '+', 'TestCY009UdfFilter.test_registered_udf_variable', 'assert_rule_found', 0, 0),
    ('CY009', '+', 'TestCY009UdfFilter.test_inline_udf_call', 'assert_rule_found', 0, 0),
    ('CY009', '+', 'TestCY009UdfFilter.test_udf_decorator', 'assert_rule_found', 0, 0),
    ('CY009', '+', 'TestCY009UdfFilter.test_pandas_udf_decorator', 'assert_rule_found', 0, 0),
    ('CY009', '+', 'TestCY009UdfFilter.test_lambda_in_filter', 'assert_rule_found', 0, 0),
    ('CY009', '+', 'TestCY009UdfFilter.test_where_with_udf', 'assert_rule_found', 0, 0),
    ('CY009', '-', 'TestCY009UdfFilter.test_builtin_expression_no_finding', 'assert_no_findings', 0, 0),
    ('CY009', '-', 'TestCY009UdfFilter.test_builtin_when_no_finding', 'assert_no_findings', 0, 0),
    ('CY009', '-', 'TestCY009UdfFilter.test_builtin_regexp_no_finding', 'assert_no_findings', 0, 0),
    ('CY009', '-', 'TestCY009UdfFilter.test_non_tracked_df_no_finding', 'assert_no_findings', 0, 0),
    ('CY010', '+', 'TestCY010JoinType.test_join_no_how_keyword', 'assert_rule_found', 0, 0),
    ('CY010', '+', 'TestCY010JoinType.test_join_list_condition_no_how', 'assert_rule_found', 0, 0),
    ('CY010', '+', 'TestCY010JoinType.test_join_expr_condition_no_how', 'assert_rule_found', 0, 0),
    ('CY010', '-', 'TestCY010JoinType.test_join_with_how_keyword_no_finding', 'assert_no_findings', 0, 0),
    ('CY010', '-', 'TestCY010JoinType.test_join_with_how_left_no_finding', 'assert_no_findings', 0, 0),
    ('CY010', '-', 'TestCY010JoinType.test_join_positional_how_no_finding', 'assert_no_findings', 0, 0),
    ('CY011', '+', 'TestCY011LoopColumns.test_withcolumnrenamed_in_loop', 'assert_rule_found', 0, 0),
    ('CY011', '+', 'TestCY011LoopColumns.test_drop_in_loop', 'assert_rule_found', 0, 0),
    ('CY011', '-', 'TestCY011LoopColumns.test_single_rename_no_finding', 'assert_no_findings', 0, 0),
    ('CY011', '-', 'TestCY011LoopColumns.test_non_df_loop_no_finding', 'assert_no_findings', 0, 0),
    ('CY012', '+', 'TestCY012DebugMethods.test_show', 'assert_rule_found', 0, 0),
    ('CY012', '+', 'TestCY012DebugMethods.test_show_with_n', 'assert_rule_found', 0, 0),
    ('CY012', '+', 'TestCY012DebugMethods.test_display', 'assert_rule_found', 0, 0),
    ('CY012', '+', 'TestCY012DebugMethods.test_printschema', 'assert_rule_found', 0, 0),
    ('CY012', '+', 'TestCY012DebugMethods.test_explain', 'assert_rule_found', 0, 0),
    ('CY012', '+', 'TestCY012DebugMethods.test_show_severity_is_warning', 'assert_rule_found', 0, 0),
    ('CY012', '-', 'TestCY012DebugMethods.test_non_df_show_no_finding', 'assert_no_findings', 0, 0),
    ('CY013', '+', 'TestCY013CoalesceWrite.test_coalesce_1_write_parquet', 'assert_rule_found', 0, 0),
    ('CY013', '+', 'TestCY013CoalesceWrite.test_coalesce_1_write_save_as_table', 'assert_rule_found', 0, 0),
    ('CY013', '+', 'TestCY013CoalesceWrite.test_coalesce_1_write_csv', 'assert_rule_found', 0, 0),
    ('CY013', '-', 'TestCY013CoalesceWrite.test_coalesce_4_no_finding', 'assert_no_findings', 0, 0),
    ('CY013', '-', 'TestCY013CoalesceWrite.test_coalesce_1_no_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY013', '-', 'TestCY013CoalesceWrite.test_repartition_1_not_caught_by_cy013', 'assert_no_findings', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_two_actions_no_cache', 'assert_rule_found', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_three_actions_no_cache', 'assert_rule_found', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_cached_before_second_action_no_finding', 'assert_no_findings', 0,
     0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_cached_via_assignment_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_single_action_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_severity_is_critical', 'assert_rule_found', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_chained_cache_in_assignment_no_finding', 'assert_no_findings', 0,
     0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_cache_to_new_variable_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_cache_propagated_through_chain_no_finding', 'assert_no_findings',
     0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_standalone_cache_expression_no_finding', 'assert_no_findings', 0,
     0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_persist_variant_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_alias_tracked_as_dataframe', 'assert_rule_found', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_alias_inherits_cache', 'assert_no_findings', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_show_plus_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_display_plus_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_show_display_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '-', 'TestCY014RepeatedActions.test_printschema_plus_write_no_finding', 'assert_no_findings', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_count_plus_write_fires', 'assert_rule_found', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_show_count_write_fires', 'assert_rule_found', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_multiple_writes_fires', 'assert_rule_found', 0, 0),
    ('CY014', '+', 'TestCY014RepeatedActions.test_cache_on_different_variable_fires', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_lit_true_join', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_greater_than_condition', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_not_equal_condition', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_bare_true_literal', 'assert_rule_found', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_equi_join_no_finding', 'assert_no_findings', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_string_condition_no_finding', 'assert_no_findings', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_mixed_equi_and_range_no_finding', 'assert_no_findings', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_keyword_on_greater_than', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_keyword_on_lit_true', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_keyword_on_not_equal', 'assert_rule_found', 0, 0),
    ('CY015', '+', 'TestCY015NonEquiJoin.test_keyword_on_non_column_expr', 'assert_rule_found', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_keyword_on_string_no_finding', 'assert_no_findings', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_keyword_on_list_no_finding', 'assert_no_findings', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_keyword_on_equi_no_finding', 'assert_no_findings', 0, 0),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_string_join_no_finding', 'assert_no_findings', 0, 0),
    ('CY016', '+', 'TestCY016InvalidEscape.test_invalid_escape_in_string', 'assert_rule_found', 0, 0,
     {'note': 'NB: cylint 0.1.5 itself does not flag it (on Python 3.11 an invalid escape is a DeprecationWarning; CY016 reads SyntaxWarnings)'}),
    ('CY016', '+', 'TestCY016InvalidEscape.test_multiple_invalid_escapes', 'assert_rule_found', 0, 0,
     {'note': '2 findings expected; NB: cylint 0.1.5 itself does not flag it (on Python 3.11 an invalid escape is a DeprecationWarning; CY016 reads SyntaxWarnings)'}),
    ('CY016', '-', 'TestCY016InvalidEscape.test_raw_string_no_finding', 'assert_no_findings', 0, 0),
    ('CY016', '-', 'TestCY016InvalidEscape.test_valid_escapes_no_finding', 'assert_no_findings', 0, 0),
    ('CY016', '+', 'TestCY016InvalidEscape.test_severity_is_info', 'assert_rule_found', 0, 0,
     {'note': 'NB: cylint 0.1.5 itself does not flag it (on Python 3.11 an invalid escape is a DeprecationWarning; CY016 reads SyntaxWarnings)'}),
    ('CY017', '+', 'TestCY017WindowPartition.test_variable_no_partition_by', 'assert_rule_found', 0, 0),
    ('CY017', '+', 'TestCY017WindowPartition.test_inline_window_spec', 'assert_rule_found', 0, 0),
    ('CY017', '+', 'TestCY017WindowPartition.test_order_by_desc_no_partition', 'assert_rule_found', 0, 0),
    ('CY017', '+', 'TestCY017WindowPartition.test_range_between_no_partition', 'assert_rule_found', 0, 0),
    ('CY017', '+', 'TestCY017WindowPartition.test_multiple_order_columns_no_partition', 'assert_rule_found', 0, 0),
    ('CY017', '-', 'TestCY017WindowPartition.test_partition_by_before_order_by_no_finding', 'assert_no_findings', 0,
     0),
    ('CY017', '-', 'TestCY017WindowPartition.test_partition_by_after_order_by_no_finding', 'assert_no_findings', 0,
     0),
    ('CY017', '-', 'TestCY017WindowPartition.test_partition_by_only_no_finding', 'assert_no_findings', 0, 0),
    ('CY017', '-', 'TestCY017WindowPartition.test_dynamic_partition_cols_no_finding', 'assert_no_findings', 0, 0),
    ('CY017', '-', 'TestCY017WindowPartition.test_window_defined_but_unused_no_finding', 'assert_no_findings', 0, 0),
    ('CY017', '-', 'TestCY017WindowPartition.test_partition_by_via_reassignment_no_finding', 'assert_no_findings', 0,
     0),
    ('CY017', '+', 'TestCY017WindowPartition.test_severity_is_warning', 'assert_rule_found', 0, 0),
    ('CY003', '+', 'TestCY011LoopColumns.test_withcolumn_defers_to_cy003', 'lint', 0, 0, {'note': 'CY003 must fire'}),
    ('CY011', '-', 'TestCY011LoopColumns.test_withcolumn_defers_to_cy003', 'lint', 0, 0,
     {'note': 'CY011 must not duplicate CY003'}),
    ('CY007', '+', 'TestCY015NonEquiJoin.test_no_duplicate_with_cy007', 'lint', 0, 0, {'note': 'CY007 must fire'}),
    ('CY015', '-', 'TestCY015NonEquiJoin.test_no_duplicate_with_cy007', 'lint', 0, 0,
     {'note': 'CY015 must not duplicate CY007'}),
    ('CY017', '+', 'TestCY017WindowPartition.test_multiple_specs_only_unpartitioned_fires', 'lint', 0, 0,
     {'note': 'one finding, for the unpartitioned window only'}),
])

CASES += _tests('cylint', 'tests/test_rules_phase4.py', [
    ('CY018', '+', 'TestCY018SchemaInference.test_csv_no_schema_fires', 'assert_rule_found', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_json_no_schema_fires', 'assert_rule_found', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_format_csv_load_fires', 'assert_rule_found', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_format_json_load_fires', 'assert_rule_found', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_infer_schema_true_string_fires', 'assert_rule_found', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_infer_schema_true_bool_fires', 'assert_rule_found', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_multiple_options_no_schema_fires', 'assert_rule_found', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_with_schema_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_infer_schema_false_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_parquet_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_delta_format_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_table_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_orc_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_avro_format_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_format_parquet_load_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '+', 'TestCY018SchemaInference.test_sqlcontext_read_csv_fires', 'assert_rule_found', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_infer_schema_false_bool_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_schema_kwarg_csv_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_schema_kwarg_json_no_fire', 'assert_no_findings', 0, 0),
    ('CY018', '-', 'TestCY018SchemaInference.test_schema_kwarg_load_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_count_gt_zero_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_count_eq_zero_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_count_ne_zero_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_reversed_comparison_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_not_count_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_assigned_then_compared_fires', 'assert_rule_found', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_count_gt_100_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_count_used_as_value_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_count_in_arithmetic_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_count_passed_to_function_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_dual_use_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_gte_one_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_lt_one_fires', 'assert_rule_found', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_count_gte_zero_tautology_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '-', 'TestCY020CountEmptiness.test_count_lt_zero_contradiction_no_fire', 'assert_no_findings', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_while_count_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_assert_count_fires', 'assert_rule_found', 0, 0),
    ('CY020', '+', 'TestCY020CountEmptiness.test_count_lte_zero_fires', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_cache_no_unpersist_fires', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_persist_no_unpersist_fires', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_partial_unpersist_fires_on_uncovered', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_unpersist_different_var_fires', 'assert_rule_found', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_with_unpersist_no_fire', 'assert_no_findings', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_unpersist_in_finally_no_fire', 'assert_no_findings', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_no_cache_no_fire', 'assert_no_findings', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_nested_function_no_double_fire', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_chained_filter_cache_fires', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_annotated_assign_cache_fires', 'assert_rule_found', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_annotated_assign_with_unpersist_no_fire', 'assert_no_findings', 0,
     0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_self_df_cache_fires', 'assert_rule_found', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_self_df_cache_with_unpersist_no_fire', 'assert_no_findings', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_self_df_assigned_cache_fires', 'assert_rule_found', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_self_df_assigned_cache_with_unpersist_no_fire',
     'assert_no_findings', 0, 0),
    ('CY025', '-', 'TestCY025MissingUnpersist.test_unpersist_in_assignment_no_fire', 'assert_no_findings', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_self_df_persist_fires', 'assert_rule_found', 0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_self_df_persist_fires', 'assert_rule_found', 1, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_collect_in_for_loop_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_to_local_iterator_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_chained_collect_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_assigned_then_iterated_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_topandas_iterrows_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_list_comprehension_fires', 'assert_rule_found', 0, 0),
    ('CY031', '-', 'TestCY031CollectIteration.test_python_list_no_fire', 'assert_no_findings', 0, 0),
    ('CY031', '-', 'TestCY031CollectIteration.test_collect_not_in_loop_no_fire', 'assert_no_findings', 0, 0),
    ('CY031', '-', 'TestCY031CollectIteration.test_pandas_iterrows_not_pyspark_no_fire', 'assert_no_findings', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_dict_comprehension_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_topandas_assigned_then_iterated_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_chained_select_collect_fires', 'assert_rule_found', 0, 0),
    ('CY031', '+', 'TestCY031CollectIteration.test_assigned_collect_list_comprehension_fires', 'assert_rule_found',
     0, 0),
    ('CY025', '+', 'TestCY025MissingUnpersist.test_partial_unpersist_no_false_finding', 'lint', 0, 0,
     {'note': 'one finding, for df1 only (df2 is unpersisted)'}),
    ('CY031', '+', 'TestCY031CollectIteration.test_to_local_iterator_message', 'lint', 0, 0,
     {'note': 'for row in df.toLocalIterator()'}),
    ('CY031', '+', 'TestCY031CollectIteration.test_topandas_iterrows_message', 'lint', 0, 0,
     {'note': 'for ... in df.toPandas().iterrows()'}),
])

CASES += _cases('cylint', 'tests/test_sample.py', [
    ('CY001', '+', {'lines': [[1, 7], [9, 11]]}, "labelled sample: the '# CY001' section, with the file's imports"),
    ('CY002', '+', {'lines': [[1, 7], [13, 16]]}, "labelled sample: the '# CY002' section, with the file's imports"),
    ('CY003', '+', {'lines': [[1, 7], [18, 22]]}, "labelled sample: the '# CY003' section, with the file's imports"),
    ('CY004', '+', {'lines': [[1, 7], [24, 25]]}, "labelled sample: the '# CY004' section, with the file's imports"),
    ('CY005', '+', {'lines': [[1, 7], [27, 30]]}, "labelled sample: the '# CY005' section, with the file's imports"),
    ('CY006', '+', {'lines': [[1, 7], [32, 34]]}, "labelled sample: the '# CY006' section, with the file's imports"),
    ('CY007', '+', {'lines': [[1, 7], [36, 40]]}, "labelled sample: the '# CY007' section, with the file's imports"),
    ('CY008', '+', {'lines': [[1, 7], [42, 44]]}, "labelled sample: the '# CY008' section, with the file's imports"),
    ('CY001', '-', {'lines': [[1, 7], [48, 49]]},
     "labelled sample, 'should NOT trigger' part: Filtered collect is fine"),
    ('CY006', '-', {'lines': [[1, 7], [51, 52]]},
     "labelled sample, 'should NOT trigger' part: toPandas after agg is fine"),
    ('CY007', '-', {'lines': [[1, 7], [37, 38], [54, 55]]},
     "labelled sample, 'should NOT trigger' part: join with condition is fine"),
    ('CY008', '-', {'lines': [[1, 7], [57, 58]]},
     "labelled sample, 'should NOT trigger' part: coalesce before write is fine"),
])

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d01_cluster_config.py', [
    ('SPL-D01-001', '+', {'attr': 'MissingKryoSerializerRule.before_example'}, ''),
    ('SPL-D01-002', '+', {'attr': 'ExecutorMemoryNotConfiguredRule.before_example'}, ''),
    ('SPL-D01-003', '+', {'attr': 'DriverMemoryNotConfiguredRule.before_example'}, ''),
    ('SPL-D01-004', '+', {'attr': 'DynamicAllocationNotEnabledRule.before_example'}, ''),
    ('SPL-D01-007', '+', {'attr': 'MissingPySparkWorkerMemoryRule.before_example'}, ''),
    ('SPL-D01-009', '+', {'attr': 'SpeculationNotEnabledRule.before_example'}, ''),
    ('SPL-D01-010', '+', {'attr': 'DefaultShufflePartitionsRule.before_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d02_shuffle.py', [
    ('SPL-D02-001', '+', {'attr': 'GroupByKeyRule.before_example'}, ''),
    ('SPL-D02-001', '-', {'attr': 'GroupByKeyRule.after_example'}, ''),
    ('SPL-D02-002', '+', {'attr': 'DefaultShufflePartitionsRule.before_example'}, ''),
    ('SPL-D02-003', '+', {'attr': 'RepartitionBeforeJoinRule.before_example'}, ''),
    ('SPL-D02-003', '-', {'attr': 'RepartitionBeforeJoinRule.after_example'}, ''),
    ('SPL-D02-004', '+', {'attr': 'OrderByWithoutLimitRule.before_example'}, ''),
    ('SPL-D02-004', '-', {'attr': 'OrderByWithoutLimitRule.after_example'}, ''),
    ('SPL-D02-005', '+', {'attr': 'DistinctWithoutFilterRule.before_example'}, ''),
    ('SPL-D02-005', '-', {'attr': 'DistinctWithoutFilterRule.after_example'}, ''),
    ('SPL-D02-006', '+', {'attr': 'ShuffleFollowedByCoalesceRule.before_example'}, ''),
    ('SPL-D02-006', '-', {'attr': 'ShuffleFollowedByCoalesceRule.after_example'}, ''),
    ('SPL-D02-007', '+', {'attr': 'MultipleShufflesInSequenceRule.before_example'}, ''),
    ('SPL-D02-007', '-', {'attr': 'MultipleShufflesInSequenceRule.after_example'},
     'NB: spark-perf-lint 0.1.0 itself flags it'),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d03_joins.py', [
    ('SPL-D03-001', '+', {'attr': 'CrossJoinRule.before_example'}, ''),
    ('SPL-D03-001', '-', {'attr': 'CrossJoinRule.after_example'}, ''),
    ('SPL-D03-002', '+', {'attr': 'MissingBroadcastHintRule.before_example'}, ''),
    ('SPL-D03-002', '-', {'attr': 'MissingBroadcastHintRule.after_example'}, ''),
    ('SPL-D03-004', '+', {'attr': 'JoinWithoutFilterRule.before_example'},
     'NB: spark-perf-lint 0.1.0 itself does not flag it'),
    ('SPL-D03-004', '-', {'attr': 'JoinWithoutFilterRule.after_example'}, ''),
    ('SPL-D03-005', '+', {'attr': 'JoinKeyTypeMismatchRule.before_example'}, ''),
    ('SPL-D03-005', '-', {'attr': 'JoinKeyTypeMismatchRule.after_example'}, ''),
    ('SPL-D03-006', '+', {'attr': 'MultipleJoinsWithoutRepartitionRule.before_example'}, ''),
    ('SPL-D03-006', '-', {'attr': 'MultipleJoinsWithoutRepartitionRule.after_example'},
     'NB: spark-perf-lint 0.1.0 itself flags it'),
    ('SPL-D03-007', '+', {'attr': 'SelfJoinRule.before_example'},
     'NB: spark-perf-lint 0.1.0 itself does not flag it'),
    ('SPL-D03-007', '-', {'attr': 'SelfJoinRule.after_example'}, ''),
    ('SPL-D03-008', '+', {'attr': 'JoinInsideLoopRule.before_example'}, ''),
    ('SPL-D03-008', '-', {'attr': 'JoinInsideLoopRule.after_example'}, ''),
    ('SPL-D03-009', '+', {'attr': 'LeftJoinWithoutNullHandlingRule.before_example'}, ''),
    ('SPL-D03-009', '-', {'attr': 'LeftJoinWithoutNullHandlingRule.after_example'}, ''),
    ('SPL-D03-010', '+', {'attr': 'CboNotEnabledRule.before_example'},
     'NB: spark-perf-lint 0.1.0 itself does not flag it'),
    ('SPL-D03-010', '-', {'attr': 'CboNotEnabledRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d04_partitioning.py', [
    ('SPL-D04-001', '+', {'attr': 'RepartitionToOneRule.before_example'}, ''),
    ('SPL-D04-001', '-', {'attr': 'RepartitionToOneRule.after_example'}, ''),
    ('SPL-D04-002', '+', {'attr': 'CoalesceToOneRule.before_example'}, ''),
    ('SPL-D04-002', '-', {'attr': 'CoalesceToOneRule.after_example'}, ''),
    ('SPL-D04-003', '+', {'attr': 'HighPartitionCountRule.before_example'}, ''),
    ('SPL-D04-003', '-', {'attr': 'HighPartitionCountRule.after_example'}, ''),
    ('SPL-D04-004', '+', {'attr': 'LowPartitionCountRule.before_example'}, ''),
    ('SPL-D04-004', '-', {'attr': 'LowPartitionCountRule.after_example'}, ''),
    ('SPL-D04-005', '+', {'attr': 'CoalesceBeforeWriteRule.before_example'}, ''),
    ('SPL-D04-005', '-', {'attr': 'CoalesceBeforeWriteRule.after_example'}, ''),
    ('SPL-D04-006', '+', {'attr': 'MissingPartitionByOnWriteRule.before_example'}, ''),
    ('SPL-D04-006', '-', {'attr': 'MissingPartitionByOnWriteRule.after_example'}, ''),
    ('SPL-D04-007', '+', {'attr': 'HighCardinalityPartitionRule.before_example'}, ''),
    ('SPL-D04-007', '-', {'attr': 'HighCardinalityPartitionRule.after_example'}, ''),
    ('SPL-D04-008', '+', {'attr': 'MissingBucketByRule.before_example'},
     'NB: spark-perf-lint 0.1.0 itself does not flag it'),
    ('SPL-D04-008', '-', {'attr': 'MissingBucketByRule.after_example'}, ''),
    ('SPL-D04-009', '+', {'attr': 'MissingPartitionFilterRule.before_example'}, ''),
    ('SPL-D04-009', '-', {'attr': 'MissingPartitionFilterRule.after_example'}, ''),
    ('SPL-D04-010', '+', {'attr': 'RepartitionJoinKeyMismatchRule.before_example'}, ''),
    ('SPL-D04-010', '-', {'attr': 'RepartitionJoinKeyMismatchRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d05_skew.py', [
    ('SPL-D05-001', '+', {'attr': 'LowCardinalityJoinRule.before_example'}, ''),
    ('SPL-D05-001', '-', {'attr': 'LowCardinalityJoinRule.after_example'},
     'NB: spark-perf-lint 0.1.0 itself flags it'),
    ('SPL-D05-002', '+', {'attr': 'LowCardinalityGroupByRule.before_example'}, ''),
    ('SPL-D05-005', '+', {'attr': 'MissingSaltingPatternRule.before_example'}, ''),
    ('SPL-D05-005', '-', {'attr': 'MissingSaltingPatternRule.after_example'}, ''),
    ('SPL-D05-006', '+', {'attr': 'WindowPartitionSkewRule.before_example'}, ''),
    ('SPL-D05-006', '-', {'attr': 'WindowPartitionSkewRule.after_example'}, ''),
    ('SPL-D05-007', '+', {'attr': 'NullHeavyJoinKeyRule.before_example'}, ''),
    ('SPL-D05-007', '-', {'attr': 'NullHeavyJoinKeyRule.after_example'}, 'NB: spark-perf-lint 0.1.0 itself flags it'),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d06_caching.py', [
    ('SPL-D06-001', '+', {'attr': 'CacheWithoutUnpersistRule.before_example'}, ''),
    ('SPL-D06-001', '-', {'attr': 'CacheWithoutUnpersistRule.after_example'}, ''),
    ('SPL-D06-002', '+', {'attr': 'CacheUsedOnceRule.before_example'}, ''),
    ('SPL-D06-002', '-', {'attr': 'CacheUsedOnceRule.after_example'}, ''),
    ('SPL-D06-003', '+', {'attr': 'CacheInLoopRule.before_example'}, ''),
    ('SPL-D06-003', '-', {'attr': 'CacheInLoopRule.after_example'}, ''),
    ('SPL-D06-004', '+', {'attr': 'CacheBeforeFilterRule.before_example'}, ''),
    ('SPL-D06-004', '-', {'attr': 'CacheBeforeFilterRule.after_example'}, ''),
    ('SPL-D06-005', '+', {'attr': 'MemoryOnlyStorageLevelRule.before_example'}, ''),
    ('SPL-D06-005', '-', {'attr': 'MemoryOnlyStorageLevelRule.after_example'}, ''),
    ('SPL-D06-006', '+', {'attr': 'ReusedDataFrameWithoutCacheRule.before_example'}, ''),
    ('SPL-D06-006', '-', {'attr': 'ReusedDataFrameWithoutCacheRule.after_example'}, ''),
    ('SPL-D06-007', '+', {'attr': 'CacheAfterRepartitionRule.before_example'}, ''),
    ('SPL-D06-007', '-', {'attr': 'CacheAfterRepartitionRule.after_example'},
     'NB: spark-perf-lint 0.1.0 itself flags it'),
    ('SPL-D06-008', '+', {'attr': 'CheckpointVsCacheMisuseRule.before_example'}, ''),
    ('SPL-D06-008', '-', {'attr': 'CheckpointVsCacheMisuseRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d07_io_format.py', [
    ('SPL-D07-001', '+', {'attr': 'CsvJsonAnalyticalRule.before_example'}, ''),
    ('SPL-D07-001', '-', {'attr': 'CsvJsonAnalyticalRule.after_example'}, ''),
    ('SPL-D07-002', '+', {'attr': 'SchemaInferenceRule.before_example'}, ''),
    ('SPL-D07-002', '-', {'attr': 'SchemaInferenceRule.after_example'}, ''),
    ('SPL-D07-003', '+', {'attr': 'SelectStarRule.before_example'}, ''),
    ('SPL-D07-003', '-', {'attr': 'SelectStarRule.after_example'}, ''),
    ('SPL-D07-004', '+', {'attr': 'PostJoinFilterRule.before_example'}, ''),
    ('SPL-D07-004', '-', {'attr': 'PostJoinFilterRule.after_example'}, ''),
    ('SPL-D07-005', '+', {'attr': 'SmallFileWriteRule.before_example'}, ''),
    ('SPL-D07-005', '-', {'attr': 'SmallFileWriteRule.after_example'}, ''),
    ('SPL-D07-006', '+', {'attr': 'JdbcWithoutPartitionsRule.before_example'}, ''),
    ('SPL-D07-006', '-', {'attr': 'JdbcWithoutPartitionsRule.after_example'}, ''),
    ('SPL-D07-007', '+', {'attr': 'ParquetCompressionNotSetRule.before_example'}, ''),
    ('SPL-D07-007', '-', {'attr': 'ParquetCompressionNotSetRule.after_example'}, ''),
    ('SPL-D07-008', '+', {'attr': 'WriteModeNotSpecifiedRule.before_example'}, ''),
    ('SPL-D07-008', '-', {'attr': 'WriteModeNotSpecifiedRule.after_example'}, ''),
    ('SPL-D07-009', '+', {'attr': 'NoFormatSpecifiedRule.before_example'}, ''),
    ('SPL-D07-009', '-', {'attr': 'NoFormatSpecifiedRule.after_example'}, ''),
    ('SPL-D07-010', '+', {'attr': 'MergeSchemaRule.before_example'}, ''),
    ('SPL-D07-010', '-', {'attr': 'MergeSchemaRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d08_aqe.py', [
    ('SPL-D08-001', '-', {'attr': 'AqeDisabledRule.after_example'}, ''),
    ('SPL-D08-002', '-', {'attr': 'AqeCoalesceDisabledRule.after_example'}, ''),
    ('SPL-D08-004', '-', {'attr': 'AqeSkewJoinDisabledWithJoinsRule.after_example'}, ''),
    ('SPL-D08-006', '-', {'attr': 'AqeLocalShuffleReaderDisabledRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d09_udf_code.py', [
    ('SPL-D09-001', '+', {'attr': 'PythonUdfDetectedRule.before_example'}, ''),
    ('SPL-D09-001', '-', {'attr': 'PythonUdfDetectedRule.after_example'}, ''),
    ('SPL-D09-002', '+', {'attr': 'UdfReplaceableRule.before_example'}, ''),
    ('SPL-D09-002', '-', {'attr': 'UdfReplaceableRule.after_example'}, ''),
    ('SPL-D09-003', '+', {'attr': 'WithColumnInLoopRule.before_example'}, ''),
    ('SPL-D09-003', '-', {'attr': 'WithColumnInLoopRule.after_example'}, ''),
    ('SPL-D09-004', '+', {'attr': 'RowByRowIterationRule.before_example'}, ''),
    ('SPL-D09-004', '-', {'attr': 'RowByRowIterationRule.after_example'}, ''),
    ('SPL-D09-005', '+', {'attr': 'CollectWithoutLimitRule.before_example'}, ''),
    ('SPL-D09-005', '-', {'attr': 'CollectWithoutLimitRule.after_example'}, ''),
    ('SPL-D09-006', '+', {'attr': 'ToPandasWithoutLimitRule.before_example'}, ''),
    ('SPL-D09-006', '-', {'attr': 'ToPandasWithoutLimitRule.after_example'}, ''),
    ('SPL-D09-007', '+', {'attr': 'CountForEmptinessRule.before_example'}, ''),
    ('SPL-D09-007', '-', {'attr': 'CountForEmptinessRule.after_example'}, ''),
    ('SPL-D09-008', '+', {'attr': 'ShowInProductionRule.before_example'}, ''),
    ('SPL-D09-008', '-', {'attr': 'ShowInProductionRule.after_example'}, ''),
    ('SPL-D09-009', '+', {'attr': 'ExplainInProductionRule.before_example'}, ''),
    ('SPL-D09-009', '-', {'attr': 'ExplainInProductionRule.after_example'}, ''),
    ('SPL-D09-010', '+', {'attr': 'RddConversionRule.before_example'}, ''),
    ('SPL-D09-010', '-', {'attr': 'RddConversionRule.after_example'}, ''),
    ('SPL-D09-011', '+', {'attr': 'PandasUdfWithoutTypeHintsRule.before_example'}, ''),
    ('SPL-D09-011', '-', {'attr': 'PandasUdfWithoutTypeHintsRule.after_example'}, ''),
    ('SPL-D09-012', '+', {'attr': 'NestedUdfCallRule.before_example'}, ''),
    ('SPL-D09-012', '-', {'attr': 'NestedUdfCallRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d10_catalyst.py', [
    ('SPL-D10-001', '+', {'attr': 'UdfBlocksPredicatePushdownRule.before_example'}, ''),
    ('SPL-D10-001', '-', {'attr': 'UdfBlocksPredicatePushdownRule.after_example'}, ''),
    ('SPL-D10-002', '+', {'attr': 'CboNotEnabledRule.before_example'}, ''),
    ('SPL-D10-002', '-', {'attr': 'CboNotEnabledRule.after_example'}, ''),
    ('SPL-D10-003', '+', {'attr': 'JoinReorderDisabledRule.before_example'}, ''),
    ('SPL-D10-003', '-', {'attr': 'JoinReorderDisabledRule.after_example'}, ''),
    ('SPL-D10-004', '+', {'attr': 'TableStatsNotCollectedRule.before_example'}, ''),
    ('SPL-D10-004', '-', {'attr': 'TableStatsNotCollectedRule.after_example'}, ''),
    ('SPL-D10-005', '+', {'attr': 'NondeterministicInFilterRule.before_example'}, ''),
    ('SPL-D10-005', '-', {'attr': 'NondeterministicInFilterRule.after_example'}, ''),
    ('SPL-D10-006', '+', {'attr': 'DeepMethodChainRule.before_example'},
     'NB: spark-perf-lint 0.1.0 itself does not flag it'),
    ('SPL-D10-006', '-', {'attr': 'DeepMethodChainRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'src/spark_perf_lint/rules/d11_monitoring.py', [
    ('SPL-D11-001', '+', {'attr': 'NoExplainInTestsRule.before_example'},
     'NB: spark-perf-lint 0.1.0 itself does not flag it'),
    ('SPL-D11-001', '-', {'attr': 'NoExplainInTestsRule.after_example'}, ''),
    ('SPL-D11-002', '+', {'attr': 'NoSparkListenerRule.before_example'}, ''),
    ('SPL-D11-002', '-', {'attr': 'NoSparkListenerRule.after_example'}, ''),
    ('SPL-D11-003', '+', {'attr': 'NoMetricsLoggingRule.before_example'}, ''),
    ('SPL-D11-003', '-', {'attr': 'NoMetricsLoggingRule.after_example'}, ''),
    ('SPL-D11-004', '+', {'attr': 'MissingErrorHandlingRule.before_example'}, ''),
    ('SPL-D11-004', '-', {'attr': 'MissingErrorHandlingRule.after_example'}, ''),
    ('SPL-D11-005', '+', {'attr': 'HardcodedPathRule.before_example'}, ''),
    ('SPL-D11-005', '-', {'attr': 'HardcodedPathRule.after_example'}, ''),
], fragment=True)

CASES += _cases('spark-perf-lint', 'tests/test_edge_cases.py', [
    ('SPL-D03-001', '+', {'attr': '_DENSE_CODE'},
     'edge-case test input _DENSE_CODE: three anti-patterns on one line (crossJoin, repartition(1), collect)'),
    ('SPL-D04-001', '+', {'attr': '_DENSE_CODE'},
     'edge-case test input _DENSE_CODE: three anti-patterns on one line (crossJoin, repartition(1), collect)'),
    ('SPL-D09-005', '+', {'attr': '_DENSE_CODE'},
     'edge-case test input _DENSE_CODE: three anti-patterns on one line (crossJoin, repartition(1), collect)'),
    ('SPL-D03-001', '-', {'attr': '_STRING_JOIN_CODE'},
     'edge-case test input _STRING_JOIN_CODE: str.join is not a Spark join'),
    ('SPL-D03-001', '-', {'attr': '_PANDAS_JOIN_CODE'},
     'edge-case test input _PANDAS_JOIN_CODE: pandas join is not a Spark join'),
    ('SPL-D07-001', '+', {'attr': '_MULTILINE_CSV_CODE'},
     'edge-case test input _MULTILINE_CSV_CODE: CSV read with inferSchema across lines'),
    ('SPL-D07-002', '+', {'attr': '_MULTILINE_CSV_CODE'},
     'edge-case test input _MULTILINE_CSV_CODE: CSV read with inferSchema across lines'),
    ('SPL-D07-001', '+', {'attr': '_MULTILINE_JSON_CODE'},
     'edge-case test input _MULTILINE_JSON_CODE: JSON read across lines'),
    ('SPL-D03-001', '+', {'attr': '_CONDITIONAL_CODE'},
     'edge-case test input _CONDITIONAL_CODE: crossJoin in an if branch'),
    ('SPL-D03-001', '+', {'attr': '_CONDITIONAL_NESTED_CODE'},
     'edge-case test input _CONDITIONAL_NESTED_CODE: crossJoin two ifs deep'),
    ('SPL-D03-001', '+', {'attr': '_CLASS_BASED_CODE'},
     'edge-case test input _CLASS_BASED_CODE: crossJoin in a method'),
    ('SPL-D03-001', '+', {'attr': '_CLASS_MULTI_METHOD_CODE'},
     'edge-case test input _CLASS_MULTI_METHOD_CODE: crossJoin in one method, broadcast join in another'),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d01_config.py', [
    ('SPL-D01-001', '+', 'TestMissingKryoSerializer.test_fires_when_serializer_absent', '_analyze', 0, 0),
    ('SPL-D01-001', '+', 'TestMissingKryoSerializer.test_fires_when_wrong_serializer', '_analyze', 0, 0),
    ('SPL-D01-001', '-', 'TestMissingKryoSerializer.test_no_finding_when_kryo_set', '_analyze', 0, 0),
    ('SPL-D01-001', '-', 'TestMissingKryoSerializer.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-001', '+', 'TestMissingKryoSerializer.test_finding_has_correct_severity', '_analyze', 0, 0),
    ('SPL-D01-001', '-', 'TestMissingKryoSerializer.test_conf_set_pattern_detected', '_analyze', 0, 0),
    ('SPL-D01-002', '+', 'TestExecutorMemoryNotConfigured.test_fires_when_absent', '_analyze', 0, 0),
    ('SPL-D01-002', '-', 'TestExecutorMemoryNotConfigured.test_no_finding_when_set', '_analyze', 0, 0),
    ('SPL-D01-002', '-', 'TestExecutorMemoryNotConfigured.test_no_finding_when_set_via_conf_set', '_analyze', 0, 0),
    ('SPL-D01-002', '-', 'TestExecutorMemoryNotConfigured.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-003', '+', 'TestDriverMemoryNotConfigured.test_fires_when_absent', '_analyze', 0, 0),
    ('SPL-D01-003', '-', 'TestDriverMemoryNotConfigured.test_no_finding_when_set', '_analyze', 0, 0),
    ('SPL-D01-003', '-', 'TestDriverMemoryNotConfigured.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-003', '+', 'TestDriverMemoryNotConfigured.test_fires_even_when_executor_memory_is_set', '_analyze', 0,
     0),
    ('SPL-D01-004', '+', 'TestDynamicAllocationNotEnabled.test_fires_when_absent', '_analyze', 0, 0),
    ('SPL-D01-004', '+', 'TestDynamicAllocationNotEnabled.test_fires_when_set_to_false', '_analyze', 0, 0),
    ('SPL-D01-004', '-', 'TestDynamicAllocationNotEnabled.test_no_finding_when_enabled', '_analyze', 0, 0),
    ('SPL-D01-004', '-', 'TestDynamicAllocationNotEnabled.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-005', '+', 'TestExecutorCoresTooHigh.test_fires_when_cores_above_max', '_analyze', 0, 0),
    ('SPL-D01-005', '-', 'TestExecutorCoresTooHigh.test_no_finding_at_default_max', '_analyze', 0, 0),
    ('SPL-D01-005', '-', 'TestExecutorCoresTooHigh.test_no_finding_when_cores_not_set', '_analyze', 0, 0),
    ('SPL-D01-005', '-', 'TestExecutorCoresTooHigh.test_no_finding_non_integer_value', '_analyze', 0, 0),
    ('SPL-D01-006', '+', 'TestMemoryOverheadTooLow.test_fires_when_below_384mb', '_analyze', 0, 0),
    ('SPL-D01-006', '+', 'TestMemoryOverheadTooLow.test_fires_for_small_value_in_gb_units', '_analyze', 0, 0),
    ('SPL-D01-006', '-', 'TestMemoryOverheadTooLow.test_no_finding_when_absent', '_analyze', 0, 0),
    ('SPL-D01-006', '-', 'TestMemoryOverheadTooLow.test_no_finding_at_384mb', '_analyze', 0, 0),
    ('SPL-D01-006', '-', 'TestMemoryOverheadTooLow.test_no_finding_when_overhead_is_1g', '_analyze', 0, 0),
    ('SPL-D01-007', '+', 'TestMissingPySparkWorkerMemory.test_fires_when_udf_present_and_no_config', '_analyze', 0,
     0),
    ('SPL-D01-007', '-', 'TestMissingPySparkWorkerMemory.test_no_finding_when_worker_memory_set', '_analyze', 0, 0),
    ('SPL-D01-007', '-', 'TestMissingPySparkWorkerMemory.test_no_finding_when_no_udfs', '_analyze', 0, 0),
    ('SPL-D01-007', '-', 'TestMissingPySparkWorkerMemory.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-007', '+', 'TestMissingPySparkWorkerMemory.test_udf_count_in_message', '_analyze', 0, 0),
    ('SPL-D01-008', '+', 'TestNetworkTimeoutTooLow.test_fires_when_timeout_below_120s', '_analyze', 0, 0),
    ('SPL-D01-008', '+', 'TestNetworkTimeoutTooLow.test_fires_for_milliseconds_below_threshold', '_analyze', 0, 0),
    ('SPL-D01-008', '-', 'TestNetworkTimeoutTooLow.test_no_finding_when_absent', '_analyze', 0, 0),
    ('SPL-D01-008', '-', 'TestNetworkTimeoutTooLow.test_no_finding_at_exactly_120s', '_analyze', 0, 0),
    ('SPL-D01-008', '-', 'TestNetworkTimeoutTooLow.test_no_finding_when_above_threshold', '_analyze', 0, 0),
    ('SPL-D01-008', '+', 'TestNetworkTimeoutTooLow.test_bare_integer_treated_as_milliseconds', '_analyze', 0, 0),
    ('SPL-D01-009', '+', 'TestSpeculationNotEnabled.test_fires_when_absent', '_analyze', 0, 0),
    ('SPL-D01-009', '+', 'TestSpeculationNotEnabled.test_fires_when_set_to_false', '_analyze', 0, 0),
    ('SPL-D01-009', '-', 'TestSpeculationNotEnabled.test_no_finding_when_enabled', '_analyze', 0, 0),
    ('SPL-D01-009', '-', 'TestSpeculationNotEnabled.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-010', '+', 'TestDefaultShufflePartitions.test_fires_when_absent_with_getsession', '_analyze', 0, 0),
    ('SPL-D01-010', '+', 'TestDefaultShufflePartitions.test_fires_when_explicitly_set_to_200', '_analyze', 0, 0),
    ('SPL-D01-010', '-', 'TestDefaultShufflePartitions.test_no_finding_when_tuned_value_set', '_analyze', 0, 0),
    ('SPL-D01-010', '-', 'TestDefaultShufflePartitions.test_no_finding_when_set_to_one', '_analyze', 0, 0),
    ('SPL-D01-010', '-', 'TestDefaultShufflePartitions.test_no_finding_when_no_spark_session', '_analyze', 0, 0),
    ('SPL-D01-010', '-', 'TestDefaultShufflePartitions.test_no_finding_for_non_spark_file', '_analyze', 0, 0),
    ('SPL-D01-010', '-', 'TestDefaultShufflePartitions.test_conf_set_to_non_default_not_flagged', '_analyze', 0, 0),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d02_shuffle.py', [
    ('SPL-D02-001', '+', 'TestGroupByKeyRule.test_fires_on_groupbykey', 'findings', 0, 1),
    ('SPL-D02-001', '-', 'TestGroupByKeyRule.test_no_finding_for_reducebykey', 'findings', 0, 1),
    ('SPL-D02-001', '-', 'TestGroupByKeyRule.test_no_finding_for_groupby_dataframe', 'findings', 0, 1),
    ('SPL-D02-001', '-', 'TestGroupByKeyRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-001', '+', 'TestGroupByKeyRule.test_multiple_groupbykey_each_flagged', 'findings', 0, 1),
    ('SPL-D02-001', '+', 'TestGroupByKeyRule.test_severity_is_critical', 'findings', 0, 1),
    ('SPL-D02-002', '+', 'TestDefaultShufflePartitionsRule.test_fires_when_partitions_not_set', 'findings', 0, 1),
    ('SPL-D02-002', '+', 'TestDefaultShufflePartitionsRule.test_fires_when_set_to_200', 'findings', 0, 1),
    ('SPL-D02-002', '-', 'TestDefaultShufflePartitionsRule.test_no_finding_when_tuned', 'findings', 0, 1),
    ('SPL-D02-002', '-', 'TestDefaultShufflePartitionsRule.test_no_finding_without_session_creation', 'findings', 0,
     1),
    ('SPL-D02-002', '-', 'TestDefaultShufflePartitionsRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-002', '-', 'TestDefaultShufflePartitionsRule.test_no_finding_when_set_to_one', 'findings', 0, 1),
    ('SPL-D02-003', '+', 'TestRepartitionBeforeJoinRule.test_fires_on_chained_repartition_join', 'findings', 0, 1),
    ('SPL-D02-003', '+', 'TestRepartitionBeforeJoinRule.test_fires_on_multistatement_repartition_then_join',
     'findings', 0, 1),
    ('SPL-D02-003', '-', 'TestRepartitionBeforeJoinRule.test_no_finding_for_join_without_repartition', 'findings', 0,
     1),
    ('SPL-D02-003', '-', 'TestRepartitionBeforeJoinRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-003', '-', 'TestRepartitionBeforeJoinRule.test_no_finding_when_repartition_far_from_join', 'findings',
     0, 1),
    ('SPL-D02-004', '+', 'TestOrderByWithoutLimitRule.test_fires_on_orderby_without_limit', 'findings', 0, 1),
    ('SPL-D02-004', '+', 'TestOrderByWithoutLimitRule.test_fires_on_sort_without_limit', 'findings', 0, 1),
    ('SPL-D02-004', '-', 'TestOrderByWithoutLimitRule.test_no_finding_when_limit_in_chain', 'findings', 0, 1),
    ('SPL-D02-004', '-', 'TestOrderByWithoutLimitRule.test_no_finding_when_limit_nearby', 'findings', 0, 1),
    ('SPL-D02-004', '-', 'TestOrderByWithoutLimitRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-005', '+', 'TestDistinctWithoutFilterRule.test_fires_on_bare_distinct', 'findings', 0, 1),
    ('SPL-D02-005', '-', 'TestDistinctWithoutFilterRule.test_no_finding_when_filter_in_chain', 'findings', 0, 1),
    ('SPL-D02-005', '-', 'TestDistinctWithoutFilterRule.test_no_finding_when_select_in_chain', 'findings', 0, 1),
    ('SPL-D02-005', '-', 'TestDistinctWithoutFilterRule.test_no_finding_when_where_in_chain', 'findings', 0, 1),
    ('SPL-D02-005', '-', 'TestDistinctWithoutFilterRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-005', '+', 'TestDistinctWithoutFilterRule.test_multiple_bare_distinct_each_flagged', 'findings', 0, 1),
    ('SPL-D02-006', '+', 'TestShuffleFollowedByCoalesceRule.test_fires_on_groupby_then_coalesce_chained', 'findings',
     0, 1),
    ('SPL-D02-006', '+', 'TestShuffleFollowedByCoalesceRule.test_fires_on_join_then_coalesce_chained', 'findings', 0,
     1),
    ('SPL-D02-006', '+', 'TestShuffleFollowedByCoalesceRule.test_fires_on_orderby_then_coalesce_multistatement',
     'findings', 0, 1),
    ('SPL-D02-006', '-', 'TestShuffleFollowedByCoalesceRule.test_no_finding_for_coalesce_without_shuffle',
     'findings', 0, 1),
    ('SPL-D02-006', '-', 'TestShuffleFollowedByCoalesceRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-006', '-',
     'TestShuffleFollowedByCoalesceRule.test_no_finding_for_repartition_then_coalesce_outside_window', 'findings', 0,
     1),
    ('SPL-D02-007', '+', 'TestMultipleShufflesInSequenceRule.test_fires_on_two_shuffles_in_sequence', 'findings', 0,
     1),
    ('SPL-D02-007', '+', 'TestMultipleShufflesInSequenceRule.test_fires_on_three_consecutive_shuffles', 'findings',
     0, 1),
    ('SPL-D02-007', '-', 'TestMultipleShufflesInSequenceRule.test_no_finding_when_cache_between_shuffles',
     'findings', 0, 1),
    ('SPL-D02-007', '-', 'TestMultipleShufflesInSequenceRule.test_no_finding_for_single_shuffle', 'findings', 0, 1),
    ('SPL-D02-007', '-', 'TestMultipleShufflesInSequenceRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-007', '-', 'TestMultipleShufflesInSequenceRule.test_checkpoint_between_shuffles_resets_sequence',
     'findings', 0, 1),
    ('SPL-D02-007', '+', 'TestMultipleShufflesInSequenceRule.test_finding_points_to_second_shuffle_line', 'findings',
     0, 1),
    ('SPL-D02-008', '+', 'TestShuffleFileBufferTooSmallRule.test_fires_when_buffer_below_1mb', 'findings', 0, 1),
    ('SPL-D02-008', '+', 'TestShuffleFileBufferTooSmallRule.test_fires_for_default_32k', 'findings', 0, 1),
    ('SPL-D02-008', '-', 'TestShuffleFileBufferTooSmallRule.test_no_finding_when_absent', 'findings', 0, 1),
    ('SPL-D02-008', '-', 'TestShuffleFileBufferTooSmallRule.test_no_finding_at_1mb', 'findings', 0, 1),
    ('SPL-D02-008', '-', 'TestShuffleFileBufferTooSmallRule.test_no_finding_when_buffer_is_large', 'findings', 0, 1),
    ('SPL-D02-008', '-', 'TestShuffleFileBufferTooSmallRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D02-004', '+', 'TestOrderByWithoutLimitRule.test_both_orderby_and_sort_detected', 'findings', 0, 1,
     {'note': '2 findings expected'}),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d03_joins.py', [
    ('SPL-D03-001', '+', 'TestCrossJoinRule.test_fires_on_crossjoin_method', 'findings', 0, 1),
    ('SPL-D03-001', '+', 'TestCrossJoinRule.test_fires_on_join_how_cross', 'findings', 0, 1),
    ('SPL-D03-001', '+', 'TestCrossJoinRule.test_fires_on_join_how_cross_positional', 'findings', 0, 1),
    ('SPL-D03-001', '-', 'TestCrossJoinRule.test_no_finding_for_inner_join', 'findings', 0, 1),
    ('SPL-D03-001', '-', 'TestCrossJoinRule.test_no_finding_for_left_join', 'findings', 0, 1),
    ('SPL-D03-001', '-', 'TestCrossJoinRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-001', '+', 'TestCrossJoinRule.test_severity_is_critical', 'findings', 0, 1),
    ('SPL-D03-001', '+', 'TestCrossJoinRule.test_multiple_cross_joins_each_flagged', 'findings', 0, 1),
    ('SPL-D03-002', '+', 'TestMissingBroadcastHintRule.test_fires_when_no_broadcast_hint', 'findings', 0, 1),
    ('SPL-D03-002', '-', 'TestMissingBroadcastHintRule.test_no_finding_when_broadcast_function_used', 'findings', 0,
     1),
    ('SPL-D03-002', '-', 'TestMissingBroadcastHintRule.test_no_finding_when_hint_broadcast', 'findings', 0, 1),
    ('SPL-D03-002', '-', 'TestMissingBroadcastHintRule.test_no_finding_when_threshold_configured_positive',
     'findings', 0, 1),
    ('SPL-D03-002', '-', 'TestMissingBroadcastHintRule.test_no_finding_for_cross_join', 'findings', 0, 1),
    ('SPL-D03-002', '-', 'TestMissingBroadcastHintRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-002', '+', 'TestMissingBroadcastHintRule.test_fires_when_threshold_is_minus_one', 'findings', 0, 1),
    ('SPL-D03-003', '+', 'TestBroadcastThresholdDisabledRule.test_fires_when_threshold_minus_one', 'findings', 0, 1),
    ('SPL-D03-003', '-', 'TestBroadcastThresholdDisabledRule.test_no_finding_when_threshold_positive', 'findings', 0,
     1),
    ('SPL-D03-003', '-', 'TestBroadcastThresholdDisabledRule.test_no_finding_when_threshold_absent', 'findings', 0,
     1),
    ('SPL-D03-003', '-', 'TestBroadcastThresholdDisabledRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-003', '+', 'TestBroadcastThresholdDisabledRule.test_severity_is_critical', 'findings', 0, 1),
    ('SPL-D03-004', '+', 'TestJoinWithoutFilterRule.test_fires_on_read_directly_into_join', 'findings', 0, 1),
    ('SPL-D03-004', '-', 'TestJoinWithoutFilterRule.test_no_finding_when_filter_precedes_join', 'findings', 0, 1),
    ('SPL-D03-004', '-', 'TestJoinWithoutFilterRule.test_no_finding_when_select_precedes_join', 'findings', 0, 1),
    ('SPL-D03-004', '-', 'TestJoinWithoutFilterRule.test_no_finding_for_join_without_read_in_chain', 'findings', 0,
     1),
    ('SPL-D03-004', '-', 'TestJoinWithoutFilterRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-004', '+', 'TestJoinWithoutFilterRule.test_fires_on_csv_read_into_join', 'findings', 0, 1),
    ('SPL-D03-005', '+', 'TestJoinKeyTypeMismatchRule.test_fires_on_different_column_names_in_condition', 'findings',
     0, 1),
    ('SPL-D03-005', '-', 'TestJoinKeyTypeMismatchRule.test_no_finding_for_string_key', 'findings', 0, 1),
    ('SPL-D03-005', '-', 'TestJoinKeyTypeMismatchRule.test_no_finding_for_list_keys', 'findings', 0, 1),
    ('SPL-D03-005', '-', 'TestJoinKeyTypeMismatchRule.test_no_finding_when_same_column_name', 'findings', 0, 1),
    ('SPL-D03-005', '-', 'TestJoinKeyTypeMismatchRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-005', '+', 'TestJoinKeyTypeMismatchRule.test_fires_on_timestamp_vs_date_mismatch', 'findings', 0, 1),
    ('SPL-D03-006', '+', 'TestMultipleJoinsWithoutRepartitionRule.test_fires_on_three_consecutive_joins', 'findings',
     0, 1),
    ('SPL-D03-006', '-', 'TestMultipleJoinsWithoutRepartitionRule.test_no_finding_for_two_joins', 'findings', 0, 1),
    ('SPL-D03-006', '-', 'TestMultipleJoinsWithoutRepartitionRule.test_no_finding_when_cache_between_joins',
     'findings', 0, 1),
    ('SPL-D03-006', '-', 'TestMultipleJoinsWithoutRepartitionRule.test_no_finding_when_joins_far_apart', 'findings',
     0, 1),
    ('SPL-D03-006', '-', 'TestMultipleJoinsWithoutRepartitionRule.test_no_finding_for_non_spark_file', 'findings', 0,
     1),
    ('SPL-D03-006', '+', 'TestMultipleJoinsWithoutRepartitionRule.test_finding_points_to_third_join', 'findings', 0,
     1),
    ('SPL-D03-007', '+', 'TestSelfJoinRule.test_fires_on_self_join', 'findings', 0, 1),
    ('SPL-D03-007', '-', 'TestSelfJoinRule.test_no_finding_for_different_dataframes', 'findings', 0, 1),
    ('SPL-D03-007', '-', 'TestSelfJoinRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-007', '-', 'TestSelfJoinRule.test_no_finding_when_one_side_is_transformed', 'findings', 0, 1),
    ('SPL-D03-007', '+', 'TestSelfJoinRule.test_fires_on_aliased_self_join', 'findings', 0, 1),
    ('SPL-D03-008', '+', 'TestJoinInsideLoopRule.test_fires_on_join_in_for_loop', 'findings', 0, 1),
    ('SPL-D03-008', '+', 'TestJoinInsideLoopRule.test_fires_on_join_in_while_loop', 'findings', 0, 1),
    ('SPL-D03-008', '-', 'TestJoinInsideLoopRule.test_no_finding_for_join_outside_loop', 'findings', 0, 1),
    ('SPL-D03-008', '-', 'TestJoinInsideLoopRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-008', '+', 'TestJoinInsideLoopRule.test_severity_is_critical', 'findings', 0, 1),
    ('SPL-D03-008', '+', 'TestJoinInsideLoopRule.test_finding_points_to_loop_line', 'findings', 0, 1),
    ('SPL-D03-009', '+', 'TestLeftJoinWithoutNullHandlingRule.test_fires_on_left_join_without_null_handling',
     'findings', 0, 1),
    ('SPL-D03-009', '+', 'TestLeftJoinWithoutNullHandlingRule.test_fires_on_left_outer_join', 'findings', 0, 1),
    ('SPL-D03-009', '+', 'TestLeftJoinWithoutNullHandlingRule.test_fires_on_left_outer_kwarg', 'findings', 0, 1),
    ('SPL-D03-009', '-', 'TestLeftJoinWithoutNullHandlingRule.test_no_finding_when_fillna_in_chain', 'findings', 0,
     1),
    ('SPL-D03-009', '-', 'TestLeftJoinWithoutNullHandlingRule.test_no_finding_when_dropna_nearby', 'findings', 0, 1),
    ('SPL-D03-009', '-', 'TestLeftJoinWithoutNullHandlingRule.test_no_finding_for_inner_join', 'findings', 0, 1),
    ('SPL-D03-009', '-', 'TestLeftJoinWithoutNullHandlingRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-010', '+', 'TestCboNotEnabledRule.test_fires_when_three_joins_and_no_cbo', 'findings', 0, 1),
    ('SPL-D03-010', '-', 'TestCboNotEnabledRule.test_no_finding_when_cbo_enabled', 'findings', 0, 1),
    ('SPL-D03-010', '-', 'TestCboNotEnabledRule.test_no_finding_for_only_two_joins', 'findings', 0, 1),
    ('SPL-D03-010', '-', 'TestCboNotEnabledRule.test_no_finding_when_no_session_creation', 'findings', 0, 1),
    ('SPL-D03-010', '-', 'TestCboNotEnabledRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D03-010', '+', 'TestCboNotEnabledRule.test_finding_includes_join_count', 'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d04_partitioning.py', [
    ('SPL-D04-001', '+', 'TestRepartitionToOneRule.test_fires_on_repartition_one', 'findings', 0, 1),
    ('SPL-D04-001', '+', 'TestRepartitionToOneRule.test_fires_on_repartition_one_in_chain', 'findings', 0, 1),
    ('SPL-D04-001', '-', 'TestRepartitionToOneRule.test_no_finding_for_repartition_200', 'findings', 0, 1),
    ('SPL-D04-001', '-', 'TestRepartitionToOneRule.test_no_finding_for_repartition_by_column', 'findings', 0, 1),
    ('SPL-D04-001', '-', 'TestRepartitionToOneRule.test_no_finding_for_coalesce_one', 'findings', 0, 1),
    ('SPL-D04-001', '-', 'TestRepartitionToOneRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-001', '+', 'TestRepartitionToOneRule.test_severity_is_critical', 'findings', 0, 1),
    ('SPL-D04-001', '+', 'TestRepartitionToOneRule.test_multiple_repartition_ones_each_flagged', 'findings', 0, 1),
    ('SPL-D04-002', '+', 'TestCoalesceToOneRule.test_fires_on_coalesce_one', 'findings', 0, 1),
    ('SPL-D04-002', '+', 'TestCoalesceToOneRule.test_fires_on_coalesce_one_before_groupby', 'findings', 0, 1),
    ('SPL-D04-002', '-', 'TestCoalesceToOneRule.test_no_finding_for_coalesce_ten', 'findings', 0, 1),
    ('SPL-D04-002', '-', 'TestCoalesceToOneRule.test_no_finding_for_repartition_one', 'findings', 0, 1),
    ('SPL-D04-002', '-', 'TestCoalesceToOneRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-002', '+', 'TestCoalesceToOneRule.test_severity_is_warning', 'findings', 0, 1),
    ('SPL-D04-003', '+', 'TestHighPartitionCountRule.test_fires_on_very_high_count', 'findings', 0, 1),
    ('SPL-D04-003', '+', 'TestHighPartitionCountRule.test_fires_on_count_just_above_threshold', 'findings', 0, 1),
    ('SPL-D04-003', '-', 'TestHighPartitionCountRule.test_no_finding_for_reasonable_count', 'findings', 0, 1),
    ('SPL-D04-003', '-', 'TestHighPartitionCountRule.test_no_finding_at_threshold', 'findings', 0, 1),
    ('SPL-D04-003', '-', 'TestHighPartitionCountRule.test_no_finding_for_column_repartition', 'findings', 0, 1),
    ('SPL-D04-003', '-', 'TestHighPartitionCountRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-004', '+', 'TestLowPartitionCountRule.test_fires_on_low_count', 'findings', 0, 1),
    ('SPL-D04-004', '+', 'TestLowPartitionCountRule.test_fires_on_count_just_below_threshold', 'findings', 0, 1),
    ('SPL-D04-004', '-', 'TestLowPartitionCountRule.test_no_finding_for_repartition_one', 'findings', 0, 1),
    ('SPL-D04-004', '-', 'TestLowPartitionCountRule.test_no_finding_at_threshold', 'findings', 0, 1),
    ('SPL-D04-004', '-', 'TestLowPartitionCountRule.test_no_finding_for_reasonable_count', 'findings', 0, 1),
    ('SPL-D04-004', '-', 'TestLowPartitionCountRule.test_no_finding_for_column_repartition', 'findings', 0, 1),
    ('SPL-D04-004', '-', 'TestLowPartitionCountRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-005', '+', 'TestCoalesceBeforeWriteRule.test_fires_on_coalesce_before_parquet_write', 'findings', 0, 1),
    ('SPL-D04-005', '+', 'TestCoalesceBeforeWriteRule.test_fires_on_coalesce_before_save', 'findings', 0, 1),
    ('SPL-D04-005', '-', 'TestCoalesceBeforeWriteRule.test_no_finding_for_repartition_before_write', 'findings', 0,
     1),
    ('SPL-D04-005', '-', 'TestCoalesceBeforeWriteRule.test_no_finding_for_write_without_coalesce', 'findings', 0, 1),
    ('SPL-D04-005', '-', 'TestCoalesceBeforeWriteRule.test_no_finding_for_coalesce_one', 'findings', 0, 1),
    ('SPL-D04-005', '-', 'TestCoalesceBeforeWriteRule.test_no_finding_for_coalesce_without_write', 'findings', 0, 1),
    ('SPL-D04-005', '-', 'TestCoalesceBeforeWriteRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-006', '+', 'TestMissingPartitionByOnWriteRule.test_fires_on_parquet_write_without_partition',
     'findings', 0, 1),
    ('SPL-D04-006', '+', 'TestMissingPartitionByOnWriteRule.test_fires_on_orc_write_without_partition', 'findings',
     0, 1),
    ('SPL-D04-006', '-', 'TestMissingPartitionByOnWriteRule.test_no_finding_when_partitionby_present', 'findings', 0,
     1),
    ('SPL-D04-006', '-', 'TestMissingPartitionByOnWriteRule.test_no_finding_for_csv_write', 'findings', 0, 1),
    ('SPL-D04-006', '-', 'TestMissingPartitionByOnWriteRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-006', '-', 'TestMissingPartitionByOnWriteRule.test_no_finding_for_read', 'findings', 0, 1),
    ('SPL-D04-007', '+', 'TestHighCardinalityPartitionRule.test_fires_on_user_id_partition', 'findings', 0, 1),
    ('SPL-D04-007', '+', 'TestHighCardinalityPartitionRule.test_fires_on_created_at_partition', 'findings', 0, 1),
    ('SPL-D04-007', '+', 'TestHighCardinalityPartitionRule.test_fires_on_uuid_column', 'findings', 0, 1),
    ('SPL-D04-007', '-', 'TestHighCardinalityPartitionRule.test_no_finding_for_date_partition', 'findings', 0, 1),
    ('SPL-D04-007', '-', 'TestHighCardinalityPartitionRule.test_no_finding_for_region_partition', 'findings', 0, 1),
    ('SPL-D04-007', '-', 'TestHighCardinalityPartitionRule.test_no_finding_for_year_month_partition', 'findings', 0,
     1),
    ('SPL-D04-007', '-', 'TestHighCardinalityPartitionRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-008', '+', 'TestMissingBucketByRule.test_fires_on_save_as_table_without_bucket_when_joins_present',
     'findings', 0, 1),
    ('SPL-D04-008', '-', 'TestMissingBucketByRule.test_no_finding_when_bucket_by_present', 'findings', 0, 1),
    ('SPL-D04-008', '-', 'TestMissingBucketByRule.test_no_finding_when_no_joins_in_file', 'findings', 0, 1),
    ('SPL-D04-008', '-', 'TestMissingBucketByRule.test_no_finding_for_parquet_write', 'findings', 0, 1),
    ('SPL-D04-008', '-', 'TestMissingBucketByRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-009', '+', 'TestMissingPartitionFilterRule.test_fires_on_read_into_groupby_without_filter', 'findings',
     0, 1),
    ('SPL-D04-009', '+', 'TestMissingPartitionFilterRule.test_fires_on_read_into_distinct_without_filter',
     'findings', 0, 1),
    ('SPL-D04-009', '-', 'TestMissingPartitionFilterRule.test_no_finding_when_filter_precedes_groupby', 'findings',
     0, 1),
    ('SPL-D04-009', '-', 'TestMissingPartitionFilterRule.test_no_finding_when_where_precedes_expensive_op',
     'findings', 0, 1),
    ('SPL-D04-009', '-', 'TestMissingPartitionFilterRule.test_no_finding_for_groupby_without_read_in_chain',
     'findings', 0, 1),
    ('SPL-D04-009', '-', 'TestMissingPartitionFilterRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-009', '+', 'TestMissingPartitionFilterRule.test_fires_on_read_into_orderby', 'findings', 0, 1),
    ('SPL-D04-010', '+', 'TestRepartitionJoinKeyMismatchRule.test_fires_on_mismatched_repartition_and_join_key',
     'findings', 0, 1),
    ('SPL-D04-010', '-', 'TestRepartitionJoinKeyMismatchRule.test_no_finding_when_columns_match', 'findings', 0, 1),
    ('SPL-D04-010', '-', 'TestRepartitionJoinKeyMismatchRule.test_no_finding_when_repartition_by_count_only',
     'findings', 0, 1),
    ('SPL-D04-010', '-', 'TestRepartitionJoinKeyMismatchRule.test_no_finding_for_join_without_repartition_in_chain',
     'findings', 0, 1),
    ('SPL-D04-010', '-', 'TestRepartitionJoinKeyMismatchRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D04-010', '-', 'TestRepartitionJoinKeyMismatchRule.test_no_finding_when_key_in_list_of_keys', 'findings',
     0, 1),
    ('SPL-D04-010', '+', 'TestRepartitionJoinKeyMismatchRule.test_fires_on_repartition_with_count_and_column',
     'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d05_skew.py', [
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_status_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_type_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_is_prefix_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_has_prefix_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_flag_prefix_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_gender_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_list_containing_skew_key', 'findings', 0, 1),
    ('SPL-D05-001', '+', 'TestLowCardinalityJoinRule.test_fires_on_kwarg_on', 'findings', 0, 1),
    ('SPL-D05-001', '-', 'TestLowCardinalityJoinRule.test_no_finding_for_user_id_key', 'findings', 0, 1),
    ('SPL-D05-001', '-', 'TestLowCardinalityJoinRule.test_no_finding_for_date_key', 'findings', 0, 1),
    ('SPL-D05-001', '-', 'TestLowCardinalityJoinRule.test_no_finding_for_column_expression', 'findings', 0, 1),
    ('SPL-D05-001', '-', 'TestLowCardinalityJoinRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D05-002', '+', 'TestLowCardinalityGroupByRule.test_fires_on_status_only', 'findings', 0, 1),
    ('SPL-D05-002', '+', 'TestLowCardinalityGroupByRule.test_fires_on_type_only', 'findings', 0, 1),
    ('SPL-D05-002', '+', 'TestLowCardinalityGroupByRule.test_fires_on_is_active_only', 'findings', 0, 1),
    ('SPL-D05-002', '+', 'TestLowCardinalityGroupByRule.test_fires_on_multiple_all_skew_prone', 'findings', 0, 1),
    ('SPL-D05-002', '-', 'TestLowCardinalityGroupByRule.test_no_finding_when_secondary_high_cardinality_key',
     'findings', 0, 1),
    ('SPL-D05-002', '-', 'TestLowCardinalityGroupByRule.test_no_finding_when_only_high_cardinality_key', 'findings',
     0, 1),
    ('SPL-D05-002', '-', 'TestLowCardinalityGroupByRule.test_no_finding_for_no_string_keys', 'findings', 0, 1),
    ('SPL-D05-002', '-', 'TestLowCardinalityGroupByRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D05-002', '+', 'TestLowCardinalityGroupByRule.test_fires_on_list_syntax', 'findings', 0, 1),
    ('SPL-D05-003', '+', 'TestAqeSkewJoinDisabledRule.test_fires_when_adaptive_enabled_false', 'findings', 0, 1),
    ('SPL-D05-003', '+', 'TestAqeSkewJoinDisabledRule.test_fires_when_skew_join_enabled_false', 'findings', 0, 1),
    ('SPL-D05-003', '+', 'TestAqeSkewJoinDisabledRule.test_fires_for_both_keys_disabled', 'findings', 0, 1),
    ('SPL-D05-003', '-', 'TestAqeSkewJoinDisabledRule.test_no_finding_when_adaptive_enabled_true', 'findings', 0, 1),
    ('SPL-D05-003', '-', 'TestAqeSkewJoinDisabledRule.test_no_finding_when_no_config_set', 'findings', 0, 1),
    ('SPL-D05-003', '-', 'TestAqeSkewJoinDisabledRule.test_no_finding_without_spark_session', 'findings', 0, 1),
    ('SPL-D05-003', '-', 'TestAqeSkewJoinDisabledRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D05-004', '+', 'TestAqeSkewThresholdTooHighRule.test_fires_on_threshold_2gb', 'findings', 0, 1),
    ('SPL-D05-004', '+', 'TestAqeSkewThresholdTooHighRule.test_fires_on_threshold_2gb_uppercase', 'findings', 0, 1),
    ('SPL-D05-004', '+', 'TestAqeSkewThresholdTooHighRule.test_fires_on_factor_greater_than_10', 'findings', 0, 1),
    ('SPL-D05-004', '-', 'TestAqeSkewThresholdTooHighRule.test_no_finding_for_default_threshold_256mb', 'findings',
     0, 1),
    ('SPL-D05-004', '-', 'TestAqeSkewThresholdTooHighRule.test_no_finding_for_threshold_exactly_1gb', 'findings', 0,
     1),
    ('SPL-D05-004', '-', 'TestAqeSkewThresholdTooHighRule.test_no_finding_for_default_factor_5', 'findings', 0, 1),
    ('SPL-D05-004', '-', 'TestAqeSkewThresholdTooHighRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D05-005', '+', 'TestMissingSaltingPatternRule.test_fires_on_user_id_without_salting', 'findings', 0, 1),
    ('SPL-D05-005', '+', 'TestMissingSaltingPatternRule.test_fires_on_customer_id', 'findings', 0, 1),
    ('SPL-D05-005', '+', 'TestMissingSaltingPatternRule.test_fires_on_product_id', 'findings', 0, 1),
    ('SPL-D05-005', '-', 'TestMissingSaltingPatternRule.test_no_finding_when_rand_used', 'findings', 0, 1),
    ('SPL-D05-005', '-', 'TestMissingSaltingPatternRule.test_no_finding_when_explode_used', 'findings', 0, 1),
    ('SPL-D05-005', '-', 'TestMissingSaltingPatternRule.test_no_finding_for_non_skew_id_key', 'findings', 0, 1),
    ('SPL-D05-005', '-', 'TestMissingSaltingPatternRule.test_no_finding_for_status_key', 'findings', 0, 1),
    ('SPL-D05-005', '-', 'TestMissingSaltingPatternRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D05-005', '+', 'TestMissingSaltingPatternRule.test_multiple_skew_id_joins_all_flagged', 'findings', 0, 1),
    ('SPL-D05-006', '+', 'TestWindowPartitionSkewRule.test_fires_on_window_partition_by_status', 'findings', 0, 1),
    ('SPL-D05-006', '+', 'TestWindowPartitionSkewRule.test_fires_on_window_partition_by_type', 'findings', 0, 1),
    ('SPL-D05-006', '+', 'TestWindowPartitionSkewRule.test_fires_on_is_active', 'findings', 0, 1),
    ('SPL-D05-006', '-', 'TestWindowPartitionSkewRule.test_no_finding_when_secondary_high_cardinality_key',
     'findings', 0, 1),
    ('SPL-D05-006', '-', 'TestWindowPartitionSkewRule.test_no_finding_for_high_cardinality_only', 'findings', 0, 1),
    ('SPL-D05-006', '-', 'TestWindowPartitionSkewRule.test_no_finding_for_write_partition_by', 'findings', 0, 1),
    ('SPL-D05-006', '-', 'TestWindowPartitionSkewRule.test_no_finding_for_no_string_keys', 'findings', 0, 1),
    ('SPL-D05-006', '-', 'TestWindowPartitionSkewRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D05-007', '+', 'TestNullHeavyJoinKeyRule.test_fires_on_parent_id', 'findings', 0, 1),
    ('SPL-D05-007', '+', 'TestNullHeavyJoinKeyRule.test_fires_on_manager_id', 'findings', 0, 1),
    ('SPL-D05-007', '+', 'TestNullHeavyJoinKeyRule.test_fires_on_referred_by', 'findings', 0, 1),
    ('SPL-D05-007', '+', 'TestNullHeavyJoinKeyRule.test_fires_on_parent_prefix_column', 'findings', 0, 1),
    ('SPL-D05-007', '+', 'TestNullHeavyJoinKeyRule.test_fires_on_manager_prefix_column', 'findings', 0, 1),
    ('SPL-D05-007', '-', 'TestNullHeavyJoinKeyRule.test_no_finding_when_dropna_within_5_lines_before', 'findings', 0,
     1),
    ('SPL-D05-007', '-', 'TestNullHeavyJoinKeyRule.test_no_finding_when_fillna_within_5_lines_before', 'findings', 0,
     1),
    ('SPL-D05-007', '+', 'TestNullHeavyJoinKeyRule.test_fires_when_dropna_more_than_5_lines_before', 'findings', 0,
     1),
    ('SPL-D05-007', '-', 'TestNullHeavyJoinKeyRule.test_no_finding_for_non_null_prone_key', 'findings', 0, 1),
    ('SPL-D05-007', '-', 'TestNullHeavyJoinKeyRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d06_caching.py', [
    ('SPL-D06-001', '+', 'TestCacheWithoutUnpersistRule.test_fires_when_cache_no_unpersist', 'findings', 0, 1),
    ('SPL-D06-001', '+', 'TestCacheWithoutUnpersistRule.test_fires_when_persist_no_unpersist', 'findings', 0, 1),
    ('SPL-D06-001', '+', 'TestCacheWithoutUnpersistRule.test_fires_for_multiple_caches_no_unpersist', 'findings', 0,
     1),
    ('SPL-D06-001', '-', 'TestCacheWithoutUnpersistRule.test_no_finding_when_unpersist_present', 'findings', 0, 1),
    ('SPL-D06-001', '-', 'TestCacheWithoutUnpersistRule.test_no_finding_for_no_cache', 'findings', 0, 1),
    ('SPL-D06-001', '-', 'TestCacheWithoutUnpersistRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-002', '+', 'TestCacheUsedOnceRule.test_fires_when_cached_used_once', 'findings', 0, 1),
    ('SPL-D06-002', '+', 'TestCacheUsedOnceRule.test_fires_when_cached_never_used', 'findings', 0, 1),
    ('SPL-D06-002', '-', 'TestCacheUsedOnceRule.test_no_finding_when_cached_used_twice', 'findings', 0, 1),
    ('SPL-D06-002', '-', 'TestCacheUsedOnceRule.test_no_finding_when_persist_used_twice', 'findings', 0, 1),
    ('SPL-D06-002', '-', 'TestCacheUsedOnceRule.test_no_finding_for_non_cache_assignment', 'findings', 0, 1),
    ('SPL-D06-002', '-', 'TestCacheUsedOnceRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-003', '+', 'TestCacheInLoopRule.test_fires_on_cache_in_for_loop', 'findings', 0, 1),
    ('SPL-D06-003', '+', 'TestCacheInLoopRule.test_fires_on_persist_in_for_loop', 'findings', 0, 1),
    ('SPL-D06-003', '+', 'TestCacheInLoopRule.test_fires_on_cache_in_while_loop', 'findings', 0, 1),
    ('SPL-D06-003', '-', 'TestCacheInLoopRule.test_no_finding_when_cache_outside_loop', 'findings', 0, 1),
    ('SPL-D06-003', '-', 'TestCacheInLoopRule.test_no_finding_for_no_loop', 'findings', 0, 1),
    ('SPL-D06-003', '-', 'TestCacheInLoopRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-004', '+', 'TestCacheBeforeFilterRule.test_fires_when_filter_after_cache', 'findings', 0, 1),
    ('SPL-D06-004', '+', 'TestCacheBeforeFilterRule.test_fires_when_where_after_cache', 'findings', 0, 1),
    ('SPL-D06-004', '+', 'TestCacheBeforeFilterRule.test_fires_when_filter_after_persist', 'findings', 0, 1),
    ('SPL-D06-004', '-', 'TestCacheBeforeFilterRule.test_no_finding_when_filter_before_cache', 'findings', 0, 1),
    ('SPL-D06-004', '-', 'TestCacheBeforeFilterRule.test_no_finding_for_filter_without_cache', 'findings', 0, 1),
    ('SPL-D06-004', '-', 'TestCacheBeforeFilterRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-005', '+', 'TestMemoryOnlyStorageLevelRule.test_fires_on_memory_only_attribute', 'findings', 0, 1),
    ('SPL-D06-005', '+', 'TestMemoryOnlyStorageLevelRule.test_fires_on_memory_only_string', 'findings', 0, 1),
    ('SPL-D06-005', '-', 'TestMemoryOnlyStorageLevelRule.test_no_finding_for_memory_and_disk', 'findings', 0, 1),
    ('SPL-D06-005', '-', 'TestMemoryOnlyStorageLevelRule.test_no_finding_for_persist_without_args', 'findings', 0, 1),
    ('SPL-D06-005', '-', 'TestMemoryOnlyStorageLevelRule.test_no_finding_for_cache', 'findings', 0, 1),
    ('SPL-D06-005', '-', 'TestMemoryOnlyStorageLevelRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-006', '+', 'TestReusedDataFrameWithoutCacheRule.test_fires_on_join_result_used_twice', 'findings', 0,
     1),
    ('SPL-D06-006', '+', 'TestReusedDataFrameWithoutCacheRule.test_fires_on_groupby_result_used_twice', 'findings',
     0, 1),
    ('SPL-D06-006', '-', 'TestReusedDataFrameWithoutCacheRule.test_no_finding_when_cached', 'findings', 0, 1),
    ('SPL-D06-006', '-', 'TestReusedDataFrameWithoutCacheRule.test_no_finding_when_used_only_once', 'findings', 0, 1),
    ('SPL-D06-006', '-', 'TestReusedDataFrameWithoutCacheRule.test_no_finding_for_cheap_operation', 'findings', 0, 1),
    ('SPL-D06-006', '-', 'TestReusedDataFrameWithoutCacheRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-007', '+', 'TestCacheAfterRepartitionRule.test_fires_on_cache_after_repartition', 'findings', 0, 1),
    ('SPL-D06-007', '+', 'TestCacheAfterRepartitionRule.test_fires_on_persist_after_repartition', 'findings', 0, 1),
    ('SPL-D06-007', '+', 'TestCacheAfterRepartitionRule.test_fires_on_cache_after_coalesce', 'findings', 0, 1),
    ('SPL-D06-007', '-', 'TestCacheAfterRepartitionRule.test_no_finding_for_cache_without_repartition', 'findings',
     0, 1),
    ('SPL-D06-007', '-', 'TestCacheAfterRepartitionRule.test_no_finding_for_repartition_without_cache', 'findings',
     0, 1),
    ('SPL-D06-007', '-', 'TestCacheAfterRepartitionRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D06-008', '+', 'TestCheckpointVsCacheMisuseRule.test_fires_on_checkpoint_without_loop', 'findings', 0, 1),
    ('SPL-D06-008', '+', 'TestCheckpointVsCacheMisuseRule.test_fires_on_multiple_checkpoints_without_loop',
     'findings', 0, 1),
    ('SPL-D06-008', '-', 'TestCheckpointVsCacheMisuseRule.test_no_finding_when_checkpoint_inside_loop', 'findings',
     0, 1),
    ('SPL-D06-008', '-', 'TestCheckpointVsCacheMisuseRule.test_no_finding_when_loop_present_anywhere', 'findings', 0,
     1),
    ('SPL-D06-008', '-', 'TestCheckpointVsCacheMisuseRule.test_no_finding_for_no_checkpoint', 'findings', 0, 1),
    ('SPL-D06-008', '-', 'TestCheckpointVsCacheMisuseRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d07_io.py', [
    ('SPL-D07-001', '+', 'TestCsvJsonAnalyticalRule.test_fires_on_csv_read', 'findings', 0, 1),
    ('SPL-D07-001', '+', 'TestCsvJsonAnalyticalRule.test_fires_on_json_read', 'findings', 0, 1),
    ('SPL-D07-001', '+', 'TestCsvJsonAnalyticalRule.test_fires_on_csv_write', 'findings', 0, 1),
    ('SPL-D07-001', '+', 'TestCsvJsonAnalyticalRule.test_fires_on_json_write', 'findings', 0, 1),
    ('SPL-D07-001', '-', 'TestCsvJsonAnalyticalRule.test_no_finding_for_parquet_read', 'findings', 0, 1),
    ('SPL-D07-001', '-', 'TestCsvJsonAnalyticalRule.test_no_finding_for_orc_read', 'findings', 0, 1),
    ('SPL-D07-001', '-', 'TestCsvJsonAnalyticalRule.test_no_finding_for_parquet_write', 'findings', 0, 1),
    ('SPL-D07-001', '-', 'TestCsvJsonAnalyticalRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-002', '+', 'TestSchemaInferenceRule.test_fires_on_infer_schema_true_lowercase', 'findings', 0, 1),
    ('SPL-D07-002', '+', 'TestSchemaInferenceRule.test_fires_on_infer_schema_true_uppercase', 'findings', 0, 1),
    ('SPL-D07-002', '-', 'TestSchemaInferenceRule.test_no_finding_when_schema_explicitly_set', 'findings', 0, 1),
    ('SPL-D07-002', '-', 'TestSchemaInferenceRule.test_no_finding_when_infer_schema_false', 'findings', 0, 1),
    ('SPL-D07-002', '-', 'TestSchemaInferenceRule.test_no_finding_for_parquet_no_infer', 'findings', 0, 1),
    ('SPL-D07-002', '-', 'TestSchemaInferenceRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-003', '+', 'TestSelectStarRule.test_fires_on_select_star', 'findings', 0, 1),
    ('SPL-D07-003', '-', 'TestSelectStarRule.test_no_finding_for_explicit_columns', 'findings', 0, 1),
    ('SPL-D07-003', '-', 'TestSelectStarRule.test_no_finding_for_select_without_star', 'findings', 0, 1),
    ('SPL-D07-003', '-', 'TestSelectStarRule.test_no_finding_for_col_star', 'findings', 0, 1),
    ('SPL-D07-003', '-', 'TestSelectStarRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-004', '+', 'TestPostJoinFilterRule.test_fires_on_filter_after_join', 'findings', 0, 1),
    ('SPL-D07-004', '+', 'TestPostJoinFilterRule.test_fires_on_where_after_join', 'findings', 0, 1),
    ('SPL-D07-004', '-', 'TestPostJoinFilterRule.test_no_finding_when_filter_before_join', 'findings', 0, 1),
    ('SPL-D07-004', '-', 'TestPostJoinFilterRule.test_no_finding_for_filter_without_join', 'findings', 0, 1),
    ('SPL-D07-004', '-', 'TestPostJoinFilterRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-005', '+', 'TestSmallFileWriteRule.test_fires_on_partition_by_without_coalesce', 'findings', 0, 1),
    ('SPL-D07-005', '+', 'TestSmallFileWriteRule.test_fires_on_partition_by_orc_without_coalesce', 'findings', 0, 1),
    ('SPL-D07-005', '-', 'TestSmallFileWriteRule.test_no_finding_when_coalesce_in_chain', 'findings', 0, 1),
    ('SPL-D07-005', '-', 'TestSmallFileWriteRule.test_no_finding_when_repartition_in_chain', 'findings', 0, 1),
    ('SPL-D07-005', '-', 'TestSmallFileWriteRule.test_no_finding_when_no_partition_by', 'findings', 0, 1),
    ('SPL-D07-005', '-', 'TestSmallFileWriteRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-006', '+', 'TestJdbcWithoutPartitionsRule.test_fires_on_jdbc_without_params', 'findings', 0, 1),
    ('SPL-D07-006', '-', 'TestJdbcWithoutPartitionsRule.test_no_finding_with_column_kwarg', 'findings', 0, 1),
    ('SPL-D07-006', '-', 'TestJdbcWithoutPartitionsRule.test_no_finding_with_num_partitions_kwarg', 'findings', 0, 1),
    ('SPL-D07-006', '-', 'TestJdbcWithoutPartitionsRule.test_no_finding_with_partition_column_option', 'findings', 0,
     1),
    ('SPL-D07-006', '-', 'TestJdbcWithoutPartitionsRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-007', '+', 'TestParquetCompressionNotSetRule.test_fires_on_parquet_write_without_compression',
     'findings', 0, 1),
    ('SPL-D07-007', '-', 'TestParquetCompressionNotSetRule.test_no_finding_when_compression_option_set', 'findings',
     0, 1),
    ('SPL-D07-007', '-', 'TestParquetCompressionNotSetRule.test_no_finding_when_codec_option_set', 'findings', 0, 1),
    ('SPL-D07-007', '-', 'TestParquetCompressionNotSetRule.test_no_finding_when_global_config_set', 'findings', 0, 1),
    ('SPL-D07-007', '-', 'TestParquetCompressionNotSetRule.test_no_finding_for_csv_write', 'findings', 0, 1),
    ('SPL-D07-007', '-', 'TestParquetCompressionNotSetRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-008', '+', 'TestWriteModeNotSpecifiedRule.test_fires_on_parquet_write_no_mode', 'findings', 0, 1),
    ('SPL-D07-008', '+', 'TestWriteModeNotSpecifiedRule.test_fires_on_csv_write_no_mode', 'findings', 0, 1),
    ('SPL-D07-008', '+', 'TestWriteModeNotSpecifiedRule.test_fires_on_save_no_mode', 'findings', 0, 1),
    ('SPL-D07-008', '-', 'TestWriteModeNotSpecifiedRule.test_no_finding_when_mode_overwrite', 'findings', 0, 1),
    ('SPL-D07-008', '-', 'TestWriteModeNotSpecifiedRule.test_no_finding_when_mode_append', 'findings', 0, 1),
    ('SPL-D07-008', '-', 'TestWriteModeNotSpecifiedRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-009', '+', 'TestNoFormatSpecifiedRule.test_fires_on_bare_load', 'findings', 0, 1),
    ('SPL-D07-009', '+', 'TestNoFormatSpecifiedRule.test_fires_on_bare_save', 'findings', 0, 1),
    ('SPL-D07-009', '-', 'TestNoFormatSpecifiedRule.test_no_finding_for_parquet_read', 'findings', 0, 1),
    ('SPL-D07-009', '-', 'TestNoFormatSpecifiedRule.test_no_finding_for_format_then_load', 'findings', 0, 1),
    ('SPL-D07-009', '-', 'TestNoFormatSpecifiedRule.test_no_finding_for_format_then_save', 'findings', 0, 1),
    ('SPL-D07-009', '-', 'TestNoFormatSpecifiedRule.test_no_finding_for_csv_read', 'findings', 0, 1),
    ('SPL-D07-009', '-', 'TestNoFormatSpecifiedRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D07-010', '+', 'TestMergeSchemaRule.test_fires_on_option_merge_schema_true', 'findings', 0, 1),
    ('SPL-D07-010', '+', 'TestMergeSchemaRule.test_fires_on_global_config_merge_schema_true', 'findings', 0, 1),
    ('SPL-D07-010', '+', 'TestMergeSchemaRule.test_fires_for_both_option_and_config', 'findings', 0, 1),
    ('SPL-D07-010', '-', 'TestMergeSchemaRule.test_no_finding_when_merge_schema_false', 'findings', 0, 1),
    ('SPL-D07-010', '-', 'TestMergeSchemaRule.test_no_finding_for_parquet_without_option', 'findings', 0, 1),
    ('SPL-D07-010', '-', 'TestMergeSchemaRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d08_aqe.py', [
    ('SPL-D08-001', '+', 'TestAqeDisabledRule.test_fires_when_aqe_false', 'findings', 0, 1),
    ('SPL-D08-001', '-', 'TestAqeDisabledRule.test_no_finding_when_aqe_true', 'findings', 0, 1),
    ('SPL-D08-001', '-', 'TestAqeDisabledRule.test_no_finding_when_aqe_not_set', 'findings', 0, 1),
    ('SPL-D08-001', '-', 'TestAqeDisabledRule.test_no_finding_without_spark_session', 'findings', 0, 1),
    ('SPL-D08-001', '-', 'TestAqeDisabledRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D08-002', '+', 'TestAqeCoalesceDisabledRule.test_fires_when_coalesce_false', 'findings', 0, 1),
    ('SPL-D08-002', '-', 'TestAqeCoalesceDisabledRule.test_no_finding_when_coalesce_true', 'findings', 0, 1),
    ('SPL-D08-002', '-', 'TestAqeCoalesceDisabledRule.test_no_finding_when_not_set', 'findings', 0, 1),
    ('SPL-D08-002', '-', 'TestAqeCoalesceDisabledRule.test_no_finding_without_spark_session', 'findings', 0, 1),
    ('SPL-D08-002', '-', 'TestAqeCoalesceDisabledRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D08-003', '+', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_fires_on_4mb_advisory_size', 'findings', 0,
     1),
    ('SPL-D08-003', '+', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_fires_on_1mb_advisory_size', 'findings', 0,
     1),
    ('SPL-D08-003', '-', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_no_finding_for_64mb_default', 'findings', 0,
     1),
    ('SPL-D08-003', '-', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_no_finding_for_exactly_16mb', 'findings', 0,
     1),
    ('SPL-D08-003', '-', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_no_finding_when_not_set', 'findings', 0, 1),
    ('SPL-D08-003', '-', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_no_finding_without_spark_session',
     'findings', 0, 1),
    ('SPL-D08-003', '-', 'TestAqeAdvisoryPartitionSizeTooSmallRule.test_no_finding_for_non_spark_file', 'findings',
     0, 1),
    ('SPL-D08-004', '+', 'TestAqeSkewJoinDisabledWithJoinsRule.test_fires_when_skew_disabled_and_skew_id_join',
     'findings', 0, 1),
    ('SPL-D08-004', '+',
     'TestAqeSkewJoinDisabledWithJoinsRule.test_fires_when_skew_disabled_and_low_cardinality_join', 'findings', 0,
     1),
    ('SPL-D08-004', '+', 'TestAqeSkewJoinDisabledWithJoinsRule.test_fires_when_skew_disabled_and_is_prefix_join',
     'findings', 0, 1),
    ('SPL-D08-004', '-',
     'TestAqeSkewJoinDisabledWithJoinsRule.test_no_finding_when_skew_disabled_but_no_skew_prone_key', 'findings', 0,
     1),
    ('SPL-D08-004', '-', 'TestAqeSkewJoinDisabledWithJoinsRule.test_no_finding_when_skew_disabled_but_no_joins',
     'findings', 0, 1),
    ('SPL-D08-004', '-', 'TestAqeSkewJoinDisabledWithJoinsRule.test_no_finding_when_skew_enabled_with_skew_join',
     'findings', 0, 1),
    ('SPL-D08-004', '-', 'TestAqeSkewJoinDisabledWithJoinsRule.test_no_finding_without_spark_session', 'findings', 0,
     1),
    ('SPL-D08-004', '-', 'TestAqeSkewJoinDisabledWithJoinsRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D08-005', '+', 'TestAqeSkewFactorTooAggressiveRule.test_fires_on_factor_1', 'findings', 0, 1),
    ('SPL-D08-005', '+', 'TestAqeSkewFactorTooAggressiveRule.test_fires_on_factor_1_point_5', 'findings', 0, 1),
    ('SPL-D08-005', '-', 'TestAqeSkewFactorTooAggressiveRule.test_no_finding_for_factor_2_exactly', 'findings', 0, 1),
    ('SPL-D08-005', '-', 'TestAqeSkewFactorTooAggressiveRule.test_no_finding_for_default_factor_5', 'findings', 0, 1),
    ('SPL-D08-005', '-', 'TestAqeSkewFactorTooAggressiveRule.test_no_finding_when_not_set', 'findings', 0, 1),
    ('SPL-D08-005', '-', 'TestAqeSkewFactorTooAggressiveRule.test_no_finding_without_spark_session', 'findings', 0,
     1),
    ('SPL-D08-005', '-', 'TestAqeSkewFactorTooAggressiveRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D08-006', '+', 'TestAqeLocalShuffleReaderDisabledRule.test_fires_when_local_reader_false', 'findings', 0,
     1),
    ('SPL-D08-006', '-', 'TestAqeLocalShuffleReaderDisabledRule.test_no_finding_when_local_reader_true', 'findings',
     0, 1),
    ('SPL-D08-006', '-', 'TestAqeLocalShuffleReaderDisabledRule.test_no_finding_when_not_set', 'findings', 0, 1),
    ('SPL-D08-006', '-', 'TestAqeLocalShuffleReaderDisabledRule.test_no_finding_without_spark_session', 'findings',
     0, 1),
    ('SPL-D08-006', '-', 'TestAqeLocalShuffleReaderDisabledRule.test_no_finding_for_non_spark_file', 'findings', 0,
     1),
    ('SPL-D08-007', '+', 'TestManualShufflePartitionsWithAqeRule.test_fires_on_shuffle_partitions_1000_with_aqe',
     'findings', 0, 1),
    ('SPL-D08-007', '+', 'TestManualShufflePartitionsWithAqeRule.test_fires_on_shuffle_partitions_2000', 'findings',
     0, 1),
    ('SPL-D08-007', '-', 'TestManualShufflePartitionsWithAqeRule.test_no_finding_when_shuffle_partitions_200',
     'findings', 0, 1),
    ('SPL-D08-007', '-', 'TestManualShufflePartitionsWithAqeRule.test_no_finding_when_shuffle_partitions_400',
     'findings', 0, 1),
    ('SPL-D08-007', '-', 'TestManualShufflePartitionsWithAqeRule.test_no_finding_when_aqe_explicitly_disabled',
     'findings', 0, 1),
    ('SPL-D08-007', '-', 'TestManualShufflePartitionsWithAqeRule.test_no_finding_when_not_set', 'findings', 0, 1),
    ('SPL-D08-007', '-', 'TestManualShufflePartitionsWithAqeRule.test_no_finding_without_spark_session', 'findings',
     0, 1),
    ('SPL-D08-007', '-', 'TestManualShufflePartitionsWithAqeRule.test_no_finding_for_non_spark_file', 'findings', 0,
     1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d09_udf.py', [
    ('SPL-D09-001', '+', 'TestPythonUdfDetectedRule.test_fires_on_udf_decorator', 'findings', 0, 1),
    ('SPL-D09-001', '+', 'TestPythonUdfDetectedRule.test_fires_on_multiple_udfs', 'findings', 0, 1),
    ('SPL-D09-001', '-', 'TestPythonUdfDetectedRule.test_no_finding_for_pandas_udf', 'findings', 0, 1),
    ('SPL-D09-001', '-', 'TestPythonUdfDetectedRule.test_no_finding_for_plain_function', 'findings', 0, 1),
    ('SPL-D09-001', '-', 'TestPythonUdfDetectedRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-001', '-', 'TestPythonUdfDetectedRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-002', '+', 'TestUdfReplaceableRule.test_fires_on_lower_udf', 'findings', 0, 1),
    ('SPL-D09-002', '+', 'TestUdfReplaceableRule.test_fires_on_upper_udf', 'findings', 0, 1),
    ('SPL-D09-002', '+', 'TestUdfReplaceableRule.test_fires_on_strip_udf', 'findings', 0, 1),
    ('SPL-D09-002', '-', 'TestUdfReplaceableRule.test_no_finding_for_complex_udf_body', 'findings', 0, 1),
    ('SPL-D09-002', '-', 'TestUdfReplaceableRule.test_no_finding_for_multi_statement_udf', 'findings', 0, 1),
    ('SPL-D09-002', '-', 'TestUdfReplaceableRule.test_no_finding_for_pandas_udf', 'findings', 0, 1),
    ('SPL-D09-002', '-', 'TestUdfReplaceableRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-003', '+', 'TestWithColumnInLoopRule.test_fires_on_with_column_in_for_loop', 'findings', 0, 1),
    ('SPL-D09-003', '+', 'TestWithColumnInLoopRule.test_fires_on_with_column_in_while_loop', 'findings', 0, 1),
    ('SPL-D09-003', '-', 'TestWithColumnInLoopRule.test_no_finding_for_with_column_outside_loop', 'findings', 0, 1),
    ('SPL-D09-003', '-', 'TestWithColumnInLoopRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-003', '-', 'TestWithColumnInLoopRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-004', '+', 'TestRowByRowIterationRule.test_fires_on_for_collect', 'findings', 0, 1),
    ('SPL-D09-004', '+', 'TestRowByRowIterationRule.test_fires_on_for_to_local_iterator', 'findings', 0, 1),
    ('SPL-D09-004', '-', 'TestRowByRowIterationRule.test_no_finding_for_plain_list_iteration', 'findings', 0, 1),
    ('SPL-D09-004', '-', 'TestRowByRowIterationRule.test_no_finding_for_range_loop', 'findings', 0, 1),
    ('SPL-D09-004', '-', 'TestRowByRowIterationRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-004', '-', 'TestRowByRowIterationRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-005', '+', 'TestCollectWithoutLimitRule.test_fires_on_bare_collect', 'findings', 0, 1),
    ('SPL-D09-005', '-', 'TestCollectWithoutLimitRule.test_no_finding_with_limit_before_collect', 'findings', 0, 1),
    ('SPL-D09-005', '-', 'TestCollectWithoutLimitRule.test_no_finding_with_filter_before_collect', 'findings', 0, 1),
    ('SPL-D09-005', '-', 'TestCollectWithoutLimitRule.test_no_finding_with_where_before_collect', 'findings', 0, 1),
    ('SPL-D09-005', '-', 'TestCollectWithoutLimitRule.test_no_finding_with_head', 'findings', 0, 1),
    ('SPL-D09-005', '-', 'TestCollectWithoutLimitRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-005', '-', 'TestCollectWithoutLimitRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-006', '+', 'TestToPandasWithoutLimitRule.test_fires_on_bare_to_pandas', 'findings', 0, 1),
    ('SPL-D09-006', '-', 'TestToPandasWithoutLimitRule.test_no_finding_with_limit_before_to_pandas', 'findings', 0,
     1),
    ('SPL-D09-006', '-', 'TestToPandasWithoutLimitRule.test_no_finding_with_filter_before_to_pandas', 'findings', 0,
     1),
    ('SPL-D09-006', '-', 'TestToPandasWithoutLimitRule.test_no_finding_with_sample_before_to_pandas', 'findings', 0,
     1),
    ('SPL-D09-006', '-', 'TestToPandasWithoutLimitRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-006', '-', 'TestToPandasWithoutLimitRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-007', '+', 'TestCountForEmptinessRule.test_fires_on_count_eq_zero', 'findings', 0, 1),
    ('SPL-D09-007', '+', 'TestCountForEmptinessRule.test_fires_on_count_gt_zero', 'findings', 0, 1),
    ('SPL-D09-007', '+', 'TestCountForEmptinessRule.test_fires_on_count_in_comparison_with_variable', 'findings', 0,
     1),
    ('SPL-D09-007', '-', 'TestCountForEmptinessRule.test_no_finding_for_count_assigned_to_variable', 'findings', 0,
     1),
    ('SPL-D09-007', '-', 'TestCountForEmptinessRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-007', '-', 'TestCountForEmptinessRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-008', '+', 'TestShowInProductionRule.test_fires_on_show', 'findings', 0, 1),
    ('SPL-D09-008', '+', 'TestShowInProductionRule.test_fires_on_show_with_args', 'findings', 0, 1),
    ('SPL-D09-008', '+', 'TestShowInProductionRule.test_fires_on_multiple_show_calls', 'findings', 0, 1),
    ('SPL-D09-008', '-', 'TestShowInProductionRule.test_no_finding_without_show', 'findings', 0, 1),
    ('SPL-D09-008', '-', 'TestShowInProductionRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-008', '-', 'TestShowInProductionRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-009', '+', 'TestExplainInProductionRule.test_fires_on_explain', 'findings', 0, 1),
    ('SPL-D09-009', '+', 'TestExplainInProductionRule.test_fires_on_print_schema', 'findings', 0, 1),
    ('SPL-D09-009', '+', 'TestExplainInProductionRule.test_fires_on_both_explain_and_print_schema', 'findings', 0, 1),
    ('SPL-D09-009', '-', 'TestExplainInProductionRule.test_no_finding_without_explain_or_print_schema', 'findings',
     0, 1),
    ('SPL-D09-009', '-', 'TestExplainInProductionRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-009', '-', 'TestExplainInProductionRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-010', '+', 'TestRddConversionRule.test_fires_on_rdd_access', 'findings', 0, 1),
    ('SPL-D09-010', '+', 'TestRddConversionRule.test_fires_on_rdd_without_method', 'findings', 0, 1),
    ('SPL-D09-010', '-', 'TestRddConversionRule.test_no_finding_without_rdd_access', 'findings', 0, 1),
    ('SPL-D09-010', '-', 'TestRddConversionRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-010', '-', 'TestRddConversionRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-011', '+', 'TestPandasUdfWithoutTypeHintsRule.test_fires_on_pandas_udf_without_hints', 'findings', 0,
     1),
    ('SPL-D09-011', '-', 'TestPandasUdfWithoutTypeHintsRule.test_no_finding_with_return_type_hint', 'findings', 0, 1),
    ('SPL-D09-011', '-', 'TestPandasUdfWithoutTypeHintsRule.test_no_finding_with_param_annotation_only', 'findings',
     0, 1),
    ('SPL-D09-011', '-', 'TestPandasUdfWithoutTypeHintsRule.test_no_finding_for_regular_udf', 'findings', 0, 1),
    ('SPL-D09-011', '-', 'TestPandasUdfWithoutTypeHintsRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-011', '-', 'TestPandasUdfWithoutTypeHintsRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
    ('SPL-D09-012', '+', 'TestNestedUdfCallRule.test_fires_when_outer_udf_calls_inner_udf', 'findings', 0, 1),
    ('SPL-D09-012', '+', 'TestNestedUdfCallRule.test_fires_when_pandas_udf_calls_regular_udf', 'findings', 0, 1),
    ('SPL-D09-012', '-', 'TestNestedUdfCallRule.test_no_finding_when_udf_calls_plain_function', 'findings', 0, 1),
    ('SPL-D09-012', '-', 'TestNestedUdfCallRule.test_no_finding_with_single_udf', 'findings', 0, 1),
    ('SPL-D09-012', '-', 'TestNestedUdfCallRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D09-012', '-', 'TestNestedUdfCallRule.test_no_finding_for_non_spark_file', 'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d10_catalyst.py', [
    ('SPL-D10-001', '+', 'TestUdfBlocksPredicatePushdownRule.test_fires_when_udf_and_filter_present', 'findings', 0,
     1),
    ('SPL-D10-001', '+', 'TestUdfBlocksPredicatePushdownRule.test_fires_when_udf_and_where_present', 'findings', 0,
     1),
    ('SPL-D10-001', '+', 'TestUdfBlocksPredicatePushdownRule.test_fires_once_per_udf_when_multiple_udfs', 'findings',
     0, 1),
    ('SPL-D10-001', '-', 'TestUdfBlocksPredicatePushdownRule.test_no_finding_when_udf_but_no_filter', 'findings', 0,
     1),
    ('SPL-D10-001', '-', 'TestUdfBlocksPredicatePushdownRule.test_no_finding_for_pandas_udf_with_filter', 'findings',
     0, 1),
    ('SPL-D10-001', '-', 'TestUdfBlocksPredicatePushdownRule.test_no_finding_without_spark_imports', 'findings', 0,
     1),
    ('SPL-D10-002', '+', 'TestCboNotEnabledRule.test_fires_on_two_joins_without_cbo', 'findings', 0, 1),
    ('SPL-D10-002', '+', 'TestCboNotEnabledRule.test_fires_on_three_joins_without_cbo', 'findings', 0, 1),
    ('SPL-D10-002', '-', 'TestCboNotEnabledRule.test_no_finding_when_cbo_enabled', 'findings', 0, 1),
    ('SPL-D10-002', '-', 'TestCboNotEnabledRule.test_no_finding_for_single_join', 'findings', 0, 1),
    ('SPL-D10-002', '-', 'TestCboNotEnabledRule.test_no_finding_for_no_joins', 'findings', 0, 1),
    ('SPL-D10-002', '+', 'TestCboNotEnabledRule.test_fires_when_cbo_explicitly_false', 'findings', 0, 1),
    ('SPL-D10-002', '-', 'TestCboNotEnabledRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D10-003', '+', 'TestJoinReorderDisabledRule.test_fires_on_three_joins_without_reorder', 'findings', 0, 1),
    ('SPL-D10-003', '-', 'TestJoinReorderDisabledRule.test_no_finding_when_join_reorder_enabled', 'findings', 0, 1),
    ('SPL-D10-003', '-', 'TestJoinReorderDisabledRule.test_no_finding_for_two_joins', 'findings', 0, 1),
    ('SPL-D10-003', '-', 'TestJoinReorderDisabledRule.test_no_finding_for_one_join', 'findings', 0, 1),
    ('SPL-D10-003', '+', 'TestJoinReorderDisabledRule.test_fires_with_four_joins', 'findings', 0, 1),
    ('SPL-D10-003', '-', 'TestJoinReorderDisabledRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D10-004', '+', 'TestTableStatsNotCollectedRule.test_fires_when_join_without_analyze', 'findings', 0, 1),
    ('SPL-D10-004', '-', 'TestTableStatsNotCollectedRule.test_no_finding_when_analyze_table_present', 'findings', 0,
     1),
    ('SPL-D10-004', '-', 'TestTableStatsNotCollectedRule.test_no_finding_when_analyze_table_uppercase', 'findings',
     0, 1),
    ('SPL-D10-004', '-', 'TestTableStatsNotCollectedRule.test_no_finding_without_joins', 'findings', 0, 1),
    ('SPL-D10-004', '-', 'TestTableStatsNotCollectedRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D10-004', '+', 'TestTableStatsNotCollectedRule.test_fires_on_multiple_joins_without_analyze', 'findings',
     0, 1),
    ('SPL-D10-005', '+', 'TestNondeterministicInFilterRule.test_fires_on_rand_in_filter', 'findings', 0, 1),
    ('SPL-D10-005', '+', 'TestNondeterministicInFilterRule.test_fires_on_randn_in_filter', 'findings', 0, 1),
    ('SPL-D10-005', '+', 'TestNondeterministicInFilterRule.test_fires_on_uuid_in_where', 'findings', 0, 1),
    ('SPL-D10-005', '+', 'TestNondeterministicInFilterRule.test_fires_on_monotonically_increasing_id_in_filter',
     'findings', 0, 1),
    ('SPL-D10-005', '-', 'TestNondeterministicInFilterRule.test_no_finding_for_deterministic_filter', 'findings', 0,
     1),
    ('SPL-D10-005', '-', 'TestNondeterministicInFilterRule.test_no_finding_for_rand_outside_filter', 'findings', 0,
     1),
    ('SPL-D10-005', '+', 'TestNondeterministicInFilterRule.test_fires_once_per_filter_with_nondeterministic',
     'findings', 0, 1),
    ('SPL-D10-005', '-', 'TestNondeterministicInFilterRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D10-006', '+', 'TestDeepMethodChainRule.test_fires_on_chain_of_21', 'findings', 0, 1),
    ('SPL-D10-006', '+', 'TestDeepMethodChainRule.test_fires_on_chain_of_30', 'findings', 0, 1),
    ('SPL-D10-006', '-', 'TestDeepMethodChainRule.test_no_finding_for_chain_of_20', 'findings', 0, 1),
    ('SPL-D10-006', '-', 'TestDeepMethodChainRule.test_no_finding_for_short_chain', 'findings', 0, 1),
    ('SPL-D10-006', '-', 'TestDeepMethodChainRule.test_no_finding_for_standalone_expression_under_threshold',
     'findings', 0, 1),
    ('SPL-D10-006', '+', 'TestDeepMethodChainRule.test_fires_on_standalone_expression_over_threshold', 'findings', 0,
     1),
    ('SPL-D10-006', '-', 'TestDeepMethodChainRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
])

CASES += _tests('spark-perf-lint', 'tests/test_rules_d11_monitoring.py', [
    ('SPL-D11-001', '+', 'TestNoExplainInTestsRule.test_fires_for_test_file_with_join_no_explain', 'findings', 0, 1,
     {'filename': 'test_etl.py'}),
    ('SPL-D11-001', '+', 'TestNoExplainInTestsRule.test_fires_for_test_file_with_groupby_no_explain', 'findings', 0,
     1, {'filename': 'test_agg.py'}),
    ('SPL-D11-001', '-', 'TestNoExplainInTestsRule.test_no_finding_when_explain_present', 'findings', 0, 1,
     {'filename': 'test_etl.py'}),
    ('SPL-D11-001', '-', 'TestNoExplainInTestsRule.test_no_finding_for_non_test_file', 'findings', 0, 1,
     {'filename': 'etl.py'}),
    ('SPL-D11-001', '-', 'TestNoExplainInTestsRule.test_no_finding_for_test_file_without_heavy_ops', 'findings', 0,
     1, {'filename': 'test_filter.py'}),
    ('SPL-D11-001', '+', 'TestNoExplainInTestsRule.test_fires_for_test_file_with_underscore_suffix', 'findings', 0,
     1, {'filename': 'etl_test.py'}),
    ('SPL-D11-001', '-', 'TestNoExplainInTestsRule.test_no_finding_without_spark_imports', 'findings', 0, 1,
     {'filename': 'test_x.py'}),
    ('SPL-D11-002', '+', 'TestNoSparkListenerRule.test_fires_when_session_has_no_listener', 'findings', 0, 1),
    ('SPL-D11-002', '+', 'TestNoSparkListenerRule.test_fires_for_bare_get_or_create', 'findings', 0, 1),
    ('SPL-D11-002', '-', 'TestNoSparkListenerRule.test_no_finding_when_extra_listeners_set', 'findings', 0, 1),
    ('SPL-D11-002', '-', 'TestNoSparkListenerRule.test_no_finding_when_query_execution_listeners_set', 'findings', 0,
     1),
    ('SPL-D11-002', '-', 'TestNoSparkListenerRule.test_no_finding_when_add_spark_listener_called', 'findings', 0, 1),
    ('SPL-D11-002', '-', 'TestNoSparkListenerRule.test_no_finding_without_get_or_create', 'findings', 0, 1),
    ('SPL-D11-002', '-', 'TestNoSparkListenerRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D11-003', '+', 'TestNoMetricsLoggingRule.test_fires_when_two_writes_no_logging', 'findings', 0, 1),
    ('SPL-D11-003', '-', 'TestNoMetricsLoggingRule.test_no_finding_when_logging_imported', 'findings', 0, 1),
    ('SPL-D11-003', '-', 'TestNoMetricsLoggingRule.test_no_finding_when_logger_used', 'findings', 0, 1),
    ('SPL-D11-003', '-', 'TestNoMetricsLoggingRule.test_no_finding_for_single_write', 'findings', 0, 1),
    ('SPL-D11-003', '-', 'TestNoMetricsLoggingRule.test_no_finding_for_no_writes', 'findings', 0, 1),
    ('SPL-D11-003', '+', 'TestNoMetricsLoggingRule.test_fires_when_three_writes_no_logging', 'findings', 0, 1),
    ('SPL-D11-003', '-', 'TestNoMetricsLoggingRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D11-004', '+', 'TestMissingErrorHandlingRule.test_fires_when_count_outside_try', 'findings', 0, 1),
    ('SPL-D11-004', '+', 'TestMissingErrorHandlingRule.test_fires_when_collect_outside_try', 'findings', 0, 1),
    ('SPL-D11-004', '+', 'TestMissingErrorHandlingRule.test_fires_when_write_outside_try', 'findings', 0, 1),
    ('SPL-D11-004', '-', 'TestMissingErrorHandlingRule.test_no_finding_when_count_inside_try', 'findings', 0, 1),
    ('SPL-D11-004', '-', 'TestMissingErrorHandlingRule.test_no_finding_when_write_inside_try', 'findings', 0, 1),
    ('SPL-D11-004', '-', 'TestMissingErrorHandlingRule.test_no_finding_when_all_actions_in_try', 'findings', 0, 1),
    ('SPL-D11-004', '-', 'TestMissingErrorHandlingRule.test_no_finding_for_file_with_no_actions', 'findings', 0, 1),
    ('SPL-D11-004', '-', 'TestMissingErrorHandlingRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_on_s3_read_path', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_on_s3a_write_path', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_on_hdfs_path', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_on_absolute_posix_path', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_on_relative_path_with_slash', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_for_both_read_and_write_paths', 'findings', 0, 1),
    ('SPL-D11-005', '-', 'TestHardcodedPathRule.test_no_finding_when_path_is_variable', 'findings', 0, 1),
    ('SPL-D11-005', '-', 'TestHardcodedPathRule.test_no_finding_for_table_name_without_slash', 'findings', 0, 1),
    ('SPL-D11-005', '+', 'TestHardcodedPathRule.test_fires_on_gs_path', 'findings', 0, 1),
    ('SPL-D11-005', '-', 'TestHardcodedPathRule.test_no_finding_without_spark_imports', 'findings', 0, 1),
])

CASES += _cases('sparkdoctor', None, [
    ('SDK002', '-', 'core/rules/sdk002_collect_without_limit.yaml', {'lines': [[11, 11]]}, 'limit before collect'),
    ('SDK003', '-', 'core/rules/sdk003_count_emptiness_check.yaml', {'lines': [[13, 16]]},
     'head(1) / limit(1).count() emptiness checks; NB: sparkdoctor 0.1.8 itself flags it'),
    ('SDK004', '-', 'core/rules/sdk004_withcolumn_in_loop.yaml', {'lines': [[15, 16]]},
     'one select() with a list of columns'),
    ('SDK005', '-', 'core/rules/sdk005_python_udf.yaml', {'lines': [[16, 19]]}, 'pandas_udf instead of a Python UDF'),
    ('SDK006', '-', 'core/rules/sdk006_repartition_to_one.yaml', {'lines': [[14, 14]]},
     'maxRecordsPerFile instead of coalesce(1)'),
    ('SDK007', '-', 'core/rules/sdk007_unpersisted_cache.yaml', {'lines': [[14, 16]]}, 'cache() then unpersist()'),
    ('SDK007', '-', 'core/rules/sdk007_unpersisted_cache.yaml', {'lines': [[20, 24]]},
     'cache() with unpersist() in finally'),
    ('SDK008', '-', 'core/rules/sdk008_cross_df_column_ref.yaml', {'lines': [[11, 12]], 'strip_end': '\\s+--.*'},
     "string name / col() (the '-- ...' remarks cut)"),
    ('SDK009', '+', 'core/rules/sdk009_chain_length.yaml',
     {'lines': [[11, 11]], 'strip': '#\\s*(?:Bad:|Instead of:)\\s*'},
     'the Bad line (calls without arguments, as written)'),
    ('SDK009', '-', 'core/rules/sdk009_chain_length.yaml', {'lines': [[12, 13]], 'strip': '#\\s*(?:Good:)?\\s*'},
     'the Good lines'),
    ('SDK011', '+', 'core/rules/sdk011_magic_literal.yaml',
     {'lines': [[11, 11]], 'strip': '#\\s*(?:Bad:|Instead of:)\\s*'}, 'the Bad line'),
    ('SDK011', '-', 'core/rules/sdk011_magic_literal.yaml', {'lines': [[12, 13]], 'strip': '#\\s*(?:Good:)?\\s*'},
     'the Good lines'),
    ('SDK012', '-', 'core/rules/sdk012_topandas_without_limit.yaml', {'lines': [[11, 11]]}, 'limit before toPandas'),
    ('SDK013', '+', 'core/rules/sdk013_rdd_api_usage.yaml',
     {'lines': [[11, 11]], 'strip': '#\\s*(?:Bad:|Instead of:)\\s*'}, "the 'Instead of' line"),
    ('SDK013', '-', 'core/rules/sdk013_rdd_api_usage.yaml', {'lines': [[12, 12]]}, 'withColumn instead of rdd.map'),
    ('SDK013', '-', 'core/rules/sdk013_rdd_api_usage.yaml', {'lines': [[16, 16]]}, 'mapInPandas'),
    ('SDK016', '-', 'core/rules/sdk016_cross_join.yaml', {'lines': [[16, 16]]}, 'join with a condition'),
    ('SDK017', '-', 'core/rules/sdk017_select_star.yaml', {'lines': [[11, 11]]}, 'explicit columns'),
    ('SDK018', '-', 'core/rules/sdk018_inconsistent_column_ref.yaml', {'lines': [[15, 15]]}, 'consistent col()'),
    ('SDK018', '-', 'core/rules/sdk018_inconsistent_column_ref.yaml', {'lines': [[16, 16]]}, 'consistent strings'),
    ('SDK019', '-', 'core/rules/sdk019_infer_schema.yaml', {'lines': [[11, 12]]}, 'explicit StructType schema'),
    ('SDK020', '+', 'core/rules/sdk020_drop_before_overwrite.yaml',
     {'lines': [[11, 11]], 'strip': '#\\s*(?:Bad:|Instead of:)\\s*'},
     'the Bad line; NB: sparkdoctor 0.1.8 itself does not flag it'),
    ('SDK020', '-', 'core/rules/sdk020_drop_before_overwrite.yaml',
     {'lines': [[12, 12]], 'strip': '#\\s*(?:Good:)?\\s*'}, 'the Good line'),
    ('SDK024', '+', 'core/rules/sdk024_streaming_without_schema.yaml',
     {'lines': [[11, 11]], 'strip': '#\\s*(?:Bad:|Instead of:)\\s*'}, 'the Bad line'),
    ('SDK024', '-', 'core/rules/sdk024_streaming_without_schema.yaml',
     {'lines': [[12, 12]], 'strip': '#\\s*(?:Good:)?\\s*'}, 'the Good line'),
    ('SDK025', '-', 'core/rules/sdk025_union_by_position.yaml', {'lines': [[11, 11]]}, 'unionByName'),
    ('SDK025', '-', 'core/rules/sdk025_union_by_position.yaml', {'lines': [[15, 15]]},
     'unionByName(allowMissingColumns=True)'),
    ('SDK027', '-', 'core/rules/sdk027_orderby_before_write.yaml', {'lines': [[15, 15]]},
     'sortWithinPartitions before write'),
    ('SDK028', '-', 'core/rules/sdk028_distinct_count.yaml', {'lines': [[16, 18]]},
     'countDistinct / approx_count_distinct'),
    ('SDK029', '-', 'core/rules/sdk029_write_without_mode.yaml', {'lines': [[14, 15]]}, 'explicit write modes'),
    ('SDK030', '-', 'core/rules/sdk030_redundant_sort.yaml', {'lines': [[14, 14]]}, 'one orderBy with all keys'),
    ('SDK030', '-', 'core/rules/sdk030_redundant_sort.yaml', {'lines': [[15, 15]]}, 'one sort with all keys'),
], fragment=True)

CASES += _cases('pyspark-antipattern', 'pyspark_antipattern-0.4.1.data/scripts/pyspark-antipattern', [
    ('ARR001', '+', {'md': '# Rule ARR001', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('ARR001', '-', {'md': '# Rule ARR001', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('ARR002', '+', {'md': '# Rule ARR002', 'occurrence': 0, 'block': 0}, "'Replace:' block"),
    ('ARR002', '-', {'md': '# Rule ARR002', 'occurrence': 0, 'block': 1}, "'With:' block"),
    ('ARR003', '+', {'md': '# Rule ARR003', 'occurrence': 0, 'block': 0, 'block_lines': [1, 2]},
     'the two forms the rule covers'),
    ('ARR003', '+', {'md': '# Rule ARR003', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('ARR003', '-', {'md': '# Rule ARR003', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('ARR004', '+', {'md': '# Rule ARR004', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('ARR004', '-', {'md': '# Rule ARR004', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('ARR005', '+', {'md': '# Rule ARR005', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('ARR005', '-', {'md': '# Rule ARR005', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('ARR006', '+', {'md': '# Rule ARR006', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('ARR006', '-', {'md': '# Rule ARR006', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('D001', '+', {'md': '# Rule D100', 'occurrence': 0, 'block': 0},
     "the D001 page, whose heading says D100; 'Bad:' block"),
    ('D002', '+', {'md': '# Rule D101', 'occurrence': 0, 'block': 0},
     "the D002 page, whose heading says D101; 'Bad:' block"),
    ('D003', '+', {'md': '# Rule D003', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('D004', '+', {'md': '# Rule D004', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('D004', '-', {'md': '# Rule D004', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('D005', '+', {'md': '# Rule D005', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('D005', '-', {'md': '# Rule D005', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('D006', '+', {'md': '# Rule D006', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('D006', '-', {'md': '# Rule D006', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('D007', '+', {'md': '# Rule D007', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('D007', '-', {'md': '# Rule D007', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('D008', '+', {'md': '# Rule D003', 'occurrence': 1, 'block': 0},
     "the D008 page, whose heading says D003; 'Bad:' block"),
    ('D009', '+', {'md': '# Rule D009', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('D009', '-', {'md': '# Rule D009', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F001', '-', {'md': '# Rule F001', 'occurrence': 0, 'block': 0, 'block_lines': [1, 4]}, 'select() with aliases'),
    ('F001', '+', {'md': '# Rule F001', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('F001', '-', {'md': '# Rule F001', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('F002', '+', {'md': '# Rule F002', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F002', '-', {'md': '# Rule F002', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F003', '+', {'md': '# Rule F003', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F003', '-', {'md': '# Rule F003', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F004', '+', {'md': '# Rule F004', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F004', '-', {'md': '# Rule F004', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F005', '+', {'md': '# Rule F005', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F005', '-', {'md': '# Rule F005', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F006', '+', {'md': '# Rule F006', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F006', '-', {'md': '# Rule F006', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F007', '+', {'md': '# Rule F007', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F007', '-', {'md': '# Rule F007', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F008', '+', {'md': '# Rule F008', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F008', '-', {'md': '# Rule F008', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F009', '+', {'md': '# Rule F009', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F009', '-', {'md': '# Rule F009', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F010', '+', {'md': '# Rule F010', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F010', '-', {'md': '# Rule F010', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F011', '+', {'md': '# Rule F011', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F011', '-', {'md': '# Rule F011', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F012', '+', {'md': '# Rule F012', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F012', '-', {'md': '# Rule F012', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F013', '+', {'md': '# Rule F013', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F013', '-', {'md': '# Rule F013', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F014', '+', {'md': '# Rule F014', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F014', '-', {'md': '# Rule F014', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F015', '+', {'md': '# Rule F015', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F015', '-', {'md': '# Rule F015', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F016', '+', {'md': '# Rule F016', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F016', '-', {'md': '# Rule F016', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F017', '+', {'md': '# Rule F017', 'occurrence': 0, 'block': 0}, "'Replace SQL string e' block"),
    ('F017', '-', {'md': '# Rule F017', 'occurrence': 0, 'block': 1}, "'# Good' block"),
    ('F018', '+', {'md': '# Rule F018', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F018', '-', {'md': '# Rule F018', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('F019', '-', {'md': '# Rule F019', 'occurrence': 0, 'block': 0, 'block_lines': [1, 8]},
     'explicit StructType schema'),
    ('F019', '+', {'md': '# Rule F019', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('F019', '-', {'md': '# Rule F019', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('F020', '+', {'md': '# Rule F020', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('F020', '-', {'md': '# Rule F020', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('L001', '+', {'md': '# Rule L001', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('L001', '-', {'md': '# Rule L001', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('L002', '+', {'md': '# Rule L002', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('L002', '-', {'md': '# Rule L002', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('L003', '+', {'md': '# Rule L003', 'occurrence': 0, 'block': 0, 'block_lines': [1, 2]}, "'what not to do'"),
    ('L003', '-', {'md': '# Rule L003', 'occurrence': 0, 'block': 1, 'block_lines': [1, 2]},
     "select('*', ...) in the loop instead"),
    ('L003', '+', {'md': '# Rule L003', 'occurrence': 0, 'block': 2}, "'Bad:' block"),
    ('L003', '-', {'md': '# Rule L003', 'occurrence': 0, 'block': 3}, "'Good:' block"),
    ('P001', '+', {'md': '# Rule P001', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('P001', '-', {'md': '# Rule P001', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('S001', '+', {'md': '# Rule S001', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S001', '-', {'md': '# Rule S001', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S002', '+', {'md': '# Rule S002', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S002', '-', {'md': '# Rule S002', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S003', '+', {'md': '# Rule S003', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S003', '-', {'md': '# Rule S003', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S004', '+', {'md': '# Rule S004', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S004', '-', {'md': '# Rule S004', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S005', '+', {'md': '# Rule S005', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S005', '-', {'md': '# Rule S005', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S006', '+', {'md': '# Rule S006', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S006', '-', {'md': '# Rule S006', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S007', '+', {'md': '# Rule S007', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S007', '-', {'md': '# Rule S007', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S008', '+', {'md': '# Rule S008', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S008', '-', {'md': '# Rule S008', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S009', '+', {'md': '# Rule S009', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S009', '-', {'md': '# Rule S009', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S010', '+', {'md': '# Rule S010', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S010', '-', {'md': '# Rule S010', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S011', '+', {'md': '# Rule S011', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S011', '-', {'md': '# Rule S011', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S012', '+', {'md': '# Rule S012', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S012', '-', {'md': '# Rule S012', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S013', '+', {'md': '# Rule S013', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S013', '-', {'md': '# Rule S013', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S014', '+', {'md': '# Rule S014', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('S014', '-', {'md': '# Rule S014', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('S015', '+', {'md': '# Rule S015', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('S015', '-', {'md': '# Rule S015', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('S016', '+', {'md': '# Rule S016', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('S016', '-', {'md': '# Rule S016', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('PERF001', '+', {'md': '# Rule PERF001', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('PERF001', '-', {'md': '# Rule PERF001', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('PERF002', '+', {'md': '# Rule PERF002', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('PERF002', '-', {'md': '# Rule PERF002', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('PERF003', '+',
     {'md': '# PERF003 — Too many shuffle operations without a checkpoint', 'occurrence': 0, 'block': 0, 'block_lines': [1, 14]},
     "'Bad' part: 10 shuffles; NB: pyspark-antipattern 0.4.1 itself does not flag it"),
    ('PERF003', '-',
     {'md': '# PERF003 — Too many shuffle operations without a checkpoint', 'occurrence': 0, 'block': 0, 'block_lines': [16, 33]},
     "'Good' part: localCheckpoint between"),
    ('PERF004', '+', {'md': '# Rule PERF004', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('PERF004', '-', {'md': '# Rule PERF004', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('PERF005', '+', {'md': '# Rule PERF005', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('PERF005', '+', {'md': '# Rule PERF005', 'occurrence': 0, 'block': 1, 'block_lines': [1, 5]},
     'second Bad block: df2 aliases df, never unpersisted'),
    ('PERF005', '-', {'md': '# Rule PERF005', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('PERF006', '-', {'md': '# Rule PERF006', 'occurrence': 0, 'block': 0, 'block_lines': [1, 5]},
     'explicit eager arguments'),
    ('PERF006', '+', {'md': '# Rule PERF006', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('PERF006', '-', {'md': '# Rule PERF006', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('PERF007', '+', {'md': '# Rule PERF007', 'occurrence': 0, 'block': 1},
     "'downstream consumers' block; NB: pyspark-antipattern 0.4.1 itself does not flag it"),
    ('PERF007', '-', {'md': '# Rule PERF007', 'occurrence': 0, 'block': 2}, "'# Good — df is compu' block"),
    ('PERF007', '-', {'md': '# Rule PERF007', 'occurrence': 0, 'block': 3, 'block_lines': [1, 9]},
     'persist(StorageLevel) variant'),
    ('PERF008', '+', {'md': '# Rule PERF008', 'occurrence': 0, 'block': 0, 'block_lines': [1, 6]},
     'the split and inline forms the rule covers'),
    ('PERF008', '+', {'md': '# Rule PERF008', 'occurrence': 0, 'block': 1}, "'Bad:' block"),
    ('PERF008', '-', {'md': '# Rule PERF008', 'occurrence': 0, 'block': 2}, "'Good:' block"),
    ('U001', '+', {'md': '# Rule U001', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U001', '-', {'md': '# Rule U001', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('U002', '+', {'md': '# Rule U002', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U002', '-', {'md': '# Rule U002', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('U003', '+', {'md': '# Rule U003', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U003', '-', {'md': '# Rule U003', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('U004', '+', {'md': '# Rule U004', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U004', '-', {'md': '# Rule U004', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('U005', '+', {'md': '# Rule U005', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U005', '-', {'md': '# Rule U005', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('U006', '+', {'md': '# Rule U006', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U006', '-', {'md': '# Rule U006', 'occurrence': 0, 'block': 1}, "'Good:' block"),
    ('U007', '+', {'md': '# Rule U007', 'occurrence': 0, 'block': 0}, "'Bad:' block"),
    ('U007', '-', {'md': '# Rule U007', 'occurrence': 0, 'block': 1}, "'Good:' block"),
], fragment=True)


# --------------------------------------------------------------------------------------------


def main(argv: list) -> int:
    keep = None
    show = None
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == "--keep" and args:
            keep = args.pop(0)
        elif a == "--show" and args:
            show = args.pop(0)
        else:
            sys.exit(__doc__.split("\n\n")[1])
    tmp = keep or tempfile.mkdtemp(prefix="sparkcheck-peer-cases-")
    try:
        roots = fetch(tmp)
        counts: dict = {}
        bad = []
        for case in CASES:
            try:
                text = extract(case, roots)
            except (ExtractError, OSError, SyntaxError, KeyError, IndexError, TypeError, ValueError) as exc:
                bad.append((case, f"{type(exc).__name__}: {exc}"))
                continue
            if not text.strip():
                bad.append((case, "empty snippet"))
                continue
            if show and f"{case['peer']}:{case['rule']}" == show:
                print(f"--- {case['kind']} {case['source']} {case['locate']}\n{text}")
            counts.setdefault(case["peer"], {}).setdefault(case["rule"], Counter())[case["kind"]] += 1
        for peer, version in VERSIONS.items():
            rules = counts.get(peer, {})
            pos = sum(c["positive"] for c in rules.values())
            neg = sum(c["negative"] for c in rules.values())
            print(f"\n{peer} {version} ({roots[peer]}): {pos} positive, {neg} negative, {len(rules)} rules")
            for rule in sorted(rules):
                c = rules[rule]
                print(f"  {rule:14s} {c['positive']:4d} positive {c['negative']:4d} negative")
        print(f"\n{len(CASES)} cases, {len(CASES) - len(bad)} extracted to non-empty text")
        for case, why in bad:
            print(f"  FAILED {case['peer']} {case['rule']} {case['kind']} {case['source']} {case['locate']}: {why}")
        return 1 if bad else 0
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
