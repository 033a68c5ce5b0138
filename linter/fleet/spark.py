"""`sparkcheck fleet --on-spark`: the same per-application analysis, in Spark tasks.

The list of logs is split into partitions (`sc.parallelize(sources, n)`); each task runs
linter/fleet/analyse.py on its logs, reading them from where they are (a shared file system, the object
store, the History Server) and returns one (row, findings) pair per application: the report is built from
them exactly as from the process pool's. pyspark is imported here only: the static checker never needs it.

Executors need sparkcheck importable by their Python (install it where the executors' Python is, or ship it
with `--py-files`/`spark.submit.pyFiles`), and the fsspec extra for object stores.

`--parquet DIR` also writes two tables (docs/fleet.md gives their schema): DIR/applications, one row per
application, and DIR/findings, one row per finding.
"""

from __future__ import annotations

import math
import os
import sys

from linter.fleet.runner import FleetRun

APPLICATION_COLUMNS = (
    ("application", "string"), ("name", "string"), ("log", "string"), ("spark_version", "string"),
    ("start_ms", "bigint"), ("end_ms", "bigint"), ("duration_ms", "double"), ("complete", "boolean"),
    ("local_mode", "boolean"), ("executors", "int"), ("cores", "int"), ("allocated_core_ms", "double"),
    ("used_core_ms", "double"), ("wasted_core_ms", "double"), ("idle_core_ms", "double"),
    ("skew_core_ms", "double"), ("spill_core_ms", "double"), ("gc_core_ms", "double"),
    ("failed_core_ms", "double"), ("lost_core_ms", "double"), ("disk_spill_bytes", "double"),
    ("tasks", "bigint"), ("failed_tasks", "bigint"), ("readable", "boolean"), ("problem", "string"),
)
FINDING_COLUMNS = (
    ("application", "string"), ("log", "string"), ("code", "string"), ("name", "string"), ("severity", "string"),
    ("message", "string"), ("help", "string"), ("filename", "string"), ("row", "int"), ("column", "int"),
)


def _analyse_partition(config):
    def analyse_all(sources):
        from linter.fleet.analyse import analyse

        for source in sources:
            yield analyse(source, config)
    return analyse_all


def _schema(columns) -> str:
    return ", ".join(f"`{name}` {kind}" for name, kind in columns)


def application_record(row: dict) -> tuple:
    lost = row["lost_core_ms"]
    return (row["application"], row["name"], row["log"], row["spark_version"], row["start"], row["end"],
            float(row["duration_ms"]), row["complete"], row["local_mode"], row["executors"], row["cores"],
            float(row["allocated_core_ms"]), float(row["used_core_ms"]), float(row["wasted_core_ms"]),
            float(lost["idle"]), float(lost["skew"]), float(lost["spill"]), float(lost["gc"]), float(lost["failed"]),
            float(lost["lost"]), float(row["disk_spill_bytes"]), row["tasks"], row["failed_tasks"], row["readable"],
            row["problem"])


def finding_records(pair) -> list:
    row, findings = pair
    return [(row["application"], row["log"], f.code, f.name, f.severity, f.message, f.help, f.filename,
             f.location.row, f.location.column) for f in findings]


def run_on_spark(sources: list, config: tuple, master, partitions, parquet) -> FleetRun:
    from linter.command import UsageError

    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError("--on-spark needs pyspark (pip install 'sparkcheck[runtime]')") from None
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    owned = SparkContext._active_spark_context is None
    # the fleet's own report says what was read; Spark's console bar would interleave with it on stderr
    builder = SparkSession.builder.appName("sparkcheck-fleet").config("spark.ui.showConsoleProgress", "false")
    if master:
        builder = builder.master(master)
    elif owned and "spark.master" not in os.environ.get("SPARK_SUBMIT_OPTS", "") and "PYSPARK_SUBMIT_ARGS" not in os.environ:
        builder = builder.master("local[*]")
    spark = builder.getOrCreate()
    result = FleetRun(total=len(sources))
    try:
        # a few partitions per executor core balance uneven logs; past that, tasks of about 100 logs each
        cores = spark.sparkContext.defaultParallelism
        n = partitions or max(1, min(len(sources), max(4 * cores, math.ceil(len(sources) / 100))))
        analysed = spark.sparkContext.parallelize(sources, n).mapPartitions(_analyse_partition(config)).filter(
            lambda pair: pair is not None)
        if parquet:
            analysed = analysed.cache()
        try:
            for pair in analysed.collect():
                result.add(pair)
        except KeyboardInterrupt:
            spark.sparkContext.cancelAllJobs()
            result.interrupted = True
            return result
        if parquet:
            spark.createDataFrame(analysed.map(lambda pair: application_record(pair[0])),
                                  _schema(APPLICATION_COLUMNS)).write.mode("overwrite").parquet(
                os.path.join(parquet, "applications"))
            spark.createDataFrame(analysed.flatMap(finding_records), _schema(FINDING_COLUMNS)).write.mode(
                "overwrite").parquet(os.path.join(parquet, "findings"))
    finally:
        if owned:
            spark.stop()
    return result
