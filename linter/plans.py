"""Lint physical plans: `sparkcheck plan FILE|DIR|-` (explain text in any mode)."""

from __future__ import annotations

import os

from linter import registry
from linter.diagnostics import Finding, Location
from linter.sources.plan import parse_plans

PLAN_EXTENSIONS = (".txt", ".plan", ".log", ".explain")


class PlanContext:
    def __init__(self, path: str, lines: list[str], settings):
        self.path = path
        self.lines = lines
        self.settings = settings
        self.findings: list[Finding] = []
        self.prefix = ""  # "SQL execution 3 (collect at job.py:16): " for event logs

    def report(self, rule, node, message: str, help=None) -> None:
        message = self.prefix + message
        line = self.lines[node.line - 1] if 0 < node.line <= len(self.lines) else node.text
        loc = Location(node.line, node.column)
        end = Location(node.line, node.column + len(node.text))
        self.findings.append(Finding(rule.code, rule.name, message, rule.severity, self.path, loc, end,
                                     help=help, noqa_row=node.line, source_line=line,
                                     context=[(node.line, line)]))


def _run(ctx: PlanContext, roots) -> list[Finding]:
    codes = ctx.settings.codes_for(ctx.path)
    instances = [r(ctx) for r in registry.all_rules() if r.kind == "plan" and r.code in codes]
    for prefix, root in roots:
        ctx.prefix = prefix
        for node in root.walk():
            for rule in instances:
                method = getattr(rule, f"visit_{node.name}", None)
                if method is not None:
                    method(node)
    return sorted(ctx.findings, key=Finding.sort_key)


def check_plan_text(path: str, text: str, settings) -> list[Finding]:
    ctx = PlanContext(path, text.splitlines(), settings)
    return _run(ctx, (("", plan.root) for plan in parse_plans(text)))


def check_event_log(path: str, settings) -> list[Finding]:
    """The newest plan of every SQL execution in the log, reported at its event's line."""
    from linter.sources.eventlog import sql_plans

    ctx = PlanContext(path, [], settings)
    roots = []
    for plan in sql_plans(path):
        label = f" ({plan.description})" if plan.description else ""
        roots.append((f"SQL execution {plan.execution}{label}: ", plan.root))
    return _run(ctx, roots)


def plan_files(paths: list[str]) -> list[str]:
    from linter.sources.eventlog import is_event_log

    out = []
    for path in paths:
        if os.path.isdir(path) and is_event_log(path):
            out.append(path)  # a rolling event log directory is one log
        elif os.path.isdir(path):
            for base, _, names in sorted(os.walk(path)):
                out.extend(os.path.join(base, n) for n in sorted(names)
                           if n.lower().endswith(PLAN_EXTENSIONS) or is_event_log(os.path.join(base, n)))
        else:
            out.append(path)
    return out
