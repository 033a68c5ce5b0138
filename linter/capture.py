"""`sparkcheck capture -- python job.py ARGS`: run a job with event logging, then diagnose the run.

Every plan it ran (SPK6xx) and its stages, tasks and executors (SPK7xx) are
checked, as `sparkcheck diagnose` does for an event log.

The user's code is not changed. Event logging is switched on through the
environment of the job's process: `SPARK_SUBMIT_OPTS` gets
`-Dspark.eventLog.enabled=true -Dspark.eventLog.dir=file:DIR` appended (Spark
reads `spark.*` Java system properties into every SparkConf), which reaches
the JVM whether the job starts it from `python job.py` (pyspark launches
`spark-submit`) or is itself `spark-submit job.py`. A job that sets
`spark.eventLog.*` itself wins; then there is nothing to read, and sparkcheck
says so.

Each SQL execution's call site (`collect at /path/job.py:16`) puts its findings
on the job's own lines too. PySpark names only some actions after the job's
line; a sitecustomize put first on the job's PYTHONPATH
(linter/capture_hook/sitecustomize.py) wraps the others (DataFrame `count`,
`show`, every write) so that they set the call site from the calling line too.

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

from linter.cli import EXIT_ERROR, UsageError, plan_resolver


def run_capture(args) -> int:
    from linter.diagnose import check_log, report_runs
    from linter.sources.eventlog import files_of, is_event_log

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
    # linter/capture_hook/sitecustomize.py names every action's SQL execution after the job's line
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
            returncode = subprocess.run(job, env=env, stdout=sys.stderr.fileno()).returncode
        except FileNotFoundError:
            raise UsageError(f"capture: cannot run {job[0]!r}: no such program") from None
        if args.remote:
            from linter.cli import emit_plan_findings
            from linter.plans import check_recorded_plans

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
