"""Lint physical plans: `sparkcheck plan FILE|DIR|-` (explain text in any mode, event logs, a History Server).

Every input becomes `PlanInput`s (a plan tree, its optimized logical plan when
the text has one, a label and the Python call site when the input knows it),
and every enabled plan rule visits every node of each. One problem is one
finding: placed at the Python line that ran the query when the SQL execution's
call site names a file that exists here (`collect at /home/me/job.py:16`), so a
pull request shows it on the source, else at the node's line in the input; the
node's line in the log is then a related location. The nodes of one plan that
a rule reports with the same message are one finding that counts them and
lists their ids (`5 CartesianProduct nodes (ids 12, 18, 25, ...)`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from linter import registry
from linter.diagnostics import Finding, Location, Related
from linter.sources.plan import PlanNode, parse_plans


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
        self._groups: dict = {}  # (code, message, help, plan or call site) -> _Group: one finding per problem
        self._ids: dict = {}  # id(node) -> the node's id in the current plan
        self._input_number = 0  # which plan of the input is being read

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

    def start_input(self, item: PlanInput) -> None:
        """The next plan: its nodes get their ids (Spark's operator id where the text prints one, `(12)`, else
        their place in the tree counted from 1 at the root, depth first), and its groups start empty."""
        self.current = item
        self._input_number += 1
        nodes = list(item.root.walk())
        printed = [_OPERATOR_ID.match(node.text) for node in nodes]
        if all(printed):  # `formatted` explain: every operator carries its id
            self._ids = {id(node): int(m.group(1)) for node, m in zip(nodes, printed)}
        else:
            self._ids = {id(node): place for place, node in enumerate(nodes, start=1)}

    def report(self, rule, node, message: str, help=None) -> None:
        """One finding per problem: the first node a rule reports with this message in this plan (or run) makes
        it; the next ones join it (its count, its node ids, their lines as related locations).

        The finding is placed at the user's line when the call site names a Python file here, else at the node's
        line in the plan or log; the other place is a related location (none with `source_only`: capture's
        temporary log is gone when the report is read)."""
        source = self._source(self.current.call_site)
        if source is not None and source[3].match(rule.code, source[1] - 1)[0]:  # noqa lines count from 0
            return  # a noqa comment for this code on the job's line: the user has seen it, wherever it is read from
        if isinstance(node, PlanNode):
            node.marks.append((rule.code, rule.name, self.current.prefix + message, help))
        plan_node = isinstance(node, PlanNode)
        key = (rule.code, message, help, self._input_number if plan_node else self.current.call_site)
        group = self._groups.get(key)
        if group is not None:
            self._join(group, node)
            return
        at_node = self._node_place(node)
        if source is not None:
            path, row, text, _ = source
            column = len(text) - len(text.lstrip()) + 1
            primary = (path, Location(row, column), Location(row, max(column + 1, len(text.rstrip()) + 1)), text)
            related = [] if self.source_only else [at_node]
        else:
            primary, related = (at_node.filename, at_node.location, at_node.end_location, self._line(node)), []
        filename, loc, end, line = primary
        finding = Finding(rule.code, rule.name, "", rule.severity, filename, loc, end, help=help,
                          noqa_row=loc.row, source_line=line, context=[(loc.row, line)], related=related,
                          nodes=[self._ids.get(id(node))] if plan_node else [])
        group = self._groups[key] = _Group(finding, self.current.prefix, message, [node], source is not None)
        self.findings.append(finding)
        group.write()

    def _join(self, group: "_Group", node) -> None:
        group.nodes.append(node)
        if isinstance(node, PlanNode):
            group.finding.nodes.append(self._ids.get(id(node)))
        place = self._node_place(node)
        if (not self.source_only or not group.at_source) and all(
                (r.filename, r.location.row) != (place.filename, place.location.row) for r in group.finding.related) \
                and (group.finding.filename, group.finding.location.row) != (place.filename, place.location.row):
            group.finding.related.append(place)
        group.write()

    def _line(self, node) -> str:
        return self.lines[node.line - 1] if 0 < node.line <= len(self.lines) else node.text

    def _node_place(self, node) -> Related:
        what = f"plan node `{node.name}`" + (f" (id {self._ids[id(node)]})" if id(node) in self._ids else "") \
            if isinstance(node, PlanNode) else node.text
        return Related(self.path, Location(node.line, node.column), Location(node.line, node.column + len(node.text)),
                       what)


# `Project (4)`, `AQEShuffleRead (6), coalesced`: the operator id `formatted` explain prints after the name
_OPERATOR_ID = re.compile(r"^[^\s(][^(]*? \((\d+)\)(?:,|\s*$)")
SHOWN_IDS = 3  # node ids a grouped finding's message names; JSON has all


@dataclass
class _Group:
    """The finding of one problem and the nodes that showed it."""

    finding: Finding
    prefix: str
    message: str
    nodes: list
    at_source: bool

    def write(self) -> None:
        plan_nodes = [n for n in self.nodes if isinstance(n, PlanNode)]
        if len(plan_nodes) > 1:
            names = {n.name for n in plan_nodes}
            kind = f"{names.pop()} " if len(names) == 1 else ""
            ids = [str(i) for i in self.finding.nodes if i is not None]
            shown = ", ".join(ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
            head = f"{len(plan_nodes)} {kind}nodes" + (f" (ids {shown})" if ids else "") + ": "
        elif len(self.nodes) > 1:
            head = f"{len(self.nodes)} times: "
        else:
            head = ""
        origin = f" (plan node `{plan_nodes[0].name}`)" if self.at_source and len(plan_nodes) == 1 else ""
        self.finding.message = f"{self.prefix}{head}{self.message}{origin}"


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
        ctx.start_input(item)
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
