from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.app import quantiles

_FEW = log([("save at job.py:33", [task(duration=60_000) for _ in range(2)])], executors=(("1", 8), ("2", 8)))
# 600 tiny tasks, judged with the limit lowered to 500 (the default, 5,000, would make a large example).
_TINY = log([("count at job.py:12", [task(duration=40) for _ in range(600)])])
_GOOD = log([("save at job.py:33", [task(duration=12_000) for _ in range(32)])], executors=(("1", 8), ("2", 8)))


class TaskCount(RunRule):
    """
    ## What it does
    Finds stages with the wrong number of tasks for the cluster: fewer tasks
    than executor cores in a stage that ran for over 30 seconds (cores left
    idle), and over 5,000 tasks whose median runs under 500 ms (scheduling
    overhead dominates).

    ## Why is this bad?
    A task runs on one core: a long stage with 2 tasks on 16 cores uses an
    eighth of what was paid for, and each task holds a huge partition.
    Thousands of tiny tasks spend more time being scheduled, serialized and
    reported than computing, and each writes its own shuffle blocks or small
    files. Both come from fixed partition counts (`repartition(2)`,
    `spark.sql.shuffle.partitions`, many small input files).

    ## Example
    ```text
    stage 0.0 (count at job.py:12): 6000 tasks with a median of 40 ms
    ```

    ## Use instead
    ```text
    stage 0.0 (count at job.py:12): 64 tasks with a median of 3.8 s
    ```
    Let AQE coalesce shuffle partitions; size partitions at 100-200 MB
    (`spark.sql.files.maxPartitionBytes`, `advisoryPartitionSizeInBytes`);
    at least two to three tasks per core for long stages.

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `min-stage-seconds` (30.0): shorter stages are not judged for too few tasks.
    - `max-tasks` (5000) and `min-median-ms` (500.0): tiny tasks.

    ## References
    - Spark tuning guide, "Level of Parallelism"; Spark SQL tuning guide, "Coalescing Post Shuffle Partitions".
    - DataFlint, "Too many small tasks" alert.
    """

    code = "SPK707"
    name = "task-count"
    summary = "too few tasks for the cores, or thousands of tiny tasks"
    default_reason = ("a long stage with fewer tasks than cores uses a fraction of what was paid for, "
                      "and thousands of tiny tasks spend more time being scheduled than computing")
    options = {"min-stage-seconds": Option(30.0, "Shorter stages are not judged for too few tasks."),
               "max-tasks": Option(5000, "More tasks than this..."),
               "min-median-ms": Option(500.0, "...with a median under this many ms are tiny.")}
    invalid = (Invalid(_FEW, path="app.log"), Invalid(_TINY, path="app.log", options={"max-tasks": 500}))
    valid = (Valid(_GOOD, path="app.log"),)

    def check(self, app) -> None:
        cores = app.executor_cores()
        for stage in app.stages.values():
            if not stage.tasks:
                continue
            median = quantiles(stage.figures["duration"])[2]
            wall = stage.wall_ms
            planned = stage.tasks_planned or stage.tasks
            if planned > self.opts["max-tasks"] and median < self.opts["min-median-ms"]:
                self.ctx.report_stage(self, stage, f"{planned} tasks with a median of {median:.0f} ms: scheduling "
                                      f"overhead dominates", help="fewer, larger partitions (AQE coalescing, "
                                      "spark.sql.files.maxPartitionBytes, compact small input files)")
            elif cores and planned < cores and wall >= self.opts["min-stage-seconds"] * 1000:
                self.ctx.report_stage(self, stage, f"{planned} tasks for {cores} executor cores over "
                                      f"{wall / 1000:.0f} s: {cores - planned} cores idle",
                                      help="more partitions for this stage (at least two or three per core)")
