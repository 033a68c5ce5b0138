"""`sparkcheck fleet`: every application under a tree, a History Server or an S3 bucket, ranked by waste.

Real inputs: the shared event logs (copied under new application ids into temporary folders, a moto S3
server or a History Server's log directory, never into the project), small logs built with the run rules'
own example builder (checks/run/_log.py) where a figure must be known to the millisecond, and real servers
started here on 127.0.0.1: the History Server of the pyspark package, moto's S3 server, a Spark
local-cluster for --on-spark.
"""

import csv
import gzip
import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from conftest import ROOT, SHARED_DATA, HistoryServer, free_port, run_process

from checks.run._log import _render, task

LOGS = os.path.join(SHARED_DATA, "eventlogs")
MIB = 1 << 20


def relabel(lines, app_id, name=None, shift_ms=0):
    """An event log's lines with a new application id (and name), every timestamp moved by `shift_ms`."""
    times = ("Timestamp", "Launch Time", "Finish Time", "Submission Time", "Completion Time", "time")
    for line in lines:
        if not line.strip():
            continue
        event = json.loads(line)
        kind = event.get("Event", "")
        if kind == "SparkListenerApplicationStart":
            event["App ID"] = app_id
            if name is not None:
                event["App Name"] = name
        if shift_ms:
            for holder in (event, event.get("Task Info") or {}, event.get("Stage Info") or {}):
                for key in times:
                    if isinstance(holder.get(key), int):
                        holder[key] += shift_ms
        yield json.dumps(event, separators=(",", ":")) + "\n"  # as Spark writes it: readers match the prefix


def shared_log_lines(path):
    """The decompressed lines of one shared log (a file or a rolling folder), read with sparkcheck's reader."""
    from linter.sources.eventlog import _lines

    return [text for _, text in _lines(path)]


def encode(text: str, suffix: str) -> bytes:
    data = text.encode()
    if suffix == ".gz":
        return gzip.compress(data)
    if suffix == ".zstd":
        import zstandard

        return zstandard.ZstdCompressor().compress(data)
    return data


def synthetic(name="example", app_id="app-1", duration_ms=100_000, shift_ms=0, spill=0):
    """A run whose figures are known: 2 executors x 4 cores for 100 s, failures, a straggler, a spill."""
    stages = [
        ("count at job.py:7", [task(duration=10_000, gc=2_000, executor=str(1 + i % 2)) for i in range(4)]
         + [task(duration=5_000, failed={"Reason": "ExceptionFailure", "Class Name": "java.lang.RuntimeException",
                                         "Description": "boom"}),
            task(duration=3_000, executor="2", failed={"Reason": "ExecutorLostFailure", "Loss Reason": "heartbeat"})]),
        ("save at job.py:9", [task(duration=1_000) for _ in range(3)] + [task(duration=20_000, executor="2")]),
        ("join at job.py:12", [task(duration=4_000, disk_spill=spill) for _ in range(2)]),
    ]
    text = _render(stages, executors=(("1", 4), ("2", 4)), duration_ms=duration_ms)
    return "".join(relabel(text.splitlines(), app_id, name, shift_ms))


def fleet_json(*args, cwd=ROOT, env=None):
    r = run_process("fleet", *args, "--output-format", "json", cwd=cwd, env=env)
    assert r.code in (0, 1), r.err
    return r, json.loads(r.out)


def test_figures_of_a_run_are_the_rules_figures(tmp_path):
    """Each cause's core time, from a log whose tasks are known (linter/fleet/__init__.py says how)."""
    (tmp_path / "app-1").write_text(synthetic(spill=100 * MIB))
    r, report = fleet_json(tmp_path, "-j", "1")
    assert r.code == 0, r.err  # everything read: the run's own findings do not fail a fleet run
    (app,) = report["applications"]
    assert app["allocated_core_ms"] == 2 * 4 * 100_000
    assert app["used_core_ms"] == 4 * 10_000 + 3 * 1_000 + 20_000 + 2 * 4_000
    lost = app["lost_core_ms"]
    assert lost["failed"] == 5_000 and lost["lost"] == 3_000 and lost["gc"] == 4 * 2_000
    assert lost["skew"] == (20_000 - 1_000) * (4 - 1)  # straggler past the median x the other 3 slots
    assert lost["spill"] == 2 * 200 * MIB / (100 * MIB) * 1000  # 200 MiB written and read back at 100 MiB/s
    assert lost["idle"] == 800_000 - 71_000 - 5_000 - 3_000 - 57_000
    assert app["wasted_core_ms"] == sum(lost.values())
    codes = {f["code"] for f in report["findings"]}
    assert {"SPK701", "SPK703", "SPK704", "SPK705", "SPK706"} <= codes
    assert app["findings"]["SPK705"] == 1 and report["not_read"] == []


def test_recurring_job_slower_and_spilling_named(tmp_path, run):
    day = 86_400_000
    for i, (minutes, spill) in enumerate([(10, 0), (11, 0), (10.5, 0), (30, 0), (10, 300 * MIB), (14, 0)]):
        (tmp_path / f"app-{i}").write_text(synthetic("nightly-etl", f"app-{i}", int(minutes * 60_000), i * day,
                                                     spill))
    (tmp_path / "app-other").write_text(synthetic("one-off", "app-other", shift_ms=9 * day))
    _, report = fleet_json(tmp_path, "-j", "2")
    (job,) = report["recurring"]
    assert job["job"] == "nightly-etl" and [r["application"] for r in job["runs"]] == [f"app-{i}" for i in range(6)]
    named = {(g["application"], g["kind"]) for g in job["regressions"]}
    # 30 min against a median of 10.5; 14 min is under twice the median of the five before it
    assert named == {("app-3", "slower"), ("app-4", "spill")}
    text = run_process("fleet", tmp_path, cwd=ROOT).out
    assert "nightly-etl: app-3 2.9x slower than the median of its 3 previous run(s)" in text
    assert "nightly-etl: app-4 started to spill: 600.0 MiB to disk" in text
    # --since/--until on a tree: by application start (the runs start 2023-11-14 22:13 UTC, one a day)
    window = json.loads(run("fleet", tmp_path, "-j", "1", "--since", "2023-11-17", "--until", "2023-11-19",
                            "--output-format", "json").out)
    assert sorted(a["application"] for a in window["applications"]) == ["app-3", "app-4"]
    assert {f["filename"] for f in window["findings"]} == {str(tmp_path / "app-3"), str(tmp_path / "app-4")}
    # a log last written before the window opens is not even read
    old = tmp_path / "app-0"
    os.utime(old, (0, 0))
    assert run("fleet", tmp_path, "-j", "1", "--since", "2000-01-01", "--output-format", "json").code == 0
    later = json.loads(run("fleet", tmp_path, "-j", "1", "--since", "2000-01-01", "--output-format", "json").out)
    assert "app-0" not in {a["application"] for a in later["applications"]} and len(later["applications"]) == 6


FAST = ("aqeshuffle_eventlog.zstd", "dataset_eventlog", "eventlog_3nodes_12cores_exec_removed",
        "eventlog_minimal_events", "python_udf_eventlog")  # read in milliseconds each (no rolling, no .gz)


def _fleet_tree(root, copies=1, names=None):
    """The shared logs (all seven by default, rolling folder included) under new ids, compressed as they were."""
    n = 0
    for name in names or sorted(os.listdir(LOGS)):
        lines = shared_log_lines(os.path.join(LOGS, name))
        suffix = ".gz" if name.endswith(".gz") else ".zstd" if name.endswith(".zstd") else ""
        for c in range(copies):
            app_id = f"app-2026{n:06d}"
            data = encode("".join(relabel(lines, app_id)), suffix or (".zstd" if name.startswith("eventlog_v2") else ""))
            if name.startswith("eventlog_v2"):
                folder = root / f"eventlog_v2_{app_id}"
                folder.mkdir(parents=True)
                (folder / f"events_1_{app_id}.zstd").write_bytes(data)
            else:
                (root / f"{app_id}{suffix}").write_bytes(data)
            n += 1
    return n


def test_faults_are_findings_and_the_rest_is_read(tmp_path, run):
    tree = tmp_path / "logs"
    (tree / "2026" / "11").mkdir(parents=True)
    good = _fleet_tree(tree / "2026" / "11", names=FAST)
    whole = (tree / "2026" / "11" / "app-2026000004").read_text()
    cut = whole.index('"SparkListenerTaskEnd"', whole.index('"SparkListenerTaskEnd"') + 1) + 100
    (tree / "app-cut").write_text(whole[:cut])  # cut inside its second task's line, no application end
    (tree / "app-bad.zstd").write_bytes(os.urandom(4096))  # not zstd at all
    (tree / "app-empty").write_bytes(b"\x00\x01garbage, not an event")
    (tree / "app-live.inprogress").write_text(whole[:cut])  # the same, still being written: no fault
    r1, one = fleet_json(tree, "-j", "1")
    r2, two = fleet_json(tree, "-j", "2")
    assert r1.code == r2.code == 1 and r1.err == ""  # not a terminal: no progress, nothing else on stderr
    assert one == two  # the pool gives the same report as one process
    assert len(one["applications"]) == good + 4
    problems = {os.path.basename(m["source"]): m["problem"] for m in one["not_read"]}
    # the shared log without an application end (copy 2) is read up to its last event, and named
    assert set(problems) == {"app-cut", "app-bad.zstd", "app-empty", "app-2026000002"}
    assert "not a readable zstd event log" in problems["app-bad.zstd"]
    assert "no Spark event in it" in problems["app-empty"]
    assert "ends before the application's end" in problems["app-cut"]
    spk001 = [f for f in one["findings"] if f["code"] == "SPK001"]
    assert len(spk001) == len(problems)  # one finding per log that could not be read whole
    live = next(a for a in one["applications"] if a["log"].endswith("app-live.inprogress"))
    assert live["readable"] and not live["problem"] and live["tasks"] > 0
    assert [a["rank"] for a in one["applications"]] == list(range(1, good + 5))
    wasted = [a["wasted_core_ms"] for a in one["applications"]]
    assert wasted == sorted(wasted, reverse=True)
    # CSV and HTML carry the same ranking (in this process: `run` calls the CLI's main)
    rows = list(csv.DictReader(io.StringIO(run("fleet", tree, "-j", "1", "--output-format", "csv").out)))
    assert [r["application"] for r in rows] == [a["application"] for a in one["applications"]]
    assert float(rows[0]["wasted_core_hours"]) == pytest.approx(one["applications"][0]["wasted_core_ms"] / 3.6e6,
                                                                abs=1e-4)
    page = run("fleet", tree, "-j", "1", "--output-format", "html", "-o", tmp_path / "fleet.html")
    assert page.code == 1
    html = (tmp_path / "fleet.html").read_text()
    assert html.count("<svg") >= 2 and 'aria-label="waste by cause"' in html and "src=" not in html
    assert "app-bad.zstd" in html and "<script" not in html
    # everything readable: exit 0; bad flags and inputs: one line, exit 2
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "app-1").write_text(synthetic())
    assert run("fleet", clean, "-j", "1").code == 0
    for bad in (["fleet", tmp_path / "nothing-here"], ["fleet", clean, "--since", "last tuesday"],
                ["fleet", clean, "--parquet", tmp_path / "t"], ["fleet", clean, "--jobs", "0"]):
        r = run(*bad)
        assert r.code == 2 and r.err.count("\n") == 1 and r.out == "", (bad, r.err)


def test_progress_on_a_terminal_and_ctrl_c_writes_the_partial_report(tmp_path):
    """stderr a pseudo-terminal: the bar is drawn; Ctrl-C to the process group stops it with the report written."""
    tree = tmp_path / "logs"
    tree.mkdir()
    rolling = os.path.join(LOGS, "eventlog_v2_local-1623876083964")
    for i in range(60):
        os.symlink(rolling, tree / f"eventlog_v2_local-{i:04d}")
    out = tmp_path / "partial.json"
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "linter", "fleet", str(tree), "-j", "2", "--output-format",
                                "json", "-o", str(out)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=follower,
                               env={**os.environ, "PYTHONPATH": ROOT}, start_new_session=True,
                               # a suite started in the background inherits SIGINT ignored: give the child the default
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(follower)
    seen = b""
    deadline = time.time() + 60
    while b" apps, " not in seen or b"/60 apps" not in seen:
        assert time.time() < deadline and process.poll() is None, seen
        if select.select([leader], [], [], 0.5)[0]:
            seen += os.read(leader, 4096)
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=60) == 1
    try:
        while select.select([leader], [], [], 0.2)[0]:
            seen += os.read(leader, 4096)
    except OSError:
        pass
    os.close(leader)
    text = seen.decode(errors="replace")
    assert "MiB/s" in text and "left" in text and "interrupted:" in text
    report = json.loads(out.read_text())
    assert report["interrupted"] and 0 < len(report["applications"]) < 60
    assert report["not_started"] == 60 - len(report["applications"])
    assert "Traceback" not in text


class _Flaky(BaseHTTPRequestHandler):
    """Answers 503 to the first two requests of each path, then forwards to the History Server."""

    upstream = ""
    failures: ClassVar[dict] = {}

    def do_GET(self):
        import urllib.request

        count = self.failures.get(self.path, 0)
        if count < 2:
            self.failures[self.path] = count + 1
            self.send_response(503)
            self.end_headers()
            return
        with urllib.request.urlopen(self.upstream + self.path, timeout=30) as response:
            data = response.read()
            self.send_response(200)
            self.send_header("Content-Type", response.headers.get("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.mark.spark
def test_history_server_window_pages_and_retries(tmp_path):
    logs = tmp_path / "history"
    logs.mkdir()
    year = 365 * 86_400_000
    # three runs in 2023 (from the shared UDF log), two in 2020, moved in time as a whole
    source = shared_log_lines(os.path.join(LOGS, "python_udf_eventlog"))
    start = json.loads(next(line for line in source if "ApplicationStart" in line))["Timestamp"]
    for i, when in enumerate([2023, 2023, 2023, 2020, 2020]):
        shift = (when - 2026) * year + i * 3_600_000
        (logs / f"app-hs-{i}").write_text("".join(relabel(source, f"app-hs-{i}", "udf-job", shift)))
    with HistoryServer(logs, tmp_path, apps=5) as url:
        from linter.fleet.sources import history_sources, parse_when

        in_2023 = parse_when("2022-06-01"), parse_when("2024-01-01")
        paged = history_sources(url, *in_2023, page=2)  # three applications over two pages
        assert sorted(s.app_id for s in paged) == ["app-hs-0", "app-hs-1", "app-hs-2"]
        assert len(history_sources(url, None, None, page=2)) == 5
        r, report = fleet_json(url, "--since", "2022-06-01", "--until", "2024-01-01")
        assert r.code == 0, r.err
        assert sorted(a["application"] for a in report["applications"]) == ["app-hs-0", "app-hs-1", "app-hs-2"]
        assert all(a["log"] == f"{url}/history/{a['application']}" for a in report["applications"])
        assert {a["name"] for a in report["applications"]} == {"udf-job"}
        assert abs(report["applications"][0]["start"] - (start + (2023 - 2026) * year)) < 3 * 3_600_000
        # a server that answers 503 twice per request: retried with backoff, the same report
        _Flaky.upstream = url
        proxy = ThreadingHTTPServer(("127.0.0.1", free_port()), _Flaky)
        thread = threading.Thread(target=proxy.serve_forever, daemon=True)
        thread.start()
        try:
            flaky = f"http://127.0.0.1:{proxy.server_port}"
            r, retried = fleet_json(flaky, "--since", "2022-06-01", "--until", "2024-01-01", "-j", "1")
            assert r.code == 0, r.err
            assert [a["wasted_core_ms"] for a in retried["applications"]] == \
                [a["wasted_core_ms"] for a in report["applications"]]
            missing = run_process("fleet", f"{url}/history/no-such-app", "--output-format", "json")
            assert missing.code == 1 and "404" in json.loads(missing.out)["not_read"][0]["problem"]
        finally:
            proxy.shutdown()


@pytest.fixture(scope="module")
def s3_server():
    """moto's S3 server on 127.0.0.1; credentials and endpoint as every AWS client reads them: the environment."""
    server_module = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    port = free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    yield env
    server.stop()


def test_s3_bucket_of_213_logs(s3_server, tmp_path):
    """200+ applications in a bucket (the shared logs under new ids, logs of the tests' small jobs, corrupt and
    cut-off ones among them), read
    through s3fs as they would be from AWS, give the report the same files give from a local folder."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=s3_server["AWS_ENDPOINT_URL"], region_name="us-east-1",
                      aws_access_key_id="testing", aws_secret_access_key="testing")
    s3.create_bucket(Bucket="spark-logs")
    local = tmp_path / "local"
    local.mkdir()
    plan = [(name, 1) for name in sorted(os.listdir(LOGS))] + [(name, 40) for name in FAST]
    n = 0
    cut_off = set()

    def put(key, data):
        s3.put_object(Bucket="spark-logs", Key=f"prod/2026/{key}", Body=data)
        (local / key).parent.mkdir(parents=True, exist_ok=True)
        (local / key).write_bytes(data)

    for name, copies in plan:
        lines = shared_log_lines(os.path.join(LOGS, name))
        suffix = ".gz" if name.endswith(".gz") else ".zstd" if name.endswith(".zstd") else ""
        for _ in range(copies):
            app_id = f"application_1764000000000_{n:04d}"
            text = "".join(relabel(lines, app_id))
            if name.startswith("eventlog_v2"):
                put(f"eventlog_v2_{app_id}/events_1_{app_id}.zstd", encode(text, ".zstd"))
                put(f"eventlog_v2_{app_id}/appstatus_{app_id}", b"")
            else:
                put(app_id + suffix, encode(text, suffix))
            if name in ("eventlog-2021-06-15--15-00.gz", "eventlog_3nodes_12cores_exec_removed"):
                cut_off.add(app_id + suffix)  # the shared log itself has no application end
            n += 1
    # logs of small jobs the tests ran (fixtures/logs), as Spark wrote them: a renamed rolling folder, lz4, snappy
    kept = os.path.join(ROOT, "fixtures", "logs")
    for name in os.listdir(os.path.join(kept, "diagnostics_bad")):
        with open(os.path.join(kept, "diagnostics_bad", name), "rb") as f:
            put(f"team-b/diagnostics_bad/{name}", f.read())
    for name in ("groupby_count.lz4", "groupby_count.snappy"):
        with open(os.path.join(kept, name), "rb") as f:
            put(f"team-b/{name}", f.read())
    whole = encode("".join(relabel(shared_log_lines(os.path.join(LOGS, "dataset_eventlog")), "app-cut")), ".gz")
    put("app-cut.gz", whole[: len(whole) // 2])  # a gzip stream cut in half
    put("app-corrupt.zstd", os.urandom(2048))
    put("app-notalog", b"PK\x03\x04 a zip, not an event log")
    assert n == 207
    r, report = fleet_json("s3://spark-logs/prod/", "-j", "2", env=s3_server)
    assert r.code == 1, r.err
    apps = report["applications"]
    assert len(apps) == 213
    assert len({a["application"] for a in apps if a["application"]}) == 210
    assert all(a["log"].startswith("s3://spark-logs/prod/2026/") for a in apps)
    problems = {m["source"].rsplit("/", 1)[-1]: m["problem"] for m in report["not_read"]}
    assert set(problems) == cut_off | {"app-cut.gz", "app-corrupt.zstd", "app-notalog"}
    assert "not a readable zstd event log" in problems["app-corrupt.zstd"]
    rolling = next(a for a in apps if "eventlog_v2_" in a["log"])
    assert rolling["tasks"] > 2000 and rolling["readable"]
    renamed = next(a for a in apps if a["log"].endswith("/team-b/diagnostics_bad"))
    assert renamed["name"] == "diagnostics-bad" and "SPK705" in renamed["findings"]  # the job fails tasks
    assert {a["name"] for a in apps if a["log"].endswith(("count.lz4", "count.snappy"))} == {"pyspark-shell"}
    # the same files from a local folder: the same figures and findings, application by application
    _, there = fleet_json(local, "-j", "2")

    def figures(doc):
        return sorted((a["application"], a["wasted_core_ms"], a["allocated_core_ms"], a["tasks"],
                       tuple(sorted(a.get("findings", {}).items())), a["readable"]) for a in doc["applications"])

    assert figures(there) == figures(report)
    missing = run_process("fleet", "s3://no-such-bucket-here/", env=s3_server)
    assert missing.code == 2 and missing.err.count("\n") == 1


@pytest.mark.spark
def test_on_spark_local_cluster_gives_the_same_report_and_parquet_tables(tmp_path):
    """--on-spark on the pyspark package's local-cluster (2 workers, each its own executor JVM and Python)."""
    import pyarrow.parquet as pq

    tree = tmp_path / "logs"
    tree.mkdir()
    _fleet_tree(tree)
    (tree / "app-synthetic").write_text(synthetic(spill=100 * MIB))
    (tree / "app-corrupt.zstd").write_bytes(os.urandom(1024))
    r1, alone = fleet_json(tree, "-j", "2")
    out = tmp_path / "tables"
    r2 = run_process("fleet", tree, "--on-spark", "--master", "local-cluster[2,1,1024]", "--parquet", out,
                     "--output-format", "json", "-o", tmp_path / "spark.json", timeout=300)
    assert r1.code == r2.code == 1, r2.err
    on_spark = json.loads((tmp_path / "spark.json").read_text())
    assert on_spark == alone
    apps = pq.read_table(out / "applications").to_pylist()
    assert sorted(a["application"] for a in apps) == sorted(a["application"] for a in alone["applications"])
    by_id = {a["application"]: a for a in apps}
    synthetic_row = by_id["app-1"]
    assert synthetic_row["skew_core_ms"] == 57_000 and synthetic_row["allocated_core_ms"] == 800_000
    assert not by_id[""]["readable"] and "zstd" in by_id[""]["problem"]
    findings = pq.read_table(out / "findings").to_pylist()
    assert len(findings) == len(alone["findings"])
    assert {f["code"] for f in findings} == {f["code"] for f in alone["findings"]}
