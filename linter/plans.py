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

    def report(self, rule, node, message: str, help=None) -> None:
        line = self.lines[node.line - 1] if 0 < node.line <= len(self.lines) else node.text
        loc = Location(node.line, node.column)
        end = Location(node.line, node.column + len(node.text))
        self.findings.append(Finding(rule.code, rule.name, message, rule.severity, self.path, loc, end,
                                     help=help, noqa_row=node.line, source_line=line,
                                     context=[(node.line, line)]))


def check_plan_text(path: str, text: str, settings) -> list[Finding]:
    codes = settings.codes_for(path)
    rules = [r for r in registry.all_rules() if r.kind == "plan" and r.code in codes]
    ctx = PlanContext(path, text.splitlines(), settings)
    instances = [r(ctx) for r in rules]
    for plan in parse_plans(text):
        for node in plan.root.walk():
            for rule in instances:
                method = getattr(rule, f"visit_{node.name}", None)
                if method is not None:
                    method(node)
    return sorted(ctx.findings, key=Finding.sort_key)


def plan_files(paths: list[str]) -> list[str]:
    out = []
    for path in paths:
        if os.path.isdir(path):
            for base, _, names in sorted(os.walk(path)):
                out.extend(os.path.join(base, n) for n in sorted(names) if n.lower().endswith(PLAN_EXTENSIONS))
        else:
            out.append(path)
    return out
