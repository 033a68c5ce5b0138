"""The `small-tables` setting: tables, views and paths the project says are small (linter/semantic/bounds.py)."""

import json

import pytest

from linter.semantic.bounds import declared_small

JOB = """\
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()

codes = [r.code for r in spark.table("ref.currency").collect()]
names = spark.table("gold.Countries").toPandas()
regions = spark.read.parquet("s3://lake/ref/regions/").collect()
active = spark.sql("SELECT code FROM ref.currency WHERE active").collect()
orders = spark.table("sales.orders").collect()
joined = spark.sql("SELECT o.id FROM sales.orders o JOIN ref.currency c ON o.cur = c.code").collect()
spark.table("sales.orders").write.mode("overwrite").saveAsTable("ref.currency")  # the file's own write wins
again = spark.table("ref.currency").collect()
both = spark.read.parquet("s3://lake/ref/currencies", "s3://lake/sales/events").collect()
"""
QUERIES = """\
SELECT o.id, c.code FROM sales.orders o CROSS JOIN ref.currency c;
WITH countries AS (SELECT id FROM sales.events) SELECT * FROM sales.clicks CROSS JOIN countries;
SELECT o.id, i.sku FROM sales.orders o CROSS JOIN sales.items i;
SELECT c.name, i.sku FROM countries c, sales.items i;
"""


def _found(run, path, *args):
    r = run("check", path, "--select", "SPK101,SPK102,SPK505", "--output-format", "json", "--no-cache", *args)
    assert r.code in (0, 1), r.err
    return sorted((f["filename"].rsplit("/", 1)[-1], f["location"]["row"], f["code"]) for f in json.loads(r.out))


def _project(tmp_path, setting):
    (tmp_path / "pyproject.toml").write_text(f"[tool.sparkcheck]\n{setting}\n")
    (tmp_path / "job.py").write_text(JOB)
    (tmp_path / "queries.sql").write_text(QUERIES)
    return tmp_path


def test_declared_tables_views_and_paths_are_small(tmp_path, run):
    _project(tmp_path, 'small-tables = ["ref.*", "countries", "s3://lake/ref/*"]')
    assert _found(run, tmp_path) == [
        ("job.py", 9, "SPK101"),  # sales.orders: not declared
        ("job.py", 10, "SPK101"),  # a join with an undeclared table is as big as that table
        ("job.py", 12, "SPK101"),  # the file itself wrote a big frame there: what it wrote, not the setting
        ("job.py", 13, "SPK101"),  # one of the read's two paths is not declared
        ("queries.sql", 2, "SPK505"),  # a query's own CTE named like a declared table is not that table
        ("queries.sql", 3, "SPK505"),  # neither side declared
    ]


def test_without_the_setting_nothing_is_small(tmp_path, run):
    _project(tmp_path, "")
    found = _found(run, tmp_path)
    assert [row for name, row, code in found if name == "job.py"] == [5, 6, 7, 8, 9, 10, 12, 13]
    assert [row for name, row, code in found if name == "queries.sql"] == [1, 2, 3, 4]


def test_the_setting_is_part_of_the_cache_key(tmp_path, run):
    _project(tmp_path, "")
    cache = tmp_path / ".cache"
    args = ("check", tmp_path / "job.py", "--select", "SPK101", "--output-format", "json", "--cache-dir", cache)
    assert len(json.loads(run(*args).out)) == 7  # SPK101 only: not row 6's toPandas
    (tmp_path / "pyproject.toml").write_text('[tool.sparkcheck]\nsmall-tables = ["ref.currency"]\n')
    assert len(json.loads(run(*args).out)) == 5  # rows 5 and 8 no longer; 7 is not declared, 12 written here


def test_a_setting_of_the_wrong_type_is_a_one_line_error(tmp_path, run):
    _project(tmp_path, 'small-tables = "ref.*"')
    r = run("check", tmp_path)
    assert r.code == 2
    assert "small-tables" in r.err and "list of strings" in r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize("name, patterns, small", [
    ("ref.currency", ["ref.*"], True),
    ("REF.Currency", ["ref.currency"], True),  # the catalog's names match in any case
    ("gold.ref.countries", ["countries"], True),  # a pattern without a dot: the name's last part
    ("gold.countries_history", ["countries"], False),
    ("sales.orders", ["ref.*"], False),
    ("`ref`.`currency`", ["ref.currency"], True),
    ("countries", ["gold.countries"], False),  # a qualified pattern names the whole name
    ("s3://lake/ref/regions/", ["s3://lake/ref/*"], True),
    ("s3://lake/sales/orders", ["s3://lake/ref/*"], False),
    ("s3://lake/REF/regions", ["s3://lake/ref/*"], False),  # paths keep their case
    ("ref.currency", ["s3://lake/ref/*"], False),  # a path pattern names no table
    ("s3://lake/ref/x", ["ref*"], False),  # a table pattern names no path
    (None, ["ref.*"], False),
    ("ref.currency", [], False),
])
def test_declared_small(name, patterns, small):
    assert declared_small(name, patterns) is small
