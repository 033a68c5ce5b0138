from checks.config._conf import builder
from checks.config._config_ranges import MIB, shown_size
from checks.config.adaptive_feature_disabled import adaptive_on
from linter.registry import ConfigRule, Invalid, Option, Valid
from linter.sources.sparkconf import bytes_of

ADVISORY = "spark.sql.adaptive.advisoryPartitionSizeInBytes"
LEGACY = "spark.sql.adaptive.shuffle.targetPostShuffleInputSize"  # read when ADVISORY is not set
PARALLELISM_FIRST = "spark.sql.adaptive.coalescePartitions.parallelismFirst"


class SmallAdvisoryPartitionSize(ConfigRule):
    """
    ## What it does
    Finds `spark.sql.adaptive.advisoryPartitionSizeInBytes` (or its older
    name `spark.sql.adaptive.shuffle.targetPostShuffleInputSize`) set below
    16 MiB (default 64MB), wherever the configuration is written. A number
    without a unit is bytes.

    Not reported where AQE is off, for a target Spark (`target-spark`)
    before 3.2 with AQE not turned on, or for a `local` master: tests set it
    tiny on purpose, to get several partitions out of a few rows.

    ## Why is this bad?
    The advisory size is the partition size adaptive execution aims at when it
    splits a skewed join partition or a `REBALANCE`, and, with
    `spark.sql.adaptive.coalescePartitions.parallelismFirst=false`, when it
    coalesces small shuffle partitions. At a few megabytes it makes many
    small tasks where a few would do (each with its scheduling and I/O
    overhead, the other join side read again for every split) and, before a
    write, many small files. While `parallelismFirst` is on (its default)
    coalescing ignores the advisory size and keeps partitions only above
    `spark.sql.adaptive.coalescePartitions.minPartitionSize` (1MB), already
    for the most parallelism: a small advisory size buys no parallelism
    there, it only shrinks skew splits and rebalanced partitions. To
    coalesce into fewer, larger tasks, set `parallelismFirst=false` and keep
    the advisory size at 64MB or above.

    ## Example
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.advisoryPartitionSizeInBytes", "4m").getOrCreate()
    ```

    ## Use instead
    ```python
    spark = SparkSession.builder.config("spark.sql.adaptive.advisoryPartitionSizeInBytes", "64m").getOrCreate()
    ```

    ## Fix safety
    No fix: remove the setting (64MB) or choose the size.

    ## Options
    - `min-mib` (16): the smallest advisory partition size (MiB) not reported.

    ## References
    - Spark SQL performance tuning guide, "Adaptive Query Execution": "Coalescing Post Shuffle
      Partitions" (`advisoryPartitionSizeInBytes` 64MB, `parallelismFirst` true, `minPartitionSize` 1MB)
      and "Optimizing Skew Join".
    """

    code = "SPK818"
    name = "small-advisory-partition-size"
    summary = "the adaptive advisory partition size set so small that AQE makes many tiny tasks and files"
    default_reason = ("an advisory size of a few megabytes makes many small tasks and, before a write, many "
                      "small files; local masters, where tests set it tiny on purpose, are not reported")
    doc_setup = "from pyspark.sql import SparkSession\n"
    options = {"min-mib": Option(16, "The smallest advisory partition size (MiB) not reported.")}
    invalid = (Invalid(builder((ADVISORY, "4m"))),
               Invalid(builder((ADVISORY, "1048576"))),
               Invalid(f"spark.sql.adaptive.enabled  true\n{PARALLELISM_FIRST}  false\n{ADVISORY}  8mb\n",
                       path="spark-defaults.conf"),
               Invalid(f"spark-submit --master yarn --conf {LEGACY}=2m job.py\n", path="run.sh"))
    valid = (Valid(builder((ADVISORY, "64m"))),
             Valid(builder((ADVISORY, "16m"))),
             Valid(builder((ADVISORY, "256MB"))),
             Valid(builder(("spark.sql.adaptive.enabled", "false"), (ADVISORY, "1m"))),
             Valid(f"spark.master  local[2]\n{ADVISORY}  1k\n", path="spark-defaults.conf"),
             Valid(builder((LEGACY, "2m"), (ADVISORY, "128m"))))

    def check(self, conf) -> None:
        if conf.local or not adaptive_on(conf, self.ctx.settings):
            return
        setting = conf.get(ADVISORY) or conf.get(LEGACY)
        size = bytes_of(setting.value, "b") if setting is not None else None
        if size is None or size >= self.opts["min-mib"] * MIB:
            return
        if (conf.value(PARALLELISM_FIRST) or "true").lower() == "false":
            effect = "coalesces shuffle partitions only up to that size"
        else:
            effect = "makes skew-join splits and REBALANCE aim at partitions that small"
        self.ctx.report(self, setting, f"an advisory partition size of {shown_size(size)} (default 64 MiB) {effect}: "
                        "many tiny tasks, and many small files where they are written",
                        help=f"remove it (64m), or keep it at {self.opts['min-mib']}m or above")
