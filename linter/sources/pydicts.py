"""Cluster definitions written as Python literals: Airflow DAGs, CDK apps, boto3 and SDK scripts.

The clusters a job runs on are as often defined in Python as in JSON or YAML:

    JOB_FLOW_OVERRIDES = {"Configurations": [{"Classification": "spark-defaults",
                                              "Properties": {"spark.executor.cores": "8"}}]}
    EmrCreateJobFlowOperator(task_id="create", job_flow_overrides=JOB_FLOW_OVERRIDES)

    DatabricksSubmitRunOperator(task_id="run", new_cluster={"spark_conf": {...}}, ...)
    CLUSTER_CONFIG = {"software_config": {"properties": {"spark:spark.executor.memory": "4g"}}}
    emr.CfnCluster(self, "Cluster", configurations=[{"classification": "spark-defaults", ...}])

Each outermost dict or list literal of a file the cluster markers appear in (linter/sources/clusters.py,
``wanted``) is read into the tree model of linter/sources/tree.py, keeping where every value is written
in the file, and the same walker as for JSON, YAML and Terraform finds the clusters in it: their settings
go through the same SPK8xx rules, reported at the value inside the Python string. Values that are not
literals (a name, a call, an f-string) are left out, as a template's fields are in YAML. CPython's `ast`
reads the literals: it is linear, and the file is parsed this way only when the markers are in its text.
"""

from __future__ import annotations

import ast
from typing import Optional

from linter.sources.tree import Map, Scalar, Seq


def cluster_trees(text: str) -> list:
    """The outermost dict and list literals of a Python source that hold a key, as trees; [] if it does not parse."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    places = _Places(text)
    trees = []
    stack: list = [module]
    node_class, literals = ast.AST, (ast.Dict, ast.List, ast.Tuple)
    while stack:
        node = stack.pop()
        if node.__class__ in literals and _holds_a_key(node):  # (`ast.parse` makes no subclasses)
            tree = _tree(node, places)
            if tree is not None:
                trees.append(tree)
            continue
        # `ast.iter_child_nodes`, inline (a generator per node was most of the walk): the fields' nodes, in order
        children = []
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, node_class):
                children.append(value)
            elif value.__class__ is list:
                children.extend(item for item in value if isinstance(item, node_class))
        children.reverse()
        stack.extend(children)
    return trees


def _holds_a_key(node) -> bool:
    """A dict literal with a string key, or a list of them (an EMR configurations list)."""
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys)
    return any(isinstance(e, ast.Dict) and _holds_a_key(e) for e in node.elts)


class _Places:
    """Offsets in the text of `ast` positions (1-based lines, UTF-8 byte columns)."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))
        return self.starts[lineno - 1] + col

    def span(self, node) -> tuple:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno or node.lineno, node.end_col_offset or node.col_offset))


def _tree(node, places: _Places):
    if isinstance(node, ast.Dict):
        start, end = places.span(node)
        out = Map(start)
        out.end = end
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue  # `**defaults`, or a key that is not a literal
            tree = _tree(value, places)
            if tree is not None:
                out.items.append((key.value, places.span(key)[0], tree))
        return out
    if isinstance(node, (ast.List, ast.Tuple)):
        start, end = places.span(node)
        out = Seq(start)
        out.end = end
        out.items = [t for t in (_tree(e, places) for e in node.elts) if t is not None]
        return out
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)) \
            and not isinstance(node.value, bytes):
        return _scalar(node, places)
    return None


def _scalar(node: ast.Constant, places: _Places) -> Optional[Scalar]:
    start, end = places.span(node)
    value = node.value
    if isinstance(value, bool):
        return Scalar("true" if value else "false", start, end)
    if not isinstance(value, str):
        return Scalar(str(value), start, end)
    raw = places.text[start:end]
    quote = next((q for q in ('"""', "'''", '"', "'") if raw.endswith(q)), None)
    opening = raw.find(quote) if quote else -1
    body = raw[opening + len(quote): len(raw) - len(quote)] if quote and opening >= 0 else None
    if body == value:  # one plain literal: the value is the text inside its quotes
        return Scalar(value, start + opening + len(quote), end - len(quote), quoted=True)
    return Scalar(value, start, end, quoted=True, offsets=[start] * len(value))  # escapes, or pieces
