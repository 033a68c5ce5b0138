"""SQL inside spark.sql / F.expr / selectExpr / filter strings, linted at its place in the Python file."""
from conftest import write

HEAD = "from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\nspark = SparkSession.builder.getOrCreate()\norders = spark.table('orders')\n"


def findings(run, path, *extra):
    r = run("check", path, "--no-cache", "--output-format", "concise", *extra)
    return [line.split(":", 1)[1] for line in r.out.splitlines() if ": SPK" in line]


def test_positions_through_every_call_form(tmp_path, run):
    path = write(tmp_path / "job.py", HEAD + (
        "a = spark.sql('SELECT * FROM t JOIN u USING (id) WHERE ok')\n"
        "b = spark.sql('''\n  SELECT x * '5'\n  FROM t''')\n"
        "c = orders.selectExpr('id', \"element_at(collect_list(v), 1)\")\n"
        "d = orders.where('amount >')\n"
        "e = orders.select(F.expr('1 + ' '\\'2\\''))\n"
        "f = orders.select(F.count(F.expr('*')))\n"
    ))
    assert findings(run, path, "--ignore", "SPK511") == [
        "5:23: SPK501 `SELECT *` reads every column of the source; name the columns the query needs",
        "7:14: SPK502 arithmetic with the string '5': Spark casts it silently and it becomes a number",
        "9:41: SPK503 this relies on the order of collect_list, which changes from run to run after a shuffle",
        "10:26: SPK001 cannot parse SQL: `>` with no expression on its right (Required keyword: 'expression' missing for GT)",
        "11:34: SPK502 arithmetic with the string '2': Spark casts it silently and it becomes a number",
    ]


def test_variables_and_templates(tmp_path, run):
    path = write(tmp_path / "job.py", HEAD + (
        "query = 'SELECT * FROM t JOIN u USING (id)'\n"
        "a = spark.sql(query)\n"
        "b = spark.sql(f'{select_list} FROM t')\n"
        "c = spark.sql('SELECT {cols} FROM {t}'.format(cols='a', t='b'))\n"
        "d = spark.sql('SELECT * FROM t JOIN u USING (id) WHERE d = %s' % day)\n"
        "e = spark.sql(f'SELECT * FROM {table} JOIN u USING (id)')\n"
    ))
    # the variable's literal, the %-template and the f-string; not `{select_list} FROM t`
    # (a field is what fails to parse) nor the .format() one (its star-free fields)
    assert [f.split(": SPK")[0] for f in findings(run, path, "--select", "SPK501")] == ["5:17", "9:23", "10:24"]


def test_noqa_on_the_line_or_at_the_end_of_a_multiline_string(tmp_path, run):
    path = write(tmp_path / "job.py", HEAD + (
        "a = spark.sql('SELECT * FROM t JOIN u USING (id)')  # noqa: SPK501\n"
        "b = spark.sql('''\n  SELECT *\n  FROM t JOIN u USING (id)''')  # noqa: SPK501\n"
    ))
    assert findings(run, path) == []


def test_embedded_fix_is_written_into_the_literal(tmp_path, run):
    path = write(tmp_path / "job.py", HEAD + "p = F.expr(\"array_join(collect_list(page), ' > ')\")\n")
    assert run("check", path, "--no-cache", "--fix", "--unsafe-fixes", "--select", "SPK503").code == 0
    assert open(path).read().endswith("p = F.expr(\"array_join(array_sort(collect_list(page)), ' > ')\")\n")


def test_not_spark_strings_are_not_sql(tmp_path, run):
    path = write(tmp_path / "job.py", HEAD + (
        "import sqlite3\ncur = sqlite3.connect(':memory:')\ncur.execute('SELECT * FROM t')\n"
        "items = [1, 2]\nbig = filter(lambda x: x > 1, items)\n"
    ))
    assert findings(run, path) == []
