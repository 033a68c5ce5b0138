"""Physical plans from `df.explain()` text, as one ``PlanNode`` tree per plan.

Read: the simple mode (with ``*(n)`` codegen markers), the physical section of
the extended mode, the formatted mode (tree plus numbered node details), AQE's
``AdaptiveSparkPlan`` with its ``== Final Plan ==`` / ``== Initial Plan ==``
sections, the codegen mode's subtrees (its generated Java is skipped), and
several plans in one text (a log pasted in). Values cut short
with ``...`` are kept as they are and count as unknown, never as evidence.

AQE: an ``AdaptiveSparkPlan`` whose text holds both a ``== Final Plan ==`` and an
``== Initial Plan ==`` keeps the final plan (what ran) as its child and the
initial one in ``initial``; rules walk only what ran (an ``EmptyRelation``, a branch
AQE proved empty, keeps no children: what Spark prints below it is a logical plan). Sizes written by Spark,
``Statistics(sizeInBytes=1562.5 KiB, ...)`` on AQE query stages and on the
``cost`` mode's logical plan, become bytes; the optimized logical plan of the
``cost`` mode is kept beside its physical plan (``Plan.logical``) so a rule can
read the estimated size of a join's sides. Event logs and the History Server
(linter/sources/eventlog.py, linter/sources/history.py) fill ``metrics`` with
measured values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

_TREE_LINE = re.compile(r"^(?P<prefix>(?:[ :|]*?[+:]- )?[ ]*)(?P<body>[^ :|+].*)$")
_CODEGEN = re.compile(r"^\*(?:\((\d+)\))? ")  # `*(3) Sort` (simple mode), `* Sort (7)` (formatted)
_NAME = re.compile(r"^([A-Z][A-Za-z]*)(?:\s+(parquet|orc|csv|json|text|avro|delta|iceberg))?\b")
_FORMATTED_ID = re.compile(r"\((\d+)\)\s*$")
_DETAIL_HEADER = re.compile(r"^\((\d+)\) (\S.*?)\s*$")
_FIELD = re.compile(r"(PushedFilters|DataFilters|PartitionFilters|ReadSchema|Format|Location|"
                    r"RuntimeFilters|Batched): ")
_SECTION = re.compile(r"^== (.+?) ==\s*$")
# Lines that start like an operator but are not plans: formatted mode's subquery headers, codegen mode's
# summary and the generated Java that follows each subtree.
_NOT_A_PLAN = re.compile(r"^(?:Subquery:\d+ |Found \d+ WholeStageCodegen subtrees|Generated code:)")
_STATISTICS = re.compile(r"Statistics\(sizeInBytes=([^,)]+)")
_SIZE = re.compile(r"^\s*([0-9.]+(?:E[+-]?\d+)?)\s*(B|KiB|MiB|GiB|TiB|PiB|EiB)?\s*$", re.I)
_UNITS = {"b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "pib": 1 << 50, "eib": 1 << 60}
MIB = _UNITS["mib"]  # the unit the rules' size options are written in


def parse_size(text: str) -> Optional[float]:
    """Bytes from Spark's rendering of a size (`1562.5 KiB`, `8.0 EiB`, `160`); None when it is not one."""
    m = _SIZE.match(text or "")
    if not m:
        return None
    return float(m.group(1)) * _UNITS[(m.group(2) or "B").lower()]


def format_ms(value: float) -> str:
    """A duration in milliseconds, as people read it: `40 ms`, `3.8 s`, `2.5 min`."""
    if value >= 60_000:
        return f"{value / 60_000:.1f} min"
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.0f} ms"


def format_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"


@dataclass
class PlanNode:
    name: str  # operator: "Filter", "FileScan", "SortMergeJoin", ...
    text: str  # the operator's line (or formatted header), codegen marker removed
    line: int  # 1-based line in the input where the node is written
    column: int = 1
    codegen: Optional[int] = None  # whole-stage codegen stage, `*(n)`
    fmt: Optional[str] = None  # scan format: parquet, csv, ...
    attrs: dict = field(default_factory=dict)  # PushedFilters, DataFilters, Condition, Arguments ...
    children: list = field(default_factory=list)
    parent: Optional["PlanNode"] = None
    size: Optional[float] = None  # bytes, from `Statistics(sizeInBytes=...)` written on the node
    metrics: dict = field(default_factory=dict)  # measured: "data size" -> bytes, "number of output rows" ...
    initial: Optional["PlanNode"] = None  # AdaptiveSparkPlan: the initial plan, when the final one is the child
    section: str = ""  # "Final Plan" / "Initial Plan" for the trees under an AdaptiveSparkPlan
    marks: list = field(default_factory=list, repr=False)  # findings reported on this node (for the HTML report)
    def walk(self):
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    @property
    def args(self) -> str:
        rest = self.text[len(self.name):]
        if self.fmt:
            rest = rest.lstrip()[len(self.fmt):]
        return rest.strip()


    def descendants(self, through) -> "PlanNode":
        """The first node below this one, following single children whose name is in `through`."""
        node = self.children[0] if self.children else None
        while node is not None and node.name in through and len(node.children) == 1:
            node = node.children[0]
        return node


@dataclass
class Plan:
    root: PlanNode
    section: str  # "Physical Plan", "Final Plan", "Initial Plan", or "" for a bare tree
    line: int
    logical: Optional[PlanNode] = None  # the cost mode's optimized logical plan, with Statistics


_SCAN = re.compile(r"Scan (parquet|orc|csv|json|text|avro|delta|iceberg)\b")


def operator_name(node_name: str) -> tuple[str, Optional[str]]:
    """A node name as event logs and the REST API write it -> (operator, scan format): `Scan parquet db.t`
    -> ("FileScan", "parquet"), `SortMergeJoin` -> ("SortMergeJoin", None)."""
    scan = _SCAN.match(node_name)
    if scan:
        return "FileScan", scan.group(1)
    return node_name.split(" ")[0], None


def _parse_tree(lines: list[tuple[int, str]]) -> Optional[PlanNode]:
    root: Optional[PlanNode] = None
    stack: list[tuple[int, PlanNode]] = []
    section = ""
    for number, raw in lines:
        if _SECTION.match(raw.strip(" :|+-")):
            section = _SECTION.match(raw.strip(" :|+-")).group(1)  # `+- == Final Plan ==` inside an AQE tree
            continue
        m = _TREE_LINE.match(raw)
        if not m:
            continue
        column = len(m.group("prefix"))  # the tree depth, before any codegen marker
        body = m.group("body")
        codegen, shift = None, 0
        cg = _CODEGEN.match(body)
        if cg:
            codegen = int(cg.group(1)) if cg.group(1) else 0  # 0: in whole-stage codegen, stage not written
            body = body[cg.end():]
            shift = cg.end()
        name = _NAME.match(body)
        if not name:
            continue
        node = PlanNode(name.group(1), body.rstrip(), number, column + shift + 1, codegen, name.group(2))
        _inline_fields(node)
        adaptive = _owner(stack, section) if section else None
        if adaptive is not None:
            # The tree under a marker belongs to the AdaptiveSparkPlan above it, even where Spark
            # prints it at the same column (AQE plans of subqueries lose their indentation).
            del stack[adaptive + 1:]
            node.section, section = section, ""
        else:
            while stack and stack[-1][0] >= column:
                stack.pop()
        if stack:
            node.parent = stack[-1][1]
            stack[-1][1].children.append(node)
        elif root is None:
            root = node
        else:
            break  # a second tree: the caller splits plans before
        stack.append((column, node))
    if root is not None:
        for node in list(root.walk()):
            _choose_final(node)
            if node.name == "EmptyRelation":
                node.children = []  # AQE proved the branch empty; what it prints below is the logical plan
    return root


def _owner(stack: list, section: str) -> Optional[int]:
    """The stack index of the AdaptiveSparkPlan a `== Final Plan ==` / `== Initial Plan ==` marker belongs to.

    Spark prints the sections of a subquery's AdaptiveSparkPlan (dynamic pruning's, a scalar subquery's)
    left of where the plan itself stands, so the column says nothing: the final plan belongs to the
    innermost AdaptiveSparkPlan still without a tree, the initial plan to the innermost one with a final
    plan and no initial plan yet (a nested subquery's sections close before its parent's initial plan).
    """
    for k in range(len(stack) - 1, -1, -1):
        node = stack[k][1]
        if node.name != "AdaptiveSparkPlan":
            continue
        sections = {child.section for child in node.children}
        if section == "Initial Plan" and "Initial Plan" not in sections and \
                ("Final Plan" in sections or not node.children):
            return k
        if section != "Initial Plan" and not node.children:
            return k
    return None


def _choose_final(node: PlanNode) -> None:
    """An AdaptiveSparkPlan printed with its final and initial plans keeps the final one as its child."""
    if node.name != "AdaptiveSparkPlan" or len(node.children) < 2:
        return
    final = next((c for c in node.children if c.section == "Final Plan"), None)
    initial = next((c for c in node.children if c.section == "Initial Plan"), None)
    if final is not None:
        node.children = [final]
        node.initial = initial


def _inline_fields(node: PlanNode) -> None:
    """`FileScan ... PushedFilters: [...], ReadSchema: ...` on one line."""
    text = node.text
    matches = list(_FIELD.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        node.attrs[m.group(1)] = text[m.end():end].rstrip(", ").strip()
    if node.name == "Filter" and "Condition" not in node.attrs:
        node.attrs["Condition"] = node.args
    stats = _STATISTICS.search(text)
    if stats:
        node.size = parse_size(stats.group(1))


_DETAIL_FIELD = re.compile(r"^[A-Z][\w ]*(?:\[\d+\])?\s*:")


def _details_end(lines: list[str], start: int) -> int:
    """Where the formatted mode's node details after a tree end."""
    i = start
    while i < len(lines):
        line = lines[i]
        if line.strip() and not _DETAIL_HEADER.match(line) and not _DETAIL_FIELD.match(line):
            break
        i += 1
    return i


def _details(lines: list[tuple[int, str]]) -> dict[int, dict]:
    """Formatted mode: `(n) Name` followed by `Key: value` / `Key [k]: value` lines."""
    out: dict[int, dict] = {}
    current = None
    for _, raw in lines:
        m = _DETAIL_HEADER.match(raw)
        if m:
            current = out.setdefault(int(m.group(1)), {})
            codegen = re.search(r"\[codegen id : (\d+)\]", m.group(2))
            if codegen:
                current["_codegen"] = int(codegen.group(1))
            continue
        if current is not None and ":" in raw and raw.strip():
            key, value = raw.split(":", 1)
            key = re.sub(r"\s*\[\d+\]$", "", key.strip())
            current[key] = value.strip()
    return out


def parse_plans(text: str) -> list[Plan]:
    """Every physical plan in the text."""
    lines = text.splitlines()
    plans: list[Plan] = []
    i = 0
    current_section = ""
    logical: Optional[PlanNode] = None
    while i < len(lines):
        raw = lines[i]
        section = _SECTION.match(raw.strip())
        if section:
            current_section = section.group(1)
            i += 1
            continue
        m = _TREE_LINE.match(raw)
        if current_section.endswith("Logical Plan"):
            if current_section == "Optimized Logical Plan" and m and not m.group("prefix") and "Statistics(" in raw:
                block, j = _tree_block(lines, i)
                logical = _parse_tree(block)
                i = j
                continue
            i += 1
            continue
        if m and not m.group("prefix") and _NAME.match(_CODEGEN.sub("", m.group("body"))) and \
                not _DETAIL_HEADER.match(raw) and not _NOT_A_PLAN.match(raw):
            block, j = _tree_block(lines, i)
            root = _parse_tree(block)
            if root is not None:
                if _FORMATTED_ID.search(root.text):
                    details_end = _details_end(lines, j)
                    _attach(root, _details(list(enumerate(lines[j:details_end], start=j + 1))))
                    j = details_end
                plans.append(Plan(root, current_section, i + 1, logical))
                logical = None
            i = j
            continue
        i += 1
    return plans


def _tree_block(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The lines of the tree starting at line index i (AQE's `+- == Final Plan ==` markers included)."""
    block = [(i + 1, lines[i])]
    j = i + 1
    while j < len(lines) and lines[j].strip() and _TREE_LINE.match(lines[j]) and \
            lines[j][:1] in (" ", ":", "+", "|") and not _SECTION.match(lines[j].strip()):
        block.append((j + 1, lines[j]))
        j += 1
    return block, j


def _attach(root: PlanNode, details: dict[int, dict]) -> None:
    for node in root.walk():
        m = _FORMATTED_ID.search(node.text)
        if m and int(m.group(1)) in details:
            detail = details[int(m.group(1))]
            node.attrs.update((k, v) for k, v in detail.items() if k != "_codegen")
            if "_codegen" in detail:
                node.codegen = detail["_codegen"]
            if node.name == "Scan":
                node.name = "FileScan"


def truncated(value: str) -> bool:
    return value.rstrip().endswith("...")
