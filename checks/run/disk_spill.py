from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.metrics import ratio
from linter.sources.plan import MIB, format_size

_SPILLING = log([("sortWithinPartitions at job.py:20",
                  [task(duration=4000, input=64 * MIB, memory_spill=256 * MIB, disk_spill=48 * MIB)
                   for _ in range(4)])])
_FITTING = log([("sortWithinPartitions at job.py:20", [task(duration=4000, input=64 * MIB) for _ in range(4)])])


class Spill(RunRule):
    """
    ## What it does
    Finds stages that spilled to disk: the sum of their tasks' "Spill (Disk)"
    over 1 MiB, with "Spill (Memory)" (the same data's size in memory) and the
    share of the stage's input and shuffle read it represents.

    ## Why is this bad?
    A sort, aggregation or join buffer that does not fit in a task's share of
    execution memory is written to local disk and read back, once or several
    times: the stage runs several times slower and the disks fill (`No space
    left on device`). Spill says the partitions are too large for the memory
    per task.

    ## Example
    ```text
    stage 4.0 (sortWithinPartitions at job.py:20): spilled 192.0 MiB to disk (1.0 GiB in memory), 75% of its input
    ```

    ## Use instead
    ```text
    stage 4.0 (sortWithinPartitions at job.py:20): no spill
    ```
    Use more, smaller partitions (`spark.sql.shuffle.partitions`, or AQE's
    `advisoryPartitionSizeInBytes`), or more memory per task (fewer
    `spark.executor.cores`, more `spark.executor.memory`).

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `min-mib` (1.0): less disk spill than this is not reported.

    ## References
    - Spark tuning guide, "Memory Management Overview"; Spark monitoring guide, "Stages" (Spill columns).
    """

    code = "SPK703"
    name = "disk-spill"
    summary = "a stage spilled to disk: partitions too large for the memory per task"
    default_reason = ("a spilled stage writes its buffers to local disk and reads them back, running several "
                      "times slower and filling the disks; measured from the stage's own spill metrics")
    options = {"min-mib": Option(1.0, "Less disk spill (MiB) than this is not reported.")}
    invalid = (Invalid(_SPILLING, path="app.log"),)
    valid = (Valid(_FITTING, path="app.log"),)

    def check(self, app) -> None:
        for stage in app.stages.values():
            disk, memory = sum(stage.figures["disk_spill"]), sum(stage.figures["memory_spill"])
            if disk < self.opts["min-mib"] * MIB:
                continue
            read = sum(stage.figures["input"]) + sum(stage.figures["shuffle_read"])
            share = f", {ratio(disk, read)} its input" if read else ""  # spill may exceed the input: a ratio
            self.ctx.report_stage(self, stage, f"spilled {format_size(disk)} to disk ({format_size(memory)} in "
                                  f"memory){share}", help="more, smaller partitions, or more memory per task "
                                  "(fewer spark.executor.cores, more spark.executor.memory)")
