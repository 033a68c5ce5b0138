from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid

_HEAVY = log([("groupBy at job.py:12", [task(duration=30_000, gc=9_000) for _ in range(8)])])
_LIGHT = log([("groupBy at job.py:12", [task(duration=30_000, gc=600) for _ in range(8)])])


class GcPressure(RunRule):
    """
    ## What it does
    Finds stages and executors that spent over 10% of their executor run time
    in JVM garbage collection (the Executors tab's "GC Time" against "Task
    Time"), when they ran for at least 30 seconds in all.

    ## Why is this bad?
    Time in GC is time not spent on the data, and heavy GC comes before
    `OutOfMemoryError` and lost executors. The usual causes: too many
    concurrent tasks for the heap (cores per executor), large objects per row
    (`collect_list`, wide rows, UDFs building Python objects), caching
    deserialized data, or executors so large that full collections take seconds.

    ## Example
    ```text
    stage 2.0 (groupBy at job.py:12): 30% of 240.0 s executor time in GC
    ```

    ## Use instead
    ```text
    stage 2.0 (groupBy at job.py:12): 2% of 240.0 s executor time in GC
    ```
    Give each task more memory (fewer `spark.executor.cores`, more
    `spark.executor.memory`), avoid object-heavy aggregations, cache serialized
    (`MEMORY_AND_DISK_SER`), or use G1GC on large heaps.

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `max-share` (0.1): the largest GC share not reported.
    - `min-run-seconds` (30.0): stages and executors with less run time are not judged.

    ## References
    - Spark tuning guide, "Garbage Collection Tuning".
    - DataFlint, "High GC" alert.
    """

    code = "SPK702"
    name = "gc-pressure"
    summary = "over 10% of executor run time spent in garbage collection"
    options = {"max-share": Option(0.1, "The largest GC share of run time not reported."),
               "min-run-seconds": Option(30.0, "Less run time than this is not judged.")}
    invalid = (Invalid(_HEAVY, path="app.log", count=2),)
    valid = (Valid(_LIGHT, path="app.log"),)

    def _judge(self, gc: float, run: float) -> bool:
        return run >= self.opts["min-run-seconds"] * 1000 and gc > self.opts["max-share"] * run

    def check(self, app) -> None:
        for stage in app.stages.values():
            gc, run = sum(stage.figures["gc_time"]), sum(stage.figures["run_time"])
            if self._judge(gc, run):
                self.ctx.report_stage(self, stage, f"{gc / run:.0%} of {run / 1000:.1f} s executor time in GC",
                                      help="more memory per task: fewer spark.executor.cores or more "
                                           "spark.executor.memory; avoid object-heavy aggregations")
        for ex in app.executors.values():
            if self._judge(ex.gc_ms, ex.run_ms):
                self.ctx.report_at(self, ex.line, f"executor {ex.id} ({ex.host}): {ex.gc_ms / ex.run_ms:.0%} of "
                                   f"{ex.run_ms / 1000:.1f} s run time in GC",
                                   help="more memory per task on this executor, or a smaller heap per executor",
                                   label=f"executor {ex.id} ({ex.host})")
