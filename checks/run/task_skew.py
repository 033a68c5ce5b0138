from statistics import mean, median

from checks.run._log import log, task
from linter.registry import Invalid, Option, RunRule, Valid
from linter.sources.app import quantiles
from linter.sources.metrics import runs_on_driver
from linter.sources.plan import MIB, format_ms, format_size

_SKEWED = log([("join at job.py:31", [task(duration=900) for _ in range(19)] + [task(duration=48_000)])])
_EVEN = log([("join at job.py:31", [task(duration=900) for _ in range(20)])])
_DATA = log([("join at job.py:31", [task(duration=2000, shuffle_read=20 * MIB) for _ in range(19)] +
              [task(duration=9000, shuffle_read=900 * MIB, executor="2")])], executors=(("1", 4), ("2", 4)))


class TaskSkew(RunRule):
    """
    ## What it does
    Finds stages whose slowest task runs far longer than the typical one (a
    straggler), as the Stages tab's quantile table shows: the longest task over
    5 times the median and over 5 seconds (DataFlint's thresholds), or a task
    reading over 3 times the stage's average shuffle data and over 100 MiB.
    The message gives the quantiles (min, 25th, median, 75th, max), says whether
    the skew is in the data (the slow task read more bytes) or in time alone
    (a slow node: the same executor, among several, is the slow one in other
    stages too), and
    whether AQE's skew-join handling was on.

    In local mode (`local[*]`: the driver's JVM runs every task, on one
    machine) a time skew is still reported, since a partition that takes far
    longer than the others keeps the stage waiting there too; but it is never
    blamed on a slow node, and the message says that the run's timings are one
    machine's, where the machine's own load and the start of a Python worker
    count. A skew in the data read is the same on a laptop as on a cluster.

    ## Why is this bad?
    A stage ends when its last task ends: one task with a hot key keeps the
    whole stage, and every core waiting on it, busy for minutes while the rest
    finished in seconds. More executors do not help; the skewed partition has
    to be split.

    ## Example
    ```text
    stage 3.0 (join at job.py:31): 20 tasks, duration min 0.9 s, median 0.9 s, max 48.0 s
    ```

    ## Use instead
    ```text
    stage 3.0 (join at job.py:31): 20 tasks, duration min 0.9 s, median 0.9 s, max 1.1 s
    ```
    Find the hot key (`df.groupBy(key).count().orderBy(F.desc("count"))`),
    filter or null placeholder values (sparkcheck's SPK301 finds them in code),
    salt the key, or let AQE split skewed joins
    (`spark.sql.adaptive.skewJoin.enabled`, on by default since 3.2).

    ## Fix safety
    No fix: a run is read, not written.

    ## Options
    - `time-ratio` (5.0) and `min-seconds` (5.0): the longest task over this many
      medians and seconds.
    - `bytes-ratio` (3.0) and `min-mib` (100.0): a task's shuffle read over this
      many times the average and this many MiB.

    ## References
    - Spark monitoring guide, "Stages" (task quantiles); Spark SQL tuning guide, "Optimizing Skew Join".
    - DataFlint, "Partition skew" alert (5x the median, 5 s).
    """

    code = "SPK701"
    name = "task-skew"
    summary = "a stage whose slowest task runs far longer than the median (skew or a straggler)"
    default_reason = ("one straggling task keeps the whole stage, and every core waiting on it, busy, "
                      "and more executors do not help; a local-mode run is never blamed on a slow node")
    options = {"time-ratio": Option(5.0, "Longest task over this many medians."),
               "min-seconds": Option(5.0, "...and over this many seconds."),
               "bytes-ratio": Option(3.0, "A task's shuffle read over this many times the average."),
               "min-mib": Option(100.0, "...and over this many MiB.")}
    invalid = (Invalid(_SKEWED, path="app.log"), Invalid(_DATA, path="app.log"))
    valid = (Valid(_EVEN, path="app.log"), Valid(_SKEWED, path="app.log", options={"min-seconds": 60.0}))

    def check(self, app) -> None:
        slow_executors: dict[str, int] = {}
        flagged = []
        for stage in app.stages.values():
            durations = stage.figures["duration"]
            if stage.tasks < 2:
                continue
            q = quantiles(durations)
            reads = stage.figures["shuffle_read"]
            worst = max(range(len(durations)), key=durations.__getitem__)
            time_skew = q[4] > self.opts["time-ratio"] * q[2] and q[4] > self.opts["min-seconds"] * 1000
            average = mean(reads)
            heavy = max(range(len(reads)), key=reads.__getitem__)
            data_skew = reads[heavy] > self.opts["bytes-ratio"] * average and reads[heavy] > self.opts["min-mib"] * MIB
            if time_skew or data_skew:
                executor = stage.executors[worst]
                slow_executors[executor] = slow_executors.get(executor, 0) + 1
                flagged.append((stage, q, worst, heavy, time_skew, data_skew, average))
        aqe = app.properties.get("spark.sql.adaptive.enabled", "true" if app.spark_version >= "3.2" else "false")
        skew_join = app.properties.get("spark.sql.adaptive.skewJoin.enabled", "true")
        handling = "on" if aqe == "true" and skew_join == "true" else "off"
        local = runs_on_driver(app)
        for stage, q, worst, heavy, time_skew, data_skew, average in flagged:
            reads = stage.figures["shuffle_read"]
            executor = stage.executors[worst]
            if data_skew or reads[worst] > 2 * median(reads) > 0:
                kind = (f"data skew: one task read {format_size(reads[heavy])} of shuffle data against "
                        f"{format_size(average)} on average")
            elif slow_executors.get(executor, 0) > 1 and len(app.executors) > 1:
                kind = f"time skew on executor {executor}, the slow one in {slow_executors[executor]} stages (a slow node)"
            elif local:
                kind = ("time skew: the slow task read no more data than the others (a local-mode run: one "
                        "machine's timings, its own load and Python worker starts included)")
            else:
                kind = "time skew: the slow task read no more data than the others"
            self.ctx.report_stage(
                self, stage,
                f"{stage.tasks} tasks, duration min {format_ms(q[0])}, 25th {format_ms(q[1])}, median {format_ms(q[2])}, "
                f"75th {format_ms(q[3])}, max {format_ms(q[4])}; {kind}; AQE skew-join handling was {handling}",
                help="find the hot key and split it (salt, filter placeholders, AQE skew join); "
                     "for a slow node, look at that executor's host")
