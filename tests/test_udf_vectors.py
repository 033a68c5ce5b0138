"""SPK201 on a UDF that indexes an ML vector column: the built-in is vector_to_array, and no fix is offered."""

import json

CODE = """\
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import FloatType

spark = SparkSession.builder.getOrCreate()
get_p = F.udf(lambda v: float(v[1]), FloatType())
scored = spark.table("scored").withColumn("p", get_p("probability"))
pairs = spark.table("pairs").withColumn("second", get_p("items"))
"""


def test_a_udf_indexing_an_ml_vector_names_vector_to_array_and_offers_no_fix(tmp_path, run):
    job = tmp_path / "job.py"
    job.write_text(CODE)
    r = run("check", job, "--select", "SPK201", "--output-format", "json", "--no-cache")
    [finding] = json.loads(r.out)
    assert "vector_to_array" in finding["message"] and finding["fix"] is None
    run("check", job, "--select", "SPK201", "--fix", "--unsafe-fixes", "--no-cache")
    assert job.read_text() == CODE


def test_the_same_udf_on_an_array_column_names_getitem(tmp_path, run):
    job = tmp_path / "job.py"
    job.write_text(CODE.replace('scored = spark.table("scored").withColumn("p", get_p("probability"))\n', ""))
    r = run("check", job, "--select", "SPK201", "--output-format", "json", "--no-cache")
    [finding] = json.loads(r.out)
    assert "getItem" in finding["message"] and "vector_to_array" not in finding["message"]
