from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.plan import MIB, format_size

_BIG = log([("collect at job.py:70", [task(duration=5000, result_size=90 * MIB) for _ in range(8)])])
_SMALL = log([("collect at job.py:70", [task(duration=5000, result_size=40_000) for _ in range(8)])])


class LargeResults(RunRule):
    """
    ## What it does
    Finds stages whose tasks sent over 512 MiB of results to the driver (the
    sum of their "Result Size"): `collect`, `toPandas`, `take` of large
    amounts, or accumulators and broadcasts built from task results.

    ## Why is this bad?
    The driver holds every result in memory at once. Half of
    `spark.driver.maxResultSize` (1 GiB by default) is already close to the
    job failing with `Total size of serialized results ... is bigger than
    spark.driver.maxResultSize`; with the limit raised or switched off (0),
    the driver runs out of memory instead, and the whole application dies.
    sparkcheck's SPK101 and SPK102 find unbounded `collect` and `toPandas` in
    the code.

    ## Example
    ```text
    stage 0.0 (collect at job.py:70): tasks sent 720.0 MiB of results to the driver
    ```

    ## Use instead
    ```text
    stage 0.0 (collect at job.py:70): tasks sent 312.5 KiB of results to the driver
    ```
    Write large results to storage, aggregate before collecting, or take a
    bounded `limit`.

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `max-mib` (512.0): the largest result size per stage not reported.

    ## References
    - Spark configuration, `spark.driver.maxResultSize`.
    """

    code = "SPK710"
    name = "large-results"
    summary = "over 512 MiB of task results sent to the driver"
    default_reason = ("over 512 MiB of task results is half the default `maxResultSize`, close to a failed "
                      "job or, with the limit raised, to a driver out of memory that ends the application")
    options = {"max-mib": Option(512.0, "The largest results (MiB) per stage not reported.")}
    invalid = (Invalid(_BIG, path="app.log"),)
    valid = (Valid(_SMALL, path="app.log"),)

    def check(self, app) -> None:
        for stage in app.stages.values():
            total = sum(stage.figures["result_size"])
            if total > self.opts["max-mib"] * MIB:
                self.ctx.report_stage(self, stage, f"tasks sent {format_size(total)} of results to the driver",
                                      help="write large results to storage, aggregate first, or collect a "
                                           "bounded limit")
