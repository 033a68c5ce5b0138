"""Configuration rules that need a run's figures (SPK823, SPK824): read from the shared, real event logs."""
import json
import os

import pytest

from conftest import SHARED_DATA

LOGS = os.path.join(SHARED_DATA, "eventlogs")
# Spark 3.1.1, `spark.sql.shuffle.partitions` left alone: a 9.4 GiB shuffle read by 200 tasks (48 MiB each)
BIG_SHUFFLE = os.path.join(LOGS, "eventlog_v2_local-1623876083964")


def _findings(run, path, tmp_path, mib=None):
    config = tmp_path / "sparkcheck.toml"
    config.write_text(f"[SPK823]\nmax-partition-mib = {mib}\n" if mib else "")
    args = ("--config", str(config)) if mib else ()
    r = run("diagnose", path, "--select", "SPK823", "--output-format", "json", *args, cwd=tmp_path)
    assert r.code in (0, 1), r.err
    return [f for f in json.loads(r.out)["findings"] if f["code"] == "SPK823"]


def test_a_shuffle_too_big_for_the_default_count_is_reported_at_the_properties(run, tmp_path):
    found = _findings(run, BIG_SHUFFLE, tmp_path, mib=32)
    assert len(found) == 1
    message = found[0]["message"]
    assert "left at its default, 200" in message and "9.4 GiB" in message and "48 MiB per partition" in message
    assert found[0]["location"]["row"] == 5  # the SparkListenerEnvironmentUpdate event of the log
    assert "76" in found[0]["help"]  # 9.4 GiB at 128 MiB per partition


@pytest.mark.parametrize("name", sorted(os.listdir(LOGS)))
def test_no_shared_log_has_partitions_over_the_default_limit(run, tmp_path, name):
    assert _findings(run, os.path.join(LOGS, name), tmp_path) == []


def _with_properties(tmp_path, extra: dict) -> str:
    """A copy of the big-shuffle log (under tmp_path, for this test only) whose Spark Properties hold `extra`."""
    out_dir = tmp_path / "log"
    out_dir.mkdir(parents=True)
    import io

    import zstandard

    for name in sorted(os.listdir(BIG_SHUFFLE)):
        lines = []
        with open(os.path.join(BIG_SHUFFLE, name), "rb") as raw:
            data = raw.read()
        if name.endswith(".zstd"):
            data = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data)).read()
            name = name[: -len(".zstd")]
        for line in data.decode("utf-8").splitlines(keepends=True):
            if '"Event":"SparkListenerEnvironmentUpdate"' in line:
                event = json.loads(line)
                event["Spark Properties"].update(extra)
                line = json.dumps(event) + "\n"
            lines.append(line)
        (out_dir / name).write_text("".join(lines), encoding="utf-8")
    return str(out_dir)


def test_a_count_set_high_enough_is_quiet_and_one_set_too_low_is_reported_at_it(run, tmp_path):
    high = _with_properties(tmp_path / "a", {"spark.sql.shuffle.partitions": "2000"})
    assert _findings(run, high, tmp_path / "a", mib=32) == []
    low = _with_properties(tmp_path / "b", {"spark.sql.shuffle.partitions": "100"})
    found = _findings(run, low, tmp_path / "b", mib=32)
    assert len(found) == 1 and "`spark.sql.shuffle.partitions=100`" in found[0]["message"]


def test_with_aqe_the_initial_partition_number_is_the_count(run, tmp_path):
    log = _with_properties(tmp_path / "c", {"spark.sql.adaptive.enabled": "true",
                                            "spark.sql.adaptive.coalescePartitions.initialPartitionNum": "100"})
    found = _findings(run, log, tmp_path / "c", mib=32)
    assert len(found) == 1 and "initialPartitionNum=100" in found[0]["message"]


def _codes(run, path, tmp_path, code):
    r = run("diagnose", path, "--select", code, "--output-format", "json", cwd=tmp_path)
    assert r.code in (0, 1), r.err
    return [f for f in json.loads(r.out)["findings"] if f["code"] == code]


def test_a_scala_shell_run_of_rdd_jobs_on_java_serialization_is_reported(run, tmp_path):
    """dataset_eventlog: the Scala shell (org.apache.spark.repl.Main), 88% of task time in RDD jobs."""
    found = _codes(run, os.path.join(LOGS, "dataset_eventlog"), tmp_path, "SPK824")
    assert len(found) == 1 and "88% of its task time in RDD jobs" in found[0]["message"]


@pytest.mark.parametrize("name", ["python_udf_eventlog", "eventlog_v2_local-1623876083964"])
def test_pyspark_or_sql_runs_are_not_reported_for_the_serializer(run, tmp_path, name):
    # a PySpark job (pyspark-shell: Python pickles its records), a Scala shell that ran only SQL
    assert _codes(run, os.path.join(LOGS, name), tmp_path, "SPK824") == []
