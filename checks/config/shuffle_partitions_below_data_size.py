from checks.config.adaptive_feature_disabled import adaptive_on
from checks.run._log import log, task
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import Setting

KEY = "spark.sql.shuffle.partitions"
INITIAL = "spark.sql.adaptive.coalescePartitions.initialPartitionNum"
_DEFAULT = 200
_MIB = 1 << 20
_GIB = 1 << 30


def _run(partitions, per_task, **properties):
    """A run whose aggregation stage read `per_task` bytes of shuffle data in each of `partitions` tasks."""
    return log([("count at job.py:14", [task(duration=60_000, shuffle_read=per_task) for _ in range(partitions)])],
               properties=properties, sql=True)


class ShufflePartitionsBelowDataSize(ConfigRule):
    """
    ## What it does
    Reads a run's event log: finds the shuffle partition count (the most
    partitions a SQL shuffle can have: `spark.sql.shuffle.partitions`, 200
    when left alone, or with AQE on
    `spark.sql.adaptive.coalescePartitions.initialPartitionNum` when set)
    too small for the largest shuffle the run read: that stage's shuffle read
    divided by the count is above `max-partition-mib` (512 MiB) per
    partition, on average. The average is the least the largest partition
    held, whatever AQE did: it merges partitions, it never splits them (bar
    skewed join partitions).

    Only event logs hold the data's size: job code, `spark-defaults.conf`
    and cluster definitions are not reported by this rule (SPK813 judges a
    count hard-coded in job code). The finding is placed at the run's Spark
    Properties, at the setting or, when it was left at 200, at the
    properties themselves.

    ## Why is this bad?
    Each shuffle partition is one task's input. Partitions of gigabytes do
    not fit in the execution memory of a task (a share of
    `spark.executor.memory` divided by the executor's cores): they spill to
    disk, run for minutes each, and a retry repeats all of it. The default
    of 200 was chosen for small data; tuning guides size partitions at 100
    to 200 MB.

    ## Example
    ```text
    stage 1.0 (count at job.py:14): 200 tasks read 400 GiB of shuffle data,
    spark.sql.shuffle.partitions left at 200: 2 GiB per partition
    ```

    ## Use instead
    ```text
    spark.sql.shuffle.partitions  3200
    ```
    or, with AQE, a generous
    `spark.sql.adaptive.coalescePartitions.initialPartitionNum` (AQE then
    merges what is small).

    ## Fix safety
    No fix.

    ## Options
    - `max-partition-mib` (int, default 512): the average shuffle partition
      size, in MiB, above which the count is reported.

    ## References
    - Spark SQL performance tuning guide, "Tuning Partitions" and "Adaptive
      Query Execution: Coalescing Post Shuffle Partitions".
    """

    code = "SPK823"
    name = "shuffle-partitions-below-data-size"
    summary = "a run's shuffles had too few partitions for their size (over 512 MiB each on average)"
    default_reason = ("shuffle partitions over 512 MiB on average do not fit a task's execution memory: they "
                      "spill, run for minutes, and a retry repeats it all; measured from the run's event log")
    options = {"max-partition-mib": Option(512, "The average shuffle partition size, in MiB, not reported.")}
    # Only an event log knows the data's size (tests/test_config_rules_runs.py reads real ones); static sources,
    # the last two examples, are never reported.
    invalid = (
        Invalid(_run(200, 2 * _GIB), path="app.log"),
        Invalid(_run(100, _GIB, **{KEY: "100"}), path="app.log"),
        Invalid(_run(300, _GIB, **{"spark.sql.adaptive.enabled": "true", INITIAL: "300", KEY: "4000"}),
                path="app.log"),
    )
    valid = (
        Valid(_run(200, 100 * _MIB), path="app.log"),
        Valid(_run(200, 2 * _GIB, **{KEY: "4000"}), path="app.log"),
        Valid(_run(200, 2 * _GIB, **{"spark.sql.adaptive.enabled": "true", INITIAL: "4000"}), path="app.log"),
        Valid(log([("reduceByKey at job.py:9", [task(duration=60_000, shuffle_read=2 * _GIB)] * 200)]),
              path="app.log"),
        Valid("from pyspark.sql import SparkSession\n"
              f"spark = SparkSession.builder.config('{KEY}', '8').getOrCreate()\n"),
        Valid(f"{KEY}  200\n", path="spark-defaults.conf"),
    )

    def check(self, conf) -> None:
        if conf.largest_sql_shuffle <= 0:
            return
        setting = conf.get(KEY)
        count, what = _DEFAULT, f"`{KEY}` left at its default, {_DEFAULT}"
        if setting is not None and setting.value.strip().isdigit():
            count, what = int(setting.value.strip()), f"`{KEY}={setting.value.strip()}`"
        initial = conf.get(INITIAL)
        if initial is not None and initial.value.strip().isdigit() and adaptive_on(conf, self.ctx.settings):
            setting, count, what = initial, int(initial.value.strip()), f"`{INITIAL}={initial.value.strip()}`"
        if count <= 0:
            return
        average = conf.largest_sql_shuffle / count
        if average <= self.opts["max-partition-mib"] * _MIB:
            return
        if setting is None:
            setting = Setting(KEY, str(_DEFAULT), line=conf.line)
        wanted = -(-conf.largest_sql_shuffle // (128 * _MIB))
        self.ctx.report(
            self, setting,
            f"{what}: the largest shuffle read {_size(conf.largest_sql_shuffle)}, "
            f"{_size(average)} per partition on average (over {self.opts['max-partition-mib']:,} MiB: such "
            "partitions spill to disk or run for minutes each)",
            help=f"raise it to about {wanted:,} (128 MiB per partition) in the job's configuration, or with AQE "
                 f"set `{INITIAL}` that high and let AQE merge the small ones")


def _size(n: float) -> str:
    return f"{n / (1 << 30):,.1f} GiB" if n >= 1 << 30 else f"{n / _MIB:,.0f} MiB"
