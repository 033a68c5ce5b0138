"""Spark's own machinery in a plan, and filter pushdown as Spark translates it.

Spark adds operators of its own to the user's query: runtime bloom filters
(`bloom_filter_agg` building one in a scalar subquery, `might_contain` testing it in
a Filter), dynamic partition pruning (`dynamicpruningexpression`, `SubqueryBroadcast`
reusing a join's broadcast), AQE's `AQEShuffleRead` and query stages, `ReusedExchange`,
the columnar engines' operators (Photon's `Photon*`, RAPIDS' `Gpu*`), and whole jobs
of its own (Delta's reads of `_delta_log`, Delta's `OPTIMIZE` rewrites). The plan rules
ask here before blaming the user for one of them.

Pushdown: a file scan's `PushedFilters` are the Filter's conditions that
`DataSourceStrategy.translateFilter` could turn into data source filters
(`org.apache.spark.sql.sources`): `=` -> EqualTo, `<=>` -> EqualNullSafe, `<`/`>`/`<=`/`>=`
(flipped when the literal is on the left), `IN`/`INSET` -> In, `isnull` -> IsNull,
`isnotnull` -> IsNotNull, `StartsWith`/`EndsWith`/`Contains` -> StringStartsWith/
StringEndsWith/StringContains, `AND`/`OR`/`NOT` when every part translates, each leaf an
attribute (a nested field included) compared with a literal. `translated` gives that
translation without the literal values, `pushed_forms` the same forms of what a scan
lists, so a condition is "not pushed" only when no source filter carries it.
"""

from __future__ import annotations

import re
from typing import Optional

from checks.plan._plan import _closes_at_end

# Names of Spark's own expressions in a condition: a runtime bloom filter's test, dynamic partition pruning.
_RUNTIME_FILTER = re.compile(
    r"\b(?:might_contain|dynamicpruningexpression|dynamicpruning#|(?:partial_)?bloom_filter_agg)\b", re.IGNORECASE)
_BLOOM_AGG = re.compile(r"\b(?:partial_|merge_)?bloom_filter_agg\(", re.IGNORECASE)
# Columnar engines: operators that replace Spark's own, with no whole-stage codegen and other aggregates.
ENGINE_PREFIXES = ("Gpu", "Photon")


def runtime_filter(condition: str) -> Optional[str]:
    """What Spark-made filter a condition is, or None: `might_contain(...)` and dynamic pruning."""
    if re.search(r"\bmight_contain\(", condition, re.IGNORECASE):
        return "a runtime bloom filter Spark injected (spark.sql.optimizer.runtime.bloomFilter.enabled)"
    if _RUNTIME_FILTER.search(condition):
        return "a dynamic partition pruning filter Spark injected"
    return None


def bloom_filter_aggregate(node) -> bool:
    """`ObjectHashAggregate(keys=[], functions=[bloom_filter_agg(...)])`: Spark building a runtime bloom filter."""
    return bool(_BLOOM_AGG.search(node.attrs.get("Functions") or node.text))


def engine_operator(node) -> bool:
    """A Photon or RAPIDS (GPU) operator, or a transition between it and Spark's rows."""
    return node.name.startswith(ENGINE_PREFIXES) or "Photon" in node.name


def in_spark_subquery(node) -> Optional[str]:
    """Why the node is inside a plan Spark made for itself (a runtime bloom filter's or DPP's subquery)."""
    # Event logs put a node's subqueries among its children: look down only along single children.
    below = []
    n = node
    while n is not None:
        below.append(n)
        n = n.children[0] if len(n.children) == 1 else None
    above = []
    parent = node.parent
    while parent is not None:
        above.append(parent)
        parent = parent.parent
    for n in above + below:
        if n.name in ("ObjectHashAggregate", "HashAggregate") and bloom_filter_aggregate(n):
            return "the subquery that builds a runtime bloom filter"
    for n in above:
        if n.name == "SubqueryBroadcast":
            return "dynamic partition pruning's reuse of a join's broadcast"
    return None


def internal_job(root, label: str = "") -> Optional[str]:
    """Why a whole plan is Spark's or Delta's own job rather than the user's query, or None."""
    scans = [n for n in root.walk() if n.name in ("FileScan", "BatchScan", "Scan")]
    if scans and all("_delta_log" in (n.attrs.get("Location", "") + n.text) for n in scans):
        return "Delta's read of its transaction log (_delta_log)"
    text = label.lower()
    if re.search(r"\boptimize\b", text) and ("delta" in text or "zorder" in text or "optimize " in text):
        return "Delta's OPTIMIZE rewrite of small files"
    if any(n.name.startswith(("OptimizeTableCommand", "OptimizeCommand", "OptimizeExecutor")) for n in root.walk()):
        return "Delta's OPTIMIZE rewrite of small files"
    return None


def internal_plan_reason(rule) -> Optional[str]:
    """`internal_job` for the plan a rule is visiting, computed once per plan."""
    current = getattr(rule.ctx, "current", None)
    root = getattr(current, "root", None)
    if root is None:
        return None
    cache = rule.__dict__.setdefault("_internal_cache", {})
    key = id(root)
    if key not in cache:
        cache.clear()
        cache[key] = internal_job(root, getattr(current, "prefix", "") or "")
    return cache[key]


# ---- pushdown --------------------------------------------------------------------------------------------

_ATTRIBUTE = re.compile(r"^([A-Za-z_][\w$]*)#\d+L?((?:\.[A-Za-z_]\w*)*)$")
_COMPARE = {"=": "EqualTo", "<=>": "EqualNullSafe", ">": "GreaterThan", "<": "LessThan", ">=": "GreaterThanOrEqual",
            "<=": "LessThanOrEqual"}
_FLIP = {"EqualTo": "EqualTo", "EqualNullSafe": "EqualNullSafe", "GreaterThan": "LessThan", "LessThan": "GreaterThan",
         "GreaterThanOrEqual": "LessThanOrEqual", "LessThanOrEqual": "GreaterThanOrEqual"}
_STRING_FUNCTIONS = {"startswith": "StringStartsWith", "endswith": "StringEndsWith", "contains": "StringContains"}
_SOURCE_LEAVES = {"EqualTo", "EqualNullSafe", "GreaterThan", "LessThan", "GreaterThanOrEqual", "LessThanOrEqual",
                  "In", "IsNull", "IsNotNull", "StringStartsWith", "StringEndsWith", "StringContains"}


def _strip_parens(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and _closes_at_end(text):
        text = text[1:-1].strip()
    return text


def _split_top(text: str, word: str) -> Optional[tuple[str, str]]:
    """`a AND b` -> (a, b) at the first top-level ` AND ` (or ` OR `); None when there is none."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and text.startswith(f" {word} ", i):
            return text[:i], text[i + len(word) + 2:]
    return None


def _operator_at_top(text: str) -> Optional[tuple[str, str, str]]:
    """`a#1 >= 5` -> ("a#1", ">=", "5"): the comparison at depth 0."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth or ch not in "=<>":
            continue
        for op in ("<=>", ">=", "<=", "=", ">", "<"):
            if text.startswith(f" {op} ", i - 1):
                return text[:i - 1].strip(), op, text[i - 1 + len(op) + 2:].strip()
    return None


def _attribute(text: str, columns) -> Optional[str]:
    m = _ATTRIBUTE.match(_strip_parens(text))
    if not m or (columns is not None and m.group(1).lower() not in columns):
        return None
    return (m.group(1) + m.group(2)).lower()


def _literal(text: str, columns) -> bool:
    """A literal as plans print them: no attribute (`name#7`; with the scan's columns known, only theirs count:
    strings print without quotes, `p_brand#5 = Brand#23`), no function call, no subquery."""
    text = _strip_parens(text)
    if not text or re.search(r"\b[A-Za-z_]\w*\(", text) or "subquery" in text.lower():
        return False
    names = [n.lower() for n in re.findall(r"([A-Za-z_]\w*)#\d", text)]
    return not any(columns is None or n in columns for n in names)


def translated(condition: str, columns=None) -> Optional[str]:
    """The data source filter Spark translates a plan condition into, literals left out
    (`isnull(ss_hdemo_sk#12)` -> `IsNull(ss_hdemo_sk)`); None when Spark cannot translate it.
    `columns`: the scan's output columns (lower case), when known."""
    text = _strip_parens(condition)
    for word, name in (("OR", "Or"), ("AND", "And")):
        parts = _split_top(text, word)
        if parts:
            left, right = translated(parts[0], columns), translated(parts[1], columns)
            return f"{name}({left},{right})" if left and right else None
    if text.upper().startswith("NOT "):
        inner = translated(text[4:], columns)
        return f"Not({inner})" if inner else None
    m = re.match(r"^(isnull|isnotnull)\((.*)\)$", text, re.IGNORECASE)
    if m and _closes_at_end(text[len(m.group(1)):]):
        column = _attribute(m.group(2), columns)
        return f"{'IsNull' if m.group(1).lower() == 'isnull' else 'IsNotNull'}({column})" if column else None
    m = re.match(r"^(StartsWith|EndsWith|Contains)\((.*)\)$", text, re.IGNORECASE)
    if m and _closes_at_end(text[len(m.group(1)):]):
        args = _args(m.group(2))
        column = _attribute(args[0], columns) if len(args) == 2 else None
        return f"{_STRING_FUNCTIONS[m.group(1).lower()]}({column})" if column and _literal(args[1], columns) else None
    m = re.match(r"^(.*?)\s+(?:IN \((.*)\)|INSET (.*))$", text)
    if m:
        column = _attribute(m.group(1), columns)
        values = m.group(2) if m.group(2) is not None else m.group(3)
        return f"In({column})" if column and all(_literal(v, columns) for v in _args(values)) else None
    compare = _operator_at_top(text)
    if compare:
        left, op, right = compare
        name = _COMPARE[op]
        if _attribute(left, columns) and _literal(right, columns):
            return f"{name}({_attribute(left, columns)})"
        if _attribute(right, columns) and _literal(left, columns):
            return f"{_FLIP[name]}({_attribute(right, columns)})"
        return None
    if text.lower() in ("true", "false"):
        return "AlwaysTrue()" if text.lower() == "true" else "AlwaysFalse()"
    return None


def _args(text: str) -> list[str]:
    out, depth, last = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(text[last:i].strip())
            last = i + 1
    out.append(text[last:].strip())
    return [a for a in out if a]


def _source_form(text: str) -> Optional[str]:
    """`EqualTo(ss_store_sk,5)` -> `EqualTo(ss_store_sk)`; And/Or/Not kept whole; None when it is no source filter."""
    m = re.match(r"^(\w+)\((.*)\)$", text.strip())
    if not m:
        return None
    name, args = m.group(1), _args(m.group(2))
    if name in ("And", "Or") and len(args) == 2:
        left, right = _source_form(args[0]), _source_form(args[1])
        return f"{name}({left},{right})" if left and right else None
    if name == "Not" and len(args) == 1:
        inner = _source_form(args[0])
        return f"Not({inner})" if inner else None
    if name in ("AlwaysTrue", "AlwaysFalse"):
        return f"{name}()"
    if name in _SOURCE_LEAVES and args:
        return f"{name}({args[0].strip('`').lower()})"
    return None


def pushed_forms(pushed: str) -> set[str]:
    """Every source filter a scan's `PushedFilters: [...]` lists, as `translated` writes them, the parts of an
    And/Or included (a part of a pushed conjunction is pushed too)."""
    text = pushed.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    out: set[str] = set()
    for item in _args(text):
        form = _source_form(item)
        if form:
            out.add(form)
            if form.startswith("And("):
                out.update(_and_parts(form))
    return out


def _and_parts(form: str) -> list[str]:
    inner = form[4:-1]
    parts = _args(inner)
    out = []
    for p in parts:
        out.append(p)
        if p.startswith("And("):
            out.extend(_and_parts(p))
    return out
