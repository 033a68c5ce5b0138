from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.plan import MIB, format_size

_SMALL = log([("count at job.py:9", [task(duration=900) for _ in range(8)])], scans=((2400, 2400 * 300 * 1024),))
_SIZED = log([("count at job.py:9", [task(duration=900) for _ in range(8)])], scans=((24, 24 * 128 * MIB),))
# (metric with the number of files, metric with their bytes, what the operator does)
_PAIRS = (("number of files read", "size of files read", "read"),
          ("number of written files", "written output", "wrote"))


class SmallFiles(RunRule):
    """
    ## What it does
    Finds file scans and writes of SQL executions that touched over 100 files
    averaging under 3 MiB each, from the measured metrics of the scan
    (`number of files read`, `size of files read`) and of the write
    (`number of written files`, `written output`).

    ## Why is this bad?
    Every file costs a listing, an open, a footer read and a task slot; object
    stores charge per request. Thousands of small files make reads slow and
    planning slower, and they multiply: a job that writes one file per task
    and per partition value makes them for every job that reads the table.

    ## Example
    ```text
    SQL execution 0 (count at job.py:9): `FileScan` read 2400 files averaging 300.0 KiB
    ```

    ## Use instead
    ```text
    SQL execution 0 (count at job.py:9): `FileScan` read 24 files averaging 128.0 MiB
    ```
    Compact the table (Delta `OPTIMIZE`, Iceberg `rewrite_data_files`, or a
    rewrite with fewer partitions); write with `repartition` by the partition
    columns or AQE's rebalance (`REBALANCE` hint) so each task writes few,
    large files.

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `min-files` (100) and `max-average-mib` (3.0).

    ## References
    - DataFlint, "Small files read / written" alerts; Delta Lake, "Compact files".
    """

    code = "SPK709"
    name = "small-files"
    summary = "over 100 files averaging under 3 MiB read or written"
    default_reason = ("each small file costs a listing, an open, a footer read and a task slot, object "
                      "stores charge per request, and a job writing them makes every reader of the table pay")
    options = {"min-files": Option(100, "Fewer files than this are not judged."),
               "max-average-mib": Option(3.0, "Files averaging under this many MiB are small.")}
    invalid = (Invalid(_SMALL, path="app.log"),)
    valid = (Valid(_SIZED, path="app.log"),)

    def check(self, app) -> None:
        for plan in app.plans:
            for node in plan.root.walk():
                for count_name, size_name, verb in _PAIRS:
                    files, size = node.metrics.get(count_name), node.metrics.get(size_name)
                    if not files or size is None or files <= self.opts["min-files"]:
                        continue
                    average = size / files
                    if average < self.opts["max-average-mib"] * MIB:
                        self.ctx.report_at(self, plan.line, f"{plan.label}: `{node.name}` {verb} {files:.0f} files "
                                           f"averaging {format_size(average)}",
                                           help="compact the files; write fewer, larger files "
                                                "(repartition by the partition columns, REBALANCE)",
                                           call_site=plan.call_site, label=node.text)
