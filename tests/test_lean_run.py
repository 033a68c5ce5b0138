"""The one-file run pre-commit makes imports only what the file's contents need (issue 18, item 4).

A file that mentions no Spark needs neither libcst nor sqlglot nor any rule module; a Spark file only the
rule modules its text triggers, sqlglot only with SQL in it, and never a plan or run rule. The rules are
chosen from checks/_index.py (the rules' metadata, written from the modules), so the index must match the
modules, and a stale index must not change a run's findings.
"""

import gc
import json
import os
import pickle
import subprocess
import sys

import pytest
from conftest import FIXTURES, ROOT, write

from linter import registry

PLAIN = '''"""Paths and retries for the command-line tools."""
import os
import time


def data_dir(name):
    return os.path.join(os.environ.get("DATA_ROOT", "/var/data"), name)


def retry(fn, attempts=3):
    for attempt in range(attempts):
        try:
            return fn()
        except OSError:
            time.sleep(attempt)
    return None
'''

JOB = '''from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("daily").getOrCreate()
orders = spark.read.parquet("s3://lake/orders/").filter(F.col("status") != "cancelled")
daily = orders.groupBy("day").agg(F.sum("amount").alias("total"))
for row in daily.collect():
    print(row["day"], row["total"])
'''

JOB_WITH_SQL = JOB + 'spark.sql("SELECT * FROM orders ORDER BY day").write.mode("overwrite").saveAsTable("t")\n'

# Runs the command line in a fresh interpreter, then writes the modules it left loaded after a NUL on stderr.
_MODULES = (
    "import sys\n"
    "from linter.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write('\\0' + ' '.join(sorted(sys.modules)) + '\\n')\n"
    "sys.exit(code)\n"
)


def _check(tmp_path, *args, preload_all=False):
    """(exit code, stdout, the modules loaded) of `sparkcheck check ARGS` in a fresh interpreter."""
    code = _MODULES
    if preload_all:  # every rule module imported first, as before the index: the reference for the findings
        code = "from linter import registry\nregistry.all_rules()\n" + code
    p = subprocess.run([sys.executable, "-c", code, "check", *args, "--no-cache"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": ROOT}, check=False)
    assert "\0" in p.stderr, p.stderr
    return p.returncode, p.stdout, set(p.stderr.rsplit("\0", 1)[1].split())


def _rule_modules(modules: set) -> set:
    return {m for m in modules if m.startswith("checks.") and m.count(".") == 2
            and not m.rsplit(".", 1)[1].startswith("_")}


def test_the_index_matches_the_rule_modules():
    from checks import _index

    stale = "checks/_index.py is stale: run `python -m linter.registry --write-index`"
    assert _index.FIELDS == registry.INDEX_FIELDS, stale
    assert list(_index.RULES) == registry.index_rows(), stale
    assert _index.MODULES == registry._module_sizes(), stale


def test_a_file_that_mentions_no_spark_imports_no_parser_and_no_rule(tmp_path):
    write(tmp_path / "tools.py", PLAIN)
    code, out, modules = _check(tmp_path, "tools.py")
    assert code == 0, out
    assert "All checks passed!" in out
    assert "libcst" not in modules
    assert "sqlglot" not in modules
    assert _rule_modules(modules) == set()
    assert "concurrent.futures.process" not in modules  # one file: no process pool


def test_a_spark_file_without_sql_imports_only_the_rules_its_text_triggers(tmp_path):
    write(tmp_path / "job.py", JOB)
    code, out, modules = _check(tmp_path, "job.py")
    assert code == 1 and "SPK101" in out, out
    assert "libcst" in modules
    assert "sqlglot" not in modules
    loaded = _rule_modules(modules)
    triggered = {i.module for i in registry.infos()
                 if i.kind == "python" and i.triggers and any(w in JOB for w in i.triggers)}
    assert "checks.python.collect_on_unbounded_dataframe" in loaded
    assert loaded <= triggered, loaded - triggered
    assert not any(m.startswith(("checks.plan.", "checks.run.", "checks.sql.")) for m in loaded)
    assert "linter.sources.app" not in modules and "linter.sources.plan" not in modules


def test_sql_in_a_spark_file_brings_sqlglot_and_the_sql_rules(tmp_path):
    write(tmp_path / "job.py", JOB_WITH_SQL)
    _, out, modules = _check(tmp_path, "job.py", "--select", "ALL")
    assert "SPK501" in out or "SPK518" in out, out  # a SQL rule reported inside the Python string
    assert "sqlglot" in modules
    assert any(m.startswith("checks.sql.") for m in _rule_modules(modules))


def test_findings_are_those_of_a_run_with_every_rule_module_imported(tmp_path):
    """The index path and the old import-everything path give byte-identical JSON on the fixtures."""
    args = [os.path.join(FIXTURES, "python"), os.path.join(FIXTURES, "notebooks"), "--select", "ALL", "--preview",
            "--output-format", "json", "--exit-zero"]
    _, lean, lean_modules = _check(tmp_path, *args)
    _, full, _ = _check(tmp_path, *args, preload_all=True)
    assert json.loads(lean), "no findings on the fixtures: the comparison would prove nothing"
    assert lean == full
    assert not any(m.startswith(("checks.plan.", "checks.run.")) for m in _rule_modules(lean_modules))


def test_a_stale_index_falls_back_to_the_modules(monkeypatch):
    monkeypatch.setattr(registry, "_INFOS", None)
    monkeypatch.setattr(registry, "_RULES", None)
    sizes = registry._module_sizes()
    sizes["python/a_rule_added_since.py"] = 1
    monkeypatch.setattr(registry, "_module_sizes", lambda: sizes)
    assert registry._from_index() is None
    found = registry.infos()  # made from the imported classes
    assert registry._RULES is not None
    assert [i.row() for i in found] == registry.index_rows()


def test_a_rule_from_the_index_is_its_class_for_everything_else():
    info = registry.find("collect-on-unbounded-dataframe")
    assert info.code == "SPK101" and info == registry.info("SPK101")
    cls = info.load()
    assert info.summary == cls.summary and info.manual() == cls.manual() and info.options == cls.options
    assert pickle.loads(pickle.dumps(info)) == info
    with pytest.raises(AttributeError):
        info.code = "SPK999"
    assert [r.code for r in registry.resolve("SPK10")] == [r.code for r in registry.all_rules()
                                                           if r.code.startswith("SPK10")]


def test_the_collector_is_back_as_it_was_after_a_run(tmp_path):
    from linter.config import Resolver
    from linter.runner import check_files

    path = write(tmp_path / "job.py", JOB)
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            before = gc.get_threshold()
            result = check_files([path], Resolver({}, cwd=str(tmp_path)), False, 1, None)
            assert [f.code for f in result.findings] == ["SPK101"]
            assert gc.isenabled() is enabled and gc.get_threshold() == before
        finally:
            gc.enable()


def test_children_are_libcst_own_on_every_node(tmp_path):
    """linter/sources/python.py answers ``node.children`` from each class's visit order: the same nodes, in the
    same order, as libcst's own (which builds a copy of the node to throw away), on every node of the
    fixtures and of real code with f-strings, format specs, imports, decorators and comprehensions."""
    from linter.sources import PYTHON, load_document
    from linter.sources import python as sources_python

    libcst_children = sources_python._LIBCST_CHILDREN.fget
    paths = []
    for base, _, names in os.walk(FIXTURES):
        paths += [os.path.join(base, n) for n in sorted(names) if n.endswith((".py", ".ipynb"))]
    corpus = os.path.join(os.path.dirname(ROOT), "shared", "data", "pyspark-corpus", "MrPowers__mack")
    for base, _, names in os.walk(corpus):
        paths += [os.path.join(base, n) for n in sorted(names) if n.endswith(".py")]
    nodes = 0
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        try:
            doc = load_document(path, data)
        except Exception:  # noqa: BLE001 - the bad-input fixtures
            continue
        for unit in doc.units:
            if unit.kind != PYTHON or unit.error is not None:
                continue
            try:
                module = sources_python.parse(unit.text)
            except Exception:  # noqa: BLE001 - a fixture that does not parse on purpose
                continue
            stack = [module]
            while stack:
                node = stack.pop()
                expected = libcst_children(node)
                got = node.children
                assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected)), \
                    (path, type(node).__name__)
                nodes += 1
                stack.extend(expected)
    assert nodes > 50_000
