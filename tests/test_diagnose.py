"""Run diagnostics: what every shared event log must show, and real runs that provoke each diagnostic.

fixtures/runtime/diagnostics_job.py runs under `sparkcheck capture` twice on a
local SparkSession: `bad` provokes each diagnostic on its own line (marked
`# provokes: SPK7xx`), `good` does the same work well and must give nothing.
The limits tiny local data cannot reach are lowered in a configuration file,
as a user would for a small cluster.
"""
import json
import os
import re
import sys

import pytest

from conftest import ROOT, SHARED_DATA, run_process, write

LOGS = os.path.join(SHARED_DATA, "eventlogs")
JOB = os.path.join(ROOT, "fixtures", "runtime", "diagnostics_job.py")
LIMITS = """[SPK701]
min-seconds = 2.0
min-mib = 10.0
[SPK707]
max-tasks = 500
[SPK710]
max-mib = 3.0
"""

# What each shared log must show (code, where), and nothing else.
SHARED = {
    "eventlog_3nodes_12cores_exec_removed": {("SPK704", "worker lost"), ("SPK609", "count at QualificationInfoUtils")},
    "python_udf_eventlog": {("SPK601", "BatchEvalPython")},
    "dataset_eventlog": {("SPK603", "typed Dataset filter"), ("SPK824", "88% of its task time in RDD jobs")},
    "aqeshuffle_eventlog.zstd": {("SPK703", "stage 4.0"), ("SPK702", "executor driver")},
    "eventlog-2021-06-15--15-00.gz": {("SPK609", "count at <console>:28"), ("SPK702", "stage 2.0")},
    "eventlog_v2_local-1623876083964": {("SPK609", "count at <console>:28")},
    "eventlog_minimal_events": set(),
}


def _diagnose(*args, cwd=None):
    r = run_process("diagnose", *args, "--output-format", "json", cwd=cwd)
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


@pytest.mark.parametrize("name", sorted(SHARED))
def test_every_shared_log_gives_its_report(name):
    report = _diagnose(os.path.join(LOGS, name))
    (app,) = report["applications"]
    assert app["application"] and app["worst_stages"] and app["tasks"] > 0
    found = {(f["code"], f["message"]) for f in report["findings"]}
    for code, text in SHARED[name]:
        assert any(c == code and text in m for c, m in found), (code, text, found)
    assert {c for c, _ in found} == {c for c, _ in SHARED[name]}, found


def test_removed_executor_is_in_the_summary(run):
    r = run("diagnose", os.path.join(LOGS, "eventlog_3nodes_12cores_exec_removed"))
    assert r.code == 1
    head = r.out.split("\n\n")[0]
    assert "3 executors / 36 cores" in head and "executor 1 (10.59.184.228) removed: worker lost" in head
    assert re.search(r"^\s+0\.0\s+12\s", head, re.M)  # the stage table: stage 0.0 ran 12 tasks


def test_diagnose_errors_are_one_line(tmp_path):
    for args in (["missing-log"], [str(tmp_path)]):
        r = run_process("diagnose", *args)
        assert r.code == 2 and r.err.count("\n") == 1, r.err


def _markers(mode="bad"):
    """(code, line) of the `# provokes:` comments in the job's `mode` scenario."""
    out = set()
    text = open(JOB, encoding="utf-8").read()
    start = text.index("def lost(") if mode == "lost" else text.index("    if mode == \"bad\":")
    end = text.index("def main(") if mode == "lost" else len(text)
    first = text[:start].count("\n") + 1
    for number, line in enumerate(text[start:end].split("\n"), start=first):
        m = re.search(r"# provokes: ([A-Z0-9, ]+?)(?:\s+#|$)", line.rstrip())
        if m:
            out.update((c.strip(), number) for c in m.group(1).split(","))
    return out


def _capture(mode, tmp_path, select, lowered=True):
    """Capture the job's scenario with the rules `select` names; `lowered` applies LIMITS (the defaults otherwise)."""
    config = ["--config", write(tmp_path / "limits.toml", LIMITS)] if lowered else []
    env = {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    r = run_process("capture", *config, "--select", ",".join(sorted(select)), "--output-format", "json", "--",
                    sys.executable, JOB, mode, tmp_path / "out", cwd=tmp_path, env=env, timeout=600)
    assert r.code in (0, 1), r.err[-3000:]
    return json.loads(r.out)


def _timing_driven(finding) -> bool:
    """A finding that a slow or loaded machine can add to any job: its time, not its data, decides it.

    A straggler in time alone (SPK701 without data skew), a GC share (SPK702), idle cores (SPK706, never on the
    local-mode runs here), and a stage of fewer tasks than cores that ran over 30 s (SPK707's first case)."""
    code, message = finding["code"], finding["message"]
    return (code == "SPK701" and "data skew" not in message) or code in ("SPK702", "SPK706") or \
        (code == "SPK707" and "cores idle" in message)


@pytest.mark.spark
def test_a_bad_job_gets_each_diagnostic_at_its_line(tmp_path):
    want = _markers()
    report = _capture("bad", tmp_path, {code for code, _ in want})
    at_job = {(f["code"], f["location"]["row"]) for f in report["findings"] if f["filename"] == JOB}
    assert want <= at_job
    # Beyond what the job was built to show, only what the machine's speed decides may come on top.
    untimed = [f for f in report["findings"] if not _timing_driven(f)]
    assert {(f["code"], f["location"]["row"]) for f in untimed} <= want
    assert all(f["filename"] == JOB and not f["related"] for f in untimed)  # the temporary log is not reported
    hot = [f for f in report["findings"] if f["code"] == "SPK701" and "data skew" in f["message"]]
    assert len(hot) == 1 and "one task read" in hot[0]["message"]
    failed = next(f for f in report["findings"] if f["code"] == "SPK705")
    assert "ValueError: bad record on the first attempt" in failed["message"]
    (app,) = report["applications"]
    assert app["name"] == "diagnostics-bad" and app["failed_tasks"] == 1


@pytest.mark.spark
def test_a_lost_executor_is_found_at_the_line_that_ran_on_it(tmp_path):
    """local-cluster mode: two executor JVMs; the first task kills its own (SIGKILL, exit code 137)."""
    report = _capture("lost", tmp_path, {"SPK704"}, lowered=False)  # the rule under test, alone
    at_job = {(f["code"], f["location"]["row"]) for f in report["findings"] if f["filename"] == JOB}
    assert at_job == _markers("lost") and len(report["findings"]) == 1
    lost = report["findings"][0]
    assert "Command exited with code 137" in lost["message"] and "memory" in lost["help"]
    (app,) = report["applications"]
    assert app["executors_removed"] and app["executors"] == 2


@pytest.mark.spark
def test_a_well_behaved_job_gets_none(tmp_path):
    # With the default limits, and the rules the bad job trips with its data: spill, failed tasks, tiny tasks,
    # small files, large results, skewed data, sort-merge joins of small tables. A straggler in time alone, GC
    # share and idle cores depend on the machine, not on the job: they are not what this job can show.
    select = {code for code, _ in _markers()}
    report = _capture("good", tmp_path, select, lowered=False)
    assert [f for f in report["findings"] if not _timing_driven(f)] == []
    assert report["applications"][0]["tasks"] > 0


@pytest.mark.parametrize("reason, signature", [
    ({"Reason": "ExceptionFailure", "Class Name": "java.lang.OutOfMemoryError", "Description": "Java heap space"},
     "java.lang.OutOfMemoryError"),
    ({"Reason": "ExecutorLostFailure", "Executor ID": "7", "Exit Caused By App": True,
      "Loss Reason": "Container killed by YARN for exceeding physical memory limits. 9.1 GB of 9 GB physical "
                     "memory used. Consider boosting spark.executor.memoryOverhead."},
     "container killed for exceeding memory limits"),
    ({"Reason": "ExecutorLostFailure", "Loss Reason": "Command exited with code 137"},
     "executor killed (exit code 137: out of memory, SIGKILL)"),
    ({"Reason": "ExecutorLostFailure", "Loss Reason": "Executor heartbeat timed out after 121000 ms"},
     "executor heartbeat timed out"),
    ({"Reason": "FetchFailed", "Message": "org.apache.spark.shuffle.MetadataFetchFailedException: Missing an "
                                          "output location for shuffle 3"}, "FetchFailed (shuffle data lost)"),
    ({"Reason": "ExceptionFailure", "Class Name": "java.io.IOException", "Description": "No space left on device"},
     "No space left on device"),
    ({"Reason": "ExceptionFailure", "Class Name": "org.apache.spark.SparkException",
      "Description": "Total size of serialized results of 12 tasks (1034.2 MiB) is bigger than "
                     "spark.driver.maxResultSize (1024.0 MiB)"}, "results over spark.driver.maxResultSize"),
    ({"Reason": "ExceptionFailure", "Class Name": "java.io.NotSerializableException", "Description": "x"},
     "serialization error"),
    ({"Reason": "ExceptionFailure", "Class Name": "java.lang.IllegalStateException", "Description": "boom"},
     "java.lang.IllegalStateException"),
    ({"Reason": "ExecutorLostFailure", "Loss Reason": "Remote RPC client disassociated. exit code: 52"},
     "ExecutorLostFailure (exit code 52)"),
])
def test_failures_are_grouped_by_the_causes_the_guides_name(reason, signature):
    from linter.sources.app import failure_signature

    assert failure_signature(reason)[0] == signature


def test_the_kept_log_of_the_bad_job_reads_the_same_without_spark():
    """fixtures/logs/diagnostics_bad is the bad job's event log as Spark 4.3 wrote it (a renamed rolling folder);
    its call sites name the job where it ran, and land on the job in this checkout."""
    report = _diagnose(os.path.join(ROOT, "fixtures", "logs", "diagnostics_bad"), cwd=ROOT)
    (app,) = report["applications"]
    assert app["name"] == "diagnostics-bad"
    at_job = {(f["code"], f["location"]["row"]) for f in report["findings"]
              if f["filename"].endswith(os.path.join("fixtures", "runtime", "diagnostics_job.py"))}
    assert at_job == _markers()
