"""Sample data the repository holds (linter/datafiles.py): small files named by a literal path."""

import json
import os

from conftest import codes_and_rows
from linter.datafiles import SMALL_BYTES, candidates, measured

JOB = """\
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
flights = spark.read.option("inferSchema", "true").csv("/data/flight-data/csv/2015-summary.csv")
rows = flights.collect()
PATH = "../data/flight-data/csv/2015-summary.csv"
again = spark.read.option("inferSchema", "true").csv(PATH).collect()
days = spark.read.json("/data/by-day/*.json").collect()
lake = spark.read.option("inferSchema", "true").csv("s3://lake/flights/").collect()
"""


def _repo(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "data" / "flight-data" / "csv").mkdir(parents=True)
    (tmp_path / "data" / "flight-data" / "csv" / "2015-summary.csv").write_text("a,b\n1,2\n")
    (tmp_path / "data" / "by-day").mkdir()
    for day in ("01", "02"):
        (tmp_path / "data" / "by-day" / f"2010-12-{day}.json").write_text('{"a": 1}\n')
    (tmp_path / "code").mkdir()
    job = tmp_path / "code" / "job.py"
    job.write_text(JOB)
    return job


def _found(run, job, *args):
    return codes_and_rows(run, job, "SPK101,SPK405", *args)


def test_reads_of_small_files_the_repository_holds_are_quiet(tmp_path, run):
    job = _repo(tmp_path)
    assert _found(run, job, "--no-cache") == [("SPK101", 9), ("SPK405", 9)]  # only the lake's


def test_a_sample_that_grows_past_the_limit_is_reported_again_through_the_cache(tmp_path, run):
    job = _repo(tmp_path)
    cache = tmp_path / ".cache"
    assert _found(run, job, "--cache-dir", cache) == [("SPK101", 9), ("SPK405", 9)]
    with open(tmp_path / "data" / "flight-data" / "csv" / "2015-summary.csv", "wb") as f:
        f.truncate(SMALL_BYTES + 1)
    assert _found(run, job, "--cache-dir", cache) == [("SPK101", 5), ("SPK101", 7), ("SPK101", 9),
                                                       ("SPK405", 4), ("SPK405", 7), ("SPK405", 9)]
    os.remove(tmp_path / "data" / "by-day" / "2010-12-01.json")
    os.remove(tmp_path / "data" / "by-day" / "2010-12-02.json")
    assert ("SPK101", 8) in _found(run, job, "--cache-dir", cache)  # the glob names nothing now


def test_without_a_repository_only_the_files_folder_and_its_parent_are_searched(tmp_path):
    for repo in ("plain", "git"):
        (tmp_path / repo / "a" / "b").mkdir(parents=True)
        (tmp_path / repo / "data").mkdir()
        (tmp_path / repo / "data" / "x.csv").write_text("1\n")
        (tmp_path / repo / "a" / "b" / "y.csv").write_text("1\n")
    (tmp_path / "git" / ".git").mkdir()
    text = 'spark.read.csv("/data/x.csv")\nspark.read.csv("y.csv")\n'
    assert measured(str(tmp_path / "plain" / "a" / "b" / "job.py"), text) == {"y.csv": 2}  # /data: too far up
    assert measured(str(tmp_path / "git" / "a" / "b" / "job.py"), text) == {"y.csv": 2, "/data/x.csv": 2}


def test_what_is_never_measured(tmp_path):
    (tmp_path / ".git").mkdir()
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    (tmp_path / "x.csv").write_text("1\n")
    text = ('a = spark.read.csv("s3://lake/x.csv")\nb = spark.read.csv("https://x.org/d.csv")\n'
            'c = spark.read.csv("~/d.csv")\nd = spark.read.csv("pipe.csv")\ne = spark.read.csv("dbfs:/x/y.csv")\n'
            'f = spark.read.csv("/data")\ng = spark.read.csv(f"{base}/x.csv")\nh = "x.csv"  # given to no reader\n')
    assert measured(str(tmp_path / "job.py"), text) == {}
    assert "s3://lake/x.csv" not in candidates(text) and "pipe.csv" in candidates(text)
    assert "x.csv" not in candidates(text)


def test_a_notebooks_escaped_strings_are_read(tmp_path):
    (tmp_path / "x.csv").write_text("1\n")
    (tmp_path / "y.csv").write_text("22\n")
    cell = json.dumps({"cells": [{"source": ['df = spark.read.csv("x.csv")\n', 'Y = "y.csv"\n',
                                             'other = spark.read.csv(Y)\n']}]}, indent=1)  # as notebooks are saved
    assert measured(str(tmp_path / "nb.ipynb"), cell) == {"x.csv": 2, "y.csv": 3}


def test_only_the_repository_is_measured_and_file_urls_are_local(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.csv").write_text("1\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.csv"
    outside.write_text("1\n")
    text = (f'a = spark.read.csv("../{outside.name}")\nb = spark.read.csv("file:///data/x.csv")\n'
            'c = spark.read.csv("file:/data/x.csv")\n')
    assert measured(str(tmp_path / "job.py"), text) == {"file:///data/x.csv": 2, "file:/data/x.csv": 2}


def test_a_folder_of_many_files_is_no_sample(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "many").mkdir()
    for i in range(600):
        (tmp_path / "many" / f"{i}.json").write_text("{}\n")
    (tmp_path / "few").mkdir()
    (tmp_path / "few" / "0.json").write_text("{}\n")
    text = 'a = spark.read.json("many/")\nb = spark.read.json("many/*.json")\nc = spark.read.json("few/")\n'
    assert measured(str(tmp_path / "job.py"), text) == {"few/": 3}


def test_a_notebook_saved_on_one_line_is_read(tmp_path):
    (tmp_path / "y.csv").write_text("22\n")
    cell = json.dumps({"cells": [{"source": ['Y = "y.csv"\n', "other = spark.read.csv(Y)\n"]}]})  # one line
    assert measured(str(tmp_path / "nb.ipynb"), cell) == {"y.csv": 3}


def test_a_databricks_session_file_is_keyed_by_its_samples(tmp_path, run):
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "orders.csv").write_text("1\n")
    job = tmp_path / "job.py"  # no "spark" anywhere: the engine looks into it for DatabricksSession
    job.write_text("from databricks.connect import DatabricksSession\n\nsession = DatabricksSession.builder.getOrCreate()\n"
                   "rows = session.read.csv('data/orders.csv').collect()\n")
    cache = tmp_path / ".cache"
    args = ("check", job, "--select", "SPK101", "--output-format", "json", "--cache-dir", cache)
    assert json.loads(run(*args).out) == []
    with open(tmp_path / "data" / "orders.csv", "wb") as f:
        f.truncate(SMALL_BYTES + 1)
    assert [f["location"]["row"] for f in json.loads(run(*args).out)] == [4]
