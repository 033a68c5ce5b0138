from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.metrics import runs_on_driver

# 16 cores for 10 minutes, two 20-second stages of a few tasks.
_IDLE = log([("count at job.py:7", [task(duration=20_000) for _ in range(4)]),
             ("save at job.py:19", [task(duration=20_000) for _ in range(2)])],
            executors=(("1", 8), ("2", 8)), duration_ms=600_000)
_BUSY = log([("count at job.py:7", [task(duration=590_000, executor=str(1 + i % 2)) for i in range(16)])],
            executors=(("1", 8), ("2", 8)))


# The same idle hour on the driver alone (local[8]): a laptop's shell, not a cluster's waste.
_LOCAL = log([("count at job.py:7", [task(duration=20_000, executor="driver") for _ in range(4)])],
             executors=(("driver", 8),), duration_ms=600_000)


class IdleCores(RunRule):
    """
    ## What it does
    Finds applications whose executor cores were idle over half of the
    executors' lifetime: the sum of task durations against cores times the
    time each executor was alive. Applications shorter than a minute are not
    judged.

    Local-mode runs (`local[*]`, `local[4]`: the driver's JVM runs every task)
    are not judged either. There the "executor cores" are the cores of one
    machine, usually a developer's laptop or a CI runner, shared with the
    driver's own Python between actions, the IDE and the test runner; a shell
    left open for an hour is idle by design, and nothing is paid for cores no
    task used. Idle cores are a cluster's waste: `local-cluster`, standalone,
    YARN and Kubernetes runs are judged.

    ## Why is this bad?
    Idle cores are paid for (cluster time, cloud bills) and do nothing: the
    driver is busy alone (collecting, planning, Python between jobs), a few
    long stages have too few tasks, or executors were requested for the
    largest stage and kept through small ones.

    ## Example
    ```text
    16 executor cores were busy 8% of the time (40.0 min of 8.0 h of core time)
    ```

    ## Use instead
    ```text
    16 executor cores were busy 83% of the time
    ```
    Enable dynamic allocation (`spark.dynamicAllocation.enabled` with shuffle
    tracking), give stages enough partitions, and move driver-side work
    (loops of small jobs, `collect` and Python post-processing) into Spark.

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `min-busy` (0.5): the lowest share of busy core time not reported.
    - `min-seconds` (60.0): shorter applications are not judged.

    ## References
    - Spark job scheduling guide, "Dynamic Resource Allocation".
    - DataFlint, "Idle cores" alert.
    """

    code = "SPK706"
    name = "idle-cores"
    summary = "executor cores idle over half of their lifetime"
    default_reason = ("idle executor cores are paid for (cluster time, cloud bills) and do "
                      "nothing; local-mode runs and applications under a minute are not judged")
    options = {"min-busy": Option(0.5, "The lowest busy share not reported."),
               "min-seconds": Option(60.0, "Shorter applications are not judged.")}
    invalid = (Invalid(_IDLE, path="app.log"),)
    valid = (Valid(_BUSY, path="app.log"), Valid(_LOCAL, path="app.log"))

    def check(self, app) -> None:
        if runs_on_driver(app):
            return  # one machine's cores, not a cluster's: see the manual
        end = app.end or app.last_time
        if not end or app.duration_ms < self.opts["min-seconds"] * 1000:
            return
        workers = [e for e in app.workers() if e.cores and e.added]
        if any(e.added > end or (app.start and e.added < app.start) for e in workers):
            return  # clocks that disagree (a log stitched together): no lifetime to judge
        capacity = sum(e.cores * max(0, min(e.removed or end, end) - e.added) for e in workers)
        busy = sum(e.busy_ms for e in workers)
        if not capacity or busy >= self.opts["min-busy"] * capacity:
            return
        cores = sum(e.cores for e in workers)
        self.ctx.report_at(self, app.properties_line or 1,
                           f"{cores} executor cores were busy {busy / capacity:.0%} of the time "
                           f"({_hours(busy)} of {_hours(capacity)} of core time)",
                           help="dynamic allocation, more partitions for long stages, less work on the driver",
                           label=f"application {app.id or app.name}")


def _hours(ms: float) -> str:
    return f"{ms / 3_600_000:.1f} h" if ms >= 3_600_000 else f"{ms / 60_000:.1f} min"
