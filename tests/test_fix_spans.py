"""Fixes touch their spans and nothing else.

Every edit of a fix replaces ``text[start:end]`` with its content: the text
outside the spans must come out byte-identical, and an edit must not carry
whole lines it does not change (a copy regenerated from libcst loses the
indentation of the enclosing blocks on its continuation lines).  Checked on
exact shapes, on the fixture suite and on the real code of
``../shared/data/pyspark-corpus`` (copied: the corpus is never written).
"""
import bisect
import difflib
import json
import os
import shutil

import libcst
import pytest

from conftest import FIXTURES, SHARED_DATA, write
from linter import fixer
from linter.config import Resolver
from linter.sources import PYTHON, load_document

CORPUS = os.path.join(SHARED_DATA, "pyspark-corpus")
SELECT = ["ALL", "SPK408", "SPK411"]  # every rule, as tests/test_fix_fixtures.py
EVERYTHING = ["--select", ",".join(SELECT), "--preview", "--no-cache", "--jobs", "2"]

# (a) The shape of the issue: a multi-line `spark.sql(...)` inside a function,
# `.collect()[0][0]` on its closing line.

_FUNCTIONS = '''\
def latest_version(table):
    version = spark.sql(
        f'SELECT version FROM {table} ORDER BY version DESC'
    ).collect()[0][0]
    return version


def rows_on(table, day):
    n = spark.sql(
        f"""
        SELECT id, amount FROM {table}
        WHERE day = '{day}'
        """
    ).collect()[0][0]
    return n


class Job:
    def run(self, table):
        if table:
            return spark.sql(
                f"SELECT * FROM {table} ORDER BY id DESC"  # the newest
            ).collect()[0]
'''
_SETUP = "from pyspark.sql import SparkSession\n\nspark = SparkSession.builder.getOrCreate()\n"
_FIXED = _FUNCTIONS.replace(".collect()[0]", ".first()")


@pytest.mark.parametrize("kind", ["databricks", "plain", "crlf"])
def test_collect_first_row_keeps_the_indentation_of_a_multiline_call(tmp_path, run, kind):
    if kind == "databricks":
        before = f"# Databricks notebook source\n{_SETUP}\n# COMMAND ----------\n\n{_FUNCTIONS}"
        after = f"# Databricks notebook source\n{_SETUP}\n# COMMAND ----------\n\n{_FIXED}"
    else:
        before, after = f"{_SETUP}\n\n{_FUNCTIONS}", f"{_SETUP}\n\n{_FIXED}"
    if kind == "crlf":
        before, after = before.replace("\n", "\r\n"), after.replace("\n", "\r\n")
    path = write(tmp_path / "job.py", before)
    report = json.loads(run("check", path, "--select", "SPK105", "--output-format", "json", "--no-cache").out)
    edits = [e for f in report for e in f["fix"]["edits"]]
    # Only `collect()[0]` is replaced: the receiver keeps its own text.
    assert [e["content"] for e in edits] == ["first()"] * 3
    assert all(e["location"]["row"] == e["end_location"]["row"] for e in edits)
    r = run("check", path, "--select", "SPK105", "--fix", "--unsafe-fixes", "--no-cache")
    assert r.code == 0, r.out
    with open(path, "rb") as f:
        assert f.read() == after.encode()


# Rules that copy a multi-line operand into their content (`source()`/`atom()` in
# checks/python/_fixes.py): PythonContext.code_for regenerates it with libcst's
# Module.code_for_node, which starts with no enclosing block, so its continuation
# lines lose the indentation of the function around them.
_COPIES = [
    ("SPK103", '    if spark.sql(\n        f"SELECT id FROM {table}"\n    ).count() > 0:\n        print(table)\n',
     '    if not spark.sql(\n        f"SELECT id FROM {table}"\n    ).isEmpty():\n        print(table)\n'),
    ("SPK302", '    return spark.table(table).filter(F.col(\n        "a") == None)\n',
     '    return spark.table(table).filter(F.col(\n        "a").isNull())\n'),
    ("SPK303", '    return spark.table(table).filter(\n        (F.col("a") > 1) and (F.col(\n            "b") < 2))\n',
     '    return spark.table(table).filter(\n        (F.col("a") > 1) & (F.col(\n            "b") < 2))\n'),
    ("SPK304", '    return spark.table(table).filter(F.col("a") > 1 & (F.col(\n        "b") < 2))\n',
     '    return spark.table(table).filter((F.col("a") > 1) & (F.col(\n        "b") < 2))\n'),
]


@pytest.mark.parametrize("code, body, fixed", _COPIES, ids=[c[0] for c in _COPIES])
def test_a_copied_multiline_operand_keeps_its_indentation(tmp_path, run, code, body, fixed):
    head = f"{_SETUP}from pyspark.sql import functions as F\n\n\ndef job(table):\n"
    path = write(tmp_path / "job.py", head + body)
    run("check", path, "--select", code, "--fix", "--unsafe-fixes", "--no-cache")
    with open(path, encoding="utf-8") as f:
        assert f.read() == head + fixed


def test_a_fix_in_a_notebook_keeps_the_cell_strings_it_does_not_touch(tmp_path, run):
    """A cell kept as one string (as Databricks exports) stays one string; per-line lists keep their other lines."""
    whole = "df = spark.table('t')\nbest = df.orderBy('x').collect()[0]\nprint(best)\ndone = 1"
    lines = ["rows = spark.table('u')\n", "top = rows.collect()[0]\n", "page = '\x0c'\n", "print(top)"]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": [whole]},
                    {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines}],
          "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    path = write(tmp_path / "n.ipynb", json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    r = run("check", path, "--select", "SPK105", "--fix", "--unsafe-fixes", "--no-cache")
    assert r.code == 0, r.out
    nb["cells"][0]["source"] = [whole.replace(".collect()[0]", ".first()")]
    nb["cells"][1]["source"][1] = "top = rows.first()\n"
    with open(path, encoding="utf-8") as f:
        assert f.read() == json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_no_fix_lands_after_a_form_feed_that_libcst_drops(tmp_path, run):
    """libcst drops a form feed at the start of a line: offsets after it are one off, so no fix is applied there."""
    before = ("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
              "first = spark.table('a').collect()[0]\n\x0c\ndef later():\n    return spark.table('b').collect()[0]\n"
              "\x0cx = spark.table('c').collect()[0]\n")
    path = write(tmp_path / "job.py", before)
    r = run("check", path, "--select", "SPK105", "--fix", "--unsafe-fixes", "--no-cache")
    assert "libcst does not keep the form feed at the start of line 7" in r.err
    with open(path, "rb") as f:
        assert f.read() == before.replace("'a').collect()[0]", "'a').first()").replace(
            "'b').collect()[0]", "'b').first()").encode()


# (b) Every fix over the fixtures and the corpus.

def _line_starts(text: str) -> list:
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def _offset(starts: list, text: str, loc: dict) -> int:
    return min(starts[loc["row"] - 1] + loc["column"] - 1, len(text))


def _texts(doc) -> dict:
    """What edits are placed in: the file's text, or each notebook cell's (rows count inside the cell)."""
    if doc.kind == "ipynb":
        return {c.number: c.text for c in doc.cells}
    return {None: doc.text}


def _spans(doc, findings: list) -> dict:
    """{cell or None: [(start, end, content)]} from the ruff-shaped JSON edits (``cell``: the finding's)."""
    texts = _texts(doc)
    out: dict = {}
    for f in findings:
        key = f["cell"] if doc.kind == "ipynb" else None
        text = texts[key]
        starts = _line_starts(text)
        for e in f["fix"]["edits"]:
            out.setdefault(key, []).append(
                (_offset(starts, text, e["location"]), _offset(starts, text, e["end_location"]), e["content"]))
    return out


def _is_old_with_edits(old: str, new: str, edits: list) -> bool:
    """Whether ``new`` is ``old`` with some of the edits (non-overlapping) applied and nothing else changed."""
    edits = sorted(set(edits), key=lambda e: (e[0], e[1]))
    seen: set = set()

    def match(p: int, q: int, i: int) -> bool:
        while i < len(edits) and edits[i][0] < p:
            i += 1  # overlaps an edit applied before it
        if (p, q, i) in seen:
            return False
        seen.add((p, q, i))
        if i == len(edits):
            return old[p:] == new[q:]
        s, e, content = edits[i]
        if new[q:q + s - p] != old[p:s]:
            return False  # text between edits changed
        q += s - p
        if new.startswith(content, q) and match(e, q + len(content), i + 1):
            return True
        return match(s, q, i + 1)

    return match(0, 0, 0)


def _touched_lines(text: str, spans: list) -> set:
    starts = _line_starts(text)

    def line(offset):
        return bisect.bisect_right(starts, offset) - 1

    lines = set()
    for s, e, _ in spans:
        lines.update(range(line(s), line(max(e - 1, s)) + 1))
    return lines


def _parses(text: str) -> bool:
    try:
        libcst.parse_module(text)
    except libcst.ParserSyntaxError:
        return False
    return True


def _fixable(run, tree) -> dict:
    """{path: [findings with a fix]} from `--output-format json` before fixing."""
    r = run("check", tree, "--output-format", "json", "--unsafe-fixes", "--exit-zero", *EVERYTHING)
    assert r.code == 0, r.err
    out: dict = {}
    for f in json.loads(r.out):
        if f["fix"] is not None:
            out.setdefault(f["filename"], []).append(f)
    return out


def _notebook_problems(path: str, old_raw: bytes, new_raw: bytes, spans: dict) -> list:
    """Outside its cells' code the notebook is the same, and the source strings no edit touched are still there."""
    old_nb, new_nb = json.loads(old_raw.decode("utf-8-sig")), json.loads(new_raw.decode("utf-8-sig"))
    problems = []
    old_cells, new_cells = fixer.notebook_cells(old_nb), fixer.notebook_cells(new_nb)
    for number, (old_cell, new_cell) in enumerate(zip(old_cells, new_cells), start=1):
        old_source = old_cell.pop(fixer.cell_key(old_nb, old_cell), None)
        new_source = new_cell.pop(fixer.cell_key(new_nb, new_cell), None)
        if not isinstance(old_source, list) or old_source == new_source:
            continue
        kept, start = [], 0
        for string in old_source:
            end = start + len(string)
            if not any(s < end and start < e for s, e, _ in spans.get(number, [])):
                kept.append(string)
            start = end
        remaining = iter(new_source if isinstance(new_source, list) else [])
        if not all(any(string == other for other in remaining) for string in kept):
            problems.append(f"{path}: cell {number}: a source string no edit touched was rewritten")
    if old_nb != new_nb:
        problems.append(f"{path}: the notebook changed outside its cells' code")
    return problems


@pytest.mark.parametrize("source", ["fixtures", "corpus"])
def test_every_fix_changes_only_its_spans(tmp_path, run, monkeypatch, source):
    if source == "corpus" and not os.path.isdir(CORPUS):
        pytest.skip("../shared/data/pyspark-corpus is not here")
    tree = tmp_path / source
    shutil.copytree(FIXTURES if source == "fixtures" else CORPUS, tree)
    before = {str(p): p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    fixable = _fixable(run, tree)
    assert fixable, "nothing to fix"

    # Each edit replaces only what it changes: it does not carry whole lines over.
    docs = {path: load_document(path, before[path]) for path in fixable}
    spans = {path: _spans(docs[path], findings) for path, findings in fixable.items()}
    wide = []
    for path, by_key in spans.items():
        texts = _texts(docs[path])
        for key, edits in by_key.items():
            for s, e, content in edits:
                original = texts[key][s:e]
                prefix = os.path.commonprefix([original, content])
                suffix = os.path.commonprefix([original[len(prefix):][::-1], content[len(prefix):][::-1]])
                if "\n" in prefix or "\n" in suffix:
                    wide.append(f"{path}:{key or ''}: {original!r} -> {content!r}")
    assert not wide, "edits wider than what they change:\n" + "\n".join(wide)

    # The files without a fix were checked above: fixing them would only check them again.
    r = run("check", *sorted(fixable), "--fix", "--unsafe-fixes", *EVERYTHING)
    assert r.code in (0, 1), r.err
    changed = [p for p, data in before.items() if open(p, "rb").read() != data]
    assert changed, "nothing was fixed"
    settings = Resolver({"select": SELECT, "preview": True}, cwd=str(tmp_path))
    problems = []
    for path in changed:
        old_doc = docs[path]
        new_doc = load_document(path, open(path, "rb").read())
        old_texts, new_texts = _texts(old_doc), _texts(new_doc)
        assert old_texts.keys() == new_texts.keys(), f"{path}: cells added or lost"
        # All rounds: every line that changed is one an edit of the first round touched.
        for key, old in old_texts.items():
            new = new_texts[key]
            if old == new:
                continue
            touched = _touched_lines(old, spans[path].get(key, []))
            matcher = difflib.SequenceMatcher(None, old.split("\n"), new.split("\n"), autojunk=False)
            for tag, i1, i2, _, _ in matcher.get_opcodes():
                if tag == "equal":
                    continue
                # Replaced or deleted lines must all be touched; lines inserted, next to a touched one.
                outside = set(range(i1, i2)) - touched if i2 > i1 else not {i1 - 1, i1} & touched
                if outside:
                    problems.append(f"{path}:{key or ''}: line {i1 + 1} changed, but no edit is there")
            if old_doc.kind == "ipynb" and _parses(old) and not _parses(new):
                problems.append(f"{path}: cell {key} no longer parses")
        if old_doc.kind == "ipynb":
            problems.extend(_notebook_problems(path, before[path], open(path, "rb").read(), spans[path]))
        for old_unit, unit in zip(old_doc.units, new_doc.units):
            if unit.kind == PYTHON and _parses(old_unit.text) and not _parses(unit.text):
                problems.append(f"{path}: no longer parses")
    # One round, exactly: the old text with some of the reported edits applied, and nothing else.
    monkeypatch.setattr(fixer, "MAX_ROUNDS", 1)
    for path in changed:
        one = fixer.fix_source(path, before[path], settings.for_path(path), unsafe=True)
        assert one.changed, f"{path}: the first round changed nothing"
        one_texts = _texts(load_document(path, one.fixed))
        for key, old in _texts(docs[path]).items():
            if not _is_old_with_edits(old, one_texts[key], spans[path].get(key, [])):
                problems.append(f"{path}:{key or ''}: the first round changed text outside the reported edits")
    assert not problems, "\n".join(problems)
