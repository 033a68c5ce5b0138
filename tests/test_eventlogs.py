"""Event logs: every shared log loads (plain, gzip, zstd, rolling), cut-off logs, lz4; plan findings in them."""
import gzip
import json
import os
import shutil

import pytest

from conftest import SHARED_DATA
from linter.sources.eventlog import events, is_event_log, sql_plans

LOGS = os.path.join(SHARED_DATA, "eventlogs")
ALL = sorted(os.path.join(LOGS, n) for n in os.listdir(LOGS))


@pytest.mark.parametrize("path", ALL, ids=[os.path.basename(p) for p in ALL])
def test_every_shared_log_loads(path):
    assert is_event_log(path)
    count = sum(1 for _ in events(path))
    assert count > 10
    assert sql_plans(path), "every shared log has at least one SQL execution"


def test_rolling_directory_reads_all_parts_in_order():
    path = os.path.join(LOGS, "eventlog_v2_local-1623876083964")
    kinds = [e["Event"] for _, e in events(path)]
    assert kinds[0] == "SparkListenerLogStart" and kinds[-1].endswith("ApplicationEnd")


def test_cut_off_and_compressed_copies_read_the_same(tmp_path):
    import lz4.frame

    source = os.path.join(LOGS, "python_udf_eventlog")
    data = open(source, "rb").read()
    cut = tmp_path / "app.inprogress"
    cut_data = data[: len(data) - 200]  # a log still being written: its last line is cut mid-way
    assert not cut_data.endswith(b"\n")
    cut.write_bytes(cut_data)
    whole_lines = [line for line in cut_data.split(b"\n")[:-1] if line.strip()]
    assert [e for _, e in events(str(cut))] == [e for _, e in events(source)][: len(whole_lines)]
    (tmp_path / "app.lz4").write_bytes(lz4.frame.compress(data))
    (tmp_path / "app.gz").write_bytes(gzip.compress(data))
    for name in ("app.lz4", "app.gz"):
        assert [e for _, e in events(str(tmp_path / name))] == [e for _, e in events(source)]


def test_plan_command_on_event_logs(run):
    r = run("plan", LOGS, "--output-format", "concise")
    lines = r.out.splitlines()
    assert any("python_udf_eventlog:13:1: SPK601 SQL execution 0 (parquet at" in line for line in lines)
    assert any("dataset_eventlog:22:1: SPK603 SQL execution 1 (show at <console>:26): a typed Dataset filter" in line
               for line in lines)
    assert r.code == 1


def test_missing_compression_library_is_one_line(tmp_path, run, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_zstd(name, *args, **kwargs):
        if name == "zstandard":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    shutil.copy(os.path.join(LOGS, "aqeshuffle_eventlog.zstd"), tmp_path / "log.zstd")
    monkeypatch.setattr(builtins, "__import__", no_zstd)
    r = run("plan", tmp_path / "log.zstd")
    assert r.code == 2 and r.err.count("\n") == 1 and "needs `zstandard`" in r.err


@pytest.mark.parametrize("text, value", [
    ("1562.5 KiB", 1562.5 * 1024), ("2,033", 2033.0), ("0 ms", 0.0), ("1.2 s", 1200.0), ("8.0 EiB", 8.0 * 2 ** 60),
    ("total (min, med, max (stageId: taskId))\n268.0 B (134.0 B, 134.0 B, 134.0 B (stage 255.0: task 72))", 268.0),
    ("n/a", None),
])
def test_history_server_metric_values(text, value):
    from linter.sources.history import metric_value

    assert metric_value(text) == value


def test_history_server_tree_keeps_a_reused_exchange_where_it_stood():
    """A reused broadcast on the build (left) side stays the left child.

    The nodes and edges are what Spark's SparkPlanGraph makes of
    Union(BHJ BuildLeft(BroadcastExchange(a), b), BHJ BuildLeft(ReusedExchange, c)):
    ids and edges in the order it walks the plan, and no node for the reused
    exchange, only an edge from the original to its second user. Ordered by
    node id, the reused leaf used to come after `c`, swapping the join's sides.
    """
    from linter.sources.history import tree

    names = {0: "Union", 1: "BroadcastHashJoin", 2: "BroadcastExchange", 3: "Scan parquet a", 4: "Scan parquet b",
             5: "BroadcastHashJoin", 6: "Scan parquet c"}
    nodes = [{"nodeId": i, "nodeName": n, "desc": n, "metrics": []} for i, n in names.items()]
    nodes[2]["metrics"] = [{"name": "data size", "value": "1.5 MiB"}]
    edges = [{"fromId": c, "toId": p} for c, p in ((1, 0), (2, 1), (3, 2), (4, 1), (5, 0), (2, 5), (6, 5))]
    root = tree(nodes, edges)
    first, second = root.children
    assert [c.name for c in first.children] == ["BroadcastExchange", "FileScan"]
    assert [c.name for c in second.children] == ["ReusedExchange", "FileScan"]
    assert second.children[1].text == "Scan parquet c"
    assert second.children[0].metrics == {"data size": 1.5 * 2 ** 20}


def test_a_reused_exchange_is_a_leaf_with_the_originals_measured_size(tmp_path):
    """The log repeats the original exchange below a ReusedExchange; the tree ends there, as explain() and the
    History Server show it, and the leaf carries the original's measured size (what the reuse reads)."""
    def exchange():
        return {"nodeName": "Exchange", "simpleString": "Exchange hashpartitioning(k#1, 4)",
                "metrics": [{"name": "data size", "accumulatorId": 7, "metricType": "size"}],
                "children": [{"nodeName": "Range", "simpleString": "Range (0, 10, step=1, splits=2)",
                              "children": [], "metrics": []}]}

    plan = {"nodeName": "Union", "simpleString": "Union", "metrics": [], "children": [
        exchange(), {"nodeName": "ReusedExchange", "simpleString": "ReusedExchange [k#2], Exchange ...",
                     "metrics": [], "children": [exchange()]}]}
    events = [{"Event": "SparkListenerLogStart", "Spark Version": "4.3.0"},
              {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart", "executionId": 0,
               "description": "collect at job.py:3", "details": "", "physicalPlanDescription": "",
               "sparkPlanInfo": plan, "time": 1},
              {"Event": "SparkListenerTaskEnd", "Task Info": {"Accumulables": [
                  {"ID": 7, "Name": "data size", "Update": "2048"}]}}]
    log = tmp_path / "reuse.log"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    (plan,) = sql_plans(str(log))
    original, reused = plan.root.children
    assert [n.name for n in original.walk()] == ["Exchange", "Range"]
    assert reused.name == "ReusedExchange" and reused.children == []
    assert original.metrics == reused.metrics == {"data size": 2048.0}


def test_measured_metrics_are_joined_to_plan_nodes():
    """The AQE log's shuffles carry their measured sizes (task accumulator updates summed)."""
    plans = sql_plans(os.path.join(LOGS, "aqeshuffle_eventlog.zstd"))
    exchanges = [n for p in plans for n in p.root.walk() if n.name == "Exchange"]
    assert exchanges and all(n.metrics.get("data size", 0) > 0 for n in exchanges)
    assert all(isinstance(v, float) for n in exchanges for v in n.metrics.values())


def _one_execution_log(path, job):
    plan = {"nodeName": "CartesianProduct", "simpleString": "CartesianProduct", "children": [
        {"nodeName": "Range", "simpleString": "Range (0, 10, step=1, splits=2)", "children": [], "metrics": []},
        {"nodeName": "Range", "simpleString": "Range (0, 10, step=1, splits=2)", "children": [], "metrics": []}],
        "metrics": []}
    events = [{"Event": "SparkListenerLogStart", "Spark Version": "4.3.0"},
              {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart", "executionId": 0,
               "description": f"collect at {job}:3", "details": "", "physicalPlanDescription": "",
               "sparkPlanInfo": plan, "time": 1}]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))


def test_findings_land_on_the_call_site_unless_suppressed_there(tmp_path, run):
    job = tmp_path / "job.py"
    job.write_text("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                   "rows = spark.range(10).crossJoin(spark.range(10)).collect()\n")
    log = tmp_path / "app-1"
    _one_execution_log(log, job)
    r = run("plan", log, "--output-format", "json", cwd=tmp_path)
    found = json.loads(r.out)
    # one finding, at the job's line; the node's line in the log is its related location
    assert r.code == 1 and [(os.path.basename(f["filename"]), f["location"]["row"]) for f in found] == [("job.py", 3)]
    assert [(os.path.basename(r["filename"]), r["location"]["row"]) for r in found[0]["related"]] == [("app-1", 2)]
    job.write_text(job.read_text().replace(".collect()\n", ".collect()  # noqa: SPK602\n"))
    assert run("plan", log, "--output-format", "json", cwd=tmp_path).code == 0


def test_a_zstd_log_cut_off_reads_its_whole_blocks_and_junk_is_one_line(tmp_path, run):
    source = os.path.join(LOGS, "aqeshuffle_eventlog.zstd")
    data = open(source, "rb").read()
    cut = tmp_path / "app.zstd.inprogress"
    cut.write_bytes(data[: int(len(data) * 0.8)])
    read, whole = [e for _, e in events(str(cut))], [e for _, e in events(source)]
    assert 0 < len(read) < len(whole) and read == whole[: len(read)]
    junk = tmp_path / "junk.zstd"
    junk.write_bytes(bytes(range(256)) * 20)
    r = run("diagnose", junk)
    assert r.code == 2 and r.err.count("\n") == 1 and "not a readable zstd event log" in r.err


def test_a_call_site_from_another_machine_finds_the_file_in_this_checkout(tmp_path, run):
    job = tmp_path / "jobs" / "orders.py"
    job.parent.mkdir()
    job.write_text("from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
                   "rows = spark.range(10).crossJoin(spark.range(10)).collect()\n")
    log = tmp_path / "app-2"
    _one_execution_log(log, "/home/runner/work/etl/etl/jobs/orders.py")  # where CI ran it
    found = json.loads(run("plan", log, "--output-format", "json", cwd=tmp_path).out)
    assert [(os.path.relpath(f["filename"], tmp_path), f["location"]["row"]) for f in found
            if f["filename"].endswith(".py")] == [(os.path.join("jobs", "orders.py"), 3)]


@pytest.mark.parametrize("codec", ["snappy", "lz4"])
def test_compressed_logs_as_spark_writes_them(tmp_path, run, codec):
    """spark.eventLog.compression.codec=snappy|lz4 writes snappy-java's and lz4-java's own block streams
    (fixtures/logs/groupby_count.snappy and .lz4), not the snappy framing or LZ4 frame formats."""
    from conftest import ROOT

    source = os.path.join(ROOT, "fixtures", "logs", f"groupby_count.{codec}")
    whole = [e for _, e in events(source)]
    assert whole[0]["Event"] == "SparkListenerLogStart" and whole[-1]["Event"] == "SparkListenerApplicationEnd"
    assert sql_plans(source)
    data = open(source, "rb").read()
    cut = tmp_path / f"app.{codec}.inprogress"
    cut.write_bytes(data[: len(data) // 2])
    read = [e for _, e in events(str(cut))]
    assert 0 < len(read) < len(whole) and read == whole[: len(read)]
    junk = tmp_path / f"junk.{codec}"
    junk.write_bytes(b"not compressed at all" * 10)
    r = run("plan", junk)
    assert r.code == 2 and r.err.count("\n") == 1 and f"not a readable {codec} event log" in r.err
