"""Lint physical plans: `sparkcheck plan FILE|DIR|-` (explain text in any mode, event logs, a History Server).

Every input becomes `PlanInput`s (a plan tree, its optimized logical plan when
the text has one, a label and the Python call site when the input knows it),
and every enabled plan rule visits every node of each. A finding is placed at
the node's line in the input; when the SQL execution's call site names a Python
file that exists here (`collect at /home/me/job.py:16`), the same finding is
also placed at that file and line, so a pull request shows it on the source.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Optional

from linter import registry
from linter.diagnostics import Finding, Location
from linter.sources.plan import PlanNode, parse_plans

PLAN_EXTENSIONS = (".txt", ".plan", ".log", ".explain")


@dataclass
class PlanInput:
    root: PlanNode
    logical: Optional[PlanNode] = None
    prefix: str = ""  # "SQL execution 3 (collect at job.py:16): " for event logs
    call_site: Optional[tuple[str, int]] = None  # (Python file, line) that ran the query


class PlanContext:
    def __init__(self, path: str, lines: list[str], settings, source_only: bool = False):
        self.source_only = source_only  # with a call site in a Python file, report only there (capture)
        self.path = path
        self.lines = lines
        self.settings = settings
        self.findings: list[Finding] = []
        self.current = PlanInput(PlanNode("", "", 0))
        self._sources: dict = {}  # call-site path -> (path as shown, lines, noqa comments), read once

    def _source(self, call_site) -> Optional[tuple[str, int, str, object]]:
        """(path as the user would write it, row, text, suppressions) of a call site in a Python file here."""
        if call_site is None or not call_site[0].endswith(".py"):
            return None
        path, row = call_site
        if path not in self._sources:
            self._sources[path] = _read_source(path)
        found = self._sources[path]
        if found is None or not 0 < row <= len(found[1]):
            return None
        shown, lines, suppressions = found
        return shown, row, lines[row - 1], suppressions

    @property
    def logical(self) -> Optional[PlanNode]:
        return self.current.logical

    def report(self, rule, node, message: str, help=None) -> None:
        message = self.current.prefix + message
        source = self._source(self.current.call_site)
        if source is not None and source[3].match(rule.code, source[1] - 1)[0]:  # noqa lines count from 0
            return  # a noqa comment for this code on the job's line: the user has seen it, wherever it is read from
        if source is None or not self.source_only:
            line = self.lines[node.line - 1] if 0 < node.line <= len(self.lines) else node.text
            loc = Location(node.line, node.column)
            end = Location(node.line, node.column + len(node.text))
            self.findings.append(Finding(rule.code, rule.name, message, rule.severity, self.path, loc, end,
                                         help=help, noqa_row=node.line, source_line=line,
                                         context=[(node.line, line)]))
        if isinstance(node, PlanNode):
            node.marks.append((rule.code, rule.name, message, help))
        if source is not None:
            path, row, text, _ = source
            column = len(text) - len(text.lstrip()) + 1
            where = "" if self.source_only else f" in {self.path}:{node.line}"
            origin = f" (plan node `{node.name}`{where})" if isinstance(node, PlanNode) else \
                (f" (from {self.path}:{node.line})" if where else "")
            self.findings.append(Finding(
                rule.code, rule.name, f"{message}{origin}",
                rule.severity, path, Location(row, column), Location(row, max(column + 1, len(text.rstrip()) + 1)),
                help=help, noqa_row=row, source_line=text, context=[(row, text)]))


def _read_source(path: str):
    """(path as shown, lines, noqa comments) of the Python file a call site names, or None when it is not here."""
    from linter.noqa import python_suppressions

    local = local_path(path)
    if local is None:
        return None
    try:
        with open(local, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    shown = os.path.relpath(local) if not os.path.relpath(local).startswith("..") else local
    return shown, [line.rstrip("\r") for line in text.split("\n")], python_suppressions(text)


def local_path(path: str) -> Optional[str]:
    """The file a call site names, here: as written, or the longest tail of it under the working directory.

    A job run on a cluster or in CI names its files where they were there
    (`/home/runner/work/etl/etl/jobs/orders.py`); in a checkout, the same file is
    `jobs/orders.py`. A tail keeps at least one folder.
    """
    if os.path.isfile(path):
        return path
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    for start in range(1, len(parts) - 1):  # a tail keeps a folder: a bare `main.py` could be anyone's
        candidate = os.path.join(*parts[start:])
        if os.path.isfile(candidate):
            return candidate
    return None


def _run(ctx: PlanContext, inputs: Iterable[PlanInput]) -> list[Finding]:
    codes = ctx.settings.codes_for(ctx.path)
    instances = [r(ctx) for r in registry.all_rules() if r.kind == "plan" and r.code in codes]
    for item in inputs:
        ctx.current = item
        for rule in instances:
            start = getattr(rule, "start_plan", None)
            if start is not None:
                start(item.root)
        for node in item.root.walk():
            for rule in instances:
                method = getattr(rule, f"visit_{node.name}", None)
                if method is not None:
                    method(node)
    return sorted(ctx.findings, key=Finding.sort_key)


def check_plan_text(path: str, text: str, settings, trees: Optional[list] = None) -> list[Finding]:
    """Findings of every plan in the text; `trees` (when given) receives (title, root) of each, for reports."""
    ctx = PlanContext(path, text.splitlines(), settings)
    plans = parse_plans(text)
    if trees is not None:
        trees.extend((f"{path}:{plan.line}" + (f" ({plan.section})" if plan.section else ""), plan.root)
                     for plan in plans)
    return _run(ctx, (PlanInput(plan.root, plan.logical) for plan in plans))


def check_sql_plans(where: str, plans, settings, source_only: bool = False,
                    trees: Optional[list] = None) -> list[Finding]:
    """SQL executions (from an event log, a History Server or an Application), each reported at its event's line
    in `where` and at its Python call site when that file is here (only there with `source_only`)."""
    if trees is not None:
        trees.extend(plan_titles(where, plans))
    inputs = [PlanInput(plan.root, None, f"{plan.label}: ", plan.call_site) for plan in plans]
    return _run(PlanContext(where, [], settings, source_only), inputs)


def check_event_log(path: str, settings, source_only: bool = False, trees: Optional[list] = None) -> list[Finding]:
    """The newest plan of every SQL execution in the log."""
    from linter.sources.eventlog import sql_plans

    return check_sql_plans(path, sql_plans(path), settings, source_only, trees)


def plan_titles(where: str, plans) -> list[tuple[str, PlanNode]]:
    return [(f"{where}: {p.label}", p.root) for p in plans]


def check_recorded_plans(path: str, settings, trees: Optional[list] = None) -> list[Finding]:
    """Plans a Spark Connect job's actions recorded (capture --remote), reported at each action's line."""
    import json

    records = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    findings: list[Finding] = []
    for record in records:
        site = f"{record.get('action')} at {record.get('file')}:{record.get('line')}"
        text = str(record.get("plan", ""))
        ctx = PlanContext(site, text.splitlines(), settings, source_only=True)
        plans = parse_plans(text)
        if trees is not None:
            trees.extend((site, plan.root) for plan in plans)
        findings.extend(_run(ctx, (PlanInput(plan.root, plan.logical, f"{site}: ",
                                             (str(record.get("file")), int(record.get("line") or 0)))
                                   for plan in plans)))
    return sorted(findings, key=Finding.sort_key)


def plan_files(paths: list[str]) -> list[str]:
    from linter.sources.eventlog import is_event_log

    out = []
    for path in paths:
        if os.path.isdir(path) and is_event_log(path):
            out.append(path)  # a rolling event log directory is one log
        elif os.path.isdir(path):
            for base, dirs, names in os.walk(path):
                rolling = sorted(d for d in dirs if is_event_log(os.path.join(base, d)))
                out.extend(os.path.join(base, d) for d in rolling)  # read whole, not part by part
                dirs[:] = sorted(d for d in dirs if d not in rolling)
                out.extend(os.path.join(base, n) for n in sorted(names)
                           if n.lower().endswith(PLAN_EXTENSIONS) or is_event_log(os.path.join(base, n)))
        else:
            out.append(path)
    return out
