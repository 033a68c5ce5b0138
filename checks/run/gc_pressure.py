from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.metrics import executor_gc, stage_gc

_HEAVY = log([("groupBy at job.py:12", [task(duration=30_000, gc=9_000) for _ in range(8)])])
_LIGHT = log([("groupBy at job.py:12", [task(duration=30_000, gc=600) for _ in range(8)])])


class GcPressure(RunRule):
    """
    ## What it does
    Finds stages and executors that spent over 10% of their executor run time
    in JVM garbage collection (the Executors tab's "GC Time" against "Task
    Time"), when they ran for at least 30 seconds in all.

    Each task's GC time counts up to its own run time: with a concurrent
    collector, and on GPU runs, the log can give a task more GC time than run
    time, and summed as they are such figures make shares over 100%. The
    share stays at most 100%, and the message says how many tasks had
    inconsistent figures.

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
    default_reason = ("over 10% of run time in GC is time not spent on the data and comes before "
                      "OutOfMemoryError and lost executors; stages and executors under 30 seconds are not judged")
    options = {"max-share": Option(0.1, "The largest GC share of run time not reported."),
               "min-run-seconds": Option(30.0, "Less run time than this is not judged.")}
    invalid = (Invalid(_HEAVY, path="app.log", count=2),)
    valid = (Valid(_LIGHT, path="app.log"),)

    def _judge(self, share) -> bool:
        return share.whole >= self.opts["min-run-seconds"] * 1000 and share.value > self.opts["max-share"]

    def check(self, app) -> None:
        for stage in app.stages.values():
            share = stage_gc(stage)
            if self._judge(share):
                self.ctx.report_stage(self, stage, f"{share.percent()} of {share.whole / 1000:.1f} s executor time "
                                      f"in GC" + _note(share),
                                      help="more memory per task: fewer spark.executor.cores or more "
                                           "spark.executor.memory; avoid object-heavy aggregations")
        shares = executor_gc(app)
        for ex in app.executors.values():
            share = shares.get(ex.id)
            if share is not None and self._judge(share):
                self.ctx.report_at(self, ex.line, f"executor {ex.id} ({ex.host}): {share.percent()} of "
                                   f"{share.whole / 1000:.1f} s run time in GC" + _note(share),
                                   help="more memory per task on this executor, or a smaller heap per executor",
                                   label=f"executor {ex.id} ({ex.host})")


def _note(share) -> str:
    note = share.note()
    return f"; {note}" if note else ""
