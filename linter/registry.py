"""Rules: the base classes, discovery under ``checks/``, selection by code, name or prefix.

A rule is a class in its own module under ``checks/<family>/``.  It carries its
code, kebab-case name, summary, manual (the class docstring, under ruff's
headings), options, and the examples that must and must not be reported.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
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


@dataclass(frozen=True)
class Valid(_Example):
    """Code that must not be reported."""

    code: Any
    path: str = "example.py"
    options: Optional[dict] = None


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
    """Every rule under ``checks/``, sorted by code (imported once)."""
    global _RULES
    if _RULES is None:
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


_BY_CODE: Optional[dict] = None


def by_code() -> dict[str, type[Rule]]:
    global _BY_CODE
    if _BY_CODE is None or len(_BY_CODE) != len(all_rules()):
        _BY_CODE = {r.code: r for r in all_rules()}
    return _BY_CODE


def find(selector: str) -> Optional[type[Rule]]:
    for r in all_rules():
        if selector.upper() == r.code or selector.lower() == r.name:
            return r
    return None


def resolve(selector: str, source: str = "") -> list[type[Rule]]:
    """The rules a selector names: ``ALL``, a code, a code prefix (``SPK4``) or a name."""
    sel = selector.strip()
    where = f" in {source}" if source else ""
    if not sel:
        raise SelectorError(f"empty rule selector{where}")
    if sel.upper() == "ALL":
        return list(all_rules())
    rule = find(sel)
    if rule is not None:
        return [rule]
    upper = sel.upper()
    if re.fullmatch(r"SPK\d{0,2}", upper):
        # A family prefix is valid even before the family has rules.
        return [r for r in all_rules() if r.code.startswith(upper)]
    raise SelectorError(f"unknown rule selector {selector!r}{where} (see `sparkcheck rules`)")


def is_exact(selector: str, rule: type[Rule]) -> bool:
    return selector.upper() == rule.code or selector.lower() == rule.name
