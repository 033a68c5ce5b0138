"""SPK324 against what Spark does: the queries it reports fail at start or run on a throwaway checkpoint."""
import json

import pytest

JOB = '''\
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
events = spark.readStream.format("rate").option("rowsPerSecond", 1).load()
def to_file(path):
    return events.writeStream.format("parquet").option("path", path).start()
def upsert():
    return events.writeStream.foreachBatch(lambda batch, batch_id: None).start()
def kept(path, checkpoint):
    return events.writeStream.format("parquet").option("checkpointLocation", checkpoint).start(path)
def look():
    return events.writeStream.format("console").start()
'''


def test_the_queries_reported_are_those_spark_refuses_or_runs_without_a_kept_checkpoint(spark, tmp_path, run):
    job = tmp_path / "stream_job.py"
    job.write_text(JOB)
    r = run("check", str(job), "--select", "SPK324", "--output-format", "json", "--no-cache")
    assert sorted(f["location"]["row"] for f in json.loads(r.out)) == [5, 7]

    namespace = {}
    exec(compile(JOB, str(job), "exec"), namespace)
    with pytest.raises(Exception, match="checkpointLocation must be specified"):
        namespace["to_file"](str(tmp_path / "out"))
    query = namespace["upsert"]()  # starts: on a temporary checkpoint, deleted when it stops
    try:
        assert query.isActive
    finally:
        query.stop()
    for query in (namespace["kept"](str(tmp_path / "kept"), str(tmp_path / "chk")), namespace["look"]()):
        query.stop()
