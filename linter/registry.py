"""Rules: the base classes, discovery under ``checks/``, selection by code, name or prefix.

A rule is a class in its own module under ``checks/<family>/``.  It carries its
code, kebab-case name, summary, manual (the class docstring, under ruff's
headings), options, and the examples that must and must not be reported.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Optional

HEADINGS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Options", "References")


class SelectorError(ValueError):
    pass


@dataclass(frozen=True)
class Option:
    default: Any
    doc: str

    @property
    def type(self) -> type:
        return type(self.default)


class _Example:
    @property
    def source(self) -> str:
        """The example's text; ``code`` may be a function that builds it (event logs, built only when read)."""
        return self.code() if callable(self.code) else self.code


@dataclass(frozen=True)
class Invalid(_Example):
    """Code that must be reported; ``fixed`` is what ``--fix`` must make of it."""

    code: Any
    count: int = 1
    fixed: Optional[str] = None
    unsafe: bool = False  # the fix needs --unsafe-fixes
    path: str = "example.py"
    options: Optional[dict] = None
    preview: bool = True  # checked with --preview (False: a case of the default rule set alone)


@dataclass(frozen=True)
class Valid(_Example):
    """Code that must not be reported."""

    code: Any
    path: str = "example.py"
    options: Optional[dict] = None
    preview: bool = True  # checked with --preview (False: quiet without it; a preview case may report it)


_IN_TESTS = (
    "Not reported in test modules (`test_*.py`, `*_test.py`, `conftest.py`, files under `tests/`): they run on\n"
    "a handful of rows, where what this rule is about costs nothing.\n"
)

class Rule:
    code: str = ""
    name: str = ""
    summary: str = ""
    severity: str = "warning"  # "error" for code that fails or silently computes wrong results
    kind: str = "python"  # "python", "sql" or "tool" (produced by the engine itself)
    preview: bool = False  # only with --preview
    explicit: bool = False  # opinion rather than defect: only when selected by its exact code
    # Why a rule that is on by default is (`sparkcheck rule` prints it; preview and explicit rules say in their
    # manual why they are not): one sentence, what makes its findings worth every user's attention.
    default_reason: str = ""
    fix: Optional[str] = None  # "safe", "unsafe" or None: what the rule's fixes are
    min_spark: Optional[str] = None
    options: dict[str, Option] = {}
    triggers: Optional[tuple[str, ...]] = None  # words a file must contain for the rule to run (None: always)
    # Not run on test modules (test_*.py, *_test.py, conftest.py, tests/): about costs that need real data sizes
    skip_in_tests: bool = False
    invalid: tuple = ()
    valid: tuple = ()
    doc_setup: str = ""  # code that defines the names the manual's examples use

    def __init__(self, ctx):
        self.ctx = ctx
        self.opts = ctx.settings.rule_options(self)

    @classmethod
    def manual(cls) -> str:
        text = _dedent(cls.__doc__ or "")
        if cls.skip_in_tests and "\n## Why is this bad?" in text:
            # said once here for every such rule, at the end of "What it does"
            text = text.replace("\n## Why is this bad?", "\n" + _IN_TESTS + "\n## Why is this bad?", 1)
        return text

    @classmethod
    def sections(cls) -> dict[str, str]:
        """The manual split under its ``## Heading`` lines."""
        out: dict[str, str] = {}
        current = None
        for line in cls.manual().splitlines():
            m = re.match(r"^##\s+(.*?)\s*$", line)
            if m:
                current = m.group(1)
                out[current] = ""
            elif current is not None:
                out[current] += line + "\n"
        return {k: v.strip("\n") for k, v in out.items()}

    @classmethod
    def fixable(cls) -> bool:
        return cls.fix is not None


class PythonRule(Rule):
    """Reads a libcst module: define ``visit_<Node>`` / ``leave_<Node>`` methods."""

    kind = "python"


class SqlRule(Rule):
    """Reads sqlglot trees: define ``visit_<ExpressionClass>`` methods."""

    kind = "sql"
    triggers = None


class PlanRule(Rule):
    """Reads physical plans: define ``visit_<Operator>`` methods (``visit_Filter``, ``visit_FileScan``)."""

    kind = "plan"


class RunRule(Rule):
    """Reads a run (linter/sources/app.py's Application): define ``check(app)``; report with ``ctx.report_at``."""

    kind = "run"


class ConfigRule(Rule):
    """Reads Spark settings (linter/sources/sparkconf.py's ConfigSet): define ``check(conf)``;
    report with ``ctx.report(self, setting, message, help)``."""

    kind = "config"


class ToolRule(Rule):
    """A finding the engine itself makes (unreadable input, unused suppressions)."""

    kind = "tool"


def _dedent(text: str) -> str:
    lines = text.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    pad = min(indents) if indents else 0
    out = [lines[0].strip()] if lines else []
    out += [line[pad:] for line in lines[1:]]
    return "\n".join(out).strip() + "\n"


_RULES: Optional[list[type[Rule]]] = None


def all_rules() -> list[type[Rule]]:
    """Every rule under ``checks/``, sorted by code (every rule module imported, once).

    A check run does not need this: it selects rules from the index (``infos``) and imports only the modules
    of the rules a file triggers (``load_rules``). The manual, the rule table and the plan and run commands do.
    """
    global _RULES
    if _RULES is None:
        import pkgutil

        import checks

        found: dict[str, type[Rule]] = {}
        for info in pkgutil.walk_packages(checks.__path__, "checks."):
            if info.ispkg:
                continue
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if (
                    isinstance(value, type)
                    and issubclass(value, Rule)
                    and value.code
                    and value.__module__ == module.__name__
                ):
                    found[value.code] = value
        _RULES = sorted(found.values(), key=lambda r: r.code)
    return _RULES


# What a run needs to know of a rule before deciding to import its module: checks/_index.py holds it for
# every rule (written by `python -m linter.registry --write-index`; tests/test_lean_run.py checks that it
# matches the modules). A file that mentions no Spark then imports no rule module, libcst nor sqlglot.
INDEX_FIELDS = ("code", "name", "kind", "severity", "preview", "explicit", "fix", "triggers", "skip_in_tests",
                "module", "qualname")


class RuleInfo:
    """A rule as the index describes it; any other attribute (``options``, ``summary``, ``manual()``) is the
    rule class's, whose module is imported on first use (``load``)."""

    __slots__ = (*INDEX_FIELDS, "_cls")

    def __init__(self, *values, cls=None):
        for name, value in zip(INDEX_FIELDS, values):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_cls", cls)

    @classmethod
    def of(cls, rule: type[Rule]) -> RuleInfo:
        return cls(*(_field(rule, name) for name in INDEX_FIELDS), cls=rule)

    def load(self) -> type[Rule]:
        if self._cls is None:
            module = importlib.import_module(self.module)
            object.__setattr__(self, "_cls", getattr(module, self.qualname))
        return self._cls

    def row(self) -> tuple:
        return tuple(getattr(self, name) for name in INDEX_FIELDS)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.load(), name)

    def __setattr__(self, name, value):
        raise AttributeError("RuleInfo is read-only")

    def __reduce__(self):
        return (info, (self.code,))

    def __eq__(self, other):
        if isinstance(other, RuleInfo):
            return self.code == other.code
        return NotImplemented

    def __hash__(self):
        return hash(self.code)

    def __repr__(self) -> str:
        return f"<rule {self.code} {self.name}>"


def _field(rule: type[Rule], name: str):
    if name == "module":
        return rule.__module__
    if name == "qualname":
        return rule.__qualname__
    value = getattr(rule, name)
    # sorted: a rule may build its words from a set, whose order changes from one process to the next (a file
    # triggers a rule when any word occurs: the order is nobody's business)
    return tuple(sorted(value)) if name == "triggers" and value is not None else value


def index_rows() -> list[tuple]:
    """The index as it should read: one row per rule, from the imported modules."""
    return [RuleInfo.of(r).row() for r in all_rules()]


def _module_sizes() -> dict[str, int]:
    """The byte size of every module under ``checks/`` but the index: what tells a stale index (a rule module
    added, removed or edited since it was written) without reading the files."""
    import checks

    root = next(iter(checks.__path__))
    sizes = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, rel)))
        except OSError:
            continue
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir() and entry.name != "__pycache__":
                stack.append(name)
            elif entry.name.endswith(".py") and name != "_index.py":
                sizes[name] = entry.stat().st_size
    return sizes


def write_index(path: Optional[str] = None) -> str:
    """Write checks/_index.py from the rule modules; returns its path."""
    import checks

    path = path or os.path.join(next(iter(checks.__path__)), "_index.py")
    rows = index_rows()
    lines = ['"""The rules\' index: what a run needs of each rule before importing its module (linter/registry.py).',
             "",
             "Generated by `python -m linter.registry --write-index`; do not edit. tests/test_lean_run.py checks that",
             'it matches the modules; a run that finds the modules changed since (MODULES) imports them all instead."""',
             "",
             f"FIELDS = {INDEX_FIELDS!r}",
             "",
             "RULES = ("]
    lines += [f"    {row!r}," for row in rows]
    lines += [")", "", "MODULES = {"]
    lines += [f"    {name!r}: {size}," for name, size in sorted(_module_sizes().items())]
    lines += ["}", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path


_INFOS: Optional[tuple[list, dict]] = None  # (infos sorted by code, by code), for the _RULES they were made from
_INFOS_OF: Optional[list] = None


def _from_index() -> Optional[list[RuleInfo]]:
    try:
        from checks import _index
    except ImportError:
        return None
    if _index.FIELDS != INDEX_FIELDS or _index.MODULES != _module_sizes():
        return None
    return [RuleInfo(*row) for row in _index.RULES]


def _infos() -> tuple[list, dict]:
    global _INFOS, _INFOS_OF
    if _INFOS is None or _INFOS_OF is not _RULES:
        found = _from_index() if _RULES is None else None
        if found is None:  # no index, a stale one, or rules already imported (or set by a test): the classes
            found = [RuleInfo.of(r) for r in all_rules()]
        _INFOS = (found, {i.code: i for i in found})
        _INFOS_OF = _RULES
        _LOADED.clear()
    return _INFOS


def infos() -> list[RuleInfo]:
    """Every rule as the index describes it, sorted by code: imports no rule module."""
    return _infos()[0]


def info(code: str) -> RuleInfo:
    """The rule of a code (KeyError for an unknown one), without importing its module."""
    return _infos()[1][code]


_LOADED: dict = {}


def load_rules(kind: str, codes: frozenset) -> tuple:
    """The rule classes of one kind among ``codes``, sorted by code: only their modules are imported."""
    chosen = _infos()[0]
    key = (kind, codes)
    out = _LOADED.get(key)
    if out is None:
        out = _LOADED[key] = tuple(i.load() for i in chosen if i.kind == kind and i.code in codes)
    return out


def by_code() -> dict[str, type[Rule]]:
    """Every rule class by code (imports every rule module; a run takes ``info`` instead)."""
    global _BY_CODE
    if _BY_CODE is None or len(_BY_CODE) != len(all_rules()):
        _BY_CODE = {r.code: r for r in all_rules()}
    return _BY_CODE


_BY_CODE: Optional[dict] = None


def find(selector: str) -> Optional[RuleInfo]:
    """The rule a code or name names (its module imported only when more than the index is read)."""
    for r in infos():
        if selector.upper() == r.code or selector.lower() == r.name:
            return r
    return None


def resolve(selector: str, source: str = "") -> list[RuleInfo]:
    """The rules a selector names: ``ALL``, a code, a code prefix (``SPK4``) or a name."""
    sel = selector.strip()
    where = f" in {source}" if source else ""
    if not sel:
        raise SelectorError(f"empty rule selector{where}")
    if sel.upper() == "ALL":
        return list(infos())
    rule = find(sel)
    if rule is not None:
        return [rule]
    upper = sel.upper()
    if re.fullmatch(r"SPK\d{0,2}", upper):
        # A family prefix is valid even before the family has rules.
        return [r for r in infos() if r.code.startswith(upper)]
    raise SelectorError(f"unknown rule selector {selector!r}{where} (see `sparkcheck rules`)")


def is_exact(selector: str, rule: type[Rule]) -> bool:
    return selector.upper() == rule.code or selector.lower() == rule.name


def main(argv: Optional[list[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["--write-index"]:
        sys.stderr.write("usage: python -m linter.registry --write-index\n")
        return 2
    # not this module as __main__: the rules subclass linter.registry's Rule
    registry = importlib.import_module("linter.registry")
    sys.stdout.write(f"wrote {registry.write_index()}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
