"""Small event logs for the run rules' examples: what Spark writes, reduced to the fields the rules read."""

from __future__ import annotations

import functools
import json

START = 1_700_000_000_000


def task(duration=200, gc=0, shuffle_read=0, input=0, memory_spill=0, disk_spill=0, result_size=2000,
         executor="1", failed=None):
    """One task end; `failed` is a Task End Reason dict for a failed attempt."""
    return {"duration": duration, "gc": gc, "shuffle_read": shuffle_read, "input": input,
            "memory_spill": memory_spill, "disk_spill": disk_spill, "result_size": result_size,
            "executor": executor, "failed": failed}


def log(*args, **kwargs):
    """A rule example's event log, built when a test reads it (`Invalid.source`), not when the rule is imported:
    every start of sparkcheck imports every rule."""
    return functools.partial(_render, *args, **kwargs)


def _render(stages, executors=(("1", 4),), properties=None, removed=(), duration_ms=None, scans=(),
            sql=False, java_command=None) -> str:
    """JSON lines of an application.

    stages: [(name, [task, ...])]; executors: [(id, cores)]; removed: [(id, reason)];
    scans: [(files, bytes)] file scans of one SQL execution, with their metrics; sql: the stages run as one
    job of SQL execution 0 (a DataFrame query), not as RDD jobs; java_command: the driver's `sun.java.command`.
    """
    events = [{"Event": "SparkListenerLogStart", "Spark Version": "3.5.1"},
              {"Event": "SparkListenerEnvironmentUpdate",
               "Spark Properties": {"spark.app.name": "example", **(properties or {})},
               "System Properties": {"sun.java.command": java_command} if java_command else {}},
              {"Event": "SparkListenerApplicationStart", "App Name": "example", "App ID": "app-1",
               "Timestamp": START}]
    for ex, cores in executors:
        events.append({"Event": "SparkListenerExecutorAdded", "Timestamp": START, "Executor ID": ex,
                       "Executor Info": {"Host": f"host-{ex}", "Total Cores": cores}})
    clock = START + 1000
    task_id = 0
    if scans:
        metrics, children = [], []
        for i, (files, size) in enumerate(scans):
            children.append({"nodeName": "Scan parquet", "simpleString": f"FileScan parquet [id#{i}]",
                             "children": [], "metrics": [
                                 {"name": "number of files read", "accumulatorId": 1000 + 2 * i, "metricType": "sum"},
                                 {"name": "size of files read", "accumulatorId": 1001 + 2 * i, "metricType": "size"}]})
            metrics += [[1000 + 2 * i, files], [1001 + 2 * i, size]]
        root = children[0] if len(children) == 1 else {"nodeName": "Union", "simpleString": "Union",
                                                        "children": children, "metrics": []}
        events.append({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart", "executionId": 0,
                       "description": "count at job.py:9", "details": "", "physicalPlanDescription": "",
                       "sparkPlanInfo": root, "time": clock})
        events.append({"Event": "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates",
                       "executionId": 0, "accumUpdates": metrics})
    if sql:
        events.append({"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": clock,
                       "Stage IDs": list(range(len(stages))), "Properties": {"spark.sql.execution.id": "0"}})
    for sid, (name, tasks) in enumerate(stages):
        info = {"Stage ID": sid, "Stage Attempt ID": 0, "Stage Name": name, "Number of Tasks": len(tasks),
                "Submission Time": clock}
        events.append({"Event": "SparkListenerStageSubmitted", "Stage Info": info})
        end = clock
        for t in tasks:
            launch, finish = clock, clock + t["duration"]
            end = max(end, finish)
            reason = t["failed"] or {"Reason": "Success"}
            events.append({
                "Event": "SparkListenerTaskEnd", "Stage ID": sid, "Stage Attempt ID": 0,
                "Task End Reason": reason,
                "Task Info": {"Task ID": task_id, "Launch Time": launch, "Finish Time": finish,
                              "Executor ID": t["executor"], "Host": f"host-{t['executor']}",
                              "Failed": t["failed"] is not None, "Killed": False, "Accumulables": []},
                "Task Metrics": {"Executor Run Time": t["duration"], "JVM GC Time": t["gc"],
                                 "Result Size": t["result_size"], "Memory Bytes Spilled": t["memory_spill"],
                                 "Disk Bytes Spilled": t["disk_spill"],
                                 "Shuffle Read Metrics": {"Remote Bytes Read": t["shuffle_read"], "Local Bytes Read": 0},
                                 "Input Metrics": {"Bytes Read": t["input"]}, "Output Metrics": {"Bytes Written": 0}}})
            task_id += 1
        events.append({"Event": "SparkListenerStageCompleted", "Stage Info": {**info, "Completion Time": end}})
        clock = end + 100
    for ex, reason in removed:
        events.append({"Event": "SparkListenerExecutorRemoved", "Timestamp": clock, "Executor ID": ex,
                       "Removed Reason": reason})
    events.append({"Event": "SparkListenerApplicationEnd",
                   "Timestamp": START + duration_ms if duration_ms else clock + 100})
    return "".join(json.dumps(e) + "\n" for e in events)
