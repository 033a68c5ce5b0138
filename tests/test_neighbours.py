"""Tables a file's neighbours write from small frames (linter/neighbours.py): a notebook series in one folder."""

import json

import pytest

from conftest import codes_and_rows

HEAD = "from pyspark.sql import SparkSession\nimport pandas as pd\n\nspark = SparkSession.builder.getOrCreate()\n"

CLEANSE = HEAD + """\
df = pd.read_csv("/lakehouse/default/Files/churn.csv")
df_clean = df.dropna()
table_name = "df_clean"
spark.createDataFrame(df_clean).write.mode("overwrite").format("delta").save(f"Tables/{table_name}")
"""

TRAIN = "# Databricks notebook source\n" + HEAD + """\
df_clean = spark.read.format("delta").load("Tables/df_clean").toPandas()
again = spark.sql("SELECT * FROM churn_lakehouse.df_clean").toPandas()
raw = spark.read.format("delta").load("Tables/nyctaxi_raw").toPandas()
"""


def _notebook(*cells: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                                  "source": cell.splitlines(keepends=True)} for cell in cells]})


def _found(run, path, *args):
    return codes_and_rows(run, path, "SPK102", *args)


def test_a_table_a_neighbour_wrote_from_pandas_reads_back_small(tmp_path, run):
    (tmp_path / "2-explore-cleanse.py").write_text(CLEANSE)
    train = tmp_path / "3-train.py"
    train.write_text(TRAIN)
    # the lakehouse-qualified SQL read too; the table no neighbour writes is still reported
    assert _found(run, train, "--no-cache") == [("SPK102", 8)]


def test_a_python_module_takes_nothing_from_its_folder(tmp_path, run):
    (tmp_path / "2-explore-cleanse.py").write_text(CLEANSE)
    train = tmp_path / "train.py"
    train.write_text(TRAIN.replace("# Databricks notebook source\n", ""))
    assert _found(run, train, "--no-cache") == [("SPK102", 5), ("SPK102", 6), ("SPK102", 7)]


def test_notebooks_vouch_for_each_other(tmp_path, run):
    (tmp_path / "2-explore-cleanse.ipynb").write_text(_notebook(HEAD, CLEANSE[len(HEAD):]))
    train = tmp_path / "3-train.ipynb"
    train.write_text(_notebook(HEAD, TRAIN[len(HEAD) + 29:]))
    found = json.loads(run("check", train, "--select", "SPK102", "--output-format", "json", "--no-cache").out)
    assert [(f["cell"], f["location"]["row"]) for f in found] == [(2, 3)]


def test_a_fabric_workspace_in_git_has_a_folder_per_notebook(tmp_path, run):
    for name, text in (("01 - Explore", CLEANSE), ("02 - Train", TRAIN[29:])):
        (tmp_path / f"{name}.Notebook").mkdir()
        (tmp_path / f"{name}.Notebook" / "notebook-content.py").write_text("# Fabric notebook source\n" + text)
    assert _found(run, tmp_path / "02 - Train.Notebook" / "notebook-content.py", "--no-cache") == [("SPK102", 8)]


def test_a_neighbour_that_may_have_written_more_vouches_for_nothing(tmp_path, run):
    train = tmp_path / "3-train.py"
    train.write_text(TRAIN)
    writer = tmp_path / "2-explore-cleanse.py"
    everything = [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]
    for changed in (
        CLEANSE.replace('mode("overwrite")', 'mode("append")'),  # an append adds to what was there
        CLEANSE.replace("spark.createDataFrame(df_clean)", 'spark.read.parquet("s3://lake/churn/")'),
        CLEANSE + 'spark.sql(f"INSERT INTO {table_name} SELECT * FROM lake.churn")\n',  # SQL that writes
        CLEANSE + "spark.createDataFrame(df_clean).write.mode('overwrite').saveAsTable(name_from_config)\n",
        CLEANSE.replace("spark.createDataFrame", "if df_clean.size:\n    spark.createDataFrame"),  # maybe
        CLEANSE + "print 'not Python 3'\n",  # a file the model cannot read
    ):
        writer.write_text(changed)
        assert _found(run, train, "--no-cache") == everything, changed


def test_only_the_files_of_the_same_folder_are_neighbours(tmp_path, run):
    (tmp_path / "prep").mkdir()
    (tmp_path / "prep" / "2-explore-cleanse.py").write_text(CLEANSE)
    (tmp_path / "train").mkdir()
    train = tmp_path / "train" / "3-train.py"
    train.write_text(TRAIN)
    assert _found(run, train, "--no-cache") == [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]


def test_the_cache_rechecks_a_file_whose_neighbour_changed(tmp_path, run):
    writer = tmp_path / "2-explore-cleanse.py"
    writer.write_text(CLEANSE)
    train = tmp_path / "3-train.py"
    train.write_text(TRAIN)
    cache = tmp_path / ".cache"
    everything = [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]
    assert _found(run, train, "--cache-dir", cache) == [("SPK102", 8)]
    writer.write_text(CLEANSE.replace('mode("overwrite")', 'mode("append")'))
    assert _found(run, train, "--cache-dir", cache) == everything
    writer.unlink()
    assert _found(run, train, "--cache-dir", cache) == everything
    writer.write_text(CLEANSE)
    assert _found(run, train, "--cache-dir", cache) == [("SPK102", 8)]
    # a file that did not write the table starts to, from a big frame
    (tmp_path / "4-backfill.py").write_text(HEAD + 'spark.read.parquet("s3://lake/churn/").write.mode("overwrite")'
                                            '.format("delta").save("Tables/df_clean")\n')
    assert _found(run, train, "--cache-dir", cache) == everything


def test_the_cache_rechecks_a_notebook_whose_neighbours_sample_grew(tmp_path, run):
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    sample = tmp_path / "data" / "small.csv"
    sample.write_text("id,v\n1,2\n")
    (tmp_path / "2-load.py").write_text(HEAD + 'df = spark.read.option("header", True).csv("data/small.csv")\n'
                                        'df.write.mode("overwrite").format("delta").save("Tables/df_clean")\n')
    train = tmp_path / "3-train.py"
    train.write_text(TRAIN)
    cache = tmp_path / ".cache"
    assert _found(run, train, "--cache-dir", cache) == [("SPK102", 8)]
    with open(sample, "ab") as f:
        f.truncate(12_000_000)
    assert _found(run, train, "--cache-dir", cache) == [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]


def test_any_writer_of_the_table_counts_and_the_notebooks_own_later_write_too(tmp_path, run):
    (tmp_path / "2-explore-cleanse.py").write_text(CLEANSE)
    train = tmp_path / "3-train.py"
    train.write_text(TRAIN)
    big = tmp_path / "9-refresh.py"  # no createDataFrame in it: an overwrite from a whole lake folder
    big.write_text(HEAD + 'spark.read.parquet("s3://lake/huge/").write.mode("overwrite").save("Tables/df_clean")\n')
    assert _found(run, train, "--no-cache") == [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]
    big.unlink()
    train.write_text(TRAIN + 'spark.read.parquet("s3://lake/huge/").write.mode("overwrite").save("Tables/df_clean")\n')
    assert _found(run, train, "--no-cache") == [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]


def test_a_database_qualified_read_of_the_files_own_lakehouse_table(tmp_path, run):
    job = tmp_path / "job.py"
    job.write_text(CLEANSE + 'small = spark.table("churn_lakehouse.df_clean").toPandas()\n'
                   'other = spark.table("churn_lakehouse.orders").toPandas()\n')
    assert _found(run, job, "--no-cache") == [("SPK102", 10)]


def test_a_cell_that_does_not_parse_vouches_for_nothing_only_when_it_names_the_table(tmp_path, run):
    train = tmp_path / "3-train.ipynb"
    train.write_text(_notebook(HEAD, TRAIN[len(HEAD) + 29:]))
    writer = tmp_path / "2-explore-cleanse.ipynb"
    writer.write_text(_notebook(HEAD, CLEANSE[len(HEAD):], "answer = ____ ?"))  # an exercise's blank
    found = json.loads(run("check", train, "--select", "SPK102", "--output-format", "json", "--no-cache").out)
    assert [(f["cell"], f["location"]["row"]) for f in found] == [(2, 3)]
    writer.write_text(_notebook(HEAD, CLEANSE[len(HEAD):], "spark.sql(f'INSERT INTO df_clean {____}') ?"))
    found = json.loads(run("check", train, "--select", "SPK102", "--output-format", "json", "--no-cache").out)
    assert [(f["cell"], f["location"]["row"]) for f in found] == [(2, 1), (2, 2), (2, 3)]


def test_a_semantic_link_frame_saved_as_a_lakehouse_table_is_the_drivers_rows(tmp_path, run):
    (tmp_path / "2-semantic-link.py").write_text(
        "import sempy.fabric as fabric\n\n"
        'df_churn = fabric.read_table("Customer Churn", "customers")\n'
        'df_churn.to_lakehouse_table("ChurnFromSemanticLink", mode="overwrite")\n'
        'fabric.read_table("Customer Churn", "orders").to_lakehouse_table("orders_all", mode="append")\n')
    eda = tmp_path / "3-eda.py"
    eda.write_text("# Databricks notebook source\n" + HEAD
                   + 'df = spark.sql("SELECT * FROM FC_Workshop.churnfromsemanticlink").toPandas()\n'
                   'orders = spark.table("orders_all").toPandas()\n')
    assert _found(run, eda, "--no-cache") == [("SPK102", 7)]  # an append adds to rows nothing shows


@pytest.mark.parametrize("write", [
    'spark.sql("INSERT INTO lake.sales_clean SELECT * FROM huge")',
    'spark.sql("CREATE OR REPLACE TABLE lake.sales_clean AS SELECT * FROM huge")',
    'big.writeTo("lake.sales_clean").append()',
    'big.writeStream.toTable("lake.sales_clean")',
    'DeltaTable.forName(spark, "lake.sales_clean").alias("t").merge(big.alias("s"), "t.id = s.id").execute()',
    'big.write.mode("overwrite").saveAsTable("sales_clean")',
    'big.write.mode("overwrite").saveAsTable("`lake`.`sales_clean`")',
    'big.write.mode("overwrite").save("/lakehouse/default/Tables/sales_clean")',
    'big.write.mode("overwrite").saveAsTable(dbutils.widgets.get("target"))',  # a name it cannot spell
])
def test_a_neighbour_that_writes_the_table_another_way_vouches_for_nothing(tmp_path, run, write):
    (tmp_path / "1_small.py").write_text("# Databricks notebook source\nimport pandas as pd\n"
                                         'pdf = pd.DataFrame({"a": [1, 2]})\n'
                                         'spark.createDataFrame(pdf).write.mode("overwrite").saveAsTable("lake.sales_clean")\n')
    reader = tmp_path / "3_read.py"
    reader.write_text('# Databricks notebook source\nrows = spark.table("lake.sales_clean").collect()\n')
    assert codes_and_rows(run, reader, "SPK101", "--no-cache") == []
    (tmp_path / "2_big.py").write_text(f'# Databricks notebook source\nbig = spark.read.parquet("/mnt/huge")\n{write}\n')
    assert codes_and_rows(run, reader, "SPK101", "--no-cache") == [("SPK101", 2)]


def test_a_notebook_of_the_series_in_another_language_that_names_the_table_vouches_for_nothing(tmp_path, run):
    (tmp_path / "2-explore-cleanse.py").write_text(CLEANSE)
    train = tmp_path / "3-train.py"
    train.write_text(TRAIN)
    assert _found(run, train, "--no-cache") == [("SPK102", 8)]
    (tmp_path / "4-backfill.sql").write_text("-- Databricks notebook source\nINSERT INTO df_clean SELECT * FROM lake.churn\n")
    assert _found(run, train, "--no-cache") == [("SPK102", 6), ("SPK102", 7), ("SPK102", 8)]


INGEST = "# Databricks notebook source\n" + HEAD + """\
import os
import requests

remote_url = "https://synapseaisolutionsa.blob.core.windows.net/public/bankcustomerchurn"
download_path = "/lakehouse/default/Files/churn/raw"
os.makedirs(download_path, exist_ok=True)
for fname in ["churn.csv"]:
    r = requests.get(f"{remote_url}/{fname}", timeout=30)
    with open(f"{download_path}/{fname}", "wb") as f:
        f.write(r.content)
"""

EXPLORE = "# Databricks notebook source\n" + HEAD + """\
df = spark.read.option("header", True).option("inferSchema", True).csv("Files/churn/raw/churn.csv")
pdf = df.toPandas()
"""


def test_a_sample_a_neighbour_downloads_from_a_fixed_url_is_fixed_data(tmp_path, run):
    """SPK405's download exemption (a fixed sample the file brings whole to the driver) takes the series' own
    download notebook too; the cache re-checks the reader when that notebook changes."""
    ingest = tmp_path / "1-ingest-data.py"
    ingest.write_text(INGEST)
    explore = tmp_path / "2-explore.py"
    explore.write_text(EXPLORE)
    cache = tmp_path / ".cache"
    assert codes_and_rows(run, explore, "SPK405", "--cache-dir", cache) == []
    ingest.write_text(INGEST.replace("Files/churn/raw", "Files/other/raw"))
    assert codes_and_rows(run, explore, "SPK405", "--cache-dir", cache) == [("SPK405", 6)]
    ingest.write_text(INGEST.replace('requests.get(f"{remote_url}/{fname}", timeout=30)', "fetch(fname)"))
    assert codes_and_rows(run, explore, "SPK405", "--cache-dir", cache) == [("SPK405", 6)]
    ingest.write_text(INGEST)
    assert codes_and_rows(run, explore, "SPK405", "--cache-dir", cache) == []
    # a Python module is no notebook of a series: it takes nothing from its folder
    module = tmp_path / "explore.py"
    module.write_text(EXPLORE.replace("# Databricks notebook source\n", ""))
    assert codes_and_rows(run, module, "SPK405", "--no-cache") == [("SPK405", 5)]
