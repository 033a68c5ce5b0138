"""The run-rule engine: an event log's Application checked by the plan (SPK6xx), run (SPK7xx) and
configuration (SPK8xx over its Spark Properties) rules.

An event log (or a History Server application, whose log is downloaded through
its REST API) is read once into an Application (linter/sources/app.py); the plan
rules check its SQL executions and the run rules its stages, tasks and
executors. A finding is placed at the user's line when the stage's call site
names a Python file that exists here, else at the line of the event it is about
(the stage's completion, the executor's removal); the other place is a related
location of the same finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from linter import registry
from linter.diagnostics import Finding
from linter.runtime.plans import PlanContext, PlanInput, check_sql_plans
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
    shuffles = [sum(stage.figures["shuffle_read"]) for stage in app.stages.values() if stage.sql_execution is not None]
    task_time = sum(sum(stage.figures["run_time"]) for stage in app.stages.values())
    rdd_time = sum(sum(stage.figures["run_time"]) for stage in app.stages.values() if stage.sql_execution is None)
    conf = from_properties(app.properties, app.properties_line, writes, rdd_jobs, int(max(shuffles, default=0)),
                           rdd_time / task_time if task_time else 0.0, _jvm_application(app))

    def sink(rule, setting, message, help):
        ctx.report_at(rule, setting.line, f"{message} (Spark Properties of the run)", help,
                      label=f"{setting.key}={setting.value}")

    configcheck.run_rules(conf, settings, codes, sink)


def _jvm_application(app: Application) -> bool:
    """A JVM application: its driver ran a class (`--class com.example.Main app.jar`, the Scala shell), not a
    Python file or the PySpark shell (`pyspark-shell`, `job.py`), whose RDD records Python pickles itself."""
    command = app.java_command
    if not command or "pyspark-shell" in command or (app.properties.get("spark.submit.pyFiles") or "").strip():
        return False
    return "--class " in command and not any(word.endswith(".py") for word in command.split())


def check_log(path: str, settings, source_only: bool = False,
              where: Optional[str] = None) -> tuple[Application, list[Finding]]:
    """Read and check one event log; `where` names it in findings and summaries (a History Server's URL for a
    downloaded log) when its path is not what the user gave."""
    from linter.sources.app import read_application

    app = read_application(path)
    if where is not None:
        app.path = where
    return app, check_application(app, settings, source_only)
