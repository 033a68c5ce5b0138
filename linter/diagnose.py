"""Run diagnostics: `sparkcheck diagnose LOG|DIR|URL` and `sparkcheck capture`.

An event log (or a History Server application, whose log is downloaded through
its REST API) is read once into an Application (linter/sources/app.py); the plan
rules (SPK6xx) check its SQL executions and the run rules (SPK7xx) its stages,
tasks and executors. A finding is placed at the line of the event it is about
(the stage's completion, the executor's removal) and, when the stage's call site
names a Python file that exists here, at that line too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from linter import registry
from linter.diagnostics import Finding
from linter.plans import PlanContext, PlanInput, check_sql_plans
from linter.sources.app import Application


@dataclass
class Anchor:
    """Where a run finding is placed in the log (what PlanContext.report needs of a node)."""

    name: str
    text: str
    line: int
    column: int = 1


class RunContext(PlanContext):
    def __init__(self, path: str, settings, app: Application, source_only: bool = False):
        super().__init__(path, [], settings, source_only)
        self.app = app

    def report_at(self, rule, line: int, message: str, help: Optional[str] = None,
                  call_site: Optional[tuple[str, int]] = None, label: str = "") -> None:
        self.current = PlanInput(self.current.root, None, "", call_site)
        self.report(rule, Anchor(rule.name, label or rule.name, max(line, 1)), message, help)

    def report_stage(self, rule, stage, message: str, help: Optional[str] = None) -> None:
        self.report_at(rule, stage.line, f"{stage.label}: {message}", help, stage.call_site, stage.label)


def check_application(app: Application, settings, source_only: bool = False) -> list[Finding]:
    findings = check_sql_plans(app.path, app.plans, settings, source_only)
    ctx = RunContext(app.path, settings, app, source_only)
    codes = settings.codes_for(app.path)
    for rule in registry.all_rules():
        if rule.kind == "run" and rule.code in codes:
            rule(ctx).check(app)
    _check_environment(app, ctx, settings, codes)
    return sorted(findings + ctx.findings, key=Finding.sort_key)


def _check_environment(app: Application, ctx: RunContext, settings, codes) -> None:
    """The configuration rules (SPK8xx) over the event log's Spark Properties."""
    from linter import configcheck
    from linter.sources.sparkconf import from_properties, mentions_object_store

    if not app.properties or not configcheck.config_rules(codes):
        return
    writes = any(mentions_object_store(node.text) and ("Insert" in node.name or "Write" in node.name
                                                      or "Command" in node.name)
                 for plan in app.plans for node in plan.root.walk())
    rdd_jobs = any(stage.sql_execution is None and stage.tasks for stage in app.stages.values())
    conf = from_properties(app.properties, app.properties_line, writes, rdd_jobs)

    def sink(rule, setting, message, help):
        ctx.report_at(rule, setting.line, f"{message} (Spark Properties of the run)", help,
                      label=f"{setting.key}={setting.value}")

    configcheck.run_rules(conf, settings, codes, sink)


def check_log(path: str, settings, source_only: bool = False,
              where: Optional[str] = None) -> tuple[Application, list[Finding]]:
    """Read and check one event log; `where` names it in findings and summaries (a History Server's URL for a
    downloaded log) when its path is not what the user gave."""
    from linter.sources.app import read_application

    app = read_application(path)
    if where is not None:
        app.path = where
    return app, check_application(app, settings, source_only)


def report_runs(runs: list[tuple[Application, list[Finding]]], args) -> int:
    """Print the summaries (text formats: before the findings; json: beside them) and the findings."""
    import json
    import sys

    from linter.cli import EXIT_CLEAN, EXIT_FINDINGS, _emit
    from linter.report import ReportOptions, render
    from linter.report.summary import render_text, summarize

    fmt = args.output_format or "full"
    findings = sorted((f for _, group in runs for f in group), key=Finding.sort_key)
    summaries = [summarize(app) for app, _ in runs]
    if fmt == "html":
        from linter.plans import plan_titles
        from linter.report import html

        trees = [tree for app, _ in runs for tree in plan_titles(app.path, app.plans)]
        title = "sparkcheck: " + ", ".join(app.name or app.id or app.path for app, _ in runs)
        _emit(html.render(title, findings, trees, [app for app, _ in runs]), args.output_file)
    elif fmt == "json":
        document = {"applications": summaries, "findings": json.loads(render("json", findings, ReportOptions()))}
        _emit(json.dumps(document, indent=2) + "\n", args.output_file)
    elif fmt in ("full", "concise", "grouped"):
        text = "".join(render_text(s) + "\n" for s in summaries) + render(fmt, findings, ReportOptions())
        _emit(text, args.output_file)
    else:
        _emit(render(fmt, findings, ReportOptions()), args.output_file)
    sys.stdout.flush()
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def run_diagnose(args) -> int:
    import os
    import tempfile

    from linter.cli import UsageError, plan_resolver
    from linter.plans import plan_files
    from linter.sources import history
    from linter.sources.eventlog import is_event_log

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
