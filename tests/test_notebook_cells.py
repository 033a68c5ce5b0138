"""Notebook cells: nbformat 3 worksheets, Databricks SQL source notebooks, cells that do not parse alone,
Glue `%%sql` cells continued with backslashes.  Each test runs the CLI on a realistic notebook and checks
the exact codes and places: (cell, row, column) for Jupyter, file (row, column) for Databricks sources."""
import json
import os

from conftest import FIXTURES, run_process, write

NOTEBOOKS = os.path.join(FIXTURES, "notebooks")


def _findings(run, path, *flags):
    r = run("check", path, "--no-cache", "--output-format", "json", *flags)
    assert r.code in (0, 1) and not r.err, r
    return json.loads(r.out)


def _places(run, path, *flags):
    return {(d["cell"], d["location"]["row"], d["location"]["column"], d["code"])
            for d in _findings(run, path, *flags)}


def _concise_places(out):
    """`path:row:col: CODE` of each finding in concise output."""
    return [line.split(": ", 1)[0] + ": " + line.split(": ", 1)[1].split(" ", 1)[0]
            for line in out.splitlines() if " SPK" in line]


def _code(text):
    lines = text.split("\n")
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": [line + "\n" for line in lines[:-1]] + [lines[-1]]}


def _notebook(cells, metadata=None):
    nb = {"cells": cells, "metadata": metadata if metadata is not None else
          {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# 1. nbformat 3 -------------------------------------------------------------------------------------------------

def test_v3_cells_are_numbered_across_worksheets_markdown_and_headings_included(run):
    # worksheet 1: heading, markdown, code, code; worksheet 2: heading, %%sql, raw, code
    path = os.path.join(NOTEBOOKS, "legacy_worksheets_v3.ipynb")
    assert _places(run, path) == {(6, 2, 35, "SPK504"), (8, 1, 15, "SPK101")}
    # `orders` comes from worksheet 1: the cells of all worksheets are one Python text
    [collect] = [d for d in _findings(run, path) if d["code"] == "SPK101"]
    assert 'from `spark.table("sales.orders")`' in collect["message"]


def test_v3_fix_goes_into_the_input_of_the_cell_in_the_second_worksheet(tmp_path, run):
    def v3code(text):
        return {"cell_type": "code", "collapsed": False, "input": text.splitlines(keepends=True),
                "language": "python", "metadata": {}, "outputs": [], "prompt_number": None}

    def heading(text):
        return {"cell_type": "heading", "level": 1, "metadata": {}, "source": [text]}

    nb = {"metadata": {"name": ""}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [
        {"cells": [heading("Load"), v3code('from pyspark.sql import functions as F\ndf = spark.table("t")')],
         "metadata": {}},
        {"cells": [heading("Clean"), v3code('missing = df.filter(F.col("x") == None)')], "metadata": {}},
    ]}
    text = json.dumps(nb, indent=1, sort_keys=True) + "\n"
    path = write(tmp_path / "legacy.ipynb", text)
    assert _places(run, path) == {(4, 1, 21, "SPK302")}
    r = run("check", path, "--no-cache", "--fix", "--unsafe-fixes", "--output-format", "concise")
    assert r.code == 0, r
    nb["worksheets"][1]["cells"][1]["input"] = ['missing = df.filter(F.col("x").isNull())']
    assert open(path, encoding="utf-8").read() == json.dumps(nb, indent=1, sort_keys=True) + "\n"


def test_v3_cell_language_is_honoured(tmp_path, run):
    cells = [{"cell_type": "code", "input": ['rows = spark.table("a").collect()'], "language": "python",
              "metadata": {}, "outputs": []},
             {"cell_type": "code", "input": ['val rows = spark.table("b").collect()'], "language": "scala",
              "metadata": {}, "outputs": []}]
    path = write(tmp_path / "v3.ipynb", json.dumps({"metadata": {}, "nbformat": 3, "worksheets": [{"cells": cells}]}))
    assert _places(run, path) == {(1, 1, 25, "SPK101")}


# 2. Databricks SQL source notebooks ----------------------------------------------------------------------------

def test_databricks_sql_notebook_end_to_end():
    path = "databricks_orders_report.sql"
    r = run_process("check", path, "--no-cache", "--output-format", "concise", cwd=NOTEBOOKS)
    assert r.code == 1 and not r.err, r
    lines = _concise_places(r.out)
    # cells without `;` end at `-- COMMAND`, `-- MAGIC %sql` lines are SQL, `-- MAGIC %python` cells are Python
    # (`orders` defined in the first %python cell is known in the second), `%md` is skipped: no SPK001
    assert lines == [
        f"{path}:9:35: SPK504",
        f"{path}:29:44: SPK506",
        f"{path}:34:46: SPK504",
        f"{path}:40:74: SPK101",
    ], r.out


def test_databricks_sql_bad_cells_are_reported_at_their_lines_and_the_rest_is_checked(tmp_path, run):
    text = (
        "-- Databricks notebook source\n"      # 1
        "SELECT *, coalesce(status_txt, 'N/A') FROM a\n"  # 2: a notebook's `SELECT *` is not SPK501's
        "\n"
        "-- COMMAND ----------\n"              # 4
        "\n"
        "SELECT 'unterminated FROM b\n"        # 6
        "\n"
        "-- COMMAND ----------\n"              # 8
        "\n"
        "-- MAGIC %python\n"                   # 10
        "-- MAGIC print spark.table('c').count()\n"  # 11: Python 2
        "\n"
        "-- COMMAND ----------\n"              # 13
        "\n"
        "SELECT *, coalesce(status_txt, 'N/A') FROM d; -- noqa: SPK504\n"  # 15
        "SELECT *, coalesce(status_txt, 'N/A') FROM e\n"  # 16: a cell's statements, the last without `;`
    )
    path = write(tmp_path / "report.sql", text)
    found = _findings(run, path)
    assert {(d["cell"], d["location"]["row"], d["location"]["column"], d["code"]) for d in found} == {
        (None, 2, 32, "SPK504"), (None, 6, 1, "SPK001"), (None, 11, 10, "SPK001"), (None, 16, 32, "SPK504")}
    assert any("Python 2" in d["message"] for d in found if d["location"]["row"] == 11)


def test_sql_file_without_the_header_is_plain_sql(tmp_path, run):
    path = write(tmp_path / "q.sql", "-- COMMAND ----------\nSELECT id FROM a;\n-- MAGIC %python\n")
    assert _places(run, path) == set()


# 3. Cells that do not parse alone ------------------------------------------------------------------------------

def test_jupyter_bad_cells_each_get_spk001_and_the_other_cells_are_checked(run):
    path = os.path.join(NOTEBOOKS, "churn_scoring_cells.ipynb")
    found = _findings(run, path)
    assert {(d["cell"], d["location"]["row"], d["location"]["column"], d["code"]) for d in found} == {
        (3, 2, 1, "SPK001"),    # print customers.count()
        (5, 3, 15, "SPK001"),   # %%sql not on the first line
        (7, 1, 18, "SPK101"),   # after two bad cells, `customers` from cell 2 is still known
        (8, 1, 15, "SPK001"),   # a template placeholder
        (10, 2, 16, "SPK102"),
    }  # cells 4 (%sh), 6 (!pip with continuation lines) and 9 (automagic pip) are not Python errors
    by_cell = {d["cell"]: d for d in found}
    assert "Python 2" in by_cell[3]["message"]
    assert 'from `spark.table("crm.customers")`' in by_cell[7]["message"]


def test_databricks_py_bad_command_cell(run):
    path = os.path.join(NOTEBOOKS, "databricks_legacy_py2.py")
    found = _findings(run, path)
    assert {(d["cell"], d["location"]["row"], d["location"]["column"], d["code"]) for d in found} == {
        (None, 13, 1, "SPK001"), (None, 18, 58, "SPK506"), (None, 23, 15, "SPK101")}
    [collect] = [d for d in found if d["code"] == "SPK101"]
    assert 'from `spark.table("raw.events")`' in collect["message"]


def test_only_spk001_selected_still_reports_each_bad_cell(run):
    path = os.path.join(NOTEBOOKS, "churn_scoring_cells.ipynb")
    assert _places(run, path, "--select", "SPK001") == {(3, 2, 1, "SPK001"), (5, 3, 15, "SPK001"),
                                                       (8, 1, 15, "SPK001")}


def test_noqa_on_a_bad_cell(tmp_path, run):
    cells = [_code('df = spark.table("t")'), _code("print df.count()  # noqa: SPK001"),
             _code("rows = df.collect()")]
    path = write(tmp_path / "n.ipynb", _notebook(cells))
    assert _places(run, path) == {(3, 1, 11, "SPK101")}


def test_a_bad_cell_in_a_notebook_without_spark_is_not_reported(tmp_path, run):
    # as for a .py file: Python that never mentions Spark is not sparkcheck's to parse
    path = write(tmp_path / "n.ipynb", _notebook([_code("import pandas as pd"), _code("print pd.__version__")]))
    r = run("check", path, "--no-cache")
    assert r.code == 0 and r.out == "All checks passed!\n", r


def test_fix_in_a_good_cell_of_a_notebook_with_a_bad_cell(tmp_path, run):
    cells = [_code('from pyspark.sql import functions as F\ndf = spark.table("t")\n'
                   'missing = df.filter(F.col("x") == None)'),
             _code("print df.count()")]
    path = write(tmp_path / "n.ipynb", _notebook(cells))
    r = run("check", path, "--no-cache", "--fix", "--unsafe-fixes", "--output-format", "concise")
    assert r.code == 1 and "would leave the file unparseable" not in r.err, r
    assert r.out.splitlines()[0].endswith("n.ipynb:cell 2:1:1: SPK001 cannot parse Python: Missing parentheses in "
                                          "call to 'print'. Did you mean print(...)? (this looks like Python 2, "
                                          "which Spark 3+ no longer runs)")
    cells[0]["source"][2] = 'missing = df.filter(F.col("x").isNull())'
    assert open(path, encoding="utf-8").read() == _notebook(cells)


def test_fix_in_a_databricks_py_notebook_with_a_bad_cell(tmp_path, run):
    text = ('# Databricks notebook source\nfrom pyspark.sql import functions as F\ndf = spark.table("t")\n\n'
            "# COMMAND ----------\n\nprint df.count()\n\n# COMMAND ----------\n\n"
            'missing = df.filter(F.col("x") == None)\n')
    path = write(tmp_path / "job.py", text)
    assert _places(run, path) == {(None, 7, 1, "SPK001"), (None, 11, 21, "SPK302")}
    r = run("check", path, "--no-cache", "--fix", "--unsafe-fixes", "--output-format", "concise")
    assert r.code == 1 and not r.err, r
    assert open(path, encoding="utf-8").read() == text.replace('F.col("x") == None', 'F.col("x").isNull()')


def test_fix_that_would_break_a_cell_is_still_refused(tmp_path, run):
    # the count of cells that parse is part of what a fix must keep
    cells = [_code('df = spark.table("t")\nrows = df.collect()'), _code("print df")]
    path = write(tmp_path / "n.ipynb", _notebook(cells))
    from linter.fixer import _try
    from linter.sources import load_document

    doc = load_document(path, open(path, "rb").read())
    assert [u.error is None for u in doc.units] == [True, False]
    assert _try(doc, [(1, 0, 0, "if x:\n")]) is None
    assert _try(doc, [(1, 0, 0, "x = 1\n")]) is not None


def test_ipython_and_databricks_syntax_is_not_a_parse_error(tmp_path, run):
    cells = [
        _code("%sh\nls -l /dbfs/tmp | head"),                              # Databricks shell cell
        _code("%md\n# not Python"),
        _code("!spark-submit --master yarn \\\n    --deploy-mode cluster \\\n    job.py"),
        _code("pip install pydeequ==1.2.0"),                                 # automagic
        _code("%matplotlib inline\nreload_ext autoreload\n?spark.read.csv"),
        _code("%%bash\necho done"),
        _code('df = spark.table("t")\nrows = df.collect()'),
    ]
    path = write(tmp_path / "n.ipynb", _notebook(cells))
    assert _places(run, path) == {(7, 2, 11, "SPK101")}


def test_fabric_notebook_and_cell_languages(tmp_path, run):
    # Fabric keeps the PySpark kernel and says the notebook's language in language_info
    r_nb = {"kernelspec": {"display_name": "Synapse PySpark", "language": "Python", "name": "synapse_pyspark"},
            "language_info": {"name": "r"}}
    cells = [_code('library(sparklyr)\ndf <- sdf_sql(sc, "SELECT * FROM t WHERE status = \'N/A\'")'),
             _code("%%sql\nSELECT *, coalesce(status_txt, 'N/A') FROM t")]
    path = write(tmp_path / "r.ipynb", _notebook(cells, r_nb))
    assert _places(run, path) == {(2, 2, 32, "SPK504")}
    sparksql = _code("SELECT *, coalesce(delivery_status, 'N/A') FROM lake.t")
    sparksql["metadata"] = {"microsoft": {"language": "sparksql"}}
    tsql = _code("SELECT TOP 10 *, coalesce(delivery_status, 'N/A') FROM dbo.t")
    tsql["metadata"] = {"microsoft": {"language": "sql"}}  # T-SQL on a warehouse, not Spark SQL
    scala = _code('val rows = spark.table("t").collect()')
    scala["metadata"] = {"microsoft": {"language": "scala"}}
    path = write(tmp_path / "mixed.ipynb", _notebook([sparksql, tsql, scala, _code('spark.table("t").collect()')]))
    assert _places(run, path) == {(1, 1, 37, "SPK504"), (4, 1, 18, "SPK101")}


def test_select_star_in_notebooks_is_reported_only_when_inserted(tmp_path, run):
    # a notebook's `SELECT *` is how one looks at a table; `INSERT ... SELECT *` writes by position
    cells = [_code("%%sql\nSELECT * FROM sales.orders LIMIT 10"),
             _code("%%sql\nINSERT INTO sales.orders_archive\nSELECT * FROM sales.orders"),
             _code('display(spark.sql("SELECT * FROM sales.orders"))'),
             _code("%%sql\nCREATE OR REPLACE TEMP VIEW recent AS SELECT * FROM sales.orders")]
    path = write(tmp_path / "look.ipynb", _notebook(cells))
    assert _places(run, path) == {(2, 3, 8, "SPK501")}
    text = ("SELECT * FROM sales.orders\n\n-- COMMAND ----------\n\n"
            "INSERT INTO sales.orders_archive SELECT * FROM sales.orders\n")
    path = write(tmp_path / "look.sql", "-- Databricks notebook source\n" + text)
    assert _places(run, path) == {(None, 6, 41, "SPK501")}
    path = write(tmp_path / "plain.sql", text.replace("\n\n-- COMMAND ----------\n\n", ";\n"))
    assert _places(run, path) == {(None, 1, 8, "SPK501"), (None, 2, 41, "SPK501")}


# 4. %%sql with backslash continuations -------------------------------------------------------------------------

def test_glue_sql_cells_with_backslash_continuations(run):
    path = os.path.join(NOTEBOOKS, "glue_session_sql.ipynb")
    assert _places(run, path) == {(4, 4, 7, "SPK509"), (5, 3, 54, "SPK506")}


def test_backslash_on_the_finding_line(tmp_path, run):
    cells = [_code("%%sql\nSELECT order_id, coalesce(region, 'N/A') AS region \\\nFROM sales.orders \\\n"
                   "WHERE upper(status) = 'OPEN'")]
    path = write(tmp_path / "glue.ipynb", _notebook(cells))
    found = _findings(run, path)
    assert {(d["cell"], d["location"]["row"], d["location"]["column"], d["code"]) for d in found} == {
        (1, 2, 35, "SPK504"), (1, 4, 7, "SPK509")}
    r = run("check", path, "--no-cache")
    assert "2 | SELECT order_id, coalesce(region, 'N/A') AS region \\" in r.out  # the code frame shows the cell's own line


# Bad input -----------------------------------------------------------------------------------------------------

def test_malformed_notebooks_never_traceback(tmp_path):
    files = {
        "ws_int.ipynb": '{"nbformat": 3, "worksheets": [1]}',
        "ws_dict.ipynb": '{"nbformat": 3, "worksheets": {"cells": []}}',
        "ws_cells.ipynb": '{"nbformat": 3, "worksheets": [{"cells": {"a": 1}}]}',
        "meta.ipynb": '{"nbformat": 4, "metadata": [1], "cells": [{"cell_type": "code", '
                      '"source": "rows = spark.table(\\"t\\").collect()"}]}',
        "kernel.ipynb": '{"nbformat": 4, "metadata": {"kernelspec": "python", "language_info": 3}, "cells": '
                        '[{"cell_type": "code", "source": null, "metadata": {"microsoft": 3, "vscode": []}}]}',
        "lang.ipynb": '{"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "language": 5, '
                      '"input": "print spark"}]}]}',
        "nul.ipynb": '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "spark\\nprint x\\u0000"}]}',
        "empty_sql.ipynb": '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "%%sql\\n  \\\\\\n"}]}',
        "d.sql": "-- Databricks notebook source\n-- COMMAND ----------\n-- MAGIC %python\n-- COMMAND ----------\n"
                 "-- MAGIC %sql\n-- MAGIC\n-- COMMAND ----------\n",
        "header_only.sql": "-- Databricks notebook source",
        "d.py": "# Databricks notebook source\n# COMMAND ----------\nprint spark\n# COMMAND ----------",
    }
    for name, text in files.items():
        write(tmp_path / name, text)
    r = run_process("check", tmp_path, "--no-cache", "--output-format", "concise", cwd=tmp_path)
    assert r.code == 1 and "Traceback" not in r.err and not r.err, r
    lines = sorted(r.out.splitlines()[:-1])
    assert lines == [
        "d.py:3:1: SPK001 cannot parse Python: Missing parentheses in call to 'print'. Did you mean print(...)? "
        "(this looks like Python 2, which Spark 3+ no longer runs)",
        "lang.ipynb:cell 1:1:1: SPK001 cannot parse Python: Missing parentheses in call to 'print'. Did you mean "
        "print(...)? (this looks like Python 2, which Spark 3+ no longer runs)",
        "meta.ipynb:cell 1:1:25: SPK101 `spark.table(\"t\").collect()` brings every row of the DataFrame to the "
        "driver: nothing bounds its rows (no `limit`, no global aggregate)",
        lines[3],  # nul.ipynb: libcst's tokenizer message
        "ws_cells.ipynb:1:1: SPK001 not a valid notebook: a worksheet's 'cells' is not a list",
        "ws_dict.ipynb:1:1: SPK001 not a valid notebook: 'worksheets' is not a list of objects",
        "ws_int.ipynb:1:1: SPK001 not a valid notebook: 'worksheets' is not a list of objects",
    ], r.out
    assert lines[3].startswith("nul.ipynb:cell 1:") and " SPK001 cannot parse Python" in lines[3]


# 5. Databricks exports that lost their header line ---------------------------------------------------------------

def test_python_export_without_header_is_read_cell_by_cell(tmp_path, run):
    # as book repositories keep them: `# COMMAND ----------` separators, no `# Databricks notebook source`
    path = write(tmp_path / "chapter_3.py",
                 'retail = spark.read.format("csv")\\\n  .option("header", "true")\\\n'
                 '  .option("inferSchema", "true")\\\n  .load("/data/retail/*.csv")\n\n'
                 "# COMMAND ----------\n\n"
                 "from pyspark.ml.clustering import KMeans\nkmeans = KMeans().setK(20).setSeed(1L)\n\n"
                 "# COMMAND ----------\n\n"
                 "rows = retail.collect()\n")
    assert _places(run, path) == {(None, 1, 10, "SPK405"), (None, 9, 36, "SPK001"), (None, 13, 15, "SPK101")}


def test_sql_export_without_header_splits_statements_at_cells(tmp_path, run):
    path = write(tmp_path / "chapter_10.sql",
                 "SELECT dest_country_name FROM flights LIMIT 10\n\n-- COMMAND ----------\n\n"
                 "SELECT * FROM flights WHERE origin_country_name NOT IN (SELECT dest_country_name FROM flights)\n")
    assert _places(run, path) == {(None, 5, 29, "SPK506")}


def test_a_python_file_that_mentions_command_lines_in_a_string_is_plain_python(tmp_path, run):
    path = write(tmp_path / "job.py", 'SEPARATOR = """\n# COMMAND ----------\n"""\nrows = spark.table("t").collect()\n')
    assert _places(run, path) == {(None, 4, 25, "SPK101")}


# 5. Microsoft Fabric source notebooks ---------------------------------------------------------------------------

def test_fabric_notebook_is_read_as_a_notebook():
    """`# Fabric notebook source`: `# MAGIC %%sql` cells are SQL at their file rows, and the notebook policies
    hold (SPK411 and SPK501 stay quiet on `show()`, `display()` and `SELECT *` even when selected)."""
    path = os.path.join("orders_enrichment.Notebook", "notebook-content.py")
    r = run_process("check", path, "--no-cache", "--output-format", "concise", "--extend-select", "SPK411",
                    cwd=NOTEBOOKS)
    assert r.code == 1 and not r.err, r
    lines = _concise_places(r.out)
    assert lines == [
        f"{path}:40:24: SPK504",
        f"{path}:53:17: SPK101",
        f"{path}:53:17: SPK109",  # once per frame: the write at 54 is its third action
    ], r.out


def test_a_python_file_that_only_mentions_fabric_is_a_module(tmp_path, run):
    text = ("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
            "# Fabric notebook source\nspark.table('t').show()\n")
    path = write(tmp_path / "job.py", text)
    assert _places(run, path, "--extend-select", "SPK411") == {(None, 4, 18, "SPK411")}


def test_fabric_magics_typed_in_a_cell_are_not_python_errors_and_survive_a_fix(tmp_path, run):
    """Fabric writes `%pip install x` as typed (no `# MAGIC`): no SPK001, rows unchanged, and `--fix` keeps it."""
    text = ("# Fabric notebook source\n\n# METADATA ********************\n\n# META {}\n\n"
            "# CELL ********************\n\n%pip install imblearn\n\n"
            "# CELL ********************\n\norders = spark.table('orders')\nif orders.count() > 0:\n"
            "    print('rows')\n")
    path = write(tmp_path / "churn.Notebook" / "notebook-content.py", text)
    assert _places(run, path) == {(None, 14, 4, "SPK103")}
    r = run_process("check", path, "--no-cache", "--fix", "--select", "SPK103", cwd=tmp_path)
    assert r.code == 0, r
    with open(path, encoding="utf-8") as f:
        assert f.read() == text.replace("if orders.count() > 0:", "if not orders.isEmpty():")


def test_the_code_frame_of_a_last_cell_without_a_final_line_break_shows_each_line_once(tmp_path, run):
    source = ["from pyspark.sql import SparkSession\n", "spark = SparkSession.builder.getOrCreate()\n",
              "df = spark.table('t').join(spark.table('u'), 'id')\n", "n = df.count()\n", "if n > 0:\n",
              "    df.show(truncate=False)"]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}]}))
    r = run("check", path, "--select", "SPK109", "--no-cache")
    assert r.out.count("df.show(truncate=False)") == 1, r.out
