import re

from checks.run._log import log, task
from linter.registry import Invalid, RunRule, Valid

_LOST = log([("count at job.py:40", [task(duration=900) for _ in range(8)])], executors=(("1", 4), ("2", 4)),
            removed=(("2", "Container killed by YARN for exceeding physical memory limits. 9.1 GB of 9 GB "
                           "physical memory used. Consider boosting spark.executor.memoryOverhead."),))
_IDLE = log([("count at job.py:40", [task(duration=900) for _ in range(8)])], executors=(("1", 4), ("2", 4)),
            removed=(("2", "Executor killed by driver."),))
# Removals that are the normal end of an executor's life (dynamic allocation, shutdown, decommissioning).
_NORMAL = re.compile(r"killed by driver|idle|decommission|application (?:finished|ended)|Executor stopped|"
                     r"requested by driver|shutdown", re.I)


def treatment(reason: str) -> str:
    if re.search(r"memory|137|143|OutOfMemory|heap", reason, re.I):
        return ("memory per concurrent task is too low: fewer spark.executor.cores, more spark.executor.memory, "
                "or more spark.executor.memoryOverhead (off-heap: Python workers, Arrow, netty)")
    if re.search(r"heartbeat|timed out", reason, re.I):
        return ("the executor stopped answering (long GC pauses or a lost node): more memory per task, and "
                "spark.executor.heartbeatInterval well below spark.network.timeout")
    return "read the executor's own log for the cause (its host's node manager log for containers)"


class LostExecutor(RunRule):
    """
    ## What it does
    Finds executors removed before the application ended for a reason other
    than the normal ones (dynamic allocation releasing an idle executor,
    decommissioning, shutdown): `worker lost`, heartbeat timeouts,
    `Container killed by YARN for exceeding memory limits`, exit codes 137
    (killed, usually by the out-of-memory killer) and 143 (terminated), and
    tasks that failed with `ExecutorLostFailure`. The message gives the
    reason as Spark recorded it and the treatment.

    ## Why is this bad?
    Every task running on a lost executor is retried elsewhere, its cached
    blocks and shuffle files are gone (stages are recomputed, `FetchFailed`
    follows), and after `spark.task.maxFailures` the job fails. Most losses are
    memory: too many concurrent tasks (`spark.executor.cores`) for the
    executor's heap and overhead.

    ## Example
    ```text
    executor 2 (host-2) removed: Container killed by YARN for exceeding physical memory limits
    ```

    ## Use instead
    ```text
    executor 2 (host-2) removed: Executor killed by driver. (dynamic allocation)
    ```
    Give each task more memory: fewer `spark.executor.cores`, more
    `spark.executor.memory`, more `spark.executor.memoryOverhead` for Python.

    ## Fix safety
    No fix: a run is read, not written.

    ## References
    - Spark on YARN guide, `spark.executor.memoryOverhead`; Spark configuration, `spark.network.timeout`.
    """

    code = "SPK704"
    name = "lost-executor"
    summary = "an executor lost before the application ended (memory, heartbeat, node)"
    default_reason = ("a lost executor's tasks are retried, its cache and shuffle files are gone, and after "
                      "`spark.task.maxFailures` the job fails; removals by dynamic allocation are not reported")
    severity = "error"
    invalid = (Invalid(_LOST, path="app.log"),)
    valid = (Valid(_IDLE, path="app.log"),)

    def check(self, app) -> None:
        for ex in app.executors.values():
            if ex.removed is None or not ex.reason or _NORMAL.search(ex.reason):
                continue
            # the job's line that was running on it: the stage of a task lost with it
            stage = next((st for f in app.failures.values() if ex.id in f.executors
                          for st in app.stages.values() if st.id in f.stages and st.call_site), None)
            self.ctx.report_at(self, ex.line, f"executor {ex.id} ({ex.host}, {ex.cores} cores) removed: "
                               f"{ex.reason.strip()}", help=treatment(ex.reason), label=f"executor {ex.id} ({ex.host})",
                               call_site=stage.call_site if stage is not None else None)
        for failure in app.failures.values():
            if failure.kind == "ExecutorLostFailure" and not any(
                    app.executors.get(e) is not None and app.executors[e].removed for e in failure.executors):
                self.ctx.report_at(self, failure.line, f"{failure.count} task(s) failed because their executor "
                                   f"was lost ({', '.join(sorted(failure.executors))}): {failure.message}",
                                   help=treatment(failure.message + failure.signature), label=failure.signature)
