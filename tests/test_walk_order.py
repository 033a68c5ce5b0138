"""The cheaper walk and scans of linter/sources/python.py and the rules see the same nodes in the same order.

Output must not change with them (bench/README.md, the cold full run): the rules' subtree scans ask the semantic
model questions whose answers it computes once, when first asked, so the scans keep libcst's order of children
(``source_child_nodes``); the walk keeps its order of visits and leaves.
"""

from __future__ import annotations

import itertools
import os
import re

import libcst as cst
import pytest

from linter.sources import PYTHON, load_document
from linter.sources import python as sources_python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")


def _modules():
    paths = []
    for base, _, names in os.walk(FIXTURES):
        paths += [os.path.join(base, n) for n in sorted(names) if n.endswith((".py", ".ipynb"))]
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        try:
            doc = load_document(path, data)
        except Exception:  # noqa: BLE001, S112 - the bad-input fixtures
            continue
        for unit in doc.units:
            if unit.kind != PYTHON or unit.error is not None:
                continue
            try:
                yield path, sources_python.parse(unit.text)
            except Exception:  # noqa: BLE001, S112 - a fixture that does not parse on purpose
                continue


@pytest.fixture(scope="module")
def modules():
    return list(_modules())


def test_source_child_nodes_are_children_without_whitespace_in_libcst_order(modules):
    nodes = 0
    reordered = set()
    for path, module in modules:
        stack = [module]
        while stack:
            node = stack.pop()
            walked = sources_python.child_nodes(node)
            ids = {id(c) for c in walked}
            expected = [c for c in node.children if id(c) in ids]
            got = sources_python.source_child_nodes(node)
            assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected)), \
                (path, type(node).__name__)
            if any(a is not b for a, b in zip(got, walked)):
                reordered.add(type(node).__name__)
            nodes += 1
            stack.extend(node.children)
    assert nodes > 50_000
    assert {"Arg", "FunctionDef"} <= reordered  # where the dataclass order is not the source's: the test means it


def _reference_walk(module, visit, leave, ancestors) -> None:
    """The walk as it was written first: recursive, children listed then visited, one leave after them."""
    def go(node):
        ancestors.append(node)
        for fn in visit.get(node.__class__, ()):
            fn(node)
        for child in sources_python.child_nodes(node):
            go(child)
        for fn in leave.get(node.__class__, ()):
            fn(node)
        ancestors.pop()

    go(module)


def test_the_walk_visits_and_leaves_as_the_reference_does(modules):
    classes = [c for c in vars(cst).values() if isinstance(c, type) and issubclass(c, cst.CSTNode)]
    for path, module in modules:
        events = []
        for walk in (sources_python.walk, _reference_walk):
            log, ancestors = [], []
            visit = {c: [lambda n, log=log, a=ancestors: log.append(("visit", id(n), len(a), id(a[-1])))]
                     for c in classes}
            leave = {c: [lambda n, log=log, a=ancestors: log.append(("leave", id(n), len(a), id(a[-1])))]
                     for c in classes}
            walk(module, visit, leave, ancestors)
            assert ancestors == []
            events.append(log)
        assert events[0] == events[1], path


def test_a_path_below_the_module_is_the_one_the_parent_map_gives(modules):
    """``_path_to`` (the blocks around a quoted node) from the module's leave, as udf_replaceable_by_builtin asks:
    the parent map, not a search of the whole module per node; below a statement: the search."""
    from linter.engine import PythonContext, _parents, _search

    checked = 0
    for _, module in modules[:20]:
        parents = _parents(module)
        for node_id, parent in list(parents.items())[::97]:
            node = next(c for c in sources_python.child_nodes(parent) if id(c) == node_id)
            ctx = PythonContext(None, module, None, None)
            ctx.ancestors = [module]
            path = ctx._path_to(node)
            assert path[0] is module and path[-1] is parent
            assert all(parents[id(b)] is a for a, b in itertools.pairwise(path))
            below = _search(path[1], node) if len(path) > 1 else None
            assert below is None or below == path[1:]
            checked += 1
    assert checked > 100


def test_spans_placed_by_statement_are_those_of_the_whole_module(modules):
    """``node_spans`` given the statements around the nodes (each generated alone with its blocks' indentation
    and found in the text) places them as generating the whole module does; a statement whose text occurs
    twice is placed by the one around it, or by the whole module, and so is the last one of a file ending
    without a newline."""
    checked = 0
    cases = [(module.code, module, 7) for _, module in modules[:60]]  # a node in seven, and what is around it
    for text in ("df.show()\nx = 1\ndf.show()\n", "a = f(1)\nb = g(a)\nb = g(a)",
                 "def f():\n    df.show()\n\ndef g():\n    df.show()\n    return 1\n",
                 "class A:\n  def f(self):\n      if x:\n         y = g(1)  # c\n    # d\n      y = g(1)"):
        cases.append((text, sources_python.parse(text), 1))
    for text, module, step in cases:
        nodes, places = [], {}

        def note(node, ancestors, step=step):
            if len(nodes) % step == 0:
                around = sources_python.statements_around(ancestors)
                places.setdefault(id(around[0][0]), around)
            nodes.append(node)

        ancestors: list = []
        hooks = {c: [lambda n, a=ancestors: note(n, a)] for c in (cst.Call, cst.Name, cst.Arg, cst.SimpleString)}
        sources_python.walk(module, hooks, {}, ancestors)
        if not nodes:
            continue
        expected = sources_python.node_spans(module, nodes, text)
        assert sources_python.node_spans(module, nodes, text, places.values()) == expected
        assert len(expected) == len(set(nodes))
        checked += len(nodes)
    assert checked > 10_000


@pytest.mark.parametrize("text", [
    "x = 1\n", "CONF = {'Classification': 'spark-defaults'}\n", "SPARK_SUBMIT_PARAMETERS\n", "spark_submitParameters",
    "Spark-Submit", "dataproc", "DATAPROC", "soft wareconfig", "configurations_json", "é classification",
    "\u212alassi", "spar\u212a-submit", "clas\u017fification", "cla\u017f\u017fification", "\u0130dataproc",
    "data\u0131proc", "dataproc\u0131", "cl\u0131ass", "CLASS\u0130FICATION", "€ spark_conf ü", "sparkconf",
])
def test_cluster_markers_are_found_as_the_case_insensitive_pattern_finds_them(text):
    from linter.sources.clusters import _MARKERS, wanted

    assert wanted(text) == (_MARKERS.search(text) is not None)
    assert wanted(text.upper()) == (_MARKERS.search(text.upper()) is not None)


def test_the_marker_words_are_the_pattern_s_alternatives():
    from linter.sources.clusters import _MARKER_WORDS, _MARKERS

    for word in _MARKER_WORDS:
        assert re.fullmatch(_MARKERS.pattern, word, re.IGNORECASE), word
    assert len(_MARKER_WORDS) == _MARKERS.pattern.count("|") + 1 + 3  # `spark_?submit_?parameters`: 4 spellings
