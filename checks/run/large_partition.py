from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.plan import format_size

_GIB = 1 << 30
_HUGE = log([("save at job.py:61", [task(duration=80_000, input=6 * _GIB)] + [task(duration=2000, input=_GIB // 8)
                                                                                for _ in range(7)])])
_SIZED = log([("save at job.py:61", [task(duration=2000, input=_GIB // 8) for _ in range(8)])])


class LargePartition(RunRule):
    """
    ## What it does
    Finds stages where a task read over 5 GiB (input from files, or shuffle
    data): one partition far larger than a task's memory can sort or hash.

    ## Why is this bad?
    A task holds its partition's working set in its share of execution memory;
    gigabytes per task spill, stretch GC, and fail with `OutOfMemoryError` or
    lose the executor. It comes from too few partitions for the data
    (`repartition(n)` fixed on a small day, unsplittable compressed files such
    as `.gz`, one huge key).

    ## Example
    ```text
    stage 5.0 (save at job.py:61): a task read 6.0 GiB (the median task 128.0 MiB)
    ```

    ## Use instead
    ```text
    stage 5.0 (save at job.py:61): the largest task read 128.0 MiB
    ```
    More partitions (100-200 MB each); splittable formats (Parquet, bzip2 or
    uncompressed text); salt a hot key.

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `max-gib` (5.0): the largest read per task not reported.

    ## References
    - Spark SQL tuning guide, `spark.sql.files.maxPartitionBytes`; DataFlint, "Large partitions" alert.
    """

    code = "SPK708"
    name = "large-partition"
    summary = "a task that read over 5 GiB"
    default_reason = ("a task reading over 5 GiB cannot hold its partition in its share of execution memory: "
                      "it spills, stretches GC, and fails with OutOfMemoryError or loses its executor")
    options = {"max-gib": Option(5.0, "The largest read (GiB) per task not reported.")}
    invalid = (Invalid(_HUGE, path="app.log"),)
    valid = (Valid(_SIZED, path="app.log"),)

    def check(self, app) -> None:
        limit = self.opts["max-gib"] * _GIB
        for stage in app.stages.values():
            reads = [a + b for a, b in zip(stage.figures["input"], stage.figures["shuffle_read"])]
            if reads and max(reads) > limit:
                ordered = sorted(reads)
                self.ctx.report_stage(self, stage, f"a task read {format_size(ordered[-1])} (the median task "
                                      f"{format_size(ordered[len(ordered) // 2])})",
                                      help="more partitions (100-200 MB each), splittable input, salt a hot key")
