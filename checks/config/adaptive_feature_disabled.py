from checks.config._conf import builder
from linter.registry import ConfigRule, Invalid, Valid

# The AQE features that a switch of their own turns off, with what is lost.
FEATURES = {
    "spark.sql.adaptive.coalescePartitions.enabled":
        "small shuffle partitions are no longer merged: every shuffle runs `spark.sql.shuffle.partitions` tasks",
    "spark.sql.adaptive.skewJoin.enabled":
        "skewed join partitions are no longer split: one hot key keeps one task running long after the rest",
    "spark.sql.adaptive.localShuffleReader.enabled":
        "a join turned into a broadcast at run time reads its shuffle output remotely instead of locally",
}


def adaptive_on(conf, settings) -> bool:
    """Whether AQE is on for this configuration: set to true, or left alone on Spark 3.2+ (its default there)."""
    value = conf.value("spark.sql.adaptive.enabled")
    if value is not None:
        return value.lower() == "true"
    return settings.target_spark >= (3, 2)


class AdaptiveFeatureDisabled(ConfigRule):
    """
    ## What it does
    Finds adaptive query execution left on but one of its features switched
    off: `spark.sql.adaptive.coalescePartitions.enabled`,
    `spark.sql.adaptive.skewJoin.enabled` or
    `spark.sql.adaptive.localShuffleReader.enabled` set to `false`,
    wherever the configuration is written (the session builder,
    `spark.conf.set`, `SparkConf`, `spark-defaults.conf`, `spark-submit
    --conf`, YAML, an event log's environment).

    Not reported where the switch has no effect: AQE itself off in the same
    configuration (SPK801 says so), or a target Spark (`target-spark`) older
    than 3.2 where AQE is off by default and nothing here turns it on. Not
    reported for a `local` master either: a session on one machine (tests,
    a laptop) is where these switches are turned off on purpose, to see
    or to provoke a plan.

    ## Why is this bad?
    Each switch turns off one of the three things AQE does for a job at run
    time. Without partition coalescing every shuffle runs the fixed
    `spark.sql.shuffle.partitions` tasks, tiny ones for small data; without
    skew-join handling one hot key makes a straggler that holds up the
    stage; without the local shuffle reader a join that AQE turned into a
    broadcast still fetches its input over the network. They are on by
    default; turning one off is usually a leftover from debugging a plan.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.skewJoin.enabled", "false").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.getOrCreate()
    ```

    ## Fix safety
    No fix: the setting may be deliberate for one query; remove it where it is not.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution"
      (coalescing post-shuffle partitions, optimizing skew join, converting
      sort-merge join to broadcast join).
    """

    code = "SPK812"
    name = "adaptive-feature-disabled"
    summary = "an adaptive query execution feature (coalescing, skew join, local shuffle reader) switched off"
    default_reason = ("switching off one of AQE's features removes that run-time fix from every job, usually "
                      "a debugging leftover; not reported where AQE is off anyway or on a local master")
    doc_setup = "from pyspark.sql import SparkSession\n"
    invalid = (Invalid(builder(("spark.sql.adaptive.skewJoin.enabled", "false"))),
               Invalid("spark.sql.adaptive.coalescePartitions.enabled  false\n", path="spark-defaults.conf"),
               Invalid("spark-submit --master yarn \\\n  --conf spark.sql.adaptive.localShuffleReader.enabled=false "
                       "\\\n  --conf spark.sql.adaptive.skewJoin.enabled=false job.py\n", path="run.sh", count=2),
               Invalid(builder(("spark.sql.adaptive.enabled", "true"),
                               ("spark.sql.adaptive.coalescePartitions.enabled", "False"))))
    valid = (Valid(builder(("spark.sql.adaptive.skewJoin.enabled", "true"))),
             Valid(builder(("spark.sql.adaptive.enabled", "false"),
                           ("spark.sql.adaptive.skewJoin.enabled", "false"))),
             Valid("spark.master  local[4]\nspark.sql.adaptive.coalescePartitions.enabled  false\n",
                   path="spark-defaults.conf"),
             Valid(builder(("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "10"))))

    def check(self, conf) -> None:
        if conf.local or not adaptive_on(conf, self.ctx.settings):
            return
        for key, lost in FEATURES.items():
            setting = conf.get(key)
            if setting is not None and setting.value.strip().lower() == "false":
                self.ctx.report(self, setting, f"`{key}=false` while adaptive query execution is on: {lost}",
                                help="remove the setting (on by default with AQE)")
