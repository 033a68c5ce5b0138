"""The runtime commands: `sparkcheck plan`, `sparkcheck diagnose` and `sparkcheck capture`.

`plan FILE|DIR|-` checks physical plans (explain text in any mode, event logs,
a History Server's SQL executions) with the plan rules (SPK6xx). `diagnose
LOG|DIR|URL` checks a whole run: its plans, stages, tasks and executors
(SPK6xx, SPK7xx) and its Spark Properties (SPK8xx), with a summary of the
application first.

`capture -- python job.py ARGS` runs a job with event logging, then diagnoses
the run. The user's code is not changed. Event logging is switched on through
the environment of the job's process: `SPARK_SUBMIT_OPTS` gets
`-Dspark.eventLog.enabled=true -Dspark.eventLog.dir=file:DIR` appended (Spark
reads `spark.*` Java system properties into every SparkConf), which reaches
the JVM whether the job starts it from `python job.py` (pyspark launches
`spark-submit`) or is itself `spark-submit job.py`. A job that sets
`spark.eventLog.*` itself wins; then there is nothing to read, and sparkcheck
says so.

Each SQL execution's call site (`collect at /path/job.py:16`) puts its findings
on the job's own lines. PySpark names only some actions after the job's line;
a sitecustomize put first on the job's PYTHONPATH
(linter/runtime/capture_hook/sitecustomize.py) wraps the others (DataFrame
`count`, `show`, every write) so that they set the call site from the calling
line too.

With `--remote sc://host:port` (Spark Connect) the run's event log is written on
the server, so the same sitecustomize asks the server for each action's plan
before it runs and records it with the calling line; those plans are checked
(SPK6xx) and reported at the action's line. Run metrics (SPK7xx) need the
server's event log: `sparkcheck diagnose` it there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from linter.command import EXIT_ERROR, UsageError, plan_resolver
from linter.runtime.output import emit_plan_findings, report_runs
from linter.runtime.plans import (
    check_event_log,
    check_plan_text,
    check_recorded_plans,
    check_sql_plans,
)
from linter.runtime.runs import check_log
from linter.sources.eventlog import files_of, is_event_log
from linter.sources.inputs import plan_files


def run_plan(args) -> int:
    resolver = plan_resolver(args)
    paths = args.paths or ["-"]
    findings = []
    trees: list = []  # (title, plan root) for the HTML report
    if paths == ["-"]:
        text = sys.stdin.read()
        findings = check_plan_text("-", text, resolver.for_path(os.getcwd()), trees)
    else:
        from linter.sources import history

        urls = [p for p in paths if history.is_url(p)]
        for url in urls:
            base, apps = history.applications(url)
            for app in apps:
                findings.extend(check_sql_plans(f"{base}/history/{app}", history.sql_plans(base, app),
                                                resolver.for_path(os.getcwd()), trees=trees))
        for path in plan_files([p for p in paths if p not in urls]):
            if not os.path.exists(path):
                raise UsageError(f"{path}: no such file or directory")
            if is_event_log(path):
                findings.extend(check_event_log(path, resolver.for_path(path), trees=trees))
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                findings.extend(check_plan_text(path, f.read(), resolver.for_path(path), trees))
    return emit_plan_findings(findings, args, trees)


def run_diagnose(args) -> int:
    from linter.sources import history

    resolver = plan_resolver(args)
    runs = []
    with tempfile.TemporaryDirectory(prefix="sparkcheck-history-") as downloads:
        for path in args.paths:
            if history.is_url(path):
                base, apps = history.applications(path)
                for app_id in apps:
                    folder = os.path.join(downloads, app_id.replace("/", "_"))
                    os.makedirs(folder, exist_ok=True)
                    for log in history.download_logs(base, app_id, folder):
                        runs.append(check_log(log, resolver.for_path(os.getcwd()), where=f"{base}/history/{app_id}"))
                continue
            if not os.path.exists(path):
                raise UsageError(f"{path}: no such file or directory")
            logs = [p for p in plan_files([path]) if is_event_log(p)]
            if not logs:
                raise UsageError(f"{path}: no event log here (plain, .gz, .zstd, .lz4, eventlog_v2_ directories)")
            for log in logs:
                runs.append(check_log(log, resolver.for_path(log)))
        return report_runs(runs, args)


def run_capture(args) -> int:
    job = list(args.job)
    if job and job[0] == "--":
        job = job[1:]
    if not job:
        raise UsageError("capture: give the job's command after `--`, e.g. sparkcheck capture -- python job.py")
    resolver = plan_resolver(args)
    keep = args.event_log_dir is not None
    directory = os.path.abspath(args.event_log_dir) if keep else tempfile.mkdtemp(prefix="sparkcheck-capture-")
    os.makedirs(directory, exist_ok=True)
    before = set(os.listdir(directory))
    env = dict(os.environ)
    options = f"-Dspark.eventLog.enabled=true -Dspark.eventLog.dir=file://{directory}"
    env["SPARK_SUBMIT_OPTS"] = f"{env.get('SPARK_SUBMIT_OPTS', '')} {options}".strip()
    # capture_hook/sitecustomize.py names every action's SQL execution after the job's line
    hook = os.path.join(os.path.dirname(os.path.abspath(__file__)), "capture_hook")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (hook, env.get("PYTHONPATH", "")) if p)
    env["SPARKCHECK_CAPTURE"] = "1"
    recorded = os.path.join(directory, "connect-plans.jsonl")
    if args.remote:
        if not args.remote.startswith("sc://"):
            raise UsageError(f"--remote: a Spark Connect address is written sc://host:port, not {args.remote!r}")
        env["SPARK_REMOTE"] = args.remote
        env["SPARKCHECK_CONNECT_PLANS"] = recorded
    try:
        try:
            # the job's own output goes to standard error: standard output holds only the report
            returncode = subprocess.run(job, env=env, stdout=sys.stderr.fileno(), check=False).returncode
        except FileNotFoundError:
            raise UsageError(f"capture: cannot run {job[0]!r}: no such program") from None
        if args.remote:
            trees: list = []
            findings = check_recorded_plans(recorded, resolver.for_path(os.getcwd()), trees)
            if not trees:
                print(f"sparkcheck: the job ran no Spark Connect action against {args.remote} "
                      f"(exit code {returncode})", file=sys.stderr)
                return EXIT_ERROR
            code = emit_plan_findings(findings, args, trees)
            return EXIT_ERROR if returncode != 0 else code
        logs = sorted(os.path.join(directory, n) for n in os.listdir(directory)
                      if n not in before and is_event_log(os.path.join(directory, n)))
        logs = [log for log in logs if files_of(log)]
        runs = [check_log(log, resolver.for_path(os.getcwd()), source_only=not keep) for log in logs]
    finally:
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)
    if not logs:
        print(f"sparkcheck: the job wrote no event log (exit code {returncode}); did it start a SparkSession, "
              "or set spark.eventLog.* itself?", file=sys.stderr)
        return EXIT_ERROR
    code = report_runs(runs, args)
    if returncode != 0:
        print(f"sparkcheck: the job exited with code {returncode}; its plans up to then were checked",
              file=sys.stderr)
        return EXIT_ERROR
    return code
