"""The fix engine: spans only, rounds, unparseable fixes dropped, atomic writes, notebooks."""
import json
import os
import stat

import pytest

from conftest import write
from linter import fixer, registry
from linter.config import Resolver
from linter.diagnostics import Edit, Fix
from linter.registry import Invalid, PythonRule, Valid

UNUSED = "x = 1  # noqa: SPK101\n"


def settings_for(tmp_path, **overrides):
    return Resolver(overrides, cwd=str(tmp_path)).for_path(str(tmp_path / "a.py"))


def test_fix_keeps_permissions_and_writes_atomically(tmp_path, run, monkeypatch):
    path = write(tmp_path / "job.py", "#!/usr/bin/env python\n" + UNUSED)
    os.chmod(path, 0o750)
    real_replace = os.replace

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fixer.write_atomic(path, b"partial")
    assert open(path).read() == "#!/usr/bin/env python\n" + UNUSED
    assert os.listdir(tmp_path) == ["job.py"], "the temporary file was left behind"
    monkeypatch.setattr(os, "replace", real_replace)
    assert run("check", path, "--fix", "--no-cache").code == 0
    assert open(path).read() == "#!/usr/bin/env python\nx = 1\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o750


def _notebook(cells, indent=1):
    nb = {"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


def _code(*lines):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": list(lines)}


@pytest.mark.parametrize("indent", [1, 2])
def test_notebook_fix_goes_into_the_right_cell_and_keeps_layout(tmp_path, run, indent):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Caf\u00e9 report"]},
        _code("a = 1\n", "b = 2  # noqa: SPK101, E501\n"),
        _code("%%sql\n", "SELECT 1 -- noqa: SPK501\n"),
    ]
    path = write(tmp_path / "n.ipynb", _notebook(cells, indent))
    r = run("check", path, "--fix", "--no-cache")
    assert r.code == 0, r.out
    cells[1]["source"] = ["a = 1\n", "b = 2  # noqa: E501\n"]
    cells[2]["source"] = ["%%sql\n", "SELECT 1\n"]
    assert open(path, encoding="utf-8").read() == _notebook(cells, indent)


def test_notebook_in_a_layout_json_dumps_cannot_write_gets_only_its_source_rewritten(tmp_path, run):
    # Irregular spacing, a tab, a key written twice (json.loads keeps the last): no json.dumps call writes this
    # back, so the fix rewrites the edited cell's source value in the raw text and nothing else.
    text = ('{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "outputs": [],\t"source": '
            '["x = 1  # noqa: SPK101\\n" ,  "y = \\u00e9"]}],   "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    path = write(tmp_path / "n.ipynb", text)
    r = run("check", path, "--fix", "--no-cache")
    assert r.code == 0 and "no fix applied" not in r.err, r
    assert open(path).read() == text.replace("x = 1  # noqa: SPK101", "x = 1")


@pytest.mark.parametrize("layout", [{"separators": (",", ":")}, {"indent": "\t"}, {"indent": 3}])
def test_notebook_fix_keeps_compact_tab_and_three_space_layouts(tmp_path, run, layout):
    nb = {"cells": [_code("x = 1  # noqa: SPK101\n", "y = 2\n")], "metadata": {}, "nbformat": 4,
          "nbformat_minor": 5}
    path = write(tmp_path / "n.ipynb", json.dumps(nb, **layout))
    assert run("check", path, "--fix", "--no-cache").code == 0
    nb["cells"][0]["source"][0] = "x = 1\n"
    assert open(path).read() == json.dumps(nb, **layout)


def test_notebook_keeps_its_bom_and_is_not_rewritten_when_no_fix_applies(tmp_path, run):
    nb = {"cells": [_code("rows = spark.table('t').collect()  # noqa: SPK101\n")], "metadata": {}, "nbformat": 4,
          "nbformat_minor": 5}
    bom = b"\xef\xbb\xbf"
    used = write(tmp_path / "used.ipynb", bom + json.dumps(nb).encode(), mode="wb")  # the noqa is used: no fix
    before = os.stat(used).st_mtime_ns
    r = run("check", used, "--fix", "--no-cache")
    assert r.code == 0 and "Fixed" not in r.out, r
    assert open(used, "rb").read() == bom + json.dumps(nb).encode() and os.stat(used).st_mtime_ns == before
    nb["cells"][0]["source"] = ["x = 1  # noqa: SPK101\n"]
    unused = write(tmp_path / "unused.ipynb", bom + json.dumps(nb, indent=1).encode(), mode="wb")
    assert run("check", unused, "--fix", "--no-cache").code == 0
    nb["cells"][0]["source"] = ["x = 1\n"]
    assert open(unused, "rb").read() == bom + json.dumps(nb, indent=1).encode()


def test_diff_counts_the_fixes_it_shows_and_honours_exit_zero(tmp_path, run):
    path = write(tmp_path / "a.py", UNUSED + "y = 2  # noqa: SPK102\n")
    r = run("check", path, "--diff", "--no-cache")
    assert r.code == 1 and "Would fix 2 errors." in r.err, r
    r = run("check", path, "--diff", "--no-cache", "--exit-zero")
    assert r.code == 0 and "Would fix 2 errors." in r.err and "+x = 1" in r.out, r
    assert open(path).read() == UNUSED + "y = 2  # noqa: SPK102\n"


def test_databricks_sql_cell_fix(tmp_path, run):
    text = ("# Databricks notebook source\n# MAGIC %sql\n# MAGIC SELECT id FROM t -- noqa: SPK501\n\n"
            "# COMMAND ----------\n\nx = 1\n")
    path = write(tmp_path / "nb.py", text)
    assert run("check", path, "--fix", "--no-cache").code == 0
    assert open(path).read() == text.replace(" -- noqa: SPK501", "")


class BreaksTheFile(PythonRule):
    """A rule for this test only: its fix leaves unbalanced parentheses."""

    code = "SPK099"
    name = "breaks-the-file"
    summary = "test"
    fix = "safe"
    triggers = ("break_me",)
    invalid = (Invalid("break_me()\n"),)
    valid = (Valid("x\n"),)

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "break_me":
            self.ctx.report(self, node, "broken", fix=Fix("break it", (Edit(0, 0, "((("),)))


def test_fix_that_breaks_the_file_is_dropped(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "_RULES", [*registry.all_rules(), BreaksTheFile])
    settings = settings_for(tmp_path, select=["ALL"])
    source = b"# a spark job\nbreak_me()\nx = 1  # noqa: SPK101\n"
    result = fixer.fix_source(str(tmp_path / "a.py"), source, settings, unsafe=True)
    assert result.fixed == b"# a spark job\nbreak_me()\nx = 1\n"  # the good fix still applied
    assert result.applied == {"SPK002": 1}
    assert result.dropped == [f"{tmp_path / 'a.py'}: the fix for SPK099 would leave the file unparseable; not applied"]


def test_several_fixes_in_one_file(tmp_path):
    settings = settings_for(tmp_path)
    source = b"a = 1  # noqa: SPK101\nb = 2  # noqa: SPK102\n"
    result = fixer.fix_source(str(tmp_path / "a.py"), source, settings, unsafe=False)
    assert result.fixed == b"a = 1\nb = 2\n" and sum(result.applied.values()) == 2


def test_a_fix_that_breaks_sql_is_dropped(tmp_path):
    from linter.fixer import _try
    from linter.sources import load_document

    doc = load_document(str(tmp_path / "q.sql"), b"SELECT a FROM t;\n")
    assert _try(doc, [(None, 7, 8, "a +")]) is None  # `SELECT a + FROM t` no longer parses
    assert _try(doc, [(None, 7, 8, "a + 1")]).text == "SELECT a + 1 FROM t;\n"


def test_udf_with_a_falsy_guard_gets_no_builtin_fix(tmp_path):
    # `if not s: return None` also turns "" into null, which F.upper does not: no fix is offered.
    code = (b"from pyspark.sql import SparkSession\nfrom pyspark.sql.functions import udf\n"
            b"spark = SparkSession.builder.getOrCreate()\n"
            b"@udf('string')\ndef up(s):\n    if not s:\n        return None\n    return s.upper()\n"
            b"df = spark.table('t').select(up('name'))\n")
    settings = settings_for(tmp_path, fixable=["SPK201"])
    assert fixer.fix_source(str(tmp_path / "a.py"), code, settings, unsafe=True).fixed is None
    guarded = code.replace(b"if not s:", b"if s is None:")
    fixed = fixer.fix_source(str(tmp_path / "a.py"), guarded, settings, unsafe=True).fixed
    assert fixed is not None and b"F.upper(F.col('name'))" in fixed


def test_a_fix_that_would_lose_a_comment_inside_the_code_it_replaces_is_not_offered(tmp_path, run):
    text = ("from pyspark.sql import functions as F\ndf = spark.table('t')\n"
            "if (df.count()  # any rows?\n        > 0):\n    pass\n"
            "x = df.filter(F.col('a') > 1 and  # first condition\n    F.col('b') < 2)\n"
            "if df.count() > 0:  # a comment after the code: kept, the fix is offered\n    pass\n")
    path = write(tmp_path / "job.py", text)
    r = run("check", path, "--output-format", "json", "--no-cache", "--select", "SPK103,SPK303")
    fixes = {(f["code"], f["location"]["row"]): f["fix"] is not None for f in json.loads(r.out)}
    assert fixes == {("SPK103", 3): False, ("SPK303", 6): False, ("SPK103", 8): True}, fixes
    assert run("check", path, "--fix", "--no-cache", "--select", "SPK103,SPK303").code == 1
    assert open(path).read() == text.replace("if df.count() > 0:", "if not df.isEmpty():")


@pytest.mark.parametrize("unit", ["    ", "\t"])
def test_a_merged_withcolumn_chain_is_indented_from_the_line_it_starts_on(tmp_path, run, unit):
    calls = "".join(f'{unit * 2}.withColumn("{c}", F.col("x"))\n' for c in "bcdef")
    text = (f'from pyspark.sql import functions as F\ndef f(df):\n{unit}res = (\n{unit * 2}df.withColumn("a", F.col("x"))\n'
            f'{calls}{unit * 2}.select("a")\n{unit})\n{unit}return res\n')
    path = write(tmp_path / "job.py", text)
    r = run("check", path, "--preview", "--select", "SPK401", "--fix", "--unsafe-fixes", "--no-cache")
    assert r.code == 0, r
    entries = "".join(f'{unit * 3}"{c}": F.col("x"),\n' for c in "abcdef")
    assert open(path).read() == (f'from pyspark.sql import functions as F\ndef f(df):\n{unit}res = (\n'
                                 f'{unit * 2}df.withColumns({{\n{entries}{unit * 2}}})\n{unit * 2}.select("a")\n'
                                 f'{unit})\n{unit}return res\n')


@pytest.mark.parametrize("unit", ["    ", "\t"])
def test_a_merged_chain_leaves_the_lines_of_a_multiline_string_as_they_were(tmp_path, run, unit):
    calls = "".join(f'.withColumn("{c}", F.lit({i}))' for i, c in enumerate("defgh"))
    text = (f'from pyspark.sql import functions as F\ndf = spark.table("t")\nif True:\n{unit}out = (df.withColumn("a", F.lit("""x\n'
            f'    y\n"""))' + calls + ')\n')
    path = write(tmp_path / "job.py", text)
    r = run("check", path, "--preview", "--select", "SPK401", "--fix", "--unsafe-fixes", "--no-cache")
    assert r.code == 0, r
    entries = "".join(f'{unit * 2}"{c}": F.lit({i}),\n' for i, c in enumerate("defgh"))
    assert open(path).read() == (f'from pyspark.sql import functions as F\ndf = spark.table("t")\nif True:\n'
                                 f'{unit}out = (df.withColumns({{\n'
                                 f'{unit * 2}"a": F.lit("""x\n    y\n"""),\n{entries}{unit}}}))\n')


def test_a_notebook_whose_cell_metadata_holds_a_source_key_is_fixed_at_the_cells_own_source(tmp_path, run):
    # a layout json.dumps does not reproduce (one line per cell), and a "source" key in the cell's metadata
    cell = ('{"cell_type": "code", "metadata": {"source": "x"}, "outputs": [], "execution_count": null,\n'
            '  "source": ["from pyspark.sql import functions as F\\n", "df = spark.table(\'t\')\\n", '
            '"x = df.filter(F.col(\'a\') > 1 and F.col(\'b\') < 2)\\n"]}')
    text = '{"cells": [' + cell + '],\n "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
    path = write(tmp_path / "nb.ipynb", text)
    r = run("check", path, "--select", "SPK303", "--fix", "--no-cache")
    assert r.code == 0 and "no fix applied" not in r.err, r
    assert open(path).read() == text.replace("F.col('a') > 1 and F.col('b') < 2", "(F.col('a') > 1) & (F.col('b') < 2)")


def test_a_discarded_transformation_in_parentheses_gets_no_fix(tmp_path, run):
    """SPK318's fix assigns the result back; inside parentheses `(orders = ...)` would not parse, so none is
    offered (the fixer's own check would refuse it with a warning otherwise)."""
    job = tmp_path / "job.py"
    code = ("from pyspark.sql import DataFrame\n\ndef clean(orders: DataFrame):\n"
            "    (orders\n        .dropDuplicates(['order_id']))\n    orders.dropDuplicates(['id'])\n    return orders\n")
    job.write_text(code)
    r = run("check", job, "--select", "SPK318", "--fix", "--unsafe-fixes", "--no-cache")
    assert "unparseable" not in r.err
    assert job.read_text() == code.replace("    orders.dropDuplicates(['id'])", "    orders = orders.dropDuplicates(['id'])")
