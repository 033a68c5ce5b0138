from checks.run._log import log, task
from linter.registry import Invalid, RunRule, Valid

_OOM = {"Reason": "ExceptionFailure", "Class Name": "java.lang.OutOfMemoryError",
        "Description": "Java heap space", "Stack Trace": []}
_FAILING = log([("collect at job.py:55", [task(duration=900) for _ in range(6)] +
                 [task(duration=3000, failed=_OOM), task(duration=3000, failed=_OOM, executor="2")])],
               executors=(("1", 4), ("2", 4)))
_PASSING = log([("collect at job.py:55", [task(duration=900) for _ in range(8)])])


class FailedTasks(RunRule):
    """
    ## What it does
    Groups failed task attempts by their cause, as the guides name them: out
    of memory, `FetchFailed` (shuffle data lost with an executor), serialization
    errors, `No space left on device`, results over `spark.driver.maxResultSize`,
    Python errors in UDFs, and otherwise the exception's class. Each group is
    reported once, with its count, stages, executors and the first message.
    Executors lost with their tasks are SPK704's; killed tasks (speculation,
    cancelled jobs) are not failures.

    ## Why is this bad?
    A failed attempt is retried (up to `spark.task.maxFailures`, 4), so a job
    can succeed while repeating work; the same cause then fails it on a bigger
    day. One line per cause is what the Stages tab makes you assemble by hand.

    ## Example
    ```text
    2 failed task attempts (java.lang.OutOfMemoryError) in stage 0 on executors 1, 2: Java heap space
    ```

    ## Use instead
    ```text
    stage 0.0 (collect at job.py:55): 8 tasks, all succeeded
    ```
    Treat the cause: more memory per task for OOM, more local disk for `No
    space left`, not collecting large results, picklable UDF closures.

    ## Fix safety
    No fix: a run is read, not written.

    ## References
    - Spark configuration, `spark.task.maxFailures`, `spark.driver.maxResultSize`, `spark.local.dir`.
    """

    code = "SPK705"
    name = "failed-tasks"
    summary = "failed task attempts, grouped by cause"
    default_reason = ("retried attempts let a job succeed while repeating work, and the same cause fails "
                      "it on a bigger day; killed tasks (speculation, cancelled jobs) are not counted")
    severity = "error"
    invalid = (Invalid(_FAILING, path="app.log"),)
    valid = (Valid(_PASSING, path="app.log"),)

    def check(self, app) -> None:
        for failure in app.failures.values():
            if failure.kind in ("ExecutorLostFailure", "TaskKilled", "TaskCommitDenied", "Resubmitted"):
                continue
            stages = ", ".join(str(s) for s in sorted(failure.stages))
            executors = ", ".join(sorted(failure.executors))
            message = failure.message.splitlines()[0][:300] if failure.message else failure.signature
            stage = next((st for st in app.stages.values() if st.id in failure.stages and st.call_site), None)
            self.ctx.report_at(self, failure.line, f"{failure.count} failed task attempt(s) ({failure.signature}) "
                               f"in stage {stages} on executor(s) {executors}: {message}",
                               call_site=stage.call_site if stage is not None else None,
                               help=_HELP.get(failure.signature, "treat the cause the message names"),
                               label=failure.signature)


_HELP = {
    "java.lang.OutOfMemoryError": "more memory per task: fewer spark.executor.cores, more spark.executor.memory",
    "container killed for exceeding memory limits": "more spark.executor.memoryOverhead, or fewer cores per executor",
    "No space left on device": "more local disk (spark.local.dir), less spill (smaller partitions)",
    "results over spark.driver.maxResultSize": "do not collect large results: write them, or take a limit",
    "serialization error": "make closures and UDF arguments serializable (no sessions, clients or locks)",
    "FetchFailed (shuffle data lost)": "executors holding shuffle files were lost: see SPK704; enable the "
                                       "external shuffle service or decommissioning",
    "Python error in a UDF or worker": "read the Python traceback in the message; guard nulls in the UDF",
}
