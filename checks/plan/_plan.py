"""What several plan rules read: join sides and their sizes, join types, partition columns, conjuncts."""

from __future__ import annotations

import re
from typing import Optional

from linter.sources.plan import PlanNode, truncated

# Between a join and the shuffle that feeds one of its sides.
_TO_SHUFFLE = {"Sort", "AQEShuffleRead", "CustomShuffleReader", "ShuffleQueryStage", "InputAdapter", "ColumnarToRow"}
_JOIN = re.compile(r"^\w+(?:\(skew=(?:true|false)\))?\s+\[(.*?)\],\s*\[(.*?)\],\s*(\w+)")
_TYPES = ("Inner", "Cross", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti", "ExistenceJoin")
# Which side a broadcast or hash join may build (0 left, 1 right), by join type.
BUILDABLE = {"Inner": (0, 1), "Cross": (0, 1), "LeftOuter": (1,), "LeftSemi": (1,), "LeftAnti": (1,),
             "ExistenceJoin": (1,), "RightOuter": (0,), "FullOuter": ()}


def join_keys(node: PlanNode) -> tuple[list[str], list[str], Optional[str]]:
    """Left keys, right keys and join type, from simple text or the formatted mode's details."""
    m = _JOIN.match(node.text)
    if m:
        return _split(m.group(1)), _split(m.group(2)), m.group(3)
    kind = node.attrs.get("Join type") or next((t for t in _TYPES if re.search(rf"\b{t}\b", node.text)), None)
    return _split(node.attrs.get("Left keys", "").strip("[]")), _split(node.attrs.get("Right keys", "").strip("[]")), kind


def _split(text: str) -> list[str]:
    return [k.strip() for k in text.split(",") if k.strip()]


def side_shuffle(side: PlanNode) -> tuple[Optional[PlanNode], Optional[PlanNode]]:
    """(Exchange, AQE query stage) feeding one side of a join; (None, None) when the side is not shuffled here."""
    stage = None
    node: Optional[PlanNode] = side
    while node is not None:
        if node.name in ("ShuffleQueryStage", "TableCacheQueryStage"):
            stage = node
        if node.name == "Exchange":
            return node, stage
        if node.name == "ReusedExchange":
            return node, stage  # a leaf carrying the original exchange's measured metrics, when known
        if node.name not in _TO_SHUFFLE or len(node.children) != 1:
            return None, None
        node = node.children[0]
    return None, None


NOT_SHUFFLED = "not shuffled"  # side_size's source for a side no exchange feeds (bucketed, storage-partitioned)


def side_size(join: PlanNode, index: int, logical: Optional[PlanNode]) -> tuple[Optional[float], str]:
    """The bytes one side of a join carries, and where the figure comes from; (None, "") when unknown,
    (None, NOT_SHUFFLED) when no shuffle feeds the side.

    In order: the AQE query stage's Statistics (what ran), the Exchange's measured
    `data size` (event logs, History Server), the cost mode's estimate on the
    logical join's side. Nothing else counts (never a guess).
    """
    exchange, stage = side_shuffle(join.children[index])
    if exchange is None:
        return None, NOT_SHUFFLED
    if stage is not None and stage.size is not None:
        return stage.size, "AQE's statistics of the shuffle stage"
    if "data size" in exchange.metrics:
        return exchange.metrics["data size"], "measured data size of the shuffle"
    estimate = logical_side_size(join, index, logical)
    if estimate is not None:
        return estimate, "the optimizer's estimate"
    return None, ""


def logical_side_size(join: PlanNode, index: int, logical: Optional[PlanNode]) -> Optional[float]:
    if logical is None:
        return None
    left, right, _ = join_keys(join)
    if not left or not right:
        return None
    for node in logical.walk():
        if node.name == "Join" and len(node.children) == 2 and left[0] in node.text and right[0] in node.text:
            return node.children[index].size
    return None


def scan_columns(scan: PlanNode) -> Optional[list[str]]:
    """The scan's output columns (names without expression ids); None when cut short."""
    output = scan.attrs.get("Output")
    if output is None:
        m = re.match(r"^\w+(?:\s+\w+)?\s+(?:[\w.`]+\s*)?\[(.*?)\]", scan.text)
        output = m.group(1) if m else None
    if output is None or truncated(output):
        return None
    output = re.sub(r"^\[\d+\]:\s*", "", output.strip()).strip("[]")
    return [re.sub(r"#\d+L?$", "", c.strip()) for c in output.split(",") if c.strip()]


def partition_columns(scan: PlanNode) -> set[str]:
    """Columns a file scan outputs that are not in its ReadSchema: the partition columns."""
    schema = scan.attrs.get("ReadSchema")
    columns = scan_columns(scan)
    if not schema or truncated(schema) or columns is None:
        return set()
    read = {m.lower() for m in re.findall(r"(?:struct<|,)\s*`?([^:`,<>]+)`?:", schema)}
    return {c.lower() for c in columns if c.lower() not in read}


def conjuncts(condition: str) -> list[str]:
    """The AND parts of a condition, nested ANDs flattened."""
    text = condition.strip()
    while text.startswith("(") and _closes_at_end(text):
        text = text[1:-1].strip()
    parts, depth, last = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and text.startswith(" AND ", i):
            parts.append(text[last:i])
            last = i + 5
    parts.append(text[last:])
    parts = [p.strip() for p in parts if p.strip()]
    if len(parts) == 1:
        return parts
    return [c for p in parts for c in conjuncts(p)]


def _closes_at_end(text: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def columns_of(text: str) -> set:
    """Column names referenced in a plan expression (`o_custkey#36` -> `o_custkey`), lower-case."""
    return {c.lower() for c in re.findall(r"([A-Za-z_]\w*)#\d+", text)}


def clean(text: str) -> str:
    """An expression without expression ids, for messages."""
    return re.sub(r"#\d+L?", "", text)


def shown(text: str, limit: int = 120) -> str:
    """An expression for a message: without expression ids, a long one cut (`IN` lists of hundreds of values)."""
    text = clean(text)
    return text if len(text) <= limit else text[:limit - 4].rstrip(", ") + " ..."


# Operators a Filter over a scan may sit above without changing what the scan could have skipped.
THROUGH_TO_SCAN = {"Project", "Filter", "BatchEvalPython", "ArrowEvalPython", "DeserializeToObject", "ColumnarToRow"}


def scan_below(node: PlanNode) -> Optional[PlanNode]:
    scan = node.descendants(THROUGH_TO_SCAN)
    return scan if scan is not None and scan.name in ("FileScan", "BatchScan") else None


def _top_level_lists(text: str) -> list[list[str]]:
    """`[a(x)#1, b#2], [c#3]` -> [["a(x)#1", "b#2"], ["c#3"]] (brackets and parentheses nest)."""
    lists, depth, current, item = [], 0, None, ""
    for ch in text:
        if ch == "[" and depth == 0:
            current, item = [], ""
            depth = 1
            continue
        if current is None:
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                current.append(item.strip())
                lists.append([i for i in current if i])
                current = None
                continue
        if ch == "," and depth == 1:
            current.append(item.strip())
            item = ""
        else:
            item += ch
    return lists


def expand_python_udfs(conjunct: str, node: PlanNode) -> str:
    """`pythonUDF0#29 = x` -> `<lambda>(day#8)#28 = x`, from the Python evaluation below `node`."""
    if "pythonUDF" not in conjunct:
        return conjunct
    below = node.children[0] if node.children else None
    while below is not None:
        if below.name in ("BatchEvalPython", "ArrowEvalPython"):
            lists = _top_level_lists(below.text[len(below.name):])
            if len(lists) >= 2:
                for call, output in zip(lists[0], lists[1]):
                    conjunct = conjunct.replace(output, f"({call})")
        if below.name not in THROUGH_TO_SCAN or not below.children:
            break
        below = below.children[0]
    return conjunct
