"""The application model of an event log: stages with per-task figures, executors, failures, environment.

Read in the same single streaming pass as the plans (linter/sources/eventlog.py):
what the Spark UI's Stages, Executors and Environment tabs show. Memory grows
with the number of tasks (a few numbers each, in compact arrays), never with
the log's size; plans keep only their newest version.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from typing import Optional

from linter.sources.eventlog import _CALL_SITE, _PLAN_EVENTS, PlanCollector, events

_WANTED = frozenset({
    *_PLAN_EVENTS, "SparkListenerTaskEnd", "SparkListenerDriverAccumUpdates", "SparkListenerStageSubmitted",
    "SparkListenerStageCompleted", "SparkListenerExecutorAdded", "SparkListenerExecutorRemoved",
    "SparkListenerEnvironmentUpdate", "SparkListenerApplicationStart", "SparkListenerApplicationEnd",
    "SparkListenerLogStart", "SparkListenerJobStart", "SparkListenerTaskStart",
})
# The per-task figures kept for each stage, in this order (milliseconds and bytes).
FIGURES = ("duration", "run_time", "gc_time", "shuffle_read", "input", "output", "memory_spill", "disk_spill",
           "result_size", "launch", "finish")


@dataclass
class Stage:
    id: int
    attempt: int
    name: str = ""
    tasks_planned: int = 0
    completed: Optional[int] = None
    failure: str = ""
    line: int = 0  # the StageCompleted (or StageSubmitted) event's line in the log
    figures: dict = field(default_factory=lambda: {name: array("d") for name in FIGURES})
    executors: list = field(default_factory=list)  # executor id of each successful task
    failed_tasks: int = 0
    killed_tasks: int = 0
    sql_execution: Optional[int] = None
    sql_description: str = ""  # the SQL execution's description (its call site when Spark named an internal one)

    @property
    def label(self) -> str:
        name = self.name
        if not _CALL_SITE.match(name or "") or "CompletableFuture" in name:
            name = (self.sql_description.splitlines() or [name])[0] if self.sql_description else name
        return f"stage {self.id}.{self.attempt}" + (f" ({name})" if name else "")

    @property
    def tasks(self) -> int:
        return len(self.figures["duration"])

    @property
    def wall_ms(self) -> float:
        """From the first task's launch to the last task's end (0 when no task ended)."""
        f = self.figures
        return max(f["finish"]) - min(f["launch"]) if self.tasks else 0.0

    @property
    def call_site(self) -> Optional[tuple[str, int]]:
        """(file, line) of the user's code that ran the stage: its name, else its SQL execution's description."""
        for text in (self.name or "", (self.sql_description.splitlines() or [""])[0]):
            m = _CALL_SITE.match(text)
            if m and m.group(2).endswith(".py"):
                return m.group(2), int(m.group(3))
        return None


@dataclass
class Executor:
    id: str
    host: str = ""
    cores: int = 0
    added: Optional[int] = None
    removed: Optional[int] = None
    reason: str = ""
    line: int = 0  # where it was added, or removed when it was
    busy_ms: float = 0.0  # sum of its tasks' durations
    gc_ms: float = 0.0
    run_ms: float = 0.0


@dataclass
class Failure:
    """Failed task attempts that share a cause."""

    signature: str  # "ExecutorLostFailure (exit code 137)", "java.lang.OutOfMemoryError" ...
    kind: str  # Spark's reason: ExceptionFailure, ExecutorLostFailure, FetchFailed, TaskKilled ...
    message: str  # the first one's description
    count: int = 0
    time_ms: float = 0.0  # the failed attempts' durations (launch to finish): core time spent for nothing
    stages: set = field(default_factory=set)
    executors: set = field(default_factory=set)
    line: int = 0


@dataclass
class Application:
    path: str
    id: str = ""
    name: str = ""
    spark_version: str = ""
    start: Optional[int] = None
    end: Optional[int] = None
    properties: dict = field(default_factory=dict)
    properties_line: int = 0
    java_command: str = ""  # the driver's `sun.java.command`: says whether the application is Python's
    stages: dict = field(default_factory=dict)  # (id, attempt) -> Stage
    executors: dict = field(default_factory=dict)  # id -> Executor
    failures: dict = field(default_factory=dict)  # signature -> Failure
    plans: list = field(default_factory=list)  # SqlPlan, newest plan of each SQL execution
    last_time: int = 0  # the latest timestamp seen (the end of a log cut short)

    @property
    def duration_ms(self) -> float:
        end = self.end or self.last_time
        return float(end - self.start) if self.start and end else 0.0

    def longest_stages(self) -> list:
        """The stages that ran tasks, the longest (wall time) first."""
        return sorted((s for s in self.stages.values() if s.tasks), key=lambda s: -s.wall_ms)

    def workers(self) -> list:
        """The executors that run tasks: all but the driver, or the driver alone in local mode."""
        return [e for e in self.executors.values() if e.id != "driver"] or list(self.executors.values())

    def executor_cores(self) -> int:
        return sum(e.cores for e in self.workers())


def read_application(path: str) -> Application:
    app = Application(path)
    sql = PlanCollector()
    stage_sql: dict[int, int] = {}  # stage id -> SQL execution id
    for number, event in events(path, _WANTED):
        kind = str(event.get("Event", "")).rsplit(".", 1)[-1]
        sql.feed(kind, event, number)
        if kind == "SparkListenerTaskEnd":
            _task_end(app, event, number)
        elif kind == "SparkListenerTaskStart":
            info = event.get("Task Info") or {}
            app.last_time = max(app.last_time, int(info.get("Launch Time") or 0))
        elif kind in ("SparkListenerStageSubmitted", "SparkListenerStageCompleted"):
            info = event.get("Stage Info") or {}
            stage = _stage(app, info)
            stage.name = str(info.get("Stage Name") or stage.name)
            stage.tasks_planned = int(info.get("Number of Tasks") or stage.tasks_planned)
            stage.completed = info.get("Completion Time") or stage.completed
            stage.failure = str(info.get("Failure Reason") or stage.failure)
            stage.line = number
            if stage.completed:
                app.last_time = max(app.last_time, int(stage.completed))
        elif kind == "SparkListenerJobStart":
            props = event.get("Properties") or {}
            execution = props.get("spark.sql.execution.id")
            if execution is not None:
                for sid in event.get("Stage IDs") or ():
                    stage_sql[int(sid)] = int(execution)
        elif kind == "SparkListenerExecutorAdded":
            info = event.get("Executor Info") or {}
            ex = app.executors.setdefault(str(event.get("Executor ID")), Executor(str(event.get("Executor ID"))))
            ex.host, ex.cores = str(info.get("Host", "")), int(info.get("Total Cores") or 0)
            ex.added, ex.line = event.get("Timestamp"), number
        elif kind == "SparkListenerExecutorRemoved":
            ex = app.executors.setdefault(str(event.get("Executor ID")), Executor(str(event.get("Executor ID"))))
            ex.removed, ex.reason, ex.line = event.get("Timestamp"), str(event.get("Removed Reason", "")), number
            app.last_time = max(app.last_time, int(event.get("Timestamp") or 0))
        elif kind == "SparkListenerEnvironmentUpdate":
            props = event.get("Spark Properties") or {}
            app.properties = dict(props) if isinstance(props, dict) else {k: v for k, v in props}
            app.properties_line = number
            system = event.get("System Properties") or {}
            system = dict(system) if isinstance(system, dict) else {k: v for k, v in system}
            app.java_command = str(system.get("sun.java.command", ""))
        elif kind == "SparkListenerApplicationStart":
            app.id, app.name = str(event.get("App ID", "")), str(event.get("App Name", ""))
            app.start = event.get("Timestamp")
        elif kind == "SparkListenerApplicationEnd":
            app.end = event.get("Timestamp")
        elif kind == "SparkListenerLogStart":
            app.spark_version = str(event.get("Spark Version", ""))
    app.plans = sql.finish()
    for (sid, _), stage in app.stages.items():
        stage.sql_execution = stage_sql.get(sid)
        if stage.sql_execution is not None:
            stage.sql_description = sql.descriptions.get(stage.sql_execution, "")
    driver_start = app.start or min((e.added for e in app.executors.values() if e.added), default=None)
    for ex in app.executors.values():
        if ex.added is None:
            ex.added = driver_start
    return app


def _stage(app: Application, info: dict) -> Stage:
    key = (int(info.get("Stage ID", -1)), int(info.get("Stage Attempt ID", 0)))
    stage = app.stages.get(key)
    if stage is None:
        stage = app.stages[key] = Stage(*key)
    return stage


def _task_end(app: Application, event: dict, number: int) -> None:
    info = event.get("Task Info") or {}
    stage = _stage(app, {"Stage ID": event.get("Stage ID"), "Stage Attempt ID": event.get("Stage Attempt ID")})
    if not stage.line:
        stage.line = number
    launch, finish = int(info.get("Launch Time") or 0), int(info.get("Finish Time") or 0)
    app.last_time = max(app.last_time, finish)
    executor = str(info.get("Executor ID", ""))
    reason = event.get("Task End Reason") or {}
    if str(reason.get("Reason", "Success")) != "Success":
        if reason.get("Reason") == "TaskKilled" or info.get("Killed"):
            stage.killed_tasks += 1
        else:
            stage.failed_tasks += 1
        signature, message = failure_signature(reason)
        failure = app.failures.get(signature)
        if failure is None:
            failure = app.failures[signature] = Failure(signature, str(reason.get("Reason")), message, line=number)
        failure.count += 1
        failure.time_ms += float(finish - launch) if finish > launch > 0 else 0.0
        failure.stages.add(stage.id)
        failure.executors.add(executor)
        return
    metrics = event.get("Task Metrics") or {}
    shuffle = metrics.get("Shuffle Read Metrics") or {}
    row = {
        "duration": float(finish - launch) if finish and launch else 0.0,
        "run_time": float(metrics.get("Executor Run Time") or 0),
        "gc_time": float(metrics.get("JVM GC Time") or 0),
        "shuffle_read": float((shuffle.get("Remote Bytes Read") or 0) + (shuffle.get("Local Bytes Read") or 0)),
        "input": float((metrics.get("Input Metrics") or {}).get("Bytes Read") or 0),
        "output": float((metrics.get("Output Metrics") or {}).get("Bytes Written") or 0),
        "memory_spill": float(metrics.get("Memory Bytes Spilled") or 0),
        "disk_spill": float(metrics.get("Disk Bytes Spilled") or 0),
        "result_size": float(metrics.get("Result Size") or 0),
        "launch": float(launch),
        "finish": float(finish),
    }
    for name in FIGURES:
        stage.figures[name].append(row[name])
    stage.executors.append(executor)
    ex = app.executors.get(executor)
    if ex is not None:
        ex.busy_ms += row["duration"]
        ex.gc_ms += row["gc_time"]
        ex.run_ms += row["run_time"]


_EXIT_CODE = re.compile(r"exit (?:code|status):?\s*(-?\d+)|exited with code (-?\d+)|exitCode=(-?\d+)", re.I)


def failure_signature(reason: dict) -> tuple[str, str]:
    """A short cause shared by failures of the same kind, and the message behind it."""
    kind = str(reason.get("Reason", "Unknown"))
    text = " ".join(str(reason.get(k, "")) for k in ("Class Name", "Description", "Loss Reason", "Message",
                                                       "Kill Reason", "Full Stack Trace"))
    message = str(reason.get("Description") or reason.get("Loss Reason") or reason.get("Message")
                  or reason.get("Kill Reason") or "").strip()
    if "Traceback (most recent call last)" in message:
        # a Python worker's error: its last line says what went wrong (`ValueError: bad record`)
        last = [line.strip() for line in message.splitlines() if re.match(r"^\s*\w+(\.\w+)*(Error|Exception)\b", line)]
        message = last[-1] if last else message
    for pattern, label in _KNOWN:
        if re.search(pattern, text, re.I):
            return label, message or label
    if kind == "ExceptionFailure":
        return str(reason.get("Class Name") or "an exception"), message
    if kind == "ExecutorLostFailure":
        code = _EXIT_CODE.search(text)
        return (f"ExecutorLostFailure (exit code {next(g for g in code.groups() if g)})" if code
                else "ExecutorLostFailure"), message
    return kind, message


# Causes the troubleshooting guides name, most specific first.
_KNOWN = (
    (r"Container killed by YARN for exceeding (?:physical )?memory limits|exceeding memory limits",
     "container killed for exceeding memory limits"),
    (r"OutOfMemoryError|Java heap space|GC overhead limit exceeded", "java.lang.OutOfMemoryError"),
    (r"exit(?:ed)?(?: with)? (?:code|status):?\s*137|exitCode=137",
     "executor killed (exit code 137: out of memory, SIGKILL)"),
    (r"exit(?:ed)?(?: with)? (?:code|status):?\s*143|exitCode=143",
     "executor killed (exit code 143: SIGTERM, often YARN memory)"),
    (r"Executor heartbeat timed out|heartbeat", "executor heartbeat timed out"),
    (r"No space left on device", "No space left on device"),
    (r"spark\.driver\.maxResultSize|bigger than spark\.driver\.maxResultSize", "results over spark.driver.maxResultSize"),
    (r"NotSerializableException|Task not serializable|PicklingError", "serialization error"),
    (r"FetchFailed|MetadataFetchFailedException|Missing an output location for shuffle", "FetchFailed (shuffle data lost)"),
    (r"PythonException|Python worker exited unexpectedly", "Python error in a UDF or worker"),
)


def quantiles(values) -> tuple[float, float, float, float, float]:
    """min, 25th, median, 75th, max (nearest rank, as the Spark UI shows them)."""
    ordered = sorted(values)
    if not ordered:
        return (0.0,) * 5
    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]
    return ordered[0], at(0.25), at(0.5), at(0.75), ordered[-1]
