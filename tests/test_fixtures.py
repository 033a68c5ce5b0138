"""The fixture corpus: every `expect:` marker is reported, nothing else is.

A marker is a comment on the line where a finding starts: `# expect: SPK101`
in Python (and notebook cells), `-- expect: SPK501` in SQL.  Files under
`fixtures/python/good/` are realistic code on which no rule may fire.
"""
import json
import os
import re

import pytest

from conftest import FIXTURES
from linter.config import Resolver
from linter.engine import check_source
from linter.sources.sparkconf import is_config_file

MARKER = re.compile(r"(?:#|--)\s*expect:\s*(SPK\d{3}(?:\s*,\s*SPK\d{3})*)")


def _files():
    for base, _, names in os.walk(FIXTURES):
        for name in sorted(names):
            if name.endswith((".py", ".ipynb", ".sql")) or (name.endswith(".txt") and "/plans" in base) or \
                    is_config_file(name):
                yield os.path.join(base, name)


def expected(path):
    out = set()
    sidecar = os.path.splitext(path)[0] + ".expect"
    if path.endswith(".txt") or os.path.exists(sidecar):
        # explain() output, and files where a comment cannot follow the value (spark-defaults.conf, continued
        # shell lines): expectations in a sidecar `.expect` file
        with open(sidecar, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    row, code = line.split()
                    out.add((None, int(row), code))
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if path.endswith(".ipynb"):
        try:
            nb = json.loads(text)
        except ValueError:
            nb = None
        if nb is not None:
            cells = nb.get("cells") or [c for ws in nb.get("worksheets", []) for c in ws["cells"]]
            for number, cell in enumerate(cells, start=1):
                source = cell.get("source") if "source" in cell else cell.get("input")
                source = "".join(source) if isinstance(source, list) else source
                for row, line in enumerate(source.split("\n"), start=1):
                    for m in MARKER.finditer(line):
                        out.update((number, row, c.strip()) for c in m.group(1).split(","))
            return out
    for row, line in enumerate(text.split("\n"), start=1):
        for m in MARKER.finditer(line):
            out.update((None, row, c.strip()) for c in m.group(1).split(","))
    return out


FILES = sorted(_files())


@pytest.mark.parametrize("path", FILES, ids=[os.path.relpath(p, FIXTURES) for p in FILES])
def test_fixture(path):
    settings = Resolver({}, cwd=FIXTURES).for_path(path)
    if path.endswith(".txt"):
        from linter.runtime.plans import check_plan_text

        with open(path, encoding="utf-8") as f:
            findings = check_plan_text(path, f.read(), settings)
    else:
        with open(path, "rb") as f:
            findings = check_source(path, f.read(), settings)
    got = {(f.location.cell, f.location.row, f.code) for f in findings}
    want = expected(path)
    if "/good/" in path:
        assert not want, "a good fixture must not carry expect markers"
    assert got == want, "\n".join(f"{f.location} {f.code} {f.message}" for f in findings)


def test_corpus_covers_every_rule_and_kind():
    codes = set()
    kinds = set()
    for path in FILES:
        codes.update(c for _, _, c in expected(path))
        kinds.add(os.path.splitext(path)[1])
    from linter.registry import all_rules

    covered_elsewhere = {"SPK002"}  # unused suppressions: see test_suppression.py
    # Run rules read event logs, not files of code: tests/test_diagnose.py finds SPK701, 703, 705, 707, 709 and
    # 710 in fixtures/logs/diagnostics_bad (and in a live run), SPK704 in a live local-cluster run and a shared
    # log, SPK702 and 706 in the shared logs; SPK708 (a 5 GiB partition) only in its examples. A new run rule
    # is not exempt until it is added here with where its realistic input is.
    covered_elsewhere |= {"SPK701", "SPK702", "SPK703", "SPK704", "SPK705", "SPK706", "SPK707", "SPK708",
                          "SPK709", "SPK710"}
    # SPK823 and SPK824 judge a run's shuffle sizes and RDD work: tests/test_config_rules_runs.py reads them
    # from shared, real logs.
    covered_elsewhere |= {"SPK823", "SPK824"}
    assert {r.code for r in all_rules()} - covered_elsewhere <= codes
    assert kinds == {".py", ".ipynb", ".sql", ".txt", ".conf", ".sh", ".yaml", ".yml", ".xml", ".properties", ".json",
                     ".tf"}
