"""Physical plans from `df.explain()` text, as one ``PlanNode`` tree per plan.

Read: the simple mode (with ``*(n)`` codegen markers), the physical section of
the extended mode, the formatted mode (tree plus numbered node details), AQE's
``AdaptiveSparkPlan`` with its ``== Final Plan ==`` / ``== Initial Plan ==``
sections, and several plans in one text (a log pasted in). Values cut short
with ``...`` are kept as they are and count as unknown, never as evidence.
Event logs and the History Server are not read yet (issue 6 goes on).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

_TREE_LINE = re.compile(r"^(?P<prefix>(?:[ :|]*?[+:]- )?[ ]*)(?P<body>[^ :|+].*)$")
_CODEGEN = re.compile(r"^\*\((\d+)\) ")
_NAME = re.compile(r"^([A-Z][A-Za-z]*)(?:\s+(parquet|orc|csv|json|text|avro|delta|iceberg))?\b")
_FORMATTED_ID = re.compile(r"\((\d+)\)\s*$")
_DETAIL_HEADER = re.compile(r"^\((\d+)\) (\S.*?)\s*$")
_FIELD = re.compile(r"(PushedFilters|DataFilters|PartitionFilters|ReadSchema|Format|Location|"
                    r"RuntimeFilters|Batched): ")
_SECTION = re.compile(r"^== (.+?) ==\s*$")


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


@dataclass
class Plan:
    root: PlanNode
    section: str  # "Physical Plan", "Final Plan", "Initial Plan", or "" for a bare tree
    line: int


def _parse_tree(lines: list[tuple[int, str]]) -> Optional[PlanNode]:
    root: Optional[PlanNode] = None
    stack: list[tuple[int, PlanNode]] = []
    for number, raw in lines:
        m = _TREE_LINE.match(raw)
        if not m:
            continue
        column = len(m.group("prefix"))  # the tree depth, before any codegen marker
        body = m.group("body")
        codegen, shift = None, 0
        cg = _CODEGEN.match(body)
        if cg:
            codegen = int(cg.group(1))
            body = body[cg.end():]
            shift = cg.end()
        name = _NAME.match(body)
        if not name:
            continue
        node = PlanNode(name.group(1), body.rstrip(), number, column + shift + 1, codegen, name.group(2))
        _inline_fields(node)
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
    return root


def _inline_fields(node: PlanNode) -> None:
    """`FileScan ... PushedFilters: [...], ReadSchema: ...` on one line."""
    text = node.text
    matches = list(_FIELD.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        node.attrs[m.group(1)] = text[m.end():end].rstrip(", ").strip()
    if node.name == "Filter" and "Condition" not in node.attrs:
        node.attrs["Condition"] = node.args


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
    while i < len(lines):
        raw = lines[i]
        section = _SECTION.match(raw.strip())
        if section:
            current_section = section.group(1)
            i += 1
            continue
        if current_section.endswith("Logical Plan") or current_section == "Analyzed Logical Plan":
            i += 1
            continue
        m = _TREE_LINE.match(raw)
        if m and not m.group("prefix") and _NAME.match(_CODEGEN.sub("", m.group("body"))) and \
                not _DETAIL_HEADER.match(raw):
            block = [(i + 1, raw)]
            j = i + 1
            while j < len(lines) and lines[j].strip() and _TREE_LINE.match(lines[j]) and \
                    lines[j][:1] in (" ", ":", "+", "|") and not _SECTION.match(lines[j].strip()):
                block.append((j + 1, lines[j]))
                j += 1
            root = _parse_tree(block)
            if root is not None:
                if _FORMATTED_ID.search(root.text):
                    details_end = _details_end(lines, j)
                    _attach(root, _details(list(enumerate(lines[j:details_end], start=j + 1))))
                    j = details_end
                plans.append(Plan(root, current_section, i + 1))
            i = j
            continue
        i += 1
    return plans


def _attach(root: PlanNode, details: dict[int, dict]) -> None:
    for node in root.walk():
        m = _FORMATTED_ID.search(node.text)
        if m and int(m.group(1)) in details:
            node.attrs.update(details[int(m.group(1))])
            if node.name == "Scan":
                node.name = "FileScan"


def truncated(value: str) -> bool:
    return value.rstrip().endswith("...")
