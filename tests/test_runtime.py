"""The runtime step end to end: TPC-H under `sparkcheck capture`, its plans in every mode, a History Server.

Two real runs of fixtures/runtime/tpch_job.py (local Spark, the 22 TPC-H
queries on ../shared/data/tpch): one with broadcast joins switched off
(spark.sql.autoBroadcastJoinThreshold=-1), one with Spark's defaults. With
broadcasts off, the small TPC-H tables are joined by sort-merge joins and
SPK604 must say so, from measured sizes (event log, History Server), AQE's
statistics (formatted final plans) and the optimizer's estimates (cost mode);
with the defaults it must not. The only other finding on TPC-H is q22's
`substring(c_phone, 1, 2) IN (...)`, which no file source can push down (the
static SQL rules report the same line: tests/test_tpch.py).
"""
import json
import os
import re
import socket
import subprocess
import sys
import time

import pytest

from conftest import ROOT, HistoryServer, run_process

pytestmark = pytest.mark.spark

JOB = os.path.join(ROOT, "fixtures", "runtime", "tpch_job.py")
MODES = ("initial_simple", "initial_extended", "initial_formatted", "initial_cost", "final_simple", "final_formatted")
# Queries whose joins are all between tables the tiny data set keeps under 10 MiB: every one has a join.
JOINS = ("q02", "q03", "q05", "q07", "q08", "q09", "q10", "q11", "q12", "q13", "q14", "q16", "q17", "q19", "q21")


def _capture(base, threshold):
    out, logs = base / "plans", base / "logs"
    env = {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    # the plan rules are what these runs are built to show; run rules judge timings this machine decides
    r = run_process("capture", "--select", "SPK6", "--output-format", "json", "--event-log-dir", logs, "--",
                    sys.executable, JOB, out, threshold, cwd=ROOT, env=env, timeout=600)
    assert r.code in (0, 1), r.err[-2000:]
    return json.loads(r.out)["findings"], out, logs


@pytest.fixture(scope="module")
def no_broadcast(tmp_path_factory):
    return _capture(tmp_path_factory.mktemp("tpch_off"), "-1")


@pytest.fixture(scope="module")
def defaults(tmp_path_factory):
    return _capture(tmp_path_factory.mktemp("tpch_default"), "10485760")


def _plan_codes(path):
    r = run_process("plan", path, "--output-format", "json")
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


def _places(finding) -> list:
    """Every file a finding names: where it is shown, and its related locations."""
    return [finding["filename"]] + [r["filename"] for r in finding["related"]]


def test_capture_reports_broadcastable_joins_at_the_jobs_line(no_broadcast):
    findings, _, logs = no_broadcast
    source = [f for f in findings if f["filename"].endswith("tpch_job.py") and f["code"] == "SPK604"]
    assert source, {f["code"] for f in findings}
    # one finding per join, shown at the job's line, with the node in the kept event log as a related location
    assert all(len(f["related"]) == 1 and "eventlog_v2_" in f["related"][0]["filename"] for f in source)
    shown = {(f["code"], f["message"].rsplit(" (plan node", 1)[0]) for f in source}
    assert not [f for f in findings if "eventlog_v2_" in f["filename"] and (f["code"], f["message"]) in shown]
    collect_line = next(i for i, line in enumerate(open(JOB, encoding="utf-8"), start=1) if "query.collect()" in line)
    assert {f["location"]["row"] for f in source} == {collect_line}
    assert all("measured data size of the shuffle" in f["message"] for f in source)
    assert any(name.startswith("eventlog_v2_") for name in os.listdir(logs))  # kept with --event-log-dir


@pytest.mark.parametrize("mode", ["final_formatted", "initial_cost"])
def test_every_join_query_has_the_finding_with_broadcasts_off(no_broadcast, mode):
    _, plans, _ = no_broadcast
    for query in JOINS:
        codes = [f["code"] for f in _plan_codes(plans / f"{query}_{mode}.txt")]
        assert "SPK604" in codes, (query, mode, codes)


def test_defaults_give_no_broadcast_finding_and_only_q22_is_reported(defaults):
    findings, plans, logs = defaults
    by_file = {}
    for f in _plan_codes(plans) + _plan_codes(logs):
        for place in _places(f):
            by_file.setdefault(os.path.basename(place), []).append(f)
    for name, found in by_file.items():
        assert all(f["code"] == "SPK603" and "substring(c_phone, 1, 2)" in f["message"] for f in found), found
        assert name.startswith(("q22_", "eventlog_v2_", "tpch_job.py")), name
    assert [f for f in findings if f["code"] != "SPK603"] == []


def test_every_mode_parses_into_its_plans_and_aqe_keeps_the_final_one(defaults):
    from linter.sources.plan import parse_plans

    _, plans, _ = defaults
    for number in range(1, 23):
        for mode in MODES:
            text = open(plans / f"q{number:02d}_{mode}.txt", encoding="utf-8").read()
            parsed = parse_plans(text)
            # the formatted mode prints each subquery's plan after the main one, under `Subquery:N`
            assert len(parsed) == 1 + len(re.findall(r"^Subquery:\d+ ", text, re.M)), (number, mode)
            root = parsed[0].root
            assert root.name == "AdaptiveSparkPlan", (number, mode)
            if mode.startswith("final"):
                assert root.initial is not None and root.children[0].section == "Final Plan", (number, mode)
                assert all(n.section != "Initial Plan" for n in root.walk())
            if mode == "initial_cost":
                assert parsed[0].logical is not None and parsed[0].logical.size is not None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _operators(root) -> list:
    """(depth, operator) in plan order, as the History Server's graph shows a plan.

    The graph has no node for AQE's query stages and ends a reused exchange at
    the reuse; an event log's plan has both wrappers and repeats the subtree.
    """
    out = []

    def visit(node, depth):
        if node.name.endswith("QueryStage"):
            for child in node.children:
                visit(child, depth)
            return
        out.append((depth, node.name))
        if node.name != "ReusedExchange":
            for child in node.children:
                visit(child, depth + 1)

    visit(root, 0)
    return out


def test_history_server_rest_api(no_broadcast, tmp_path):
    """The real History Server shipped in pyspark, on 127.0.0.1, over the run's event log."""
    _, _, logs = no_broadcast
    with HistoryServer(logs, tmp_path) as url:
        r = run_process("plan", url, "--output-format", "json", cwd=ROOT)
        assert r.code == 1, r.err
        found = json.loads(r.out)
        at_server = [f for f in found if any(p.startswith(f"{url}/history/") for p in _places(f))]
        joins = [f for f in at_server if f["code"] == "SPK604"]
        assert joins and all("measured data size of the shuffle" in f["message"] for f in joins)
        from_log = [f for f in _plan_codes(logs) if any(p.startswith(str(logs)) for p in _places(f))]
        # the same joins, whichever way the executions are read
        assert len(joins) == len([f for f in from_log if f["code"] == "SPK604"])
        app = next(p for p in _places(at_server[0]) if p.startswith(url)).rsplit("/", 1)[-1]
        assert run_process("plan", f"{url}/history/{app}", "--output-format", "json").code == 1
        # Every execution's tree, rebuilt from the server's nodes and edges, has the operators of the
        # log's plan in the same places (children in order, reused exchanges where they stood).
        from linter.sources import eventlog, history

        served = {p.execution: p.root for p in history.sql_plans(url, app)}
        logged = {p.execution: p.root for p in eventlog.sql_plans(str(next(logs.iterdir())))}
        assert served.keys() == logged.keys() and len(served) > 22
        assert any(n.name == "ReusedExchange" for root in served.values() for n in root.walk())
        for execution, root in served.items():
            assert _operators(root) == _operators(logged[execution]), execution
        # diagnose downloads the application's event log through the REST API and reads the whole run
        r = run_process("diagnose", f"{url}/history/{app}", "--output-format", "json", cwd=ROOT)
        assert r.code == 1, r.err
        report = json.loads(r.out)
        assert report["applications"][0]["name"] == "tpch-broadcast--1"
        assert report["applications"][0]["log"] == f"{url}/history/{app}"
        assert {f["code"] for f in report["findings"]} >= {"SPK604"}
        missing = run_process("plan", f"{url}/history/no-such-app")
        assert missing.code == 2 and missing.err.count("\n") == 1 and "404" in missing.err
    gone = run_process("plan", url)
    assert gone.code == 2 and "cannot reach the Spark History Server" in gone.err


def test_pytest_fixture_checks_a_plan(spark, sparkcheck_plan):
    """The `sparkcheck_plan` fixture the installed package registers with pytest."""
    from pyspark.sql import functions as F

    df = spark.range(1000).withColumn("k", F.col("id") % 10).groupBy("k").count()
    sparkcheck_plan.assert_clean(df)
    assert sparkcheck_plan.findings(df) == []
    udf = F.udf(lambda v: v + 1, "bigint")
    with pytest.raises(AssertionError, match="SPK601"):
        sparkcheck_plan.assert_clean(spark.range(10).select(udf("id")))


def test_python_api_asserts_a_dataframes_plan(spark):
    from pyspark.sql import functions as F

    from linter.api import assert_plan_clean, plan_findings

    big = spark.range(100000).withColumn("k", F.col("id") % 10)
    small = spark.range(10).withColumnRenamed("id", "k2")
    assert_plan_clean(big.join(small, big.k == small.k2))  # broadcast by Spark: nothing to say
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        joined = big.join(small, big.k == small.k2)
        assert [f.code for f in plan_findings(joined)] == ["SPK604"]
        with pytest.raises(AssertionError, match="SPK604 broadcastable-shuffle-join"):
            assert_plan_clean(joined)
        assert_plan_clean(joined, ignore=["SPK604"])
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


def test_capture_needs_a_command_and_reports_a_failing_job(tmp_path):
    r = run_process("capture")
    assert r.code == 2 and r.err.count("\n") == 1 and "after `--`" in r.err
    script = tmp_path / "nospark.py"
    script.write_text("print('no spark here')\n")
    r = run_process("capture", "--", sys.executable, script)
    assert r.code == 2 and "wrote no event log" in r.err
    r = run_process("capture", "--", "no-such-program-xyz")
    assert r.code == 2 and r.err.count("\n") == 1


CONNECT_JOB = '''from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.getOrCreate()
orders = spark.range(100_000).withColumn("customer", F.col("id") % 10)
customers = spark.range(10).withColumnRenamed("id", "customer_id")
print(orders.join(customers.hint("merge"), orders.customer == customers.customer_id).count())
print(orders.groupBy("customer").count().collect())
'''


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    """The real Spark Connect server shipped in the pyspark package, on 127.0.0.1."""
    import pyspark

    pytest.importorskip("grpc")
    home = os.path.dirname(pyspark.__file__)
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1"}
    log = open(tmp_path_factory.mktemp("connect") / "server.log", "w")
    server = subprocess.Popen(
        [os.path.join(home, "bin", "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
         "--master", "local[2]", "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1", "--conf", "spark.ui.enabled=false",
         "spark-internal"], env=env, stdout=log, stderr=log, start_new_session=True)
    try:
        deadline = time.time() + 120
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, "the Spark Connect server stopped"
            assert time.time() < deadline, "the Spark Connect server did not open its port"
            time.sleep(1)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=60)
        log.close()


def test_capture_against_spark_connect(connect_server, tmp_path):
    job = tmp_path / "connect_job.py"
    job.write_text(CONNECT_JOB)
    env = {"PYSPARK_PYTHON": sys.executable}
    r = run_process("capture", "--remote", connect_server, "--output-format", "json", "--", sys.executable, job,
                    cwd=tmp_path, env=env, timeout=300)
    assert r.code == 1, r.err[-3000:]
    found = json.loads(r.out)
    assert [(f["code"], os.path.basename(f["filename"]), f["location"]["row"]) for f in found] == \
        [("SPK604", "connect_job.py", 6)]
    assert "the optimizer's estimate" in found[0]["message"] and found[0]["message"].startswith("count at ")
    bad = run_process("capture", "--remote", "http://127.0.0.1:1", "--", sys.executable, job)
    assert bad.code == 2 and bad.err.count("\n") == 1 and "sc://host:port" in bad.err
